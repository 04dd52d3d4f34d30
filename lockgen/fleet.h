/*
 * lockgen/fleet.h — several resolutions as one PEP 751 lock: the merge that
 * fleet locks share (lock --profile: one resolution per GPU profile;
 * lock --universal: one per fork of the environment space).
 *
 * Input: N locks, each the lock of one resolution (ts_plan_to_pylock),
 * each with the marker condition under which that resolution applies:
 * "'cu126' in extras and 'rocm6.4' not in extras", "sys_platform ==
 * 'win32'".  The conditions must exclude each other (the caller's
 * promise: markers cannot be compared in general).
 *
 * Output: one lock with every input's entries, each written once:
 *   - an entry identical in every input (ts_pylock_package_equal, its
 *     marker included) keeps its own marker: one unmarked numpy for all;
 *   - an entry identical in only some inputs gets its marker and-ed with
 *     the or of those inputs' conditions: "(C1) or (C2)", and
 *     "(M) and ((C1) or (C2))" when it had a marker M.
 * So wherever input i's condition holds (and one of its environments),
 * exactly input i's entries apply, and nothing of another input that
 * differs from it.  Only `packages` is filled: the caller sets
 * requires-python, environments, extras and [tool] of the result.
 * Deterministic: the same (lock, condition) pairs in any order give the
 * same lock (the writer sorts packages; conditions are joined sorted).
 */
#pragma once

#include <stdbool.h>
#include <stddef.h>

#include "core/error.h"
#include "lock/pylock.h"

struct ts_fleet_input {
  const struct ts_pylock *lock;  /* borrowed */
  const char *condition;         /* a PEP 508 marker; NULL only when n == 1 */
};

/* Merges n >= 1 inputs into a new lock (*out, freed with ts_pylock_free).
 * TS_E_INVALID when a condition is missing or is no marker, or when a
 * merged entry would not read back (err names the package). */
enum ts_code ts_fleet_merge(const struct ts_fleet_input *in, size_t n,
                            struct ts_pylock **out, struct ts_error *err);

/* A caller that knows what its conditions mean may say an or of several
 * more simply: the marker true exactly where one of the inputs marked in
 * members[0..n) applies (malloc'd), or NULL for the or as above.  It must
 * not depend on the order of the inputs (the bytes would). */
typedef char *(*ts_fleet_simplify_fn)(const bool *members, size_t n, void *ctx);

/* ts_fleet_merge with such a simplification (NULL: none). */
enum ts_code ts_fleet_merge_simplified(const struct ts_fleet_input *in, size_t n,
                                       ts_fleet_simplify_fn simplify, void *ctx,
                                       struct ts_pylock **out, struct ts_error *err);

/* "(a) and (b)" as a marker, each side parenthesised only where it has an
 * `or`; a or b NULL gives the other.  malloc'd; NULL when both are. */
char *ts_fleet_marker_and(const char *a, const char *b);
