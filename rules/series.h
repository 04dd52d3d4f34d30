/*
 * rules/series.h — the backends each torch release series may use on a
 * host.  The newest series is not the only one that matters: an RX 7900 XT
 * on ROCm 6.2 has no GPU build of the newest torch but has rocm6.1 builds
 * of 2.4.  Install routes the usable backends of every series (plan/), and
 * detect and install's CPU note name the newest series with a GPU build
 * here: both walk the series through ts_rules_each_series, so what detect
 * reports is what install would pick.
 */
#pragma once

#include <stdbool.h>

#include "host/host.h"
#include "rules/constraint.h"
#include "rules/rules.h"

/* Called with each series' backend list, newest series first (the
 * callee may take the list: what it leaves is cleared); true stops the
 * walk. */
typedef bool (*ts_rules_series_fn)(void *ctx, const struct ts_rules_release *rel,
                                   struct ts_constraint_set *backends);

/* The backend list of every release series of `rules` on `host`
 * (ts_rules_release_backends over `compiled`, the set ts_rules_compile
 * made for the same rules, host and ignore_host), newest series first; a
 * series whose list cannot be made is passed over. */
void ts_rules_each_series(const struct ts_rules *rules, const struct ts_host *host,
                          bool ignore_host, const struct ts_constraint_set *compiled,
                          ts_rules_series_fn fn, void *ctx);

/* Whether a backend list has a usable backend other than CPU. */
bool ts_rules_has_gpu_backend(const struct ts_constraint_set *s);

/* The newest series with a usable GPU backend on `host`, or NULL; with
 * `out`, its backend list and its series as `release` (zeroed when there
 * is none; the caller clears it with ts_constraint_set_clear). */
const struct ts_rules_release *ts_rules_newest_gpu_series(const struct ts_rules *rules,
                                                          const struct ts_host *host,
                                                          bool ignore_host,
                                                          const struct ts_constraint_set *compiled,
                                                          struct ts_constraint_set *out);
