/*
 * lock/selection.h — which of a pylock.toml's extras and dependency groups
 * an install takes (sync and export: --extra, --all-extras, --group,
 * --all-groups, --no-default-groups), as the sets PEP 751 evaluates
 * markers with.
 *
 * PEP 751: `extras` is empty unless extras are asked for, and
 * `dependency_groups` is the lock's `default-groups` by default.  Groups
 * asked for are added to the default groups (as uv's --group adds to its
 * default groups); --no-default-groups leaves those out.  The names a
 * user may ask for are the lock's own `extras` and `dependency-groups`
 * lists, PEP 685 normalised ("Dev_Tools" is dev-tools); anything else is
 * refused naming the valid ones.  A fleet lock's GPU profiles are extras
 * too (lockgen/profiles.h), but they are chosen by --profile, which picks
 * exactly one: an extra that is a profile is refused, pointing there, and
 * --all-extras takes every extra but those.  The profile sync or export
 * picked comes in as `profile_extra`.
 *
 * The result never depends on the order of the names asked for: both
 * sets are sorted and unique.
 */
#pragma once

#include <stdbool.h>
#include <stddef.h>

#include "core/error.h"
#include "lock/pylock.h"

struct ts_lock_request {
  const char *const *extras; /* as typed */
  size_t nextras;
  bool all_extras;
  const char *const *groups; /* as typed */
  size_t ngroups;
  bool all_groups;
  bool no_default_groups;
};

struct ts_lock_selection {
  char **extras; /* normalised, sorted, unique; the profile's included */
  size_t nextras;
  char **groups; /* normalised, sorted, unique; the default groups included */
  size_t ngroups;
  /* PEP 825: the place of a locked variant wheel's label among the
   * variants of pkg (which has a variants_json) this host may install
   * (0 = best), -1 when it may not; NULL (ts_lock_select leaves it so):
   * a lock listing several variants of one version is refused. */
  long (*variant_rank)(void *ctx, const struct ts_pylock_package *pkg, const char *label);
  void *variant_ctx;
};

/* The selection rq (NULL: nothing asked for) makes of lock, plus the
 * profile extra (NULL: none).  TS_E_INVALID naming the option and the
 * lock's valid names for an extra or group the lock does not declare, or
 * an extra that is one of its GPU profiles.  Clear *out with
 * ts_lock_selection_clear in every case. */
enum ts_code ts_lock_select(const struct ts_pylock *lock, const struct ts_lock_request *rq,
                            const char *profile_extra, struct ts_lock_selection *out,
                            struct ts_error *err);
void ts_lock_selection_clear(struct ts_lock_selection *s);

/* The part of lock a selection installs, decided in place (export: a
 * requirements file has no extras or groups to evaluate): each entry's
 * marker has its `extras` and `dependency_groups` comparisons decided
 * (pep/requirement.h's ts_marker_decide_sets); an entry that then holds
 * nowhere is removed, the others keep what is left of their markers (none
 * when nothing is).  TS_E_PARSE naming the package for a marker that
 * cannot be read or evaluated; the lock is unchanged then. */
enum ts_code ts_lock_selection_apply(struct ts_pylock *lock, const struct ts_lock_selection *sel,
                                     struct ts_error *err);
