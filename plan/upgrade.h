/*
 * plan/upgrade.h — pip's --upgrade-strategy eager: every dependency of
 * what is installed or upgraded moves to its best version too, not only
 * the named projects (only-if-needed, torchsolve's --upgrade).
 */
#pragma once

#include "plan/plan.h"

/* Resolves once (without the environment lock) to learn the dependency
 * closure, then again, as ts_plan_resolve with o, with each project of
 * that closure added to the upgrade_packages.  Same results and errors as
 * ts_plan_resolve (a failing first pass is returned as it is). */
enum ts_code ts_plan_resolve_eager(const struct ts_plan_options *o,
                                   struct ts_plan_result **out, struct ts_error *err);
