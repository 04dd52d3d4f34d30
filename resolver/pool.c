/*
 * resolver/pool.c — the bookkeeping every encoder shares: solvables with
 * what they stand for (rs_sinfo), deps recorded with the text they came
 * from, deps over sets of ranks, the job list with its info, the projects
 * asked for, and a solver over the pool as it stands.
 */
#include "core/alloc.h"
#include "core/str.h"
#include "resolver/resolver.h"

#include <stdlib.h>
#include <string.h>

#include <solv/pool.h>
#include <solv/repo.h>
#include <solv/solver.h>

#include "resolver/internal.h"
#include "resolver/state.h"

/* ---- small utilities ----------------------------------------------------- */

void *ts_rs_grow(void *p, size_t *cap, size_t need, size_t size) {
  if (need <= *cap)
    return p;
  size_t n = *cap ? *cap : 8;
  while (n < need)
    n *= 2;
  void *q = ts_xreallocarray(p, n, size);
  memset((char *)q + *cap * size, 0, (n - *cap) * size);
  *cap = n;
  return q;
}

struct rs_sinfo *ts_rs_sinfo(struct rs *rs, Id p) {
  rs->si = ts_rs_grow(rs->si, &rs->si_cap, (size_t)p + 1, sizeof *rs->si);
  return &rs->si[p];
}

struct rs_proj *ts_rs_proj_by_name(struct rs *rs, const char *name) {
  Id id = pool_str2id(rs->pool, name, 0);
  if (!id || (size_t)id >= rs->pidx_cap || !rs->pidx[id])
    return NULL;
  return &rs->projs[rs->pidx[id] - 1];
}

/* Text of a requirement as the user wrote it, without marker. */
char *ts_rs_req_text(const char *name, char *const *extras, size_t nextras,
                     const struct ts_specset *spec) {
  size_t cap = 0, len = 0;
  char *s = NULL;
  const char *parts[3];
  for (size_t i = 0; i <= nextras + 1; i++) {
    char tmp[8];
    const char *piece;
    if (i == 0) {
      piece = name;
    } else if (i <= nextras) {
      tmp[0] = i == 1 ? '[' : ',';
      tmp[1] = '\0';
      parts[0] = tmp;
      parts[1] = extras[i - 1];
      parts[2] = i == nextras ? "]" : "";
      for (int k = 0; k < 3; k++) {
        size_t l = strlen(parts[k]);
        s = ts_rs_grow(s, &cap, len + l + 1, 1);
        memcpy(s + len, parts[k], l + 1);
        len += l;
      }
      continue;
    } else {
      piece = spec ? ts_specset_str(spec) : "";
    }
    size_t l = strlen(piece);
    s = ts_rs_grow(s, &cap, len + l + 1, 1);
    memcpy(s + len, piece, l + 1);
    len += l;
  }
  return s;
}

/* ---- solvables ------------------------------------------------------------ */

Id ts_rs_new_solvable(struct rs *rs, Repo *repo, Id name, Id evr,
                       enum rs_kind kind, int proj, int ver, int extra) {
  Id p = repo_add_solvable(repo);
  Solvable *s = pool_id2solvable(rs->pool, p);
  s->name = name;
  s->evr = evr;
  s->arch = ARCH_NOARCH;
  s->provides = repo_addid_dep(repo, s->provides,
                               pool_rel2id(rs->pool, name, evr, REL_EQ, 1), 0);
  struct rs_sinfo *si = ts_rs_sinfo(rs, p);
  si->kind = kind;
  si->proj = proj;
  si->ver = ver;
  si->extra = extra;
  si->first_dep = -1;
  si->deps_done = false;
  return p;
}

/* Records why `dep` is on `p` (for explanations and the closure) and adds
 * it as a requires or conflicts. */
int ts_rs_add_dep(struct rs *rs, Id p, Id dep, bool conflict, char *text,
                  int proj, const struct ts_specset *spec, int constraint,
                  bool rich) {
  Solvable *s = pool_id2solvable(rs->pool, p);
  if (conflict)
    s->conflicts = repo_addid_dep(s->repo, s->conflicts, dep, 0);
  else
    s->requires = repo_addid_dep(s->repo, s->requires, dep, 0);
  ts_rs_note_rank_dep(rs, dep);
  rs->deps = ts_rs_grow(rs->deps, &rs->deps_cap, rs->ndeps + 1,
                        sizeof *rs->deps);
  struct rs_dep *d = &rs->deps[rs->ndeps];
  d->solv = p;
  d->dep = dep;
  d->conflict = conflict;
  d->text = text;
  d->proj = proj;
  d->spec = spec ? ts_specset_dup(spec) : NULL;
  d->constraint = constraint;
  d->rich = rich;
  d->extra = -1;
  struct rs_sinfo *si = ts_rs_sinfo(rs, p);
  d->next = si->first_dep;
  si->first_dep = (int)rs->ndeps;
  return (int)rs->ndeps++;
}

/* The dep whose providers are exactly the solvables of `name` at the ranks
 * where match[] is true.  exists[] tells which ranks have a solvable at all:
 * the others may be bridged, which keeps ranges few. */
Id ts_rs_ranks_dep(struct rs *rs, Id name, const Id *evrs, size_t n,
                   const bool *match, const bool *exists) {
  Pool *pool = rs->pool;
  Id result = 0;
  size_t first_exist = n, last_exist = n;
  bool all = true;
  for (size_t i = 0; i < n; i++) {
    if (!exists[i])
      continue;
    if (first_exist == n)
      first_exist = i;
    last_exist = i;
    if (!match[i])
      all = false;
  }
  if (first_exist == n) {
    result = pool_rel2id(pool, name, rs->none_evr, REL_EQ, 1);
    ts_rs_note_rank_dep(rs, result);
    return result;
  }
  if (all)
    return name;
  size_t i = first_exist;
  while (i <= last_exist) {
    if (!exists[i] || !match[i]) {
      i++;
      continue;
    }
    size_t lo = i, hi = i;
    for (size_t j = i + 1; j <= last_exist; j++) {
      if (!exists[j])
        continue;
      if (!match[j])
        break;
      hi = j;
    }
    Id d;
    if (lo == hi)
      d = pool_rel2id(pool, name, evrs[lo], REL_EQ, 1);
    else if (lo == first_exist)
      d = pool_rel2id(pool, name, evrs[hi], REL_LT | REL_EQ, 1);
    else if (hi == last_exist)
      d = pool_rel2id(pool, name, evrs[lo], REL_GT | REL_EQ, 1);
    else
      d = pool_rel2id(pool,
                      pool_rel2id(pool, name, evrs[lo], REL_GT | REL_EQ, 1),
                      pool_rel2id(pool, name, evrs[hi], REL_LT | REL_EQ, 1),
                      REL_WITH, 1);
    result = result ? pool_rel2id(pool, result, d, REL_OR, 1) : d;
    i = hi + 1;
  }
  if (!result)
    result = pool_rel2id(pool, name, rs->none_evr, REL_EQ, 1);
  ts_rs_note_rank_dep(rs, result);
  return result;
}

void ts_rs_want(struct rs *rs, const char *name) {
  if (ts_rs_proj_by_name(rs, name))
    return;
  for (size_t i = 0; i < rs->nwant; i++)
    if (strcmp(rs->want[i], name) == 0)
      return;
  rs->want = ts_rs_grow(rs->want, &rs->want_cap, rs->nwant + 1,
                        sizeof *rs->want);
  rs->want[rs->nwant++] = ts_xstrdup(name);
}



/* Inserts a job pair at pair position `at` (job_info kept parallel) and
 * returns its info, zeroed but for proj = -1, fact = -1. */
struct rs_job *ts_rs_insert_job(struct rs *rs, int at, Id how, Id what) {
  queue_insert2(&rs->jobs, at * 2, how, what);
  size_t n = (size_t)rs->jobs.count / 2;
  rs->job_info = ts_rs_grow(rs->job_info, &rs->job_info_cap, n,
                            sizeof *rs->job_info);
  memmove(&rs->job_info[at + 1], &rs->job_info[at],
          (n - 1 - (size_t)at) * sizeof *rs->job_info);
  struct rs_job *ji = &rs->job_info[at];
  memset(ji, 0, sizeof *ji);
  ji->proj = -1;
  ji->fact = -1;
  ji->extra = -1;
  return ji;
}

struct rs_job *ts_rs_push_job(struct rs *rs, Id how, Id what) {
  return ts_rs_insert_job(rs, rs->jobs.count / 2, how, what);
}


Solver *ts_rs_solver(struct rs *rs) {
  /* Rebuilding the index drops libsolv's providers of every range dep,
   * which it then works out again: 15% of a warm resolve when done for
   * each solve, also for those after a round that added nothing. */
  if (!rs->pool->whatprovides || rs->whatprovides_nsolvables != rs->pool->nsolvables) {
    pool_createwhatprovides(rs->pool);
    rs->whatprovides_nsolvables = rs->pool->nsolvables;
  }
  ts_rs_give_providers(rs);
  Solver *solv = solver_create(rs->pool);
  /* pip replaces an installed version by an older one when the request
   * needs it */
  solver_set_flag(solv, SOLVER_FLAG_ALLOW_DOWNGRADE, 1);
  solver_set_flag(solv, SOLVER_FLAG_IGNORE_RECOMMENDED, 1);
  return solv;
}

int ts_rs_solve(struct rs *rs, Solver *solv, Queue *jobs) {
  Queue all;
  queue_init_clone(&all, jobs);
  for (size_t i = 0; i < rs->nprojs; i++) {
    const struct rs_proj *pj = &rs->projs[i];
    if (!pj->one_last)
      continue;
    queue_push2(&all, SOLVER_MULTIVERSION | SOLVER_SOLVABLE_NAME, pj->nameid);
    for (size_t e = 0; e < pj->nextras; e++)
      queue_push2(&all, SOLVER_MULTIVERSION | SOLVER_SOLVABLE_NAME,
                  pj->extras[e].nameid);
  }
  int nprob = solver_solve(solv, &all);
  queue_free(&all);
  return nprob;
}

