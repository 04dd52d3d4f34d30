/* [build-system] of pyproject.toml: see source.h. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "core/alloc.h"
#include "core/buf.h"
#include "core/fs.h"
#include "core/str.h"
#include "toml/toml.h"
#include "source/source.h"

void ts_build_system_clear(struct ts_build_system *bs) {
  ts_strv_free(bs->requires, bs->nrequires);
  ts_strv_free(bs->backend_path, bs->nbackend_path);
  free(bs->backend);
  free(bs->project_name);
  memset(bs, 0, sizeof *bs);
}

static void push(char ***v, size_t *n, char *s) {
  char **nv = ts_xrealloc(*v, (*n + 1) * sizeof *nv);
  nv[(*n)++] = s;
  *v = nv;
}

/* A list of strings, or TS_E_PARSE naming the key. */
static enum ts_code strings(const struct ts_toml_value *a, const char *key, char ***out,
                            size_t *n, struct ts_error *err) {
  if (a->type != TS_TOML_ARRAY)
    return ts_error_set(err, TS_E_PARSE, "build-system.%s must be a list of strings", key);
  for (size_t i = 0; i < a->nitems; i++) {
    if (a->items[i]->type != TS_TOML_STRING || memchr(a->items[i]->str, 0, a->items[i]->len))
      return ts_error_set(err, TS_E_PARSE, "build-system.%s must be a list of strings",
                          key);
    push(out, n, ts_xstrndup(a->items[i]->str, a->items[i]->len));
  }
  return TS_OK;
}

/* backend-path entries are relative to the tree and must stay inside it. */
static enum ts_code inside_tree(const char *dir, const char *rel, char **abs,
                                struct ts_error *err) {
  char *root = realpath(dir, NULL);
  char *joined = ts_path_join(dir, rel);
  char *real = realpath(joined, NULL);
  enum ts_code rc = TS_OK;
  size_t rl = root ? strlen(root) : 0;
  if (!root || !real || rel[0] == '/' ||
      !(strncmp(real, root, rl) == 0 && (real[rl] == '/' || real[rl] == '\0')))
    rc = ts_error_set(err, TS_E_PARSE,
                      "build-system.backend-path '%s' is not a directory inside '%s'",
                      rel, dir);
  else
    *abs = ts_xstrdup(real);
  free(root);
  free(joined);
  free(real);
  return rc;
}

enum ts_code ts_build_system_read(const char *dir, struct ts_build_system *out,
                                  struct ts_error *err) {
  memset(out, 0, sizeof *out);
  char *path = ts_path_join(dir, "pyproject.toml");
  struct ts_buf b;
  ts_buf_init(&b, TS_CAP_SMALL_FILE * 4);
  struct ts_error re = {0};
  enum ts_code rc = ts_fs_read_file(path, &b, &re);
  struct ts_toml_value *root = NULL;
  const struct ts_toml_value *bs = NULL;
  if (rc == TS_OK) {
    rc = ts_toml_parse(b.data ? b.data : "", b.len, &root, &re);
    if (rc != TS_OK)
      rc = ts_error_set(err, TS_E_PARSE, "%s:%s", path, re.detail);
    else
      bs = ts_toml_get(root, "build-system");
  } else if (rc == TS_E_NOT_FOUND) {
    rc = TS_OK;
  } else {
    *err = re;
  }
  const struct ts_toml_value *name = root ? ts_toml_get(ts_toml_get(root, "project"), "name")
                                          : NULL;
  if (rc == TS_OK && name && name->type == TS_TOML_STRING && name->len &&
      !memchr(name->str, 0, name->len))
    out->project_name = ts_xstrndup(name->str, name->len);
  if (rc == TS_OK && bs && bs->type != TS_TOML_TABLE)
    rc = ts_error_set(err, TS_E_PARSE, "%s: build-system must be a table", path);
  if (rc == TS_OK && bs) {
    out->declared = true;
    const struct ts_toml_value *req = ts_toml_get(bs, "requires");
    const struct ts_toml_value *be = ts_toml_get(bs, "build-backend");
    const struct ts_toml_value *bp = ts_toml_get(bs, "backend-path");
    /* PEP 518: a [build-system] table must say what it requires */
    if (!req)
      rc = ts_error_set(err, TS_E_PARSE, "%s: [build-system] has no 'requires' list",
                        path);
    else
      rc = strings(req, "requires", &out->requires, &out->nrequires, err);
    if (rc == TS_OK && be) {
      if (be->type != TS_TOML_STRING || be->len == 0 || memchr(be->str, 0, be->len))
        rc = ts_error_set(err, TS_E_PARSE, "%s: build-system.build-backend must be a "
                          "string such as 'setuptools.build_meta'", path);
      else
        out->backend = ts_xstrndup(be->str, be->len);
    }
    char **rel = NULL;
    size_t nrel = 0;
    if (rc == TS_OK && bp)
      rc = strings(bp, "backend-path", &rel, &nrel, err);
    for (size_t i = 0; i < nrel && rc == TS_OK; i++) {
      char *abs = NULL;
      rc = inside_tree(dir, rel[i], &abs, err);
      if (rc == TS_OK)
        push(&out->backend_path, &out->nbackend_path, abs);
    }
    ts_strv_free(rel, nrel);
    if (rc != TS_OK && err->detail[0] && !strstr(err->detail, path))
      ts_error_wrap(err, "%s", path);
  }
  if (rc == TS_OK && !out->backend) {
    out->backend = ts_xstrdup(TS_LEGACY_BACKEND);
    if (!out->declared)
      push(&out->requires, &out->nrequires, ts_xstrdup("setuptools>=40.8.0"));
  }
  ts_toml_free(root);
  ts_buf_clear(&b);
  free(path);
  if (rc != TS_OK)
    ts_build_system_clear(out);
  return rc;
}
