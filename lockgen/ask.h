/*
 * lockgen/ask.h — what `lock` is asked to produce, settled before it
 * resolves: the command line's choices completed by the project it locks
 * (pyproject.toml's requires-python, environments and GPU profiles where
 * the command line gave none; --profile overrides the file's) and, for
 * `lock --check`, by the lock it checks (a universal lock's grid, a fleet
 * lock's profiles), then the profiles parsed against the rules.
 */
#pragma once

#include <stdbool.h>
#include <stddef.h>

#include "core/error.h"
#include "lockgen/profiles.h"
#include "lockgen/relock.h"
#include "request/pyproject.h"
#include "rules/rules.h"

struct ts_lock_ask {
  bool universal;              /* --universal */
  bool check;                  /* --check */
  bool python_version;         /* --python-version: one described target */
  const char *requires_python; /* --requires-python, or NULL */
  const char *const *environments; /* --environment markers */
  size_t nenvironments;
  const char *const *profile_args; /* --profile texts */
  size_t nprofile_args;
  /* where the profiles came from when not --profile ("pyproject.toml:
   * tool.torchsolve.profiles"), heading their errors; NULL: --profile */
  const char *profiles_from;
};

/* The project's defaults for what the command line left out.  Strings
 * are borrowed from p. */
void ts_lock_ask_from_project(struct ts_lock_ask *a, const struct ts_project *p);

/* lock --check: without --universal and its options, a universal lock is
 * checked against the grid it records; without --profile, a fleet lock
 * against its profiles.  Strings are borrowed from r. */
void ts_lock_ask_from_previous(struct ts_lock_ask *a, const struct ts_relock *r);

/* The profiles parsed (a->nprofile_args of them, distinct), freed with
 * ts_lock_ask_profiles_free; *out is NULL without profiles.  The error of
 * a bad one, headed by profiles_from. */
enum ts_code ts_lock_ask_profiles(const struct ts_lock_ask *a, const struct ts_rules *rules,
                                  struct ts_profile **out, struct ts_error *err);
void ts_lock_ask_profiles_free(struct ts_profile *profiles, size_t n);
