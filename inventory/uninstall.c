/*
 * inventory/uninstall.c — uninstall (see uninstall.h).
 */
#include <stdlib.h>
#include <string.h>

#include "core/alloc.h"
#include "core/str.h"
#include "inventory/uninstall.h"

enum ts_code ts_plan_uninstall(const struct ts_plan_env *env,
                               const struct ts_plan_uninstall_options *o,
                               struct ts_wheel_result *removed,
                               struct ts_plan_notes *missing, struct ts_error *err) {
  memset(removed, 0, sizeof *removed);
  if (!o->break_system_packages) {
    enum ts_code rc = ts_target_check_externally_managed(env->target, err);
    if (rc != TS_OK)
      return rc;
  }
  /* Each installed distribution once, under its own name. */
  const char **names = ts_xcalloc(o->nnames ? o->nnames : 1, sizeof *names);
  size_t n = 0;
  for (size_t i = 0; i < o->nnames; i++) {
    const struct ts_installed_dist *d = ts_installed_find(&env->installed, o->names[i]);
    if (!d) {
      if (!o->skip_missing) {
        free(names);
        return ts_error_set(err, TS_E_NOT_FOUND,
                            "'%s' is not installed in %s: nothing was uninstalled",
                            o->names[i], env->paths.prefix);
      }
      ts_plan_notes_add(missing, ts_xstrdup(o->names[i]));
      continue;
    }
    bool dup = false;
    for (size_t k = 0; k < n && !dup; k++)
      dup = strcmp(names[k], d->site->name) == 0;
    if (!dup)
      names[n++] = d->site->name;
  }
  enum ts_code rc = TS_OK;
  if (n) {
    struct ts_wheel_options wo = {.paths = &env->paths, .cancel = o->cancel, .cb = o->cb,
                                .no_wait = o->no_wait};
    rc = ts_wheel_uninstall(&wo, names, n, removed, err);
  }
  free(names);
  return rc;
}
