/* The provider of build environments that plan/ gives source/'s builds
 * (source/build.h's struct ts_source_env_provider): the resolver and the
 * installer, which sit above source/, so that a build never calls back
 * up. */
#include "plan/build_env.h"

#include <stdint.h>
#include <stdlib.h>

#include "core/alloc.h"
#include "core/fs.h"
#include "core/sha256.h"
#include "plan/plan.h"
#include "plan/plan_internal.h"

static enum ts_code resolve(const struct ts_source_build_options *o, const char *python,
                            bool read_installed, const struct ts_reqfile_entry *const *ents,
                            size_t n, bool torch_matched, void **env,
                            const struct ts_resolution **res, struct ts_error *err) {
  /* sdists are candidates too: one is built for this environment (a
   * build nested in this one) */
  struct ts_plan_options po = {.python = python, .index = o->index, .entries = ents,
                               .nentries = n, .read_installed = read_installed,
                               .probe_cache_dir = o->probe_cache_dir, .build = o};
  if (torch_matched) {
    /* the routes, not the host: the runtime's torch was judged already */
    po.host = o->host;
    po.rules = o->rules;
    po.ignore_host = true;
  }
  struct ts_plan_result *r = NULL;
  enum ts_code rc = ts_plan_resolve(&po, &r, err);
  *env = r;
  *res = r ? r->res : NULL;
  return rc;
}

static enum ts_code install(void *env, const volatile sig_atomic_t *cancel,
                            struct ts_error *err) {
  struct ts_plan_install_options io = {.link_mode = TS_WHEEL_LINK_HARDLINK,
                                       .break_system_packages = true,
                                       .cancel = cancel};
  return ts_plan_install(env, &io, NULL, err);
}

static void release(void *env) {
  ts_plan_result_free(env);
}

static enum ts_code install_files(struct ts_index *idx, const char *python,
                                  const char *probe_cache_dir,
                                  const struct ts_source_env_file *files, size_t n,
                                  const volatile sig_atomic_t *cancel, struct ts_error *err) {
  struct ts_plan_fetch *fx = ts_xcalloc(n ? n : 1, sizeof *fx);
  for (size_t i = 0; i < n; i++)
    fx[i] = (struct ts_plan_fetch){.project = files[i].project, .filename = files[i].filename,
                                   .url = files[i].url, .sha256 = files[i].sha256,
                                   .sha256_from = "the locked build environment",
                                   .cache_key = files[i].sha256, .size = -1};
  char *dir = NULL;
  struct ts_target *t = NULL;
  enum ts_code rc = ts_plan_fetch_run_dir(idx, NULL, &dir, err);
  struct ts_plan_fetch_options fopt = {.run_dir = dir};
  struct ts_plan_fetch_totals totals = {0};
  if (rc == TS_OK)
    rc = ts_plan_fetch_files(idx, fx, n, &fopt, &totals, err);
  if (rc == TS_OK)
    rc = ts_target_open(python, NULL, probe_cache_dir, &t, err);
  struct ts_wheel_request *rq = ts_xcalloc(n ? n : 1, sizeof *rq);
  uint8_t (*dig)[TS_SHA256_LEN] = ts_xcalloc(n ? n : 1, sizeof *dig);
  for (size_t i = 0; i < n && rc == TS_OK; i++) {
    if (ts_sha256_from_hex(fx[i].sha256_out, TS_SHA256_HEX_LEN, dig[i]) != TS_OK)
      rc = ts_error_set(err, TS_E_INTERNAL, "%s: no digest", fx[i].filename);
    rq[i] = (struct ts_wheel_request){.path = fx[i].local, .sha256 = dig[i]};
  }
  if (rc == TS_OK) {
    struct ts_plan_txn txn = {.target = t, .idx = idx, .rq = rq, .n = n,
                              .link_mode = TS_WHEEL_LINK_HARDLINK, .cancel = cancel};
    rc = ts_plan_run_transaction(&txn, NULL, err);
  }
  if (dir) {
    struct ts_error ignore = {0};
    ts_fs_remove_tree(dir, &ignore);
    free(dir);
  }
  free(rq);
  free(dig);
  ts_target_free(t);
  ts_plan_fetch_clear(fx, n);
  free(fx);
  return rc;
}

const struct ts_source_env_provider ts_plan_env_provider = {
    .resolve = resolve, .install = install, .release = release, .install_files = install_files};
