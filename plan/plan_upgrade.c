/*
 * plan/plan_upgrade.c — --upgrade-strategy eager (see upgrade.h).
 */
#include "plan/upgrade.h"

#include <stdlib.h>

#include "core/alloc.h"

enum ts_code ts_plan_resolve_eager(const struct ts_plan_options *o,
                                   struct ts_plan_result **out, struct ts_error *err) {
  struct ts_plan_options first = *o;
  first.lock_env = false;
  enum ts_code rc = ts_plan_resolve(&first, out, err);
  if (rc != TS_OK)
    return rc;
  const struct ts_resolution *res = (*out)->res;
  size_t n = o->nupgrade_packages + res->nitems;
  const char **names = ts_xcalloc(n, sizeof *names);
  for (size_t i = 0; i < o->nupgrade_packages; i++)
    names[i] = o->upgrade_packages[i];
  for (size_t i = 0; i < res->nitems; i++)
    names[o->nupgrade_packages + i] = res->items[i].name;
  struct ts_plan_options second = *o;
  second.upgrade_packages = names;
  second.nupgrade_packages = n;
  struct ts_plan_result *r = NULL;
  rc = ts_plan_resolve(&second, &r, err);
  ts_plan_result_free(*out); /* names point into it until now */
  free(names);
  *out = r;
  return rc;
}
