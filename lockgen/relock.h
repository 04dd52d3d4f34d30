/*
 * lockgen/relock.h — locking again over an existing lock (`torchsolve lock`
 * when the output file exists, `lock --check`).
 *
 * The existing lock's versions become the resolver's preferences
 * (resolver.h: soft, SOLVER_FAVOR), so re-locking keeps every locked
 * version that still fits and changes only what the requirements force;
 * `--upgrade-package P` leaves P (and only P) out of them, so P moves to
 * its best version and what P needs moves with it; `--upgrade` keeps
 * none.  `lock --check` compares the lock it would write with the file.
 */
#pragma once

#include <stdbool.h>
#include <stddef.h>

#include "core/error.h"
#include "lock/pylock.h"
#include "resolver/resolver.h"

struct ts_relock {
  struct ts_pylock *previous;               /* NULL: no lock there yet */
  struct ts_resolver_preference *prefs;     /* strings into previous */
  size_t nprefs;
  char **profile_args; /* previous's profiles as --profile texts
                          (ts_profile_args_of_lock), NULL when none */
  size_t nprofile_args;
};

/* Reads the lock at path when the file exists (none is no error) and
 * keeps each entry's (name, version) as a preference, less the names in
 * upgrade (any spelling), none with upgrade_all.  An existing file that
 * is no valid lock is an error naming it (TS_E_PARSE...), so that a
 * broken lock is never silently replaced.  Clear *out in any case. */
enum ts_code ts_relock_read(const char *path, const char *const *upgrade, size_t nupgrade,
                            bool upgrade_all, struct ts_relock *out, struct ts_error *err);
void ts_relock_clear(struct ts_relock *r);

/* *same: the file at path holds exactly the bytes lock is written as
 * (false when it is missing). */
enum ts_code ts_relock_same(const struct ts_pylock *lock, const char *path, bool *same,
                            struct ts_error *err);
