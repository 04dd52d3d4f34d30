/*
 * plan/profile_choice.h — which profile of a fleet lock (lockgen/profiles.h,
 * lock --profile) a host runs: sync's choice, and export's lookup by name.
 */
#pragma once

#include <stddef.h>

#include "core/error.h"
#include "host/host.h"
#include "lock/pylock.h"
#include "pep/requirement.h"
#include "pep/tags.h"
#include "rules/rules.h"

struct ts_profile_verdict {
  const struct ts_pylock_profile *profile; /* into the lock */
  const struct ts_rules_backend *backend;  /* into the rules; NULL when
                                              rules.yaml has no such id */
  struct ts_rules_finding *findings;       /* the rules its builds break
                                              on this host */
  size_t nfindings;
  char *why;   /* when it cannot even be selected for the target (no wheel
                  for this interpreter...), the reason; else NULL */
  /* How the GPUs the profile was locked for (its __gfx* or __cc_* facts:
   * lock --profile mi300x=rocm6.4:gfx=gfx942) meet this host's of that
   * kind: TS_PROFILE_FOR_HOST when they include every one of them,
   * TS_PROFILE_FOR_ANY when either side names none, TS_PROFILE_FOR_OTHERS
   * when the host has one the profile was not locked for. */
  enum { TS_PROFILE_FOR_HOST, TS_PROFILE_FOR_ANY, TS_PROFILE_FOR_OTHERS } fit;
  size_t ntargets; /* the GPU targets the profile names */
  char *targets;   /* "gfx942" (FOR_OTHERS only: for the message), else NULL */
  char *host_targets; /* "gfx1100": this host's of that kind (FOR_OTHERS) */
};

struct ts_profile_choice {
  struct ts_profile_verdict *v; /* every profile, the host's preference
                                   order (ts_rules_backend_cmp, as install
                                   ranks builds; then by name) */
  size_t n;
  size_t chosen;                /* the first that runs, or n: none */
};

/* Judges every profile of a fleet lock on this host: its entries for the
 * target (env, tags) checked against the rules compiled for the host, as
 * sync's host check does.  Among profiles of one GPU kind, one locked for
 * this host's GPU targets comes first (the pool it was named for: radeon
 * on a gfx1100 host, though mi300x's build also runs there), then one
 * that names none, then one locked for other targets; a narrower list of
 * targets before a wider one; then install's order of backends.
 * TS_OK also when none runs (chosen == n).
 * Clear *out with ts_profile_choice_clear. */
enum ts_code ts_profile_choose(const struct ts_pylock *lock, const struct ts_rules *rules,
                               const struct ts_host *host, const struct ts_marker_env *env,
                               const struct ts_tagset *tags, struct ts_profile_choice *out,
                               struct ts_error *err);
void ts_profile_choice_clear(struct ts_profile_choice *c);

/* The lock's profile whose name, normalised, is `name`'s ("rocm6.4"
 * finds rocm6-4); NULL when none is. */
const struct ts_pylock_profile *ts_profile_find(const struct ts_pylock *lock,
                                                const char *name);

/* The machine a recorded profile stands for, as lock --profile described
 * it (ts_torch_backend_host with the profile's backend and the GPU
 * targets of its __cc_* or __gfx* facts), with base's machine, OS, glibc
 * and CPU flags (base may be NULL): the host sync --profile NAME chooses
 * PEP 825 variant wheels for.  TS_E_INVALID for a profile whose backend
 * rules.yaml does not have.  The caller clears *out with ts_host_clear
 * (on success). */
enum ts_code ts_profile_locked_host(const struct ts_pylock_profile *p,
                                    const struct ts_rules *rules, const struct ts_host *base,
                                    struct ts_host *out, struct ts_error *err);
