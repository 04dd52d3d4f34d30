/*
 * torchsolve lock [REQ...] [-r FILE]... [-c FILE]... [-o pylock.toml]
 *                 [--python PATH | --python-version X.Y [--platform PLAT]]
 *                 [index options] [GPU options]
 *
 * Resolves for one target (ts_plan_resolve: target + host + rules + index +
 * resolver), turns the resolution into a PEP 751 lock (ts_plan_to_pylock)
 * and writes it; with --profile, once per GPU profile, merged into one
 * fleet lock (ts_plan_lock_profiles); with --universal, once per
 * environment of the grid (ts_plan_universal_lock), and per profile too
 * when --profile is given.  An existing output
 * file's versions are preferences (lockgen/relock.h).  This file parses
 * options and prints.
 */
#include <stdio.h>
#include <sys/stat.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "cli/lock_args.h"
#include "cli/named_backend.h"
#include "cli/resolution_notes.h"
#include "core/alloc.h"
#include "core/buf.h"
#include "core/str.h"
#include "lock/pylock.h"
#include "lockgen/ask.h"
#include "lockgen/lock.h"
#include "lockgen/profiles.h"
#include "lockgen/project.h"
#include "lockgen/relock.h"
#include "lockgen/universal.h"
#include "plan/plan.h"

/* Where and how a lock goes: output file ('-': stdout), with check
 * compared with it instead (exit 1 when it differs, nothing written); a
 * lock of a project is marked for its extras and groups first. */
struct lock_out {
  const char *output;
  bool check;
  const struct ts_project *project; /* NULL: requirements given */
};

static int write_lock(struct ts_pylock *lock, const struct lock_out *o, const char *what) {
  struct ts_error err = {0};
  int status = 0;
  const char *output = o->output;
  if (o->project && ts_plan_project_mark(o->project, lock, &err) != TS_OK)
    return ts_cli_report(&err);
  if (o->check) {
    bool same = false;
    if (ts_relock_same(lock, output, &same, &err) != TS_OK)
      return ts_cli_report(&err);
    if (same) {
      ts_cli_info("%s is up to date", output);
      return 0;
    }
    fprintf(stderr, "error: %s is not what 'torchsolve lock' writes now: lock again and "
                    "commit the result\n", output);
    return 1;
  }
  struct ts_buf out;
  ts_buf_init(&out, TS_CAP_LOCKFILE);
  status = ts_pylock_write(lock, &out, &err) == TS_OK
               ? ts_cli_write_output(output, out.data, out.len)
               : ts_cli_report(&err);
  ts_buf_clear(&out);
  if (!status && strcmp(output, "-") != 0)
    ts_cli_info("Locked %zu package%s%s in %s", lock->npackages,
                ts_cli_plural(lock->npackages), what, output);
  return status;
}

/* A resolution's notes and figures; for a failed one, the error (with the
 * resolver's explanation) and the exit status. */
static int report_resolution(const struct ts_plan_result *res, enum ts_code rc,
                             const struct ts_error *err, const char *profile) {
  ts_cli_warn_plan_notes(res);
  if (rc != TS_OK)
    return ts_cli_report_resolve_failure(rc, err, res);
  if (res)
    ts_cli_resolved(res, profile, NULL);
  return 0;
}

static int lock_one(const struct ts_plan_options *po, const struct lock_out *o) {
  const char *output = o->output;
  struct ts_error err = {0};
  struct ts_plan_result *res = NULL;
  enum ts_code rc = ts_plan_resolve(po, &res, &err);
  int status = report_resolution(res, rc, &err, NULL);
  struct ts_pylock *lock = NULL;
  if (!status && ts_plan_to_pylock(res, output, &lock, &err) != TS_OK)
    status = ts_cli_report(&err);
  if (!status)
    status = write_lock(lock, o, "");
  ts_pylock_free(lock);
  ts_plan_result_free(res);
  return status;
}

static int lock_profiles(const struct ts_plan_options *po, const struct ts_profile *profiles,
                         size_t n, const struct lock_out *o) {
  struct ts_error err = {0};
  int status = 0;
  struct ts_plan_profiles pp = {0};
  enum ts_code rc = ts_plan_lock_profiles(po, profiles, n, o->output, &pp, &err);
  for (size_t i = 0; i < pp.n && !status; i++)
    if (pp.results[i])
      status = report_resolution(pp.results[i], i == pp.failed ? rc : TS_OK, &err,
                                 profiles[i].name);
  if (!status && rc != TS_OK)
    status = report_resolution(NULL, rc, &err, NULL);
  if (!status) {
    char *what = ts_xasprintf(" for %zu profile%s (default %s)", n, ts_cli_plural(n),
                              profiles[0].extra);
    status = write_lock(pp.lock, o, what);
    free(what);
  }
  ts_plan_profiles_clear(&pp);
  return status;
}

/* lock --universal: every environment of the grid (times every profile),
 * one lock. */
static int lock_universal(const struct ts_plan_options *po, const char *requires_python,
                          const char *const *envs, size_t nenvs,
                          const struct ts_profile *profiles, size_t nprofiles,
                          const struct lock_out *o) {
  const char *output = o->output;
  struct ts_error err = {0};
  char *default_rp = NULL;
  if (!requires_python) {
    if (ts_plan_default_requires_python(po->python, po->probe_cache_dir, &default_rp, &err) !=
        TS_OK)
      return ts_cli_report(&err);
    requires_python = default_rp;
  }
  struct ts_universal_options uo = {.base = po, .requires_python = requires_python,
                                    .environments = envs, .nenvironments = nenvs,
                                    .output = output, .profiles = profiles,
                                    .nprofiles = nprofiles};
  struct ts_universal_result ur;
  enum ts_code rc = ts_plan_universal_lock(&uo, &ur, &err);
  for (size_t i = 0; i < ur.nnotes; i++)
    ts_cli_warn("%s", ur.notes[i]);
  int status = 0;
  if (rc == TS_E_RESOLVE && ur.failed_env) {
    char *line = ts_xasprintf("no resolution for %s", ur.failed_env);
    char **lines = ts_xcalloc(ur.nwhy + 1, sizeof *lines);
    lines[0] = line;
    for (size_t i = 0; i < ur.nwhy; i++)
      lines[i + 1] = ur.why[i];
    status = ts_cli_report_explained(&err, lines, ur.nwhy + 1);
    free(lines);
    free(line);
  } else if (rc != TS_OK) {
    status = ts_cli_report(&err);
  } else {
    char *each = nprofiles ? ts_xasprintf(" for each of %zu profiles", nprofiles)
                           : ts_xstrdup("");
    ts_cli_info("Resolved %zu environment%s%s (requires-python %s) in %zu solve%s",
                ur.npoints, ts_cli_plural(ur.npoints), each, requires_python, ur.nsolves,
                ts_cli_plural(ur.nsolves));
    free(each);
    char *what = nprofiles ? ts_xasprintf(" for %zu profile%s (default %s)", nprofiles,
                                          ts_cli_plural(nprofiles), profiles[0].extra)
                           : ts_xstrdup("");
    status = write_lock(ur.lock, o, what);
    free(what);
  }
  ts_universal_result_clear(&ur);
  free(default_rp);
  return status ? status : rc != TS_OK;
}


/* Everything one lock command holds, freed once by lock_cmd_clear. */
struct lock_cmd {
  struct ts_lock_args args;
  struct ts_project project;
  bool from_project, have_host;
  struct ts_host host;
  struct ts_rules *rules;
  struct ts_named_backends nb;
  struct ts_relock relock;
  char *cache;
  const struct ts_reqfile_entry **build_cons;
  struct ts_profile *profiles;
};

static void lock_cmd_clear(struct lock_cmd *c) {
  ts_lock_ask_profiles_free(c->profiles, c->args.ask.nprofile_args);
  free(c->build_cons);
  ts_relock_clear(&c->relock);
  ts_project_clear(&c->project);
  free(c->cache);
  ts_rules_free(c->rules);
  if (c->have_host)
    ts_host_clear(&c->host);
  ts_named_backends_clear(&c->nb);
  ts_lock_args_free(&c->args);
}

/* No requirement given: the project's, from ./pyproject.toml. */
static int lock_read_project(struct lock_cmd *c) {
  struct stat st;
  struct ts_error err = {0};
  struct ts_cli_reqs *reqs = &c->args.reqs;
  if (reqs->nargs || reqs->rf.nentries || stat("pyproject.toml", &st) != 0)
    return 0;
  if (ts_project_read("pyproject.toml", &c->project, &err) != TS_OK)
    return ts_cli_report(&err);
  int status = ts_cli_reqs_add_project(reqs, "lock", &c->project);
  c->from_project = !status;
  if (c->from_project)
    ts_lock_ask_from_project(&c->args.ask, &c->project);
  return status;
}

/* The host, rules, named builds and the lock being replaced, then the
 * lock made as asked: universal, a fleet of profiles or one resolution. */
static int lock_run(struct lock_cmd *c) {
  struct ts_lock_args *l = &c->args;
  struct ts_error err = {0};
  l->g.ov.platform = l->platform; /* a lock for another machine records its facts */
  if (ts_gpu_load_named(&l->g, &l->ic.opts, &c->host, &c->rules, &c->nb, &err) != TS_OK)
    return ts_cli_report(&err);
  c->have_host = true;
  if (ts_relock_read(l->output, l->upgrade_pkgs, l->nupgrade, l->upgrade, &c->relock, &err) !=
      TS_OK)
    return ts_cli_report(&err);
  ts_lock_ask_from_previous(&l->ask, &c->relock);
  struct ts_target_spec spec = {.python_version = l->pyver, .platform = l->platform};
  c->cache = ts_index_cli_cache_root(&l->ic);
  struct ts_source_build_options bo;
  ts_build_cli_options(&l->bc, &l->ic.opts, c->cache, &bo, &c->build_cons);
  const struct ts_lock_ask *a = &l->ask;
  struct ts_plan_options po = {
      .build = &bo, .python = l->python, .spec = l->pyver ? &spec : NULL, .host = &c->host,
      .rules = c->rules,
      /* a --universal grid lies inside requires-python by construction */
      .project_requires_python = c->from_project && !a->universal ? c->project.requires_python
                                                                 : NULL,
      .ignore_host = l->g.ignore_host, .variant_force = &l->g.variant_force,
      .index = &l->ic.opts, .entries = l->reqs.all, .nentries = l->reqs.nall,
      .resolution = l->mode, .pre = l->pre,
      .no_binary = (const char *const *)l->reqs.binary.no_binary,
      .nno_binary = l->reqs.binary.nno_binary,
      .only_binary = (const char *const *)l->reqs.binary.only_binary,
      .nonly_binary = l->reqs.binary.nonly_binary, .probe_cache_dir = c->cache,
      .preferences = c->relock.prefs, .npreferences = c->relock.nprefs,
      .upgrade_packages = l->upgrade_pkgs, .nupgrade_packages = l->nupgrade,
      /* profiles name each machine's build themselves */
      .torch_backends = c->nb.names, .ntorch_backends = a->nprofile_args ? 0 : c->nb.n};
  struct lock_out out = {.output = l->output, .check = a->check,
                         .project = c->from_project ? &c->project : NULL};
  if (ts_lock_ask_profiles(a, c->rules, &c->profiles, &err) != TS_OK)
    return ts_cli_report(&err);
  if (a->universal)
    return lock_universal(&po, a->requires_python, a->environments, a->nenvironments,
                          c->profiles, a->nprofile_args, &out);
  return a->nprofile_args ? lock_profiles(&po, c->profiles, a->nprofile_args, &out)
                          : lock_one(&po, &out);
}

static int lock_main(struct lock_cmd *c, int argc, char **argv) {
  struct ts_lock_args *a = &c->args;
  int status = ts_lock_args_parse(a, argc, argv);
  if (a->help)
    return 0;
  if (!status)
    status = lock_read_project(c);
  if (!status)
    status = ts_lock_args_check(a);
  if (status)
    return status;
  ts_index_cli_apply_reqfile(&a->ic, &a->reqs.rf, c->from_project ? c->project.index_url : NULL);
  if (c->from_project && c->project.torch_index_url && !a->ic.opts.torch_index_url)
    a->ic.opts.torch_index_url = c->project.torch_index_url; /* the flag wins */
  a->pre = a->pre || a->reqs.rf.pre;
  status = ts_index_cli_finish(&a->ic, "lock") < 0 ? 2
                                                  : ts_cli_reqs_collect(&a->reqs, "lock", "lock");
  return status ? status : lock_run(c);
}

int ts_cmd_lock(int argc, char **argv) {
  struct lock_cmd c = {0};
  ts_lock_args_init(&c.args, argc);
  int status = lock_main(&c, argc, argv);
  lock_cmd_clear(&c);
  return status;
}
