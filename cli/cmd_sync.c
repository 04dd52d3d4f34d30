/*
 * torchsolve sync LOCKFILE [--python PATH] [--dry-run] [index options]
 *                          [GPU options] [--profile NAME] [--extra NAME]...
 *                          [--all-extras] [--group NAME]... [--all-groups]
 *                          [--no-default-groups]
 *
 * Makes an environment exactly a pylock.toml for its interpreter.  The
 * work is plan/'s (ts_plan_sync_prepare: the changes and the host check;
 * ts_plan_sync_apply: every wheel verified before one transaction); this
 * file parses options, detects the host and prints.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/build_options.h"
#include "cli/cli.h"
#include "cli/gpu_options.h"
#include "cli/index_options.h"
#include "cli/progress.h"
#include "cli/select_options.h"
#include "cli/usage.h"
#include "core/str.h"
#include "lock/pylock.h"
#include "plan/dry_run.h"
#include "plan/plan.h"
#include "plan/profile_choice.h"
#include "rules/rules.h"

/* One line per change, after the transaction, so that nothing reads as
 * done when a download or a hash check failed. */
static void print_changes(const struct ts_sync_plan *plan) {
  for (size_t i = 0; i < plan->n; i++) {
    const struct ts_sync_item *it = &plan->items[i];
    const char *v = it->new_version ? it->new_version : "(built from its source)";
    if (it->action == TS_SYNC_INSTALL)
      ts_cli_info(" + %s==%s", it->name, v);
    else if (it->action == TS_SYNC_CHANGE)
      ts_cli_info(" ~ %s %s -> %s", it->name, it->old_version, v);
    else if (it->action == TS_SYNC_REMOVE)
      ts_cli_info(" - %s==%s", it->name, it->old_version);
  }
}

/* The rules the lock breaks on this host, and what it was locked for. */
static void print_findings(const struct ts_plan_sync *s, const struct ts_pylock *lock) {
  for (size_t i = 0; i < s->nfindings; i++) {
    const struct ts_rules_finding *f = &s->findings[i];
    fprintf(stderr, "%s: %s (rule %s)\n  %s\n", f->subject, f->detail, f->id, f->message);
    if (f->fix)
      fprintf(stderr, "  fix: %s\n", f->fix);
  }
  for (size_t i = 0; i < lock->nhost_facts; i++)
    fprintf(stderr, "  locked for %s = %s\n", lock->host_facts[i].key,
            lock->host_facts[i].value);
}

/* The profile of a fleet lock synced, and why better ones were passed
 * over; with none that runs, every profile's reason. */
static void print_profile(const struct ts_plan_sync *s, const char *forced) {
  if (!s->profile && !s->choice)
    return;
  if (!s->choice) {
    ts_cli_info("Profile %s (%s)", s->profile->name,
                forced ? "--profile" : "the lock's default; --ignore-host judges no host");
    return;
  }
  const struct ts_profile_choice *c = s->choice;
  if (c->chosen < c->n)
    ts_cli_info("Profile %s: the best of the lock's %zu profiles this host runs",
                c->v[c->chosen].profile->name, c->n);
  for (size_t i = 0; i < c->chosen && i < c->n; i++) {
    const struct ts_profile_verdict *v = &c->v[i];
    if (v->why) {
      ts_cli_info("  %s %s: %s", c->chosen < c->n ? "passed over" : "cannot use", v->profile->name,
                  v->why);
      continue;
    }
    for (size_t k = 0; k < v->nfindings; k++)
      ts_cli_info("  %s %s: %s: %s (rule %s)", c->chosen < c->n ? "passed over" : "cannot use",
                  v->profile->name, v->findings[k].subject, v->findings[k].detail,
                  v->findings[k].id);
  }
  for (size_t i = 0; i < c->n && c->chosen < c->n; i++) /* runs, but for other GPUs */
    if (c->v[i].fit == TS_PROFILE_FOR_OTHERS && !c->v[i].why && !c->v[i].nfindings)
      ts_cli_info("  %s %s: locked for %s, this host has %s",
                  i == c->chosen ? "taking" : "passed over", c->v[i].profile->name,
                  c->v[i].targets, c->v[i].host_targets);
}

/* --dry-run: what would change, nothing done. */
static void print_dry_run(const struct ts_sync_plan *plan) {
  struct ts_plan_notes lines = {0};
  ts_plan_sync_dry_run_lines(plan, &lines);
  for (size_t i = 0; i < lines.n; i++)
    puts(lines.lines[i]);
  fflush(stdout);
  ts_plan_notes_clear(&lines);
  ts_cli_info("Would install %zu, change %zu, remove %zu; %zu already in sync",
              plan->ninstall, plan->nchange, plan->nremove, plan->nkeep);
}

/* After the transaction: what was downloaded, changed, and the totals. */
static void print_synced(const struct ts_plan_sync *sync, double t0) {
  const struct ts_sync_plan *plan = &sync->plan;
  if (sync->downloaded.files)
    ts_cli_info("Downloaded %zu wheel%s (%.1f MB) in %.2fs", sync->downloaded.files,
                ts_cli_plural(sync->downloaded.files),
                (double)sync->downloaded.bytes / 1e6, sync->downloaded.ms / 1e3);
  print_changes(plan);
  char el[32];
  ts_cli_info("Synced %zu package%s in %s: %zu installed, %zu changed, "
              "%zu removed, %zu unchanged",
              plan->n - plan->nremove, ts_cli_plural(plan->n - plan->nremove),
              ts_cli_elapsed(ts_now_ms() - t0, el), plan->ninstall, plan->nchange,
              plan->nremove, plan->nkeep);
}

static int sync_main(int argc, char **argv, struct ts_build_cli *bc,
                     struct ts_select_cli *sel) {
  struct ts_gpu_options g;
  struct ts_index_cli ic;
  ts_gpu_options_init(&g);
  ts_index_cli_init(&ic);
  const char *lockfile = NULL, *python = NULL, *profile = NULL;
  const char *link_mode = NULL;
  bool dry_run = false, compile = false, break_system = false, no_wait = false;
  bool allow_overwrite = false, verify_cache = false;
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
    used = ts_build_cli_parse(bc, "sync", argc, argv, &i);
    if (used < 0)
      return 2;
    if (used)
      continue;
    used = ts_cli_parse_global("sync", argc, argv, &i);
    if (used == 0)
      used = ts_select_cli_parse(sel, "sync", argc, argv, &i);
    if (used < 0)
      return 2;
    if (used)
      continue;
    if (strcmp(a, "-h") == 0 || strcmp(a, "--help") == 0) {
      ts_cli_sync_help(stdout);
      return 0;
    } else if (strcmp(a, "-n") == 0 || strcmp(a, "--dry-run") == 0) {
      dry_run = true;
    } else if (strcmp(a, "--compile") == 0) {
      compile = true;
    } else if (strcmp(a, "--no-wait") == 0) {
      no_wait = true;
    } else if (strcmp(a, "--allow-overwrite") == 0) {
      allow_overwrite = true;
    } else if (strcmp(a, "--verify") == 0) {
      verify_cache = true;
    } else if (strcmp(a, "--break-system-packages") == 0) {
      break_system = true;
    } else if ((used = ts_cli_flag_value("--link-mode", argc, argv, &i, &link_mode)) != 0) {
      if (used < 0)
        return ts_cli_usage_error("sync", "--link-mode needs a value");
    } else if ((used = ts_cli_flag_value("--profile", argc, argv, &i, &profile)) != 0) {
      if (used < 0)
        return ts_cli_usage_error("sync", "--profile needs a value");
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

  double t0 = ts_now_ms();
  struct ts_error err = {0};
  struct ts_pylock *lock = NULL;
  if (ts_pylock_read_file(lockfile, &lock, &err) != TS_OK)
    return ts_cli_report(&err);
  if (lock->newer_minor)
    ts_cli_warn("%s: lock-version %s is newer than 1.0; reading it as 1.0",
                lockfile, lock->lock_version);
  const char *slash = strrchr(lockfile, '/');
  char *lock_dir = slash ? ts_xstrndup(lockfile, (size_t)(slash - lockfile + (slash == lockfile)))
                         : ts_xstrdup(".");
  struct ts_host host;
  struct ts_rules *rules = NULL;
  bool have_host = false;
  int st = 0;
  if (!g.ignore_host) {
    if (ts_gpu_rules(&g, &rules, &err) != TS_OK || ts_gpu_host(&g, &host, &err) != TS_OK) {
      st = ts_cli_report(&err);
      goto out;
    }
    have_host = true;
  }
  struct ts_cli_progress bars;
  ts_cli_progress_init(&bars, "wheels");
  char *cache = ts_index_cli_cache_root(&ic);
  struct ts_source_build_options bo;
  const struct ts_reqfile_entry **build_cons = NULL;
  ts_build_cli_options(bc, &ic.opts, cache, &bo, &build_cons);
  struct ts_plan_sync_options so = {
      .build = &bo, .variant_force = &g.variant_force,
      .lock = lock, .lock_dir = lock_dir, .python = python, .probe_cache_dir = cache,
      .index = &ic.opts, .host = have_host ? &host : NULL, .rules = rules, .profile = profile,
      .request = &sel->request,
      .dry_run = dry_run, .break_system_packages = break_system, .no_wait = no_wait,
      .allow_overwrite = allow_overwrite, .verify_cache = verify_cache,
      .link_mode = link,
      .compile = compile, .cancel = &ts_cli.interrupted,
      .cb = ts_cli_progress_callbacks(&bars)};
  struct ts_plan_sync *sync = NULL;
  enum ts_code rc = ts_plan_sync_prepare(&so, &sync, &err);
  print_profile(sync, profile);
  if (rc == TS_E_HOST)
    print_findings(sync, lock);
  if (rc != TS_OK) {
    st = ts_cli_report(&err);
  } else if (dry_run) {
    print_dry_run(&sync->plan);
  } else if (ts_plan_sync_apply(sync, &so, &err) != TS_OK) {
    st = ts_cli_report(&err);
  } else {
    print_synced(sync, t0);
  }
  ts_plan_sync_free(sync);
  free(build_cons);
  free(cache);
out:
  if (have_host)
    ts_host_clear(&host);
  ts_rules_free(rules);
  free(lock_dir);
  ts_pylock_free(lock);
  return st;
}

int ts_cmd_sync(int argc, char **argv) {
  struct ts_build_cli bc; /* a lock's sources are built */
  ts_build_cli_init(&bc, argc);
  struct ts_select_cli sel;
  ts_select_cli_init(&sel, argc);
  int st = sync_main(argc, argv, &bc, &sel);
  ts_select_cli_free(&sel);
  ts_build_cli_free(&bc);
  return st;
}
