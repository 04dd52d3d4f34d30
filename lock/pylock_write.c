/*
 * lock/pylock_write.c — the PEP 751 writer: the model as a TOML tree in
 * the specification's key order, then text (deterministic bytes), the
 * [tool.torchsolve] table, writing a lock file, and validation of a built
 * lock by writing and reading it back.
 */
#include "lock/pylock.h"

#include <stdlib.h>
#include <string.h>

#include "core/alloc.h"
#include "core/str.h"
#include "lock/output.h"
#include "lock/pylock_internal.h"

/* ------------------------------------------------------------------ */
/* writer: model -> TOML tree -> text                                   */

static int idx_cmp_files(const struct ts_pylock_file *base, size_t a,
                         size_t b) {
  int c = ts_pylock_file_cmp(&base[a], &base[b]);
  return c ? c : (a < b ? -1 : a > b);
}

/* Insertion sort of an index array: n is small (wheels, hashes). */
static void sort_idx_files(size_t *idx, size_t n,
                           const struct ts_pylock_file *base) {
  for (size_t i = 1; i < n; i++) {
    size_t v = idx[i], j = i;
    while (j > 0 && idx_cmp_files(base, idx[j - 1], v) > 0) {
      idx[j] = idx[j - 1];
      j--;
    }
    idx[j] = v;
  }
}

static int set_str(struct ts_toml_value *t, const char *k, const char *v) {
  return ts_toml_table_set_str(t, k, v) != TS_OK;
}

static int set_strv(struct ts_toml_value *t, const char *k, char **v,
                    size_t n, bool sort_unique) {
  if (!v || !n)
    return 0;
  struct ts_toml_value *a = ts_toml_new_array();
  if (!a)
    return 1;
  a->inline_form = true;
  char **c = ts_xreallocarray(NULL, n, sizeof *c);
  memcpy(c, v, n * sizeof *c);
  if (sort_unique)
    qsort(c, n, sizeof *c, ts_strv_cmp);
  int bad = 0;
  for (size_t i = 0; i < n && !bad; i++) {
    if (sort_unique && i && strcmp(c[i], c[i - 1]) == 0)
      continue;
    bad = ts_toml_array_push(a, ts_toml_new_string(c[i], strlen(c[i]))) != TS_OK;
  }
  free(c);
  if (bad) {
    ts_toml_free(a);
    return 1;
  }
  return ts_toml_table_set(t, k, a) != TS_OK;
}

static struct ts_toml_value *hashes_table(const struct ts_pylock_file *f) {
  struct ts_toml_value *h = ts_toml_new_table();
  if (!h)
    return NULL;
  h->inline_form = true;
  /* sorted by algorithm, each written once */
  const char *prev = NULL;
  for (size_t k = 0; k < f->nhashes; k++) {
    const struct ts_pylock_hash *best = NULL;
    for (size_t i = 0; i < f->nhashes; i++) {
      const struct ts_pylock_hash *x = &f->hashes[i];
      if (prev && strcmp(x->algo, prev) <= 0)
        continue;
      if (!best || strcmp(x->algo, best->algo) < 0)
        best = x;
    }
    if (!best)
      break;
    if (set_str(h, best->algo, best->value)) {
      ts_toml_free(h);
      return NULL;
    }
    prev = best->algo;
  }
  return h;
}

static int put_datetime(struct ts_toml_value *t, const char *k, const char *v,
                        struct ts_error *err) {
  if (!v)
    return 0;
  struct ts_toml_value *d = ts_toml_new_datetime(v, strlen(v));
  if (!d) {
    ts_error_set(err, TS_E_INVALID, "'%s' is not a TOML date-time", v);
    return 1;
  }
  return ts_toml_table_set(t, k, d) != TS_OK;
}

/* name, upload-time, url, path, size, hashes: the PEP's order. */
static struct ts_toml_value *file_table(const struct ts_pylock_file *f,
                                        bool with_name, bool is_archive,
                                        struct ts_error *err) {
  struct ts_toml_value *t = ts_toml_new_table();
  if (!t)
    return NULL;
  int bad = 0;
  if (is_archive) {
    bad |= set_str(t, "url", f->url);
    bad |= set_str(t, "path", f->path);
    if (!bad && f->size >= 0)
      bad |= ts_toml_table_set(t, "size", ts_toml_new_integer(f->size)) != 0;
    bad |= put_datetime(t, "upload-time", f->upload_time, err);
  } else {
    if (with_name)
      bad |= set_str(t, "name", f->name);
    bad |= put_datetime(t, "upload-time", f->upload_time, err);
    bad |= set_str(t, "url", f->url);
    bad |= set_str(t, "path", f->path);
    if (!bad && f->size >= 0)
      bad |= ts_toml_table_set(t, "size", ts_toml_new_integer(f->size)) != 0;
  }
  if (!bad)
    bad |= ts_toml_table_set(t, "hashes", hashes_table(f)) != TS_OK;
  if (is_archive && !bad)
    bad |= set_str(t, "subdirectory", f->subdirectory);
  if (bad) {
    ts_toml_free(t);
    return NULL;
  }
  return t;
}

static int put_dup(struct ts_toml_value *t, const char *k,
                   const struct ts_toml_value *v) {
  if (!v)
    return 0;
  return ts_toml_table_set(t, k, ts_toml_dup(v)) != TS_OK;
}

struct ts_toml_value *ts_pylock_package_table(const struct ts_pylock_package *p,
                                           struct ts_error *err) {
  struct ts_toml_value *t = ts_toml_new_table();
  if (!t)
    return NULL;
  int bad = 0;
  bad |= set_str(t, "name", p->name);
  bad |= set_str(t, "version", p->version);
  bad |= set_str(t, "marker", p->marker);
  bad |= set_str(t, "requires-python", p->requires_python);
  if (!bad && p->dependencies) {
    struct ts_toml_value *d = ts_toml_dup(p->dependencies);
    if (d) {
      d->inline_form = true;
      for (size_t i = 0; i < d->nitems; i++)
        d->items[i]->inline_form = true;
    }
    bad |= ts_toml_table_set(t, "dependencies", d) != TS_OK;
  }
  if (!bad && p->vcs) {
    struct ts_toml_value *v = ts_toml_new_table();
    bad |= !v;
    if (v) {
      bad |= set_str(v, "type", p->vcs->type);
      bad |= set_str(v, "url", p->vcs->url);
      bad |= set_str(v, "path", p->vcs->path);
      bad |= set_str(v, "requested-revision", p->vcs->requested_revision);
      bad |= set_str(v, "commit-id", p->vcs->commit_id);
      bad |= set_str(v, "subdirectory", p->vcs->subdirectory);
      bad |= ts_toml_table_set(t, "vcs", v) != TS_OK;
    }
  }
  if (!bad && p->directory) {
    struct ts_toml_value *v = ts_toml_new_table();
    bad |= !v;
    if (v) {
      bad |= set_str(v, "path", p->directory->path);
      if (p->directory->editable >= 0)
        bad |= ts_toml_table_set(v, "editable",
                                 ts_toml_new_bool(p->directory->editable)) !=
               TS_OK;
      bad |= set_str(v, "subdirectory", p->directory->subdirectory);
      bad |= ts_toml_table_set(t, "directory", v) != TS_OK;
    }
  }
  if (!bad && p->archive)
    bad |= ts_toml_table_set(t, "archive",
                             file_table(p->archive, false, true, err)) != TS_OK;
  bad |= set_str(t, "index", p->index);
  if (!bad && p->sdist)
    bad |= ts_toml_table_set(t, "sdist",
                             file_table(p->sdist, true, false, err)) != TS_OK;
  if (!bad && p->nwheels) {
    size_t *idx = ts_xreallocarray(NULL, p->nwheels, sizeof *idx);
    struct ts_toml_value *a = ts_toml_new_array();
    bad |= !a;
    if (!bad) {
      for (size_t i = 0; i < p->nwheels; i++)
        idx[i] = i;
      sort_idx_files(idx, p->nwheels, p->wheels);
      for (size_t i = 0; i < p->nwheels && !bad; i++)
        bad |= ts_toml_array_push(a, file_table(&p->wheels[idx[i]], true,
                                                false, err)) != TS_OK;
    }
    if (!bad) {
      bad |= ts_toml_table_set(t, "wheels", a) != TS_OK;
      a = NULL;
    }
    ts_toml_free(a);
    free(idx);
  }
  if (!bad && p->variants_json)
    bad |= ts_toml_table_set(t, "variants-json",
                             file_table(p->variants_json, true, false, err)) != TS_OK;
  if (!bad)
    bad |= put_dup(t, "attestation-identities", p->attestation_identities);
  if (!bad)
    bad |= put_dup(t, "tool", p->tool);
  if (bad) {
    ts_toml_free(t);
    return NULL;
  }
  return t;
}

/* rules = [...] and [host] of the lock or of one profile into t. */
static int put_facts(struct ts_toml_value *t, const struct ts_pylock_kv *facts, size_t n,
                     char **rules, size_t nrules) {
  int bad = set_strv(t, "rules", rules, nrules, true);
  if (bad || !n)
    return bad;
  struct ts_toml_value *h = ts_toml_new_table();
  struct ts_pylock_kv *kv = ts_xreallocarray(NULL, n, sizeof *kv);
  bad |= !h;
  if (!bad) {
    memcpy(kv, facts, n * sizeof *kv);
    qsort(kv, n, sizeof *kv, ts_pylock_cmp_kv);
    for (size_t k = 0; k < n && !bad; k++)
      bad |= set_str(h, kv[k].key, kv[k].value);
  }
  free(kv);
  if (!bad)
    return ts_toml_table_set(t, "host", h) != TS_OK;
  ts_toml_free(h);
  return 1;
}

/* [tool.torchsolve]: the lock's facts, then default-profile and the
 * profiles, the default first and the others by name. */
static struct ts_toml_value *torchsolve_table(const struct ts_pylock *lock) {
  struct ts_toml_value *ts = ts_toml_new_table();
  int bad = !ts || put_facts(ts, lock->host_facts, lock->nhost_facts, lock->rule_ids,
                             lock->nrule_ids);
  if (!bad && lock->nprofiles) {
    bad |= set_str(ts, "default-profile", lock->profiles[0].name);
    struct ts_toml_value *all = ts_toml_new_table();
    struct ts_pylock_profile *order = ts_xreallocarray(NULL, lock->nprofiles, sizeof *order);
    bad |= !all;
    if (!bad) {
      memcpy(order, lock->profiles, lock->nprofiles * sizeof *order);
      if (lock->nprofiles > 2)
        qsort(order + 1, lock->nprofiles - 1, sizeof *order, ts_pylock_cmp_profile);
    }
    for (size_t i = 0; !bad && i < lock->nprofiles; i++) {
      struct ts_toml_value *pt = ts_toml_new_table();
      bad |= !pt || (order[i].backend && set_str(pt, "backend", order[i].backend)) ||
             put_facts(pt, order[i].host_facts, order[i].nhost_facts,
                              order[i].rule_ids, order[i].nrule_ids);
      if (bad)
        ts_toml_free(pt);
      else
        bad |= ts_toml_table_set(all, order[i].name, pt) != TS_OK;
    }
    free(order);
    if (!bad)
      bad |= ts_toml_table_set(ts, "profiles", all) != TS_OK;
    else
      ts_toml_free(all);
  }
  const struct ts_pylock_grid *g = lock->grid;
  if (!bad && g) {
    struct ts_toml_value *u = ts_toml_new_table();
    bad |= !u || set_strv(u, "systems", g->systems, g->nsystems, false) ||
           set_strv(u, "machines", g->machines, g->nmachines, false) ||
           set_strv(u, "implementations", g->implementations, g->nimplementations, false) ||
           set_strv(u, "pythons", g->pythons, g->npythons, false);
    if (bad || ts_toml_table_set(ts, "universal", u) != TS_OK) {
      ts_toml_free(u);
      bad = 1;
    }
  }
  if (bad) {
    ts_toml_free(ts);
    return NULL;
  }
  return ts;
}

static struct ts_toml_value *tool_table(const struct ts_pylock *lock) {
  bool ours = lock->nhost_facts || lock->nrule_ids || lock->nprofiles || lock->grid;
  if (!ours && (!lock->tool || !lock->tool->nkvs))
    return NULL;
  struct ts_toml_value *t = ts_toml_new_table();
  if (!t)
    return NULL;
  /* Tools in name order, torchsolve among them. */
  size_t n = lock->tool ? lock->tool->nkvs : 0;
  const char **names = ts_xreallocarray(NULL, n + 1, sizeof *names);
  int bad = 0;
  for (size_t i = 0; i < n && !bad; i++)
    names[i] = lock->tool->kvs[i].key;
  if (!bad && ours)
    names[n++] = "torchsolve";
  if (!bad)
    qsort(names, n, sizeof *names, ts_strv_cmp);
  for (size_t i = 0; i < n && !bad; i++) {
    if (i && strcmp(names[i], names[i - 1]) == 0)
      continue;
    if (ours && strcmp(names[i], "torchsolve") == 0)
      bad |= ts_toml_table_set(t, "torchsolve", torchsolve_table(lock)) != TS_OK;
    else
      bad |= put_dup(t, names[i], ts_toml_get(lock->tool, names[i]));
  }
  free(names);
  if (bad) {
    ts_toml_free(t);
    return NULL;
  }
  return t;
}

static int idx_cmp_pkgs(const struct ts_pylock_package *base, size_t a,
                        size_t b) {
  int c = ts_pylock_package_cmp(&base[a], &base[b]);
  return c ? c : (a < b ? -1 : a > b);
}

/* Merge sort of package indexes (n may be large; qsort has no context). */
static void msort_pkgs(size_t *idx, size_t *tmp, size_t n,
                       const struct ts_pylock_package *base) {
  if (n < 2)
    return;
  size_t h = n / 2;
  msort_pkgs(idx, tmp, h, base);
  msort_pkgs(idx + h, tmp, n - h, base);
  size_t i = 0, j = h, k = 0;
  while (i < h && j < n)
    tmp[k++] = idx_cmp_pkgs(base, idx[i], idx[j]) <= 0 ? idx[i++] : idx[j++];
  while (i < h)
    tmp[k++] = idx[i++];
  while (j < n)
    tmp[k++] = idx[j++];
  memcpy(idx, tmp, n * sizeof *idx);
}

size_t *ts_pylock_sorted_order(const struct ts_pylock *lock) {
  if (!lock || !lock->npackages)
    return NULL;
  size_t *idx = ts_xreallocarray(NULL, lock->npackages, sizeof *idx);
  size_t *tmp = ts_xreallocarray(NULL, lock->npackages, sizeof *tmp);
  for (size_t i = 0; i < lock->npackages; i++)
    idx[i] = i;
  msort_pkgs(idx, tmp, lock->npackages, lock->packages);
  free(tmp);
  return idx;
}

static enum ts_code to_toml(const struct ts_pylock *lock,
                            struct ts_toml_value **out, struct ts_error *err) {
  *out = NULL;
  struct ts_toml_value *root = ts_toml_new_table();
  if (!root)
    return ts_error_set(err, TS_E_NOMEM, "out of memory");
  int bad = 0;
  if (err)
    err->code = TS_OK;
  bad |= set_str(root, "lock-version",
                 lock->lock_version ? lock->lock_version : TS_PYLOCK_VERSION);
  bad |= set_strv(root, "environments", lock->environments,
                  lock->nenvironments, false);
  bad |= set_str(root, "requires-python", lock->requires_python);
  bad |= set_strv(root, "extras", lock->extras, lock->nextras, true);
  bad |= set_strv(root, "dependency-groups", lock->dependency_groups,
                  lock->ndependency_groups, true);
  bad |= set_strv(root, "default-groups", lock->default_groups,
                  lock->ndefault_groups, true);
  bad |= set_str(root, "created-by", lock->created_by);
  struct ts_toml_value *pk = ts_toml_new_array();
  size_t *idx = ts_xreallocarray(NULL, lock->npackages + 1, sizeof *idx);
  size_t *tmp = ts_xreallocarray(NULL, lock->npackages + 1, sizeof *tmp);
  bad |= !pk;

  if (!bad) {
    for (size_t i = 0; i < lock->npackages; i++)
      idx[i] = i;
    msort_pkgs(idx, tmp, lock->npackages, lock->packages);
    for (size_t i = 0; i < lock->npackages && !bad; i++) {
      const struct ts_pylock_package *p = &lock->packages[idx[i]];
      if (!p->name) {
        free(idx);
        free(tmp);
        ts_toml_free(pk);
        ts_toml_free(root);
        return ts_error_set(err, TS_E_INVALID, "package %zu has no name", i);
      }
      bad |= ts_toml_array_push(pk, ts_pylock_package_table(p, err)) != TS_OK;
    }
  }
  free(idx);
  free(tmp);
  if (!bad) {
    bad |= ts_toml_table_set(root, "packages", pk) != TS_OK;
    pk = NULL;
  }
  ts_toml_free(pk);
  if (!bad && (lock->tool || lock->nhost_facts || lock->nrule_ids || lock->nprofiles ||
                lock->grid))
    bad |= ts_toml_table_set(root, "tool", tool_table(lock)) != TS_OK;
  if (bad) {
    ts_toml_free(root);
    if (err && err->code != TS_OK)
      return err->code;
    return ts_error_set(err, TS_E_NOMEM, "out of memory");
  }
  *out = root;
  return TS_OK;
}

enum ts_code ts_pylock_write(const struct ts_pylock *lock, struct ts_buf *out,
                             struct ts_error *err) {
  if (!lock)
    return ts_error_set(err, TS_E_INVALID, "no lock");
  struct ts_toml_value *root;
  enum ts_code rc = to_toml(lock, &root, err);
  if (rc != TS_OK)
    return rc;
  rc = ts_toml_write(root, out, err);
  ts_toml_free(root);
  return rc;
}

enum ts_code ts_pylock_validate(const struct ts_pylock *lock,
                                struct ts_error *err) {
  struct ts_buf b;
  ts_buf_init(&b, TS_CAP_LOCKFILE);
  enum ts_code rc = ts_pylock_write(lock, &b, err);
  if (rc == TS_OK) {
    struct ts_pylock *back = NULL;
    rc = ts_pylock_parse(b.data, b.len, NULL, &back, err);
    ts_pylock_free(back);
  }
  ts_buf_clear(&b);
  return rc;
}

enum ts_code ts_pylock_write_file(const struct ts_pylock *lock,
                                  const char *path, struct ts_error *err) {
  struct ts_buf b;
  ts_buf_init(&b, TS_CAP_LOCKFILE);
  enum ts_code rc = ts_pylock_write(lock, &b, err);
  if (rc == TS_OK)
    rc = ts_output_write_file(path, b.data, b.len, err);
  ts_buf_clear(&b);
  return rc;
}