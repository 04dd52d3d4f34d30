/* Another tool's lock as a torchsolve lock: see import.h. */
#include "lockgen/import.h"

#include <stdlib.h>
#include <string.h>

#include "core/alloc.h"
#include "core/buf.h"
#include "core/fs.h"
#include "core/str.h"
#include "core/text.h"
#include "lockgen/fleet.h"
#include "toml/toml.h"

/* One [[package]] of uv.lock and the conditions it is reached under. */
struct uv_pkg {
  const struct ts_toml_value *t;
  const char *name, *version;
  bool root;          /* a workspace project: its dependencies are roots */
  bool everywhere;    /* reached unconditionally (or past the cap) */
  char **conds;       /* distinct conditions, when not everywhere */
  size_t nconds;
};

struct uv_walk {
  struct uv_pkg *pkgs;
  size_t n;
  const char *path;
};

static const char *str_of(const struct ts_toml_value *t, const char *key) {
  const struct ts_toml_value *v = t ? ts_toml_get(t, key) : NULL;
  return v && v->type == TS_TOML_STRING ? v->str : NULL;
}

/* The package a dependency entry names: by name and, when it gives one,
 * version (uv writes it where a name has several versions). */
static struct uv_pkg *find_pkg(struct uv_walk *w, const struct ts_toml_value *dep) {
  const char *name = str_of(dep, "name"), *version = str_of(dep, "version");
  for (size_t i = 0; name && i < w->n; i++)
    if (strcmp(w->pkgs[i].name, name) == 0 &&
        (!version || (w->pkgs[i].version && strcmp(w->pkgs[i].version, version) == 0)))
      return &w->pkgs[i];
  return NULL;
}

static void reach(struct uv_walk *w, struct uv_pkg *p, const char *cond);

/* Follows the dependency entries of array deps under cond. */
static void follow(struct uv_walk *w, const struct ts_toml_value *deps, const char *cond) {
  for (size_t i = 0; deps && deps->type == TS_TOML_ARRAY && i < deps->nitems; i++) {
    const struct ts_toml_value *d = deps->items[i];
    struct uv_pkg *child = find_pkg(w, d);
    if (!child || child->root)
      continue;
    const char *m = str_of(d, "marker");
    char *c = cond && m && strstr(cond, m) ? ts_xstrdup(cond) : ts_fleet_marker_and(cond, m);
    reach(w, child, c);
    /* extras the entry asks for: the child's optional dependencies */
    const struct ts_toml_value *extras = ts_toml_get(d, "extra");
    const struct ts_toml_value *opt = ts_toml_get(child->t, "optional-dependencies");
    for (size_t k = 0; extras && extras->type == TS_TOML_ARRAY && k < extras->nitems; k++)
      if (extras->items[k]->type == TS_TOML_STRING && opt)
        follow(w, ts_toml_get(opt, extras->items[k]->str), c);
    free(c);
  }
}

/* p is reached under cond (NULL: always); new conditions travel on. */
static void reach(struct uv_walk *w, struct uv_pkg *p, const char *cond) {
  if (p->everywhere)
    return;
  if (cond) {
    for (size_t i = 0; i < p->nconds; i++)
      if (strcmp(p->conds[i], cond) == 0)
        return;
  }
  if (!cond || p->nconds == TS_IMPORT_MAX_PATHS) {
    ts_strv_free(p->conds, p->nconds);
    p->conds = NULL;
    p->nconds = 0;
    p->everywhere = true;
  } else {
    p->conds = ts_xreallocarray(p->conds, p->nconds + 1, sizeof *p->conds);
    p->conds[p->nconds++] = ts_xstrdup(cond);
  }
  follow(w, ts_toml_get(p->t, "dependencies"), p->everywhere ? NULL : cond);
}

/* The roots: each workspace project's dependencies, its extras' under
 * "'X' in extras", its dev groups' under "'G' in dependency_groups". */
static void walk_roots(struct uv_walk *w, struct ts_pylock *lock) {
  for (size_t i = 0; i < w->n; i++) {
    if (!w->pkgs[i].root)
      continue;
    follow(w, ts_toml_get(w->pkgs[i].t, "dependencies"), NULL);
    static const char *const kinds[] = {"optional-dependencies", "dev-dependencies"};
    for (size_t k = 0; k < 2; k++) {
      const struct ts_toml_value *t = ts_toml_get(w->pkgs[i].t, kinds[k]);
      for (size_t j = 0; t && t->type == TS_TOML_TABLE && j < t->nkvs; j++) {
        const char *key = t->kvs[j].key;
        char *c = ts_xasprintf(k ? "'%s' in dependency_groups" : "'%s' in extras", key);
        follow(w, t->kvs[j].value, c);
        free(c);
        char ***names = k ? &lock->dependency_groups : &lock->extras;
        size_t *n = k ? &lock->ndependency_groups : &lock->nextras;
        bool seen = false;
        for (size_t x = 0; x < *n && !seen; x++)
          seen = strcmp((*names)[x], key) == 0;
        if (!seen) {
          *names = ts_xreallocarray(*names, *n + 1, sizeof **names);
          (*names)[(*n)++] = ts_xstrdup(key);
        }
      }
    }
  }
}

/* The or of p's conditions, sorted; NULL when it is reached everywhere. */
static char *marker_of(struct uv_pkg *p) {
  if (p->everywhere)
    return NULL;
  qsort(p->conds, p->nconds, sizeof *p->conds, ts_strv_cmp);
  struct ts_buf b;
  ts_buf_init(&b, 0);
  for (size_t i = 0; i < p->nconds; i++) {
    bool paren = p->nconds > 1 && strstr(p->conds[i], " or ");
    ts_buf_xprintf(&b, "%s%s%s%s", i ? " or " : "", paren ? "(" : "", p->conds[i],
                   paren ? ")" : "");
  }
  return ts_buf_take(&b, NULL);
}

/* The marker of p's entry: where it is reached, within the forks uv
 * locked it for (its `resolution-markers`, or-ed), so that a name locked
 * at two versions keeps each under its own fork even where uv left the
 * fork implied on an edge.  NULL: everywhere. */
static char *entry_marker(struct uv_pkg *p) {
  char *reached = marker_of(p);
  const struct ts_toml_value *forks = ts_toml_get(p->t, "resolution-markers");
  struct ts_buf b;
  ts_buf_init(&b, 0);
  for (size_t i = 0; forks && forks->type == TS_TOML_ARRAY && i < forks->nitems; i++)
    if (forks->items[i]->type == TS_TOML_STRING) {
      bool paren = forks->nitems > 1 && strstr(forks->items[i]->str, " or ");
      ts_buf_xprintf(&b, "%s%s%s%s", b.len ? " or " : "", paren ? "(" : "",
                     forks->items[i]->str, paren ? ")" : "");
    }
  char *fork = ts_buf_take(&b, NULL);
  char *out = !fork[0] || (reached && strstr(reached, fork)) ? reached
                                                              : ts_fleet_marker_and(reached, fork);
  if (out != reached)
    free(reached);
  free(fork);
  return out;
}

/* "sha256:HEX" -> HEX; NULL for another algorithm. */
static const char *sha256_of(const struct ts_toml_value *f) {
  const char *h = str_of(f, "hash");
  return h && strncmp(h, "sha256:", 7) == 0 ? h + 7 : NULL;
}

static enum ts_code add_file(struct ts_pylock_package *e, const struct ts_toml_value *f,
                             bool wheel, const struct uv_walk *w, struct ts_error *err) {
  const char *url = str_of(f, "url"), *sha = sha256_of(f);
  const struct ts_toml_value *size = ts_toml_get(f, "size");
  const char *slash = url ? strrchr(url, '/') : NULL;
  if (!url || !sha || !slash)
    return ts_error_set(err, TS_E_PARSE,
                        "%s: %s %s: a file without a URL or a sha256 hash (lock --from "
                        "takes registry files with sha256)",
                        w->path, e->name, e->version ? e->version : "");
  char *name = ts_percent_decode(slash + 1, strcspn(slash + 1, "?#"));
  long long sz = size && size->type == TS_TOML_INTEGER ? size->integer : -1;
  const struct ts_pylock_file *made =
      wheel ? ts_pylock_add_wheel(e, name, url, NULL, sz, NULL, sha)
            : ts_pylock_set_source_file(e, true, name, url, NULL, sz, sha);
  free(name);
  return made ? TS_OK
              : ts_error_set(err, TS_E_PARSE, "%s: %s %s: cannot record the file %s", w->path,
                             e->name, e->version ? e->version : "", url);
}

/* "https://github.com/o/r?rev=v1#COMMIT" as a vcs source. */
static void set_git(struct ts_pylock_package *e, const char *git) {
  struct ts_pylock_vcs *v = ts_xcalloc(1, sizeof *v);
  v->type = ts_xstrdup("git");
  v->url = ts_xstrndup(git, strcspn(git, "?#"));
  const char *hash = strchr(git, '#');
  v->commit_id = ts_xstrdup(hash ? hash + 1 : "");
  const char *q = strchr(git, '?');
  if (q && q < (hash ? hash : git + strlen(git))) {
    const char *eq = strchr(q, '=');
    if (eq)
      v->requested_revision = ts_xstrndup(eq + 1, strcspn(eq + 1, "&#"));
  }
  e->vcs = v;
}

static enum ts_code add_entry(struct ts_pylock *lock, struct uv_pkg *p,
                              const struct uv_walk *w, struct ts_error *err) {
  struct ts_pylock_package *e = ts_pylock_add_package(lock, p->name, p->version);
  if (!e)
    return ts_error_set(err, TS_E_PARSE, "%s: package '%s' is no valid entry", w->path,
                        p->name);
  e->marker = entry_marker(p);
  const struct ts_toml_value *src = ts_toml_get(p->t, "source");
  const char *registry = str_of(src, "registry"), *git = str_of(src, "git");
  const char *dir = str_of(src, "directory") ? str_of(src, "directory") : str_of(src, "editable");
  enum ts_code rc = TS_OK;
  if (registry) {
    if (strstr(registry, "://"))
      e->index = ts_xstrdup(registry);
    const struct ts_toml_value *wheels = ts_toml_get(p->t, "wheels");
    for (size_t i = 0; rc == TS_OK && wheels && i < wheels->nitems; i++)
      rc = add_file(e, wheels->items[i], true, w, err);
    const struct ts_toml_value *sdist = ts_toml_get(p->t, "sdist");
    if (rc == TS_OK && sdist)
      rc = add_file(e, sdist, false, w, err);
  } else if (git) {
    set_git(e, git);
  } else if (dir) {
    e->directory = ts_xcalloc(1, sizeof *e->directory);
    e->directory->path = ts_xstrdup(dir);
    e->directory->editable = str_of(src, "editable") ? 1 : -1;
  } else {
    rc = ts_error_set(err, TS_E_PARSE,
                      "%s: package '%s': lock --from takes registry, git, directory and "
                      "editable sources (this one is %s)",
                      w->path, p->name, src && src->nkvs ? src->kvs[0].key : "missing");
  }
  return rc;
}

static bool is_root(const struct ts_toml_value *pkg, const struct ts_toml_value *members) {
  const struct ts_toml_value *src = ts_toml_get(pkg, "source");
  const char *v = str_of(src, "virtual") ? str_of(src, "virtual") : str_of(src, "editable");
  if (v && strcmp(v, ".") == 0)
    return true;
  const char *name = str_of(pkg, "name");
  for (size_t i = 0; name && members && members->type == TS_TOML_ARRAY && i < members->nitems;
       i++)
    if (members->items[i]->type == TS_TOML_STRING && strcmp(members->items[i]->str, name) == 0)
      return true;
  return false;
}

static enum ts_code import_uv(const struct ts_toml_value *root, const char *path,
                              struct ts_pylock **out, struct ts_error *err) {
  const struct ts_toml_value *pkgs = ts_toml_get(root, "package");
  if (!pkgs || pkgs->type != TS_TOML_ARRAY)
    return ts_error_set(err, TS_E_PARSE, "%s: a uv.lock without [[package]]", path);
  const struct ts_toml_value *manifest = ts_toml_get(root, "manifest");
  const struct ts_toml_value *members = manifest ? ts_toml_get(manifest, "members") : NULL;
  struct uv_walk w = {ts_xcalloc(pkgs->nitems + 1, sizeof *w.pkgs), 0, path};
  for (size_t i = 0; i < pkgs->nitems; i++) {
    const struct ts_toml_value *t = pkgs->items[i];
    if (t->type != TS_TOML_TABLE || !str_of(t, "name")) {
      free(w.pkgs);
      return ts_error_set(err, TS_E_PARSE, "%s: [[package]] %zu has no name", path, i + 1);
    }
    w.pkgs[w.n++] = (struct uv_pkg){.t = t, .name = str_of(t, "name"),
                                    .version = str_of(t, "version"),
                                    .root = is_root(t, members)};
  }
  struct ts_pylock *lock = ts_pylock_new();
  walk_roots(&w, lock);
  enum ts_code rc = TS_OK;
  for (size_t i = 0; i < w.n && rc == TS_OK; i++)
    if (!w.pkgs[i].root && (w.pkgs[i].everywhere || w.pkgs[i].nconds))
      rc = add_entry(lock, &w.pkgs[i], &w, err);
  for (size_t i = 0; i < w.n; i++) {
    for (size_t k = 0; k < w.pkgs[i].nconds; k++)
      free(w.pkgs[i].conds[k]);
    free(w.pkgs[i].conds);
  }
  free(w.pkgs);
  if (lock->ndependency_groups) {
    for (size_t i = 0; i < lock->ndependency_groups; i++)
      if (strcmp(lock->dependency_groups[i], "dev") == 0) {
        lock->default_groups = ts_xcalloc(1, sizeof *lock->default_groups);
        lock->default_groups[lock->ndefault_groups++] = ts_xstrdup("dev");
      }
  }
  if (str_of(root, "requires-python"))
    lock->requires_python = ts_xstrdup(str_of(root, "requires-python"));
  if (rc == TS_OK)
    rc = ts_pylock_validate(lock, err);
  if (rc != TS_OK) {
    ts_error_wrap(err, "%s", path);
    ts_pylock_free(lock);
    return rc;
  }
  *out = lock;
  return TS_OK;
}

enum ts_code ts_lock_import(const char *path, struct ts_pylock **out, struct ts_error *err) {
  *out = NULL;
  struct ts_buf data;
  ts_buf_init(&data, TS_CAP_LOCKFILE);
  enum ts_code rc = ts_fs_read_file(path, &data, err);
  struct ts_toml_value *root = NULL;
  if (rc == TS_OK)
    rc = ts_toml_parse(data.data ? data.data : "", data.len, &root, err);
  if (rc == TS_OK && !ts_toml_get(root, "lock-version") && ts_toml_get(root, "package"))
    rc = import_uv(root, path, out, err);
  else if (rc == TS_OK)
    rc = ts_pylock_from_toml(root, out, err);
  ts_toml_free(root);
  ts_buf_clear(&data);
  if (rc == TS_OK) {
    free((*out)->created_by);
    (*out)->created_by = ts_xstrdup("torchsolve");
  } else {
    ts_error_wrap(err, "lock --from %s", path);
  }
  return rc;
}
