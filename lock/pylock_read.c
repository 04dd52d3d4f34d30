/*
 * lock/pylock_read.c — the PEP 751 reader: a TOML tree (or text, or a
 * file) into the model, validated as packaging's pylock module does, plus
 * hash-length and file-name checks; errors name the line, column and key
 * path.  Also the copy of a package through the writer and this reader.
 */
#include "lock/pylock.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/alloc.h"
#include "core/fs.h"
#include "core/str.h"
#include "core/text.h"
#include "lock/pylock_internal.h"
#include "pep/name.h"
#include "pep/requirement.h"
#include "pep/specifier.h"
#include "pep/version.h"
#include "variant/label.h"

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
  *out = ts_xstrdup(v->str);
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
  char **a = ts_xcalloc(v->nitems, sizeof *a);
  for (size_t i = 0; i < v->nitems; i++) {
    const struct ts_toml_value *it = v->items[i];
    if (it->type != TS_TOML_STRING || memchr(it->str, '\0', it->len)) {
      ts_strv_free(a, i);
      return rd_fail(r, it, key, TS_E_PARSE, "item %zu: expected a string",
                     i);
    }
    a[i] = ts_xstrdup(it->str);
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
  f->hashes = ts_xcalloc(h->nkvs, sizeof *f->hashes);
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
    f->hashes[i].algo = ts_xstrdup(kv->key);
    f->hashes[i].value = ts_xstrdup(v->str);
    f->nhashes = i + 1;
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
  f->upload_time = ts_xstrdup(v->str);
  return TS_OK;
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
    *facts = ts_xcalloc(host->nkvs, sizeof **facts);
    for (size_t i = 0; i < host->nkvs; i++) {
      const struct ts_toml_value *v = host->kvs[i].value;
      if (v->type != TS_TOML_STRING || memchr(v->str, '\0', v->len))
        return rd_fail(r, v, "host", TS_E_PARSE,
                       "host fact '%s' must be a string", host->kvs[i].key);
      (*facts)[i].key = ts_xstrdup(host->kvs[i].key);
      (*facts)[i].value = ts_xstrdup(v->str);
      *nfacts = i + 1;
    }
  }
  return get_strv(r, t, "rules", rules, nrules);
}


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
    p->name = ts_xstrdup(profiles->kvs[i].key);
    if (v->type != TS_TOML_TABLE)
      rc = rd_fail(r, v, NULL, TS_E_PARSE, "expected a table");
    else if (!ts_name_is_normalized(profiles->kvs[i].key, strlen(profiles->kvs[i].key)))
      rc = rd_fail(r, v, NULL, TS_E_PARSE, "profile name '%s' is not a normalized extra name",
                   profiles->kvs[i].key);
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
    qsort(lock->profiles + 1, lock->nprofiles - 1, sizeof *lock->profiles, ts_pylock_cmp_profile);
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
  struct ts_pylock_grid *g = lock->grid = ts_xcalloc(1, sizeof *g);
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
  struct ts_pylock *lock = ts_xcalloc(1, sizeof *lock);
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
    lock->packages = ts_xcalloc(pkgs->nitems, sizeof *lock->packages);
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

/* A copy through the writer and the reader: exactly what reading the
 * written lock would give. */
struct ts_pylock_package *ts_pylock_copy_package(struct ts_pylock *lock,
                                                 const struct ts_pylock_package *src) {
  struct ts_error err = {0};
  struct ts_toml_value *t = lock && src ? ts_pylock_package_table(src, &err) : NULL;
  if (!t)
    return NULL;
  lock->packages = ts_xreallocarray(lock->packages, lock->npackages + 1,
                                    sizeof *lock->packages);
  struct ts_pylock_package *p = &lock->packages[lock->npackages];

  memset(p, 0, sizeof *p);
  struct rd r = {.err = &err};
  enum ts_code rc = read_package(&r, t, p);
  ts_toml_free(t);
  if (rc != TS_OK) {
    ts_pylock_package_clear(p);
    return NULL;
  }
  lock->npackages++;
  return p;
}
