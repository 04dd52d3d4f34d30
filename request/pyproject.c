/* pyproject.toml as lock's input: see pyproject.h. */
#include "request/pyproject.h"

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "core/alloc.h"
#include "core/buf.h"
#include "core/fs.h"
#include "core/str.h"
#include "toml/toml.h"
#include "pep/name.h"
#include "pep/requirement.h"
#include "pep/specifier.h"

/* A dependency group including groups that include groups...: deeper than
 * this is a mistake, reported as a malformed table. */
#define GROUP_MAX_DEPTH 32

static enum ts_code bad(struct ts_error *err, const char *path, const char *key,
                        const char *what) {
  return ts_error_set(err, TS_E_PARSE, "%s: %s %s", path, key, what);
}

/* A string array at key (absent: none), each a copy, each item checked
 * as a PEP 508 requirement or marker, or taken as it is (a URL, a profile:
 * the caller checks those). */
enum item_kind { ITEM_REQUIREMENT, ITEM_MARKER, ITEM_TEXT };

static enum ts_code strings(const char *path, const char *key, const struct ts_toml_value *v,
                            enum item_kind kind, char ***out, size_t *n, struct ts_error *err) {
  if (!v)
    return TS_OK;
  if (v->type != TS_TOML_ARRAY)
    return bad(err, path, key, "must be an array of strings");
  for (size_t i = 0; i < v->nitems; i++) {
    const struct ts_toml_value *s = v->items[i];
    if (s->type != TS_TOML_STRING || strlen(s->str) != s->len)
      return bad(err, path, key, "must be an array of strings");
    struct ts_error why = {0};
    if (kind == ITEM_REQUIREMENT) {
      struct ts_requirement *r = NULL;
      enum ts_code rc = ts_requirement_parse(s->str, s->len, &r, &why);
      ts_requirement_free(r);
      if (rc != TS_OK)
        return ts_error_set(err, TS_E_PARSE, "%s: %s: '%s' is no PEP 508 requirement: %s", path,
                            key, s->str, why.detail);
    } else if (kind == ITEM_MARKER) {
      struct ts_marker *m = NULL;
      enum ts_code rc = ts_marker_parse(s->str, s->len, &m, &why);
      ts_marker_free(m);
      if (rc != TS_OK)
        return ts_error_set(err, TS_E_PARSE, "%s: %s: '%s' is no PEP 508 marker: %s", path,
                            key, s->str, why.detail);
    }
    *out = ts_xreallocarray(*out, *n + 1, sizeof **out);
    (*out)[(*n)++] = ts_xstrdup(s->str);
  }
  return TS_OK;
}

static int set_cmp(const void *a, const void *b) {
  return strcmp(((const struct ts_project_set *)a)->name,
                ((const struct ts_project_set *)b)->name);
}

static void set_clear(struct ts_project_set *s) {
  free(s->name);
  ts_strv_free(s->requires, s->nrequires);
}

static enum ts_code extras_of(const char *path, const struct ts_toml_value *t,
                              struct ts_project *p, struct ts_error *err) {
  if (!t)
    return TS_OK;
  if (t->type != TS_TOML_TABLE)
    return bad(err, path, "project.optional-dependencies", "must be a table");
  p->extras = ts_xcalloc(t->nkvs + 1, sizeof *p->extras);
  enum ts_code rc = TS_OK;
  for (size_t i = 0; i < t->nkvs && rc == TS_OK; i++) {
    struct ts_project_set *s = &p->extras[p->nextras++];
    s->name = ts_name_normalize(t->kvs[i].key, t->kvs[i].key_len);
    char *key = ts_xasprintf("project.optional-dependencies.%s", t->kvs[i].key);
    rc = strings(path, key, t->kvs[i].value, ITEM_REQUIREMENT, &s->requires, &s->nrequires,
                 err);
    free(key);
  }
  return rc;
}

/* PEP 735: a group's items are requirements or {include-group = NAME};
 * includes are expanded depth first, a cycle is an error. */
static enum ts_code expand_group(const char *path, const struct ts_toml_value *groups,
                                 const char *name, struct ts_project_set *into,
                                 const char **stack, size_t depth, struct ts_error *err) {
  const struct ts_toml_value *g = NULL;
  for (size_t i = 0; i < groups->nkvs && !g; i++) {
    char *n = ts_name_normalize(groups->kvs[i].key, groups->kvs[i].key_len);
    if (strcmp(n, name) == 0)
      g = groups->kvs[i].value;
    free(n);
  }
  if (!g)
    return ts_error_set(err, TS_E_PARSE, "%s: dependency-groups: no group '%s' to include",
                        path, name);
  for (size_t i = 0; i < depth; i++)
    if (strcmp(stack[i], name) == 0)
      return ts_error_set(err, TS_E_PARSE, "%s: dependency-groups: '%s' includes itself",
                          path, name);
  if (g->type != TS_TOML_ARRAY || depth >= GROUP_MAX_DEPTH)
    return bad(err, path, "dependency-groups", "must map names to arrays");
  stack[depth] = name;
  enum ts_code rc = TS_OK;
  for (size_t i = 0; i < g->nitems && rc == TS_OK; i++) {
    const struct ts_toml_value *it = g->items[i];
    const struct ts_toml_value *inc = ts_toml_get(it, "include-group");
    if (it->type == TS_TOML_TABLE && inc && inc->type == TS_TOML_STRING && it->nkvs == 1) {
      char *n = ts_name_normalize(inc->str, inc->len);
      rc = expand_group(path, groups, n, into, stack, depth + 1, err);
      free(n);
      continue;
    }
    struct ts_toml_value one = {.type = TS_TOML_ARRAY, .items = (struct ts_toml_value **)&it,
                                .nitems = 1};
    char *key = ts_xasprintf("dependency-groups.%s", name);
    rc = strings(path, key, &one, ITEM_REQUIREMENT, &into->requires, &into->nrequires, err);
    free(key);
  }
  return rc;
}

static enum ts_code groups_of(const char *path, const struct ts_toml_value *t,
                              struct ts_project *p, struct ts_error *err) {
  if (!t)
    return TS_OK;
  if (t->type != TS_TOML_TABLE)
    return bad(err, path, "dependency-groups", "must be a table");
  p->groups = ts_xcalloc(t->nkvs + 1, sizeof *p->groups);
  enum ts_code rc = TS_OK;
  for (size_t i = 0; i < t->nkvs && rc == TS_OK; i++) {
    struct ts_project_set *s = &p->groups[p->ngroups++];
    s->name = ts_name_normalize(t->kvs[i].key, t->kvs[i].key_len);
    const char *stack[GROUP_MAX_DEPTH];
    rc = expand_group(path, t, s->name, s, stack, 0, err);
  }
  return rc;
}

/* [tool.torchsolve].key as a copy into *out, when it is there. */
static enum ts_code string_of(const char *path, const struct ts_toml_value *t, const char *key,
                              char **out, struct ts_error *err) {
  const struct ts_toml_value *v = ts_toml_get(t, key);
  if (!v)
    return TS_OK;
  if (v->type != TS_TOML_STRING || strlen(v->str) != v->len) {
    char *name = ts_xasprintf("tool.torchsolve.%s", key);
    enum ts_code rc = bad(err, path, name, "must be a string");
    free(name);
    return rc;
  }
  *out = ts_xstrdup(v->str);
  return TS_OK;
}

/* [tool.torchsolve]'s keys; another is refused, so that a misspelt key
 * ("profile", "index_url") is never silently ignored. */
static const char *const tool_keys[] = {"environments", "extra-index-url", "index-url",
                                        "profiles", "torch-index-url"};

static enum ts_code tool_of(const char *path, const struct ts_toml_value *t,
                            struct ts_project *p, struct ts_error *err) {
  if (!t)
    return TS_OK;
  if (t->type != TS_TOML_TABLE)
    return bad(err, path, "tool.torchsolve", "must be a table");
  for (size_t i = 0; i < t->nkvs; i++) {
    bool known = false;
    for (size_t k = 0; k < sizeof tool_keys / sizeof *tool_keys && !known; k++)
      known = strcmp(t->kvs[i].key, tool_keys[k]) == 0;
    if (!known)
      return ts_error_set(err, TS_E_PARSE,
                          "%s: tool.torchsolve: unknown key '%s' (the keys are environments, "
                          "extra-index-url, index-url, profiles and torch-index-url)",
                          path, t->kvs[i].key);
  }
  enum ts_code rc = strings(path, "tool.torchsolve.profiles", ts_toml_get(t, "profiles"),
                            ITEM_TEXT, &p->profiles, &p->nprofiles, err);
  if (rc == TS_OK && p->nprofiles == 0 && ts_toml_get(t, "profiles"))
    rc = bad(err, path, "tool.torchsolve.profiles", "must name at least one profile");
  if (rc == TS_OK)
    rc = strings(path, "tool.torchsolve.environments", ts_toml_get(t, "environments"),
                            ITEM_MARKER, &p->environments, &p->nenvironments, err);
  if (rc == TS_OK)
    rc = string_of(path, t, "index-url", &p->index_url, err);
  if (rc == TS_OK)
    rc = string_of(path, t, "torch-index-url", &p->torch_index_url, err);
  if (rc == TS_OK)
    rc = strings(path, "tool.torchsolve.extra-index-url", ts_toml_get(t, "extra-index-url"),
                 ITEM_TEXT, &p->extra_index_urls, &p->nextra_index_urls, err);
  return rc;
}

enum ts_code ts_project_read(const char *path, struct ts_project *out, struct ts_error *err) {
  memset(out, 0, sizeof *out);
  struct ts_buf b;
  ts_buf_init(&b, TS_CAP_LOCKFILE);
  enum ts_code rc = ts_fs_read_file(path, &b, err);
  struct ts_toml_value *root = NULL;
  if (rc == TS_OK && (rc = ts_toml_parse(b.data ? b.data : "", b.len, &root, err)) != TS_OK) {
    struct ts_error why = *err;
    rc = ts_error_set(err, rc, "%s: %s", path, why.detail);
  }
  ts_buf_clear(&b);
  if (rc != TS_OK)
    return rc;
  const struct ts_toml_value *project = ts_toml_get(root, "project");
  const struct ts_toml_value *rp = ts_toml_get(project, "requires-python");
  if (project && project->type != TS_TOML_TABLE)
    rc = bad(err, path, "project", "must be a table");
  if (rc == TS_OK)
    rc = strings(path, "project.dependencies", ts_toml_get(project, "dependencies"),
                 ITEM_REQUIREMENT, &out->requires, &out->nrequires, err);
  if (rc == TS_OK && rp && rp->type != TS_TOML_STRING)
    rc = bad(err, path, "project.requires-python", "must be a string");
  struct ts_specset *rp_set = NULL;
  struct ts_error why = {0};
  if (rc == TS_OK && rp && ts_specset_parse(rp->str, rp->len, &rp_set, &why) != TS_OK)
    rc = ts_error_set(err, TS_E_PARSE, "%s: project.requires-python '%s' is no version "
                      "specifier: %s", path, rp->str, why.detail);
  ts_specset_free(rp_set);
  if (rc == TS_OK && rp)
    out->requires_python = ts_xstrdup(rp->str);
  if (rc == TS_OK)
    rc = extras_of(path, ts_toml_get(project, "optional-dependencies"), out, err);
  if (rc == TS_OK)
    rc = groups_of(path, ts_toml_get(root, "dependency-groups"), out, err);
  if (rc == TS_OK)
    rc = tool_of(path, ts_toml_get(ts_toml_get(root, "tool"), "torchsolve"), out, err);
  ts_toml_free(root);
  if (out->nextras > 1)
    qsort(out->extras, out->nextras, sizeof *out->extras, set_cmp);
  if (out->ngroups > 1)
    qsort(out->groups, out->ngroups, sizeof *out->groups, set_cmp);
  return rc;
}

void ts_project_clear(struct ts_project *p) {
  ts_strv_free(p->requires, p->nrequires);
  for (size_t i = 0; i < p->nextras; i++)
    set_clear(&p->extras[i]);
  free(p->extras);
  for (size_t i = 0; i < p->ngroups; i++)
    set_clear(&p->groups[i]);
  free(p->groups);
  free(p->requires_python);
  ts_strv_free(p->environments, p->nenvironments);
  free(p->index_url);
  free(p->torch_index_url);
  ts_strv_free(p->extra_index_urls, p->nextra_index_urls);
  ts_strv_free(p->profiles, p->nprofiles);
  memset(p, 0, sizeof *p);
}
