/*
 * plan/plan.h — what install, lock and sync share: turn requirements into a
 * resolution for a target (ts_plan_resolve), then download and install it
 * (ts_plan_install).  Glue over target/, rules/, index/, resolver/, wheel/
 * and lock/; it never prints: progress goes through callbacks.
 *
 * Sources of packages.  Projects the rules route to the PyTorch server
 * (torch, torchvision...) come from <torch-index-url>/<variant>/ for every
 * usable backend, best first, merged (the variants differ by local label,
 * and the resolver prefers the labels in backend order, CPU as a fallback
 * tier); every other project comes from the general indexes only.  A
 * --find-links file of a routed project is used only when the PyTorch
 * server has no file of it at all: a look-alike "torch 99.0.0" in a
 * folder never beats the server (a note says it was passed over; a path
 * requirement naming the file is how to install a custom build).  A local
 * wheel path or "name @ url" requirement becomes a one-file project page.
 */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/error.h"
#include "host/host.h"
#include "variant/provider.h"
#include "index/client.h"
#include "lock/pylock.h"
#include "request/reqfile.h"
#include "lock/syncplan.h"
#include "source/build.h"
#include "resolver/resolver.h"
#include "rules/constraint.h"
#include "rules/rules.h"
#include "target/target.h"
#include "wheel/wheel.h"

/* Progress hooks; every one may be NULL.  Called from the calling thread. */
struct ts_plan_callbacks {
  void *ctx;
  /* A download of `n` files begins (only those not already in the cache);
   * names[i] is file i's name, the index download_progress reports;
   * sizes[i] its size from the index (PEP 700), 0 when unknown. */
  void (*download_begin)(void *ctx, const char *const *names,
                         const uint64_t *sizes, size_t n);
  /* Bytes of file i so far (total 0 when unknown). */
  void (*download_progress)(void *ctx, size_t i, uint64_t done, uint64_t total);
  void (*download_end)(void *ctx);
  struct ts_wheel_callbacks wheel;
};

struct ts_plan_install_options;

struct ts_plan_options {
  /* The target: an interpreter (ts_target_locate rules: NULL = $VIRTUAL_ENV
   * or ./.venv), or a spec (no install possible) when spec is non-NULL. */
  const char *python;
  const struct ts_target_spec *spec;
  /* The host (caller detects it, overrides applied) and the rules; both may
   * be NULL (no GPU rules, nothing routed).  facts_override non-NULL
   * replaces the compiled set entirely (borrowed). */
  const struct ts_host *host;
  const struct ts_rules *rules;
  const struct ts_constraint_set *facts_override;
  bool ignore_host;
  /* The variant providers' own variables (variant/provider.h:
   * NV_VARIANT_PROVIDER_FORCE_*, AMD_VARIANT_PROVIDER_FORCE_*), read by
   * cli/; NULL: none. */
  const struct ts_variant_force *variant_force;
  /* Two ways of narrowing the builds, which differ on purpose:
   *
   * torch_backends: the builds the user named (plan/torch_backend.h:
   * --torch-backend, a PyTorch variant index URL): the routed projects
   * come from these variants alone (and a label a requirement pins),
   * best first for the host, with no CPU fallback unless named; the rules
   * refuse one the host cannot run, and say why.  None: every variant the
   * host runs.
   *
   * only_backend: a fleet profile's build (lock --profile rocm6.4, per
   * grid point of lock --universal --profile): of the variants the
   * profile's machine runs, this backend's builds, else CPU builds where
   * a release or a platform has none (macOS points).  NULL: every build
   * the host runs. */
  const char *const *torch_backends;
  size_t ntorch_backends;
  const char *only_backend;
  /* A project's requires-python (pyproject.toml), or NULL: a target
   * interpreter outside it is refused (TS_E_PYTHON) before resolving. */
  const char *project_requires_python;
  /* Index configuration (copied; route is set by the plan). */
  const struct ts_index_options *index;
  /* Root requirements and -c constraints (is_constraint), as parsed by
   * request/reqfile.h from files and the command line.  Borrowed. */
  const struct ts_reqfile_entry *const *entries;
  size_t nentries;
  const char *const *upgrade_packages;
  size_t nupgrade_packages;
  /* Versions to keep when they still fit (resolver.h): a lock's when
   * re-locking, other environments' in a universal lock.  Borrowed. */
  const struct ts_resolver_preference *preferences;
  size_t npreferences;
  bool any_file; /* resolver.h: a version no wheel fits is a candidate */
  /* --no-binary / --only-binary as request/formatctl.h settles them */
  const char *const *no_binary;
  size_t nno_binary;
  const char *const *only_binary;
  size_t nonly_binary;
  bool prefer_binary; /* an older wheel before a newer sdist */
  enum ts_resolution_mode resolution;
  bool pre, upgrade, force_reinstall, no_deps;
  bool read_installed; /* the target's site-packages form the installed set */
  /* With read_installed: the installed set is the interpreter's user
   * site-packages (--user, inventory/tree.h), never its own site-packages, so
   * that a --user install replaces only what is in the user site. */
  bool user_site;
  /* With read_installed: take the environment's lock before reading the
   * installed set and hold it until ts_plan_result_free, so that
   * ts_plan_install commits against the set the plan was made from (two
   * installs into one venv behave as some serial order; see
   * ts_wheel_lock_env).  no_wait: TS_E_BUSY instead of waiting; lock_cb
   * says that we wait (waiting_for_lock) and what was repaired.  An
   * interpreter its distribution manages (PEP 668) is refused before its
   * lock file would be written (ts_target_check_externally_managed) unless
   * break_system_packages. */
  bool lock_env, no_wait, break_system_packages;
  struct ts_wheel_callbacks lock_cb;
  const char *debug_solver_dir;
  const char *probe_cache_dir; /* target probe cache, NULL: none */
  /* How to build a requirement that names a project directory, an sdist
   * or a git URL (source/build.h): its wheel is built (or found in the
   * build cache) before resolving and stands for it.  It also makes
   * sdists from the indexes candidates (a version without a usable
   * wheel): their METADATA comes from PEP 658, else from the backend
   * (ts_source_build_metadata), and ts_plan_install builds them.  NULL:
   * such requirements are refused and sdists are no candidates (build
   * environments resolve wheels only).  Borrowed until
   * ts_plan_result_free. */
  const struct ts_source_build_options *build;
  /* How a --no-build-isolation build that needs torch gets the plan's
   * torch into the target before it compiles (the first of two phases;
   * source/build.h): torch and its dependencies installed with these
   * options.  NULL (lock, --dry-run, a --target tree): refused with the
   * fix.  Borrowed until ts_plan_result_free. */
  const struct ts_plan_install_options *runtime_install;
  /* --dry-run: no backend builds a wheel.  A source requirement is
   * represented by its prepared METADATA (ts_source_build_metadata) as an
   * sdist item, and ts_plan_install refuses the result. */
  bool dry_run;
};

/* What the plan knows about one resolved item beyond the resolver's. */
struct ts_plan_item {
  const struct ts_resolved *r; /* into result->res */
  const char *metadata;        /* METADATA bytes or NULL */
  size_t metadata_len;
  /* metadata parsed, when the resolver read these very bytes (r->metadata,
   * its Requires-Dist in r->requires_dist); NULL: parse metadata */
  const struct ts_metadata *parsed;
  const struct ts_reqfile_entry *hashed_by; /* the requirement whose --hash
                                  values the file must match (any one of
                                  them; pip's rule), or NULL */
  const char *user_sha256;     /* the file's expected sha256 from those: the
                                  index's hash when allowed, else the only
                                  --hash value; NULL when unknown until the
                                  file is hashed */
  const char *direct_url;      /* path or URL as the user gave it, or NULL */
  bool is_path;                /* direct_url is a local path */
  const char *index;           /* the index it came from (for a routed
                                  project, the variant's), or NULL */
  const struct ts_source_built *built; /* built from source (direct_url is
                                  then the source as given), or NULL */
  /* A PEP 825 variant wheel: its label ("cuda12.8") and why it was
   * chosen, rejected variants included (one line, "torch 2.10.0
   * [cuda12.8]: nvidia::sm_arch 86_real, ...; cuda13.0 rejected: ...");
   * NULL for other files.  Valid until ts_plan_result_free. */
  const char *variant_label;
  const char *variant_why;
};

struct ts_plan_result {
  struct ts_target *target;
  struct ts_constraint_set rules; /* compiled (empty when none) */
  struct ts_index *idx;
  struct ts_resolution *res;      /* NULL on failures other than resolve */
  struct ts_plan_item *items;     /* res->nitems long, same order */
  double resolve_ms;
  char *build_log;                /* a failed build's full log, or NULL */
  /* What the plan passed over on purpose, one line each, for the caller
   * to show as warnings whether or not the resolution succeeded (a
   * --find-links file of a project routed to the PyTorch server). */
  char **notes;
  size_t nnotes;
  /* Installed distributions the answer orphans (plan_internal.h:
   * ts_plan_orphans): ts_plan_install removes them in its transaction. */
  char **orphans;
  char **orphan_versions;         /* norphans: their installed versions */
  size_t norphans;
  /* PEP 825 variant wheels judged (plan_internal.h), or NULL */
  struct ts_plan_variants *variants;
  void *priv;                     /* provider storage */
};

/* PEP 825: what a lock records of a release whose variant wheels the
 * resolution judged: its `{name}-{version}-variants.json` and every
 * variant wheel its page listed, installable here or not (the count; 0
 * and NULLs for a release without variants). */
size_t ts_plan_variant_release(const struct ts_plan_result *res, const char *name,
                               const char *version, const struct ts_index_file **json,
                               const struct ts_index_file **wheels);

/* Locates or builds the target, compiles the rules, reads the installed
 * set and resolves.  TS_E_RESOLVE leaves *out with res->why set for the
 * caller to print.  On other errors *out may hold a partial result (free
 * it anyway, it may be NULL).  Free with ts_plan_result_free. */
enum ts_code ts_plan_resolve(const struct ts_plan_options *o,
                             struct ts_plan_result **out, struct ts_error *err);
void ts_plan_result_free(struct ts_plan_result *r);

struct ts_plan_install_options {
  const char *download_dir;         /* NULL: <cache>/downloads-v1 */
  bool require_hashes;              /* every file needs a --hash */
  bool break_system_packages;       /* skip the PEP 668 refusal */
  enum ts_wheel_link_mode link_mode;
  bool compile;
  bool allow_overwrite;             /* see ts_wheel_options.allow_overwrite */
  bool verify_cache;                /* see ts_wheel_options.verify_cache */
  const volatile sig_atomic_t *cancel; /* see ts_wheel_options.cancel */
  struct ts_plan_callbacks cb;
  /* Install into these paths instead of the target interpreter's own
   * (pip's --target and --prefix trees, inventory/tree.h); NULL: its own.  The
   * PEP 668 refusal is for the interpreter's environment only, as pip's. */
  const struct ts_wheel_paths *paths;
  /* pip download: the verified files are placed in save_dir (created when
   * missing; a file of the same name replaced) and nothing is installed;
   * *changed counts the files.  Resolve with read_installed false. */
  const char *save_dir;
};

/* Before resolving, as pip does: hash-checking is on when *require_hashes
 * is set or any requirement carries a --hash (*require_hashes then becomes
 * true), and then every root requirement needs a --hash:
 * TS_E_HASH_MISSING naming the first without one and how to fix it. */
enum ts_code ts_plan_check_requirement_hashes(const struct ts_reqfile_entry *const *es,
                                              size_t n, bool *require_hashes,
                                              struct ts_error *err);

/* Whether a file with this sha256 (hex) may be installed for the item:
 * true without --hash values, else when it is one of them. */
bool ts_plan_item_hash_allowed(const struct ts_plan_item *it, const char *sha256_hex);

/* Checks the hashes the plan can check before downloading anything, for
 * every file to install or change: with require_hashes each needs a --hash
 * and each named requirement a == pin (TS_E_HASH_MISSING naming the first
 * without, dependencies included, as pip's --require-hashes), and the
 * index's sha256, when it gives one, must be one of the requirement's
 * --hash values (TS_E_HASH).  ts_plan_install runs it first; install
 * --dry-run runs it so that a dry run fails where the install would. */
enum ts_code ts_plan_check_hashes(const struct ts_plan_result *r,
                                  bool require_hashes, struct ts_error *err);

/* Downloads every file of an install/upgrade/downgrade/reinstall action in
 * parallel (sha256 verified against the index and --hash; wheels with an
 * index sha256 are kept in the index client's wheel cache, where later runs
 * and --offline find them), then installs
 * them as one ts_wheel_install transaction.  *changed (may be NULL) gets the
 * number of distributions installed. */
enum ts_code ts_plan_install(struct ts_plan_result *r,
                             const struct ts_plan_install_options *o,
                             size_t *changed, struct ts_error *err);


/* ---- what lock production reads of a resolution ---------------------- */

/* Every file the resolution's pages list for `name` at `version` (PEP 440
 * equal), wheels and sdists: for a direct reference its own file only.
 * *out is a malloc'd array of pointers into r (free the array only);
 * returns its length. */
size_t ts_plan_version_files(const struct ts_plan_result *r, const char *name,
                             const char *version, const struct ts_index_file ***out);

/* The options the resolution builds its sources with (its runtime torch
 * included), for the lock's build fingerprints; NULL when it builds
 * nothing (resolved without ts_plan_options.build). */
const struct ts_source_build_options *ts_plan_result_build(const struct ts_plan_result *r);
/* The rules the plan was made with (the caller's), or NULL. */
const struct ts_rules *ts_plan_result_rules(const struct ts_plan_result *r);

/* ---- report (plan_report.c) -------------------------------------------- */

/* pip's installation report (JSON, version 1) of what the resolution
 * installs or changes: per item the full METADATA as pip's msg_to_json
 * gives it, download_info with the URL without credentials and its sha256
 * (a local file the index gave none for, a path or a --find-links folder's,
 * is hashed here, as pip does), requested and its extras; the target's marker environment.  Appended to
 * out (the caller sizes its cap: TS_PLAN_REPORT_CAP holds every METADATA
 * of a large environment in full). */
#define TS_PLAN_REPORT_CAP (256u * 1024 * 1024)
enum ts_code ts_plan_report(const struct ts_plan_result *r, struct ts_buf *out,
                            struct ts_error *err);

/* ---- sync (plan_sync.c) ------------------------------------------------ */

struct ts_plan_sync_options {
  const struct ts_pylock *lock; /* borrowed */
  const char *lock_dir;         /* relative wheel paths are read from here */
  /* How a locked sdist, directory, git checkout or archive is built: in
   * exactly its locked build environment ([packages.tool.torchsolve]
   * build-env; build.h's locked_env), the cache reused for the same
   * inputs.  NULL: such a lock is refused. */
  const struct ts_source_build_options *build;
  const char *python;           /* ts_target_locate rules */
  const char *probe_cache_dir;  /* NULL: none */
  const struct ts_index_options *index;
  /* The host and rules the lock is checked against; NULL (--ignore-host):
   * no check. */
  const struct ts_host *host;
  const struct ts_rules *rules;
  /* The variant providers' own variables (variant/provider.h), for the
   * lock's PEP 825 variant wheels; NULL: none. */
  const struct ts_variant_force *variant_force;
  /* A fleet lock's profile to sync (--profile, any spelling of its name;
   * lockgen/profiles.h); NULL: the best one this host runs (the default one
   * without a host).  A lock without profiles refuses a name. */
  const char *profile;
  /* The extras and dependency groups asked for (lock/selection.h; NULL:
   * none, the lock's default groups); checked before anything changes. */
  const struct ts_lock_request *request;
  bool dry_run;                 /* skips the PEP 668 refusal and the lock too */
  bool break_system_packages;
  /* The environment's lock is held from reading the installed set to the
   * commit (ts_wheel_lock_env): no_wait gives TS_E_BUSY instead of
   * waiting; cb.wheel says that we wait and what was repaired. */
  bool no_wait;
  enum ts_wheel_link_mode link_mode;
  bool compile;
  bool allow_overwrite;         /* see ts_wheel_options.allow_overwrite */
  bool verify_cache;            /* see ts_wheel_options.verify_cache */
  const volatile sig_atomic_t *cancel;
  struct ts_plan_callbacks cb;
};

struct ts_profile_choice;

struct ts_plan_sync {
  struct ts_target *target;
  /* A fleet lock's profile synced (into the lock), or NULL; choice: how
   * every profile fared on this host when none was named (owned; NULL
   * when a profile was named or no host judged them). */
  const struct ts_pylock_profile *profile;
  struct ts_profile_choice *choice;
  int env_lock_fd;                    /* held until ts_plan_sync_free, or -1 */
  struct ts_sync_plan plan;           /* what changes (lock/syncplan.h) */
  struct ts_rules_finding *findings;  /* the rules the lock breaks here */
  size_t nfindings;
  struct ts_plan_fetch_totals {
    size_t files;                     /* downloaded (cache hits excluded) */
    uint64_t bytes;
    double ms;
  } downloaded;
};

/* Plans a sync: the target (refused when externally managed, PEP 668,
 * unless dry_run or break_system_packages), its installed set, the
 * changes to make it the lock (ts_sync_plan_make), and the host check:
 * TS_E_HOST with s->findings when the lock's builds break a rule here.
 * For a fleet lock, first its profile (o->profile, else the best this
 * host runs: s->choice; TS_E_HOST when none runs, TS_E_INVALID for a
 * name the lock has no profile of).
 * *out is set even on failure (free it with ts_plan_sync_free). */
enum ts_code ts_plan_sync_prepare(const struct ts_plan_sync_options *o,
                                  struct ts_plan_sync **out, struct ts_error *err);
/* Carries the plan out: every wheel fetched (the cache, the lock's path,
 * else a download hashed while it streams) and verified against the lock's
 * sha256 BEFORE the environment is touched, then installs, changes and
 * removals as one transaction.  s->downloaded says what was downloaded. */
enum ts_code ts_plan_sync_apply(struct ts_plan_sync *s, const struct ts_plan_sync_options *o,
                                struct ts_error *err);
void ts_plan_sync_free(struct ts_plan_sync *s);

/* The requirements of installed distributions that the plan would leave
 * unmet, as pip checks after resolving: for each conflict that involves a
 * distribution the plan changes, "needsnew 1.0 requires depx>=2, but depx
 * 1.0 will be installed" (the dependency changes) or "..., but you have
 * depx 1.0" (the requiring one is new).  *out gets the malloc'd lines in
 * pip check's order (free each, then the array); returns their number. */
size_t ts_plan_unmet_requirements(const struct ts_plan_result *r, char ***out);

/* ---- notes (plan_notes.c) ---------------------------------------------- */

/* Why a routed project (torch...) got a CPU build. */
enum ts_plan_cpu_why {
  TS_PLAN_CPU_RULED_OUT,      /* a GPU build exists: other requirements rule it out */
  TS_PLAN_CPU_OLDER_SERIES,   /* the chosen series has none for this GPU; an
                                 older one (newest_gpu_series) has */
  TS_PLAN_CPU_NO_GPU_BACKEND, /* this host has no usable GPU backend */
};
struct ts_plan_cpu_note {
  const struct ts_resolved *item;       /* the CPU build (into r->res) */
  enum ts_plan_cpu_why why;
  char series[32];                      /* the torch series chosen, "2.5" */
  const char *newest_gpu_series;        /* into the rules */
  const struct ts_constraint_set *backends; /* the backends judged, with
                                           the reasons unusable ones are */
  struct ts_constraint_set series_backends; /* owned storage for them */
};
/* Fills *out for the first item with a +cpu label and returns true; false
 * (nothing to clear) when no CPU build was chosen.  Judged for the torch
 * series chosen, not only the newest.  Clear with ts_plan_cpu_note_clear. */
bool ts_plan_explain_cpu(const struct ts_plan_result *r, const struct ts_rules *rules,
                         const struct ts_host *h, bool ignore_host,
                         struct ts_plan_cpu_note *out);
void ts_plan_cpu_note_clear(struct ts_plan_cpu_note *n);
/* The note's sentence, as install prints it after "note: ": "torch
 * 2.5.1+cpu is a CPU build: ..." and why, pointing at 'torchsolve detect'
 * where the host is the reason.  malloc'd. */
char *ts_plan_cpu_note_text(const struct ts_plan_cpu_note *n);

/* The one-line note on a torch held back (resolver's held_back): "torch
 * 2.9.1 is held back: torch 2.13.0+cu130 runs on this host, but ...", or
 * for a CPU build on a host with a GPU build "torch 2.13.0+cpu is a CPU
 * build: torch 2.9.1+rocm6.4 runs on this host's GPU, but ...".  NULL
 * when nothing is held back; malloc'd.  install and lock print it as a
 * note, --report carries it under "torchsolve". */
char *ts_plan_held_back_note(const struct ts_plan_result *r);

/* The newest final release of project `name` (normalised) among the files
 * of the pages the resolution read ("2.15.0+cu130"), without asking any
 * index; false when it read no page of that project. */
bool ts_plan_newest_offered(const struct ts_plan_result *r, const char *name, char *out,
                            size_t cap);
