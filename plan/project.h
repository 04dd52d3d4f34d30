/*
 * plan/project.h — a project's lock (request/pyproject.h as lock's input):
 * which packages only its extras and dependency groups need, as PEP 751
 * says to mark them.
 */
#pragma once

#include "core/error.h"
#include "lock/pylock.h"
#include "request/pyproject.h"

/* Marks a lock resolved from every requirement of the project (its
 * dependencies, extras and groups together): a package its dependencies
 * reach (through the lock's `dependencies`) stays as it is; any other gets
 * "'x' in extras or 'g' in dependency_groups" (the extras and groups that
 * reach it) and-ed to its marker.  The lock's `extras` and
 * `dependency-groups` then list the project's (beside any already there,
 * sorted).  TS_E_INVALID when a marked entry would not read back. */
enum ts_code ts_plan_project_mark(const struct ts_project *p, struct ts_pylock *lock,
                                  struct ts_error *err);
