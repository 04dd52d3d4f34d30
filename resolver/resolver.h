/*
 * resolver/resolver.h — choose one version (and one wheel) of every needed
 * project, or explain in PEP 440 terms why no choice exists.
 *
 * The only module that links libsolv.  The encoding (see resolver/README.md):
 * every version of a project becomes a solvable whose EVR is its *rank* in
 * our PEP 440 order (plus the variant preference), every specifier becomes
 * the exact set of ranks it admits (an OR of rank ranges), extras are
 * solvables of their own ("name[extra]"), host facts are locked solvables of
 * the installed repo, rules are (rich) requires/conflicts, and metadata is
 * fetched lazily: only for versions the solver chose, solving again until no
 * chosen version lacks its real dependencies (so the answer is exact).
 *
 * The resolver never touches the network or the disk itself (except
 * `debug_solver_dir`): project pages and METADATA come from a provider.
 */
#pragma once

#include <stdbool.h>
#include <stddef.h>

#include "core/error.h"
#include "index/project.h"
#include "pep/requirement.h"
#include "pep/tags.h"
#include "rules/constraint.h"

struct ts_metadata;

/* ---- provider: where pages and metadata come from -------------------- */

/* One project as seen by every index that has it (several with
 * --extra-index-url); nprojects == 0 when no index knows the name. */
struct ts_resolver_pages {
  const struct ts_index_project *const *projects;
  size_t nprojects;
  /* With nprojects 0: where the provider looked, in its words ("project 'x'
   * not found on URL, URL"), for the explanation; NULL if it has none.
   * Copied before get_pages' caller returns. */
  const char *not_found;
};

/* One METADATA file wanted: the resolver fills name/version/file/index_url,
 * the provider fills data/len (or code != TS_OK when that file's metadata
 * could not be had). */
struct ts_resolver_meta {
  const char *name;                   /* normalised project name */
  const char *version;                /* as published */
  const struct ts_index_file *file;   /* the chosen wheel */
  const char *index_url;
  bool prefetch;                      /* a guess: failure is not an error */
  /* filled by the provider: */
  const char *data;                   /* METADATA bytes, not NUL-terminated */
  size_t len;
  enum ts_code code;
};

struct ts_resolver_provider {
  void *ctx;
  /* Fetches the pages of names[0..n) (in parallel if it can) and fills
   * out[0..n).  The provider owns everything it returns; it must stay valid
   * until the ts_resolution made from it is freed.  A name no index has is
   * not an error (nprojects = 0); return an error only when the question
   * could not be answered (network, parse), with detail in err. */
  enum ts_code (*get_pages)(void *ctx, const char *const *names, size_t n,
                            struct ts_resolver_pages *out,
                            struct ts_error *err);
  /* Fetches METADATA for reqs[0..n) (in parallel if it can).  data must
   * stay valid until the provider's next callback. */
  enum ts_code (*get_metadata)(void *ctx, struct ts_resolver_meta *reqs,
                               size_t n, struct ts_error *err);
  /* Optional, asked only to explain a failure: the pages of `name` on the
   * indexes that were NOT consulted for it (further general indexes under
   * first-index; the general indexes for a project routed to the PyTorch
   * server).  Writes up to max pages and returns how many; they stay valid
   * until the resolution is freed.  Best effort: failures give 0. */
  size_t (*get_pages_elsewhere)(void *ctx, const char *name,
                                const struct ts_index_project **out, size_t max);
  /* Optional: the marker environment for the Requires-Dist of `file`, a
   * PEP 825 variant wheel of project `name`: the target's with the
   * variant's label and properties (variant_label, variant_properties...),
   * or NULL for the target's own.  Valid until the resolution is freed. */
  const struct ts_marker_env *(*variant_env)(void *ctx, const char *name,
                                             const struct ts_index_file *file);
};

/* ---- the target interpreter --------------------------------------------- */

struct ts_resolver_target {
  const struct ts_marker_env *markers; /* Requires-Dist markers */
  const struct ts_tagset *tags;        /* wheel tags, priority order */
  const char *python_full_version;     /* "3.12.3": Requires-Python */
};

/* ---- the request -------------------------------------------------------- */

/* A distribution already in the target environment. */
struct ts_resolver_installed {
  const char *name;       /* any spelling; normalised by the resolver */
  const char *version;
  bool requested;         /* REQUESTED file present */
  /* Its METADATA (for Requires-Dist), or NULL: no dependencies known. */
  const char *metadata;
  size_t metadata_len;
};

enum ts_resolution_mode {
  TS_RESOLUTION_HIGHEST = 0,
  TS_RESOLUTION_LOWEST,        /* lowest version of every project */
  TS_RESOLUTION_LOWEST_DIRECT, /* lowest for root requirements only */
};

/* Variant preference for one project: local-label patterns (fnmatch) in
 * order of preference, e.g. {"cu130", "cu128", "cpu"}; "" matches a version
 * without local label.  Among builds of the same public version, the one
 * matching the earliest pattern wins; builds matching none come last.
 * The last `nfallback` patterns (e.g. 1 for "cpu") are a fallback tier:
 * a build matching only those is chosen only when no build matching an
 * earlier pattern fits, whatever its version (a GPU build of an older
 * torch before a CPU build of a newer one). */
struct ts_resolver_variant_pref {
  const char *name;                /* normalised project name */
  const char *const *patterns;
  size_t npatterns;
  size_t nfallback;
};

/* A version to keep when it still fits: an earlier lock's (re-locking
 * changes nothing that need not change) or the one other environments of
 * a universal lock chose.  Soft: the solver favors it over better
 * versions, and takes another when the request rules it out.  Ignored
 * where the resolution mode asks for the lowest version (every project
 * under lowest, root-named ones under lowest-direct). */
struct ts_resolver_preference {
  const char *name;    /* normalised project name */
  const char *version; /* PEP 440 */
};

struct ts_resolver_request {
  const struct ts_requirement *const *requirements; /* roots (markers ok) */
  size_t nrequirements;
  const struct ts_requirement *const *constraints;  /* -c: limit, not add */
  size_t nconstraints;
  const struct ts_resolver_installed *installed;    /* the installed repo */
  size_t ninstalled;
  const struct ts_constraint_set *rules; /* host facts + rules; NULL = none */
  const struct ts_resolver_variant_pref *variants;
  size_t nvariants;
  /* The objective's first terms (doc/rules.md): projects decided before
   * every other one, in this order, each taking its most preferred version
   * that has any answer ({"torch", "torchvision", ...}: the newest torch
   * that runs here, then its best variant, then its companions).  A listed
   * project the answer needs but no root names is solved again with it as
   * an early job.  Every other project follows in canonical order. */
  const char *const *priority;    /* normalised names */
  size_t npriority;
  /* pip's format control (request/formatctl.h): normalised names or ":all:".
   * Wheels of a project are forbidden when it is named in no_binary, or
   * when no_binary holds ":all:" and only_binary neither names it nor holds
   * ":all:"; a name in only_binary always allows them. */
  const char *const *no_binary;
  size_t nno_binary;
  const char *const *only_binary;
  size_t nonly_binary;
  /* Source distributions are candidates (the caller can build them): a
   * version without a usable wheel is chosen through its sdist, unless
   * only_binary names the project (or holds ":all:" and no_binary does not
   * name it), as pip's get_allowed_formats.  A version with a usable
   * wheel always uses the wheel.  The provider is then asked for an
   * sdist's METADATA too. */
  bool sdists;
  /* --prefer-binary: every version with a usable wheel ranks above every
   * sdist-only one (an older wheel before a newer sdist) */
  bool prefer_binary;
  const char *const *upgrade_packages; /* --upgrade-package */
  size_t nupgrade_packages;
  const struct ts_resolver_preference *preferences;
  size_t npreferences;
  /* A version no wheel of the target's tags exists for is a candidate
   * too, standing for a wheel of other tags or its sdist: a universal
   * lock's fallback for an environment no wheel covers, where the lock
   * lists the version's files and the installer picks (uv does the same
   * for every environment).  Requires-Python still applies. */
  bool any_file;
  enum ts_resolution_mode resolution;
  bool pre;              /* --pre: pre-releases allowed everywhere */
  bool upgrade;          /* --upgrade: root projects move to the best */
  bool force_reinstall;  /* installed distributions are not candidates */
  bool no_deps;          /* install exactly what was asked */
  bool ignore_host;      /* drop host facts (but Python) and rules on them */
  /* A root requirement with a specifier on priority[0] (torch==2.5.1)
   * whose answer is a fallback-tier build (CPU) while the host runs a
   * main-tier one (a GPU build of another version): TS_E_RESOLVE, with
   * why no main-tier build of the allowed versions runs and the fixes,
   * instead of a silent CPU build.  A specifier naming a local label
   * (torch==2.5.1+cpu) asks for that build and is not refused. */
  bool refuse_pinned_fallback;
  /* more versions fetched with a chosen one once the solver has moved away
   * from a version of that project, this many more each further round in
   * which it moves again (16, 32, 48 with 16); their deps are encoded at once, so the solver backtracks
   * through them within one solve (the plan uses 16: pyrax) */
  size_t prefetch;
  const char *debug_solver_dir; /* testcase_write of the last solve (libsolvext,
                                   opened then); failing to is an error */
};

/* ---- the answer --------------------------------------------------------- */

enum ts_resolved_action {
  TS_ACTION_INSTALL,   /* not installed before */
  TS_ACTION_UPGRADE,
  TS_ACTION_DOWNGRADE,
  TS_ACTION_REINSTALL, /* same version, --force-reinstall */
  TS_ACTION_KEEP,      /* the installed distribution stays */
  TS_ACTION_REMOVE,
};

struct ts_resolved {
  char *name;                        /* normalised */
  char *version;                     /* as published ("2.5.1+rocm6.2") */
  const struct ts_index_file *file;  /* provider-owned; NULL when kept */
  bool sdist;                        /* file is a source distribution */
  const char *index_url;             /* provider-owned; NULL when kept */
  bool requested;                    /* named by a root requirement */
  char **extras;                     /* extras chosen, sorted */
  size_t nextras;
  enum ts_resolved_action action;
  char *installed_version;           /* NULL when not installed */
  /* The chosen file's METADATA as the resolver read it, so that what
   * follows (the report, pip's check of the result) need not parse it
   * again: the bytes it parsed (the provider's answer to get_metadata;
   * a caller holding the same pointer holds the same METADATA), their
   * parse, and its Requires-Dist parsed, in text order.  Owned by the
   * resolution; NULL / 0 when kept or when it read none. */
  const char *metadata_bytes;
  size_t metadata_len;
  struct ts_metadata *metadata;
  struct ts_requirement **requires_dist;
  size_t nrequires_dist;
};

/* Lines the CLI prints, in order: the chain from the root requirements to
 * the clash, the rules and host facts involved, then hints. */
struct ts_explanation {
  char **lines;
  size_t nlines;
};

/* The first priority project (torch) installed below the best build that
 * this host runs (judged on the host facts and rules alone, as `detect`
 * judges): that build, and what in the request holds it back. */
struct ts_held_back {
  char *name;       /* "torch" */
  char *chosen;     /* "2.9.1" */
  /* "2.13.0+cu130"; NULL when the host itself holds it back: newer
   * releases have GPU builds and the rules rule every one out here (an
   * RX 7900 XT on ROCm 6.2: hipBLASLt), and `reason` says which */
  char *runnable;
  bool fallback;    /* chosen is a fallback-tier build (CPU), runnable not */
  /* One line: the requirements, rules ("rule ID: message") and their
   * fixes that rule `runnable` out, as the explanation words them. */
  char *reason;
};

struct ts_resolution {
  struct ts_resolved *items;   /* sorted by name */
  struct ts_held_back *held_back; /* NULL when nothing is held back */
  size_t nitems;
  struct ts_explanation why;   /* set when the request cannot be met */
  /* pip's "Ignoring version V of NAME since it has invalid metadata: WHY",
   * one line per version whose METADATA does not read (the resolution
   * went on without it) */
  char **ignored;
  size_t nignored;
  /* what it took */
  size_t solves;
  size_t pages_fetched;
  size_t metadata_fetched;
};

/* Resolves `req` for `target`.  On success returns TS_OK and *out holds the
 * choice.  When no choice exists returns TS_E_RESOLVE and *out holds the
 * explanation (out->why); err gets a one-line summary.  On other errors
 * (provider failure, bad input) *out is NULL.  Caller frees *out with
 * ts_resolution_free. */
enum ts_code ts_resolver_resolve(const struct ts_resolver_request *req,
                                 const struct ts_resolver_target *target,
                                 const struct ts_resolver_provider *provider,
                                 struct ts_resolution **out,
                                 struct ts_error *err);
void ts_resolution_free(struct ts_resolution *r);

const char *ts_resolved_action_name(enum ts_resolved_action a);

/* pip's format control (get_allowed_formats) over --no-binary and
 * --only-binary sets as in ts_resolver_request: whether `name` (NULL: a
 * source whose name is not known yet) may not come as a wheel (source
 * false) or from source (source true). */
bool ts_resolver_format_forbidden(const char *const *no_binary, size_t nno_binary,
                                  const char *const *only_binary, size_t nonly_binary,
                                  const char *name, bool source);

/* Version of the libsolv we run with (from the library, not its header). */
const char *ts_resolver_libsolv_version(void);
