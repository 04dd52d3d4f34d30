/*
 * inventory/uninstall.h — removing distributions from an environment
 * (inventory/env.h) through their RECORD, as one transaction (wheel/wheel.h).
 */
#pragma once

#include <signal.h>
#include <stdbool.h>
#include <stddef.h>

#include "core/error.h"
#include "inventory/env.h"
#include "inventory/inventory.h"
#include "wheel/wheel.h"

struct ts_plan_uninstall_options {
  const char *const *names;   /* any spelling; a name given twice counts once */
  size_t nnames;
  /* pip's rule: a name that is not installed is skipped (listed in
   * *missing).  Without it, any such name is TS_E_NOT_FOUND and nothing is
   * removed. */
  bool skip_missing;
  bool break_system_packages; /* skip the PEP 668 refusal */
  bool no_wait;               /* TS_E_BUSY when another run holds the env */
  const volatile sig_atomic_t *cancel;
  struct ts_wheel_callbacks cb;
};

/* Checks PEP 668 (ts_target_check_externally_managed), then removes every
 * installed name at once.  *removed gets what was removed (free with
 * ts_wheel_result_clear); *missing the names not installed (with
 * skip_missing).  Nothing installed of what was named is not an error
 * with skip_missing: nothing happens. */
enum ts_code ts_plan_uninstall(const struct ts_plan_env *env,
                               const struct ts_plan_uninstall_options *o,
                               struct ts_wheel_result *removed,
                               struct ts_plan_notes *missing, struct ts_error *err);
