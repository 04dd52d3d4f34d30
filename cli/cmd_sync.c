/*
 * torchsolve sync LOCKFILE [--python PATH] [--dry-run] [index options]
 *                          [GPU options]
 *
 * Makes an environment exactly a pylock.toml for its interpreter: plans
 * with lock/syncplan.h, refuses builds the host cannot run (rules), then
 * fetches and verifies every wheel BEFORE touching the environment (the
 * cache, else a download hashed while streaming), installs in one
 * transaction (wheel/wheel.h) and removes what the lock does not list.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "cli/cli.h"
#include "cli/gpu_options.h"
#include "cli/index_options.h"
#include "core/buf.h"
#include "core/filehash.h"
#include "core/fs.h"
#include "core/sha256.h"
#include "core/str.h"
#include "index/cache.h"
#include "index/client.h"
#include "index/url.h"
#include "lock/envcheck.h"
#include "lock/pylock.h"
#include "lock/syncplan.h"
#include "pep/version.h"
#include "plan/plan.h"
#include "rules/rules.h"
#include "target/target.h"
#include "wheel/wheel.h"

static void usage(FILE *out) {
  fprintf(out,
          "usage: torchsolve sync LOCKFILE [--python PATH] [--dry-run] [--offline]\n"
          "                       [--ignore-host] [index options] [GPU options]\n"
          "\n"
          "Makes a virtual environment exactly what a PEP 751 lock file (pylock.toml,\n"
          "from torchsolve lock, pip lock or uv export) says for its interpreter:\n"
          "installs what is missing, changes what differs and removes what the lock\n"
          "does not list (like 'uv sync', pip and setuptools included unless locked).\n"
          "Packages whose marker is false for the interpreter are skipped; of each\n"
          "package's wheels, the one whose tags the interpreter ranks best is used.\n"
          "Every wheel is verified against the lock's sha256 before the environment\n"
          "is touched; on any failure the environment is left as it was.\n"
          "A lock whose builds this host cannot run (a CUDA variant newer than the\n"
          "driver, a ROCm build for other GPUs: the rules of rules.yaml) is refused\n"
          "unless --ignore-host.\n"
          "\n"
          "  --python PATH         interpreter or venv (default: $TORCHSOLVE_PYTHON,\n"
          "                        $VIRTUAL_ENV, ./.venv)\n"
          "  -n, --dry-run         print the plan on stdout, change nothing: one line\n"
          "                        per package, as install --dry-run: action name\n"
          "                        version variant index, (was OLD) for a change\n"
          "  --link-mode MODE      hardlink (default), copy or clone\n"
          "  --compile             byte-compile installed .py files\n"
          "  --no-wait             when another torchsolve is changing the\n"
          "                        environment, exit 6 instead of waiting for it\n"
          "  --break-system-packages  sync an interpreter its distribution manages\n"
          "                        (PEP 668 EXTERNALLY-MANAGED) anyway\n"
          "  -h, --help            this help\n"
          "\nIndex options (authentication, certificates, cache):\n%s\n",
          ts_index_cli_help);
  ts_gpu_options_help(out);
  fprintf(out,
          "\nExit status: 0 in sync, 1 install failure, 3 network or --offline miss,\n"
          "4 a hash mismatch, 5 the host cannot run the lock, 6 --no-wait and\n"
          "another torchsolve is changing the environment, 2 usage error.\n"
          "\nExamples:\n"
          "  torchsolve sync pylock.toml --python .venv\n"
          "  torchsolve sync pylock.toml --dry-run\n"
          "  torchsolve sync pylock.toml --offline      # from the cache only\n");
}

/* sha256 of a file into hex[65]; false when it cannot be read.  Always
 * read, never from the stat memo: sync verifies every byte it installs. */
static bool hash_file(const char *path, char hex[65], uint8_t digest[32]) {
  if (ts_filehash_path(path, NULL, digest, NULL, NULL) != TS_OK)
    return false;
  ts_sha256_hex(digest, hex);
  return true;
}

struct fetch {
  const struct ts_sync_item *item;
  char *path;          /* verified local file */
  uint8_t digest[32];
  bool ready;
};

static double now_s(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

/* One status line for the downloads, redrawn at most 10 times a second,
 * only on a terminal (nothing of it reaches a pipe). */
struct bar {
  bool on;
  size_t n;
  uint64_t *done, *total;
  double last;
  bool drawn;
};
struct bar_slot {
  struct bar *b;
  size_t i;
};

static void bar_draw(struct bar *b, bool force) {
  double t = now_s();
  if (!force && t - b->last < 0.1)
    return;
  b->last = t;
  uint64_t d = 0, tot = 0;
  for (size_t i = 0; i < b->n; i++) {
    d += b->done[i];
    tot += b->total[i];
  }
  fprintf(stderr, "\r\033[KDownloading %zu wheel%s  %.1f/%.1f MB", b->n,
          b->n == 1 ? "" : "s", (double)d / 1e6, (double)tot / 1e6);
  fflush(stderr);
  b->drawn = true;
}

static void on_progress(void *ctx, uint64_t done, uint64_t total) {
  struct bar_slot *s = ctx;
  s->b->done[s->i] = done;
  if (total)
    s->b->total[s->i] = total;
  bar_draw(s->b, false);
}

/* One line per change, after the transaction, so that nothing reads as
 * done when a download or a hash check failed. */
static void print_changes(const struct ts_sync_plan *plan) {
  for (size_t i = 0; i < plan->n; i++) {
    const struct ts_sync_item *it = &plan->items[i];
    if (it->action == TS_SYNC_INSTALL)
      ts_cli_info(" + %s==%s", it->name, it->new_version);
    else if (it->action == TS_SYNC_CHANGE)
      ts_cli_info(" ~ %s %s -> %s", it->name, it->old_version, it->new_version);
    else if (it->action == TS_SYNC_REMOVE)
      ts_cli_info(" - %s==%s", it->name, it->old_version);
  }
}

/* upgrade or downgrade, as install --dry-run names a change */
static const char *change_name(const struct ts_sync_item *it) {
  struct ts_version *a = NULL, *b = NULL;
  const char *what = "change"; /* versions that do not parse */
  if (ts_version_parse(it->old_version, strlen(it->old_version), &a, NULL) == TS_OK &&
      ts_version_parse(it->new_version, strlen(it->new_version), &b, NULL) == TS_OK) {
    int c = ts_version_cmp(b, a);
    what = c > 0 ? "upgrade" : c < 0 ? "downgrade" : "reinstall";
  }
  ts_version_free(a);
  ts_version_free(b);
  return what;
}

/* --dry-run: the plan on standard output in install --dry-run's shape, one
 * line per package: action name version variant source, and (was OLD) for
 * a change of what is installed; the source is the lock's index, or "-". */
static void print_plan(const struct ts_sync_plan *plan) {
  for (size_t i = 0; i < plan->n; i++) {
    const struct ts_sync_item *it = &plan->items[i];
    const char *version = it->action == TS_SYNC_REMOVE ? it->old_version : it->new_version;
    const char *plus = strchr(version, '+');
    const char *action = it->action == TS_SYNC_INSTALL  ? "install"
                         : it->action == TS_SYNC_KEEP   ? "keep"
                         : it->action == TS_SYNC_REMOVE ? "remove"
                                                        : change_name(it);
    char *index = it->pkg && it->pkg->index ? ts_url_without_userinfo(it->pkg->index) : NULL;
    printf("%s %s %s %s %s", action, it->name, version, plus ? plus + 1 : "-",
           index ? index : "-");
    if (it->action == TS_SYNC_CHANGE)
      printf(" (was %s)", it->old_version);
    putchar('\n');
    free(index);
  }
  fflush(stdout);
}

/* Refuses the lock when the selected builds break a rule on this host. */
static int host_gate(const struct ts_gpu_options *g, const struct ts_pylock *lock,
                     const struct ts_sync_plan *plan) {
  struct ts_error err = {0};
  struct ts_rules *rules = NULL;
  struct ts_host h;
  struct ts_constraint_set s;
  if (ts_gpu_rules(g, &rules, &err) != TS_OK)
    return ts_cli_report(&err);
  if (ts_gpu_host(g, &h, &err) != TS_OK) {
    ts_rules_free(rules);
    return ts_cli_report(&err);
  }
  struct ts_rules_options ro = {.ignore_host = false};
  int st = 0;
  if (ts_rules_compile(rules, &h, &ro, &s, &err) != TS_OK) {
    st = ts_cli_report(&err);
    goto out;
  }
  struct ts_installed *pk = calloc(plan->n ? plan->n : 1, sizeof *pk);
  if (!pk)
    abort();
  size_t n = 0;
  for (size_t i = 0; i < plan->n; i++)
    if (plan->items[i].action != TS_SYNC_REMOVE)
      pk[n++] = (struct ts_installed){plan->items[i].name, plan->items[i].new_version};
  struct ts_rules_finding *f = NULL;
  size_t nf = 0;
  if (ts_rules_check_installed(&s, pk, n, &f, &nf, &err) != TS_OK) {
    st = ts_cli_report(&err);
  } else if (nf) {
    for (size_t i = 0; i < nf; i++) {
      fprintf(stderr, "%s: %s (rule %s)\n  %s\n", f[i].subject, f[i].detail,
              f[i].id, f[i].message);
      if (f[i].fix)
        fprintf(stderr, "  fix: %s\n", f[i].fix);
    }
    for (size_t i = 0; i < lock->nhost_facts; i++)
      fprintf(stderr, "  locked for %s = %s\n", lock->host_facts[i].key,
              lock->host_facts[i].value);
    ts_error_set(&err, TS_E_HOST,
                 "this host cannot run the lock (%zu broken rule%s); "
                 "pass --ignore-host to sync anyway", nf, nf == 1 ? "" : "s");
    st = ts_cli_report(&err);
  }
  ts_rules_findings_free(f, nf);
  free(pk);
  ts_constraint_set_clear(&s);
out:
  ts_host_free(&h);
  ts_rules_free(rules);
  return st;
}

/* Every wheel of the plan as a verified local file, or an exit status. */
static int fetch_all(struct ts_index_cli *ic, const char *lock_dir,
                     struct fetch *fx, size_t nfx, char **tmpdir) {
  struct ts_error err = {0};
  bool offline = ic->opts.cache_mode == TS_CACHE_OFFLINE;
  struct ts_index *idx = ts_index_new(&ic->opts, &err);
  if (!idx)
    return ts_cli_report(&err);
  const char *root = ts_index_cache_dir(idx);
  if (!root) {
    char tmpl[] = "/tmp/torchsolve-sync-XXXXXX";
    if (!mkdtemp(tmpl)) {
      ts_index_free(idx);
      ts_error_set(&err, TS_E_IO, "cannot create a temporary directory: %s",
                   strerror(errno));
      return ts_cli_report(&err);
    }
    *tmpdir = ts_xstrdup(tmpl);
    root = *tmpdir;
  }
  struct ts_index_download *dl = calloc(nfx ? nfx : 1, sizeof *dl);
  size_t *dl_of = calloc(nfx ? nfx : 1, sizeof *dl_of);
  if (!dl || !dl_of)
    abort();
  size_t ndl = 0;
  struct ts_buf missing;
  ts_buf_init(&missing, 1u << 20);
  size_t nmissing = 0;
  int st = 0;
  for (size_t i = 0; i < nfx && !st; i++) {
    const struct ts_sync_item *it = fx[i].item;
    const struct ts_pylock_file *w = it->wheel;
    char *fn0 = ts_pylock_file_decoded_name(w);
    char fname[1024];
    snprintf(fname, sizeof fname, "%s", fn0 ? fn0 : "wheel.whl");
    free(fn0);
    char hex[65];
    if (!w->url) { /* a path relative to the lock file */
      char *p = w->path[0] == '/' ? ts_xstrdup(w->path) : ts_path_join(lock_dir, w->path);
      if (!hash_file(p, hex, fx[i].digest)) {
        ts_error_set(&err, TS_E_NOT_FOUND, "%s: cannot read '%s'", it->name, p);
        free(p);
        st = ts_cli_report(&err);
        break;
      }
      if (strcmp(hex, it->sha256) != 0) {
        ts_error_set(&err, TS_E_HASH, "%s: '%s' has sha256 %s, the lock says %s",
                     it->name, p, hex, it->sha256);
        free(p);
        st = ts_cli_report(&err);
        break;
      }
      fx[i].path = p;
      fx[i].ready = true;
      continue;
    }
    char *dest = ts_cache_wheel_path(root, it->name, it->sha256, w->url, fname);
    if (!dest)
      abort();
    if (access(dest, F_OK) == 0) {
      if (hash_file(dest, hex, fx[i].digest) && strcmp(hex, it->sha256) == 0) {
        fx[i].path = dest;
        fx[i].ready = true;
        continue;
      }
      unlink(dest); /* corrupt cache entry: fetch it again */
    }
    if (offline) {
      if (ts_buf_printf(&missing, "%s%s", nmissing ? ", " : "", fname) != TS_OK)
        abort();
      nmissing++;
      free(dest);
      continue;
    }
    fx[i].path = dest;
    dl[ndl] = (struct ts_index_download){.url = w->url, .sha256 = it->sha256,
                                         .sha256_from = "the lock", .dest = dest};
    dl_of[ndl++] = i;
  }
  if (!st && nmissing) {
    ts_error_set(&err, TS_E_OFFLINE, "--offline: %zu wheel%s not in the cache: %s",
                 nmissing, nmissing == 1 ? "" : "s", missing.data);
    st = ts_cli_report(&err);
  }
  struct bar bar = {.on = ts_cli.verbosity >= 0 && isatty(STDERR_FILENO), .n = ndl};
  struct bar_slot *slots = NULL;
  if (!st && ndl && bar.on) {
    bar.done = calloc(ndl, sizeof *bar.done);
    bar.total = calloc(ndl, sizeof *bar.total);
    slots = calloc(ndl, sizeof *slots);
    if (!bar.done || !bar.total || !slots)
      abort();
    for (size_t i = 0; i < ndl; i++) {
      slots[i] = (struct bar_slot){&bar, i};
      dl[i].progress = on_progress;
      dl[i].progress_ctx = &slots[i];
      long long sz = fx[dl_of[i]].item->wheel->size;
      bar.total[i] = sz > 0 ? (uint64_t)sz : 0;
    }
  }
  if (!st && ndl) {
    double t0 = now_s();
    for (size_t i = 0; i < ndl; i++) {
      char *dir = ts_xstrdup(dl[i].dest);
      char *slash = strrchr(dir, '/');
      if (slash)
        *slash = '\0';
      if (ts_fs_mkdirs(dir, &err) != TS_OK) {
        free(dir);
        st = ts_cli_report(&err);
        break;
      }
      free(dir);
    }
    enum ts_code drc = st ? TS_OK : ts_index_download(idx, dl, ndl, &err);
    if (bar.drawn) {
      fputs("\r\033[K", stderr);
      fflush(stderr);
    }
    if (drc != TS_OK)
      st = ts_cli_report(&err);
    uint64_t bytes = 0;
    for (size_t i = 0; !st && i < ndl; i++) {
      if (dl[i].code != TS_OK) {
        st = ts_cli_report(&dl[i].err);
        break;
      }
      bytes += dl[i].bytes;
      struct fetch *f = &fx[dl_of[i]];
      if (ts_sha256_from_hex(dl[i].sha256_out, 64, f->digest) != TS_OK) {
        ts_error_set(&err, TS_E_INTERNAL, "bad digest from the download");
        st = ts_cli_report(&err);
        break;
      }
      f->ready = true;
    }
    if (!st)
      ts_cli_info("Downloaded %zu wheel%s (%.1f MB) in %.2fs", ndl,
                  ndl == 1 ? "" : "s", (double)bytes / 1e6, now_s() - t0);
  }
  ts_buf_free(&missing);
  free(bar.done);
  free(bar.total);
  free(slots);
  free(dl);
  free(dl_of);
  ts_index_free(idx);
  return st;
}

int ts_cmd_sync(int argc, char **argv) {
  struct ts_gpu_options g;
  struct ts_index_cli ic;
  ts_gpu_options_init(&g);
  ts_index_cli_init(&ic);
  const char *lockfile = NULL, *python = NULL;
  const char *link_mode = NULL;
  bool dry_run = false, compile = false, break_system = false, no_wait = false;
  enum ts_wheel_link_mode link = TS_WHEEL_LINK_HARDLINK;
  for (int i = 1; i < argc; i++) {
    const char *a = argv[i];
    int used = ts_gpu_options_parse(&g, "sync", argc, argv, &i);
    if (used < 0)
      return 2;
    if (used)
      continue;
    used = ts_index_cli_parse(&ic, "sync", argc, argv, &i);
    if (used < 0)
      return 2;
    if (used)
      continue;
    used = ts_cli_parse_global("sync", argc, argv, &i);
    if (used < 0)
      return 2;
    if (used)
      continue;
    if (strcmp(a, "-h") == 0 || strcmp(a, "--help") == 0) {
      usage(stdout);
      return 0;
    } else if (strcmp(a, "-n") == 0 || strcmp(a, "--dry-run") == 0) {
      dry_run = true;
    } else if (strcmp(a, "--compile") == 0) {
      compile = true;
    } else if (strcmp(a, "--no-wait") == 0) {
      no_wait = true;
    } else if (strcmp(a, "--break-system-packages") == 0) {
      break_system = true;
    } else if ((used = ts_cli_flag_value("--link-mode", argc, argv, &i, &link_mode)) != 0) {
      if (used < 0)
        return ts_cli_usage_error("sync", "--link-mode needs a value");
    } else if (strncmp(a, "--python=", 9) == 0) {
      python = a + 9;
    } else if (strcmp(a, "--python") == 0) {
      if (i + 1 >= argc)
        return ts_cli_usage_error("sync", "--python needs a value");
      python = argv[++i];
    } else if (a[0] == '-' && a[1]) {
      return ts_cli_usage_error("sync", "unknown argument '%s'", a);
    } else if (!lockfile) {
      lockfile = a;
    } else {
      return ts_cli_usage_error("sync", "one lock file only ('%s')", a);
    }
  }
  if (!lockfile)
    return ts_cli_usage_error("sync", "name the lock file (pylock.toml)");
  if (ts_gpu_options_env(&g) < 0 || ts_cli_link_mode("sync", link_mode, &link) < 0 ||
      ts_index_cli_finish(&ic, "sync") < 0)
    return 2;

  double t0 = now_s();
  struct ts_error err = {0};
  struct ts_pylock *lock = NULL;
  if (ts_pylock_read_file(lockfile, &lock, &err) != TS_OK)
    return ts_cli_report(&err);
  if (lock->newer_minor)
    ts_cli_warn("%s: lock-version %s is newer than 1.0; reading it as 1.0",
                lockfile, lock->lock_version);
  int st = 0;
  char *py = NULL, *headers = NULL, *tmpdir = NULL, *lock_dir = NULL, *cache = NULL;
  struct ts_target *t = NULL;
  struct ts_envcheck_result inst = {0};
  struct ts_sync_plan plan = {0};
  struct fetch *fx = NULL;
  size_t nfx = 0;
  int env_lock = -1;
  cache = ts_index_cli_cache_root(&ic);
  if (ts_target_locate(python, &py, &err) != TS_OK ||
      ts_target_probe(py, cache, &t, &err) != TS_OK) {
    st = ts_cli_report(&err);
    goto out;
  }
  if (!t->paths.purelib || !t->paths.prefix || !t->paths.scripts ||
      !t->paths.data || !t->paths.platlib) {
    ts_error_set(&err, TS_E_PYTHON, "'%s' reported no install paths", py);
    st = ts_cli_report(&err);
    goto out;
  }
  if (py[0] != '/') { /* launchers must name the venv's python */
    char *cwd = getcwd(NULL, 0);
    char *abs = ts_path_join(cwd ? cwd : ".", py);
    free(cwd);
    free(py);
    py = abs;
  }
  if (!dry_run && !break_system &&
      ts_plan_check_externally_managed(t, &err) != TS_OK) {
    st = ts_cli_report(&err);
    goto out;
  }
  /* The lock from reading the installed set to the commit: another
   * install or sync then runs wholly before or after this one. */
  struct ts_wheel_callbacks env_cb = ts_cli_env_callbacks();
  if (!dry_run && ts_wheel_lock_env(t->paths.purelib, t->paths.prefix, no_wait,
                                    &env_cb, &env_lock, &err) != TS_OK) {
    st = ts_cli_report(&err);
    goto out;
  }
  const char *dirs[2] = {t->paths.purelib, t->paths.platlib};
  if (ts_envcheck_run_dirs(dirs, 2, &t->markers, &inst, &err) != TS_OK) {
    st = ts_cli_report(&err);
    goto out;
  }
  struct ts_sync_installed *si = calloc(inst.ndists ? inst.ndists : 1, sizeof *si);
  if (!si)
    abort();
  for (size_t i = 0; i < inst.ndists; i++)
    si[i] = (struct ts_sync_installed){inst.dists[i].name, inst.dists[i].version};
  enum ts_code rc = ts_sync_plan_make(lock, &t->markers, t->tags, si,
                                      inst.ndists, &plan, &err);
  free(si);
  if (rc != TS_OK) {
    st = ts_cli_report(&err);
    goto out;
  }
  if (!g.ignore_host && (st = host_gate(&g, lock, &plan)) != 0)
    goto out;

  if (dry_run) {
    print_plan(&plan);
    ts_cli_info("Would install %zu, change %zu, remove %zu; %zu already in sync",
                plan.ninstall, plan.nchange, plan.nremove, plan.nkeep);
    goto out;
  }
  nfx = plan.ninstall + plan.nchange;
  fx = calloc(nfx ? nfx : 1, sizeof *fx);
  if (!fx)
    abort();
  for (size_t i = 0, k = 0; i < plan.n; i++)
    if (plan.items[i].action == TS_SYNC_INSTALL || plan.items[i].action == TS_SYNC_CHANGE)
      fx[k++].item = &plan.items[i];
  {
    const char *slash = strrchr(lockfile, '/');
    lock_dir = slash ? strndup(lockfile, (size_t)(slash - lockfile + (slash == lockfile)))
                     : ts_xstrdup(".");
    if (!lock_dir)
      abort();
  }
  if (nfx && (st = fetch_all(&ic, lock_dir, fx, nfx, &tmpdir)) != 0)
    goto out;

  /* Everything is verified: now the environment changes. */
  size_t hn = strlen(t->paths.data) + 64;
  headers = malloc(hn);
  if (!headers)
    abort();
  snprintf(headers, hn, "%s/include/site/python%d.%d", t->paths.data,
           t->python_major, t->python_minor);
  struct ts_wheel_paths wp = {.prefix = t->paths.prefix, .purelib = t->paths.purelib,
                              .platlib = t->paths.platlib, .scripts = t->paths.scripts,
                              .data = t->paths.data, .headers = headers, .python = py};
  /* Installs, changes and removals are one transaction: a failure, Ctrl-C
   * or SIGKILL leaves the environment as it was (or rolled forward by the
   * next run), never with the new packages in and the extraneous ones
   * still there. */
  const char **names = calloc(plan.nremove ? plan.nremove : 1, sizeof *names);
  if (!names)
    abort();
  size_t nnames = 0;
  for (size_t i = 0; i < plan.n; i++)
    if (plan.items[i].action == TS_SYNC_REMOVE)
      names[nnames++] = plan.items[i].name;
  struct ts_wheel_options wo = {.paths = &wp, .cancel = &ts_cli.interrupted,
                                .link_mode = link, .compile = compile,
                                .remove = names, .nremove = nnames,
                                .cache_dir = cache, .no_cache = cache == NULL,
                                .cb = env_cb, .env_locked = true};
  struct ts_wheel_result res = {0};
  if (nfx || nnames) {
    struct ts_wheel_request *rq = calloc(nfx ? nfx : 1, sizeof *rq);
    if (!rq)
      abort();
    for (size_t i = 0; i < nfx; i++)
      rq[i] = (struct ts_wheel_request){.path = fx[i].path, .sha256 = fx[i].digest,
                                        .requested = true};
    rc = ts_wheel_install(&wo, rq, nfx, &res, &err);
    free(rq);
    ts_wheel_result_free(&res);
    if (rc != TS_OK) {
      free(names);
      st = ts_cli_report(&err);
      goto out;
    }
  }
  free(names);
  print_changes(&plan);
  char el[32];
  ts_cli_info("Synced %zu package%s in %s: %zu installed, %zu changed, "
              "%zu removed, %zu unchanged",
              plan.n - plan.nremove, ts_cli_plural(plan.n - plan.nremove),
              ts_cli_elapsed((now_s() - t0) * 1e3, el), plan.ninstall, plan.nchange,
              plan.nremove, plan.nkeep);
out:
  for (size_t i = 0; i < nfx; i++)
    free(fx[i].path);
  free(fx);
  if (tmpdir) {
    struct ts_error e2 = {0};
    (void)ts_fs_remove_tree(tmpdir, &e2);
    free(tmpdir);
  }
  free(lock_dir);
  free(headers);
  free(cache);
  ts_sync_plan_clear(&plan);
  ts_envcheck_result_clear(&inst);
  ts_wheel_unlock_env(env_lock);
  ts_target_free(t);
  free(py);
  ts_pylock_free(lock);
  return st;
}
