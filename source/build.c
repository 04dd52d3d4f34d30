/* Wheels from source: see build.h. */
#include "source/build.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/alloc.h"
#include "core/buf.h"
#include "core/clock.h"
#include "core/filehash.h"
#include "core/fs.h"
#include "core/sha256.h"
#include "core/str.h"
#include "index/url.h"
#include "pep/filename.h"
#include "pep/metadata.h"
#include "pep/name.h"
#include "resolver/resolver.h"
#include "source/build_torch.h"
#include "source/source.h"
#include "target/site.h"
#include "wheel/venv.h"

static bool has_suffix_ci(const char *s, const char *suf) {
  size_t n = strlen(s), m = strlen(suf);
  return n >= m && strcasecmp(s + n - m, suf) == 0;
}

/* pip's source archive extensions (a URL's query and fragment cut). */
static bool is_sdist_name(const char *s) {
  return ts_archive_kind_of(s, strcspn(s, "?#")) == TS_DIST_SDIST;
}

bool ts_source_of(const struct ts_reqfile_entry *e, struct ts_source_spec *out) {
  memset(out, 0, sizeof *out);
  const char *loc = e->kind == TS_REQFILE_NAMED ? e->req->url
                    : e->kind == TS_REQFILE_URL ? e->url
                                                : e->path;
  if (!loc)
    return false;
  out->location = loc;
  out->editable = e->editable;
  out->name = e->kind == TS_REQFILE_NAMED ? e->req->name : e->name;
  if (strncmp(loc, "git+", 4) == 0) {
    out->kind = TS_SOURCE_VCS;
    return true;
  }
  char *path = strncmp(loc, "file://", 7) == 0 ? ts_url_file_path(loc) : NULL;
  const char *local = path ? path : e->kind == TS_REQFILE_PATH ? loc : NULL;
  struct stat st;
  bool yes = false;
  if (local && stat(local, &st) == 0 && S_ISDIR(st.st_mode)) {
    out->kind = TS_SOURCE_DIR;
    yes = true;
  } else if (is_sdist_name(loc)) {
    out->kind = local && e->kind == TS_REQFILE_PATH ? TS_SOURCE_ARCHIVE
                                                     : TS_SOURCE_URL;
    yes = true;
  }
  free(path);
  return yes;
}

void ts_source_built_clear(struct ts_source_built *b) {
  if (b->workdir) {
    struct ts_error ignore = {0};
    ts_fs_remove_tree(b->workdir, &ignore);
  }
  free(b->workdir);
  free(b->wheel);
  free(b->direct_url);
  free(b->source_hash);
  free(b->log);
  free(b->torch);
  free(b->build_env);
  memset(b, 0, sizeof *b);
}

/* ---- PEP 610 direct_url.json ------------------------------------------ */

/* Text built piece by piece; `full` once a piece did not fit its cap. */
struct text {
  struct ts_buf b;
  bool full;
};

__attribute__((format(printf, 2, 3))) static void put(struct text *t, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  char *s = NULL;
  if (vasprintf(&s, fmt, ap) < 0)
    abort();
  va_end(ap);
  if (ts_buf_append_str(&t->b, s) != TS_OK)
    t->full = true;
  free(s);
}

static void json_string(struct text *t, const char *s) {
  put(t, "\"");
  for (const unsigned char *c = (const unsigned char *)s; *c; c++) {
    if (*c == '"' || *c == '\\')
      put(t, "\\%c", *c);
    else if (*c < 0x20)
      put(t, "\\u%04x", *c);
    else
      put(t, "%c", *c);
  }
  put(t, "\"");
}

static char *file_url(const char *abs) {
  return ts_xasprintf("file://%s", abs);
}

/* ---- the build environment -------------------------------------------- */

/* A build environment's set: "name==version sha256 url" lines, one per
 * name (ts_source_built.build_env once sorted). */
struct envset {
  char **lines;
  size_t n;
};

static void envset_clear(struct envset *e) {
  for (size_t i = 0; i < e->n; i++)
    free(e->lines[i]);
  free(e->lines);
  memset(e, 0, sizeof *e);
}

/* Adds a line, replacing the one of the same name. */
static void envset_put(struct envset *e, char *line) {
  size_t nl = strcspn(line, "=");
  for (size_t i = 0; i < e->n; i++)
    if (strcspn(e->lines[i], "=") == nl && strncmp(e->lines[i], line, nl) == 0) {
      free(e->lines[i]);
      e->lines[i] = line;
      return;
    }
  e->lines = ts_xrealloc(e->lines, (e->n + 1) * sizeof *e->lines);
  e->lines[e->n++] = line;
}

static int by_str(const void *a, const void *b) {
  return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The lines sorted, each ending in '\n'; NULL when empty. */
static char *envset_text(struct envset *e) {
  if (e->n == 0)
    return NULL;
  qsort(e->lines, e->n, sizeof *e->lines, by_str);
  struct text t = {0};
  ts_buf_init(&t.b, 1u << 20);
  for (size_t i = 0; i < e->n; i++)
    put(&t, "%s\n", e->lines[i]);
  return ts_buf_take(&t.b, NULL);
}

/* The sha256 of a resolved file: the index's, else (a --find-links file)
 * the file's own, so that the key and the lock see its bytes; NULL when
 * neither is known. */
static char *resolved_sha256(const struct ts_resolved *x) {
  if (!x->file)
    return NULL;
  if (x->file->sha256)
    return ts_xstrdup(x->file->sha256);
  char *path = ts_url_file_path(x->file->url);
  char hex[65];
  struct ts_error ignore = {0};
  uint8_t d[TS_SHA256_LEN];
  char *out = NULL;
  if (path && ts_filehash_path(path, NULL, d, NULL, &ignore) == TS_OK) {
    ts_sha256_hex(d, hex);
    out = ts_xstrdup(hex);
  }
  free(path);
  return out;
}

/* The whole explanation of a build environment that cannot be made, its
 * lines joined into the one-line error (as much as an error holds). */
static void explain_env(const char *what, const struct ts_explanation *why,
                        struct ts_error *err) {
  struct ts_buf b;
  ts_buf_init(&b, TS_ERROR_DETAIL_MAX);
  bool ok = ts_buf_printf(&b, "%s: its build requirements cannot be met:", what) == TS_OK;
  for (size_t i = 0; ok && i < why->nlines; i++)
    ok = ts_buf_printf(&b, "%s %s", i ? ";" : "", why->lines[i]) == TS_OK;
  ts_error_set(err, TS_E_RESOLVE, "%s", b.data ? b.data : what);
  ts_buf_clear(&b);
}

/* A build environment's resolution, from the provider. */
struct env_res {
  void *env; /* NULL when there was nothing to resolve */
  const struct ts_resolution *res;
};

static void env_res_release(const struct ts_source_build_options *o, struct env_res *r) {
  if (r->env)
    o->env->release(r->env);
  *r = (struct env_res){0};
}

/* Resolves `reqs` (plus the build constraints) for the interpreter
 * `python`; read_installed: against what its environment has.  `fp` (may
 * be NULL) gets one "env name==version sha256" line per package of the
 * resolved set.  A torch-matched build resolves with the rules' routes, so
 * that torch and its companions come from the PyTorch server as the
 * runtime's do.  out->env is NULL when there is nothing to resolve. */
static enum ts_code resolve_env(const struct ts_source_build_options *o, const char *python,
                                bool read_installed, char *const *reqs, size_t n,
                                const char *what, bool torch_matched, struct text *fp,
                                struct env_res *out, struct ts_error *err) {
  *out = (struct env_res){0};
  size_t total = n + o->nbuild_constraints;
  struct ts_reqfile_entry *own = ts_xcalloc(n, sizeof *own);
  const struct ts_reqfile_entry **ents = ts_xcalloc(total, sizeof *ents);
  enum ts_code rc = TS_OK;
  size_t parsed = 0;
  for (; parsed < n && rc == TS_OK; parsed++) {
    struct ts_error pe = {0};
    rc = ts_reqfile_parse_requirement(reqs[parsed], strlen(reqs[parsed]), NULL,
                                      &own[parsed], &pe);
    if (rc != TS_OK)
      rc = ts_error_set(err, TS_E_PARSE, "%s: build requirement '%s': %s", what,
                        reqs[parsed], pe.detail);
    else
      ents[parsed] = &own[parsed];
  }
  for (size_t i = 0; i < o->nbuild_constraints; i++)
    ents[n + i] = o->build_constraints[i];
  if (rc == TS_OK && n > 0 && !o->env)
    rc = ts_error_set(err, TS_E_INTERNAL, "%s: no provider of build environments", what);
  if (rc == TS_OK && n > 0) {
    rc = o->env->resolve(o, python, read_installed, ents, total, torch_matched, &out->env,
                         &out->res, err);
    if (rc == TS_E_RESOLVE && out->res && out->res->why.nlines)
      explain_env(what, &out->res->why, err);
    else if (rc != TS_OK)
      ts_error_wrap(err, "%s: the build requirements", what);
  }
  for (size_t i = 0; rc == TS_OK && out->res && fp && i < out->res->nitems; i++) {
    const struct ts_resolved *x = &out->res->items[i];
    char *sha = resolved_sha256(x);
    put(fp, "env %s==%s %s\n", x->name, x->version, sha ? sha : "-");
    free(sha);
  }
  if (rc != TS_OK)
    env_res_release(o, out);
  for (size_t i = 0; i < parsed; i++)
    ts_reqfile_entry_clear(&own[i]);
  free(own);
  free(ents);
  return rc;
}

/* Resolves `reqs` for the build environment at `envdir` and installs what
 * it lacks (hardlinks from the wheel cache); `set` gets a line per package
 * installed; the rest as resolve_env. */
static enum ts_code fill_env(const struct ts_source_build_options *o, const char *envdir,
                             char *const *reqs, size_t n, const char *what,
                             bool torch_matched, struct text *fp, struct envset *set,
                             struct ts_error *err) {
  struct env_res r;
  enum ts_code rc = resolve_env(o, envdir, true, reqs, n, what, torch_matched, fp, &r, err);
  if (rc == TS_OK && r.env)
    rc = o->env->install(r.env, o->cancel, err);
  for (size_t i = 0; rc == TS_OK && r.res && i < r.res->nitems; i++) {
    const struct ts_resolved *x = &r.res->items[i];
    if (!x->file)
      continue; /* kept: its line is there from the first fill */
    char *sha = resolved_sha256(x);
    char *url = ts_url_without_userinfo(x->file->url);
    envset_put(set, ts_xasprintf("%s==%s %s %s", x->name, x->version, sha ? sha : "-", url));
    free(url);
    free(sha);
  }
  env_res_release(o, &r);
  return rc;
}

/* A locked build environment (o->locked_env: "name==version sha256 url"
 * lines) made exactly: each file fetched from its URL and checked against
 * its sha256 (the wheel cache serves it under --offline; a file:// one is
 * read where it is), all installed as one transaction; nothing is
 * resolved.  `fp` gets the key's "env" lines. */
static enum ts_code fill_locked(const struct ts_source_build_options *o, struct ts_index *idx,
                                const char *envdir, struct text *fp, struct envset *set,
                                struct ts_error *err) {
  size_t cap = 1;
  for (const char *c = o->locked_env; *c; c++)
    cap += *c == '\n';
  struct ts_source_env_file *files = ts_xcalloc(cap, sizeof *files);
  char **own = ts_xcalloc(4 * cap, sizeof *own);
  size_t n = 0;
  enum ts_code rc = idx && o->env ? TS_OK
                                  : ts_error_set(err, TS_E_INTERNAL, "no index client");
  for (const char *l = o->locked_env; *l && rc == TS_OK;) {
    size_t len = strcspn(l, "\n");
    char *line = ts_xstrndup(l, len);
    l += len + (l[len] == '\n');
    char *sp1 = strchr(line, ' '), *sp2 = sp1 ? strchr(sp1 + 1, ' ') : NULL;
    char *eq = strstr(line, "==");
    if (!sp2 || !eq || eq > sp1 || sp2 - sp1 != 65) {
      rc = ts_error_set(err, TS_E_PARSE, "the locked build environment's '%s' is not "
                        "name==version sha256 url", line);
      free(line);
      break;
    }
    if (fp)
      put(fp, "env %.*s\n", (int)(sp2 - line), line);
    *sp1 = *sp2 = '\0';
    char **o4 = &own[4 * n];
    o4[0] = ts_name_normalize(line, (size_t)(eq - line));
    o4[1] = ts_url_basename(sp2 + 1);
    o4[2] = ts_xstrdup(sp1 + 1);
    o4[3] = ts_xstrdup(sp2 + 1);
    *sp1 = *sp2 = ' ';
    envset_put(set, line);
    files[n++] = (struct ts_source_env_file){.project = o4[0], .filename = o4[1],
                                             .url = o4[3], .sha256 = o4[2]};
  }
  char *python = ts_path_join(envdir, "bin/python");
  if (rc == TS_OK)
    rc = o->env->install_files(idx, python, o->probe_cache_dir, files, n, o->cancel, err);
  free(python);
  for (size_t i = 0; i < 4 * n; i++)
    free(own[i]);
  free(own);
  free(files);
  return rc;
}

/* ---- the cache key ------------------------------------------------------ */

static const char *const steering_env[] = {
    "TORCH_CUDA_ARCH_LIST", "FORCE_CUDA", "PYTORCH_ROCM_ARCH", "MAX_JOBS", "CUDA_HOME",
    "ROCM_PATH", "CC", "CXX", "CFLAGS", "CXXFLAGS", "LDFLAGS"};

/* NAME's value in the backend's environment: extra_env's, else ours. */
static const char *backend_env(const struct ts_hook_env *he, const char *name) {
  size_t len = strlen(name);
  for (size_t i = 0; i < he->nextra_env; i++)
    if (strncmp(he->extra_env[i], name, len) == 0 && he->extra_env[i][len] == '=')
      return he->extra_env[i] + len + 1;
  return getenv(name);
}

/* KEY=VALUE's key against another's. */
static int setting_key_cmp(const char *a, const char *b) {
  size_t la = strcspn(a, "="), lb = strcspn(b, "=");
  int c = strncmp(a, b, la < lb ? la : lb);
  return c ? c : (la > lb) - (la < lb);
}

const char **ts_source_config_settings_sorted(const char *const *cs, size_t n) {
  const char **out = ts_xcalloc(n + 1, sizeof *out);
  for (size_t i = 0; i < n; i++) { /* insertion: stable, and n is small */
    size_t j = i;
    for (; j > 0 && setting_key_cmp(out[j - 1], cs[i]) > 0; j--)
      out[j] = out[j - 1];
    out[j] = cs[i];
  }
  return out;
}

/* What decides what one source gives for one target, whatever its build
 * environment and variables: the source, the interpreter and platform,
 * the config settings. */
static void source_inputs(struct text *k, const struct ts_source_build_options *o,
                          const struct ts_target *t, const char *source_hash) {
  put(k, "torchsolve-build-v1\nsource %s\n", source_hash);
  put(k, "python %s %d.%d.%d %s\n", t->implementation ? t->implementation : "cp",
                t->python_major, t->python_minor, t->python_micro,
                t->abi_flags ? t->abi_flags : "");
  put(k, "platform %s %d.%d %s\n", t->markers.sys_platform ? t->markers.sys_platform : "",
                t->libc_major, t->libc_minor, t->tag_arch ? t->tag_arch : "");
  const char **cs = ts_source_config_settings_sorted(o->config_settings, o->nconfig_settings);
  for (size_t i = 0; i < o->nconfig_settings; i++)
    put(k, "config %s\n", cs[i]);
  free(cs);
}

/* The wheel's: the source's inputs and the variables the backend gets
 * (the build environment's lines follow). */
static void key_inputs(struct text *k, const struct ts_source_build_options *o,
                       const struct ts_hook_env *he, const struct ts_target *t,
                       const char *source_hash) {
  source_inputs(k, o, t, source_hash);
  for (size_t i = 0; i < sizeof steering_env / sizeof steering_env[0]; i++) {
    const char *v = backend_env(he, steering_env[i]);
    if (v)
      put(k, "envvar %s=%s\n", steering_env[i], v);
  }
  put(k, "wheel\n");
}

/* ---- sources ------------------------------------------------------------ */

static enum ts_code hash_file(const char *path, char hex[65], struct ts_error *err) {
  uint8_t d[TS_SHA256_LEN];
  enum ts_code rc = ts_filehash_path(path, NULL, d, NULL, err);
  if (rc == TS_OK)
    ts_sha256_hex(d, hex);
  return rc;
}

static const char *url_basename(const char *url, char *out, size_t cap) {
  size_t end = strcspn(url, "?#");
  const char *b = url;
  for (size_t i = 0; i < end; i++)
    if (url[i] == '/')
      b = url + i + 1;
  snprintf(out, cap, "%.*s", (int)(end - (size_t)(b - url)), b);
  return out;
}

/* Whether the source builds in a build environment of its own: not with
 * --no-build-isolation, nor when --no-build-isolation-package names it. */
static bool isolated(const struct ts_source_build_options *o, const struct ts_source_spec *src) {
  if (o->no_isolation)
    return false;
  for (size_t i = 0; src->name && i < o->nno_isolation_packages; i++)
    if (ts_name_eq(src->name, strlen(src->name), o->no_isolation_packages[i],
                   strlen(o->no_isolation_packages[i])))
      return false;
  return true;
}

/* A source located and hashed, before anything is unpacked: the tree of a
 * directory, the local archive, or (an sdist URL whose sha256 is known)
 * nothing yet, so that a cache hit needs no download. */
struct located {
  char *tree;    /* a directory, or a checkout / unpacked sdist once there */
  char *archive; /* a local sdist, or NULL */
  bool in_place; /* tree is the user's folder: built from a copy */
};

static void located_clear(struct located *l) {
  free(l->tree);
  free(l->archive);
  memset(l, 0, sizeof *l);
}

static enum ts_code download(struct ts_index *idx, const struct ts_source_spec *src,
                             const char *workdir, char **archive, struct ts_error *err) {
  if (!idx)
    return ts_error_set(err, TS_E_INTERNAL, "no index client to download '%s'",
                        src->location);
  char fname[512];
  url_basename(src->location, fname, sizeof fname);
  char *to = ts_path_join(workdir, fname[0] ? fname : "sdist.tar.gz");
  struct ts_index_download d = {.url = src->location, .sha256 = src->sha256, .dest = to};
  enum ts_code rc = ts_index_download(idx, &d, 1, err);
  if (rc == TS_OK && d.code != TS_OK) {
    *err = d.err;
    rc = d.code;
  }
  if (rc == TS_OK)
    *archive = to;
  else
    free(to);
  return rc;
}

/* Locates the source, sets out->source_hash and out->direct_url; a git
 * URL is checked out into workdir/src here (its commit is its hash). */
static enum ts_code locate(const struct ts_source_build_options *o, struct ts_index *idx,
                           const struct ts_source_spec *src, bool may_defer,
                           struct ts_source_built *out, struct located *l,
                           struct ts_error *err) {
  char hex[65] = "";
  enum ts_code rc = TS_OK;
  struct text du = {0};
  ts_buf_init(&du.b, 1u << 20);
  put(&du, "%s", "{\"url\": ");
  if (src->kind == TS_SOURCE_DIR) {
    char *path = strncmp(src->location, "file://", 7) == 0 ? ts_url_file_path(src->location)
                                                           : ts_xstrdup(src->location);
    l->tree = realpath(path, NULL);
    l->in_place = !src->editable;
    free(path);
    if (!l->tree)
      rc = ts_error_set(err, TS_E_NOT_FOUND, "no such directory: '%s'", src->location);
    if (rc == TS_OK && !src->editable && isolated(o, src))
      rc = ts_source_tree_hash(l->tree, hex, err);
    if (rc == TS_OK) {
      char *u = file_url(l->tree);
      json_string(&du, u);
      free(u);
      put(&du, ", \"dir_info\": {%s}}", src->editable ? "\"editable\": true" : "");
    }
  } else if (src->kind == TS_SOURCE_ARCHIVE || src->kind == TS_SOURCE_URL) {
    bool remote = src->kind == TS_SOURCE_URL && strncmp(src->location, "file://", 7);
    if (src->kind == TS_SOURCE_ARCHIVE) {
      l->archive = realpath(src->location, NULL);
      if (!l->archive)
        rc = ts_error_set(err, TS_E_NOT_FOUND, "no such file: '%s'", src->location);
    } else if (!remote) {
      l->archive = ts_url_file_path(src->location);
      if (!l->archive)
        rc = ts_error_set(err, TS_E_INVALID, "'%s' is not a local file URL", src->location);
    } else if (!(may_defer && src->sha256)) {
      rc = download(idx, src, out->workdir, &l->archive, err);
    }
    struct stat ast;
    if (rc == TS_OK && l->archive && stat(l->archive, &ast) == 0)
      out->source_size = (long long)ast.st_size;
    if (rc == TS_OK && l->archive)
      rc = hash_file(l->archive, hex, err);
    else if (rc == TS_OK)
      snprintf(hex, sizeof hex, "%s", src->sha256); /* checked when downloaded */
    for (char *c = hex; *c; c++)
      *c = (char)(*c >= 'A' && *c <= 'F' ? *c - 'A' + 'a' : *c);
    if (rc == TS_OK && src->sha256 && strcasecmp(src->sha256, hex) != 0)
      rc = ts_error_set(err, TS_E_HASH, "%s: its sha256 %s is not the --hash %s",
                        src->location, hex, src->sha256);
    if (rc == TS_OK) {
      char *u = remote ? ts_url_without_userinfo(src->location) : file_url(l->archive);
      u[strcspn(u, "#")] = '\0';
      json_string(&du, u);
      free(u);
      put(&du, ", \"archive_info\": {\"hash\": \"sha256=%s\", \"hashes\": "
                         "{\"sha256\": \"%s\"}}}", hex, hex);
    }
  } else {
    struct ts_vcs_ref ref;
    rc = ts_vcs_parse(src->location, &ref, err);
    char commit[41] = "";
    char *unpack_to = ts_path_join(out->workdir, "src");
    if (rc == TS_OK)
      rc = ts_vcs_checkout(&ref, unpack_to, out->log, o->timeout_s, o->cancel, commit, err);
    if (rc == TS_OK) {
      snprintf(hex, sizeof hex, "%s", commit);
      l->tree = ref.subdirectory ? ts_path_join(unpack_to, ref.subdirectory)
                                 : ts_xstrdup(unpack_to);
      struct stat st;
      if (stat(l->tree, &st) != 0 || !S_ISDIR(st.st_mode))
        rc = ts_error_set(err, TS_E_NOT_FOUND, "%s: no subdirectory '%s' at %s",
                          ref.repo, ref.subdirectory, commit);
      char *u = ts_url_without_userinfo(ref.repo);
      json_string(&du, u);
      free(u);
      put(&du, ", \"vcs_info\": {\"vcs\": \"git\", \"commit_id\": \"%s\"", commit);
      if (ref.revision) {
        put(&du, "%s", ", \"requested_revision\": ");
        json_string(&du, ref.revision);
      }
      put(&du, "%s", "}");
      if (ref.subdirectory) {
        put(&du, "%s", ", \"subdirectory\": ");
        json_string(&du, ref.subdirectory);
      }
      put(&du, "%s", "}");
    }
    free(unpack_to);
    ts_vcs_ref_clear(&ref);
  }
  if (rc == TS_OK && du.full)
    rc = ts_error_set(err, TS_E_TOO_BIG, "'%s': the location is too long", src->location);
  if (rc == TS_OK) {
    out->direct_url = ts_buf_take(&du.b, NULL);
    out->source_hash = hex[0] ? ts_xstrdup(hex) : NULL;
  }
  ts_buf_clear(&du.b);
  return rc;
}

/* The tree to build, a project (setup.py or pyproject.toml): an sdist is
 * downloaded (when deferred) and unpacked into workdir/src; a local folder
 * (but an editable one) is copied there, never written to. */
static enum ts_code unpack(struct ts_index *idx, const struct ts_source_spec *src, struct ts_source_built *out,
                           const struct ts_hook_env *he, struct located *l,
                           struct ts_error *err) {
  enum ts_code rc = l->tree ? ts_source_check_project(l->tree, src->location, err) : TS_OK;
  char *unpack_to = ts_path_join(out->workdir, "src");
  if (rc == TS_OK && l->tree && l->in_place) {
    rc = ts_source_tree_copy(l->tree, unpack_to, err);
    free(l->tree);
    l->tree = unpack_to;
    l->in_place = false;
    return rc;
  }
  if (l->tree) {
    free(unpack_to);
    return rc;
  }
  rc = l->archive ? TS_OK : download(idx, src, out->workdir, &l->archive, err);
  struct stat ast;
  if (rc == TS_OK && out->source_size < 0 && stat(l->archive, &ast) == 0)
    out->source_size = (long long)ast.st_size;
  if (rc == TS_OK)
    rc = ts_source_unpack(he, l->archive, unpack_to, &l->tree, err);
  if (rc == TS_OK)
    rc = ts_source_check_project(l->tree, src->location, err);
  free(unpack_to);
  return rc;
}

/* ---- torch-matched builds ---------------------------------------------- */

/* The project's name for the rules: the requirement's, [project].name,
 * else an sdist's PKG-INFO; NULL when none says (a setup.py-only tree). */
static char *project_name(const struct ts_source_spec *src, const struct ts_build_system *bs,
                          const char *tree) {
  if (src->name)
    return ts_xstrdup(src->name);
  if (bs->project_name)
    return ts_xstrdup(bs->project_name);
  if (!tree)
    return NULL;
  char *path = ts_path_join(tree, "PKG-INFO");
  struct ts_buf b;
  ts_buf_init(&b, TS_CAP_SMALL_FILE);
  struct ts_error ignore = {0};
  struct ts_metadata *md = NULL;
  char *name = NULL;
  if (ts_fs_read_file(path, &b, &ignore) == TS_OK && b.data &&
      ts_metadata_parse(b.data, b.len, &md, &ignore) == TS_OK && md->name)
    name = ts_xstrdup(md->name);
  ts_metadata_free(md);
  ts_buf_clear(&b);
  free(path);
  return name;
}

/* What a build that needs torch is given (build.h, "Torch-matched builds"). */
struct torch_match {
  char *version;  /* the runtime torch build, "2.9.1+cu126"; NULL: none */
  char *pin;      /* "torch==2.9.1+cu126", added to the build requirements */
  const struct ts_rules_backend *backend; /* its variant's, or NULL */
  bool nvcc;      /* the rules say the build compiles CUDA code */
  char *project;  /* its name for messages, or NULL */
  char **env;     /* TORCH_CUDA_ARCH_LIST=..., FORCE_CUDA=1 */
  size_t nenv;
};

static void torch_match_clear(struct torch_match *m) {
  free(m->version);
  free(m->pin);
  free(m->project);
  for (size_t i = 0; i < m->nenv; i++)
    free(m->env[i]);
  free(m->env);
  memset(m, 0, sizeof *m);
}

/* Sets *m for a build that needs torch: an isolated one gets the runtime
 * torch (or the locked one) pinned in its environment, one in the target
 * (!in_env) the target's torch, made the plan's first (target_torch). */
static enum ts_code match_torch(const struct ts_source_build_options *o,
                                const struct ts_source_spec *src,
                                const struct ts_build_system *bs, const char *tree,
                                bool in_env, struct torch_match *m, struct ts_error *err) {
  char *project = project_name(src, bs, tree);
  bool needed = ts_build_torch_needed(bs, project, src->location, o->rules, &m->nvcc);
  enum ts_code rc = TS_OK;
  if (needed && !in_env) {
    if (o->target_torch)
      rc = o->target_torch(o->runtime_ctx, project ? project : src->location, &m->version,
                           err);
  } else if (needed && o->locked_env) {
    /* a locked build: its torch is the one in the locked environment */
    const char *t = strncmp(o->locked_env, "torch==", 7) == 0 ? o->locked_env
                                                              : strstr(o->locked_env, "\ntorch==");
    if (t) {
      t += strcspn(t, "=") + 2;
      m->version = ts_xstrndup(t, strcspn(t, " \n"));
    }
  } else if (needed && o->runtime_torch) {
    rc = o->runtime_torch(o->runtime_ctx, &m->version, err);
    if (rc != TS_OK)
      ts_error_wrap(err, "%s: its build needs the runtime torch",
                    project ? project : src->location);
  }
  if (rc == TS_OK && m->version) {
    if (!o->locked_env && in_env)
      m->pin = ts_xasprintf("torch==%s", m->version);
    m->backend = ts_build_torch_backend(o->rules, m->version);
    ts_build_torch_env(m->backend, o->ignore_host ? NULL : o->host, &m->env, &m->nenv);
  }
  m->project = project;
  return rc;
}

/* Before a CUDA build compiles: nvcc against the torch.version.cuda of the
 * torch it builds with: the build environment's (envdir), else the
 * target's (its variant's CUDA when unreadable). */
static enum ts_code check_nvcc(const struct torch_match *m, const struct ts_target *t,
                               const char *envdir, bool ignore_host,
                               const struct ts_source_build_callbacks *cb,
                               struct ts_error *err) {
  if (!m->backend || m->backend->kind != TS_BACKEND_CUDA || ignore_host)
    return TS_OK;
  char *site = envdir ? ts_xasprintf("%s/lib/python%d.%d/site-packages", envdir,
                                     t->python_major, t->python_minor)
                      : ts_xstrdup(t->paths.platlib ? t->paths.platlib : "");
  char *cuda = ts_site_torch_built_with(site, "cuda");
  const char *want = cuda ? cuda : m->backend->version;
  char *warning = NULL;
  enum ts_code rc = want ? ts_build_torch_check_nvcc(m->project ? m->project : "the build",
                                                     m->version, want, m->nvcc, &warning, err)
                         : TS_OK;
  if (warning && cb->warning)
    cb->warning(cb->ctx, warning);
  free(warning);
  free(cuda);
  free(site);
  return rc;
}

/* ---- the build cache ----------------------------------------------------
 * builds-v1/<K0>/ holds what one source gives for one target whatever its
 * build environment: `inputs` (its project name and [build-system]
 * requires, so that a later run can make the wheel's key without
 * unpacking anything or making an environment) and METADATA.
 * builds-v1/<K2>/ holds the wheel: K2 adds the variables the backend gets
 * and the build environment's resolved set (torch build included). */

static char *entry_path(const char *root, const struct text *key) {
  uint8_t d[TS_SHA256_LEN];
  char hex[65];
  ts_sha256(key->b.data ? key->b.data : "", key->b.len, d);
  ts_sha256_hex(d, hex);
  return ts_xasprintf("%s/builds-v1/%.2s/%s", root, hex, hex + 2);
}

static bool read_small(const char *dir, const char *name, char **data, size_t *len) {
  char *path = ts_path_join(dir, name);
  struct ts_buf b;
  ts_buf_init(&b, TS_CAP_METADATA);
  struct ts_error ignore = {0};
  bool ok = ts_fs_read_file(path, &b, &ignore) == TS_OK && b.data;
  if (ok)
    *data = ts_buf_take(&b, len);
  ts_buf_clear(&b);
  free(path);
  return ok;
}

static void write_small(const char *dir, const char *name, const char *data, size_t len) {
  struct ts_error ignore = {0};
  char *path = ts_path_join(dir, name);
  if (ts_fs_mkdirs(dir, &ignore) == TS_OK)
    ts_fs_write_atomic(path, data, len, &ignore);
  free(path);
}

/* The remembered inputs of a source as much of a ts_build_system as the
 * key needs (requires, project_name); false when none were kept. */
static bool recall_inputs(const char *k0, struct ts_build_system *bs) {
  char *text = NULL;
  size_t len = 0;
  memset(bs, 0, sizeof *bs);
  if (!read_small(k0, "inputs", &text, &len))
    return false;
  bs->requires = ts_xcalloc(len + 1, sizeof *bs->requires);
  for (size_t at = 0; at < len;) {
    size_t end = at + strcspn(text + at, "\n");
    if (end - at > 9 && strncmp(text + at, "requires ", 9) == 0)
      bs->requires[bs->nrequires++] = ts_xstrndup(text + at + 9, end - at - 9);
    else if (end - at > 8 && strncmp(text + at, "project ", 8) == 0 && !bs->project_name)
      bs->project_name = ts_xstrndup(text + at + 8, end - at - 8);
    at = end + 1;
  }
  free(text);
  return true;
}

static void remember_inputs(const char *k0, const struct ts_build_system *bs,
                            const char *project) {
  struct text t = {0};
  ts_buf_init(&t.b, 1u << 20);
  put(&t, "%s", "torchsolve-build-inputs-v1\n");
  if (project)
    put(&t, "project %s\n", project);
  for (size_t i = 0; i < bs->nrequires; i++)
    put(&t, "requires %s\n", bs->requires[i]);
  if (!t.full)
    write_small(k0, "inputs", t.b.data, t.b.len);
  ts_buf_clear(&t.b);
}

/* K2 for the build environment resolved from `reqs`, without making it. */
static char *wheel_entry_for(const struct ts_source_build_options *o, const struct ts_target *t,
                             const struct ts_hook_env *he, const char *source_hash,
                             char *const *reqs, size_t n, bool torch_matched,
                             const char *what) {
  struct text key = {0};
  ts_buf_init(&key.b, 1u << 20);
  key_inputs(&key, o, he, t, source_hash);
  struct env_res r;
  struct ts_error ignore = {0};
  char *entry = NULL;
  if (resolve_env(o, t->python, false, reqs, n, what, torch_matched, &key, &r, &ignore) ==
          TS_OK &&
      !key.full)
    entry = entry_path(o->cache_root, &key);
  env_res_release(o, &r);
  ts_buf_clear(&key.b);
  return entry;
}

/* METADATA of a wheel file. */
static enum ts_code wheel_metadata(struct ts_index *idx, const char *wheel, char **data,
                                   size_t *len, struct ts_error *err) {
  if (!idx)
    return ts_error_set(err, TS_E_INTERNAL, "no index client to read '%s'", wheel);
  struct ts_index_file f = {.filename = (char *)strrchr(wheel, '/') + 1,
                            .url = file_url(wheel)};
  struct ts_index_metadata m = {.file = &f};
  enum ts_code rc = ts_index_fetch_metadata(idx, &m, 1, err);
  if (rc == TS_OK && m.code != TS_OK) {
    *err = m.err;
    rc = m.code;
  }
  if (rc == TS_OK) {
    *data = m.data;
    *len = m.len;
    m.data = NULL;
  }
  ts_index_metadata_clear(&m);
  free(f.url);
  return rc;
}

/* ---- environments kept between a source's metadata and its wheel ------- */

struct kept_env {
  char *k0;         /* the source's inputs entry (builds-v1/<K0>) */
  char *torch;      /* the torch build it has, or NULL */
  char *workdir;    /* owned: removed with the list */
  char *tree;       /* the source tree the metadata was prepared in */
  char *envdir;
  char *env_lines;  /* envset_text of its packages, or NULL */
  char *key;        /* the wheel key's text (its environment included) */
  long long source_size;
};

struct ts_source_build_kept {
  struct kept_env *v;
  size_t n;
};

struct ts_source_build_kept *ts_source_build_kept_new(void) {
  return ts_xcalloc(1, sizeof(struct ts_source_build_kept));
}

void ts_source_build_kept_free(struct ts_source_build_kept *k) {
  for (size_t i = 0; k && i < k->n; i++) {
    struct kept_env *e = &k->v[i];
    struct ts_error ignore = {0};
    ts_fs_remove_tree(e->workdir, &ignore);
    free(e->k0);
    free(e->torch);
    free(e->workdir);
    free(e->tree);
    free(e->envdir);
    free(e->env_lines);
    free(e->key);
  }
  if (k)
    free(k->v);
  free(k);
}

static struct kept_env *kept_find(const struct ts_source_build_kept *k, const char *k0) {
  for (size_t i = 0; k && k0 && i < k->n; i++)
    if (strcmp(k->v[i].k0, k0) == 0)
      return &k->v[i];
  return NULL;
}

static bool same_str(const char *a, const char *b) {
  return strcmp(a ? a : "", b ? b : "") == 0;
}

/* The environment of a metadata build, for the wheel's (out->workdir moves
 * to the list). */
static void kept_put(struct ts_source_build_kept *k, const char *k0, const char *torch,
                     struct ts_source_built *out, const char *tree, const char *envdir,
                     char *env_lines, const struct text *key) {
  if (kept_find(k, k0) || key->full) {
    free(env_lines);
    return;
  }
  k->v = ts_xrealloc(k->v, (k->n + 1) * sizeof *k->v);
  k->v[k->n++] = (struct kept_env){
      .k0 = ts_xstrdup(k0), .torch = torch ? ts_xstrdup(torch) : NULL,
      .workdir = out->workdir, .tree = ts_xstrdup(tree), .envdir = ts_xstrdup(envdir),
      .env_lines = env_lines, .key = ts_xstrndup(key->b.data ? key->b.data : "", key->b.len),
      .source_size = out->source_size};
  out->workdir = NULL;
}

/* Takes over a kept environment: its lines into *set, its key into *key. */
static void kept_adopt(const struct kept_env *e, struct envset *set, struct text *key) {
  for (const char *l = e->env_lines; l && *l;) {
    size_t len = strcspn(l, "\n");
    envset_put(set, ts_xstrndup(l, len));
    l += len + (l[len] == '\n');
  }
  ts_buf_clear(&key->b);
  ts_buf_init(&key->b, 1u << 20);
  key->full = false;
  put(key, "%s", e->key);
}

/* ---- the build ---------------------------------------------------------- */

/* The cached wheel in dir, or NULL. */
static char *wheel_in(const char *dir) {
  char *found = NULL, *name = NULL;
  size_t len = 0;
  if (read_small(dir, "WHEEL-NAME", &name, &len) && !memchr(name, '/', len)) {
    name[strcspn(name, "\n")] = '\0';
    char *path = ts_path_join(dir, name);
    if (access(path, R_OK) == 0)
      found = path;
    else
      free(path);
  }
  free(name);
  return found;
}

/* Moves the built wheel into the cache entry (another process may have
 * stored the same one first: then its copy is used). */
static void store(const char *entry, const char *built_dir, const char *basename,
                  const char *build_env, char **wheel) {
  char *parent = ts_xstrdup(entry);
  *strrchr(parent, '/') = '\0';
  struct ts_error ignore = {0};
  ts_fs_mkdirs(parent, &ignore);
  char *namefile = ts_path_join(built_dir, "WHEEL-NAME");
  if (build_env)
    write_small(built_dir, "BUILD-ENV", build_env, strlen(build_env));
  if (ts_fs_write_atomic(namefile, basename, strlen(basename), &ignore) == TS_OK &&
      rename(built_dir, entry) == 0) {
    free(*wheel);
    *wheel = ts_path_join(entry, basename);
  } else {
    char *have = wheel_in(entry);
    if (have) {
      free(*wheel);
      *wheel = have;
    }
  }
  free(namefile);
  free(parent);
}

/* The build requirements: [build-system]'s and the runtime torch pin. */
static char **build_requires(const struct ts_build_system *bs, const struct torch_match *tm,
                             size_t *n) {
  char **reqs = ts_xcalloc(bs->nrequires + 1, sizeof *reqs);
  for (size_t i = 0; i < bs->nrequires; i++) /* requires is NULL when there are none */
    reqs[i] = bs->requires[i];
  *n = bs->nrequires;
  if (tm->pin)
    reqs[(*n)++] = tm->pin;
  return reqs;
}

/* The cache asked before anything is unpacked or made: the wheel's entry
 * from the remembered inputs (NULL when there are none); *tm is the torch
 * match it was made with. */
static enum ts_code recalled_entry(const struct ts_source_build_options *o,
                                   const struct ts_target *target,
                                   const struct ts_source_spec *src, const char *k0,
                                   struct ts_hook_env *he, const char *source_hash,
                                   const char *what, struct torch_match *tm, char **entry,
                                   struct ts_error *err) {
  struct ts_build_system mbs;
  *entry = NULL;
  if (!recall_inputs(k0, &mbs))
    return TS_OK;
  enum ts_code rc = match_torch(o, src, &mbs, NULL, true, tm, err);
  if (rc == TS_OK) {
    size_t n = 0;
    char **reqs = build_requires(&mbs, tm, &n);
    he->extra_env = (const char *const *)tm->env;
    he->nextra_env = tm->nenv;
    *entry = wheel_entry_for(o, target, he, source_hash, reqs, n, tm->version != NULL, what);
    free(reqs);
  }
  ts_build_system_clear(&mbs);
  return rc;
}

enum goal { GOAL_WHEEL, GOAL_METADATA, GOAL_ENV };

/* The build environment a cached wheel was built in (BUILD-ENV beside
 * it), else `env`'s lines. */
static char *cached_build_env(const char *entry, struct envset *env) {
  char *text = NULL;
  size_t len = 0;
  return read_small(entry, "BUILD-ENV", &text, &len) ? text : envset_text(env);
}

/* The interpreter that builds for a target without one (--python-version):
 * pythonX.Y on PATH, of the target's implementation and this host's
 * platform, as uv builds with another installed interpreter of the
 * target's version.  TS_E_UNSUPPORTED with the fix when there is none. */
static enum ts_code builder_for(const struct ts_source_build_options *o,
                                const struct ts_target *t, const char *location,
                                struct ts_target **out, struct ts_error *err) {
  char name[32];
  snprintf(name, sizeof name, "python%d.%d", t->python_major, t->python_minor);
  struct ts_error ignore = {0};
  struct ts_target *b = NULL;
  *out = NULL;
  bool fits = ts_target_open(name, NULL, o->probe_cache_dir, &b, &ignore) == TS_OK &&
              b->python_major == t->python_major && b->python_minor == t->python_minor &&
              same_str(b->implementation, t->implementation) &&
              same_str(b->abi_flags, t->abi_flags) &&
              same_str(b->markers.sys_platform, t->markers.sys_platform) &&
              same_str(b->tag_arch, t->tag_arch);
  if (!fits) {
    ts_target_free(b);
    return ts_error_set(err, TS_E_UNSUPPORTED,
                        "'%s' must be built, which needs a Python %d.%d interpreter of this "
                        "platform, and there is no %s on PATH that is one; fix: install "
                        "Python %d.%d, drop --python-version, or install a wheel",
                        location, t->python_major, t->python_minor, name, t->python_major,
                        t->python_minor);
  }
  *out = b;
  return TS_OK;
}

static enum ts_code run_with(const struct ts_source_build_options *o,
                             const struct ts_target *target, struct ts_index *idx,
                             const struct ts_source_spec *src, enum goal goal,
                             struct ts_source_built *out, char **meta, size_t *meta_len,
                             struct ts_error *err);

/* One build: from the cache, or the backend run in its environment, with
 * the target's interpreter (a target without one: builder_for's).
 * GOAL_METADATA stops at prepare_metadata_for_build_wheel (building the
 * wheel only when the backend lacks that hook) and sets *meta; GOAL_ENV
 * stops once the build environment is complete (get_requires_for_build_wheel
 * answered) and sets out->build_env. */
static enum ts_code run(const struct ts_source_build_options *o, const struct ts_target *target,
                        struct ts_index *idx, const struct ts_source_spec *src, enum goal goal,
                        struct ts_source_built *out, char **meta, size_t *meta_len,
                        struct ts_error *err) {
  memset(out, 0, sizeof *out);
  size_t depth = 0;
  for (const struct ts_source_build_link *l = o->building; l; l = l->outer, depth++)
    if (src->name && l->name && ts_name_eq(src->name, strlen(src->name), l->name,
                                           strlen(l->name)))
      return ts_error_set(err, TS_E_BUILD, "%s is already being built: %s from %s",
                          l->location, src->name, l->location);
  if (depth >= TS_SOURCE_BUILD_MAX_NESTING)
    return ts_error_set(err, TS_E_BUILD, "%s: its build requirements nest sdist builds "
                        "deeper than %d; install a wheel of one of them",
                        src->label ? src->label : src->location, TS_SOURCE_BUILD_MAX_NESTING);
  /* the builds its environment needs are nested in this one */
  struct ts_source_build_link link = {src->name, src->location, o->building};
  struct ts_source_build_options nested = *o;
  nested.building = &link;
  if (target->python)
    return run_with(&nested, target, idx, src, goal, out, meta, meta_len, err);
  struct ts_target *builder = NULL;
  enum ts_code rc = builder_for(&nested, target, src->location, &builder, err);
  if (rc == TS_OK)
    rc = run_with(&nested, builder, idx, src, goal, out, meta, meta_len, err);
  ts_target_free(builder);
  return rc;
}

/* The work directory of one build (out->workdir) and its log's path
 * (out->log): under the cache root, else the temporary folder. */
static enum ts_code make_workdir(const struct ts_source_build_options *o,
                                 struct ts_source_built *out, struct ts_error *err) {
  char *scratch = o->cache_root ? ts_path_join(o->cache_root, "builds-v1/work")
                                : ts_xstrdup(ts_fs_temp_dir());
  char *logs = o->cache_root ? ts_path_join(o->cache_root, "build-logs-v1")
                             : ts_xstrdup(ts_fs_temp_dir());
  enum ts_code rc = ts_fs_mkdirs(scratch, err);
  if (rc == TS_OK)
    rc = ts_fs_mkdirs(logs, err);
  if (rc == TS_OK) {
    char *tmpl = ts_path_join(scratch, "torchsolve-build-XXXXXX");
    if (mkdtemp(tmpl)) {
      out->workdir = tmpl;
      out->log = ts_xasprintf("%s/%s.log", logs, strrchr(tmpl, '/') + 1);
    } else {
      rc = ts_error_set(err, TS_E_IO, "cannot create a build directory in '%s': %s",
                        scratch, strerror(errno));
      free(tmpl);
    }
  }
  free(scratch);
  free(logs);
  return rc;
}

/* One build's state, from run_with's start to build_run_clear. */
struct build_run {
  const struct ts_source_build_options *o;
  const struct ts_target *target;
  struct ts_index *idx;
  const struct ts_source_spec *src;
  enum goal goal;
  struct ts_source_built *out;
  char **meta;
  size_t *meta_len;
  const char *what;        /* the source, for messages */
  char *label;             /* what the build callbacks are told */
  const char *source_hash; /* out's, or "-" */
  struct ts_hook_env he;
  struct located l;
  struct ts_build_system bs;
  struct ts_hook_result hr, built;
  struct torch_match tm;
  char **reqs;             /* the static build requirements (tm's pin added) */
  size_t nreqs;
  char *envdir, *env_python, *bindir; /* the build environment, or NULL */
  struct envset env;       /* what it holds */
  struct text k0key, key;  /* the source's inputs; the wheel's (environment too) */
  char *k0, *entry;        /* their entries under builds-v1, or NULL */
  const struct kept_env *kept; /* this run's environment for the source, or NULL */
  bool cacheable, done, reused, kept_tree, began;
};

/* The source located, and the cache asked first: a hit makes no build
 * environment and unpacks nothing (r->done). */
static enum ts_code recall_cached(struct build_run *r, struct ts_error *err) {
  const struct ts_source_build_options *o = r->o;
  enum ts_code rc = locate(o, r->idx, r->src, r->cacheable, r->out, &r->l, err);
  r->source_hash = r->out->source_hash ? r->out->source_hash : "-";
  if (rc == TS_OK && r->cacheable) {
    source_inputs(&r->k0key, o, r->target, r->source_hash);
    r->cacheable = !r->k0key.full;
  }
  if (rc != TS_OK || !r->cacheable)
    return rc;
  r->k0 = entry_path(o->cache_root, &r->k0key);
  if (r->goal == GOAL_METADATA && read_small(r->k0, "METADATA", r->meta, r->meta_len))
    r->done = true;
  if (!r->done && !o->locked_env)
    rc = recalled_entry(o, r->target, r->src, r->k0, &r->he, r->source_hash, r->what, &r->tm,
                        &r->entry, err);
  char *hit = r->entry ? wheel_in(r->entry) : NULL;
  if (hit) {
    r->out->wheel = hit;
    r->out->cached = r->done = true;
    size_t ignore = 0;
    read_small(r->entry, "BUILD-ENV", &r->out->build_env, &ignore);
    if (r->goal == GOAL_METADATA)
      rc = wheel_metadata(r->idx, hit, r->meta, r->meta_len, err);
  } else {
    torch_match_clear(&r->tm); /* made again below, with the tree */
    r->he.extra_env = NULL;
    r->he.nextra_env = 0;
  }
  return rc;
}

/* The tree and environment its metadata was prepared in, this run. */
static void find_kept(struct build_run *r) {
  r->kept = !r->done && r->cacheable && !r->o->locked_env ? kept_find(r->o->kept, r->k0)
                                                          : NULL;
  if (r->kept && !r->l.tree) {
    r->l.tree = ts_xstrdup(r->kept->tree);
    r->kept_tree = true;
    if (r->out->source_size < 0)
      r->out->source_size = r->kept->source_size;
  }
}

/* The source tree unpacked, its [build-system] read, the torch build it
 * is built against matched, and its static build requirements. */
static enum ts_code prepare_tree(struct build_run *r, struct ts_error *err) {
  enum ts_code rc = unpack(r->idx, r->src, r->out, &r->he, &r->l, err);
  if (rc == TS_OK)
    rc = ts_build_system_read(r->l.tree, &r->bs, err);
  if (rc == TS_OK)
    rc = match_torch(r->o, r->src, &r->bs, r->l.tree, isolated(r->o, r->src), &r->tm, err);
  if (rc == TS_OK && r->kept && !same_str(r->kept->torch, r->tm.version)) {
    /* made against another torch build: a tree and an environment of its own */
    r->kept = NULL;
    if (r->kept_tree) {
      free(r->l.tree);
      r->l.tree = NULL;
      rc = unpack(r->idx, r->src, r->out, &r->he, &r->l, err);
    }
  }
  if (rc == TS_OK) {
    r->reqs = build_requires(&r->bs, &r->tm, &r->nreqs);
    r->he.extra_env = (const char *const *)r->tm.env;
    r->he.nextra_env = r->tm.nenv;
  }
  return rc;
}

/* The build environment: the kept one, or a new venv filled with the
 * build requirements (or the lock's); then the cache asked again, now
 * that the wheel's key (environment included) is known. */
static enum ts_code make_env(struct build_run *r, struct ts_error *err) {
  const struct ts_source_build_options *o = r->o;
  enum ts_code rc = TS_OK;
  if (r->kept) {
    r->envdir = ts_xstrdup(r->kept->envdir);
    r->env_python = ts_path_join(r->envdir, "bin/python");
    r->bindir = ts_path_join(r->envdir, "bin");
    kept_adopt(r->kept, &r->env, &r->key);
    r->reused = true;
  } else if (isolated(o, r->src)) {
    r->envdir = ts_path_join(r->out->workdir, "env");
    struct ts_venv_base base = {0};
    rc = ts_venv_probe_base(r->target->python, &base, err);
    if (rc == TS_OK)
      rc = ts_venv_create(r->envdir, &base, "torchsolve build environment", err);
    ts_venv_base_clear(&base);
    r->env_python = ts_path_join(r->envdir, "bin/python");
    r->bindir = ts_path_join(r->envdir, "bin");
    struct text *key = r->cacheable ? &r->key : NULL;
    if (rc == TS_OK && key)
      key_inputs(key, o, &r->he, r->target, r->source_hash);
    if (rc == TS_OK)
      rc = o->locked_env ? fill_locked(o, r->idx, r->envdir, key, &r->env, err)
                         : fill_env(o, r->envdir, r->reqs, r->nreqs, r->what,
                                    r->tm.version != NULL, key, &r->env, err);
  }
  if (rc != TS_OK || !r->cacheable)
    return rc;
  remember_inputs(r->k0, &r->bs, r->tm.project);
  free(r->entry);
  r->entry = r->key.full ? NULL : entry_path(o->cache_root, &r->key);
  char *hit = r->entry ? wheel_in(r->entry) : NULL;
  if (hit) {
    r->out->wheel = hit;
    r->out->cached = r->done = true;
    r->out->build_env = cached_build_env(r->entry, &r->env);
    if (r->goal == GOAL_METADATA)
      rc = wheel_metadata(r->idx, hit, r->meta, r->meta_len, err);
  }
  return rc;
}

/* GOAL_METADATA: prepare_metadata_for_build_wheel, when the backend has
 * it (r->done then). */
static enum ts_code prepare_metadata(struct build_run *r, struct ts_error *err) {
  struct ts_hook_result pm = {0};
  char *mdir = ts_path_join(r->out->workdir, "metadata");
  enum ts_code rc = ts_fs_mkdirs(mdir, err);
  if (rc == TS_OK)
    rc = ts_hook_call(&r->he, &r->bs, TS_HOOK_PREPARE_METADATA_WHEEL, mdir, NULL, &pm, err);
  if (rc == TS_OK && !pm.unsupported) {
    char *distinfo = ts_path_join(mdir, pm.basename);
    if (!read_small(distinfo, "METADATA", r->meta, r->meta_len))
      rc = ts_error_set(err, TS_E_BUILD, "%s: prepare_metadata_for_build_wheel wrote "
                        "no %s/METADATA; full log: %s", r->what, pm.basename, r->out->log);
    free(distinfo);
    r->done = true;
  }
  ts_hook_result_clear(&pm);
  free(mdir);
  return rc;
}

/* build_wheel (build_editable): the wheel checked, stored in the cache
 * entry, and its metadata read for GOAL_METADATA. */
static enum ts_code build_wheel(struct build_run *r, struct ts_error *err) {
  struct ts_source_built *out = r->out;
  char *outdir = ts_path_join(out->workdir, "wheel");
  enum ts_code rc = ts_fs_mkdirs(outdir, err);
  if (rc == TS_OK)
    rc = ts_hook_call(&r->he, &r->bs,
                      r->src->editable ? TS_HOOK_BUILD_EDITABLE : TS_HOOK_BUILD_WHEEL,
                      outdir, NULL, &r->built, err);
  if (rc == TS_OK) {
    out->wheel = ts_path_join(outdir, r->built.basename);
    if (access(out->wheel, R_OK) != 0)
      rc = ts_error_set(err, TS_E_BUILD, "%s: the backend named '%s', which it did not "
                        "write; full log: %s", r->what, r->built.basename, out->log);
    else if (!has_suffix_ci(r->built.basename, ".whl"))
      rc = ts_error_set(err, TS_E_BUILD, "%s: the backend built '%s', not a wheel",
                        r->what, r->built.basename);
    if (rc == TS_OK && r->envdir)
      out->build_env = envset_text(&r->env);
    if (rc == TS_OK && r->entry)
      store(r->entry, outdir, r->built.basename, out->build_env, &out->wheel);
    if (rc == TS_OK && r->goal == GOAL_METADATA)
      rc = wheel_metadata(r->idx, out->wheel, r->meta, r->meta_len, err);
  }
  free(outdir);
  return rc;
}

/* The backend in its environment: the dynamic build requirements
 * installed, then metadata or the wheel, as far as the goal asks. */
static enum ts_code run_backend(struct build_run *r, struct ts_error *err) {
  const struct ts_source_build_options *o = r->o;
  r->he.python = r->env_python ? r->env_python : r->target->python;
  r->he.path_prepend = r->bindir;
  r->he.source_dir = r->l.tree;
  if (o->cb.build_begin)
    o->cb.build_begin(o->cb.ctx, r->label);
  r->began = true;
  /* a kept environment has what the backend asked for already */
  enum ts_code rc = r->reused ? TS_OK
                              : ts_hook_call(&r->he, &r->bs,
                                             r->src->editable ? TS_HOOK_GET_REQUIRES_EDITABLE
                                                              : TS_HOOK_GET_REQUIRES_WHEEL,
                                             NULL, NULL, &r->hr, err);
  if (rc == TS_OK && r->hr.nrequires && r->envdir && !o->locked_env) {
    /* the static and the dynamic requirements, resolved together */
    char **all = ts_xcalloc(r->nreqs + r->hr.nrequires, sizeof *all);
    memcpy(all, r->reqs, r->nreqs * sizeof *all);
    memcpy(all + r->nreqs, r->hr.requires, r->hr.nrequires * sizeof *all);
    rc = fill_env(o, r->envdir, all, r->nreqs + r->hr.nrequires, r->what,
                  r->tm.version != NULL, NULL, &r->env, err);
    free(all);
  }
  if (rc == TS_OK && r->goal == GOAL_ENV) {
    r->out->build_env = envset_text(&r->env);
    r->done = true;
  }
  if (rc == TS_OK && r->goal == GOAL_METADATA)
    rc = prepare_metadata(r, err);
  if (rc == TS_OK && !r->done)
    rc = build_wheel(r, err);
  return rc;
}

/* After the build (rc its outcome): what one source declares kept for the
 * next run's resolution, the environment kept for the wheel build, the
 * log removed unless the build failed, out's torch and build_env. */
static void finish_build(struct build_run *r, enum ts_code rc) {
  const struct ts_source_build_options *o = r->o;
  struct ts_source_built *out = r->out;
  if (rc == TS_OK && r->k0 && r->goal == GOAL_METADATA && !out->cached)
    write_small(r->k0, "METADATA", *r->meta, *r->meta_len);
  if (rc == TS_OK && r->k0 && r->goal == GOAL_WHEEL && !out->cached) {
    char *m = NULL;
    size_t ml = 0;
    struct ts_error ignore = {0};
    if (wheel_metadata(r->idx, out->wheel, &m, &ml, &ignore) == TS_OK)
      write_small(r->k0, "METADATA", m, ml);
    free(m);
  }
  if (rc == TS_OK && r->goal == GOAL_METADATA && r->cacheable && r->envdir && !r->reused &&
      r->k0 && o->kept && !out->cached)
    kept_put(o->kept, r->k0, r->tm.version, out, r->l.tree, r->envdir, envset_text(&r->env),
             &r->key);
  if (rc == TS_E_BUILD || rc == TS_E_TIMEOUT) {
    /* the work directory goes, the log stays for the user */
  } else if (out->log) {
    unlink(out->log);
    free(out->log);
    out->log = NULL;
  }
  if (rc == TS_OK && r->tm.version) {
    out->torch = r->tm.version;
    r->tm.version = NULL;
  }
  /* an isolated build with nothing to install still has its (empty) set */
  if (rc == TS_OK && !out->build_env && isolated(o, r->src))
    out->build_env = ts_xstrdup("");
}

static void build_run_clear(struct build_run *r) {
  torch_match_clear(&r->tm);
  envset_clear(&r->env);
  free(r->reqs);
  ts_hook_result_clear(&r->hr);
  ts_hook_result_clear(&r->built);
  ts_build_system_clear(&r->bs);
  ts_buf_clear(&r->k0key.b);
  ts_buf_clear(&r->key.b);
  located_clear(&r->l);
  free(r->label);
  free(r->envdir);
  free(r->env_python);
  free(r->bindir);
  free(r->k0);
  free(r->entry);
}

static enum ts_code run_with(const struct ts_source_build_options *o,
                             const struct ts_target *target, struct ts_index *idx,
                             const struct ts_source_spec *src, enum goal goal,
                             struct ts_source_built *out, char **meta, size_t *meta_len,
                             struct ts_error *err) {
  memset(out, 0, sizeof *out);
  out->kind = src->kind;
  out->source_size = -1;
  if (goal == GOAL_ENV && !isolated(o, src))
    return TS_OK; /* built in the target: no environment of its own */
  if (src->editable && src->kind != TS_SOURCE_DIR)
    return ts_error_set(err, TS_E_INVALID,
                        "-e '%s': editable installs need a local project directory",
                        src->location);
  enum ts_code rc = make_workdir(o, out, err);
  if (rc != TS_OK)
    return rc;

  struct build_run r = {.o = o, .target = target, .idx = idx, .src = src, .goal = goal,
                        .out = out, .meta = meta, .meta_len = meta_len};
  r.he = (struct ts_hook_env){.python = target->python, .runner = o->runner,
                              .log_path = out->log, .config_settings = o->config_settings,
                              .nconfig_settings = o->nconfig_settings,
                              .timeout_s = o->timeout_s, .stream = o->stream,
                              .cancel = o->cancel};
  ts_buf_init(&r.k0key.b, 1u << 20);
  ts_buf_init(&r.key.b, 1u << 20);
  r.cacheable = o->cache_root && !src->editable && isolated(o, src);
  r.what = src->label ? src->label : src->location;
  r.label = goal == GOAL_METADATA ? ts_xasprintf("metadata of %s", r.what)
            : goal == GOAL_ENV    ? ts_xasprintf("build environment of %s", r.what)
                                  : ts_xstrdup(r.what);
  double t0 = ts_now_ms();

  rc = recall_cached(&r, err);
  find_kept(&r);
  if (rc == TS_OK && !r.done)
    rc = prepare_tree(&r, err);
  if (rc == TS_OK && !r.done)
    rc = make_env(&r, err);
  if (rc == TS_OK && !r.done && goal != GOAL_ENV)
    rc = check_nvcc(&r.tm, target, r.envdir, o->ignore_host, &o->cb, err);
  if (rc == TS_OK && !r.done)
    rc = run_backend(&r, err);
  if (r.began && o->cb.build_end)
    o->cb.build_end(o->cb.ctx, r.label, ts_now_ms() - t0, rc == TS_OK);
  finish_build(&r, rc);
  build_run_clear(&r);
  return rc;
}

enum ts_code ts_source_build(const struct ts_source_build_options *o,
                           const struct ts_target *target, struct ts_index *idx,
                           const struct ts_source_spec *src, struct ts_source_built *out,
                           struct ts_error *err) {
  return run(o, target, idx, src, GOAL_WHEEL, out, NULL, NULL, err);
}

enum ts_code ts_source_build_metadata(const struct ts_source_build_options *o,
                                    const struct ts_target *target, struct ts_index *idx,
                                    const struct ts_source_spec *src, char **data,
                                    size_t *len, char **log, struct ts_error *err) {
  struct ts_source_built b;
  *data = NULL;
  *len = 0;
  *log = NULL;
  enum ts_code rc = run(o, target, idx, src, GOAL_METADATA, &b, data, len, err);
  if (rc != TS_OK) {
    free(*data);
    *data = NULL;
    *log = b.log;
    b.log = NULL;
  }
  ts_source_built_clear(&b);
  return rc;
}

enum ts_code ts_source_build_env(const struct ts_source_build_options *o,
                               const struct ts_target *target, struct ts_index *idx,
                               const struct ts_source_spec *src, char **build_env, char **log,
                               struct ts_error *err) {
  struct ts_source_built b;
  *build_env = NULL;
  *log = NULL;
  enum ts_code rc = run(o, target, idx, src, GOAL_ENV, &b, NULL, NULL, err);
  if (rc == TS_OK) {
    *build_env = b.build_env;
    b.build_env = NULL;
  } else {
    *log = b.log;
    b.log = NULL;
  }
  ts_source_built_clear(&b);
  return rc;
}
