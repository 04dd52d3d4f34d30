/*
 * plan/dry_run.h — the plan --dry-run prints, one line per package, in
 * one shape for install and sync: "action name version variant index",
 * and " (was OLD)" for a change of what is installed.
 */
#pragma once

#include "lock/syncplan.h"
#include "inventory/inventory.h"
#include "plan/plan.h"

/* One line of a --dry-run plan, as install and sync print it: "action name
 * version variant index", the variant the local label ("-" when none),
 * the index without credentials ("-" when NULL), then " (was OLD)" when
 * was is non-NULL.  malloc'd. */
char *ts_plan_dry_run_line(const char *action, const char *name, const char *version,
                           const char *index, const char *was);

/* The dry-run lines of a resolution, one per item in its order (a PEP 825
 * variant wheel's label in brackets in the variant column); (was OLD)
 * for a change of an installed version (not for keep or install), then
 * " (would build)" for an item to be built from its sdist. */
void ts_plan_dry_run_lines(const struct ts_plan_result *r, struct ts_plan_notes *out);

/* The dry-run lines of a sync plan: install, keep, remove, or for a change
 * upgrade, downgrade or reinstall as the versions compare ("change" when
 * one does not parse), with (was OLD); the source is the lock's index. */
void ts_plan_sync_dry_run_lines(const struct ts_sync_plan *plan, struct ts_plan_notes *out);
