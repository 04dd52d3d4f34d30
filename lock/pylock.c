/*
 * lock/pylock.c — the PEP 751 model: building a lock (packages, files,
 * host facts, rule ids, profiles, the universal grid), its accessors and
 * file-name helpers, and freeing it.  Reading is pylock_read.c, the
 * writer's order pylock_order.c, writing pylock_write.c.
 */
#include "lock/pylock.h"

#include <stdlib.h>
#include <string.h>

#include "core/alloc.h"
#include "core/str.h"
#include "core/text.h"
#include "lock/pylock_internal.h"
#include "pep/name.h"

/* ------------------------------------------------------------------ */
/* freeing                                                              */

static void hashes_free(struct ts_pylock_hash *h, size_t n) {
  for (size_t i = 0; i < n; i++) {
    free(h[i].algo);
    free(h[i].value);
  }
  free(h);
}

static void file_clear(struct ts_pylock_file *f) {
  free(f->name);
  free(f->url);
  free(f->path);
  free(f->upload_time);
  free(f->subdirectory);
  hashes_free(f->hashes, f->nhashes);
  memset(f, 0, sizeof *f);
}

static void file_free(struct ts_pylock_file *f) {
  if (f) {
    file_clear(f);
    free(f);
  }
}

void ts_pylock_package_clear(struct ts_pylock_package *p) {
  free(p->name);
  free(p->version);
  free(p->marker);
  free(p->requires_python);
  free(p->index);
  for (size_t i = 0; i < p->nwheels; i++)
    file_clear(&p->wheels[i]);
  free(p->wheels);
  file_free(p->sdist);
  file_free(p->variants_json);
  file_free(p->archive);
  if (p->vcs) {
    free(p->vcs->type);
    free(p->vcs->url);
    free(p->vcs->path);
    free(p->vcs->requested_revision);
    free(p->vcs->commit_id);
    free(p->vcs->subdirectory);
    free(p->vcs);
  }
  if (p->directory) {
    free(p->directory->path);
    free(p->directory->subdirectory);
    free(p->directory);
  }
  ts_toml_free(p->dependencies);
  ts_toml_free(p->attestation_identities);
  ts_toml_free(p->tool);
}

static void kv_free(struct ts_pylock_kv *kv, size_t n) {
  for (size_t i = 0; i < n; i++) {
    free(kv[i].key);
    free(kv[i].value);
  }
  free(kv);
}

static void profile_clear(struct ts_pylock_profile *p) {
  free(p->name);
  free(p->backend);
  kv_free(p->host_facts, p->nhost_facts);
  ts_strv_free(p->rule_ids, p->nrule_ids);
}

static void grid_free(struct ts_pylock_grid *g) {
  if (!g)
    return;
  ts_strv_free(g->systems, g->nsystems);
  ts_strv_free(g->machines, g->nmachines);
  ts_strv_free(g->implementations, g->nimplementations);
  ts_strv_free(g->pythons, g->npythons);
  free(g);
}

void ts_pylock_free(struct ts_pylock *lock) {
  if (!lock)
    return;
  free(lock->lock_version);
  ts_strv_free(lock->environments, lock->nenvironments);
  free(lock->requires_python);
  ts_strv_free(lock->extras, lock->nextras);
  ts_strv_free(lock->dependency_groups, lock->ndependency_groups);
  ts_strv_free(lock->default_groups, lock->ndefault_groups);
  free(lock->created_by);
  for (size_t i = 0; i < lock->npackages; i++)
    ts_pylock_package_clear(&lock->packages[i]);
  free(lock->packages);
  kv_free(lock->host_facts, lock->nhost_facts);
  ts_strv_free(lock->rule_ids, lock->nrule_ids);
  for (size_t i = 0; i < lock->nprofiles; i++)
    profile_clear(&lock->profiles[i]);
  free(lock->profiles);
  grid_free(lock->grid);
  ts_toml_free(lock->tool);
  free(lock);
}

/* ------------------------------------------------------------------ */
/* paths and file names                                                 */

char *ts_pylock_relative_path(const char *from_dir, const char *to) {
  if (!from_dir || !to || from_dir[0] != '/' || to[0] != '/')
    return NULL;
  /* the longest common prefix that ends at a segment boundary */
  size_t common = 0;
  for (size_t i = 0;; i++) {
    char a = from_dir[i], b = to[i];
    bool a_end = a == '\0' || a == '/', b_end = b == '\0' || b == '/';
    if (a_end && b_end)
      common = i;
    if (a != b || a == '\0' || b == '\0')
      break;
  }
  size_t ups = 0;
  for (const char *p = from_dir + common; *p; p++)
    if (*p == '/' && p[1] && p[1] != '/')
      ups++;
  const char *rest = to + common;
  while (*rest == '/')
    rest++;
  size_t n = 3 * ups + strlen(rest) + 3;
  char *out = ts_xmalloc(n);
  size_t o = 0;
  if (ups == 0) {
    memcpy(out, "./", 2);
    o = 2;
  }
  for (size_t i = 0; i < ups; i++, o += 3)
    memcpy(out + o, "../", 3);
  memcpy(out + o, rest, strlen(rest) + 1);
  return out;
}

const char *ts_pylock_file_name(const struct ts_pylock_file *f, size_t *len) {
  if (f->name) {
    *len = strlen(f->name);
    return f->name;
  }
  if (f->path && *f->path) {
    const char *s = f->path;
    const char *slash = strrchr(s, '/');
    const char *bs = strrchr(s, '\\');
    const char *cut = slash > bs ? slash : bs;
    const char *base = cut ? cut + 1 : s;
    *len = strlen(base);
    return base;
  }
  if (f->url && *f->url) {
    /* urlparse(url).path.rsplit("/", 1)[-1] */
    const char *s = f->url;
    const char *scheme = strstr(s, "://");
    const char *p = scheme ? strchr(scheme + 3, '/') : strchr(s, ':');
    if (!p) {
      *len = 0;
      return s + strlen(s);
    }
    if (!scheme)
      p++;
    size_t end = strcspn(p, "?#");
    const char *last = p;
    for (size_t i = 0; i < end; i++)
      if (p[i] == '/')
        last = p + i + 1;
    *len = (size_t)(p + end - last);
    return last;
  }
  *len = 0;
  return NULL;
}

char *ts_pylock_file_decoded_name(const struct ts_pylock_file *f) {
  size_t len;
  const char *fn = ts_pylock_file_name(f, &len);
  if (!fn)
    return NULL;
  bool from_url = !f->name && !(f->path && *f->path);
  return from_url ? ts_percent_decode(fn, len) : ts_xstrndup(fn, len);
}


/* ------------------------------------------------------------------ */
/* building                                                             */

struct ts_pylock *ts_pylock_new(void) {
  struct ts_pylock *lock = ts_xcalloc(1, sizeof *lock);
  lock->lock_version = ts_xstrdup(TS_PYLOCK_VERSION);
  lock->created_by = ts_xstrdup("torchsolve");
  return lock;
}

struct ts_pylock_package *ts_pylock_add_package(struct ts_pylock *lock,
                                                const char *name,
                                                const char *version) {
  if (!lock || !name)
    return NULL;
  lock->packages = ts_xreallocarray(lock->packages, lock->npackages + 1,
                                    sizeof *lock->packages);
  struct ts_pylock_package *p = &lock->packages[lock->npackages];
  memset(p, 0, sizeof *p);
  p->name = ts_name_normalize(name, strlen(name));
  p->version = ts_xstrdup(version);
  lock->npackages++;
  return p;
}

/* Fills f with one sha256 hash. */
static void fill_file(struct ts_pylock_file *f, const char *filename, const char *url,
                      const char *path, long long size, const char *upload_time,
                      const char *sha256_hex) {
  memset(f, 0, sizeof *f);
  f->size = size;
  f->name = ts_xstrdup(filename);
  f->url = ts_xstrdup(url);
  f->path = ts_xstrdup(path);
  f->upload_time = ts_xstrdup(upload_time);
  f->hashes = ts_xcalloc(1, sizeof *f->hashes);
  f->hashes[0].algo = ts_xstrdup("sha256");
  f->hashes[0].value = ts_xstrdup(sha256_hex);
  f->nhashes = 1;
}

struct ts_pylock_file *ts_pylock_add_wheel(struct ts_pylock_package *pkg,
                                           const char *filename,
                                           const char *url, const char *path,
                                           long long size,
                                           const char *upload_time,
                                           const char *sha256_hex) {
  if (!pkg || (!url && !path) || !sha256_hex)
    return NULL;
  pkg->wheels = ts_xreallocarray(pkg->wheels, pkg->nwheels + 1, sizeof *pkg->wheels);
  struct ts_pylock_file *f = &pkg->wheels[pkg->nwheels];
  fill_file(f, filename, url, path, size, upload_time, sha256_hex);
  pkg->nwheels++;
  return f;
}

struct ts_pylock_file *ts_pylock_set_source_file(struct ts_pylock_package *pkg, bool sdist,
                                                 const char *filename, const char *url,
                                                 const char *path, long long size,
                                                 const char *sha256_hex) {
  if (!pkg || (!url && !path) || !sha256_hex)
    return NULL;
  struct ts_pylock_file **slot = sdist ? &pkg->sdist : &pkg->archive;
  struct ts_pylock_file *f = ts_xcalloc(1, sizeof *f);
  fill_file(f, filename, url, path, size, NULL, sha256_hex);
  file_free(*slot);
  *slot = f;
  return f;
}

/* Sets (replaces) key in a fact list. */
static enum ts_code kv_set(struct ts_pylock_kv **facts, size_t *n, const char *key,
                           const char *value) {
  if (!key || !value)
    return TS_E_INVALID;
  char *v = ts_xstrdup(value);
  for (size_t i = 0; i < *n; i++) {
    if (strcmp((*facts)[i].key, key) == 0) {
      free((*facts)[i].value);
      (*facts)[i].value = v;
      return TS_OK;
    }
  }
  *facts = ts_xreallocarray(*facts, *n + 1, sizeof **facts);
  (*facts)[*n].key = ts_xstrdup(key);
  (*facts)[*n].value = v;
  (*n)++;
  return TS_OK;
}

enum ts_code ts_pylock_set_host_fact(struct ts_pylock *lock, const char *key,
                                     const char *value) {
  if (!lock)
    return TS_E_INVALID;
  return kv_set(&lock->host_facts, &lock->nhost_facts, key, value);
}

enum ts_code ts_pylock_add_rule_id(struct ts_pylock *lock, const char *id) {
  if (!lock || !id)
    return TS_E_INVALID;
  ts_strv_push(&lock->rule_ids, &lock->nrule_ids, id, strlen(id));
  return TS_OK;
}

struct ts_pylock_profile *ts_pylock_add_profile(struct ts_pylock *lock, const char *name) {
  if (!lock || !name || ts_pylock_find_profile(lock, name))
    return NULL;
  lock->profiles = ts_xreallocarray(lock->profiles, lock->nprofiles + 1,
                                    sizeof *lock->profiles);
  struct ts_pylock_profile *p = &lock->profiles[lock->nprofiles];
  memset(p, 0, sizeof *p);
  p->name = ts_xstrdup(name);
  lock->nprofiles++;
  return p;
}

enum ts_code ts_pylock_profile_set_fact(struct ts_pylock_profile *p, const char *key,
                                        const char *value) {
  return p ? kv_set(&p->host_facts, &p->nhost_facts, key, value) : TS_E_INVALID;
}

enum ts_code ts_pylock_profile_add_rule_id(struct ts_pylock_profile *p, const char *id) {
  if (!p || !id)
    return TS_E_INVALID;
  ts_strv_push(&p->rule_ids, &p->nrule_ids, id, strlen(id));
  return TS_OK;

}

static char **strv_copy(char *const *v, size_t n) {
  char **c = n ? ts_xcalloc(n, sizeof *c) : NULL;
  for (size_t i = 0; i < n; i++)
    c[i] = ts_xstrdup(v[i]);
  return c;
}

void ts_pylock_set_grid(struct ts_pylock *lock, const struct ts_pylock_grid *g) {
  grid_free(lock->grid);
  lock->grid = ts_xcalloc(1, sizeof *lock->grid);
  *lock->grid = (struct ts_pylock_grid){
      .systems = strv_copy(g->systems, g->nsystems), .nsystems = g->nsystems,
      .machines = strv_copy(g->machines, g->nmachines), .nmachines = g->nmachines,
      .implementations = strv_copy(g->implementations, g->nimplementations),
      .nimplementations = g->nimplementations,
      .pythons = strv_copy(g->pythons, g->npythons), .npythons = g->npythons};
}

const struct ts_pylock_profile *ts_pylock_find_profile(const struct ts_pylock *lock,
                                                       const char *name) {
  for (size_t i = 0; lock && name && i < lock->nprofiles; i++)
    if (strcmp(lock->profiles[i].name, name) == 0)
      return &lock->profiles[i];
  return NULL;
}

enum ts_code ts_pylock_add_dependency(struct ts_pylock_package *pkg,
                                      const char *name) {
  if (!pkg || !name)
    return TS_E_INVALID;
  if (!pkg->dependencies && !(pkg->dependencies = ts_toml_new_array()))
    return TS_E_NOMEM;
  pkg->dependencies->inline_form = true;
  struct ts_toml_value *t = ts_toml_new_table();
  if (!t)
    return TS_E_NOMEM;
  t->inline_form = true;
  char *n = ts_name_normalize(name, strlen(name));
  enum ts_code rc = ts_toml_table_set_str(t, "name", n);
  free(n);
  if (rc != TS_OK) {
    ts_toml_free(t);
    return rc;
  }
  return ts_toml_array_push(pkg->dependencies, t);
}

const char *ts_pylock_host_fact(const struct ts_pylock *lock, const char *key) {
  for (size_t i = 0; lock && key && i < lock->nhost_facts; i++)
    if (strcmp(lock->host_facts[i].key, key) == 0)
      return lock->host_facts[i].value;
  return NULL;
}

const char *ts_pylock_file_sha256(const struct ts_pylock_file *f) {
  for (size_t i = 0; f && i < f->nhashes; i++)
    if (strcmp(f->hashes[i].algo, "sha256") == 0)
      return f->hashes[i].value;
  return NULL;
}
