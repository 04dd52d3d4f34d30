/*
 * resolver/held_back.c — after a successful solve: was the first priority
 * project (torch) held back below the best build this host runs, and by
 * what?  And the refusal of a pinned torch that would silently become a
 * CPU build on a host that has a GPU build.
 *
 * "Runs here" is judged as `detect` judges it: the host facts and the
 * compiled rules alone (a solve with the fact jobs and one install job),
 * never the rest of the request.  "Held back by" is what libsolv reports
 * when the request is solved again with that build added as a job: the
 * explanation's sentences (requirements, rule ids with message and fix,
 * pairings, host facts), joined into one line.
 */
#include <stdlib.h>
#include <string.h>

#include "core/alloc.h"
#include "core/str.h"
#include "resolver/state.h"

#include <solv/solver.h>

/* The fact jobs of rs->jobs, the only jobs a "runs here" solve keeps. */
static void fact_jobs(const struct rs *rs, Queue *out) {
  queue_empty(out);
  for (int j = 0; j + 1 < rs->jobs.count; j += 2)
    if (rs->job_info[j / 2].fact >= 0)
      queue_push2(out, rs->jobs.elements[j], rs->jobs.elements[j + 1]);
}

static bool runs_here(struct rs *rs, Id p) {
  Queue jobs;
  queue_init(&jobs);
  fact_jobs(rs, &jobs);
  queue_push2(&jobs, SOLVER_INSTALL | SOLVER_SOLVABLE, p);
  Solver *solv = ts_rs_solver(rs);
  int nprob = ts_rs_solve(rs, solv, &jobs);
  solver_free(solv);
  queue_free(&jobs);
  return nprob == 0;
}

/* The most preferred version of pj above rank `above` that runs here and
 * is of tier `tier` or better (0: any), or -1.  Versions the windows hid
 * are revealed first: the best build may be one the roots exclude. */
static int best_runnable(struct rs *rs, int pidx, int above, int tier) {
  const struct ts_resolver_variant_pref *pref =
      ts_rs_variant_pref(rs, rs->projs[pidx].name);
  for (int k = (int)rs->projs[pidx].nvers - 1; k > above; k--) {
    struct rs_ver *v = &rs->projs[pidx].vers[k];
    if (!v->usable || ts_rs_variant_tier(pref, v->v) < tier)
      continue;
    if (!v->solv)
      ts_rs_reveal(rs, pidx, (size_t)k);
    if (runs_here(rs, rs->projs[pidx].vers[k].solv))
      return k;
  }
  return -1;
}

/* "(rule ID: MESSAGE)" after the first one for the same ID becomes
 * "(rule ID)": a rule that excludes six builds is worded once.  Edits
 * `s` in place. */
static void squeeze_rules(char *s) {
  char seen[1024] = "";
  size_t seen_len = 0;
  for (char *p = strstr(s, "(rule "); p; p = strstr(p + 1, "(rule ")) {
    char *id = p + 6;
    size_t idlen = strcspn(id, ":)");
    if (id[idlen] != ':')
      continue;
    char key[130];
    snprintf(key, sizeof key, "|%.*s|", (int)(idlen < 120 ? idlen : 120), id);
    if (!strstr(seen, key)) {
      size_t kl = strlen(key);
      if (seen_len + kl < sizeof seen) {
        memcpy(seen + seen_len, key, kl + 1);
        seen_len += kl;
      }
      continue;
    }
    int depth = 0;
    char *q = p;
    for (; *q; q++) {
      depth += *q == '(';
      depth -= *q == ')';
      if (!depth)
        break;
    }
    if (!*q)
      break;
    /* keep "(rule ID", drop ": MESSAGE" up to the matching ")" */
    memmove(id + idlen, q, strlen(q) + 1);
  }
}

/* Solves with `dep` added as an install job (to the request's jobs, or
 * with facts_only to the host fact jobs alone); on failure, the
 * explanation's sentences (no hints, sources, problem headers or "only one
 * version" lines) joined with "; ".  NULL when it is solvable after all. */
static char *blocked_by(struct rs *rs, Id how, Id dep, bool facts_only) {
  Queue saved = rs->jobs;
  struct rs_job *saved_info = rs->job_info;
  size_t saved_cap = rs->job_info_cap;
  if (facts_only) {
    /* the fact jobs of the saved list: facts are install jobs, not
     * installed solvables, so a list without them has no host */
    Queue facts;
    queue_init(&facts);
    fact_jobs(rs, &facts);
    rs->jobs = facts;
    rs->job_info = NULL;
    rs->job_info_cap = 0;
    rs->job_info = ts_rs_grow(rs->job_info, &rs->job_info_cap,
                              (size_t)rs->jobs.count / 2 + 1, sizeof *rs->job_info);
    for (int j = 0, k = 0; j + 1 < saved.count; j += 2)
      if (saved_info[j / 2].fact >= 0)
        rs->job_info[k++] = saved_info[j / 2];
  }
  queue_push2(&rs->jobs, how, dep);
  rs->job_info = ts_rs_grow(rs->job_info, &rs->job_info_cap,
                            (size_t)rs->jobs.count / 2, sizeof *rs->job_info);
  struct rs_job *ji = &rs->job_info[rs->jobs.count / 2 - 1];
  memset(ji, 0, sizeof *ji);
  ji->proj = -1;
  ji->fact = -1;
  ji->extra = -1;
  Solver *solv = ts_rs_solver(rs);
  char *out = NULL;
  if (ts_rs_solve(rs, solv, &rs->jobs)) {
    struct ts_explanation why = {0};
    ts_rs_explain(rs, solv, &why);
    size_t len = 0, cap = 0;
    for (size_t i = 0; i < why.nlines; i++) {
      const char *l = why.lines[i];
      if (strncmp(l, "hint", 4) != 0 && strncmp(l, "source of rule", 14) != 0 &&
          strncmp(l, "problem ", 8) != 0 && strncmp(l, "only one version", 16) != 0) {
        size_t n = strlen(l);
        out = ts_rs_grow(out, &cap, len + n + 3, 1);
        if (len) {
          memcpy(out + len, "; ", 2);
          len += 2;
        }
        memcpy(out + len, l, n + 1);
        len += n;
      }
      free(why.lines[i]);
    }
    free(why.lines);
  }
  solver_free(solv);
  if (out)
    squeeze_rules(out);
  if (facts_only) {
    queue_free(&rs->jobs);
    free(rs->job_info);
    rs->jobs = saved;
    rs->job_info = saved_info;
    rs->job_info_cap = saved_cap;
  } else {
    rs->jobs.count -= 2;
  }
  return out;
}

/* The dep for the main-tier (GPU) builds of pj that `admit` accepts. */
typedef bool admit_fn(const struct rs *rs, const struct rs_proj *pj,
                      const struct rs_ver *v, const void *ctx);

static Id main_tier_dep(struct rs *rs, int pidx, admit_fn *admit,
                        const void *ctx) {
  struct rs_proj *pj = &rs->projs[pidx];
  const struct ts_resolver_variant_pref *pref = ts_rs_variant_pref(rs, pj->name);
  size_t n = pj->nvers;
  bool *match = ts_xcalloc(n + 1, sizeof *match);
  bool *exists = ts_xcalloc(n + 1, sizeof *exists);
  bool any = false;
  for (size_t k = 0; k < n; k++) {
    if (!rs->projs[pidx].vers[k].usable)
      continue;
    if (!rs->projs[pidx].vers[k].solv)
      ts_rs_reveal(rs, pidx, k);
    pj = &rs->projs[pidx];
    exists[k] = true;
    match[k] = ts_rs_variant_tier(pref, pj->vers[k].v) == 2 &&
               admit(rs, pj, &pj->vers[k], ctx);
    any |= match[k];
  }
  Id dep = any ? ts_rs_ranks_dep(rs, pj->nameid, pj->evrs, n, match, exists) : 0;
  free(match);
  free(exists);
  return dep;
}

static bool admitted_by_roots(const struct rs *rs, const struct rs_proj *pj,
                              const struct rs_ver *v, const void *ctx) {
  (void)ctx;
  for (size_t i = 0; i < rs->req->nrequirements; i++)
    if (strcmp(rs->roots[i]->normalized_name, pj->name) == 0 &&
        !ts_specset_contains(rs->roots[i]->specifier, v->v, TS_PRE_INCLUDE))
      return false;
  return true;
}

static bool same_release(const struct rs *rs, const struct rs_proj *pj,
                         const struct rs_ver *v, const void *ctx) {
  (void)rs;
  (void)pj;
  return ts_version_cmp(v->pub, ctx) == 0;
}

/* The newest public version among pj's main-tier (GPU) builds. */
static const struct ts_version *newest_main_tier(const struct rs *rs,
                                                 const struct rs_proj *pj) {
  const struct ts_resolver_variant_pref *pref = ts_rs_variant_pref(rs, pj->name);
  const struct ts_version *best = NULL;
  for (size_t k = 0; k < pj->nvers; k++)
    if (pj->vers[k].usable && ts_rs_variant_tier(pref, pj->vers[k].v) == 2 &&
        (!best || ts_version_cmp(pj->vers[k].pub, best) > 0))
      best = pj->vers[k].pub;
  return best;
}

/* The root requirements on the project pin it (a specifier), and none
 * names a local label (torch==2.5.1+cpu asks for that very build). */
static bool pinned_without_label(const struct rs *rs, const char *name) {
  bool pinned = false;
  for (size_t i = 0; i < rs->req->nrequirements; i++) {
    const struct ts_requirement *r = rs->roots[i];
    if (strcmp(r->normalized_name, name) != 0 || !ts_specset_count(r->specifier))
      continue;
    if (strchr(ts_specset_str(r->specifier), '+'))
      return false;
    pinned = true;
  }
  return pinned;
}

/* The root specifiers on the project, joined ("torch==2.5.1"). */
static char *pins_text(const struct rs *rs, const char *name) {
  char *out = NULL;
  for (size_t i = 0; i < rs->req->nrequirements; i++) {
    const struct ts_requirement *r = rs->roots[i];
    if (strcmp(r->normalized_name, name) != 0 || !ts_specset_count(r->specifier))
      continue;
    char *t = ts_xasprintf("%s%s%s%s", out ? out : "", out ? ", " : "", name,
                           ts_specset_str(r->specifier));
    free(out);
    out = t;
  }
  return out ? out : ts_xstrdup(name);
}

/* Every GPU build of the project that the pins admit lacks kernels for
 * this host's GPU; false when the pins admit none. */
static bool pins_lack_kernels(struct rs *rs, const struct rs_proj *pj) {
  const struct ts_resolver_variant_pref *pref = ts_rs_variant_pref(rs, pj->name);
  bool any = false;
  for (size_t k = 0; k < pj->nvers; k++) {
    const struct rs_ver *v = &pj->vers[k];
    if (!v->usable || ts_rs_variant_tier(pref, v->v) != 2 ||
        !admitted_by_roots(rs, pj, v, NULL))
      continue;
    if (!ts_rs_lacks_kernels(rs, pj->name, v))
      return false;
    any = true;
  }
  return any;
}

/* The oldest release with a main-tier (GPU) build that runs here: its most
 * preferred such build, or -1. */
static int oldest_runnable(struct rs *rs, int pidx) {
  const struct ts_resolver_variant_pref *pref =
      ts_rs_variant_pref(rs, rs->projs[pidx].name);
  int oldest = -1;
  for (size_t k = 0; k < rs->projs[pidx].nvers; k++) {
    struct rs_proj *pj = &rs->projs[pidx];
    if (!pj->vers[k].usable || ts_rs_variant_tier(pref, pj->vers[k].v) != 2 ||
        (oldest >= 0 && ts_version_cmp(pj->vers[k].pub, pj->vers[oldest].pub) > 0))
      continue;
    if (!pj->vers[k].solv)
      ts_rs_reveal(rs, pidx, k);
    if (runs_here(rs, rs->projs[pidx].vers[k].solv))
      oldest = (int)k;
  }
  return oldest;
}

static void why_add(struct ts_explanation *why, size_t *cap, char *line) {
  why->lines = ts_rs_grow(why->lines, cap, why->nlines + 1, sizeof *why->lines);
  why->lines[why->nlines++] = line;
}

/* A pinned torch fell back to its CPU build while a GPU build of another
 * version runs here: the refusal, with why no GPU build of the pinned
 * versions runs (rule ids and facts) and the ways out. */
static enum ts_code refuse_fallback(struct rs *rs, int pidx, int chosen,
                                    int best, struct ts_resolution *res,
                                    struct ts_error *err) {
  struct rs_proj *pj = &rs->projs[pidx];
  char *pins = pins_text(rs, pj->name);
  /* the main-tier builds the pins admit, as one job */
  Id dep = main_tier_dep(rs, pidx, admitted_by_roots, NULL);
  pj = &rs->projs[pidx];
  size_t cap = 0;
  why_add(&res->why, &cap,
          ts_xasprintf("you asked for %s; its only build that fits is %s, a "
                       "CPU build, on a host with a GPU",
                       pins, pj->vers[chosen].text));
  char *reason =
      dep ? blocked_by(rs, SOLVER_INSTALL | SOLVER_SOLVABLE_PROVIDES, dep, false)
          : NULL;
  why_add(&res->why, &cap,
          reason ? ts_xasprintf("no GPU build of it runs here: %s", reason)
                 : ts_xasprintf("no GPU build of it for this host's backends "
                                "is on the indexes asked"));
  free(reason);
  const char *pub = ts_version_public(pj->vers[best].v);
  why_add(&res->why, &cap,
          ts_xasprintf("fix: ask for %s==%s, the newest %s with a GPU build "
                       "that runs here (%s)",
                       pj->name, pub, pj->name, pj->vers[best].text));
  bool amd = false, nvidia = false;
  for (size_t i = 0; i < rs->nfacts; i++) {
    amd |= strncmp(rs->facts[i].name, "__gfx", 5) == 0;
    nvidia |= strncmp(rs->facts[i].name, "__cc_", 5) == 0 ||
              strcmp(rs->facts[i].name, "__cuda_driver") == 0;
  }
  const char *stack = amd && !nvidia   ? "ROCm (the amdgpu kernel driver)"
                      : nvidia && !amd ? "the NVIDIA driver"
                                       : "the NVIDIA driver or ROCm";
  /* a build without kernels for this GPU stays without them whatever
   * the driver: then the way out is another release */
  int oldest = pins_lack_kernels(rs, pj) ? oldest_runnable(rs, pidx) : -1;
  pj = &rs->projs[pidx];
  if (oldest >= 0)
    why_add(&res->why, &cap,
            ts_xasprintf("fix: no upgrade of %s adds kernels for this host's GPU "
                         "to %s: the oldest %s with a GPU build that runs here is "
                         "%s (%s)",
                         stack, pins, pj->name, ts_version_public(pj->vers[oldest].v),
                         pj->vers[oldest].text));
  else
    why_add(&res->why, &cap,
            ts_xasprintf("fix: upgrade %s so that a GPU build of %s runs (see "
                         "'torchsolve detect')",
                         stack, pins));
  why_add(&res->why, &cap,
          ts_xasprintf("fix: pass --cpu to accept %s %s", pj->name,
                       pj->vers[chosen].text));
  ts_error_set(err, TS_E_RESOLVE,
               "%s has no GPU build that runs on this host (it would be the "
               "CPU build %s)",
               pins, pj->vers[chosen].text);
  free(pins);
  return TS_E_RESOLVE;
}

/* A preference (the existing lock's version) is soft: a solve with the
 * better build as a job succeeds, yet the answer kept the locked release.
 * Never silently: say so, and how to move it. */
static char *kept_from_lock(const struct rs *rs, const char *name) {
  for (size_t i = 0; i < rs->req->npreferences; i++)
    if (strcmp(rs->req->preferences[i].name, name) == 0)
      return ts_xasprintf("the existing lock has %s %s (to take the newer one: "
                          "--upgrade-package %s)",
                          name, rs->req->preferences[i].version, name);
  return NULL;
}

enum ts_code ts_rs_held_back(struct rs *rs, const Queue *cl,
                             struct ts_resolution *res, struct ts_error *err) {
  if (!rs->req->npriority)
    return TS_OK;
  struct rs_proj *pj = ts_rs_proj_by_name(rs, rs->req->priority[0]);
  if (!pj)
    return TS_OK;
  int pidx = (int)(pj - rs->projs);
  int chosen = -1;
  for (int k = 0; k < cl->count; k++) {
    const struct rs_sinfo *si = &rs->si[cl->elements[k]];
    if ((si->kind == RS_CAND || si->kind == RS_INST) && si->proj == pidx)
      chosen = si->ver;
  }
  if (chosen < 0)
    return TS_OK;
  const struct ts_resolver_variant_pref *pref = ts_rs_variant_pref(rs, pj->name);
  bool fallback = ts_rs_variant_tier(pref, pj->vers[chosen].v) == 1;
  /* a CPU build is held back from a GPU build first of all */
  int best = fallback ? best_runnable(rs, pidx, chosen, 2) : -1;
  if (best < 0)
    best = best_runnable(rs, pidx, chosen, 0);
  pj = &rs->projs[pidx];
  if (best < 0) {
    if (fallback)
      return TS_OK; /* no GPU build of any version runs: nothing newer */
    /* the host itself holds it back: the newest release has GPU builds,
     * and the rules rule every one of them out here (the kernel driver's
     * window on an RX 7900 XT); its builds are the ones explained */
    const struct ts_version *newest = newest_main_tier(rs, pj);
    Id dep = newest && ts_version_cmp(newest, pj->vers[chosen].pub) > 0
                 ? main_tier_dep(rs, pidx, same_release, newest)
                 : 0;
    char *reason = dep ? blocked_by(rs, SOLVER_INSTALL | SOLVER_SOLVABLE_PROVIDES,
                                    dep, true)
                       : NULL;
    if (!reason)
      return TS_OK;
    pj = &rs->projs[pidx];
    struct ts_held_back *hb = ts_xcalloc(1, sizeof *hb);
    hb->name = ts_xstrdup(pj->name);
    hb->chosen = ts_xstrdup(pj->vers[chosen].text);
    hb->reason = reason;
    res->held_back = hb;
    return TS_OK;
  }
  bool to_gpu = fallback && ts_rs_variant_tier(pref, pj->vers[best].v) == 2;
  if (to_gpu && rs->req->refuse_pinned_fallback &&
      pinned_without_label(rs, pj->name)) {
    for (size_t i = 0; i < res->nitems; i++) {
      free(res->items[i].name);
      free(res->items[i].version);
      free(res->items[i].installed_version);
      for (size_t k = 0; k < res->items[i].nextras; k++)
        free(res->items[i].extras[k]);
      free(res->items[i].extras);
    }
    res->nitems = 0;
    return refuse_fallback(rs, pidx, chosen, best, res, err);
  }
  char *reason = blocked_by(rs, SOLVER_INSTALL | SOLVER_SOLVABLE,
                            pj->vers[best].solv, false);
  if (!reason)
    reason = kept_from_lock(rs, pj->name);
  if (!reason)
    return TS_OK; /* not held back after all (cannot happen when exact) */
  pj = &rs->projs[pidx];
  struct ts_held_back *hb = ts_xcalloc(1, sizeof *hb);
  hb->name = ts_xstrdup(pj->name);
  hb->chosen = ts_xstrdup(pj->vers[chosen].text);
  hb->runnable = ts_xstrdup(pj->vers[best].text);
  hb->fallback = to_gpu;
  hb->reason = reason;
  res->held_back = hb;
  return TS_OK;
}
