/*
 * resolver/state.h — the resolver's working state and the functions its
 * files share (internal).  The files call down this list, never up:
 *
 *   resolver.c    entry point: set up, run the loop, explain or check
 *   held_back.c   after an answer: a torch held back, a pinned fallback
 *   explain.c     a failed solve's problems as sentences
 *   solve.c       the solve loop: root jobs, closure, the answer
 *   metadata.c    METADATA fetched in rounds, Requires-Dist encoded
 *   versions.c    pages → ranked versions; the batched page fetch
 *   candidates.c  versions → solvables (windows, one-version chain,
 *                 extras); deps of requirements
 *   rules.c       host facts, rules.yaml and -c constraints
 *   pool.c        solvables, recorded deps, rank-set deps, jobs, solvers
 *   files.c, parse.c, testcase.c   file names, METADATA, --debug-solver
 *
 * explain.c and held_back.c read this state and the solver they are
 * handed; nothing below them calls them.
 */
#pragma once

#include <stdbool.h>
#include <stddef.h>

#include <solv/pool.h>
#include <solv/repo.h>
#include <solv/solver.h>

#include "resolver/internal.h"
#include "resolver/resolver.h"

enum rs_kind {
  RS_NONE = 0,
  RS_CAND,        /* a version from an index */
  RS_EXTRA,       /* name[extra] of a version */
  RS_INST,        /* an installed distribution */
  RS_FACT,        /* a host fact */
  RS_CONSTRAINTS, /* the -c constraints holder */
  RS_ONE,         /* a link of a project's one-version chain */
};

struct rs_sinfo {
  enum rs_kind kind;
  int proj;       /* index in rs.projs, -1 for facts/constraints */
  int ver;        /* rank (index in proj.vers); fact index for facts */
  int extra;      /* index in proj.extras, -1 for base */
  int first_dep;  /* head of this solvable's rs_dep list, -1 when none */
  bool deps_done; /* false: "pending", its real deps are not encoded yet */
};

/* Why a dep is on a solvable: what the explanation prints. */
struct rs_dep {
  Id solv;
  Id dep;
  bool conflict;
  bool rich;                 /* REL_COND: not followed by the closure */
  char *text;                /* "b>=1.0", rule id for rules */
  int proj;                  /* project the dep is on, -1 when none */
  struct ts_specset *spec;   /* owned copy, or NULL */
  int constraint;            /* index in rules->constraints, or -1 */
  int extra;                 /* extra index on proj, -1 for the base */
  int next;
};

struct rs_ver {
  struct ts_version *v;
  struct ts_version *pub;    /* public part: sort key */
  /* A ruled project's version whose chosen file is a PEP 825 variant of
   * a PyTorch build ("2.10.0" as its cuda12.8 wheel): the version of its
   * twin on the PyTorch index ("2.10.0+cu128"), which the rules and the
   * variant preference judge instead; NULL otherwise */
  struct ts_version *twin;
  char *text;                /* as published */
  const struct ts_index_file *file; /* best compatible wheel, else the
                                        sdist (when allowed), or NULL */
  const char *index_url;
  /* with req->any_file: the file standing for the version when no wheel
   * fits the tags (a wheel of other tags before the sdist, whose METADATA
   * an index is likelier to serve), and its index */
  const struct ts_index_file *fallback;
  const char *fallback_index_url;
  long prio;
  /* the file's place among its release's installable variants (PEP 825:
   * before the tags); LONG_MAX for a wheel without a label */
  long vrank;
  const struct ts_index_file *sdist; /* an allowed sdist, or NULL */
  const char *sdist_index_url;
  bool from_sdist;           /* file is the sdist: no usable wheel */
  bool only_binary_blocked;  /* an sdist that --only-binary forbids */
  bool pre;
  bool installed;
  bool has_sdist, has_wheel, has_compatible_wheel, no_binary_blocked;
  bool yank_blocked;
  bool usable;               /* has a usable wheel: a solvable when revealed */
  const char *python_blocked; /* a file's Requires-Python that failed */
  Id solv;                   /* candidate solvable, 0 when not installable */
  Id inst_solv;              /* installed solvable at this version, or 0 */
  bool meta_requested, meta_ok;
  struct ts_rs_meta meta;
};

struct rs_extra {
  char *name;
  Id nameid;
  Id *solv;                  /* per rank; 0 where none */
};

/* A dep ts_rs_spec_dep made, for the next requirement on the project
 * with the same specifier (pyrax's versions repeat theirs by the
 * hundred): the dep depends only on the key, the versions it reveals on
 * the window too. */
struct rs_spec_memo {
  char *spec;                /* ts_specset_str, NULL for no specifier */
  int extra;
  bool names_pre, pre_named; /* of the specifier, of the project then */
  size_t window;             /* pj->window when its versions were revealed */
  Id dep;
};

struct rs_proj {
  char *name;
  Id nameid;
  bool found;                /* some index has a page for it */
  char *not_found;           /* else the provider's words on where it looked */
  bool direct;               /* named by a root requirement */
  bool priority_job;         /* has an install job from add_priority_jobs */
  bool pre_named;            /* some requirement on it names a pre-release */
  unsigned moves;            /* rounds in which the solver was seen to have
                                left a version of it: prefetch grows */
  size_t move_round;         /* the round moves was last counted in */
  /* files its pages list that are no version of it, for the hint when
   * none is: one example (provider-owned) of another project's file and
   * of a name that is no distribution file at all */
  const char *other_file, *unreadable_file;
  size_t nfiles;             /* files listed on its pages */
  /* its pages (provider-owned, valid while the resolution lives), for the
   * hint that names the tags of wheels no target tag takes */
  const struct ts_index_project **pages;
  size_t npages;
  struct rs_ver *vers;       /* index == rank, least preferred first */
  size_t nvers;
  Id *evrs;                  /* rank → EVR id */
  struct rs_extra *extras;
  size_t nextras, extras_cap;
  size_t window;             /* usable versions revealed, from the top */
  struct rs_spec_memo *memo;
  size_t nmemo, memo_cap;
  /* The end of the one-version chain (see ts_rs_reveal), 0 while none;
   * projects with an installed version keep libsolv's same-name rules. */
  Id one_last;
  int inst_ver;              /* rank of the installed version, -1 */
  Id inst_solv;
  const struct ts_resolver_installed *inst;
  struct ts_version *inst_v; /* installed version under --force-reinstall */
  bool inst_meta_ok;
  struct ts_rs_meta inst_meta;
};

struct rs_fact {
  char *name, *version, *source;
  struct ts_version *v;
  Id solv;
};

struct rs_job {
  char *text;                       /* root requirement as written */
  int proj;
  const struct ts_specset *spec;    /* borrowed from the request */
  int extra;                        /* extra index on proj, -1 for base */
  int fact;                         /* lock of a host fact, or -1 */
};

struct rs {
  const struct ts_resolver_request *req;
  const struct ts_resolver_target *target;
  const struct ts_resolver_provider *provider;
  /* req->requirements and req->constraints in canonical order (owned
   * arrays, borrowed items): what reaches libsolv never follows the
   * order they were written in */
  const struct ts_requirement **roots;
  const struct ts_requirement **constraints;
  Pool *pool;
  /* pool->nsolvables when its whatprovides index was last built: a solve
   * after a round that added no solvable reuses it, and with it libsolv's
   * providers of every range dep (only new solvables add provides) */
  int whatprovides_nsolvables;
  Repo *repo, *sys, *host;   /* index versions, installed, host facts */
  Id none_evr;
  /* providers.c: EVR id → rank + 2 (1: none_evr, 0: not a rank), and the
   * deps whose rank relations get their providers from us (each once) */
  int *evr_rank;
  size_t evr_rank_cap;
  Queue rank_deps;
  bool *rank_dep_seen;       /* per rel id: in rank_deps already */
  size_t rank_dep_seen_cap;
  /* per name Id, for one ts_rs_give_providers pass (name_pass == pass):
   * where its providers and their ranks start in name_ranks (pairs ending
   * in 0), -1 when a provide of it is not "name = rank" */
  unsigned *name_pass;
  int *name_first;
  size_t name_cap;
  unsigned pass;
  Queue name_ranks;
  Id constraints_solv;
  struct ts_version *pyver;
  struct rs_proj *projs;
  size_t nprojs, projs_cap;
  int *pidx;                 /* name Id → project index + 1 */
  size_t pidx_cap;
  struct rs_sinfo *si;       /* per solvable Id */
  size_t si_cap;
  struct rs_dep *deps;
  size_t ndeps, deps_cap;
  struct rs_fact *facts;
  size_t nfacts, facts_cap;
  Queue jobs;
  struct rs_job *job_info;   /* per job pair */
  size_t job_info_cap;
  bool *rule_done;
  bool **rule_term_done;
  Id *rule_dep;              /* requires-rule dep, for revealed versions */
  bool *rule_rich;
  bool *rule_limit;          /* rule_dep is a conflict (--no-deps limit) */
  Id **rule_term_dep;        /* conflicts-rule deps per term */
  /* The constraints' indices sorted by subject name, each name's in set
   * order (ts_rs_index_rules): a revealed version looks up its own. */
  size_t *rule_by_subject;
  bool reveal_all;           /* root-excluded versions get solvables too */
  char **want;
  size_t nwant, want_cap;
  size_t pages_fetched, metadata_fetched;
  size_t round;              /* metadata rounds so far (grow calls) */
  char **ignored;            /* versions left out for unreadable METADATA */
  size_t nignored;
};

/* ---- pool.c ---------------------------------------------------------------- */

void *ts_rs_grow(void *p, size_t *cap, size_t need, size_t size);
/* What solvable p stands for (grown on first use). */
struct rs_sinfo *ts_rs_sinfo(struct rs *rs, Id p);
struct rs_proj *ts_rs_proj_by_name(struct rs *rs, const char *name);
/* Text of a requirement as the user wrote it, without marker. */
char *ts_rs_req_text(const char *name, char *const *extras, size_t nextras,
                     const struct ts_specset *spec);
/* A solvable `name = evr` in repo, recorded as kind/proj/ver/extra. */
Id ts_rs_new_solvable(struct rs *rs, Repo *repo, Id name, Id evr,
                      enum rs_kind kind, int proj, int ver, int extra);
/* Adds dep to p as a requires or conflicts, recorded with the text it
 * came from (owned); returns the record's index in rs->deps. */
int ts_rs_add_dep(struct rs *rs, Id p, Id dep, bool conflict, char *text,
                  int proj, const struct ts_specset *spec, int constraint,
                  bool rich);
/* The dep whose providers are exactly the solvables of `name` at the
 * ranks where match[] is true (exists[]: ranks that have a solvable). */
Id ts_rs_ranks_dep(struct rs *rs, Id name, const Id *evrs, size_t n,
                   const bool *match, const bool *exists);
/* Asks for the project's page (read by ts_rs_load_wanted). */
void ts_rs_want(struct rs *rs, const char *name);
/* A job pair inserted at pair position `at` / appended, its info zeroed
 * but for proj, fact and extra = -1. */
struct rs_job *ts_rs_insert_job(struct rs *rs, int at, Id how, Id what);
struct rs_job *ts_rs_push_job(struct rs *rs, Id how, Id what);
/* A solver over the pool as it stands (whatprovides rebuilt), with the
 * flags every solve uses. */
Solver *ts_rs_solver(struct rs *rs);
/* solver_solve(solv, jobs) with the projects encoded by one-version
 * chains marked multiversion (their versions get no pairwise rules);
 * the jobs' indexes are unchanged.  Returns the number of problems. */
int ts_rs_solve(struct rs *rs, Solver *solv, Queue *jobs);

/* ---- providers.c ----------------------------------------------------------- */

/* evr is the EVR of rank `rank` (-1: none_evr, below every rank). */
void ts_rs_note_rank(struct rs *rs, Id evr, int rank);
/* dep (a requires, conflicts or job) may hold relations over ranks whose
 * providers ts_rs_give_providers should list for libsolv. */
void ts_rs_note_rank_dep(struct rs *rs, Id dep);
/* After pool_createwhatprovides: the providers of every relation over
 * ranks under the noted deps that libsolv has not listed yet, exactly as
 * it would list them, without its EVR string compares. */
void ts_rs_give_providers(struct rs *rs);

/* ---- rules.c --------------------------------------------------------------- */

struct rs_fact *ts_rs_fact(struct rs *rs, const char *name);
/* A host fact: a solvable of @host held by an install job. */
void ts_rs_add_fact(struct rs *rs, const char *name, const char *version,
                    const char *source);
/* Applies the rules that can be applied now; asks for the pages a
 * requires-rule needs. */
void ts_rs_apply_rules(struct rs *rs);
/* The rules already applied to project `name`, on a version revealed
 * later (solvable p). */
/* Builds rule_by_subject for req->rules (once, when the rules arrive). */
void ts_rs_index_rules(struct rs *rs);
/* The indices of the constraints whose subject is `name` (exactly), in set
 * order: *n of them (0: none). */
const size_t *ts_rs_rules_about(const struct rs *rs, const char *name, size_t *n);
void ts_rs_apply_rules_to_version(struct rs *rs, Id p, const struct rs_ver *v,
                                  const char *name);
/* A kernel gate: a rule saying which GPU targets a build carries kernels
 * for (cuda-arch-*, pypi-arch-*, rocm-gfx-*, from rules/rules_compile.c). */
bool ts_rs_kernel_gate(const struct ts_constraint *con);
/* Version v of project `name` has no kernels for this host's GPU: a
 * kernel gate on it fails on the host's facts alone (no driver or ROCm
 * upgrade changes that). */
bool ts_rs_lacks_kernels(struct rs *rs, const char *name, const struct rs_ver *v);
/* The -c constraints on a project just added. */
void ts_rs_apply_user_constraints(struct rs *rs, int pidx);

/* ---- candidates.c ---------------------------------------------------------- */

bool ts_rs_version_fits(struct rs *rs, const struct rs_proj *pj, size_t i,
                        const struct ts_specset *spec, bool pre_ok);
/* Dep for "project (or its extra) with version in spec"; the best
 * versions it admits are revealed. */
Id ts_rs_spec_dep(struct rs *rs, struct rs_proj *pj, int extra,
                  const struct ts_specset *spec);
/* A requirement naming a pre-release admits them for the project: deps
 * and jobs encoded before are re-encoded in place. */
void ts_rs_note_prerelease(struct rs *rs, struct rs_proj *pj,
                           const struct ts_specset *spec);
/* The index of extra on project pidx, added (with its solvables) when
 * new. */
int ts_rs_get_extra(struct rs *rs, int pidx, const char *extra);
/* A solvable for version i of project pidx (with its extras and the rules
 * already applied to the project). */
void ts_rs_reveal(struct rs *rs, int pidx, size_t i);
/* The first window of a project just added. */
void ts_rs_reveal_first(struct rs *rs, int pidx);
/* After a failed solve with nprob problems: wider windows; false when
 * nothing is hidden any more (the problem is unsatisfiable). */
bool ts_rs_expand_windows(struct rs *rs, Solver *solv, int nprob);
/* The project whose one-version chain a rule (its source, target and
 * dep, from solver_ruleinfo) belongs to, or -1. */
int ts_rs_one_version_rule(struct rs *rs, Id source, Id target, Id dep);

/* ---- versions.c ------------------------------------------------------------ */

/* The variant preference of a project, or NULL; the tier of a version
 * under it: 2 main pattern, 1 fallback pattern only (CPU), 0 none. */
const struct ts_resolver_variant_pref *ts_rs_variant_pref(const struct rs *rs,
                                                          const char *name);
int ts_rs_variant_tier(const struct ts_resolver_variant_pref *pref,
                       const struct ts_version *v);
/* name is in list (PEP 503 comparison). */
bool ts_rs_name_in(const char *name, const char *const *list, size_t n);
/* The target's Python is admitted by a Requires-Python (NULL: yes). */
bool ts_rs_python_ok(struct rs *rs, const char *requires_python);
void ts_rs_ver_free(struct rs_ver *v);
/* Fetches every page asked for (in batches, name order) and adds the new
 * projects, their -c constraints and the rules now applicable. */
enum ts_code ts_rs_load_wanted(struct rs *rs, struct ts_error *err);

/* ---- metadata.c ------------------------------------------------------------ */

/* Fetches METADATA for the versions behind the pending solvables (plus
 * prefetch), then encodes the deps of every solvable whose METADATA is at
 * hand. */
enum ts_code ts_rs_grow_problem(struct rs *rs, const Queue *pending,
                                struct ts_error *err);

/* ---- solve.c --------------------------------------------------------------- */

/* The root requirements' jobs, in the objective's order. */
void ts_rs_add_root_jobs(struct rs *rs);
/* The lazy loop (README.md, "Lazy metadata"): solve, fetch and encode
 * what the answer's closure lacks, solve again.  TS_OK with *last the
 * last solver (the caller frees it) and *nprob its problems; with none,
 * res->items is the answer and cl its closure.  Else a provider's error,
 * and no solver. */
enum ts_code ts_rs_run(struct rs *rs, struct ts_resolution *res, Queue *cl,
                       Solver **last, int *nprob, struct ts_error *err);

/* ---- explain.c, held_back.c: read the state, never called from below ------ */

char *ts_rs_term_text(const struct ts_term *t);
/* Fills `why` with sentences for the solver's problems. */
void ts_rs_explain(struct rs *rs, Solver *solv, struct ts_explanation *why);
/* After the last successful solve (`cl` its closure): res->held_back when
 * req->priority[0] is installed below the best build the host runs; with
 * req->refuse_pinned_fallback, TS_E_RESOLVE and res->why when a pinned
 * one fell back to the fallback tier (CPU) on a host with a GPU build. */
enum ts_code ts_rs_held_back(struct rs *rs, const Queue *cl,
                             struct ts_resolution *res, struct ts_error *err);

/* ---- files.c --------------------------------------------------------------- */

/* The better of two usable files (a non-yanked one, then the better PEP
 * 825 variant rank, then the better tag priority, then the smaller name),
 * and the better stand-in for a version no wheel of the target fits (a
 * wheel before the sdist, then the smaller name). */
bool ts_rs_file_better(const struct ts_index_file *f, long vrank, long prio,
                       const struct ts_index_file *g, long gvrank, long gprio);
bool ts_rs_fallback_better(const struct ts_index_file *f, const struct ts_index_file *g);
/* The twins (rs_ver.twin) of a ruled project's versions whose files are
 * variant wheels of PyTorch builds. */
void ts_rs_set_twins(struct rs *rs, struct rs_proj *pj);
/* Whether a root requirement that applies to the target names the
 * project; whether requirement r of a solvable's metadata applies under
 * env (to the base solvable when extra is NULL, else to that extra's). */
bool ts_rs_named_by_root(struct rs *rs, const char *name);
bool ts_rs_req_applies(const struct ts_marker_env *env, const struct ts_requirement *r,
                       const char *extra);
