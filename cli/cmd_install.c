/* torchsolve install — resolve requirements against the indexes and the GPU
 * rules, then download and install them as one transaction.  The work is in
 * plan/; this file parses flags, draws progress and prints the outcome. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "cli/install_args.h"
#include "cli/named_backend.h"
#include "cli/progress.h"
#include "cli/resolution_notes.h"
#include "core/alloc.h"
#include "core/buf.h"
#include "plan/dry_run.h"
#include "plan/plan.h"
#include "plan/request.h"
#include "resolver/resolver.h"

/* ---- report --------------------------------------------------------- */

static int write_report(const char *dest, const struct ts_plan_result *r) {
  struct ts_buf b;
  ts_buf_init(&b, TS_PLAN_REPORT_CAP);
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

/* The answer's memory is left to the process's exit instead of being freed
 * piece by piece: the command ends right after, and walking a 200-project
 * answer's metadata and requirement trees to free them was 6% of a warm
 * resolve's instructions (callgrind, the bench's scenario c).  It stays
 * reachable from here, so leak checkers count it as in use; a second
 * command in the same process frees the one before.  The rest of the
 * result (the environment's lock, the cache's pack, temporary files) is
 * released as always. */
static struct ts_resolution *answer_kept_until_exit;

static void result_free_keeping_answer(struct ts_plan_result *res) {
  if (res) {
    ts_resolution_free(answer_kept_until_exit);
    answer_kept_until_exit = res->res;
    res->res = NULL;
  }
  ts_plan_result_free(res);
}

/* The request settled and resolved, then after_resolve. */
static int install_run(struct ts_install_args *a) {
  const char *cmd = a->cmd;
  struct ts_plan_request *q = &a->q;
  struct ts_error err = {0};
  ts_plan_request_settle(q);
  /* A file's -i replaces the flag's; its other index lines add (pip). */
  ts_index_cli_apply_reqfile(&a->ic, &a->reqs.rf, NULL);
  q->pre |= a->reqs.rf.pre;
  q->require_hashes |= a->reqs.rf.require_hashes;
  q->prefer_binary |= a->reqs.rf.prefer_binary;
  if (ts_index_cli_finish(&a->ic, cmd) < 0)
    return 2;
  int status = ts_cli_reqs_collect(&a->reqs, cmd, cmd);
  if (status)
    return status;
  /* Before resolving, as pip does: a named requirement without a hash. */
  if (ts_plan_check_requirement_hashes(a->reqs.all, a->reqs.nall, &q->require_hashes, &err) !=
      TS_OK)
    return ts_cli_report(&err);
  struct ts_host host;
  struct ts_rules *rules = NULL;
  struct ts_named_backends nb;
  a->g.ov.platform = q->platform;
  if (ts_gpu_load_named(&a->g, &a->ic.opts, &host, &rules, &nb, &err) != TS_OK)
    return ts_cli_report(&err);
  char *cache = ts_index_cli_cache_root(&a->ic);
  struct ts_source_build_options bo;
  const struct ts_reqfile_entry **build_cons = NULL;
  ts_build_cli_options(&a->build, &a->ic.opts, cache, &bo, &build_cons);
  struct ts_plan_options po = {
      .build = &bo, .host = &host, .rules = rules, .ignore_host = a->g.ignore_host,
      .variant_force = &a->g.variant_force, .torch_backends = nb.names,
      .ntorch_backends = nb.n, .index = &a->ic.opts, .entries = a->reqs.all,
      .nentries = a->reqs.nall, .upgrade_packages = a->upgrade_pkgs,
      .nupgrade_packages = a->nupgrade,
      .no_binary = (const char *const *)a->reqs.binary.no_binary,
      .nno_binary = a->reqs.binary.nno_binary,
      .only_binary = (const char *const *)a->reqs.binary.only_binary,
      .nonly_binary = a->reqs.binary.nonly_binary, .lock_cb = ts_cli_env_callbacks(),
      .debug_solver_dir = a->debug_dir, .probe_cache_dir = cache};
  ts_plan_request_options(q, &po);
  struct ts_plan_result *res = NULL;
  enum ts_code rc = ts_plan_request_resolve(q, &po, &res, &err);
  ts_cli_warn_plan_notes(res);
  if (rc != TS_OK)
    status = ts_cli_report_resolve_failure(rc, &err, res);
  else
    status = after_resolve(q, res, a->report, rules, &host, a->g.ignore_host);
  result_free_keeping_answer(res);
  free(build_cons);
  free(cache);
  ts_rules_free(rules);
  ts_host_clear(&host);
  ts_named_backends_clear(&nb);
  return status;
}

/* install and download share everything up to what is done with the
 * resolution: installed, or the files placed in a directory. */
static int install_or_download(int argc, char **argv, bool download) {
  struct ts_install_args a;
  ts_install_args_init(&a, argc, download);
  struct ts_error err = {0};
  int status = ts_install_args_parse(&a, argc, argv);
  if (status == 0 && !a.help && ts_plan_request_check(&a.q, &err) != TS_OK)
    status = ts_cli_usage_error(a.cmd, "%s", err.detail);
  if (status == 0 && !a.help &&
      (ts_gpu_options_env(&a.g) < 0 || ts_cli_link_mode(a.cmd, a.link_mode, &a.q.link_mode) < 0))
    status = 2;
  if (status == 0 && !a.help)
    status = install_run(&a);
  ts_install_args_free(&a);
  return status;
}

int ts_cmd_install(int argc, char **argv) { return install_or_download(argc, argv, false); }

int ts_cmd_download(int argc, char **argv) { return install_or_download(argc, argv, true); }
