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

#include "cli/build_options.h"
#include "cli/cli.h"
#include "cli/gpu_options.h"
#include "cli/index_options.h"
#include "cli/named_backend.h"
#include "cli/reqargs.h"
#include "cli/resolution_notes.h"
#include "cli/usage.h"
#include "core/alloc.h"
#include "core/buf.h"
#include "core/str.h"
#include "lock/pylock.h"
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

/* The --profile values parsed into *out (n of them; freed with
 * free_profiles), or those of `from` ("pyproject.toml: tool.torchsolve.
 * profiles", which then heads their errors); the exit status of a bad one. */
static int parse_profiles(const struct ts_rules *rules, const char *const *args, size_t n,
                          const char *from, struct ts_profile **out) {
  struct ts_error err = {0};
  *out = ts_xcalloc(n + 1, sizeof **out);
  enum ts_code rc = TS_OK;
  for (size_t i = 0; i < n && rc == TS_OK; i++)
    rc = ts_profile_parse(args[i], rules, &(*out)[i], &err);
  if (rc == TS_OK)
    rc = ts_profiles_check_distinct(*out, n, &err);
  if (rc != TS_OK && from)
    ts_error_wrap(&err, "%s", from);
  return rc == TS_OK ? 0 : ts_cli_report(&err);
}

static void free_profiles(struct ts_profile *profiles, size_t n) {
  for (size_t i = 0; profiles && i < n; i++)
    ts_profile_clear(&profiles[i]);
  free(profiles);
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

/* room: argc slots each for --profile, --environment and --upgrade-package
 * values */
static int lock_main(int argc, char **argv, const char **room) {
  const char **profile_args = room, **envs = room + argc, **upgrade_pkgs = room + 2 * argc;
  struct ts_gpu_options g;
  struct ts_index_cli ic;
  ts_gpu_options_init(&g);
  ts_index_cli_init(&ic);
  struct ts_cli_reqs reqs;
  ts_cli_reqs_init(&reqs, argc);
  struct ts_build_cli bc; /* sources are built to be locked */
  ts_build_cli_init(&bc, argc);
  const char *python = NULL, *pyver = NULL, *platform = NULL, *output = "pylock.toml";
  bool pre = false, universal = false, check = false, upgrade = false;
  size_t nprofile_args = 0, nenvs = 0, nupgrade = 0;
  enum ts_resolution_mode mode = TS_RESOLUTION_HIGHEST;
  const char *requires_python = NULL;
  const char *profiles_from = NULL; /* profiles given by the project, not --profile */
  struct ts_error err = {0};
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
        ts_cli_lock_help(stdout);
        ts_cli_reqs_free(&reqs);
        ts_build_cli_free(&bc);
        return 0;
      }
      int used = ts_cli_parse_global("lock", argc, argv, &i);
      if (used == 0)
        used = ts_gpu_options_parse(&g, "lock", argc, argv, &i);
      if (used == 0)
        used = ts_index_cli_parse(&ic, "lock", argc, argv, &i);
      if (used == 0)
        used = ts_build_cli_parse(&bc, "lock", argc, argv, &i);
      if (used < 0) {
        status = 2;
        break;
      }
      if (used)
        continue;
      const struct {
        const char *flag;
        bool *set;
      } switches[] = {{"--pre", &pre},         {"--universal", &universal},
                      {"--check", &check},     {"--upgrade", &upgrade},
                      {"-U", &upgrade}};
      bool switched = false;
      for (size_t k = 0; k < sizeof switches / sizeof *switches && !switched; k++)
        if (!strcmp(s, switches[k].flag))
          switched = *switches[k].set = true;
      if (switched)
        continue;
      static const char *const valued[] = {"--python", "--python-version", "--platform",
                                           "--requirement", "-r", "--constraint", "-c",
                                           "--output", "-o", "--no-binary",
                                           "--only-binary", "--profile", "--requires-python",
                                           "--environment", "--resolution",
                                           "--upgrade-package"};
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
        else if (!strcmp(f, "--profile")) profile_args[nprofile_args++] = v;
        else if (!strcmp(f, "--requires-python")) requires_python = v;
        else if (!strcmp(f, "--environment")) envs[nenvs++] = v;
        else if (!strcmp(f, "--upgrade-package")) upgrade_pkgs[nupgrade++] = v;
        else if (!strcmp(f, "--resolution")) {
          if (!strcmp(v, "highest")) mode = TS_RESOLUTION_HIGHEST;
          else if (!strcmp(v, "lowest")) mode = TS_RESOLUTION_LOWEST;
          else if (!strcmp(v, "lowest-direct")) mode = TS_RESOLUTION_LOWEST_DIRECT;
          else status = ts_cli_usage_error("lock", "unknown --resolution '%s'", v);
        }
        else if (!strcmp(f, "--no-binary") || !strcmp(f, "--only-binary")) {
          status = ts_cli_reqs_add_binary(&reqs, "lock", v, !strcmp(f, "--no-binary"));
        }
        else {
          status = ts_cli_reqs_add_file(&reqs, v, f[1] == 'c' || f[2] == 'c');
        }
      }
      if (!matched)
        status = ts_cli_usage_error("lock", "unknown option '%s'", s);
      continue;
    }
    status = ts_cli_reqs_add_arg(&reqs, "lock", s);
  }
  /* no requirement given: the project's, from ./pyproject.toml */
  struct ts_project project = {0};
  bool from_project = false;
  struct stat st;
  if (!status && reqs.nargs == 0 && reqs.rf.nentries == 0 && stat("pyproject.toml", &st) == 0) {
    if (ts_project_read("pyproject.toml", &project, &err) != TS_OK)
      status = ts_cli_report(&err);
    else
      status = ts_cli_reqs_add_project(&reqs, "lock", &project);
    from_project = !status;
    if (from_project && universal && !requires_python)
      requires_python = project.requires_python;
    if (from_project && universal && !nenvs) {
      envs = (const char **)project.environments;
      nenvs = project.nenvironments;
    }
    if (from_project && !nprofile_args && project.nprofiles) {
      profile_args = (const char **)project.profiles; /* --profile overrides the file's */
      nprofile_args = project.nprofiles;
      profiles_from = "pyproject.toml: tool.torchsolve.profiles";
    }
  }
  if (!status && platform && !pyver)
    status = ts_cli_usage_error("lock", "--platform needs --python-version");
  if (!status && !universal && (requires_python || nenvs))
    status = ts_cli_usage_error("lock", "%s needs --universal",
                                requires_python ? "--requires-python" : "--environment");
  if (!status && universal && (pyver || platform))
    status = ts_cli_usage_error("lock", "--universal covers every platform: drop %s",
                                pyver ? "--python-version" : "--platform");
  if (!status && check && strcmp(output, "-") == 0)
    status = ts_cli_usage_error("lock", "--check compares with a file: give -o FILE");
  if (!status && nprofile_args &&
      (g.set_cuda || g.set_rocm || g.set_gfx || g.set_cc || g.set_driver || g.ov.cpu || g.ov.xpu))
    status = ts_cli_usage_error("lock", "%s name%s each machine's GPU stack; drop "
                                        "--cuda, --rocm, --gfx, --compute-capability, "
                                        "--cuda-driver, --cpu, --xpu and --torch-backend",
                                profiles_from ? profiles_from : "--profile",
                                profiles_from ? "" : "s");
  if (!status && ts_gpu_options_env(&g) < 0)
    status = 2;
  if (status) {
    ts_project_clear(&project);
    ts_cli_reqs_free(&reqs);
    ts_build_cli_free(&bc);
    return status;
  }
  ts_index_cli_apply_reqfile(&ic, &reqs.rf, from_project ? project.index_url : NULL);
  if (from_project && project.torch_index_url && !ic.opts.torch_index_url)
    ic.opts.torch_index_url = project.torch_index_url; /* the flag wins */
  pre = pre || reqs.rf.pre;
  status = ts_index_cli_finish(&ic, "lock") < 0 ? 2 : ts_cli_reqs_collect(&reqs, "lock", "lock");
  if (status) {
    ts_project_clear(&project);
    ts_cli_reqs_free(&reqs);
    ts_build_cli_free(&bc);
    return status;
  }
  struct ts_host host;
  struct ts_rules *rules = NULL;
  struct ts_named_backends nb;
  g.ov.platform = platform; /* a lock for another machine records its facts */
  if (ts_gpu_load_named(&g, &ic.opts, &host, &rules, &nb, &err) != TS_OK) {
    ts_project_clear(&project);
    ts_cli_reqs_free(&reqs);
    ts_build_cli_free(&bc);
    return ts_cli_report(&err);
  }
  struct ts_relock relock;
  if (ts_relock_read(output, upgrade_pkgs, nupgrade, upgrade, &relock, &err) != TS_OK) {
    ts_relock_clear(&relock);
    ts_rules_free(rules);
    ts_host_clear(&host);
    ts_named_backends_clear(&nb);
    ts_project_clear(&project);
    ts_cli_reqs_free(&reqs);
    ts_build_cli_free(&bc);
    return ts_cli_report(&err);
  }
  /* lock --check of a universal lock: the grid it records, without
   * --universal and its options repeated */
  const struct ts_pylock *previous = relock.previous;
  if (check && !universal && !pyver && previous && previous->grid && !nenvs) {
    universal = true;
    requires_python = requires_python ? requires_python : previous->requires_python;
    envs = (const char **)previous->environments;
    nenvs = previous->nenvironments;
  }
  if (check && !nprofile_args && relock.nprofile_args) { /* and a fleet lock's profiles */
    profile_args = (const char **)relock.profile_args;
    nprofile_args = relock.nprofile_args;
  }
  struct ts_target_spec spec = {.python_version = pyver, .platform = platform};
  char *cache = ts_index_cli_cache_root(&ic);
  struct ts_source_build_options bo;
  const struct ts_reqfile_entry **build_cons = NULL;
  ts_build_cli_options(&bc, &ic.opts, cache, &bo, &build_cons);
  struct ts_plan_options po = {
      .build = &bo,
      .python = python, .spec = pyver ? &spec : NULL, .host = &host, .rules = rules,
      /* a --universal grid lies inside requires-python by construction */
      .project_requires_python = from_project && !universal ? project.requires_python : NULL,
      .ignore_host = g.ignore_host, .variant_force = &g.variant_force, .index = &ic.opts, .entries = reqs.all,
      .nentries = reqs.nall, .resolution = mode, .pre = pre,
      .no_binary = (const char *const *)reqs.binary.no_binary,
      .nno_binary = reqs.binary.nno_binary,
      .only_binary = (const char *const *)reqs.binary.only_binary,
      .nonly_binary = reqs.binary.nonly_binary,
      .read_installed = false, .probe_cache_dir = cache,
      .preferences = relock.prefs, .npreferences = relock.nprefs,
      .upgrade_packages = upgrade_pkgs, .nupgrade_packages = nupgrade,
      /* profiles name each machine's build themselves */
      .torch_backends = nb.names, .ntorch_backends = nprofile_args ? 0 : nb.n};
  struct lock_out out = {.output = output, .check = check,
                         .project = from_project ? &project : NULL};
  struct ts_profile *profiles = NULL;
  if (nprofile_args)
    status = parse_profiles(rules, profile_args, nprofile_args, profiles_from, &profiles);
  if (!status && universal)
    status = lock_universal(&po, requires_python, envs, nenvs, profiles, nprofile_args, &out);
  else if (!status && nprofile_args)
    status = lock_profiles(&po, profiles, nprofile_args, &out);
  else if (!status)
    status = lock_one(&po, &out);
  free_profiles(profiles, nprofile_args);
  free(build_cons);
  ts_relock_clear(&relock);
  ts_project_clear(&project);
  free(cache);
  ts_rules_free(rules);
  ts_host_clear(&host);
  ts_named_backends_clear(&nb);
  ts_cli_reqs_free(&reqs);
  ts_build_cli_free(&bc);
  return status;
}

int ts_cmd_lock(int argc, char **argv) {
  const char **room = ts_xcalloc(3 * (size_t)argc + 1, sizeof *room);
  int status = lock_main(argc, argv, room);
  free(room);
  return status;
}
