/* A resolution as a PEP 751 lock: see plan.h (ts_plan_to_pylock). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/buf.h"
#include "core/filehash.h"
#include "core/fs.h"
#include "core/sha256.h"
#include "core/str.h"
#include "index/url.h"
#include "pep/metadata.h"
#include "pep/requirement.h"
#include "plan/plan.h"

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

static int cmp_str(const void *a, const void *b) {
  return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/* `dependencies = [{name = ...}]`: the locked projects that the item's
 * metadata requires on the target (with the extras it was resolved with),
 * sorted, so the lock can be read as a graph.  Best effort: unreadable
 * metadata gives no list. */
static void add_dependencies(struct ts_pylock_package *p, const struct ts_plan_item *pi,
                             const struct ts_resolution *res,
                             const struct ts_marker_env *env) {
  struct ts_metadata *md = NULL;
  struct ts_error err = {0};
  if (!pi->metadata || ts_metadata_parse(pi->metadata, pi->metadata_len, &md, &err) != TS_OK)
    return;
  char **names = ts_xcalloc(md->nrequires_dist, sizeof *names);
  size_t n = 0;
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
    for (size_t k = 0; locked && k < n && !dup; k++)
      dup = strcmp(names[k], req->normalized_name) == 0;
    if (holds && locked && !dup && strcmp(req->normalized_name, r->name) != 0)
      names[n++] = ts_xstrdup(req->normalized_name);
    ts_requirement_free(req);
  }
  if (n)
    qsort(names, n, sizeof *names, cmp_str);
  for (size_t i = 0; i < n; i++)
    if (ts_pylock_add_dependency(p, names[i]) != TS_OK)
      abort();
  for (size_t i = 0; i < n; i++)
    free(names[i]);
  free(names);
  ts_metadata_free(md);
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

/* The sha256 to lock for an item's file: the --hash or index one, else
 * the file's own (fetched into the wheel cache), which must then be one of
 * the --hash values. */
static enum ts_code file_sha256(struct ts_plan_result *res, const struct ts_plan_item *pi,
                                char hex[TS_SHA256_HEX_LEN + 1], struct ts_error *err) {
  const struct ts_index_file *f = pi->r->file;
  const char *sha = pi->user_sha256 ? pi->user_sha256 : f->sha256;
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

static void add_host_facts_and_rules(const struct ts_plan_result *res, struct ts_pylock *lock) {
  const struct ts_constraint_set *s = &res->rules;
  for (size_t i = 0; i < s->nfacts; i++)
    if (ts_pylock_set_host_fact(lock, s->facts[i].name,
                                s->facts[i].version ? s->facts[i].version : "present") != TS_OK)
      abort();
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

enum ts_code ts_plan_to_pylock(struct ts_plan_result *res, const char *output,
                               struct ts_pylock **out, struct ts_error *err) {
  *out = NULL;
  if (!res->res)
    return ts_error_set(err, TS_E_INTERNAL, "no resolution to lock");
  const struct ts_target *t = res->target;
  struct ts_pylock *lock = ts_pylock_new();
  if (!lock)
    abort();
  lock->environments = ts_xcalloc(1, sizeof *lock->environments);
  lock->environments[0] = environment_marker(t);
  lock->nenvironments = 1;
  lock->requires_python = ts_xasprintf("==%d.%d.*", t->python_major, t->python_minor);
  enum ts_code rc = TS_OK;
  for (size_t i = 0; i < res->res->nitems && rc == TS_OK; i++) {
    const struct ts_resolved *r = &res->res->items[i];
    const struct ts_plan_item *pi = &res->items[i];
    const struct ts_index_file *f = r->file;
    if (!f) {
      rc = ts_error_set(err, TS_E_INTERNAL, "%s %s: the resolution names no file",
                        r->name, r->version);
      break;
    }
    if (!ends_with(f->filename, ".whl")) {
      rc = ts_error_set(err, TS_E_UNSUPPORTED,
                        "%s %s: only an sdist (%s) fits the target; a lock needs wheels",
                        r->name, r->version, f->filename);
      break;
    }
    char sha[TS_SHA256_HEX_LEN + 1];
    if ((rc = file_sha256(res, pi, sha, err)) != TS_OK)
      break;
    struct ts_pylock_package *p = ts_pylock_add_package(lock, r->name, r->version);
    if (!p)
      abort();
    add_dependencies(p, pi, res->res, &t->markers);
    const char *index = pi->index ? pi->index : r->index_url;
    if (index && !pi->is_path && strncmp(index, "file:", 5) != 0 && index[0] != '/')
      p->index = ts_url_without_userinfo(index);
    struct ts_pylock_file *w;
    if (pi->is_path && pi->direct_url) {
      char *path = wheel_path(pi->direct_url, output);
      w = ts_pylock_add_wheel(p, f->filename, NULL, path, f->size, f->upload_time, sha);
      free(path);
    } else {
      char *url = ts_url_without_userinfo(f->url);
      w = ts_pylock_add_wheel(p, f->filename, url, NULL, f->size, f->upload_time, sha);
      free(url);
    }
    if (!w)
      rc = ts_error_set(err, TS_E_INVALID, "%s %s: cannot record the wheel %s",
                        r->name, r->version, f->filename);
  }
  if (rc != TS_OK) {
    ts_pylock_free(lock);
    return rc;
  }
  add_host_facts_and_rules(res, lock);
  *out = lock;
  return TS_OK;
}
