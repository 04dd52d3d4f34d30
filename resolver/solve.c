/*
 * resolver/solve.c — the solve loop: root jobs in the objective's order,
 * solve, the answer's closure, fetch what it lacks or widen the windows,
 * until the closure holds nothing pending; then the answer as
 * ts_resolved items.  It never explains: a failed solve goes back to the
 * caller (resolver.c), which hands it to explain.c.
 */
#include "core/alloc.h"
#include "core/str.h"
#include "resolver/resolver.h"

#include <stdlib.h>
#include <string.h>

#include <solv/pool.h>
#include <solv/repo.h>
#include <solv/solver.h>

#include "pep/name.h"
#include "resolver/internal.h"
#include "resolver/state.h"

static void closure(struct rs *rs, Solver *solv, Queue *out) {
  Pool *pool = rs->pool;
  Queue dq;
  queue_init(&dq);
  solver_get_decisionqueue(solv, &dq);
  char *chosen = ts_xcalloc((size_t)pool->nsolvables + 1, 1);
  char *seen = ts_xcalloc((size_t)pool->nsolvables + 1, 1);
  for (int i = 0; i < dq.count; i++)
    if (dq.elements[i] > 0)
      chosen[dq.elements[i]] = 1;
  queue_empty(out);
  for (int j = 0; j + 1 < rs->jobs.count; j += 2) {
    Id how = rs->jobs.elements[j] & SOLVER_JOBMASK;
    Id select = rs->jobs.elements[j] & SOLVER_SELECTMASK;
    if (how != SOLVER_INSTALL || select == SOLVER_SOLVABLE)
      continue;
    Id dep = rs->jobs.elements[j + 1], p, pp;
    FOR_PROVIDES(p, pp, dep) {
      if (chosen[p] && !seen[p]) {
        seen[p] = 1;
        queue_push(out, p);
      }
    }
  }
  for (int k = 0; k < out->count; k++) {
    Id s = out->elements[k];
    for (int d = ts_rs_sinfo(rs, s)->first_dep; d >= 0; d = rs->deps[d].next) {
      if (rs->deps[d].conflict || rs->deps[d].rich)
        continue;
      Id p, pp, dep = rs->deps[d].dep;
      FOR_PROVIDES(p, pp, dep) {
        if (chosen[p] && !seen[p]) {
          seen[p] = 1;
          queue_push(out, p);
        }
      }
    }
  }
  free(chosen);
  free(seen);
  queue_free(&dq);
}


static int item_cmp(const void *a, const void *b) {
  const struct ts_resolved *x = a, *y = b;
  return strcmp(x->name, y->name);
}

static void collect_result(struct rs *rs, const Queue *cl,
                           struct ts_resolution *res) {
  size_t cap = 0;
  for (int k = 0; k < cl->count; k++) {
    struct rs_sinfo *si = ts_rs_sinfo(rs, cl->elements[k]);
    if (si->kind != RS_CAND && si->kind != RS_INST)
      continue;
    struct rs_proj *pj = &rs->projs[si->proj];
    struct rs_ver *v = &pj->vers[si->ver];
    res->items = ts_rs_grow(res->items, &cap, res->nitems + 1,
                            sizeof *res->items);
    struct ts_resolved *it = &res->items[res->nitems++];
    memset(it, 0, sizeof *it);
    it->name = ts_xstrdup(pj->name);
    it->version = ts_xstrdup(v->text);
    it->requested = pj->direct;
    const struct ts_version *iv =
        pj->inst_ver >= 0 ? pj->vers[pj->inst_ver].v : pj->inst_v;
    if (pj->inst)
      it->installed_version = ts_xstrdup(pj->inst->version);
    if (si->kind == RS_INST) {
      it->action = TS_ACTION_KEEP;
    } else {
      it->file = v->file;
      it->sdist = v->from_sdist;
      it->index_url = v->index_url;
      if (!iv) {
        it->action = TS_ACTION_INSTALL;
      } else {
        int c = ts_version_cmp(v->v, iv);
        it->action = c > 0   ? TS_ACTION_UPGRADE
                     : c < 0 ? TS_ACTION_DOWNGRADE
                             : TS_ACTION_REINSTALL;
      }
    }
    for (int j = 0; j < cl->count; j++) {
      struct rs_sinfo *sj = ts_rs_sinfo(rs, cl->elements[j]);
      if (sj->kind == RS_EXTRA && sj->proj == si->proj) {
        it->extras = ts_xrealloc(it->extras, (it->nextras + 1) * sizeof(char *));
        it->extras[it->nextras++] = ts_xstrdup(pj->extras[sj->extra].name);
      }
    }
    if (it->nextras)
      qsort(it->extras, it->nextras, sizeof *it->extras, ts_strv_cmp);
  }
  if (res->nitems)
    qsort(res->items, res->nitems, sizeof *res->items, item_cmp);
}

/* Where a project stands in the objective: its index in req->priority
 * (torch, then its companions), or npriority for every other project. */
static size_t priority_of(const struct rs *rs, const char *name) {
  for (size_t i = 0; i < rs->req->npriority; i++)
    if (strcmp(rs->req->priority[i], name) == 0)
      return i;
  return rs->req->npriority;
}

/* Whether a rule of the request constrains project `name`. */
static bool ruled(const struct rs *rs, const char *name) {
  const struct ts_constraint_set *set = rs->req->rules;
  for (size_t c = 0; set && c < set->nconstraints; c++)
    if (strcmp(set->constraints[c].subject.name, name) == 0)
      return true;
  return false;
}

/* The root jobs, in the objective's order: libsolv decides install jobs
 * in job order and only backs a decision out when nothing later can be
 * changed instead, so the first job gets the best version that has any
 * solution.  Projects of req->priority come first (torch: its newest
 * release, then its best variant), the rest in canonical order. */
void ts_rs_add_root_jobs(struct rs *rs) {
  for (size_t tier = 0; tier <= rs->req->npriority; tier++) {
    for (size_t i = 0; i < rs->req->nrequirements; i++) {
      const struct ts_requirement *r = rs->roots[i];
      if (priority_of(rs, r->normalized_name) != tier)
        continue;
      if (r->marker && !ts_marker_eval(r->marker, rs->target->markers, NULL))
        continue;
      struct rs_proj *pj = ts_rs_proj_by_name(rs, r->normalized_name);
      int pidx = (int)(pj - rs->projs);
      ts_rs_note_prerelease(rs, pj, r->specifier);
      size_t n = r->nextras ? r->nextras : 1;
      for (size_t e = 0; e < n; e++) {
        int x = r->nextras ? ts_rs_get_extra(rs, pidx, r->extras[e]) : -1;
        pj = &rs->projs[pidx];
        Id dep = ts_rs_spec_dep(rs, pj, x, r->specifier);
        struct rs_job *ji =
            ts_rs_push_job(rs, SOLVER_INSTALL | SOLVER_SOLVABLE_PROVIDES, dep);
        ji->proj = pidx;
        ji->spec = r->specifier;
        ji->extra = x;
        ji->text = ts_rs_req_text(r->normalized_name,
                                  r->nextras ? &r->extras[e] : NULL,
                                  r->nextras ? 1 : 0, r->specifier);
      }
      if (pj->inst_solv && ruled(rs, pj->name)) {
        /* libsolv keeps an installed package whose requires are already
         * broken; one that breaks a rule on this host (torch +cu130 under
         * --cuda 12.6) does not satisfy the request: verify it, so that
         * the solver replaces it or says which rule stands in the way */
        struct rs_job *ji = ts_rs_push_job(rs, SOLVER_VERIFY | SOLVER_SOLVABLE, pj->inst_solv);
        ji->proj = pidx;
        ji->text = ts_xasprintf("%s as installed", pj->name);
      }
      if (rs->req->upgrade ||
          ts_rs_name_in(r->normalized_name, rs->req->upgrade_packages,
                  rs->req->nupgrade_packages)) {
        struct rs_job *ji =
            ts_rs_push_job(rs, SOLVER_UPDATE | SOLVER_SOLVABLE_NAME, pj->nameid);
        ji->proj = pidx;
        ji->text = ts_xasprintf("--upgrade %s", pj->name);
      }
    }
  }
  /* --upgrade-package names in name order */
  size_t nup = rs->req->nupgrade_packages;
  char **up = ts_xcalloc(nup + 1, sizeof *up);
  for (size_t i = 0; i < nup; i++)
    up[i] = ts_name_normalize(rs->req->upgrade_packages[i],
                              strlen(rs->req->upgrade_packages[i]));
  if (nup > 1)
    qsort(up, nup, sizeof *up, ts_strv_cmp);
  for (size_t i = 0; i < nup; i++) {
    /* the project may only show up later, as a dependency: the job names
     * it, so it applies whenever it does */
    struct rs_proj *pj = ts_rs_proj_by_name(rs, up[i]);
    if (!(pj && pj->direct) && (i == 0 || strcmp(up[i], up[i - 1]) != 0)) {
      struct rs_job *ji = ts_rs_push_job(rs, SOLVER_UPDATE | SOLVER_SOLVABLE_NAME,
                                   pool_str2id(rs->pool, up[i], 1));
      ji->text = ts_xasprintf("--upgrade-package %s", up[i]);
    }
  }
  for (size_t i = 0; i < nup; i++)
    free(up[i]);
  free(up);
}

/* Stage two of the objective: a project of req->priority that the answer
 * needs but no root requirement names (torch under pymomentum-gpu or
 * transformers[torch]) was decided wherever libsolv met it.  It becomes
 * an install job placed by its priority, so the next solve decides it
 * first; true when a job was added.  Exact: the answer already holds the
 * project, so the job rules out no better answer. */
static bool add_priority_jobs(struct rs *rs, const Queue *cl) {
  bool added = false;
  for (int k = 0; k < cl->count; k++) {
    const struct rs_sinfo *si = &rs->si[cl->elements[k]];
    if (si->kind != RS_CAND && si->kind != RS_INST)
      continue;
    struct rs_proj *pj = &rs->projs[si->proj];
    size_t tier = priority_of(rs, pj->name);
    if (tier == rs->req->npriority || pj->direct || pj->priority_job)
      continue;
    int at = 0;
    for (int j = 0; j + 1 < rs->jobs.count; j += 2, at++) {
      const struct rs_job *ji = &rs->job_info[j / 2];
      if ((rs->jobs.elements[j] & SOLVER_SELECTMASK) == SOLVER_SOLVABLE)
        continue; /* host facts and constraints stay first */
      if (ji->proj < 0 || priority_of(rs, rs->projs[ji->proj].name) > tier)
        break;
    }
    struct rs_job *ji = ts_rs_insert_job(rs, at, SOLVER_INSTALL | SOLVER_SOLVABLE_NAME,
                                   pj->nameid);
    ji->proj = si->proj;
    ji->text = ts_xasprintf("%s (needed by the answer, decided first)",
                            pj->name);
    pj->priority_job = true;
    added = true;
  }
  return added;
}

enum ts_code ts_rs_run(struct rs *rs, struct ts_resolution *res, Queue *cl,
                       Solver **last, int *nprob, struct ts_error *err) {
  *last = NULL;
  *nprob = 0;
  enum ts_code c = TS_OK;
  Queue pending;
  queue_init(&pending);
  for (;;) {
    Solver *solv = ts_rs_solver(rs);
    res->solves++;
    int n = ts_rs_solve(rs, solv, &rs->jobs);
    if (n && ts_rs_expand_windows(rs, solv, n)) {
      solver_free(solv);
      continue;
    }
    if (n) {
      *last = solv;
      *nprob = n;
      break;
    }
    closure(rs, solv, cl);
    queue_empty(&pending);
    for (int k = 0; k < cl->count; k++)
      if (!ts_rs_sinfo(rs, cl->elements[k])->deps_done)
        queue_push(&pending, cl->elements[k]);
    if (!pending.count && add_priority_jobs(rs, cl)) {
      solver_free(solv);
      continue;
    }
    if (!pending.count) {
      collect_result(rs, cl, res);
      *last = solv;
      break;
    }
    solver_free(solv);
    c = ts_rs_grow_problem(rs, &pending, err);
    if (c != TS_OK)
      break;
  }
  queue_free(&pending);
  return c;
}
