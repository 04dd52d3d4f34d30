/* A resolution as a PEP 751 lock: see plan.h (ts_plan_to_pylock). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "core/alloc.h"
#include "core/buf.h"
#include "core/filehash.h"
#include "core/fs.h"
#include "core/sha256.h"
#include "core/str.h"
#include "index/url.h"
#include "pep/filename.h"
#include "pep/metadata.h"
#include "pep/name.h"
#include "pep/requirement.h"
#include "plan/plan.h"
#include "source/source.h"
#include "variant/label.h"
#include "lockgen/lock.h"

/* "sys_platform == "linux" and platform_machine == "x86_64" and ..." */
static char *environment_marker(const struct ts_target *t) {
  const struct ts_marker_env *m = &t->markers;
  return ts_xasprintf("sys_platform == \"%s\" and platform_machine == \"%s\" "
                      "and implementation_name == \"%s\" and python_version == \"%s\"",
                      m->sys_platform ? m->sys_platform : "",
                      m->platform_machine ? m->platform_machine : "",
                      m->implementation_name ? m->implementation_name : "",
                      m->python_version ? m->python_version : "");
}

static bool ends_with(const char *s, const char *suffix) {
  size_t a = strlen(s), b = strlen(suffix);
  return a >= b && strcmp(s + a - b, suffix) == 0;
}

void ts_plan_item_dependencies(const struct ts_plan_item *pi, const struct ts_resolution *res,
                               const struct ts_marker_env *env, char ***names, size_t *n) {
  struct ts_metadata *md = NULL;
  struct ts_error err = {0};
  if (!pi->metadata || ts_metadata_parse(pi->metadata, pi->metadata_len, &md, &err) != TS_OK)
    return;
  const struct ts_resolved *r = pi->r;
  for (size_t i = 0; i < md->nrequires_dist; i++) {
    struct ts_requirement *req = NULL;
    const char *txt = md->requires_dist[i];
    if (ts_requirement_parse(txt, strlen(txt), &req, &err) != TS_OK)
      continue;
    bool holds = !req->marker || ts_marker_eval(req->marker, env, "");
    for (size_t k = 0; !holds && k < r->nextras; k++)
      holds = ts_marker_eval(req->marker, env, r->extras[k]);
    bool locked = false;
    for (size_t k = 0; holds && !locked && k < res->nitems; k++)
      locked = strcmp(res->items[k].name, req->normalized_name) == 0;
    bool dup = false;
    for (size_t k = 0; locked && k < *n && !dup; k++)
      dup = strcmp((*names)[k], req->normalized_name) == 0;
    if (holds && locked && !dup && strcmp(req->normalized_name, r->name) != 0) {
      *names = ts_xreallocarray(*names, *n + 1, sizeof **names);
      (*names)[(*n)++] = ts_xstrdup(req->normalized_name);
    }
    ts_requirement_free(req);
  }
  ts_metadata_free(md);
}

void ts_plan_lock_dependencies(struct ts_pylock_package *p, char **names, size_t n) {
  if (n)
    qsort(names, n, sizeof *names, ts_strv_cmp);
  for (size_t i = 0; i < n; i++)
    if (ts_pylock_add_dependency(p, names[i]) != TS_OK)
      abort();
  ts_strv_free(names, n);
}

/* realpath() of the directory part of a path ("." when it has none);
 * NULL when it cannot be resolved. */
static char *real_dir_of(const char *path) {
  const char *slash = strrchr(path, '/');
  char *dir = slash ? ts_xstrndup(path, (size_t)(slash - path) + (slash == path))
                    : ts_xstrdup(".");
  char *r = realpath(dir, NULL);
  free(dir);
  return r;
}

/* The `path` of a local wheel: PEP 751 reads a relative path from the lock
 * file's directory, so one given relative to the working directory is
 * rewritten relative to where the lock is written (sync reads it so).  A
 * file:// URL becomes its absolute path; an absolute path stays. */
static char *wheel_path(const char *given, const char *output) {
  if (strncmp(given, "file://", 7) == 0) {
    char *local = ts_url_file_path(given);
    return local ? local : ts_xstrdup(given + 7);
  }
  if (given[0] == '/' || !output || strcmp(output, "-") == 0)
    return ts_xstrdup(given);
  char *from = real_dir_of(output), *wdir = real_dir_of(given);
  const char *base = strrchr(given, '/');
  char *to = wdir ? ts_path_join(wdir, base ? base + 1 : given) : NULL;
  char *rel = ts_pylock_relative_path(from, to);
  free(from);
  free(wdir);
  free(to);
  return rel ? rel : ts_xstrdup(given);
}

/* The sha256 to lock for a file of an item: the --hash or index one for
 * the file the item resolved to, the index one for its other files, else
 * the file's own (fetched into the wheel cache), which must then be one of
 * the --hash values. */
static enum ts_code file_sha256(struct ts_plan_result *res, const struct ts_plan_item *pi,
                                const struct ts_index_file *f,
                                char hex[TS_SHA256_HEX_LEN + 1], struct ts_error *err) {
  const char *sha = f == pi->r->file && pi->user_sha256 ? pi->user_sha256 : f->sha256;
  if (sha) {
    snprintf(hex, TS_SHA256_HEX_LEN + 1, "%s", sha);
    return TS_OK;
  }
  char *path = NULL;
  enum ts_code rc = ts_index_fetch_wheel(res->idx, f, &path, err);
  uint8_t d[TS_SHA256_LEN];
  if (rc == TS_OK)
    rc = ts_filehash_path(path, NULL, d, NULL, err);
  free(path);
  if (rc != TS_OK)
    return rc;
  ts_sha256_hex(d, hex);
  if (!ts_plan_item_hash_allowed(pi, hex))
    return ts_error_set(err, TS_E_HASH, "%s: its sha256 %s matches no --hash of '%s'",
                        f->filename, hex, pi->hashed_by->text);
  return TS_OK;
}

/* ---- built sources ------------------------------------------------------ */

/* A local directory's `path`, as wheel_path writes a file's: one given
 * relative to the working directory is written relative to the lock's
 * directory; an absolute one (a file:// URL's too) stays absolute. */
static char *directory_path(const char *given, const char *output) {
  if (given[0] == '/')
    return ts_xstrdup(given);
  char *local = strncmp(given, "file://", 7) == 0 ? ts_url_file_path(given) : NULL;
  if (local)
    return local;
  char *real = realpath(given, NULL);
  if (!real)
    return ts_xstrdup(given);
  if (!output || strcmp(output, "-") == 0)
    return real;
  char *from = real_dir_of(output);
  char *rel = from ? ts_pylock_relative_path(from, real) : NULL;
  free(from);
  if (!rel)
    return real;
  free(real);
  return rel;
}

/* The file name of a URL or path: its last component, without ?query or
 * #fragment. */
static char *last_component(const char *loc) {
  size_t end = strcspn(loc, "?#");
  size_t start = end;
  while (start > 0 && loc[start - 1] != '/')
    start--;
  return ts_xstrndup(loc + start, end - start);
}

/* [packages.tool.torchsolve] of a package built from source:
 * build-env, the build environment its wheel is built in, {name,
 * version, sha256, url} per package, sorted by name (the fingerprint sync
 * rebuilds exactly: build.h's locked_env; none without isolation), and
 * config-settings, the -C KEY=VALUE settings its backend gets, in
 * ts_source_config_settings_sorted's order (none without). */
static void add_build_fingerprint(struct ts_pylock_package *p, const char *build_env,
                                  const struct ts_source_build_options *bo) {
  static const char *const keys[] = {"name", "version", "sha256", "url"};
  struct ts_toml_value *ours = ts_toml_new_table();
  if (!ours)
    abort();
  struct ts_toml_value *arr = build_env ? ts_toml_new_array() : NULL;
  for (const char *l = build_env; arr && *l;) {
    size_t len = strcspn(l, "\n");
    /* "name==version sha256 url": four fields */
    char *line = ts_xstrndup(l, len), *f[4] = {line, NULL, NULL, NULL};
    char *eq = strstr(line, "==");
    if (eq) {
      *eq = '\0';
      f[1] = eq + 2;
      for (size_t k = 2; k < 4 && f[k - 1]; k++) {
        f[k] = strchr(f[k - 1], ' ');
        if (f[k])
          *f[k]++ = '\0';
      }
    }
    struct ts_toml_value *t = f[3] ? ts_toml_new_table() : NULL;
    for (size_t k = 0; t && k < 4; k++)
      if (ts_toml_table_set_str(t, keys[k], f[k]) != TS_OK)
        abort();
    if (t && ts_toml_array_push(arr, t) != TS_OK)
      abort();
    free(line);
    l += len + (l[len] == '\n');
  }
  if (build_env && (!arr || ts_toml_table_set(ours, "build-env", arr) != TS_OK))
    abort();
  size_t ncs = bo ? bo->nconfig_settings : 0;
  if (ncs) {
    const char **cs = ts_source_config_settings_sorted(bo->config_settings, ncs);
    struct ts_toml_value *settings = ts_toml_new_array();
    for (size_t i = 0; settings && i < ncs; i++)
      if (ts_toml_array_push(settings, ts_toml_new_string(cs[i], strlen(cs[i]))) != TS_OK)
        abort();
    free(cs);
    if (!settings || ts_toml_table_set(ours, "config-settings", settings) != TS_OK)
      abort();
  }
  ts_toml_free(p->tool);
  p->tool = NULL;
  if (!ours->nkvs) {
    ts_toml_free(ours);
    return;
  }
  p->tool = ts_toml_new_table();
  if (!p->tool || ts_toml_table_set(p->tool, "torchsolve", ours) != TS_OK)
    abort();
}

/* A package built from source, as PEP 751 records its source: an sdist
 * ([packages.sdist], or [packages.archive] when the file is not named
 * like an sdist), a directory or a git checkout (no version: the tree
 * says it), plus its build fingerprint. */
static enum ts_code add_built(struct ts_pylock *lock, const struct ts_plan_item *pi,
                              const struct ts_source_build_options *bo, const char *output,
                              struct ts_error *err) {
  const struct ts_source_built *b = pi->built;
  const struct ts_resolved *r = pi->r;
  const char *loc = pi->direct_url;
  bool tree = b->kind == TS_SOURCE_DIR || b->kind == TS_SOURCE_VCS;
  if (b->kind == TS_SOURCE_DIR && strstr(b->direct_url, "\"editable\": true"))
    return ts_error_set(err, TS_E_UNSUPPORTED,
                        "%s: an editable install cannot be locked; lock the directory "
                        "without -e", r->name);
  if (!b->source_hash)
    return ts_error_set(err, TS_E_INTERNAL, "%s: no source hash to lock", r->name);
  struct ts_pylock_package *p = ts_pylock_add_package(lock, r->name, tree ? NULL : r->version);
  if (!p)
    abort();
  enum ts_code rc = TS_OK;
  if (b->kind == TS_SOURCE_DIR) {
    p->directory = ts_xcalloc(1, sizeof *p->directory);
    p->directory->path = directory_path(loc, output);
    p->directory->editable = 0;
  } else if (b->kind == TS_SOURCE_VCS) {
    struct ts_vcs_ref ref;
    if ((rc = ts_vcs_parse(loc, &ref, err)) != TS_OK)
      return rc;
    p->vcs = ts_xcalloc(1, sizeof *p->vcs);
    p->vcs->type = ts_xstrdup("git");
    p->vcs->url = ts_url_without_userinfo(ref.repo);
    p->vcs->requested_revision = ts_xstrdup(ref.revision);
    p->vcs->commit_id = ts_xstrdup(b->source_hash);
    p->vcs->subdirectory = ts_xstrdup(ref.subdirectory);
    ts_vcs_ref_clear(&ref);
  } else {
    char *fname = last_component(loc);
    struct ts_sdist_filename *sd = NULL;
    struct ts_error ignore = {0};
    bool is_sdist = ts_sdist_filename_parse(fname, strlen(fname), &sd, &ignore) == TS_OK &&
                    strcmp(sd->normalized_name, r->name) == 0;
    ts_sdist_filename_free(sd);
    char *url = NULL, *path = NULL;
    if (b->kind == TS_SOURCE_URL && strncmp(loc, "file://", 7) != 0) {
      url = ts_url_without_userinfo(loc);
      url[strcspn(url, "#")] = '\0';
    } else {
      path = wheel_path(loc, output);
    }
    if (!ts_pylock_set_source_file(p, is_sdist, is_sdist ? fname : NULL, url, path,
                                   b->source_size, b->source_hash))
      rc = ts_error_set(err, TS_E_INVALID, "%s: cannot record the source %s", r->name, loc);
    free(url);
    free(path);
    free(fname);
  }
  if (rc == TS_OK)
    add_build_fingerprint(p, b->build_env, bo);
  return rc;
}

/* An sdist from an index: [packages.sdist] (ts_plan_lock_file) and the
 * build fingerprint of the wheel it would build, the sdist fetched into
 * the wheel cache (where a sync --offline finds it) to make that
 * environment.  bo: the resolution's build options. */
static enum ts_code add_index_sdist(struct ts_plan_result *res, const struct ts_plan_item *pi,
                                    const struct ts_source_build_options *bo, const char *output,
                                    struct ts_pylock_package *p, struct ts_error *err) {
  const struct ts_resolved *r = pi->r;
  enum ts_code rc = ts_plan_lock_file(res, pi, r->file, output, p, err);
  char *path = NULL, *env = NULL, *log = NULL;
  if (rc == TS_OK)
    rc = ts_index_fetch_wheel(res->idx, r->file, &path, err);
  struct stat st;
  if (rc == TS_OK && p->sdist->size < 0 && stat(path, &st) == 0)
    p->sdist->size = (long long)st.st_size; /* the index did not say */
  if (rc == TS_OK) {
    char *label = ts_xasprintf("%s %s", r->name, r->version);
    struct ts_source_spec src = {.kind = TS_SOURCE_ARCHIVE, .location = path,
                                 .sha256 = ts_pylock_file_sha256(p->sdist), .name = r->name,
                                 .label = label};
    rc = ts_source_build_env(bo, res->target, res->idx, &src, &env, &log, err);
    free(label);
  }
  if (rc == TS_OK)
    add_build_fingerprint(p, env, bo);
  if (log) {
    free(res->build_log);
    res->build_log = log;
  }
  free(env);
  free(path);
  return rc;
}

enum ts_code ts_plan_lock_file(struct ts_plan_result *res, const struct ts_plan_item *pi,
                               const struct ts_index_file *f, const char *output,
                               struct ts_pylock_package *p, struct ts_error *err) {
  char sha[TS_SHA256_HEX_LEN + 1];
  enum ts_code rc = file_sha256(res, pi, f, sha, err);
  if (rc != TS_OK)
    return rc;
  bool wheel = ends_with(f->filename, ".whl");
  char *path = pi->is_path && pi->direct_url ? wheel_path(pi->direct_url, output) : NULL;
  char *url = path ? NULL : ts_url_without_userinfo(f->url);
  struct ts_pylock_file *w =
      wheel ? ts_pylock_add_wheel(p, f->filename, url, path, f->size, f->upload_time, sha)
            : ts_pylock_set_source_file(p, true, f->filename, url, path, f->size, sha);
  free(path);
  free(url);
  if (!w)
    return ts_error_set(err, TS_E_INVALID, "%s %s: cannot record the file %s", p->name,
                        p->version, f->filename);
  return TS_OK;
}

/* The plain wheel name f stands for (variant/label.h), or NULL. */
static char *plain_name(const struct ts_index_file *f) {
  char *plain = NULL, *label = NULL;
  if (ts_variant_split_filename(f->filename, strlen(f->filename), &plain, &label, NULL) != TS_OK)
    return NULL;
  free(label);
  return plain;
}

static bool has_wheel(const struct ts_pylock_package *p, const char *filename) {
  for (size_t i = 0; i < p->nwheels; i++)
    if (p->wheels[i].name && strcmp(p->wheels[i].name, filename) == 0)
      return true;
  return false;
}

enum ts_code ts_plan_lock_variant_wheels(struct ts_plan_result *res,
                                         const struct ts_plan_item *pi,
                                         const struct ts_index_file *chosen, const char *output,
                                         struct ts_pylock_package *p, struct ts_error *err) {
  const struct ts_index_file *json = NULL, *wheels = NULL;
  size_t n = ts_plan_variant_release(res, pi->r->name, pi->r->version, &json, &wheels);
  char *want = n ? plain_name(chosen) : NULL;
  enum ts_code rc = TS_OK;
  for (size_t i = 0; want && rc == TS_OK && i < n; i++) {
    char *plain = strcmp(wheels[i].filename, chosen->filename) != 0 &&
                          !has_wheel(p, wheels[i].filename)
                      ? plain_name(&wheels[i])
                      : NULL;
    if (plain && strcmp(plain, want) == 0)
      rc = ts_plan_lock_file(res, pi, &wheels[i], output, p, err);
    free(plain);
  }
  char sha[TS_SHA256_HEX_LEN + 1];
  if (want && !p->variants_json && rc == TS_OK &&
      (rc = file_sha256(res, pi, json, sha, err)) == TS_OK) {
    struct ts_pylock_file *f = p->variants_json = ts_xcalloc(1, sizeof *f);
    *f = (struct ts_pylock_file){.name = ts_xstrdup(json->filename), .size = -1,
                                 .url = ts_url_without_userinfo(json->url),
                                 .hashes = ts_xcalloc(1, sizeof *f->hashes), .nhashes = 1};
    f->hashes[0] = (struct ts_pylock_hash){ts_xstrdup("sha256"), ts_xstrdup(sha)};
  }
  free(want);
  return rc;
}

void ts_plan_lock_index(struct ts_pylock_package *p, const struct ts_plan_item *pi) {
  const char *index = pi->index ? pi->index : pi->r->index_url;
  if (index && !pi->is_path && strncmp(index, "file:", 5) != 0 && index[0] != '/')
    p->index = ts_url_without_userinfo(index);
}

void ts_plan_lock_facts(const struct ts_constraint_set *s, struct ts_pylock *lock) {
  for (size_t i = 0; i < s->nfacts; i++)
    if (ts_pylock_set_host_fact(lock, s->facts[i].name,
                                s->facts[i].version ? s->facts[i].version : "present") != TS_OK)
      abort();
}

void ts_plan_lock_rule_ids(const struct ts_plan_result *res, struct ts_pylock *lock) {
  const struct ts_constraint_set *s = &res->rules;
  for (size_t i = 0; i < s->nconstraints; i++)
    for (size_t k = 0; k < res->res->nitems; k++)
      if (strcmp(s->constraints[i].subject.name, res->res->items[k].name) == 0 &&
          ts_rules_term_matches(&s->constraints[i].subject, res->res->items[k].name,
                                res->res->items[k].version)) {
        if (ts_pylock_add_rule_id(lock, s->constraints[i].id) != TS_OK)
          abort();
        break;
      }
}

void ts_plan_lock_facts_and_rules(const struct ts_plan_result *res, struct ts_pylock *lock) {
  ts_plan_lock_facts(&res->rules, lock);
  ts_plan_lock_rule_ids(res, lock);
}

enum ts_code ts_plan_to_pylock(struct ts_plan_result *res, const char *output,
                               struct ts_pylock **out, struct ts_error *err) {
  *out = NULL;
  if (!res->res)
    return ts_error_set(err, TS_E_INTERNAL, "no resolution to lock");
  const struct ts_target *t = res->target;
  struct ts_pylock *lock = ts_pylock_new();
  lock->environments = ts_xcalloc(1, sizeof *lock->environments);
  lock->environments[0] = environment_marker(t);
  lock->nenvironments = 1;
  lock->requires_python = ts_xasprintf("==%d.%d.*", t->python_major, t->python_minor);
  enum ts_code rc = TS_OK;
  const struct ts_source_build_options *bo = ts_plan_result_build(res);
  for (size_t i = 0; i < res->res->nitems && rc == TS_OK; i++) {
    const struct ts_resolved *r = &res->res->items[i];
    const struct ts_plan_item *pi = &res->items[i];
    const struct ts_index_file *f = r->file;
    if (pi->built) {
      rc = add_built(lock, pi, bo, output, err);
      struct ts_pylock_package *p = rc == TS_OK ? &lock->packages[lock->npackages - 1] : NULL;
      if (p) {
        char **deps = NULL;
        size_t ndeps = 0;
        ts_plan_item_dependencies(pi, res->res, &t->markers, &deps, &ndeps);
        ts_plan_lock_dependencies(p, deps, ndeps);
      }
      continue;
    }
    if (!f) {
      rc = ts_error_set(err, TS_E_INTERNAL, "%s %s: the resolution names no file",
                        r->name, r->version);
      break;
    }
    bool sdist = !ends_with(f->filename, ".whl");
    if (sdist && !bo) {
      rc = ts_error_set(err, TS_E_UNSUPPORTED,
                        "%s %s: only an sdist (%s) fits the target, and this lock builds "
                        "nothing to fingerprint it", r->name, r->version, f->filename);
      break;
    }
    struct ts_pylock_package *p = ts_pylock_add_package(lock, r->name, r->version);
    if (!p)
      abort();
    char **deps = NULL;
    size_t ndeps = 0;
    ts_plan_item_dependencies(pi, res->res, &t->markers, &deps, &ndeps);
    ts_plan_lock_dependencies(p, deps, ndeps);
    ts_plan_lock_index(p, pi);
    rc = sdist ? add_index_sdist(res, pi, bo, output, p, err)
               : ts_plan_lock_file(res, pi, f, output, p, err);
    if (rc == TS_OK && !sdist && !pi->is_path)
      rc = ts_plan_lock_variant_wheels(res, pi, f, output, p, err);
  }
  if (rc != TS_OK) {
    ts_pylock_free(lock);
    return rc;
  }
  ts_plan_lock_facts_and_rules(res, lock);
  *out = lock;
  return TS_OK;
}
