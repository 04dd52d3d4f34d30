/* torchsolve install — resolve requirements against the indexes and the GPU
 * rules, then download and install them as one transaction.  The work is in
 * plan/; this file parses flags, draws progress and prints the outcome. */
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/build_options.h"
#include "cli/cli.h"
#include "cli/gpu_options.h"
#include "cli/index_options.h"
#include "cli/named_backend.h"
#include "cli/progress.h"
#include "cli/reqargs.h"
#include "cli/resolution_notes.h"
#include "cli/usage.h"
#include "core/alloc.h"
#include "core/buf.h"
#include "plan/dry_run.h"
#include "plan/plan.h"
#include "plan/request.h"

/* ---- report --------------------------------------------------------- */

static int write_report(const char *dest, const struct ts_plan_result *r) {
  struct ts_buf b;
  ts_buf_init(&b, 256u << 20);
  struct ts_error err = {0};
  int status = ts_plan_report(r, &b, &err) == TS_OK ? ts_cli_write_output(dest, b.data, b.len)
                                                    : ts_cli_report(&err);
  ts_buf_clear(&b);
  return status;
}


/* What was installed, after the transaction: " - old" and " + new". */
static void print_installed(const struct ts_plan_result *res) {
  for (size_t i = 0; i < res->res->nitems; i++) {
    const struct ts_resolved *x = &res->res->items[i];
    if (x->action == TS_ACTION_KEEP)
      continue;
    if (x->installed_version)
      ts_cli_info(" - %s==%s", x->name, x->installed_version);
    ts_cli_info(" + %s==%s", x->name, x->version);
  }
  for (size_t i = 0; i < res->norphans; i++)
    ts_cli_info(" - %s==%s (orphaned)", res->orphans[i], res->orphan_versions[i]);
}

/* ---- main ----------------------------------------------------------- */

struct args {
  struct ts_cli_reqs reqs;
  const char **upgrade_pkgs;
  size_t nupgrade;
  struct ts_build_cli build;
};

static void args_free(struct args *a) {
  ts_cli_reqs_free(&a->reqs);
  free(a->upgrade_pkgs);
  ts_build_cli_free(&a->build);
}

/* The options that only switch something on: the request's field, and
 * whether only install has it (download refuses it). */
static const struct {
  const char *name, *alias;
  size_t field;
  bool install_only;
} switches[] = {
    {"--dry-run", NULL, offsetof(struct ts_plan_request, dry_run), false},
    {"--upgrade", "-U", offsetof(struct ts_plan_request, upgrade), false},
    {"--force-reinstall", NULL, offsetof(struct ts_plan_request, force_reinstall), false},
    {"--no-deps", NULL, offsetof(struct ts_plan_request, no_deps), false},
    {"--pre", NULL, offsetof(struct ts_plan_request, pre), false},
    {"--require-hashes", NULL, offsetof(struct ts_plan_request, require_hashes), false},
    {"--system", NULL, offsetof(struct ts_plan_request, system), false},
    {"--no-wait", NULL, offsetof(struct ts_plan_request, no_wait), false},
    {"--prefer-binary", NULL, offsetof(struct ts_plan_request, prefer_binary), false},
    {"--ignore-installed", "-I", offsetof(struct ts_plan_request, ignore_installed), true},
    {"--compile", "--compile-bytecode", offsetof(struct ts_plan_request, compile), true},
    {"--allow-overwrite", NULL, offsetof(struct ts_plan_request, allow_overwrite), true},
    {"--verify", NULL, offsetof(struct ts_plan_request, verify_cache), true},
    {"--user", NULL, offsetof(struct ts_plan_request, user), true},
    {"--break-system-packages", NULL,
     offsetof(struct ts_plan_request, break_system_packages), true},
};

/* A switch sets its field: 1, or 0 when s is none. */
static int parse_switch(struct ts_plan_request *q, const char *s) {
  for (size_t k = 0; k < sizeof switches / sizeof switches[0]; k++)
    if (!strcmp(s, switches[k].name) || (switches[k].alias && !strcmp(s, switches[k].alias))) {
      *(bool *)((char *)q + switches[k].field) = true;
      if (switches[k].install_only)
        q->install_only = s;
      return 1;
    }
  return 0;
}

/* An option with a value (f, its value v) into the request or the args:
 * 0, or the usage error's exit status. */
static int parse_valued(struct ts_plan_request *q, struct args *a, const char *cmd,
                        const char *f, const char *v, const char **link_mode,
                        const char **report, const char **debug_dir, char uv_platform[64]) {
  if (!strcmp(f, "--python")) q->python = v;
  else if (!strcmp(f, "--python-version")) q->python_version = v;
  else if (!strcmp(f, "--platform")) q->platform = v;
  else if (!strcmp(f, "--report")) *report = q->install_only = v;
  else if (!strcmp(f, "--target") || !strcmp(f, "-t")) q->target_dir = q->install_only = v;
  else if (!strcmp(f, "--prefix")) q->prefix_dir = q->install_only = v;
  else if (!strcmp(f, "--link-mode")) *link_mode = q->install_only = v;
  else if (!strcmp(f, "--debug-solver")) *debug_dir = v;
  else if (!strcmp(f, "--upgrade-package")) a->upgrade_pkgs[a->nupgrade++] = v;
  else if (!strcmp(f, "--dest") || !strcmp(f, "-d")) {
    q->dest = v;
    if (!q->download)
      return ts_cli_usage_error(cmd, "%s is download's option", f);
  } else if (!strcmp(f, "--python-platform")) {
    q->platform = uv_platform;
    if (ts_cli_uv_platform(v, uv_platform, 64) != 0)
      return ts_cli_usage_error(cmd, "--python-platform '%s': torchsolve knows linux, "
                                "ARCH-unknown-linux-gnu, ARCH-unknown-linux-musl, "
                                "ARCH-manylinux_X_Y, ARCH-manylinux2014, ARCH-musllinux_X_Y", v);
  } else if (!strcmp(f, "--upgrade-strategy")) {
    if (strcmp(v, "eager") != 0 && strcmp(v, "only-if-needed") != 0)
      return ts_cli_usage_error(cmd, "--upgrade-strategy must be only-if-needed or "
                                "eager, not '%s'", v);
    q->eager = !strcmp(v, "eager");
  } else if (!strcmp(f, "--no-binary") || !strcmp(f, "--only-binary")) {
    return ts_cli_reqs_add_binary(&a->reqs, cmd, v, !strcmp(f, "--no-binary"));
  } else if (!strcmp(f, "--editable") || !strcmp(f, "-e")) {
    return ts_cli_reqs_add_editable(&a->reqs, cmd, v);
  } else if (!strcmp(f, "--resolution")) {
    if (!strcmp(v, "highest")) q->resolution = TS_RESOLUTION_HIGHEST;
    else if (!strcmp(v, "lowest")) q->resolution = TS_RESOLUTION_LOWEST;
    else if (!strcmp(v, "lowest-direct")) q->resolution = TS_RESOLUTION_LOWEST_DIRECT;
    else return ts_cli_usage_error(cmd, "unknown --resolution '%s'", v);
  } else { /* -r, --requirement, -c, --constraint */
    return ts_cli_reqs_add_file(&a->reqs, v, f[1] == 'c' || f[2] == 'c');
  }
  return 0;
}

/* After a successful resolution: the notes, the report, then the dry-run
 * plan or the install (or download) itself. */
static int after_resolve(struct ts_plan_request *q, struct ts_plan_result *res,
                         const char *report, const struct ts_rules *rules,
                         const struct ts_host *host, bool ignore_host) {
  char el[32];
  struct ts_error err = {0};
  int status = 0;
  struct ts_cli_cpu_facts cpu = {rules, host, ignore_host};
  ts_cli_resolved(res, NULL, &cpu);
  ts_cli_warn_unmet(res);
  if (report)
    status = write_report(report, res);
  if (status)
    return status;
  if (q->dry_run) {
    if (ts_plan_check_hashes(res, q->require_hashes, &err) != TS_OK)
      return ts_cli_report(&err);
    struct ts_plan_notes lines = {0};
    ts_plan_dry_run_lines(res, &lines);
    for (size_t i = 0; i < lines.n && (!report || strcmp(report, "-") != 0); i++)
      puts(lines.lines[i]);
    ts_plan_notes_clear(&lines);
    size_t builds = 0;
    for (size_t i = 0; i < res->res->nitems; i++) {
      const struct ts_resolved *x = &res->res->items[i];
      if (x->action != TS_ACTION_KEEP && x->sdist && ++builds)
        ts_cli_info("Would build %s %s from source", x->name, x->version);
    }
    size_t c = ts_plan_count_changes(res);
    ts_cli_info("Would change %zu package%s (dry run)%s", c, ts_cli_plural(c),
                builds ? "; no wheel was built" : "");
    return 0;
  }
  struct ts_cli_progress bars;
  ts_cli_progress_init(&bars, "files");
  struct ts_plan_callbacks cb = ts_cli_progress_callbacks(&bars);
  struct ts_plan_outcome done;
  double t0 = ts_now_ms();
  enum ts_code rc = ts_plan_request_carry_out(q, res, &cb, &ts_cli.interrupted, &done, &err);
  for (size_t k = 0; k < done.kept.n; k++)
    ts_cli_warn("%s", done.kept.lines[k]);
  if (rc != TS_OK) {
    ts_plan_outcome_clear(&done);
    ts_build_cli_print_log_tail(res->build_log);
    status = ts_cli_report(&err);
    return status ? status : 1;
  }
  if (q->download)
    ts_cli_info("Saved %zu file%s to %s in %s", done.changed, ts_cli_plural(done.changed),
                q->dest, ts_cli_elapsed(ts_now_ms() - t0, el));
  else if (done.changed == 0)
    ts_cli_info("Nothing to install: every requirement is satisfied");
  else {
    ts_cli_info("Installed %zu package%s in %s", done.changed, ts_cli_plural(done.changed),
                ts_cli_elapsed(ts_now_ms() - t0, el));
    print_installed(res);
  }
  ts_plan_outcome_clear(&done);
  return 0;
}

/* install and download share everything up to what is done with the
 * resolution: installed, or the files placed in a directory. */
static int install_or_download(int argc, char **argv, bool download) {
  const char *cmd = download ? "download" : "install";
  struct ts_gpu_options g;
  struct ts_index_cli ic;
  ts_gpu_options_init(&g);
  ts_index_cli_init(&ic);
  struct args a = {0};
  ts_cli_reqs_init(&a.reqs, argc);
  a.upgrade_pkgs = ts_xcalloc((size_t)argc, sizeof *a.upgrade_pkgs);
  ts_build_cli_init(&a.build, argc);
  struct ts_plan_request q = {.download = download, .resolution = TS_RESOLUTION_HIGHEST,
                              .link_mode = TS_WHEEL_LINK_HARDLINK};
  const char *report = NULL, *debug_dir = NULL, *link_mode = NULL;
  char uv_platform[64];
  struct ts_error err = {0};
  int status = 0;
  bool opts_done = false;

  for (int i = 1; i < argc && status == 0; i++) {
    const char *s = argv[i], *v = NULL;
    if (opts_done || s[0] != '-' || !s[1]) {
      status = ts_cli_reqs_add_arg(&a.reqs, cmd, s);
      continue;
    }
    if (!strcmp(s, "--")) {
      opts_done = true;
      continue;
    }
    if (!strcmp(s, "--help") || !strcmp(s, "-h")) {
      ts_cli_install_help(stdout, download);
      args_free(&a);
      return 0;
    }
    int used = ts_cli_parse_global(cmd, argc, argv, &i);
    if (used == 0)
      used = ts_gpu_options_parse(&g, cmd, argc, argv, &i);
    if (used == 0)
      used = ts_index_cli_parse(&ic, cmd, argc, argv, &i);
    if (used == 0)
      used = ts_build_cli_parse(&a.build, cmd, argc, argv, &i);
    if (used == 0)
      used = parse_switch(&q, s);
    if (used == 0 && !strcmp(s, "--no-build")) /* uv's --only-binary :all: */
      used = ts_cli_reqs_add_binary(&a.reqs, cmd, ":all:", false) ? -1 : 1;
    if (used < 0)
      status = 2;
    if (used)
      continue;
    static const char *const valued[] = {
        "--python", "--python-version", "--platform", "--report", "--requirement",
        "-r", "--constraint", "-c", "--upgrade-package", "--resolution",
        "--link-mode", "--debug-solver", "--no-binary", "--only-binary", "--editable",
        "-e", "--target", "-t", "--prefix", "--python-platform", "--upgrade-strategy",
        "--dest", "-d"};
    size_t k = 0;
    int m = 0;
    while (k < sizeof valued / sizeof valued[0] &&
           (m = ts_cli_flag_value(valued[k], argc, argv, &i, &v)) == 0)
      k++;
    if (m < 0)
      status = ts_cli_usage_error(cmd, "%s needs a value", valued[k]);
    else if (m > 0)
      status = parse_valued(&q, &a, cmd, valued[k], v, &link_mode, &report, &debug_dir,
                            uv_platform);
    else
      status = ts_cli_usage_error(cmd, "unknown option '%s'", s);
  }
  if (status == 0 && ts_plan_request_check(&q, &err) != TS_OK)
    status = ts_cli_usage_error(cmd, "%s", err.detail);
  if (status == 0 && (ts_gpu_options_env(&g) < 0 ||
                      ts_cli_link_mode(cmd, link_mode, &q.link_mode) < 0))
    status = 2;
  if (status) {
    args_free(&a);
    return status;
  }
  ts_plan_request_settle(&q);
  /* A file's -i replaces the flag's; its other index lines add (pip). */
  ts_index_cli_apply_reqfile(&ic, &a.reqs.rf, NULL);
  q.pre |= a.reqs.rf.pre;
  q.require_hashes |= a.reqs.rf.require_hashes;
  q.prefer_binary |= a.reqs.rf.prefer_binary;
  if (ts_index_cli_finish(&ic, cmd) < 0) {
    args_free(&a);
    return 2;
  }
  if ((status = ts_cli_reqs_collect(&a.reqs, cmd, cmd)) != 0) {
    args_free(&a);
    return status;
  }
  /* Before resolving, as pip does: a named requirement without a hash. */
  if (ts_plan_check_requirement_hashes(a.reqs.all, a.reqs.nall, &q.require_hashes, &err) !=
      TS_OK) {
    args_free(&a);
    return ts_cli_report(&err);
  }

  struct ts_host host;
  struct ts_rules *rules = NULL;
  struct ts_named_backends nb;
  g.ov.platform = q.platform;
  if (ts_gpu_load_named(&g, &ic.opts, &host, &rules, &nb, &err) != TS_OK) {
    args_free(&a);
    return ts_cli_report(&err);
  }
  char *cache = ts_index_cli_cache_root(&ic);
  struct ts_source_build_options bo;
  const struct ts_reqfile_entry **build_cons = NULL;
  ts_build_cli_options(&a.build, &ic.opts, cache, &bo, &build_cons);
  struct ts_plan_options po = {
      .build = &bo, .host = &host, .rules = rules, .ignore_host = g.ignore_host, .variant_force = &g.variant_force,
      .torch_backends = nb.names, .ntorch_backends = nb.n, .index = &ic.opts, .entries = a.reqs.all, .nentries = a.reqs.nall,
      .upgrade_packages = a.upgrade_pkgs, .nupgrade_packages = a.nupgrade,
      .no_binary = (const char *const *)a.reqs.binary.no_binary,
      .nno_binary = a.reqs.binary.nno_binary,
      .only_binary = (const char *const *)a.reqs.binary.only_binary,
      .nonly_binary = a.reqs.binary.nonly_binary, .lock_cb = ts_cli_env_callbacks(),
      .debug_solver_dir = debug_dir, .probe_cache_dir = cache};
  ts_plan_request_options(&q, &po);
  struct ts_plan_result *res = NULL;
  enum ts_code rc = ts_plan_request_resolve(&q, &po, &res, &err);
  ts_cli_warn_plan_notes(res);
  if (rc != TS_OK)
    status = ts_cli_report_resolve_failure(rc, &err, res);
  else
    status = after_resolve(&q, res, report, rules, &host, g.ignore_host);
  ts_plan_result_free(res);
  free(build_cons);
  free(cache);
  ts_rules_free(rules);
  ts_host_clear(&host);
  ts_named_backends_clear(&nb);
  args_free(&a);
  return status;
}

int ts_cmd_install(int argc, char **argv) { return install_or_download(argc, argv, false); }

int ts_cmd_download(int argc, char **argv) { return install_or_download(argc, argv, true); }
