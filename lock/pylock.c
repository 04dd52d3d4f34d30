/*
 * lock/pylock.c — PEP 751 reader (validation as packaging.pylock, plus hash
 * and file-name checks) and deterministic writer.
 */
#include "lock/pylock.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/alloc.h"
#include "core/fs.h"
#include "lock/output.h"
#include "core/str.h"
#include "core/text.h"
#include "pep/name.h"
#include "pep/requirement.h"
#include "pep/specifier.h"
#include "pep/version.h"
#include "variant/label.h"

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

static void package_clear(struct ts_pylock_package *p) {
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
    package_clear(&lock->packages[i]);
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
/* reader                                                               */

struct rd {
  struct ts_error *err;
  char ctx[512]; /* "packages[3].wheels[0]" */
  size_t ctx_len;
};

static enum ts_code rd_fail(struct rd *r, const struct ts_toml_value *at,
                            const char *key, enum ts_code code,
                            const char *fmt, ...)
    __attribute__((format(printf, 5, 6)));
static enum ts_code rd_fail(struct rd *r, const struct ts_toml_value *at,
                            const char *key, enum ts_code code,
                            const char *fmt, ...) {
  char msg[512];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(msg, sizeof msg, fmt, ap);
  va_end(ap);
  const char *dot = r->ctx_len && key ? "." : "";
  bool where = r->ctx_len || key;
  ts_error_set(r->err, code, "%u:%u: %s%s%s%s%s", at ? at->line : 0,
               at ? at->col : 0, r->ctx, dot, key ? key : "",
               where ? ": " : "", msg);
  return code;
}

/* Pushes "[i]" or ".key" onto the context; returns the old length. */
static size_t ctx_push(struct rd *r, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
static size_t ctx_push(struct rd *r, const char *fmt, ...) {
  size_t old = r->ctx_len;
  va_list ap;
  va_start(ap, fmt);
  int n = vsnprintf(r->ctx + old, sizeof r->ctx - old, fmt, ap);
  va_end(ap);
  if (n > 0)
    r->ctx_len = old + (size_t)n < sizeof r->ctx ? old + (size_t)n
                                                 : sizeof r->ctx - 1;
  return old;
}

static void ctx_pop(struct rd *r, size_t old) {
  r->ctx_len = old;
  r->ctx[old] = '\0';
}

static const char *tname(const struct ts_toml_value *v) {
  switch (v->type) {
  case TS_TOML_STRING: return "string";
  case TS_TOML_INTEGER: return "integer";
  case TS_TOML_FLOAT: return "float";
  case TS_TOML_BOOL: return "boolean";
  case TS_TOML_DATETIME: return "date-time";
  case TS_TOML_ARRAY: return "array";
  case TS_TOML_TABLE: return "table";
  }
  return "value";
}

/* Optional string: *out NULL when absent.  Strings with U+0000 are refused:
 * they cannot be names, URLs or paths. */
static enum ts_code get_str(struct rd *r, const struct ts_toml_value *t,
                            const char *key, bool required, char **out) {
  *out = NULL;
  const struct ts_toml_value *v = ts_toml_get(t, key);
  if (!v) {
    if (required)
      return rd_fail(r, t, key, TS_E_PARSE, "missing required value");
    return TS_OK;
  }
  if (v->type != TS_TOML_STRING)
    return rd_fail(r, v, key, TS_E_PARSE, "expected a string, found a %s",
                   tname(v));
  if (memchr(v->str, '\0', v->len))
    return rd_fail(r, v, key, TS_E_PARSE, "string holds U+0000");
  *out = strdup(v->str);
  if (!*out)
    return rd_fail(r, v, key, TS_E_NOMEM, "out of memory");
  return TS_OK;
}

static enum ts_code get_strv(struct rd *r, const struct ts_toml_value *t,
                             const char *key, char ***out, size_t *n) {
  *out = NULL;
  *n = 0;
  const struct ts_toml_value *v = ts_toml_get(t, key);
  if (!v)
    return TS_OK;
  if (v->type != TS_TOML_ARRAY)
    return rd_fail(r, v, key, TS_E_PARSE, "expected an array, found a %s",
                   tname(v));
  if (v->nitems == 0)
    return TS_OK;
  char **a = calloc(v->nitems, sizeof *a);
  if (!a)
    return rd_fail(r, v, key, TS_E_NOMEM, "out of memory");
  for (size_t i = 0; i < v->nitems; i++) {
    const struct ts_toml_value *it = v->items[i];
    if (it->type != TS_TOML_STRING || memchr(it->str, '\0', it->len)) {
      ts_strv_free(a, i);
      return rd_fail(r, it, key, TS_E_PARSE, "item %zu: expected a string",
                     i);
    }
    if (!(a[i] = strdup(it->str))) {
      ts_strv_free(a, i);
      return rd_fail(r, it, key, TS_E_NOMEM, "out of memory");
    }
  }
  *out = a;
  *n = v->nitems;
  return TS_OK;
}

static enum ts_code check_version(struct rd *r, const struct ts_toml_value *t,
                                  const char *key, const char *s) {
  struct ts_version *v = NULL;
  struct ts_error e = {0};
  if (ts_version_parse(s, strlen(s), &v, &e) != TS_OK)
    return rd_fail(r, ts_toml_get(t, key), key, TS_E_PARSE, "%s", e.detail);
  ts_version_free(v);
  return TS_OK;
}

static enum ts_code check_specset(struct rd *r, const struct ts_toml_value *t,
                                  const char *key, const char *s) {
  struct ts_specset *v = NULL;
  struct ts_error e = {0};
  if (ts_specset_parse(s, strlen(s), &v, &e) != TS_OK)
    return rd_fail(r, ts_toml_get(t, key), key, TS_E_PARSE,
                   "invalid specifier set '%s': %s", s, e.detail);
  ts_specset_free(v);
  return TS_OK;
}

static enum ts_code check_marker(struct rd *r, const struct ts_toml_value *at,
                                 const char *key, const char *s) {
  struct ts_marker *m = NULL;
  struct ts_error e = {0};
  if (ts_marker_parse(s, strlen(s), &m, &e) != TS_OK)
    return rd_fail(r, at, key, TS_E_PARSE, "invalid marker '%s': %s", s,
                   e.detail);
  ts_marker_free(m);
  return TS_OK;
}

static bool is_hex(const char *s, size_t len) {
  for (size_t i = 0; i < len; i++) {
    if (ts_hex_digit(s[i]) < 0)
      return false;
  }
  return len > 0;
}

/* Hex digest length of hashlib.algorithms_guaranteed names we can check;
 * 0 for others (accepted if hex: the PEP allows any algorithm). */
static size_t hash_hex_len(const char *algo) {
  static const struct {
    const char *name;
    size_t len;
  } k[] = {{"md5", 32},      {"sha1", 40},     {"sha224", 56},
           {"sha256", 64},   {"sha384", 96},   {"sha512", 128},
           {"sha3_224", 56}, {"sha3_256", 64}, {"sha3_384", 96},
           {"sha3_512", 128}, {"blake2b", 128}, {"blake2s", 64}};
  for (size_t i = 0; i < sizeof k / sizeof k[0]; i++)
    if (strcmp(k[i].name, algo) == 0)
      return k[i].len;
  return 0;
}

static enum ts_code read_hashes(struct rd *r, const struct ts_toml_value *t,
                                struct ts_pylock_file *f) {
  const struct ts_toml_value *h = ts_toml_get(t, "hashes");
  if (!h)
    return rd_fail(r, t, "hashes", TS_E_PARSE, "missing required value");
  if (h->type != TS_TOML_TABLE)
    return rd_fail(r, h, "hashes", TS_E_PARSE, "expected a table, found a %s",
                   tname(h));
  if (h->nkvs == 0)
    return rd_fail(r, h, "hashes", TS_E_PARSE,
                   "at least one hash must be provided");
  f->hashes = calloc(h->nkvs, sizeof *f->hashes);
  if (!f->hashes)
    return rd_fail(r, h, "hashes", TS_E_NOMEM, "out of memory");
  for (size_t i = 0; i < h->nkvs; i++) {
    const struct ts_toml_kv *kv = &h->kvs[i];
    const struct ts_toml_value *v = kv->value;
    if (v->type != TS_TOML_STRING)
      return rd_fail(r, v, "hashes", TS_E_PARSE,
                     "hash '%s' must be a string", kv->key);
    size_t want = hash_hex_len(kv->key);
    if (!is_hex(v->str, v->len) || (want && v->len != want))
      return rd_fail(r, v, "hashes", TS_E_PARSE,
                     "hash '%s' is not %s%zu hex digits", kv->key,
                     want ? "" : "a string of ", want ? want : v->len);
    f->hashes[i].algo = strdup(kv->key);
    f->hashes[i].value = strdup(v->str);
    f->nhashes = i + 1;
    if (!f->hashes[i].algo || !f->hashes[i].value)
      return rd_fail(r, v, "hashes", TS_E_NOMEM, "out of memory");
    for (char *c = f->hashes[i].value; *c; c++)
      if (*c >= 'A' && *c <= 'F')
        *c = (char)(*c - 'A' + 'a');
  }
  return TS_OK;
}

static enum ts_code read_upload_time(struct rd *r,
                                     const struct ts_toml_value *t,
                                     struct ts_pylock_file *f) {
  const struct ts_toml_value *v = ts_toml_get(t, "upload-time");
  if (!v)
    return TS_OK;
  if (v->type != TS_TOML_DATETIME ||
      (v->datetime_kind != TS_TOML_OFFSET_DATETIME &&
       v->datetime_kind != TS_TOML_LOCAL_DATETIME))
    return rd_fail(r, v, "upload-time", TS_E_PARSE,
                   "expected a date-time literal, found a %s", tname(v));
  f->upload_time = strdup(v->str);
  return f->upload_time ? TS_OK
                        : rd_fail(r, v, "upload-time", TS_E_NOMEM,
                                  "out of memory");
}

static enum ts_code read_size(struct rd *r, const struct ts_toml_value *t,
                              struct ts_pylock_file *f) {
  f->size = -1;
  const struct ts_toml_value *v = ts_toml_get(t, "size");
  if (!v)
    return TS_OK;
  if (v->type != TS_TOML_INTEGER || v->integer < 0)
    return rd_fail(r, v, "size", TS_E_PARSE,
                   "expected a non-negative integer");
  f->size = v->integer;
  return TS_OK;
}

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
  char *out = malloc(n);
  if (!out)
    return NULL;
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

static enum ts_code read_file_entry(struct rd *r, const struct ts_toml_value *t,
                                    struct ts_pylock_file *f, bool with_name,
                                    bool with_subdir) {
  enum ts_code rc;
  f->size = -1;
  if (t->type != TS_TOML_TABLE)
    return rd_fail(r, t, NULL, TS_E_PARSE, "expected a table, found a %s",
                   tname(t));
  if ((with_name && (rc = get_str(r, t, "name", false, &f->name)) != TS_OK) ||
      (rc = get_str(r, t, "url", false, &f->url)) != TS_OK ||
      (rc = get_str(r, t, "path", false, &f->path)) != TS_OK ||
      (rc = read_size(r, t, f)) != TS_OK ||
      (rc = read_upload_time(r, t, f)) != TS_OK ||
      (with_subdir &&
       (rc = get_str(r, t, "subdirectory", false, &f->subdirectory)) != TS_OK) ||
      (rc = read_hashes(r, t, f)) != TS_OK)
    return rc;
  if ((!f->url || !*f->url) && (!f->path || !*f->path))
    return rd_fail(r, t, NULL, TS_E_PARSE, "path or url must be provided");
  return TS_OK;
}

/* A wheel or sdist entry (what: "wheel", "sdist") and its file name,
 * decoded from its path or URL into *fn (malloc'd on TS_OK). */
static enum ts_code read_named_file(struct rd *r, const struct ts_toml_value *t,
                                    struct ts_pylock_file *f, const char *what, char **fn) {
  *fn = NULL;
  enum ts_code rc = read_file_entry(r, t, f, true, false);
  if (rc != TS_OK)
    return rc;
  *fn = ts_pylock_file_decoded_name(f);
  if (*fn && **fn)
    return TS_OK;
  free(*fn);
  *fn = NULL;
  return rd_fail(r, t, NULL, TS_E_PARSE, "cannot determine %s filename", what);
}

static enum ts_code read_wheel(struct rd *r, const struct ts_toml_value *t,
                               const struct ts_pylock_package *pkg,
                               struct ts_pylock_file *f) {
  char *fn = NULL;
  enum ts_code rc = read_named_file(r, t, f, "wheel", &fn);
  if (rc != TS_OK)
    return rc;
  size_t len = strlen(fn);
  struct ts_wheel_filename *w = NULL;
  struct ts_error e = {0};
  rc = ts_variant_wheel_filename_parse(fn, len, &w, NULL, &e); /* PEP 825 labels too */
  if (rc != TS_OK) {
    rc = rd_fail(r, t, NULL, rc, "%s", e.detail);
    free(fn);
    return rc;
  }
  /* An installer must not take a lock's word that numpy's wheel is numpy. */
  if (strcmp(w->normalized_name, pkg->name) != 0)
    rc = rd_fail(r, t, NULL, TS_E_PARSE,
                 "wheel '%.*s' is not a file of package '%s'", (int)len, fn,
                 pkg->name);
  else if (pkg->version) {
    struct ts_version *pv = NULL;
    if (ts_version_parse(pkg->version, strlen(pkg->version), &pv, NULL) ==
            TS_OK &&
        ts_version_cmp(pv, w->version) != 0)
      rc = rd_fail(r, t, NULL, TS_E_PARSE,
                   "wheel '%.*s' is not version %s of '%s'", (int)len, fn,
                   pkg->version, pkg->name);
    ts_version_free(pv);
  }
  ts_wheel_filename_free(w);
  free(fn);
  return rc;
}

static enum ts_code read_sdist(struct rd *r, const struct ts_toml_value *t,
                               struct ts_pylock_file *f) {
  char *fn = NULL;
  enum ts_code rc = read_named_file(r, t, f, "sdist", &fn);
  if (rc != TS_OK)
    return rc;
  struct ts_sdist_filename *sd = NULL;
  struct ts_error e = {0};
  if (ts_sdist_filename_parse(fn, strlen(fn), &sd, &e) != TS_OK)
    rc = rd_fail(r, t, NULL, TS_E_PARSE, "invalid sdist filename '%s': %s", fn,
                 e.detail);
  ts_sdist_filename_free(sd);
  free(fn);
  return rc;
}

static enum ts_code sub_table(struct rd *r, const struct ts_toml_value *t,
                              const char *key,
                              const struct ts_toml_value **out) {
  *out = ts_toml_get(t, key);
  if (*out && (*out)->type != TS_TOML_TABLE)
    return rd_fail(r, *out, key, TS_E_PARSE, "expected a table, found a %s",
                   tname(*out));
  return TS_OK;
}

static enum ts_code sub_array_of_tables(struct rd *r,
                                        const struct ts_toml_value *t,
                                        const char *key,
                                        const struct ts_toml_value **out) {
  *out = ts_toml_get(t, key);
  if (!*out)
    return TS_OK;
  if ((*out)->type != TS_TOML_ARRAY)
    return rd_fail(r, *out, key, TS_E_PARSE, "expected an array, found a %s",
                   tname(*out));
  for (size_t i = 0; i < (*out)->nitems; i++)
    if ((*out)->items[i]->type != TS_TOML_TABLE)
      return rd_fail(r, (*out)->items[i], key, TS_E_PARSE,
                     "item %zu: expected a table, found a %s", i,
                     tname((*out)->items[i]));
  return TS_OK;
}

static enum ts_code dup_toml(struct rd *r, const struct ts_toml_value *v,
                             struct ts_toml_value **out) {
  *out = NULL;
  if (!v)
    return TS_OK;
  *out = ts_toml_dup(v);
  return *out ? TS_OK : rd_fail(r, v, NULL, TS_E_NOMEM, "out of memory");
}

static enum ts_code read_package(struct rd *r, const struct ts_toml_value *t,
                                 struct ts_pylock_package *p) {
  enum ts_code rc;
  if ((rc = get_str(r, t, "name", true, &p->name)) != TS_OK)
    return rc;
  if (!ts_name_is_normalized(p->name, strlen(p->name)))
    return rd_fail(r, ts_toml_get(t, "name"), "name", TS_E_PARSE,
                   "name '%s' is not normalized", p->name);
  if ((rc = get_str(r, t, "version", false, &p->version)) != TS_OK ||
      (p->version && (rc = check_version(r, t, "version", p->version))) ||
      (rc = get_str(r, t, "marker", false, &p->marker)) != TS_OK ||
      (p->marker &&
       (rc = check_marker(r, ts_toml_get(t, "marker"), "marker", p->marker))) ||
      (rc = get_str(r, t, "requires-python", false, &p->requires_python)) ||
      (p->requires_python &&
       (rc = check_specset(r, t, "requires-python", p->requires_python))) ||
      (rc = get_str(r, t, "index", false, &p->index)) != TS_OK)
    return rc;

  const struct ts_toml_value *deps, *vcs, *dir, *arch, *sdist, *wheels, *att, *vjson,
      *tool;
  if ((rc = sub_array_of_tables(r, t, "dependencies", &deps)) ||
      (rc = sub_table(r, t, "vcs", &vcs)) ||
      (rc = sub_table(r, t, "directory", &dir)) ||
      (rc = sub_table(r, t, "archive", &arch)) ||
      (rc = sub_table(r, t, "sdist", &sdist)) ||
      (rc = sub_array_of_tables(r, t, "wheels", &wheels)) ||
      (rc = sub_table(r, t, "variants-json", &vjson)) ||
      (rc = sub_array_of_tables(r, t, "attestation-identities", &att)) ||
      (rc = sub_table(r, t, "tool", &tool)))
    return rc;

  if (vcs) {
    size_t old = ctx_push(r, ".vcs");
    p->vcs = ts_xcalloc(1, sizeof *p->vcs);
    if ((rc = get_str(r, vcs, "type", true, &p->vcs->type)) ||
        (rc = get_str(r, vcs, "url", false, &p->vcs->url)) ||
        (rc = get_str(r, vcs, "path", false, &p->vcs->path)) ||
        (rc = get_str(r, vcs, "requested-revision", false,
                      &p->vcs->requested_revision)) ||
        (rc = get_str(r, vcs, "commit-id", true, &p->vcs->commit_id)) ||
        (rc = get_str(r, vcs, "subdirectory", false, &p->vcs->subdirectory)))
      return rc;
    if ((!p->vcs->url || !*p->vcs->url) && (!p->vcs->path || !*p->vcs->path))
      return rd_fail(r, vcs, NULL, TS_E_PARSE, "path or url must be provided");
    ctx_pop(r, old);
  }
  if (dir) {
    size_t old = ctx_push(r, ".directory");
    p->directory = ts_xcalloc(1, sizeof *p->directory);
    p->directory->editable = -1;
    if ((rc = get_str(r, dir, "path", true, &p->directory->path)) ||
        (rc = get_str(r, dir, "subdirectory", false,
                      &p->directory->subdirectory)))
      return rc;
    const struct ts_toml_value *ed = ts_toml_get(dir, "editable");
    if (ed && ed->type != TS_TOML_BOOL)
      return rd_fail(r, ed, "editable", TS_E_PARSE,
                     "expected a boolean, found a %s", tname(ed));
    if (ed)
      p->directory->editable = ed->boolean ? 1 : 0;
    ctx_pop(r, old);
  }
  if (arch) {
    size_t old = ctx_push(r, ".archive");
    p->archive = ts_xcalloc(1, sizeof *p->archive);
    if ((rc = read_file_entry(r, arch, p->archive, false, true)) != TS_OK)
      return rc;
    ctx_pop(r, old);
  }
  if (sdist) {
    size_t old = ctx_push(r, ".sdist");
    p->sdist = ts_xcalloc(1, sizeof *p->sdist);
    if ((rc = read_sdist(r, sdist, p->sdist)) != TS_OK)
      return rc;
    ctx_pop(r, old);
  }
  if (vjson) { /* PEP 825; plan/ checks its name where it reads it */
    size_t old = ctx_push(r, ".variants-json");
    p->variants_json = ts_xcalloc(1, sizeof *p->variants_json);
    if ((rc = read_file_entry(r, vjson, p->variants_json, true, false)) != TS_OK)
      return rc;
    ctx_pop(r, old);
  }
  if (wheels && wheels->nitems) {
    if (wheels->nitems > TS_PYLOCK_MAX_WHEELS)
      return rd_fail(r, wheels, "wheels", TS_E_TOO_BIG,
                     "more than %d wheels", TS_PYLOCK_MAX_WHEELS);
    p->wheels = ts_xcalloc(wheels->nitems, sizeof *p->wheels);
    for (size_t i = 0; i < wheels->nitems; i++) {
      size_t old = ctx_push(r, ".wheels[%zu]", i);
      p->nwheels = i + 1;
      if ((rc = read_wheel(r, wheels->items[i], p, &p->wheels[i])) != TS_OK)
        return rc;
      ctx_pop(r, old);
    }
  }
  if (att) {
    for (size_t i = 0; i < att->nitems; i++) {
      const struct ts_toml_value *k = ts_toml_get(att->items[i], "kind");
      if (!k || k->type != TS_TOML_STRING) {
        size_t old = ctx_push(r, ".attestation-identities[%zu]", i);
        rc = rd_fail(r, k ? k : att->items[i], "kind", TS_E_PARSE,
                     k ? "expected a string" : "missing required value");
        ctx_pop(r, old);
        return rc;
      }
    }
  }
  size_t distributions = (sdist ? 1 : 0) + (wheels ? wheels->nitems : 0);
  size_t direct = (vcs ? 1 : 0) + (dir ? 1 : 0) + (arch ? 1 : 0);
  if (distributions > 0 && direct > 0)
    return rd_fail(r, t, NULL, TS_E_PARSE,
                   "none of vcs, directory, archive may be set if sdist or "
                   "wheels are set");
  if (distributions == 0 && direct != 1)
    return rd_fail(r, t, NULL, TS_E_PARSE,
                   "exactly one of vcs, directory, archive must be set if "
                   "sdist and wheels are not set");
  if ((rc = dup_toml(r, deps, &p->dependencies)) ||
      (rc = dup_toml(r, att, &p->attestation_identities)) ||
      (rc = dup_toml(r, tool, &p->tool)))
    return rc;
  return TS_OK;
}

/* host = { key = "value", ... } and rules = ["id", ...] of t, the lock's
 * own facts or one profile's. */
static enum ts_code read_facts(struct rd *r, const struct ts_toml_value *t,
                               struct ts_pylock_kv **facts, size_t *nfacts,
                               char ***rules, size_t *nrules) {
  const struct ts_toml_value *host;
  enum ts_code rc;
  if ((rc = sub_table(r, t, "host", &host)) != TS_OK)
    return rc;
  if (host && host->nkvs) {
    *facts = calloc(host->nkvs, sizeof **facts);
    if (!*facts)
      return rd_fail(r, host, "host", TS_E_NOMEM, "out of memory");
    for (size_t i = 0; i < host->nkvs; i++) {
      const struct ts_toml_value *v = host->kvs[i].value;
      if (v->type != TS_TOML_STRING || memchr(v->str, '\0', v->len))
        return rd_fail(r, v, "host", TS_E_PARSE,
                       "host fact '%s' must be a string", host->kvs[i].key);
      (*facts)[i].key = strdup(host->kvs[i].key);
      (*facts)[i].value = strdup(v->str);
      *nfacts = i + 1;
      if (!(*facts)[i].key || !(*facts)[i].value)
        return rd_fail(r, v, "host", TS_E_NOMEM, "out of memory");
    }
  }
  return get_strv(r, t, "rules", rules, nrules);
}

static int qs_profile(const void *a, const void *b);

/* profiles = { NAME = { host = {...}, rules = [...] }, ... } with
 * default-profile naming one of them, which is put first. */
static enum ts_code read_profiles(struct rd *r, const struct ts_toml_value *t,
                                  struct ts_pylock *lock) {
  const struct ts_toml_value *profiles;
  char *dflt = NULL;
  enum ts_code rc;
  if ((rc = sub_table(r, t, "profiles", &profiles)) != TS_OK ||
      (rc = get_str(r, t, "default-profile", false, &dflt)) != TS_OK)
    return rc;
  if (!profiles || !profiles->nkvs) {
    free(dflt);
    return TS_OK;
  }
  lock->profiles = ts_xcalloc(profiles->nkvs, sizeof *lock->profiles);
  size_t first = profiles->nkvs;
  for (size_t i = 0; i < profiles->nkvs && rc == TS_OK; i++) {
    const struct ts_toml_value *v = profiles->kvs[i].value;
    struct ts_pylock_profile *p = &lock->profiles[i];
    lock->nprofiles = i + 1;
    size_t old = ctx_push(r, "profiles.%s", profiles->kvs[i].key);
    if (v->type != TS_TOML_TABLE)
      rc = rd_fail(r, v, NULL, TS_E_PARSE, "expected a table");
    else if (!ts_name_is_normalized(profiles->kvs[i].key, strlen(profiles->kvs[i].key)))
      rc = rd_fail(r, v, NULL, TS_E_PARSE, "profile name '%s' is not a normalized extra name",
                   profiles->kvs[i].key);
    else if (!(p->name = strdup(profiles->kvs[i].key)))
      rc = rd_fail(r, v, NULL, TS_E_NOMEM, "out of memory");
    else if ((rc = get_str(r, v, "backend", false, &p->backend)) == TS_OK)
      rc = read_facts(r, v, &p->host_facts, &p->nhost_facts, &p->rule_ids, &p->nrule_ids);
    if (rc == TS_OK && dflt && strcmp(dflt, p->name) == 0)
      first = i;
    ctx_pop(r, old);
  }
  if (rc == TS_OK && first == profiles->nkvs)
    rc = rd_fail(r, profiles, "default-profile", TS_E_PARSE,
                 dflt ? "'%s' names none of the profiles" : "missing%s",
                 dflt ? dflt : " (which profile applies without an extra)");
  free(dflt);
  if (rc != TS_OK)
    return rc;
  struct ts_pylock_profile tmp = lock->profiles[0];
  lock->profiles[0] = lock->profiles[first];
  lock->profiles[first] = tmp;
  if (lock->nprofiles > 2)
    qsort(lock->profiles + 1, lock->nprofiles - 1, sizeof *lock->profiles, qs_profile);
  return TS_OK;
}

/* universal = { systems = [...], machines = [...], implementations =
 * [...], pythons = [...] }: a universal lock's grid */
static enum ts_code read_grid(struct rd *r, const struct ts_toml_value *t,
                              struct ts_pylock *lock) {
  const struct ts_toml_value *u;
  enum ts_code rc = sub_table(r, t, "universal", &u);
  if (rc != TS_OK || !u)
    return rc;
  struct ts_pylock_grid *g = lock->grid = calloc(1, sizeof *g);
  if (!g)
    return rd_fail(r, u, "universal", TS_E_NOMEM, "out of memory");
  size_t old = ctx_push(r, "universal");
  if ((rc = get_strv(r, u, "systems", &g->systems, &g->nsystems)) == TS_OK &&
      (rc = get_strv(r, u, "machines", &g->machines, &g->nmachines)) == TS_OK &&
      (rc = get_strv(r, u, "implementations", &g->implementations, &g->nimplementations)) ==
          TS_OK)
    rc = get_strv(r, u, "pythons", &g->pythons, &g->npythons);
  if (rc == TS_OK)
    ctx_pop(r, old);
  return rc;
}

/* [tool.torchsolve]: host = { key = "value", ... }, rules = ["id", ...],
 * the profiles of a fleet lock and the grid of a universal one */
static enum ts_code read_torchsolve(struct rd *r, const struct ts_toml_value *t,
                                    struct ts_pylock *lock) {
  size_t old = ctx_push(r, "tool.torchsolve");
  enum ts_code rc;
  if (t->type != TS_TOML_TABLE)
    return rd_fail(r, t, NULL, TS_E_PARSE, "expected a table");
  if ((rc = read_facts(r, t, &lock->host_facts, &lock->nhost_facts, &lock->rule_ids,
                       &lock->nrule_ids)) != TS_OK ||
      (rc = read_profiles(r, t, lock)) != TS_OK || (rc = read_grid(r, t, lock)) != TS_OK)
    return rc;
  ctx_pop(r, old);
  return TS_OK;
}

enum ts_code ts_pylock_from_toml(const struct ts_toml_value *root,
                                 struct ts_pylock **out, struct ts_error *err) {
  *out = NULL;
  struct rd r = {.err = err};
  if (!root || root->type != TS_TOML_TABLE)
    return ts_error_set(err, TS_E_INVALID, "not a TOML table");
  struct ts_pylock *lock = calloc(1, sizeof *lock);
  if (!lock)
    return ts_error_set(err, TS_E_NOMEM, "out of memory");
  enum ts_code rc;
  if ((rc = get_str(&r, root, "lock-version", true, &lock->lock_version)))
    goto fail;
  {
    /* 1 <= lock-version < 2, as packaging */
    struct ts_version *v = NULL, *one = NULL, *two = NULL, *onezero = NULL;
    struct ts_error e = {0};
    if (ts_version_parse(lock->lock_version, strlen(lock->lock_version), &v,
                         &e) != TS_OK) {
      rc = rd_fail(&r, ts_toml_get(root, "lock-version"), "lock-version",
                   TS_E_PARSE, "%s", e.detail);
      goto fail;
    }
    ts_version_parse("1", 1, &one, NULL);
    ts_version_parse("2", 1, &two, NULL);
    ts_version_parse("1.0", 3, &onezero, NULL);
    bool ok = one && two && ts_version_cmp(v, one) >= 0 &&
              ts_version_cmp(v, two) < 0;
    lock->newer_minor = ok && ts_version_cmp(v, onezero) > 0;
    ts_version_free(v);
    ts_version_free(one);
    ts_version_free(two);
    ts_version_free(onezero);
    if (!ok) {
      rc = rd_fail(&r, ts_toml_get(root, "lock-version"), "lock-version",
                   TS_E_UNSUPPORTED, "pylock version %s is not supported",
                   lock->lock_version);
      goto fail;
    }
  }
  if ((rc = get_strv(&r, root, "environments", &lock->environments,
                     &lock->nenvironments)))
    goto fail;
  for (size_t i = 0; i < lock->nenvironments; i++) {
    const struct ts_toml_value *env = ts_toml_get(root, "environments");
    if ((rc = check_marker(&r, env->items[i], "environments",
                           lock->environments[i])))
      goto fail;
  }
  if ((rc = get_str(&r, root, "requires-python", false,
                    &lock->requires_python)) ||
      (lock->requires_python &&
       (rc = check_specset(&r, root, "requires-python",
                           lock->requires_python))) ||
      (rc = get_strv(&r, root, "extras", &lock->extras, &lock->nextras)))
    goto fail;
  for (size_t i = 0; i < lock->nextras; i++) {
    if (!ts_name_is_normalized(lock->extras[i], strlen(lock->extras[i]))) {
      rc = rd_fail(&r, ts_toml_get(root, "extras"), "extras", TS_E_PARSE,
                   "name '%s' is not normalized", lock->extras[i]);
      goto fail;
    }
  }
  if ((rc = get_strv(&r, root, "dependency-groups", &lock->dependency_groups,
                     &lock->ndependency_groups)) ||
      (rc = get_strv(&r, root, "default-groups", &lock->default_groups,
                     &lock->ndefault_groups)) ||
      (rc = get_str(&r, root, "created-by", true, &lock->created_by)))
    goto fail;

  const struct ts_toml_value *pkgs;
  if ((rc = sub_array_of_tables(&r, root, "packages", &pkgs)))
    goto fail;
  if (!pkgs) {
    rc = rd_fail(&r, root, "packages", TS_E_PARSE, "missing required value");
    goto fail;
  }
  if (pkgs->nitems > TS_PYLOCK_MAX_PACKAGES) {
    rc = rd_fail(&r, pkgs, "packages", TS_E_TOO_BIG, "more than %d packages",
                 TS_PYLOCK_MAX_PACKAGES);
    goto fail;
  }
  if (pkgs->nitems) {
    lock->packages = calloc(pkgs->nitems, sizeof *lock->packages);
    if (!lock->packages) {
      rc = ts_error_set(err, TS_E_NOMEM, "out of memory");
      goto fail;
    }
  }
  for (size_t i = 0; i < pkgs->nitems; i++) {
    ctx_push(&r, "packages[%zu]", i);
    lock->npackages = i + 1;
    if ((rc = read_package(&r, pkgs->items[i], &lock->packages[i])))
      goto fail;
    ctx_pop(&r, 0);
  }

  const struct ts_toml_value *tool;
  if ((rc = sub_table(&r, root, "tool", &tool)))
    goto fail;
  if (tool) {
    for (size_t i = 0; i < tool->nkvs; i++) {
      if (strcmp(tool->kvs[i].key, "torchsolve") == 0) {
        if ((rc = read_torchsolve(&r, tool->kvs[i].value, lock)))
          goto fail;
        continue;
      }
      if (!lock->tool && !(lock->tool = ts_toml_new_table())) {
        rc = ts_error_set(err, TS_E_NOMEM, "out of memory");
        goto fail;
      }
      if ((rc = ts_toml_table_set(lock->tool, tool->kvs[i].key,
                                  ts_toml_dup(tool->kvs[i].value)))) {
        rc = ts_error_set(err, rc, "out of memory");
        goto fail;
      }
    }
  }
  *out = lock;
  return TS_OK;
fail:
  ts_pylock_free(lock);
  return rc;
}

enum ts_code ts_pylock_parse(const char *data, size_t len, const char *source,
                             struct ts_pylock **out, struct ts_error *err) {
  *out = NULL;
  struct ts_toml_value *root = NULL;
  enum ts_code rc = ts_toml_parse(data, len, &root, err);
  if (rc == TS_OK) {
    rc = ts_pylock_from_toml(root, out, err);
    ts_toml_free(root);
  }
  if (rc != TS_OK && source && err) {
    char old[TS_ERROR_DETAIL_MAX];
    snprintf(old, sizeof old, "%s", err->detail);
    ts_error_set(err, rc, "%s:%s", source, old);
  }
  return rc;
}

enum ts_code ts_pylock_read_file(const char *path, struct ts_pylock **out,
                                 struct ts_error *err) {
  *out = NULL;
  struct ts_buf b;
  ts_buf_init(&b, TS_CAP_LOCKFILE);
  enum ts_code rc = ts_fs_read_file(path, &b, err);
  if (rc == TS_OK)
    rc = ts_pylock_parse(b.data ? b.data : "", b.len, path, out, err);
  ts_buf_clear(&b);
  return rc;
}

/* ------------------------------------------------------------------ */
/* building                                                             */

struct ts_pylock *ts_pylock_new(void) {
  struct ts_pylock *lock = calloc(1, sizeof *lock);
  if (!lock)
    return NULL;
  lock->lock_version = strdup(TS_PYLOCK_VERSION);
  lock->created_by = strdup("torchsolve");
  if (!lock->lock_version || !lock->created_by) {
    ts_pylock_free(lock);
    return NULL;
  }
  return lock;
}

struct ts_pylock_package *ts_pylock_add_package(struct ts_pylock *lock,
                                                const char *name,
                                                const char *version) {
  if (!lock || !name)
    return NULL;
  struct ts_pylock_package *pk =
      realloc(lock->packages, (lock->npackages + 1) * sizeof *pk);
  if (!pk)
    return NULL;
  lock->packages = pk;
  struct ts_pylock_package *p = &pk[lock->npackages];
  memset(p, 0, sizeof *p);
  p->name = ts_name_normalize(name, strlen(name));
  p->version = ts_xstrdup(version);
  if (!p->name || (version && !p->version)) {
    free(p->name);
    free(p->version);
    return NULL;
  }
  lock->npackages++;
  return p;
}

/* Fills f with one sha256 hash; false on OOM (f cleared). */
static bool fill_file(struct ts_pylock_file *f, const char *filename, const char *url,
                      const char *path, long long size, const char *upload_time,
                      const char *sha256_hex) {
  memset(f, 0, sizeof *f);
  f->size = size;
  f->name = ts_xstrdup(filename);
  f->url = ts_xstrdup(url);
  f->path = ts_xstrdup(path);
  f->upload_time = ts_xstrdup(upload_time);
  f->hashes = calloc(1, sizeof *f->hashes);
  if (f->hashes) {
    f->hashes[0].algo = strdup("sha256");
    f->hashes[0].value = strdup(sha256_hex);
    f->nhashes = 1;
  }
  if ((filename && !f->name) || (url && !f->url) || (path && !f->path) ||
      (upload_time && !f->upload_time) || !f->hashes || !f->hashes[0].algo ||
      !f->hashes[0].value) {
    file_clear(f);
    return false;
  }
  return true;
}

struct ts_pylock_file *ts_pylock_add_wheel(struct ts_pylock_package *pkg,
                                           const char *filename,
                                           const char *url, const char *path,
                                           long long size,
                                           const char *upload_time,
                                           const char *sha256_hex) {
  if (!pkg || (!url && !path) || !sha256_hex)
    return NULL;
  struct ts_pylock_file *w =
      realloc(pkg->wheels, (pkg->nwheels + 1) * sizeof *w);
  if (!w)
    return NULL;
  pkg->wheels = w;
  struct ts_pylock_file *f = &w[pkg->nwheels];
  if (!fill_file(f, filename, url, path, size, upload_time, sha256_hex))
    return NULL;
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
  struct ts_pylock_file *f = calloc(1, sizeof *f);
  if (!f || !fill_file(f, filename, url, path, size, NULL, sha256_hex)) {
    free(f);
    return NULL;
  }
  file_free(*slot);
  *slot = f;
  return f;
}

/* Sets (replaces) key in a fact list. */
static enum ts_code kv_set(struct ts_pylock_kv **facts, size_t *n, const char *key,
                           const char *value) {
  if (!key || !value)
    return TS_E_INVALID;
  char *v = strdup(value);
  if (!v)
    return TS_E_NOMEM;
  for (size_t i = 0; i < *n; i++) {
    if (strcmp((*facts)[i].key, key) == 0) {
      free((*facts)[i].value);
      (*facts)[i].value = v;
      return TS_OK;
    }
  }
  struct ts_pylock_kv *kv = realloc(*facts, (*n + 1) * sizeof *kv);
  char *k = strdup(key);
  if (!kv || !k) {
    if (kv)
      *facts = kv;
    free(k);
    free(v);
    return TS_E_NOMEM;
  }
  *facts = kv;
  kv[*n].key = k;
  kv[*n].value = v;
  (*n)++;
  return TS_OK;
}

enum ts_code ts_pylock_set_host_fact(struct ts_pylock *lock, const char *key,
                                     const char *value) {
  if (!lock)
    return TS_E_INVALID;
  return kv_set(&lock->host_facts, &lock->nhost_facts, key, value);
}

static enum ts_code strv_push(char ***v, size_t *n, const char *s) {
  ts_strv_push(v, n, s, strlen(s));
  return TS_OK;
}

enum ts_code ts_pylock_add_rule_id(struct ts_pylock *lock, const char *id) {
  if (!lock || !id)
    return TS_E_INVALID;
  return strv_push(&lock->rule_ids, &lock->nrule_ids, id);
}

struct ts_pylock_profile *ts_pylock_add_profile(struct ts_pylock *lock, const char *name) {
  if (!lock || !name || ts_pylock_find_profile(lock, name))
    return NULL;
  struct ts_pylock_profile *pr =
      realloc(lock->profiles, (lock->nprofiles + 1) * sizeof *pr);
  if (!pr)
    return NULL;
  lock->profiles = pr;
  struct ts_pylock_profile *p = &pr[lock->nprofiles];
  memset(p, 0, sizeof *p);
  if (!(p->name = strdup(name)))
    return NULL;
  lock->nprofiles++;
  return p;
}

enum ts_code ts_pylock_profile_set_fact(struct ts_pylock_profile *p, const char *key,
                                        const char *value) {
  return p ? kv_set(&p->host_facts, &p->nhost_facts, key, value) : TS_E_INVALID;
}

enum ts_code ts_pylock_profile_add_rule_id(struct ts_pylock_profile *p, const char *id) {
  return p && id ? strv_push(&p->rule_ids, &p->nrule_ids, id) : TS_E_INVALID;
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

static int file_cmp(const struct ts_pylock_file *a,
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

/* The first wheel in writer order (the smallest by file_cmp). */
static const struct ts_pylock_file *min_wheel(const struct ts_pylock_package *p) {
  const struct ts_pylock_file *m = NULL;
  for (size_t i = 0; i < p->nwheels; i++)
    if (!m || file_cmp(&p->wheels[i], m) < 0)
      m = &p->wheels[i];
  return m;
}

static struct ts_toml_value *package_table(const struct ts_pylock_package *p,
                                           struct ts_error *err);

/* The package as the writer prints it (NULL on error). */
static char *package_text(const struct ts_pylock_package *p) {
  struct ts_toml_value *root = ts_toml_new_table();
  struct ts_buf b;
  ts_buf_init(&b, TS_CAP_LOCKFILE);
  char *out = NULL;
  if (root && ts_toml_table_set(root, "p", package_table(p, NULL)) == TS_OK &&
      ts_toml_write(root, &b, NULL) == TS_OK && ts_buf_append(&b, "", 0) == TS_OK)
    out = ts_buf_take(&b, NULL);
  ts_buf_clear(&b);
  ts_toml_free(root);
  return out;
}

static int package_cmp(const struct ts_pylock_package *a,
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
    c = wa && wb ? file_cmp(wa, wb) : wa ? 1 : wb ? -1 : 0;
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

struct ts_pylock_package *ts_pylock_copy_package(struct ts_pylock *lock,
                                                 const struct ts_pylock_package *src) {
  struct ts_error err = {0};
  struct ts_toml_value *t = lock && src ? package_table(src, &err) : NULL;
  struct ts_pylock_package *pk =
      t ? realloc(lock->packages, (lock->npackages + 1) * sizeof *pk) : NULL;
  if (!pk) {
    ts_toml_free(t);
    return NULL;
  }
  lock->packages = pk;
  struct ts_pylock_package *p = &pk[lock->npackages];
  memset(p, 0, sizeof *p);
  struct rd r = {.err = &err};
  enum ts_code rc = read_package(&r, t, p);
  ts_toml_free(t);
  if (rc != TS_OK) {
    package_clear(p);
    return NULL;
  }
  lock->npackages++;
  return p;
}

static int qs_profile(const void *a, const void *b) {
  return strcmp(((const struct ts_pylock_profile *)a)->name,
                ((const struct ts_pylock_profile *)b)->name);
}

static int qs_file(const void *a, const void *b) {
  return file_cmp(a, b);
}
static int qs_package(const void *a, const void *b) {
  return package_cmp(a, b);
}
static int qs_hash(const void *a, const void *b) {
  const struct ts_pylock_hash *x = a, *y = b;
  return strcmp(x->algo, y->algo);
}
static int qs_kv(const void *a, const void *b) {
  const struct ts_pylock_kv *x = a, *y = b;
  return strcmp(x->key, y->key);
}
static int qs_str(const void *a, const void *b) {
  return strcmp(*(char *const *)a, *(char *const *)b);
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
    qsort(lock->host_facts, lock->nhost_facts, sizeof *lock->host_facts, qs_kv);
  if (lock->nrule_ids > 1)
    qsort(lock->rule_ids, lock->nrule_ids, sizeof *lock->rule_ids, qs_str);
  if (lock->nprofiles > 2)
    qsort(lock->profiles + 1, lock->nprofiles - 1, sizeof *lock->profiles, qs_profile);
}

/* ------------------------------------------------------------------ */
/* writer: model -> TOML tree -> text                                   */

static int idx_cmp_files(const struct ts_pylock_file *base, size_t a,
                         size_t b) {
  int c = file_cmp(&base[a], &base[b]);
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
  char **c = malloc(n * sizeof *c);
  if (!c) {
    ts_toml_free(a);
    return 1;
  }
  memcpy(c, v, n * sizeof *c);
  if (sort_unique)
    qsort(c, n, sizeof *c, qs_str);
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

static struct ts_toml_value *package_table(const struct ts_pylock_package *p,
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
    size_t *idx = malloc(p->nwheels * sizeof *idx);
    struct ts_toml_value *a = ts_toml_new_array();
    bad |= !idx || !a;
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
  struct ts_pylock_kv *kv = malloc(n * sizeof *kv);
  bad |= !h || !kv;
  if (!bad) {
    memcpy(kv, facts, n * sizeof *kv);
    qsort(kv, n, sizeof *kv, qs_kv);
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
    struct ts_pylock_profile *order = malloc(lock->nprofiles * sizeof *order);
    bad |= !all || !order;
    if (!bad) {
      memcpy(order, lock->profiles, lock->nprofiles * sizeof *order);
      if (lock->nprofiles > 2)
        qsort(order + 1, lock->nprofiles - 1, sizeof *order, qs_profile);
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
  const char **names = malloc((n + 1) * sizeof *names);
  int bad = !names;
  for (size_t i = 0; i < n && !bad; i++)
    names[i] = lock->tool->kvs[i].key;
  if (!bad && ours)
    names[n++] = "torchsolve";
  if (!bad)
    qsort(names, n, sizeof *names, qs_str);
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
  int c = package_cmp(&base[a], &base[b]);
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
  size_t *idx = malloc(lock->npackages * sizeof *idx);
  size_t *tmp = malloc(lock->npackages * sizeof *tmp);
  if (!idx || !tmp) {
    free(idx);
    free(tmp);
    return NULL;
  }
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
  size_t *idx = malloc((lock->npackages + 1) * sizeof *idx);
  size_t *tmp = malloc((lock->npackages + 1) * sizeof *tmp);
  bad |= !pk || !idx || !tmp;
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
      bad |= ts_toml_array_push(pk, package_table(p, err)) != TS_OK;
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
