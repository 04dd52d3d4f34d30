/*
 * resolver/parse.c — the facts the resolver reads from file names and
 * METADATA, through pep/'s parsers.
 */
#include "core/alloc.h"
#include "core/str.h"
#include "resolver/internal.h"
#include "resolver/resolver.h"

#include <stdlib.h>
#include <string.h>

#include "pep/filename.h"
#include "pep/metadata.h"
#include "pep/name.h"
#include "variant/label.h"

bool ts_rs_fname_parse(const char *filename, const struct ts_version *hint,
                       struct ts_rs_fname *out) {
  memset(out, 0, sizeof *out);
  size_t n = strlen(filename);
  if (n > 4 && strcmp(filename + n - 4, ".whl") == 0) {
    struct ts_wheel_filename *w = NULL;
    char *plain = NULL;
    /* a variant wheel's tags are those of its plain name */
    if (ts_variant_split_filename(filename, n, &plain, &out->variant_label, NULL) != TS_OK)
      return false;
    enum ts_code rc = ts_wheel_filename_parse_hinted(plain, strlen(plain), hint, &w, NULL);
    free(plain);
    if (rc != TS_OK) {
      free(out->variant_label);
      out->variant_label = NULL;
      return false;
    }
    out->wheel = true;
    out->wheel_name = w;
    out->normalized_name = w->normalized_name;
    out->version = w->version;
    return true;
  }
  struct ts_sdist_filename *s = NULL;
  if (ts_sdist_filename_parse(filename, n, &s, NULL) != TS_OK)
    return false;
  out->sdist_name = s;
  out->normalized_name = s->normalized_name;
  out->version = s->version;
  return true;
}

void ts_rs_fname_clear(struct ts_rs_fname *f) {
  if (f->wheel_name)
    ts_wheel_filename_free(f->wheel_name);
  if (f->sdist_name)
    ts_sdist_filename_free(f->sdist_name);
  free(f->variant_label);
  memset(f, 0, sizeof *f);
}

struct ts_version *ts_rs_fname_take_version(struct ts_rs_fname *f) {
  struct ts_version **owner = f->wheel_name ? &f->wheel_name->version : &f->sdist_name->version;
  *owner = NULL;
  return (struct ts_version *)f->version;
}

long ts_rs_wheel_priority(const struct ts_tagset *tags,
                          const struct ts_rs_fname *f) {
  if (!f->wheel || !tags)
    return -1;
  return ts_tagset_best_priority(tags, f->wheel_name->tags,
                                 f->wheel_name->ntags);
}

void ts_rs_meta_clear(struct ts_rs_meta *m) {
  for (size_t i = 0; i < m->nrequires_dist; i++)
    ts_requirement_free(m->requires_dist[i]);
  free(m->requires_dist);
  free(m->requires_python);
  ts_metadata_free(m->md);
  memset(m, 0, sizeof *m);
}

void ts_rs_meta_hand_over(struct ts_rs_meta *m, struct ts_resolved *item) {
  item->metadata_bytes = m->data;
  item->metadata_len = m->len;
  item->metadata = m->md;
  item->requires_dist = m->requires_dist;
  item->nrequires_dist = m->nrequires_dist;
  m->md = NULL;
  m->requires_dist = NULL;
  m->nrequires_dist = 0;
}

enum ts_code ts_rs_meta_parse(const char *data, size_t len,
                              struct ts_rs_meta *out, struct ts_error *err) {
  memset(out, 0, sizeof *out);
  struct ts_metadata *md = NULL;
  enum ts_code c = ts_metadata_parse(data, len, &md, err);
  if (c != TS_OK)
    return c;
  /* Requires-Dist in text order, not file order: libsolv walks a
   * solvable's requires in order, so the answer must not depend on it
   * (sorted as a copy: md stays as the file has it) */
  char **texts = NULL;
  if (md->nrequires_dist) {
    out->requires_dist = ts_xcalloc(md->nrequires_dist, sizeof *out->requires_dist);
    texts = ts_xreallocarray(NULL, md->nrequires_dist, sizeof *texts);
    memcpy(texts, md->requires_dist, md->nrequires_dist * sizeof *texts);
    qsort(texts, md->nrequires_dist, sizeof *texts, ts_strv_cmp);
  }
  for (size_t i = 0; i < md->nrequires_dist; i++) {
    const char *s = texts[i];
    c = ts_requirement_parse(s, strlen(s), &out->requires_dist[i], err);
    if (c != TS_OK) {
      ts_error_wrap(err, "Requires-Dist '%s'", s);
      free(texts);
      ts_rs_meta_clear(out);
      ts_metadata_free(md);
      return c;
    }
    out->nrequires_dist++;
  }
  free(texts);
  if (md->requires_python) {
    out->requires_python = ts_xstrdup(md->requires_python);
  }
  out->md = md;
  out->data = data;
  out->len = len;
  return TS_OK;
}
