/*
 * inventory/env.h — an existing environment, for the commands that read or
 * change what is installed without resolving (uninstall, list, freeze,
 * show, inspect): the located and probed interpreter, its install paths
 * and its installed distributions.
 */
#pragma once

#include <stdbool.h>

#include "core/error.h"
#include "inventory/installed.h"
#include "target/target.h"
#include "wheel/wheel.h"

struct ts_plan_env {
  struct ts_target *target;
  struct ts_wheel_paths paths; /* into target, headers and python below */
  char *headers;               /* <data>/include/site/pythonX.Y */
  char *python;                /* absolute, not resolved (launchers) */
  struct ts_installed_set installed; /* purelib then platlib */
};

/* Locates the interpreter (ts_target_locate rules: python, else
 * $TORCHSOLVE_PYTHON, $VIRTUAL_ENV, ./.venv), probes it (cached under
 * probe_cache_dir when non-NULL) and reads its installed set.  Errors as
 * ts_target_locate/ts_target_probe, TS_E_PYTHON for an interpreter that
 * reports no install paths, ts_installed_read's.  Close with
 * ts_plan_env_close (also after an error). */
enum ts_code ts_plan_env_open(const char *python, const char *probe_cache_dir,
                              struct ts_plan_env *env, struct ts_error *err);
void ts_plan_env_close(struct ts_plan_env *env);
