#include "plan/sdist_metadata.h"

#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "core/alloc.h"
#include "core/buf.h"
#include "core/fs.h"
#include "core/str.h"
#include "pep/filename.h"
#include "index/url.h"
#include "pep/metadata.h"
#include "plan/plan_internal.h"
#include "source/source.h"

void ts_sdist_metadata_clear(struct ts_sdist_metadata *m) {
  free(m->data);
  memset(m, 0, sizeof *m);
}

static struct ts_version *file_version(const char *filename, bool *is_wheel) {
  struct ts_error ignore = {0};
  size_t n = strlen(filename);
  struct ts_version *v = NULL;
  struct ts_wheel_filename *w = NULL;
  struct ts_sdist_filename *sd = NULL;
  *is_wheel = false;
  if (ts_wheel_filename_parse(filename, n, &w, &ignore) == TS_OK) {
    v = ts_version_dup(w->version);
    *is_wheel = true;
    ts_wheel_filename_free(w);
  } else if (ts_sdist_filename_parse(filename, n, &sd, &ignore) == TS_OK) {
    v = ts_version_dup(sd->version);
    ts_sdist_filename_free(sd);
  }
  return v;
}

static bool put_sorted(struct ts_buf *b, char **items, size_t n) {
  char **copy = ts_xcalloc(n + 1, sizeof *copy);
  if (n)
    memcpy(copy, items, n * sizeof *copy);
  qsort(copy, n, sizeof *copy, ts_strv_cmp);
  bool ok = true;
  for (size_t i = 0; i < n && ok; i++)
    ok = ts_buf_append_str(b, copy[i]) == TS_OK && ts_buf_append_str(b, "\n") == TS_OK;
  free(copy);
  return ok;
}

/* The fields a resolution reads, in one comparable string; NULL when the
 * metadata does not parse. */
static char *dependency_fields(const char *data, size_t len) {
  struct ts_metadata *md = NULL;
  struct ts_error ignore = {0};
  if (ts_metadata_parse(data, len, &md, &ignore) != TS_OK)
    return NULL;
  struct ts_buf b;
  ts_buf_init(&b, TS_CAP_METADATA);
  const char *rp = md->requires_python ? md->requires_python : "";
  bool ok = ts_buf_append_str(&b, rp) == TS_OK && ts_buf_append_str(&b, "\n--\n") == TS_OK &&
            put_sorted(&b, md->requires_dist, md->nrequires_dist) &&
            ts_buf_append_str(&b, "--\n") == TS_OK &&
            put_sorted(&b, md->provides_extra, md->nprovides_extra);
  ts_metadata_free(md);
  size_t n = 0;
  char *s = ok ? ts_buf_take(&b, &n) : NULL;
  ts_buf_clear(&b);
  return s || !ok ? s : ts_xstrdup("");
}

static enum ts_code from_wheels(struct ts_index *idx, const struct ts_index_project *pr,
                                const struct ts_version *version,
                                struct ts_sdist_metadata *out, struct ts_error *err) {
  struct ts_index_metadata *m = ts_xcalloc(pr->nfiles + 1, sizeof *m);
  size_t n = 0;
  for (size_t i = 0; i < pr->nfiles; i++) {
    bool wheel = false;
    struct ts_version *v = file_version(pr->files[i].filename, &wheel);
    if (v && wheel && !pr->files[i].yanked && ts_version_cmp(v, version) == 0)
      m[n++].file = &pr->files[i];
    ts_version_free(v);
  }
  enum ts_code rc = n ? ts_index_fetch_metadata(idx, m, n, err) : TS_OK;
  if (rc == TS_E_INTERRUPTED) {
    n = 0;
  } else {
    rc = TS_OK;
    *err = (struct ts_error){0};
  }
  char *first = NULL;
  size_t chosen = n;
  bool agree = n > 0;
  for (size_t i = 0; i < n && agree; i++) {
    char *fields = m[i].code == TS_OK ? dependency_fields(m[i].data, m[i].len) : NULL;
    agree = fields && (!first || strcmp(first, fields) == 0);
    if (!first)
      first = fields;
    else
      free(fields);
    /* the one whose file name sorts first: the same answer whatever the
     * page's order */
    if (agree && (chosen == n || strcmp(m[i].file->filename, m[chosen].file->filename) < 0))
      chosen = i;
  }
  if (agree) {
    out->from = TS_SDIST_METADATA_WHEELS;
    out->data = m[chosen].data;
    out->len = m[chosen].len;
    out->nwheels = n;
    m[chosen].data = NULL;
  }
  free(first);
  for (size_t i = 0; i < n; i++)
    ts_index_metadata_clear(&m[i]);
  free(m);
  return rc;
}

static bool names_field(const struct ts_metadata *md, const char *field) {
  for (size_t i = 0; i < md->ndynamic; i++)
    if (strcasecmp(md->dynamic[i], field) == 0)
      return true;
  return false;
}

/* PEP 643: 2.2 or later, and what a resolution reads is not Dynamic. */
static bool is_static(const char *data, size_t len) {
  struct ts_metadata *md = NULL;
  struct ts_error ignore = {0};
  if (ts_metadata_parse(data, len, &md, &ignore) != TS_OK)
    return false;
  const char *mv = md->metadata_version;
  char *dot = NULL;
  long major = strtol(mv, &dot, 10);
  long minor = dot && *dot == '.' ? strtol(dot + 1, NULL, 10) : 0;
  bool ok = (major > 2 || (major == 2 && minor >= 2)) && !names_field(md, "Requires-Dist") &&
            !names_field(md, "Requires-Python") && !names_field(md, "Provides-Extra");
  ts_metadata_free(md);
  return ok;
}

static enum ts_code from_pkg_info(struct ts_index *idx, const struct ts_index_file *sdist,
                                  struct ts_sdist_metadata *out, struct ts_error *err) {
  size_t n = strlen(sdist->filename);
  if (!(n > 7 && strcmp(sdist->filename + n - 7, ".tar.gz") == 0))
    return TS_OK;
  char *dir = NULL;
  enum ts_code rc = ts_plan_fetch_run_dir(idx, NULL, &dir, err);
  if (rc != TS_OK)
    return rc;
  char *path = ts_path_join(dir, sdist->filename);
  struct ts_index_download d = {.url = sdist->url, .sha256 = sdist->sha256, .dest = path};
  rc = ts_index_download(idx, &d, 1, err);
  char *local = strncmp(sdist->url, "file://", 7) == 0 ? ts_url_file_path(sdist->url) : NULL;
  char *data = NULL;
  size_t len = 0;
  struct ts_error ignore = {0};
  if (rc == TS_OK && d.code == TS_OK &&
      ts_source_sdist_pkg_info(local ? local : path, &data, &len, &ignore) == TS_OK && data &&
      is_static(data, len)) {
    out->from = TS_SDIST_METADATA_PKG_INFO;
    out->data = data;
    out->len = len;
    data = NULL;
  }
  if (rc != TS_E_INTERRUPTED) {
    rc = TS_OK;
    *err = (struct ts_error){0};
  }
  free(data);
  free(local);
  free(path);
  ts_fs_remove_tree(dir, &ignore);
  free(dir);
  return rc;
}

enum ts_code ts_plan_sdist_metadata(struct ts_index *idx,
                                    const struct ts_index_project *project,
                                    const struct ts_index_file *sdist,
                                    struct ts_sdist_metadata *out, struct ts_error *err) {
  memset(out, 0, sizeof *out);
  bool wheel = false;
  struct ts_version *version = file_version(sdist->filename, &wheel);
  if (!version || wheel) {
    ts_version_free(version);
    return TS_OK;
  }
  enum ts_code rc = project ? from_wheels(idx, project, version, out, err) : TS_OK;
  ts_version_free(version);
  if (rc == TS_OK && out->from == TS_SDIST_METADATA_NONE)
    rc = from_pkg_info(idx, sdist, out, err);
  return rc;
}

char *ts_sdist_metadata_note(const struct ts_sdist_metadata *m, const char *name,
                             const char *version) {
  switch (m->from) {
  case TS_SDIST_METADATA_WHEELS:
    return ts_xasprintf("%s %s: the sdist's dependencies are taken from its %zu wheel%s of "
                        "the same version, which agree (assumed the same; nothing built)",
                        name, version, m->nwheels, m->nwheels == 1 ? "" : "s");
  case TS_SDIST_METADATA_PKG_INFO:
    return ts_xasprintf("%s %s: the sdist's dependencies are read from its static PKG-INFO "
                        "(PEP 643; nothing built)",
                        name, version);
  case TS_SDIST_METADATA_NONE:
    break;
  }
  return NULL;
}
