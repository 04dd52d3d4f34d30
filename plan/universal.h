/*
 * plan/universal.h — one multi-use PEP 751 lock for many environments
 * (`torchsolve lock --universal`).
 *
 * The environments are a grid: Linux, macOS and Windows, each on x86_64
 * and arm64, CPython and PyPy, every Python minor that requires-python
 * allows (up to TS_UNIVERSAL_NEWEST_MINOR), less those no --environment
 * marker admits.  Each grid point is resolved as a cross-target lock is
 * (plan.h, a target spec with the point's platform tags and markers),
 * newest Python first, each preferring the versions earlier points chose
 * (and an existing lock's), so that environments share versions wherever
 * the requirements let them; where they still differ, the version most
 * environments chose (then the newest) is offered to the others and
 * taken when all of them can (not under --resolution lowest or
 * lowest-direct, where the lowest versions asked for win over
 * preferences).  A point no wheel covers is solved again
 * with every file as a candidate (the lock then lists the version's
 * wheels of other tags or its sdist for it).
 *
 * The answers are merged through ts_fleet_merge (plan/fleet.h): the
 * environments with the same answer form one input, its condition the
 * marker true on exactly their grid points, derived and simplified
 * deterministically (points that differ in one dimension merged, terms
 * widened over the points the grid leaves out, the shorter of widening
 * wherever it can and only where it shortens), each condition written so
 * that values off the grid (FreeBSD, i686, GraalPy, a newer Python) fall
 * to exactly one side.  One [[packages]] entry per (name, version), the
 * same in every answer that holds it: unmarked when all do, else under
 * the or of their conditions, so that in every environment at most one
 * entry of a name applies.  Per entry: its dependencies in the
 * environments that chose it, every wheel of the version compatible with
 * one of them, and the sdist when some covered
 * point has no such wheel.  The same inputs give the same bytes.
 *
 * The lock records no host's facts (it is for every machine): the ids of
 * the rules its builds met and the grid ([tool.torchsolve.universal]).
 *
 * With GPU profiles (plan/profiles.h) the grid is resolved once per
 * profile, each point on the machine the profile stands for there: its
 * GPU facts on the point's machine, and a CPU machine on macOS, where no
 * GPU backend has builds (where a backend has no wheel for a point the
 * resolver falls back to the CPU build).  An existing lock's builds of
 * other variants are no preferences of a profile.  The profiles' locks
 * are merged by ts_plan_profiles_merge: every entry then carries its
 * environment marker and-ed with its profiles' extras condition, and each
 * profile records its GPU facts and rule ids.
 */
#pragma once

#include <stdbool.h>
#include <stddef.h>

#include "core/error.h"
#include "lock/pylock.h"
#include "plan/plan.h"
#include "plan/profiles.h"

/* The newest Python minor a universal lock covers (3.15). */
#define TS_UNIVERSAL_NEWEST_MINOR 15

struct ts_universal_options {
  /* Requirements, indexes, host, rules, resolution mode and preferences
   * (borrowed); its python/spec/read_installed are ignored. */
  const struct ts_plan_options *base;
  const char *requires_python;  /* specifier set ("">=3.10"), required */
  const char *const *environments; /* PEP 508 markers; none: every point */
  size_t nenvironments;
  const char *output;           /* where the lock goes (relative paths) */
  /* GPU profiles (plan/profiles.h), borrowed; none: every point is
   * resolved for base's host */
  const struct ts_profile *profiles;
  size_t nprofiles;
};

struct ts_universal_result {
  struct ts_pylock *lock;       /* on success */
  size_t npoints;               /* environments solved (per profile) */
  size_t nsolves;               /* resolutions run (fallbacks included) */
  /* one line each: the resolutions' notes once (where an sdist's
   * metadata came from), then per package the environments resolved only
   * with files of other tags or an sdist ("no wheel of b 1.0 for linux
   * (aarch64; CPython 3.12): the lock lists b-1.0.tar.gz there") */
  char **notes;
  size_t nnotes;
  /* on TS_E_RESOLVE: the environment that failed and the resolver's
   * explanation */
  char *failed_env;
  char **why;
  size_t nwhy;
};

/* Resolves every grid point and merges the answers into out->lock.
 * TS_E_INVALID for a bad requires-python or environment marker, or when
 * they leave no grid point; TS_E_RESOLVE with failed_env and why when a
 * point has no resolution; other codes from resolving and hashing.
 * Clear *out with ts_universal_result_clear whatever is returned. */
enum ts_code ts_plan_universal_lock(const struct ts_universal_options *o,
                                    struct ts_universal_result *out, struct ts_error *err);
void ts_universal_result_clear(struct ts_universal_result *r);

/* The requires-python a universal lock defaults to without a project's:
 * ">=X.Y" of the interpreter `python` names (ts_target_locate rules,
 * probed through probe_cache_dir).  *out malloc'd.  TS_E_PYTHON (with
 * "pass --requires-python") when there is none. */
enum ts_code ts_plan_default_requires_python(const char *python, const char *probe_cache_dir,
                                             char **out, struct ts_error *err);
