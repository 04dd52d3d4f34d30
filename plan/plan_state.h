/*
 * plan/plan_state.h — private to plan/: what a plan result keeps behind
 * ts_plan_result.priv, grouped by who fills each part and how long it
 * lives.  Every group is filled by one file and cleared by its own clear
 * function, all called from ts_plan_result_free:
 *
 *   in       the caller's options, borrowed (plan.c, for the run)
 *   route    the variants, routes and preferences compiled from the rules
 *            once (plan_routes.c)
 *   fetched  what the resolver's provider fetched or made up: index pages,
 *            METADATA, the one-file pages of direct requirements
 *            (plan_provider.c, plan_direct.c); the resolution points into
 *            it until the result is freed
 *   ask      the requirements and installed set handed to the resolver
 *            (plan.c)
 *   env      the environment an install commits to: its installed set and
 *            the lock on it, held from resolve to ts_plan_result_free
 *   builds   the runtime torch of torch-matched builds and what builds
 *            keep for the run (plan_runtime.c)
 *   memo     answers worked out once on demand (plan_queries.c)
 */
#pragma once

#include <stdbool.h>
#include <stddef.h>

#include "plan/plan.h"
#include "target/site.h"

/* A page the provider handed out: a fetched result or a one-file page. */
struct ts_plan_page {
  struct ts_index_result res;
  const struct ts_index_project *self[1];
};

struct ts_plan_meta {
  const struct ts_index_file *file;
  char *data;
  size_t len;
};

/* A root given as a path or URL (plan_direct.c). */
struct ts_plan_direct {
  char *name; /* normalised */
  const struct ts_reqfile_entry *e;
  char *location; /* path or URL as given */
  bool is_path;
  struct ts_index_file file;
  struct ts_plan_page page;
  struct ts_source_built built;  /* built from source when built.wheel */
  struct ts_plan_meta prepared;     /* --dry-run: a source's METADATA, not built */
};

/* The variants routed to, best first, each with whether it is a CPU one. */
struct ts_plan_variant_list {
  char **names;
  bool *cpu;
  size_t n;
};

/* One resolution of the runtime (plan_runtime.c), made once. */
struct ts_plan_runtime_answer {
  bool resolved;
  char *torch;  /* the torch build it chose, or NULL */
  char **pins;  /* "name==version" of everything it chose */
  size_t npins;
};

/* The caller's options for the run (their pointers borrowed; entries,
 * upgrade names and preferences read only while ts_plan_resolve runs). */
struct ts_plan_inputs {
  struct ts_plan_result *owner; /* the result this provider fills (notes) */
  const struct ts_rules *rules; /* for --report */
  struct ts_index *idx;         /* owner->idx */
  const struct ts_constraint_set *set; /* compiled, or the caller's facts */
  const char **general; /* general index URLs, in the options' order */
  size_t ngeneral;
  const struct ts_reqfile_entry *const *entries;
  size_t nentries;
  bool first_index; /* the strategy: later general indexes are not asked */
  bool builds;      /* sources can be built: with build */
  bool dry_run;     /* sources were not built: nothing may be installed */
  struct ts_plan_options opts; /* a copy, for the runtime resolutions */
  struct ts_source_build_options build; /* the caller's, with the torch match */
};

/* Compiled from the rules once (plan_routes.c). */
struct ts_plan_routing {
  char **routes; /* <torch>/<variant> for each usable backend */
  size_t nroutes;
  struct ts_plan_variant_list vars; /* owns the pattern strings */
  const char **patterns;
  struct ts_resolver_variant_pref *prefs;
  size_t nprefs;
  const char **priority; /* torch, then the other routed projects */
  size_t npriority;
};

/* What the provider fetched or made up; the resolution points into it. */
struct ts_plan_fetched {
  struct ts_plan_direct *directs;
  size_t ndirects;
  struct ts_plan_page **pages;
  size_t npages;
  struct ts_plan_meta *metas;
  size_t nmetas;
  char **not_found; /* the index client's words for names no index has */
  size_t nnot_found;
};

/* The request handed to the resolver. */
struct ts_plan_ask {
  struct ts_requirement **roots, **cons;
  size_t nroots, ncons;
  struct ts_resolver_installed *installed; /* into env.site */
  size_t ninstalled;
};

/* The environment installed into, from resolve to ts_plan_result_free. */
struct ts_plan_env_state {
  struct ts_site site; /* the target's installed set */
  int lock_fd;         /* the environment's lock (lock_env), or -1 */
  bool lock_borrowed;  /* the plan that made this one holds it (the first
                          phase of a two-phase install) */
};

/* Torch-matched builds (plan_runtime.c): the runtime resolved with torch
 * added when no requirement names it (what isolated builds get), and as
 * named (what a --no-build-isolation build's target is given). */
struct ts_plan_builds {
  const struct ts_plan_options *o; /* &in.opts once builds are on */
  struct ts_source_build_kept *kept;     /* shared with its builds */
  struct ts_source_build_kept *own_kept; /* kept when made here */
  struct ts_target *metadata_target; /* build.metadata_python's, once probed */
  struct ts_plan_runtime_answer with_torch, as_named;
};

/* ts_plan_unmet_requirements' lines, worked out once: the warning and the
 * report both ask, and each asking parsed every METADATA and
 * Requires-Dist of the environment again (a tenth of a warm resolve). */
struct ts_plan_memo {
  char **unmet;
  size_t nunmet;
  bool unmet_known;
};

struct ts_plan_state {
  struct ts_plan_inputs in;
  struct ts_plan_routing route;
  struct ts_plan_fetched fetched;
  struct ts_plan_ask ask;
  struct ts_plan_env_state env;
  struct ts_plan_builds builds;
  struct ts_plan_memo memo;
};

static inline struct ts_plan_state *ts_plan_state_of(const struct ts_plan_result *r) {
  return r->priv;
}

/* ---- plan_routes.c ----------------------------------------------------- */

/* Compiles o->rules for o->host into *out and lists the variants every
 * release series may use here (or the builds o->torch_backends names). */
enum ts_code ts_plan_compile_rules(const struct ts_plan_options *o, struct ts_constraint_set *out,
                                struct ts_plan_variant_list *v, struct ts_error *err);
/* The variants, routes and preferences of a resolution against `set`. */
void ts_plan_route(struct ts_plan_state *p, const struct ts_plan_options *o,
                const struct ts_constraint_set *set);
/* index/client.h's route callback (ctx: the plan_state). */
size_t ts_plan_route_project(void *ctx, const char *name, const char **urls, size_t max);
void ts_plan_routing_clear(struct ts_plan_routing *r);

/* ---- plan_provider.c: the resolver's provider -------------------------- */

struct ts_resolver_provider ts_plan_provider(struct ts_plan_state *p);
/* The METADATA the provider kept for f, or NULL. */
const struct ts_plan_meta *ts_plan_find_meta(const struct ts_plan_state *p,
                                       const struct ts_index_file *f);
void ts_plan_fetched_clear(struct ts_plan_fetched *f);

/* ---- plan_direct.c: roots given as a path or URL ----------------------- */

/* The direct requirements of o (paths, URLs, sources: built, or prepared
 * for --dry-run), each a one-file page and a root on its name. */
enum ts_code ts_plan_add_directs(struct ts_plan_state *p, const struct ts_plan_options *o,
                              struct ts_error *err);
struct ts_plan_direct *ts_plan_find_direct(const struct ts_plan_state *p, const char *name);
/* The direct requirement built from source for installed name `name`. */
struct ts_plan_direct *ts_plan_built_direct(const struct ts_plan_state *p, const char *name);
/* A project rebuilt from source replaces what is installed: the action
 * says so (the resolver never saw the installed one). */
void ts_plan_mark_rebuilt(const struct ts_plan_state *p, struct ts_resolved *x);

/* ---- plan_runtime.c: the runtime torch of torch-matched builds --------- */

/* The caller's build options, for the sources this resolution builds:
 * with its rules and host, an environment kept per source for the run,
 * and the torch the runtime resolution chooses. */
void ts_plan_adopt_build_options(struct ts_plan_state *p, const struct ts_plan_options *o);
/* A build made against the runtime torch binds the install to it. */
void ts_plan_pin_runtime_torch(struct ts_plan_state *p, const char *version);
void ts_plan_builds_clear(struct ts_plan_builds *b);

/* ---- plan_queries.c ---------------------------------------------------- */

void ts_plan_memo_clear(struct ts_plan_memo *m);
