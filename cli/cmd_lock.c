/*
 * torchsolve lock [REQ...] [-r FILE]... [-c FILE]... [-o pylock.toml]
 *                 [--python PATH | --python-version X.Y [--platform PLAT]]
 *                 [index options] [GPU options]
 *
 * Resolves for one target (ts_plan_resolve: target + host + rules + index +
 * resolver), turns the resolution into a PEP 751 lock (ts_plan_to_pylock)
 * and writes it; with --profile, once per GPU profile, merged into one
 * fleet lock (ts_plan_lock_profiles).  This file parses options and prints.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/build_options.h"
#include "cli/cli.h"
#include "cli/gpu_options.h"
#include "cli/index_options.h"
#include "cli/reqargs.h"
#include "cli/resolution_notes.h"
#include "cli/usage.h"
#include "core/alloc.h"
#include "core/buf.h"
#include "core/str.h"
#include "lock/pylock.h"
#include "plan/plan.h"
#include "plan/profiles.h"

/* The lock on stdout ('-') or into its file. */
static int write_lock(const struct ts_pylock *lock, const char *output, const char *what) {
  struct ts_error err = {0};
  struct ts_buf out;
  ts_buf_init(&out, TS_CAP_LOCKFILE);
  int status = ts_pylock_write(lock, &out, &err) == TS_OK
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

static int lock_one(const struct ts_plan_options *po, const char *output) {
  struct ts_error err = {0};
  struct ts_plan_result *res = NULL;
  enum ts_code rc = ts_plan_resolve(po, &res, &err);
  int status = report_resolution(res, rc, &err, NULL);
  struct ts_pylock *lock = NULL;
  if (!status && ts_plan_to_pylock(res, output, &lock, &err) != TS_OK)
    status = ts_cli_report(&err);
  if (!status)
    status = write_lock(lock, output, "");
  ts_pylock_free(lock);
  ts_plan_result_free(res);
  return status;
}

static int lock_profiles(const struct ts_plan_options *po, const struct ts_rules *rules,
                         const char *const *args, size_t n, const char *output) {
  struct ts_error err = {0};
  struct ts_profile *profiles = ts_xcalloc(n, sizeof *profiles);
  int status = 0;
  for (size_t i = 0; i < n && !status; i++)
    if (ts_profile_parse(args[i], rules, &profiles[i], &err) != TS_OK)
      status = ts_cli_report(&err);
  struct ts_plan_profiles pp = {0};
  if (!status) {
    enum ts_code rc = ts_plan_lock_profiles(po, profiles, n, output, &pp, &err);
    for (size_t i = 0; i < pp.n && !status; i++)
      if (pp.results[i])
        status = report_resolution(pp.results[i], i == pp.failed ? rc : TS_OK, &err,
                                   profiles[i].backend);
    if (!status && rc != TS_OK)
      status = report_resolution(NULL, rc, &err, NULL);
  }
  if (!status) {
    char *what = ts_xasprintf(" for %zu profile%s (default %s)", n, ts_cli_plural(n),
                              profiles[0].extra);
    status = write_lock(pp.lock, output, what);
    free(what);
  }
  ts_plan_profiles_clear(&pp);
  for (size_t i = 0; i < n; i++)
    ts_profile_clear(&profiles[i]);
  free(profiles);
  return status;
}

static int lock_main(int argc, char **argv, const char **profile_args) {
  struct ts_gpu_options g;
  struct ts_index_cli ic;
  ts_gpu_options_init(&g);
  ts_index_cli_init(&ic);
  struct ts_cli_reqs reqs;
  ts_cli_reqs_init(&reqs, argc);
  struct ts_build_cli bc; /* sources are built to be locked */
  ts_build_cli_init(&bc, argc);
  const char *python = NULL, *pyver = NULL, *platform = NULL, *output = "pylock.toml";
  bool pre = false;
  size_t nprofile_args = 0;
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
      if (!strcmp(s, "--pre")) {
        pre = true;
        continue;
      }
      static const char *const valued[] = {"--python", "--python-version", "--platform",
                                           "--requirement", "-r", "--constraint", "-c",
                                           "--output", "-o", "--no-binary",
                                           "--only-binary", "--profile"};
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
  if (!status && platform && !pyver)
    status = ts_cli_usage_error("lock", "--platform needs --python-version");
  if (!status && nprofile_args &&
      (g.set_cuda || g.set_rocm || g.set_gfx || g.set_cc || g.set_driver || g.ov.cpu || g.ov.xpu))
    status = ts_cli_usage_error("lock", "--profile names each machine's GPU stack; drop "
                                        "--cuda, --rocm, --gfx, --compute-capability, "
                                        "--cuda-driver, --cpu, --xpu and --torch-backend");
  if (!status && ts_gpu_options_env(&g) < 0)
    status = 2;
  if (status) {
    ts_cli_reqs_free(&reqs);
    ts_build_cli_free(&bc);
    return status;
  }
  ts_index_cli_apply_reqfile(&ic, &reqs.rf);
  pre = pre || reqs.rf.pre;
  if (ts_index_cli_finish(&ic, "lock") < 0) {
    ts_cli_reqs_free(&reqs);
    ts_build_cli_free(&bc);
    return 2;
  }

  if ((status = ts_cli_reqs_collect(&reqs, "lock", "lock")) != 0) {
    ts_cli_reqs_free(&reqs);
    ts_build_cli_free(&bc);
    return status;
  }
  struct ts_host host;
  struct ts_rules *rules = NULL;
  g.ov.platform = platform; /* a lock for another machine records its facts */
  if (ts_gpu_load(&g, &host, &rules, &err) != TS_OK) {
    ts_cli_reqs_free(&reqs);
    ts_build_cli_free(&bc);
    return ts_cli_report(&err);
  }
  struct ts_target_spec spec = {.python_version = pyver, .platform = platform};
  char *cache = ts_index_cli_cache_root(&ic);
  struct ts_plan_build_options bo;
  const struct ts_reqfile_entry **build_cons = NULL;
  ts_build_cli_options(&bc, &ic.opts, cache, &bo, &build_cons);
  struct ts_plan_options po = {
      .build = &bo,
      .python = python, .spec = pyver ? &spec : NULL, .host = &host, .rules = rules,
      .ignore_host = g.ignore_host, .index = &ic.opts, .entries = reqs.all,
      .nentries = reqs.nall, .resolution = TS_RESOLUTION_HIGHEST, .pre = pre,
      .no_binary = (const char *const *)reqs.binary.no_binary,
      .nno_binary = reqs.binary.nno_binary,
      .only_binary = (const char *const *)reqs.binary.only_binary,
      .nonly_binary = reqs.binary.nonly_binary,
      .read_installed = false, .probe_cache_dir = cache};
  status = nprofile_args ? lock_profiles(&po, rules, profile_args, nprofile_args, output)
                         : lock_one(&po, output);
  free(build_cons);
  free(cache);
  ts_rules_free(rules);
  ts_host_clear(&host);
  ts_cli_reqs_free(&reqs);
  ts_build_cli_free(&bc);
  return status;
}

int ts_cmd_lock(int argc, char **argv) {
  const char **profile_args = ts_xcalloc((size_t)argc, sizeof *profile_args);
  int status = lock_main(argc, argv, profile_args);
  free(profile_args);
  return status;
}
