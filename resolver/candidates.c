/*
 * resolver/candidates.c — versions become solvables: revealed in windows
 * (wider after a failed solve), each linked into its project's
 * one-version chain, with its extras' solvables; and the deps of
 * requirements over rank sets, admitting pre-releases as pip does.
 */
#include "core/alloc.h"
#include "core/str.h"
#include "resolver/resolver.h"

#include <stdlib.h>
#include <string.h>

#include <solv/pool.h>
#include <solv/repo.h>
#include <solv/rules.h>
#include <solv/solver.h>

#include "resolver/internal.h"
#include "resolver/state.h"

/* PEP 440 / pip: a pre-release fits a requirement when --pre is given, when
 * the specifier names a pre-release, or when no final release fits. */
static bool pre_allowed(struct rs *rs, const struct rs_proj *pj,
                        const struct ts_specset *spec) {
  if (rs->req->pre || pj->pre_named ||
      (spec && ts_specset_names_prerelease(spec)))
    return true;
  for (size_t i = 0; i < pj->nvers; i++) {
    const struct rs_ver *v = &pj->vers[i];
    if ((v->usable || (int)i == pj->inst_ver) && !v->pre &&
        (!spec || ts_specset_contains(spec, v->v, TS_PRE_INCLUDE)))
      return false;
  }
  return true;
}

bool ts_rs_version_fits(struct rs *rs, const struct rs_proj *pj, size_t i,
                        const struct ts_specset *spec, bool pre_ok) {
  const struct rs_ver *v = &pj->vers[i];
  if (spec && !ts_specset_contains(spec, v->v, TS_PRE_INCLUDE))
    return false;
  /* an installed pre-release satisfies whatever policy (packaging's
   * installed=True) */
  if (v->pre && !pre_ok && (int)i != pj->inst_ver)
    return false;
  (void)rs;
  return true;
}

static void reveal_matching(struct rs *rs, int pidx, const bool *match);

static struct rs_spec_memo *find_memo(struct rs_proj *pj, int extra,
                                      const char *text, bool names_pre) {
  for (size_t i = 0; i < pj->nmemo; i++) {
    struct rs_spec_memo *m = &pj->memo[i];
    if (m->extra == extra && m->names_pre == names_pre &&
        m->pre_named == pj->pre_named && (m->spec && text ? strcmp(m->spec, text) == 0
                                                          : m->spec == text))
      return m;
  }
  return NULL;
}

/* Dep for "project (or its extra) with version in spec". */
Id ts_rs_spec_dep(struct rs *rs, struct rs_proj *pj, int extra,
                   const struct ts_specset *spec) {
  const char *text = spec ? ts_specset_str(spec) : NULL;
  bool names_pre = spec && ts_specset_names_prerelease(spec);
  struct rs_spec_memo *m = find_memo(pj, extra, text, names_pre);
  if (m && m->window == pj->window)
    return m->dep;
  size_t n = pj->nvers;
  bool *match = ts_xcalloc(n + 1, sizeof *match);
  bool *exists = ts_xcalloc(n + 1, sizeof *exists);
  bool pre_ok = pre_allowed(rs, pj, spec);
  for (size_t i = 0; i < n; i++) {
    exists[i] = pj->vers[i].usable || pj->vers[i].inst_solv;
    match[i] = exists[i] && ts_rs_version_fits(rs, pj, i, spec, pre_ok);
  }
  Id name = extra >= 0 ? pj->extras[extra].nameid : pj->nameid;
  Id d = ts_rs_ranks_dep(rs, name, pj->evrs, n, match, exists);
  reveal_matching(rs, (int)(pj - rs->projs), match);
  free(match);
  free(exists);
  if (!m) {
    pj->memo = ts_rs_grow(pj->memo, &pj->memo_cap, pj->nmemo + 1, sizeof *pj->memo);
    m = &pj->memo[pj->nmemo++];
    m->spec = text ? ts_xstrdup(text) : NULL;
    m->extra = extra;
    m->names_pre = names_pre;
    m->pre_named = pj->pre_named;
  }
  m->window = pj->window;
  m->dep = d;
  return d;
}

/* pip decides pre-releases per project, on the combined specifier: once
 * any requirement on a project names a pre-release, every requirement on
 * it admits the pre-releases in its range.  Edges encoded before the flip
 * are re-encoded in place (requires arrays and jobs). */
void ts_rs_note_prerelease(struct rs *rs, struct rs_proj *pj,
                            const struct ts_specset *spec) {
  if (pj->pre_named || !spec || !ts_specset_names_prerelease(spec))
    return;
  pj->pre_named = true;
  int pidx = (int)(pj - rs->projs);
  for (size_t i = 0; i < rs->ndeps; i++) {
    struct rs_dep *d = &rs->deps[i];
    if (d->proj != pidx || !d->spec || d->conflict || d->constraint >= 0 || d->rich ||
        d->solv == rs->constraints_solv)
      continue;
    Id nd = ts_rs_spec_dep(rs, pj, d->extra, d->spec);
    if (nd == d->dep)
      continue;
    Solvable *s = pool_id2solvable(rs->pool, d->solv);
    for (Id *ids = s->repo->idarraydata + s->requires; *ids; ids++)
      if (*ids == d->dep)
        *ids = nd;
    d->dep = nd;
  }
  for (int j = 0; j + 1 < rs->jobs.count; j += 2) {
    struct rs_job *ji = &rs->job_info[j / 2];
    if (ji->proj != pidx || !ji->spec ||
        (rs->jobs.elements[j] & SOLVER_JOBMASK) != SOLVER_INSTALL)
      continue;
    rs->jobs.elements[j + 1] = ts_rs_spec_dep(rs, pj, ji->extra, ji->spec);
  }
}

/* ---- extras ---------------------------------------------------------------- */

/* name[extra] at one version: that very version, plus the extra's deps. */
static void add_extra_solvable(struct rs *rs, int pidx, int e, size_t i) {
  struct rs_proj *pj = &rs->projs[pidx];
  struct rs_extra *x = &pj->extras[e];
  struct rs_ver *v = &pj->vers[i];
  if (x->solv[i])
    return;
  Id p = ts_rs_new_solvable(rs, rs->repo, x->nameid, pj->evrs[i], RS_EXTRA, pidx,
                      (int)i, e);
  x->solv[i] = p;
  Id base = pool_rel2id(rs->pool, pj->nameid, pj->evrs[i], REL_EQ, 1);
  ts_rs_add_dep(rs, p, base, false, ts_xasprintf("%s==%s", pj->name, v->text),
                pidx, NULL, -1, false);
  if (rs->req->no_deps)
    ts_rs_sinfo(rs, p)->deps_done = true;
}

int ts_rs_get_extra(struct rs *rs, int pidx, const char *extra) {
  struct rs_proj *pj = &rs->projs[pidx];
  for (size_t i = 0; i < pj->nextras; i++)
    if (strcmp(pj->extras[i].name, extra) == 0)
      return (int)i;
  pj->extras = ts_rs_grow(pj->extras, &pj->extras_cap, pj->nextras + 1,
                          sizeof *pj->extras);
  int e = (int)pj->nextras++;
  struct rs_extra *x = &pj->extras[e];
  x->name = ts_xstrdup(extra);
  char *full = ts_xasprintf("%s[%s]", pj->name, extra);
  x->nameid = pool_str2id(rs->pool, full, 1);
  free(full);
  x->solv = ts_xcalloc(pj->nvers + 1, sizeof *x->solv);
  for (size_t i = 0; i < pj->nvers; i++)
    if (pj->vers[i].solv || pj->vers[i].inst_solv)
      add_extra_solvable(rs, pidx, e, i);
  return e;
}

/* Versions become solvables in windows: the VERSION_WINDOW most preferred
 * first, more only when a solve fails (libsolv adds a rule for every pair
 * of versions of one name it reaches, so a project with 1,000 versions
 * costs 500,000 rules).  Deps are built over the ranks of every usable
 * version, hidden or not, so revealing a version never changes them. */
#define VERSION_WINDOW 40

/* The root requirements on project `name` whose markers hold, into
 * out[] (room for every root requirement); their number. */
static size_t roots_on(struct rs *rs, const char *name, const struct ts_requirement **out) {
  size_t n = 0;
  for (size_t i = 0; i < rs->req->nrequirements; i++) {
    const struct ts_requirement *r = rs->req->requirements[i];
    if (strcmp(r->normalized_name, name) != 0)
      continue;
    if (r->marker && !ts_marker_eval(r->marker, rs->target->markers, NULL))
      continue;
    out[n++] = r;
  }
  return n;
}

/* A version no root requirement on its project admits can never be
 * installed: it is not worth a solvable. */
static bool root_admits(const struct ts_requirement *const *roots, size_t nroots,
                        const struct rs_ver *v) {
  for (size_t i = 0; i < nroots; i++)
    if (!ts_specset_contains(roots[i]->specifier, v->v, TS_PRE_INCLUDE))
      return false;
  return true;
}

/* At most one version of a project, in rules linear in its versions.
 * libsolv's own encoding is a rule per pair of versions of a name: a
 * project the solver walks down (oslo-config under pyrax, 119 versions)
 * costs thousands of rules, which every solve creates, sorts and scans
 * again.  Instead each version x gets a link solvable a ("name#one#rank")
 * that it requires, and the links form a chain in reveal order: a link
 * requires the next link and conflicts with the next link's version.  So
 * installing x installs every link after its own, which excludes every
 * later version, and an earlier version's link would lead to the link
 * that excludes x: exactly one version at most, in 3 rules per version
 * (the sequential "ladder" encoding).  The project's names are marked
 * multiversion for libsolv (ts_rs_solve) so that it adds no pair rules
 * of its own; its extras need none: each requires its exact version. */
static void chain_version(struct rs *rs, int pidx, size_t i, Id x) {
  struct rs_proj *pj = &rs->projs[pidx];
  char *name = ts_xasprintf("%s#one#%04zu", pj->name, i);
  Id link_name = pool_str2id(rs->pool, name, 1);
  free(name);
  Id link = ts_rs_new_solvable(rs, rs->repo, link_name, pj->evrs[i], RS_ONE, pidx,
                         (int)i, -1);
  ts_rs_sinfo(rs, link)->deps_done = true;
  Solvable *xs = pool_id2solvable(rs->pool, x);
  xs->requires = repo_addid_dep(rs->repo, xs->requires, link_name, 0);
  if (pj->one_last) {
    Solvable *prev = pool_id2solvable(rs->pool, pj->one_last);
    prev->requires = repo_addid_dep(rs->repo, prev->requires, link_name, 0);
    Id version = pool_rel2id(rs->pool, pj->nameid, pj->evrs[i], REL_EQ, 1);
    prev->conflicts = repo_addid_dep(rs->repo, prev->conflicts, version, 0);
    ts_rs_note_rank_dep(rs, version);
  }
  pj->one_last = link;
}

int ts_rs_one_version_rule(struct rs *rs, Id source, Id target, Id dep) {
  Id ends[2] = {source, target};
  for (int k = 0; k < 2; k++)
    if (ends[k] > 0 && (size_t)ends[k] < rs->si_cap &&
        rs->si[ends[k]].kind == RS_ONE)
      return rs->si[ends[k]].proj;
  if (dep > 0 && !ISRELDEP(dep)) {
    Pool *pool = rs->pool;
    Id p, pp;
    FOR_PROVIDES(p, pp, dep) {
      if ((size_t)p < rs->si_cap && rs->si[p].kind == RS_ONE)
        return rs->si[p].proj;
    }
  }
  return -1;
}

void ts_rs_reveal(struct rs *rs, int pidx, size_t i) {
  struct rs_proj *pj = &rs->projs[pidx];
  struct rs_ver *s = &pj->vers[i];
  s->solv = ts_rs_new_solvable(rs, rs->repo, pj->nameid, pj->evrs[i], RS_CAND, pidx,
                         (int)i, -1);
  if (pj->inst_ver < 0)
    chain_version(rs, pidx, i, s->solv);
  if (rs->req->no_deps)
    ts_rs_sinfo(rs, s->solv)->deps_done = true;
  for (size_t e = 0; e < pj->nextras; e++)
    add_extra_solvable(rs, pidx, (int)e, i);
  ts_rs_apply_rules_to_version(rs, s->solv, s, pj->name);
}

/* Reveals usable versions from the top until `window` are; true when any
 * was revealed. */
static bool reveal_window(struct rs *rs, int pidx) {
  struct rs_proj *pj = &rs->projs[pidx];
  size_t shown = 0;
  bool any = false;
  const struct ts_requirement **roots =
      ts_xcalloc(rs->req->nrequirements + 1, sizeof *roots);
  size_t nroots = rs->reveal_all ? 0 : roots_on(rs, pj->name, roots);
  for (size_t k = pj->nvers; k-- > 0 && shown < pj->window;) {
    struct rs_ver *s = &rs->projs[pidx].vers[k];
    if (!s->usable || !root_admits(roots, nroots, s))
      continue;
    shown++;
    if (!s->solv) {
      ts_rs_reveal(rs, pidx, k);
      any = true;
    }
  }
  free(roots);
  return any;
}

/* The most preferred versions a requirement admits get solvables (up to
 * the project's window), whatever the project's window shows: a dep whose
 * admitted versions all sit below the window would otherwise fail the
 * solve and widen the window of every project. */
static void reveal_matching(struct rs *rs, int pidx, const bool *match) {
  struct rs_proj *pj = &rs->projs[pidx];
  size_t shown = 0;
  for (size_t k = pj->nvers; k-- > 0 && shown < pj->window;) {
    if (!match[k] || !pj->vers[k].usable)
      continue;
    shown++;
    if (!pj->vers[k].solv)
      ts_rs_reveal(rs, pidx, k);
  }
}

void ts_rs_reveal_first(struct rs *rs, int pidx) {
  rs->projs[pidx].window = VERSION_WINDOW;
  reveal_window(rs, pidx);
}

/* Marks the projects a dep names (through OR/AND/WITH/IF). */
static void mark_dep_projects(struct rs *rs, Id dep, char *mark) {
  Pool *pool = rs->pool;
  while (ISRELDEP(dep)) {
    Reldep *rd = GETRELDEP(pool, dep);
    if (rd->flags == REL_OR || rd->flags == REL_AND || rd->flags == REL_WITH ||
        rd->flags == REL_COND) {
      mark_dep_projects(rs, rd->name, mark);
      dep = rd->evr;
      continue;
    }
    dep = rd->name;
  }
  if ((size_t)dep < rs->pidx_cap && rs->pidx[dep])
    mark[rs->pidx[dep] - 1] = 1;
}

static void mark_solvable_project(struct rs *rs, Id p, char *mark) {
  if (p <= 0 || (size_t)p >= rs->si_cap)
    return;
  const struct rs_sinfo *si = &rs->si[p];
  if ((si->kind == RS_CAND || si->kind == RS_INST || si->kind == RS_EXTRA ||
       si->kind == RS_ONE) &&
      si->proj >= 0)
    mark[si->proj] = 1;
}

/* Widens the windows of the projects marked (all when mark is NULL) four
 * times; true when a version was revealed. */
static bool widen(struct rs *rs, const char *mark) {
  bool any = false;
  for (size_t i = 0; i < rs->nprojs; i++) {
    struct rs_proj *pj = &rs->projs[i];
    if ((mark && !mark[i]) || pj->window >= pj->nvers)
      continue;
    pj->window *= 4;
    any |= reveal_window(rs, (int)i);
  }
  return any;
}

/* After a failed solve: more versions of the projects the problems name,
 * else of every project that hides some; the problem is unsatisfiable only
 * once nothing is hidden.  Widening only what the problems name keeps the
 * pool small (libsolv adds a rule per pair of versions of a name). */
bool ts_rs_expand_windows(struct rs *rs, Solver *solv, int nprob) {
  char *mark = ts_xcalloc(rs->nprojs + 1, 1);
  Queue rules;
  queue_init(&rules);
  for (Id pr = 1; pr <= nprob; pr++) {
    solver_findallproblemrules(solv, pr, &rules);
    for (int k = 0; k < rules.count; k++) {
      Id source = 0, target = 0, dep = 0;
      solver_ruleinfo(solv, rules.elements[k], &source, &target, &dep);
      mark_solvable_project(rs, source, mark);
      mark_solvable_project(rs, target, mark);
      if (dep)
        mark_dep_projects(rs, dep, mark);
    }
  }
  queue_free(&rules);
  bool any = widen(rs, mark);
  free(mark);
  if (!any)
    any = widen(rs, NULL);
  if (!any && !rs->reveal_all) {
    /* the last round: versions the roots exclude too, so that the
     * explanation can name the root requirement that excludes them */
    rs->reveal_all = true;
    for (size_t i = 0; i < rs->nprojs; i++) {
      rs->projs[i].window = rs->projs[i].nvers;
      any |= reveal_window(rs, (int)i);
    }
  }
  return any;
}


