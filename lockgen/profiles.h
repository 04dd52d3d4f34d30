/*
 * lockgen/profiles.h — GPU profiles: one lock for every GPU a team deploys
 * to (lock --profile), and which of its profiles a host runs (sync).
 *
 * A profile names a build of rules.yaml ("cpu", "cu126", "rocm6.4",
 * "xpu": its routed projects are locked as exactly those builds, CPU
 * builds where there are none), optionally with facts that narrow the
 * GPUs it is for:
 * "cu126:cc=6.1,8.9", "rocm6.4:gfx=gfx942".  It stands for a machine with
 * that backend, as the override flags describe one: cuXYZ is a driver
 * that runs CUDA X.Y (--cuda X.Y), with the compute capabilities of cc=
 * (--compute-capability; none: builds are not checked for kernels);
 * rocmX.Y an installed ROCm X.Y (--rocm X.Y) with the targets of gfx=
 * (--gfx; none: every target the backend's builds carry kernels for, as
 * rules.yaml lists them); cpu is --cpu, xpu --xpu.  Each profile is
 * resolved as install would resolve on such a machine (the machine, OS
 * and glibc are the lock's target's), so its routed entries are the
 * builds that machine would get.
 *
 * The resolutions are merged by ts_fleet_merge (fleet.h) under markers on
 * `extras`, each profile's extra being its name normalised (PEP 685:
 * "rocm6.4" is "rocm6-4").  The first profile is the default:
 *     default   'cpu' in extras or ('cu126' not in extras and
 *                                    'rocm6-4' not in extras)
 *     cu126     'cu126' in extras and 'cpu' not in extras and 'rocm6-4' not in extras
 *     rocm6-4   'rocm6-4' in extras and 'cpu' not in extras and 'cu126' not in extras
 * so no extra, the default's, or every extra at once (uv's --all-extras)
 * selects the default, one other profile's extra that profile, and two
 * non-default ones without the default's none of the entries that
 * differ: never two torch entries.  An entry of the default and one other
 * profile is marked "'cpu' in extras or 'cu126' not in extras" (the
 * default's extra, or no third profile's).  Entries the same in every profile are
 * written once, unmarked.  The lock declares every
 * profile's extra (`extras`), and records each profile's backend, facts
 * and rule ids under [tool.torchsolve.profiles.NAME].  The order of the
 * profiles after the first does not change a byte.
 */
#pragma once

#include <stdbool.h>
#include <stddef.h>

#include "core/error.h"
#include "host/host.h"
#include "lock/pylock.h"
#include "pep/requirement.h"
#include "pep/tags.h"
#include "plan/plan.h"
#include "rules/rules.h"

struct ts_profile {
  char *name;    /* "rocm6.4", or the user's "mi300x" */
  char *backend; /* "rocm6.4": a backend id of rules.yaml */
  char *extra;   /* "rocm6-4", "mi300x": the name as an extra (PEP 685) */
  char *cc;      /* "6.1,8.9" (CUDA) or NULL */
  char *gfx;     /* "gfx942" (ROCm) or NULL */
};

/* Parses "[LABEL=]NAME[:cc=X.Y,...][:gfx=gfxN,...]": LABEL, a project-name
 * shaped word, names the profile (its extra) so that one backend can
 * serve two pools (mi300x=rocm6.4:gfx=gfx942, radeon=rocm6.4:gfx=gfx1100);
 * without it the profile is named by its backend.  TS_E_INVALID naming the
 * text for a NAME that is no backend of `rules` (the message lists them),
 * a key the backend has no use for, or a malformed value. */
enum ts_code ts_profile_parse(const char *text, const struct ts_rules *rules,
                              struct ts_profile *out, struct ts_error *err);
void ts_profile_clear(struct ts_profile *p);

/* The --profile texts that lock again the profiles `lock` records (its
 * default first): "[LABEL=]BACKEND[:cc=...][:gfx=...]" from each profile's
 * backend and its recorded GPU targets, so that `lock --check` of a fleet
 * lock needs no --profile repeated.  *n of them, malloc'd (ts_strv_free);
 * NULL when the lock has no profiles or one without a backend. */
char **ts_profile_args_of_lock(const struct ts_pylock *lock, size_t *n);

/* The machine a profile stands for: base's machine, OS, glibc and CPU
 * flags (the lock's target; base may be NULL) with the profile's GPU
 * facts.  The
 * caller clears *out with ts_host_clear. */
enum ts_code ts_profile_host(const struct ts_profile *p, const struct ts_rules *rules,
                             const struct ts_host *base, struct ts_host *out,
                             struct ts_error *err);

struct ts_plan_profiles {
  size_t n;                         /* profiles */
  struct ts_host *hosts;            /* n: each profile's machine */
  struct ts_plan_result **results;  /* n: each profile's resolution; NULL
                                       after the one that failed */
  size_t failed;                    /* the profile that failed, or n */
  struct ts_pylock *lock;           /* the fleet lock, on success */
};

/* lock --profile: resolves o's requirements once per profile (o->host
 * gives the machine, OS and glibc; o->ignore_host is not used: each
 * profile is judged against its own machine), turns each resolution into
 * a lock (ts_plan_to_pylock, paths relative to `output`) and merges them
 * as described above.  n >= 1, distinct extras (TS_E_INVALID otherwise).
 * A failing resolution returns its code with out->failed set and its
 * result (res->why for TS_E_RESOLVE) in out->results[failed].  Clear
 * *out with ts_plan_profiles_clear in every case. */
enum ts_code ts_plan_lock_profiles(const struct ts_plan_options *o,
                                   const struct ts_profile *profiles, size_t n,
                                   const char *output, struct ts_plan_profiles *out,
                                   struct ts_error *err);
void ts_plan_profiles_clear(struct ts_plan_profiles *p);

/* TS_E_INVALID naming the profile given twice (two with one extra). */
enum ts_code ts_profiles_check_distinct(const struct ts_profile *profiles, size_t n,
                                        struct ts_error *err);

/* The merge above: locks[i] resolved for profiles[i] (n >= 1) become one
 * lock under the extras markers, requires-python, environments and the
 * universal grid taken from locks[0] (every profile is locked for the
 * same environments), each profile's facts and rule ids the host facts
 * and rule ids of its lock.  *out freed with ts_pylock_free. */
enum ts_code ts_plan_profiles_merge(const struct ts_profile *profiles, size_t n,
                                    struct ts_pylock *const *locks, struct ts_pylock **out,
                                    struct ts_error *err);
