/*
 * torchsolve lock [REQ...] [-r FILE]... [-c FILE]... [-o pylock.toml]
 *                 [--python PATH | --python-version X.Y [--platform PLAT]]
 *                 [index options] [GPU options]
 *
 * Resolves for one target (ts_plan_resolve: target + host + rules + index +
 * resolver) and writes a PEP 751 lock (lock/pylock.h): one wheel per
 * package, the one chosen for the target, with url, size, upload-time and
 * sha256; the target as `environments` and `requires-python`; the host
 * facts and the rule ids that concern the locked packages under
 * [tool.torchsolve].  The writer sorts everything, so the same inputs give
 * the same bytes.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cli/cli.h"
#include "cli/resolution_notes.h"
#include "cli/gpu_options.h"
#include "cli/index_options.h"
#include "core/buf.h"
#include "core/filehash.h"
#include "core/fs.h"
#include "core/sha256.h"
#include "lock/pylock.h"
#include "lock/reqfile.h"
#include "pep/metadata.h"
#include "pep/requirement.h"
#include "plan/plan.h"
#include "wheel/wheel.h"

static void usage(FILE *out) {
  fprintf(out,
          "usage: torchsolve lock [REQ...] [-r FILE]... [-c FILE]... [-o FILE]\n"
          "                       [--python PATH | --python-version X.Y [--platform PLAT]]\n"
          "                       [--pre] [index options] [GPU options]\n"
          "\n"
          "Resolves the requirements for one target and writes a PEP 751 lock file\n"
          "(pylock.toml): per package its name, version, index and the wheel chosen for\n"
          "the target (url, size, upload-time, sha256).  The target is recorded as\n"
          "`environments` and `requires-python`; the GPU facts the choice was made for\n"
          "and the ids of the rules that concern the locked packages are recorded\n"
          "under [tool.torchsolve], so that 'torchsolve sync' can refuse the lock on a\n"
          "machine that cannot run it.  The same inputs give identical bytes.\n"
          "\n"
          "  REQ                   a requirement (\"torch>=2.5\", \"pkg[extra]==1.0\")\n"
          "  -r, --requirement FILE  requirements file (repeatable)\n"
          "  -c, --constraint FILE   constraints file (repeatable)\n"
          "  -o, --output FILE     where to write (default pylock.toml; '-' = stdout)\n"
          "  --python PATH         lock for this interpreter or venv (default:\n"
          "                        $TORCHSOLVE_PYTHON, $VIRTUAL_ENV, then ./.venv)\n"
          "  --python-version X.Y  lock for an absent interpreter (no Python is run)\n"
          "  --platform PLAT       with --python-version: manylinux_2_28_x86_64...\n"
          "                        (default: like this host)\n"
          "  --pre                 allow pre-releases\n"
          "  -h, --help            this help\n"
          "\nIndex options:\n%s"
          "\n",
          ts_index_cli_help);
  ts_gpu_options_help(out);
  fprintf(out,
          "  (they describe the machine the lock is for: --cuda 12.6 etc. lock for\n"
          "  a GPU this machine does not have)\n"
          "\nExit status: 0 written, 1 no resolution or a failure, 2 usage error,\n"
          "3 network.\n"
          "\nExamples:\n"
          "  torchsolve lock torch torchvision -o pylock.toml\n"
          "  torchsolve lock -r requirements.txt --python-version 3.12 \\\n"
          "      --platform manylinux_2_28_x86_64 --cuda 12.6 -o pylock.toml\n"
          "  torchsolve sync pylock.toml --python .venv\n");
}

/* "sys_platform == "linux" and platform_machine == "x86_64" and ..." */
static char *environment_marker(const struct ts_target *t) {
  struct ts_buf b;
  ts_buf_init(&b, 4096);
  const struct ts_marker_env *m = &t->markers;
  if (ts_buf_printf(&b, "sys_platform == \"%s\" and platform_machine == \"%s\" "
                        "and implementation_name == \"%s\" and python_version == \"%s\"",
                    m->sys_platform ? m->sys_platform : "",
                    m->platform_machine ? m->platform_machine : "",
                    m->implementation_name ? m->implementation_name : "",
                    m->python_version ? m->python_version : "") != TS_OK)
    abort();
  return ts_buf_take(&b, NULL);
}

static bool ends_with(const char *s, const char *suffix) {
  size_t a = strlen(s), b = strlen(suffix);
  return a >= b && strcmp(s + a - b, suffix) == 0;
}

static int cmp_str(const void *a, const void *b) {
  return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/* `dependencies = [{name = ...}]`: the locked projects that r's metadata
 * requires on the target (with the extras it was resolved with), sorted,
 * so the lock can be read as a graph.  Best effort: unreadable metadata
 * gives no list. */
static void add_dependencies(struct ts_pylock_package *p, const struct ts_plan_item *pi,
                             const struct ts_resolution *res,
                             const struct ts_marker_env *env) {
  struct ts_metadata *md = NULL;
  struct ts_error err = {0};
  if (!pi->metadata || ts_metadata_parse(pi->metadata, pi->metadata_len, &md, &err) != TS_OK)
    return;
  const char **names = calloc(md->nrequires_dist ? md->nrequires_dist : 1, sizeof *names);
  char **owned = calloc(md->nrequires_dist ? md->nrequires_dist : 1, sizeof *owned);
  if (!names || !owned)
    abort();
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
    if (holds && locked && !dup && strcmp(req->normalized_name, r->name) != 0) {
      owned[n] = strdup(req->normalized_name);
      if (!owned[n])
        abort();
      names[n] = owned[n];
      n++;
    }
    ts_requirement_free(req);
  }
  if (n)
    qsort(names, n, sizeof *names, cmp_str);
  for (size_t i = 0; i < n; i++)
    if (ts_pylock_add_dependency(p, names[i]) != TS_OK)
      abort();
  for (size_t i = 0; i < n; i++)
    free(owned[i]);
  free(owned);
  free(names);
  ts_metadata_free(md);
}

static int hexval(char c) {
  return c >= '0' && c <= '9' ? c - '0'
         : c >= 'a' && c <= 'f' ? c - 'a' + 10
         : c >= 'A' && c <= 'F' ? c - 'A' + 10 : -1;
}

/* realpath() of the directory part of a path ("." when it has none);
 * NULL when it cannot be resolved. */
static char *real_dir_of(const char *path) {
  const char *slash = strrchr(path, '/');
  char *dir = slash ? strndup(path, (size_t)(slash - path) + (slash == path))
                    : strdup(".");
  if (!dir)
    abort();
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
    const char *p = given + 7;
    if (strncmp(p, "localhost/", 10) == 0)
      p += 9;
    char *out = malloc(strlen(p) + 1);
    if (!out)
      abort();
    size_t o = 0;
    for (size_t i = 0; p[i]; i++) {
      int hi, lo;
      if (p[i] == '%' && (hi = hexval(p[i + 1])) >= 0 && (lo = hexval(p[i + 2])) >= 0) {
        out[o++] = (char)(hi * 16 + lo);
        i += 2;
      } else {
        out[o++] = p[i];
      }
    }
    out[o] = '\0';
    return out;
  }
  char *copy = strdup(given);
  if (!copy)
    abort();
  if (given[0] == '/' || strcmp(output, "-") == 0)
    return copy;
  char *from = real_dir_of(output), *wdir = real_dir_of(given);
  const char *base = strrchr(given, '/');
  char *to = wdir ? ts_path_join(wdir, base ? base + 1 : given) : NULL;
  char *rel = ts_pylock_relative_path(from, to);
  free(from);
  free(wdir);
  free(to);
  if (!rel)
    return copy;
  free(copy);
  return rel;
}

/* Fills the lock from a resolution; an exit status on failure. */
static int fill_lock(struct ts_plan_result *res, struct ts_pylock *lock,
                     const char *output) {
  struct ts_error err = {0};
  const struct ts_target *t = res->target;
  char *env = environment_marker(t);
  lock->environments = calloc(1, sizeof *lock->environments);
  if (!lock->environments)
    abort();
  lock->environments[0] = env;
  lock->nenvironments = 1;
  char rp[64];
  snprintf(rp, sizeof rp, "==%d.%d.*", t->python_major, t->python_minor);
  if (!(lock->requires_python = strdup(rp)))
    abort();
  for (size_t i = 0; i < res->res->nitems; i++) {
    const struct ts_resolved *r = &res->res->items[i];
    const struct ts_plan_item *pi = &res->items[i];
    const struct ts_index_file *f = r->file;
    if (!f) {
      ts_error_set(&err, TS_E_INTERNAL, "%s %s: the resolution names no file",
                   r->name, r->version);
      return ts_cli_report(&err);
    }
    if (!ends_with(f->filename, ".whl")) {
      ts_error_set(&err, TS_E_UNSUPPORTED,
                   "%s %s: only an sdist (%s) fits the target; a lock needs wheels",
                   r->name, r->version, f->filename);
      return ts_cli_report(&err);
    }
    const char *sha = pi->user_sha256 ? pi->user_sha256 : f->sha256;
    char hex[65];
    if (!sha) { /* the index gave none: hash the file itself */
      char *path = NULL;
      if (ts_index_fetch_wheel(res->idx, f, &path, &err) != TS_OK)
        return ts_cli_report(&err);
      uint8_t d[TS_SHA256_LEN];
      enum ts_code hc = ts_filehash_path(path, NULL, d, NULL, &err);
      free(path);
      if (hc != TS_OK)
        return ts_cli_report(&err);
      ts_sha256_hex(d, hex);
      sha = hex;
      if (!ts_plan_item_hash_allowed(pi, sha)) {
        ts_error_set(&err, TS_E_HASH, "%s: its sha256 %s matches no --hash of "
                     "'%s'", f->filename, sha, pi->hashed_by->text);
        return ts_cli_report(&err);
      }
    }
    struct ts_pylock_package *p = ts_pylock_add_package(lock, r->name, r->version);
    if (!p)
      abort();
    add_dependencies(p, pi, res->res, &t->markers);
    const char *index = pi->index ? pi->index : r->index_url;
    if (index && !pi->is_path && strncmp(index, "file:", 5) != 0 && index[0] != '/') {
      char *clean = ts_plan_redact_url(index);
      p->index = clean;
    }
    struct ts_pylock_file *w;
    if (pi->is_path && pi->direct_url) {
      char *path = wheel_path(pi->direct_url, output);
      w = ts_pylock_add_wheel(p, f->filename, NULL, path, f->size, f->upload_time, sha);
      free(path);
    } else {
      char *url = ts_plan_redact_url(f->url);
      w = ts_pylock_add_wheel(p, f->filename, url, NULL, f->size, f->upload_time, sha);
      free(url);
    }
    if (!w) {
      ts_error_set(&err, TS_E_INVALID, "%s %s: cannot record the wheel %s",
                   r->name, r->version, f->filename);
      return ts_cli_report(&err);
    }
  }
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
  return 0;
}

struct args {
  struct ts_reqfile rf;
  struct ts_reqfile_entry **cli;
  size_t ncli;
};

static void args_free(struct args *a) {
  ts_reqfile_free(&a->rf);
  for (size_t i = 0; i < a->ncli; i++) {
    ts_reqfile_entry_clear(a->cli[i]);
    free(a->cli[i]);
  }
  free(a->cli);
}

int ts_cmd_lock(int argc, char **argv) {
  struct ts_gpu_options g;
  struct ts_index_cli ic;
  ts_gpu_options_init(&g);
  ts_index_cli_init(&ic);
  struct args a = {0};
  ts_reqfile_init(&a.rf);
  a.cli = calloc((size_t)argc, sizeof *a.cli);
  if (!a.cli)
    abort();
  const char *python = NULL, *pyver = NULL, *platform = NULL, *output = "pylock.toml";
  bool pre = false;
  struct ts_error err = {0};
  struct ts_reqfile_reader reader = {.read = ts_reqfile_read_real,
                                     .is_dir = ts_reqfile_is_dir_real};
  struct ts_reqfile_opts ropts = {.reader = &reader};
  int status = 0;
  bool opts_done = false;
  for (int i = 1; i < argc && !status; i++) {
    const char *s = argv[i], *v = NULL;
    if (!opts_done && s[0] == '-' && s[1]) {
      if (!strcmp(s, "--")) {
        opts_done = true;
        continue;
      }
      if (!strcmp(s, "--help") || !strcmp(s, "-h")) {
        usage(stdout);
        args_free(&a);
        return 0;
      }
      int used = ts_cli_parse_global("lock", argc, argv, &i);
      if (used == 0)
        used = ts_gpu_options_parse(&g, "lock", argc, argv, &i);
      if (used == 0)
        used = ts_index_cli_parse(&ic, "lock", argc, argv, &i);
      if (used < 0) {
        status = 2;
        break;
      }
      if (used)
        continue;
      if (!strcmp(s, "--pre")) {
        pre = true;
        continue;
      }
      static const char *const valued[] = {"--python", "--python-version", "--platform",
                                           "--requirement", "-r", "--constraint", "-c",
                                           "--output", "-o"};
      bool matched = false;
      for (size_t k = 0; k < sizeof valued / sizeof valued[0] && !matched; k++) {
        int m = ts_cli_flag_value(valued[k], argc, argv, &i, &v);
        if (m == 0)
          continue;
        matched = true;
        const char *f = valued[k];
        if (m < 0) {
          status = ts_cli_usage_error("lock", "%s needs a value", f);
          break;
        }
        if (!strcmp(f, "--python")) python = v;
        else if (!strcmp(f, "--python-version")) pyver = v;
        else if (!strcmp(f, "--platform")) platform = v;
        else if (!strcmp(f, "--output") || !strcmp(f, "-o")) output = v;
        else {
          bool cons = f[1] == 'c' || f[2] == 'c';
          if (ts_reqfile_add_file(&a.rf, v, cons, &ropts, &err) != TS_OK) {
            status = ts_cli_report(&err);
            if (!status)
              status = 1;
          }
        }
      }
      if (!matched)
        status = ts_cli_usage_error("lock", "unknown option '%s'", s);
      continue;
    }
    struct ts_reqfile_entry *e = calloc(1, sizeof *e);
    if (!e)
      abort();
    if (ts_reqfile_parse_requirement(s, strlen(s), &ropts, e, &err) != TS_OK) {
      free(e);
      status = ts_cli_usage_error("lock", "'%s': %s", s, err.detail);
      break;
    }
    a.cli[a.ncli++] = e;
  }
  if (!status && platform && !pyver)
    status = ts_cli_usage_error("lock", "--platform needs --python-version");
  if (!status && ts_gpu_options_env(&g) < 0)
    status = 2;
  if (status) {
    args_free(&a);
    return status;
  }
  ts_index_cli_apply_reqfile(&ic, &a.rf);
  pre = pre || a.rf.pre;
  if (ts_index_cli_finish(&ic, "lock") < 0) {
    args_free(&a);
    return 2;
  }

  size_t nent = a.ncli + a.rf.nentries, nroots = 0;
  const struct ts_reqfile_entry **ents = calloc(nent ? nent : 1, sizeof *ents);
  if (!ents)
    abort();
  for (size_t i = 0; i < a.ncli; i++)
    ents[i] = a.cli[i];
  for (size_t i = 0; i < a.rf.nentries; i++)
    ents[a.ncli + i] = &a.rf.entries[i];
  for (size_t i = 0; i < nent; i++)
    nroots += !ents[i]->is_constraint;
  if (nroots == 0) {
    free(ents);
    args_free(&a);
    return ts_cli_usage_error("lock", "nothing to lock: give REQ or -r FILE");
  }
  struct ts_host host;
  struct ts_rules *rules = NULL;
  g.ov.platform = platform; /* a lock for another machine records its facts */
  if (ts_gpu_host(&g, &host, &err) != TS_OK) {
    free(ents);
    args_free(&a);
    return ts_cli_report(&err);
  }
  if (ts_gpu_rules(&g, &rules, &err) != TS_OK) {
    ts_host_free(&host);
    free(ents);
    args_free(&a);
    return ts_cli_report(&err);
  }
  struct ts_target_spec spec = {.python_version = pyver, .platform = platform};
  char *cache = ts_index_cli_cache_root(&ic);
  struct ts_plan_options po = {
      .python = python, .spec = pyver ? &spec : NULL, .host = &host, .rules = rules,
      .ignore_host = g.ignore_host, .index = &ic.opts, .entries = ents,
      .nentries = nent, .resolution = TS_RESOLUTION_HIGHEST, .pre = pre,
      .read_installed = false, .probe_cache_dir = cache};
  struct ts_plan_result *res = NULL;
  enum ts_code rc = ts_plan_resolve(&po, &res, &err);
  if (rc == TS_E_RESOLVE && res && res->res) {
    status = ts_cli_report_explained(&err, res->res->why.lines, res->res->why.nlines);
  } else if (rc != TS_OK) {
    status = ts_cli_report(&err);
    if (!status)
      status = 1;
  } else {
    char el[32];
    ts_cli_info("Resolved %zu package%s in %s", res->res->nitems,
                ts_cli_plural(res->res->nitems), ts_cli_elapsed(res->resolve_ms, el));
    ts_cli_warn_resolution(res);
    struct ts_pylock *lock = ts_pylock_new();
    if (!lock)
      abort();
    status = fill_lock(res, lock, output);
    if (!status) {
      if (strcmp(output, "-") == 0) {
        struct ts_buf out;
        ts_buf_init(&out, TS_CAP_LOCKFILE);
        if (ts_pylock_write(lock, &out, &err) != TS_OK)
          status = ts_cli_report(&err);
        else if (out.len)
          fwrite(out.data, 1, out.len, stdout);
        ts_buf_free(&out);
      } else if (ts_pylock_write_file(lock, output, &err) != TS_OK) {
        status = ts_cli_report(&err);
      } else {
        ts_cli_info("Locked %zu package%s in %s", lock->npackages,
                    ts_cli_plural(lock->npackages), output);
      }
    }
    ts_pylock_free(lock);
  }
  ts_plan_result_free(res);
  free(cache);
  ts_rules_free(rules);
  ts_host_free(&host);
  free(ents);
  args_free(&a);
  return status;
}
