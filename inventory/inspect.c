/*
 * inventory/inspect.c — pip inspect over an installed set (see
 * inventory.h); the JSON is inventory/report.h's.
 */
#include <stdlib.h>

#include "core/alloc.h"
#include "inventory/report.h"
#include "inventory/inventory.h"

enum ts_code ts_plan_inspect(const struct ts_plan_env *env, struct ts_buf *out,
                             struct ts_error *err) {
  const struct ts_installed_set *s = &env->installed;
  struct ts_inspect_item *items = ts_xcalloc(s->ndists, sizeof *items);
  struct ts_report_kv **kvs = ts_xcalloc(s->ndists, sizeof *kvs);
  for (size_t i = 0; i < s->ndists; i++) {
    const struct ts_installed_dist *d = &s->dists[i];
    size_t n = 0;
    kvs[i] = ts_report_metadata_kvs(d->md, &n);
    items[i] = (struct ts_inspect_item){
        .name = d->site->name, .version = d->version, .metadata = kvs[i], .nmetadata = n,
        .metadata_location = d->site->dist_info, .direct_url_json = d->direct_url_json,
        .installer = d->installer, .requested = d->site->requested};
  }
  struct ts_report_kv env_kv[TS_REPORT_ENV_KEYS];
  size_t nenv = ts_report_env_from_markers(&env->target->markers, env_kv);
  struct ts_inspect r = {.tool_version = "torchsolve " TS_VERSION, .items = items,
                         .nitems = s->ndists, .environment = env_kv,
                         .nenvironment = nenv};
  enum ts_code rc = ts_report_write_inspect(&r, out, err);
  for (size_t i = 0; i < s->ndists; i++)
    free(kvs[i]);
  free(kvs);
  free(items);
  return rc;
}
