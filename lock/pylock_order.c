/*
 * lock/pylock_order.c — the order the writer gives a lock (packages by
 * name then PEP 440 version, files by file name, hashes by algorithm,
 * facts by key), so that identical content gives identical bytes whatever
 * order it was added in; and package equality by written text.
 */
#include "lock/pylock.h"

#include "core/str.h"

#include <stdlib.h>
#include <string.h>

#include "lock/pylock_internal.h"
#include "pep/version.h"

/* ------------------------------------------------------------------ */
/* ordering                                                             */

static int str_cmp_null(const char *a, const char *b) {
  if (!a || !b)
    return a ? 1 : b ? -1 : 0;
  return strcmp(a, b);
}

/* PEP 440 order when both parse, else text order; absent sorts first. */
static int version_text_cmp(const char *a, const char *b) {
  if (!a || !b)
    return a ? 1 : b ? -1 : 0;
  struct ts_version *va = NULL, *vb = NULL;
  int c;
  if (ts_version_parse(a, strlen(a), &va, NULL) == TS_OK &&
      ts_version_parse(b, strlen(b), &vb, NULL) == TS_OK)
    c = ts_version_cmp(va, vb);
  else
    c = 0;
  ts_version_free(va);
  ts_version_free(vb);
  return c ? c : strcmp(a, b);
}

int ts_pylock_file_cmp(const struct ts_pylock_file *a,
                    const struct ts_pylock_file *b) {
  size_t la, lb;
  const char *na = ts_pylock_file_name(a, &la);
  const char *nb = ts_pylock_file_name(b, &lb);
  int c;
  if (na && nb) {
    c = memcmp(na, nb, la < lb ? la : lb);
    if (c == 0 && la != lb)
      c = la < lb ? -1 : 1;
  } else {
    c = na ? 1 : nb ? -1 : 0;
  }
  if (c == 0)
    c = str_cmp_null(a->url, b->url);
  if (c == 0)
    c = str_cmp_null(a->path, b->path);
  return c;
}

/* The first wheel in writer order (the smallest by ts_pylock_file_cmp). */
static const struct ts_pylock_file *min_wheel(const struct ts_pylock_package *p) {
  const struct ts_pylock_file *m = NULL;
  for (size_t i = 0; i < p->nwheels; i++)
    if (!m || ts_pylock_file_cmp(&p->wheels[i], m) < 0)
      m = &p->wheels[i];
  return m;
}

/* The package as the writer prints it (NULL on error). */
static char *package_text(const struct ts_pylock_package *p) {
  struct ts_toml_value *root = ts_toml_new_table();
  struct ts_buf b;
  ts_buf_init(&b, TS_CAP_LOCKFILE);
  char *out = NULL;
  if (root && ts_toml_table_set(root, "p", ts_pylock_package_table(p, NULL)) == TS_OK &&
      ts_toml_write(root, &b, NULL) == TS_OK && ts_buf_append(&b, "", 0) == TS_OK)
    out = ts_buf_take(&b, NULL);
  ts_buf_clear(&b);
  ts_toml_free(root);
  return out;
}

int ts_pylock_package_cmp(const struct ts_pylock_package *a,
                       const struct ts_pylock_package *b) {
  int c = strcmp(a->name, b->name);
  if (c == 0)
    c = version_text_cmp(a->version, b->version);
  if (c == 0)
    c = str_cmp_null(a->marker, b->marker);
  if (c == 0)
    c = str_cmp_null(a->index, b->index);
  if (c == 0) {
    const struct ts_pylock_file *wa = min_wheel(a), *wb = min_wheel(b);
    c = wa && wb ? ts_pylock_file_cmp(wa, wb) : wa ? 1 : wb ? -1 : 0;
  }
  if (c == 0) {
    /* Rare full tie on the keys above: order by the written text, so that
     * the output never depends on the order packages were added in. */
    char *ta = package_text(a), *tb = package_text(b);
    c = str_cmp_null(ta, tb);
    free(ta);
    free(tb);
  }
  return c;
}

bool ts_pylock_package_equal(const struct ts_pylock_package *a,
                             const struct ts_pylock_package *b) {
  char *ta = package_text(a), *tb = package_text(b);
  bool same = ta && tb && strcmp(ta, tb) == 0;
  free(ta);
  free(tb);
  return same;
}

int ts_pylock_cmp_profile(const void *a, const void *b) {
  return strcmp(((const struct ts_pylock_profile *)a)->name,
                ((const struct ts_pylock_profile *)b)->name);
}

static int qs_file(const void *a, const void *b) {
  return ts_pylock_file_cmp(a, b);
}
static int qs_package(const void *a, const void *b) {
  return ts_pylock_package_cmp(a, b);
}
static int qs_hash(const void *a, const void *b) {
  const struct ts_pylock_hash *x = a, *y = b;
  return strcmp(x->algo, y->algo);
}
int ts_pylock_cmp_kv(const void *a, const void *b) {
  const struct ts_pylock_kv *x = a, *y = b;
  return strcmp(x->key, y->key);
}

static void sort_file(struct ts_pylock_file *f) {
  if (f && f->nhashes > 1)
    qsort(f->hashes, f->nhashes, sizeof *f->hashes, qs_hash);
}

void ts_pylock_sort(struct ts_pylock *lock) {
  for (size_t i = 0; i < lock->npackages; i++) {
    struct ts_pylock_package *p = &lock->packages[i];
    for (size_t j = 0; j < p->nwheels; j++)
      sort_file(&p->wheels[j]);
    if (p->nwheels > 1)
      qsort(p->wheels, p->nwheels, sizeof *p->wheels, qs_file);
    sort_file(p->sdist);
    sort_file(p->archive);
    sort_file(p->variants_json);
  }
  if (lock->npackages > 1)
    qsort(lock->packages, lock->npackages, sizeof *lock->packages, qs_package);
  if (lock->nhost_facts > 1)
    qsort(lock->host_facts, lock->nhost_facts, sizeof *lock->host_facts, ts_pylock_cmp_kv);
  if (lock->nrule_ids > 1)
    qsort(lock->rule_ids, lock->nrule_ids, sizeof *lock->rule_ids, ts_strv_cmp);
  if (lock->nprofiles > 2)
    qsort(lock->profiles + 1, lock->nprofiles - 1, sizeof *lock->profiles, ts_pylock_cmp_profile);
}
