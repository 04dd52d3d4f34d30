/*
 * inventory/installed.c — the installed distributions of site-packages
 * directories (see installed.h).
 */
#include "inventory/installed.h"

#include <cjson/cJSON.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/alloc.h"
#include "core/buf.h"
#include "core/fs.h"
#include "core/str.h"
#include "pep/name.h"
#include "pep/requirement.h"
#include "pep/version.h"
#include "variant/metadata.h"
#include "target/site.h"
#include "wheel/record.h"

static void dist_clear(struct ts_installed_dist *d) {
  ts_metadata_free(d->md);
  free(d->installer);
  free(d->direct_url_json);
  free(d->variant_label);
  free(d->direct_url);
  free(d->direct_reference);
  free(d->editable_location);
}

void ts_installed_clear(struct ts_installed_set *s) {
  for (size_t i = 0; i < s->ndists; i++)
    dist_clear(&s->dists[i]);
  free(s->dists);
  ts_strv_free(s->skipped, s->nskipped);
  ts_site_clear(&s->site);
  memset(s, 0, sizeof *s);
}

/* A small file of the dist-info as text, NULL when absent or unreadable. */
static char *read_small(const char *distinfo, const char *name) {
  char *p = ts_path_join(distinfo, name);
  struct ts_buf b;
  ts_buf_init(&b, TS_CAP_SMALL_FILE);
  struct ts_error e = {0};
  char *out = NULL;
  if (ts_fs_read_file(p, &b, &e) == TS_OK)
    out = ts_xstrndup(b.data ? b.data : "", b.len);
  ts_buf_clear(&b);
  free(p);
  return out;
}

static const char *json_str(const cJSON *o, const char *key) {
  const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);
  return cJSON_IsString(v) ? v->valuestring : NULL;
}

/* PEP 610: the url, dir_info.editable, and pip freeze's direct reference. */
static void read_direct_url(struct ts_installed_dist *d) {
  d->direct_url_json = read_small(d->site->dist_info, "direct_url.json");
  if (!d->direct_url_json)
    return;
  cJSON *j = cJSON_Parse(d->direct_url_json);
  const char *url = json_str(j, "url");
  if (!url) {
    cJSON_Delete(j);
    return;
  }
  d->direct_url = ts_xstrdup(url);
  const cJSON *dir = cJSON_GetObjectItemCaseSensitive(j, "dir_info");
  const cJSON *vcs = cJSON_GetObjectItemCaseSensitive(j, "vcs_info");
  const cJSON *archive = cJSON_GetObjectItemCaseSensitive(j, "archive_info");
  d->editable = cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(dir, "editable"));
  if (d->editable && strncmp(url, "file://", 7) == 0)
    d->editable_location = ts_xstrdup(url + 7);
  const char *hash = json_str(archive, "hash");
  const char *sub = json_str(j, "subdirectory");
  const char *vcs_name = json_str(vcs, "vcs"), *commit = json_str(vcs, "commit_id");
  char *base = vcs_name && commit ? ts_xasprintf("%s+%s@%s", vcs_name, url, commit)
                                  : ts_xstrdup(url);
  if (hash && sub)
    d->direct_reference = ts_xasprintf("%s#%s&subdirectory=%s", base, hash, sub);
  else if (hash || sub)
    d->direct_reference = ts_xasprintf("%s#%s%s", base, hash ? "" : "subdirectory=",
                                       hash ? hash : sub);
  else
    d->direct_reference = ts_xstrdup(base);
  free(base);
  cJSON_Delete(j);
}

static void add_skipped(struct ts_installed_set *s, const char *path, const char *why) {
  s->skipped = ts_xrealloc(s->skipped, (s->nskipped + 1) * sizeof *s->skipped);
  s->skipped[s->nskipped++] = ts_xasprintf("%s: %s", path, why);
}

/* The label of the one variant a variant wheel's variant.json names. */
static void read_variant(struct ts_installed_dist *d) {
  char *json = read_small(d->site->dist_info, "variant.json");
  struct ts_variant_metadata m;
  struct ts_error ignore = {0};
  if (json && ts_variant_metadata_parse(json, strlen(json), "variant.json", &m, &ignore) ==
                  TS_OK &&
      m.nvariants == 1)
    d->variant_label = ts_xstrdup(m.variants[0].label);
  if (json)
    ts_variant_metadata_clear(&m);
  free(json);
}

/* One distribution of the installed set (target/site.h) into *d: false
 * (the reason in s->skipped) when pip would skip it. */
static bool load(struct ts_installed_set *s, const struct ts_site_dist *sd,
                 struct ts_installed_dist *d) {
  memset(d, 0, sizeof *d);
  struct ts_error e = {0};
  if (!sd->metadata) {
    add_skipped(s, sd->dist_info, sd->problem ? sd->problem : "no METADATA");
    return false;
  }
  if (ts_metadata_parse_installed(sd->metadata, sd->metadata_len, &d->md, &e) != TS_OK) {
    add_skipped(s, sd->dist_info, e.detail);
    dist_clear(d);
    return false;
  }
  d->site = sd;
  d->version = d->md->version ? ts_version_str(d->md->version) : d->md->legacy_version;
  char *inst = read_small(sd->dist_info, "INSTALLER");
  if (inst) {
    inst[strcspn(inst, "\r\n")] = '\0';
    d->installer = inst;
  }
  read_direct_url(d);
  read_variant(d);
  return true;
}

static int by_name(const void *a, const void *b) {
  const struct ts_installed_dist *x = a, *y = b;
  return strcmp(x->site->normalized, y->site->normalized);
}

enum ts_code ts_installed_read(const char *const *dirs, size_t ndirs,
                               struct ts_installed_set *out, struct ts_error *err) {
  memset(out, 0, sizeof *out);
  enum ts_code rc = ts_site_read(dirs, ndirs, &out->site, err);
  /* site is sorted by project, then directory order: the first copy wins */
  for (size_t i = 0; rc == TS_OK && i < out->site.n; i++) {
    struct ts_installed_dist d;
    if (!load(out, &out->site.dists[i], &d))
      continue;
    if (ts_installed_find(out, d.site->normalized)) {
      dist_clear(&d); /* an earlier directory (or copy) has it */
      continue;
    }
    out->dists = ts_xreallocarray(out->dists, out->ndists + 1, sizeof *out->dists);
    out->dists[out->ndists++] = d;
  }
  if (out->ndists > 1)
    qsort(out->dists, out->ndists, sizeof *out->dists, by_name);
  return rc;
}

const struct ts_installed_dist *ts_installed_find(const struct ts_installed_set *s,
                                                  const char *name) {
  for (size_t i = 0; i < s->ndists; i++)
    if (ts_name_eq(s->dists[i].site->normalized, strlen(s->dists[i].site->normalized),
                   name, strlen(name)))
      return &s->dists[i];
  return NULL;
}

enum ts_code ts_installed_files(const struct ts_installed_dist *d, char ***paths,
                                size_t *n, struct ts_error *err) {
  *paths = NULL;
  *n = 0;
  struct ts_record rec;
  enum ts_code rc = ts_record_read_distinfo(d->site->dist_info, &rec, err);
  if (rc == TS_OK) {
    *paths = ts_xrealloc(NULL, rec.count * sizeof **paths);
    for (size_t i = 0; i < rec.count; i++)
      (*paths)[i] = ts_xstrdup(rec.rows[i].path);
    *n = rec.count;
  }
  ts_record_clear(&rec);
  return rc;
}

void ts_installed_files_free(char **paths, size_t n) {
  ts_strv_free(paths, n);
}

void ts_installed_requires(const struct ts_installed_dist *d,
                           const struct ts_marker_env *env, char ***names,
                           size_t *n) {
  *names = NULL;
  *n = 0;
  for (size_t i = 0; i < d->md->nrequires_dist; i++) {
    const char *text = d->md->requires_dist[i];
    struct ts_requirement *r = NULL;
    struct ts_error e = {0};
    if (ts_requirement_parse(text, strlen(text), &r, &e) != TS_OK)
      continue;
    /* pip's iter_dependencies(): no marker, or one that holds with extra "" */
    if (!r->marker || (env && ts_marker_eval(r->marker, env, ""))) {
      *names = ts_xrealloc(*names, (*n + 1) * sizeof **names);
      (*names)[(*n)++] = ts_xstrdup(r->name);
    }
    ts_requirement_free(r);
  }
}
