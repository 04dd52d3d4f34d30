/* An install or a download as asked: see request.h. */
#include "plan/request.h"

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "inventory/tree.h"
#include "plan/upgrade.h"

enum ts_code ts_plan_request_check(const struct ts_plan_request *q, struct ts_error *err) {
  if (q->download && q->install_only)
    return ts_error_set(err, TS_E_USAGE, "'%s' is an install option: download only "
                        "places the files in --dest", q->install_only);
  if (q->platform && !q->python_version)
    return ts_error_set(err, TS_E_USAGE, "--platform needs --python-version");
  if (q->system && q->python)
    return ts_error_set(err, TS_E_USAGE,
                        "--system and --python name two interpreters: give one");
  if (q->user && q->target_dir)
    return ts_error_set(err, TS_E_USAGE, "Can not combine '--user' and '--target'");
  if (q->user && q->prefix_dir)
    return ts_error_set(err, TS_E_USAGE, "Can not combine '--user' and '--prefix' as "
                        "they imply different installation locations");
  if (q->target_dir && q->prefix_dir)
    return ts_error_set(err, TS_E_USAGE, "--target and --prefix exclude each other");
  if (q->prefix_dir && q->python_version)
    return ts_error_set(err, TS_E_USAGE, "--prefix installs for an interpreter: drop "
                        "--python-version, or use --target DIR for another one");
  if (q->user && q->python_version)
    return ts_error_set(err, TS_E_USAGE, "--user installs for an interpreter: drop "
                        "--python-version, or use --target DIR for another one");
  return TS_OK;
}

void ts_plan_request_settle(struct ts_plan_request *q) {
  if (q->system)
    q->python = "python3"; /* the interpreter on PATH; PEP 668 still applies */
  /* A tree outside any environment (multi-stage images) or a download:
   * with no venv to name the interpreter, the python3 on PATH, as pip's
   * (the places ts_target_locate looks, in its order). */
  if ((q->target_dir || q->prefix_dir || q->download) && !q->python &&
      !getenv("TORCHSOLVE_PYTHON") && !getenv("VIRTUAL_ENV") &&
      access(".venv/bin/python", X_OK) != 0)
    q->python = "python3";
  /* --python-version plans for that interpreter (this host's platform
   * unless --platform): --python is then ignored, nothing is installed
   * but a --target tree (pip's cross-target recipe: a Lambda layer). */
  if (q->python_version && !q->download && !q->target_dir)
    q->dry_run = true;
  if (!q->dest)
    q->dest = ".";
}

void ts_plan_request_options(struct ts_plan_request *q, struct ts_plan_options *po) {
  q->spec_ = (struct ts_target_spec){.python_version = q->python_version,
                                     .platform = q->platform};
  po->python = q->python;
  po->spec = q->python_version ? &q->spec_ : NULL;
  po->resolution = q->resolution;
  po->pre = q->pre;
  po->prefer_binary = q->prefer_binary;
  po->dry_run = q->dry_run;
  po->upgrade = q->upgrade;
  po->force_reinstall = q->force_reinstall;
  po->no_deps = q->no_deps;
  /* a download or a --target tree: what the interpreter has installed
   * is not what the files are for (a --prefix tree counts it, as pip) */
  po->read_installed = !q->download && !q->ignore_installed && !q->target_dir;
  po->user_site = q->user;
  po->lock_env = !q->dry_run && !q->download && !q->target_dir && !q->prefix_dir &&
                 !q->user;
  po->no_wait = q->no_wait;
  po->break_system_packages = q->break_system_packages;
  q->runtime_io_ = (struct ts_plan_install_options){
      .break_system_packages = q->break_system_packages, .link_mode = q->link_mode,
      .compile = q->compile, .allow_overwrite = q->allow_overwrite,
      .verify_cache = q->verify_cache};
  po->runtime_install = po->lock_env ? &q->runtime_io_ : NULL;
}

enum ts_code ts_plan_request_resolve(const struct ts_plan_request *q,
                                     const struct ts_plan_options *po,
                                     struct ts_plan_result **out, struct ts_error *err) {
  return q->eager && q->upgrade ? ts_plan_resolve_eager(po, out, err)
                                : ts_plan_resolve(po, out, err);
}

size_t ts_plan_count_changes(const struct ts_plan_result *r) {
  size_t c = 0;
  for (size_t i = 0; r->res && i < r->res->nitems; i++)
    c += r->res->items[i].action != TS_ACTION_KEEP;
  return c + r->norphans;
}

void ts_plan_outcome_clear(struct ts_plan_outcome *o) { ts_plan_notes_clear(&o->kept); }

enum ts_code ts_plan_request_carry_out(const struct ts_plan_request *q,
                                       struct ts_plan_result *r,
                                       const struct ts_plan_callbacks *cb,
                                       const volatile sig_atomic_t *cancel,
                                       struct ts_plan_outcome *out, struct ts_error *err) {
  memset(out, 0, sizeof *out);
  struct ts_plan_tree tree = {0};
  enum ts_code rc = TS_OK;
  /* a tree is made only when something is installed, as pip makes none
   * when everything is satisfied */
  if (q->user && !q->break_system_packages)
    rc = ts_target_check_externally_managed(r->target, err);
  bool changes = ts_plan_count_changes(r) > 0;
  if (rc == TS_OK && q->user && (changes || r->target->is_venv))
    rc = ts_plan_tree_user(r->target, &tree, err);
  else if (rc == TS_OK && (q->target_dir || q->prefix_dir) && changes)
    rc = q->target_dir ? ts_plan_tree_target(r->target, q->target_dir, &tree, err)
                       : ts_plan_tree_prefix(r->target, q->prefix_dir, &tree, err);
  if (rc == TS_OK) {
    struct ts_plan_install_options io = {
        .require_hashes = q->require_hashes, .break_system_packages = q->break_system_packages,
        .link_mode = q->link_mode, .compile = q->compile,
        .allow_overwrite = q->allow_overwrite, .verify_cache = q->verify_cache,
        .cancel = cancel, .cb = *cb,
        .paths = tree.dir ? &tree.paths : NULL, .save_dir = q->download ? q->dest : NULL};
    rc = ts_plan_install(r, &io, &out->changed, err);
  }
  if (rc == TS_OK && tree.stage)
    rc = ts_plan_tree_target_finish(&tree, q->upgrade, &out->kept, err);
  ts_plan_tree_free(&tree);
  return rc;
}
