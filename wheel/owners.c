/* Who owns each installed file; see owners.h. */
#include "wheel/owners.h"

#include <stdlib.h>
#include <string.h>

#include "core/alloc.h"
#include "core/fs.h"
#include "core/str.h"
#include "wheel/record.h"

static void add_dist(struct ts_owners *o, const char *distinfo,
                     char *(*normalize)(const char *)) {
  struct ts_record rec;
  if (ts_record_read_distinfo(distinfo, &rec, NULL) != TS_OK) {
    ts_record_clear(&rec);
    return;
  }
  o->dists = ts_xrealloc(o->dists, (o->ndists + 1) * sizeof *o->dists);
  size_t owner = o->ndists++;
  o->dists[owner] = ts_xstrdup(distinfo);
  char *site = ts_xstrdup(distinfo);
  *strrchr(site, '/') = '\0';
  o->files = ts_xrealloc(o->files, (o->n + rec.count) * sizeof *o->files);
  for (size_t i = 0; i < rec.count; i++) {
    const char *rel = rec.rows[i].path;
    char *joined = rel[0] == '/' ? ts_xstrdup(rel) : ts_path_join(site, rel);
    o->files[o->n++] = (struct ts_owned){normalize(joined),
                                         ts_xstrdup(rec.rows[i].hash), owner};
    free(joined);
  }
  free(site);
  ts_record_clear(&rec);
}

static int cmp_owned(const void *a, const void *b) {
  const struct ts_owned *x = a, *y = b;
  int c = strcmp(x->path, y->path);
  return c ? c : x->owner < y->owner ? -1 : x->owner > y->owner;
}

void ts_owners_build(struct ts_owners *o, const char *const *distinfos, size_t n,
                     const struct ts_strset *skip, char *(*normalize)(const char *)) {
  memset(o, 0, sizeof *o);
  for (size_t i = 0; i < n; i++)
    if (!ts_strset_has(skip, distinfos[i]))
      add_dist(o, distinfos[i], normalize);
  if (o->n)
    qsort(o->files, o->n, sizeof *o->files, cmp_owned);
}

const struct ts_owned *ts_owners_find(const struct ts_owners *o, const char *path) {
  size_t lo = 0, hi = o->n;
  while (lo < hi) { /* the first row whose path is >= path */
    size_t mid = lo + (hi - lo) / 2;
    if (strcmp(o->files[mid].path, path) < 0)
      lo = mid + 1;
    else
      hi = mid;
  }
  return lo < o->n && strcmp(o->files[lo].path, path) == 0 ? &o->files[lo] : NULL;
}

char *ts_owners_label(const struct ts_owners *o, size_t owner) {
  const char *base = strrchr(o->dists[owner], '/');
  base = base ? base + 1 : o->dists[owner];
  size_t l = strlen(base) - 10; /* ".dist-info" */
  const char *dash = memchr(base, '-', l);
  if (!dash)
    return ts_xasprintf("%.*s", (int)l, base);
  return ts_xasprintf("%.*s %.*s", (int)(dash - base), base,
                      (int)(l - (size_t)(dash - base) - 1), dash + 1);
}

void ts_owners_clear(struct ts_owners *o) {
  for (size_t i = 0; i < o->n; i++) {
    free(o->files[i].path);
    free(o->files[i].hash);
  }
  free(o->files);
  ts_strv_free(o->dists, o->ndists);
  memset(o, 0, sizeof *o);
}
