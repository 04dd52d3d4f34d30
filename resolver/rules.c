/*
 * resolver/rules.c — host facts, rules.yaml constraints and -c
 * constraints as solvables and deps, applied to the projects they name
 * as those arrive.
 */
#include "core/alloc.h"
#include "core/str.h"
#include "resolver/resolver.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <solv/pool.h>
#include <solv/repo.h>
#include <solv/solver.h>

#include "resolver/internal.h"
#include "resolver/state.h"

static bool is_fact(const char *name) { return name[0] == '_' && name[1] == '_'; }

static bool term_mentions_host(const struct ts_term *t) {
  return is_fact(t->name) && strcmp(t->name, "__python") != 0;
}

static bool constraint_uses_host(const struct ts_constraint *c) {
  if (term_mentions_host(&c->subject))
    return true;
  for (size_t i = 0; i < c->nterms; i++)
    if (term_mentions_host(&c->terms[i]))
      return true;
  for (size_t i = 0; i < c->nwhen; i++)
    if (term_mentions_host(&c->when[i]))
      return true;
  return false;
}

struct rs_fact *ts_rs_fact(struct rs *rs, const char *name) {
  for (size_t i = 0; i < rs->nfacts; i++)
    if (strcmp(rs->facts[i].name, name) == 0)
      return &rs->facts[i];
  return NULL;
}

void ts_rs_add_fact(struct rs *rs, const char *name, const char *version,
                     const char *source) {
  if (ts_rs_fact(rs, name))
    return;
  rs->facts = ts_rs_grow(rs->facts, &rs->facts_cap, rs->nfacts + 1,
                         sizeof *rs->facts);
  struct rs_fact *f = &rs->facts[rs->nfacts++];
  f->name = ts_xstrdup(name);
  f->version = version ? ts_xstrdup(version) : NULL;
  f->source = source ? ts_xstrdup(source) : NULL;
  f->v = NULL;
  if (version &&
      ts_version_parse(version, strlen(version), &f->v, NULL) != TS_OK)
    f->v = NULL;
  Id name_id = pool_str2id(rs->pool, name, 1);
  f->solv = ts_rs_new_solvable(rs, rs->host, name_id, pool_str2id(rs->pool, "0", 1),
                         RS_FACT, -1, (int)(rs->nfacts - 1), -1);
  ts_rs_sinfo(rs, f->solv)->deps_done = true;
  queue_push2(&rs->jobs, SOLVER_INSTALL | SOLVER_SOLVABLE, f->solv);
  rs->job_info = ts_rs_grow(rs->job_info, &rs->job_info_cap,
                            (size_t)rs->jobs.count / 2, sizeof *rs->job_info);
  rs->job_info[rs->jobs.count / 2 - 1].fact = (int)(rs->nfacts - 1);
  rs->job_info[rs->jobs.count / 2 - 1].text = NULL;
  rs->job_info[rs->jobs.count / 2 - 1].proj = -1;
}

/* The label is checked before the specifier because it rules out most of
 * the gates a version meets at that cost. */
static bool term_matches_version(const struct ts_term *t,
                                 const struct ts_version *v) {
  if (t->local_pattern && v) {
    const char *local = ts_version_local(v);
    const char *pat = t->local_pattern;
    if (!pat[0] ? local != NULL : !local || !ts_local_label_matches(pat, local))
      return false;
  }
  return !t->spec || (v && ts_specset_contains(t->spec, v, TS_PRE_INCLUDE));
}

static bool fact_term_holds(struct rs *rs, const struct ts_term *t) {
  struct rs_fact *f = ts_rs_fact(rs, t->name);
  return f && term_matches_version(t, f->v);
}

bool ts_rs_kernel_gate(const struct ts_constraint *con) {
  return strncmp(con->id, "cuda-arch-", 10) == 0 || strncmp(con->id, "rocm-gfx-", 9) == 0 ||
         strncmp(con->id, "pypi-arch-", 10) == 0;
}

bool ts_rs_lacks_kernels(struct rs *rs, const char *name, const struct rs_ver *v) {
  const struct ts_constraint_set *set = rs->req->rules;
  for (size_t c = 0; set && c < set->nconstraints; c++) {
    const struct ts_constraint *con = &set->constraints[c];
    if (!ts_rs_kernel_gate(con) || con->nwhen || strcmp(con->subject.name, name) != 0 ||
        (rs->req->ignore_host && constraint_uses_host(con)) ||
        !term_matches_version(&con->subject, v->twin ? v->twin : v->v))
      continue;
    bool holds = false;
    for (size_t t = 0; t < con->nterms; t++)
      holds |= fact_term_holds(rs, &con->terms[t]);
    /* requires: one of the GPUs it has kernels for; conflicts: a GPU it
     * has none for */
    if (con->kind == TS_CONSTRAINT_CONFLICTS ? holds : !holds)
      return true;
  }
  return false;
}

/* Dep for a rules term: a host fact or a (loaded) project. */
static Id term_dep(struct rs *rs, const struct ts_term *t) {
  Pool *pool = rs->pool;
  Id name = pool_str2id(pool, t->name, 1);
  if (is_fact(t->name)) {
    if (fact_term_holds(rs, t))
      return name;
    return pool_rel2id(pool, name, rs->none_evr, REL_EQ, 1);
  }
  struct rs_proj *pj = ts_rs_proj_by_name(rs, t->name);
  size_t n = pj->nvers;
  bool *match = ts_xcalloc(n + 1, sizeof *match);
  bool *exists = ts_xcalloc(n + 1, sizeof *exists);
  for (size_t i = 0; i < n; i++) {
    exists[i] = pj->vers[i].usable || pj->vers[i].inst_solv;
    match[i] = exists[i] && term_matches_version(t, pj->vers[i].v);
  }
  Id d = ts_rs_ranks_dep(rs, pj->nameid, pj->evrs, n, match, exists);
  free(match);
  free(exists);
  return d;
}

/* Solvables a constraint's subject covers. */
static size_t subject_solvables(struct rs *rs, const struct ts_term *t,
                                Queue *q) {
  queue_empty(q);
  if (is_fact(t->name)) {
    struct rs_fact *f = ts_rs_fact(rs, t->name);
    if (f && term_matches_version(t, f->v))
      queue_push(q, f->solv);
    return (size_t)q->count;
  }
  struct rs_proj *pj = ts_rs_proj_by_name(rs, t->name);
  for (size_t i = 0; pj && i < pj->nvers; i++) {
    /* a version without a solvable yet gets the rule when revealed */
    if ((!pj->vers[i].solv && !pj->vers[i].inst_solv) ||
        !term_matches_version(t, pj->vers[i].twin ? pj->vers[i].twin : pj->vers[i].v))
      continue;
    if (pj->vers[i].solv)
      queue_push(q, pj->vers[i].solv);
    if (pj->vers[i].inst_solv)
      queue_push(q, pj->vers[i].inst_solv);
  }
  return (size_t)q->count;
}


static bool term_ready(struct rs *rs, const struct ts_term *t, bool request) {
  if (is_fact(t->name))
    return true;
  if (ts_rs_proj_by_name(rs, t->name))
    return true;
  if (request)
    ts_rs_want(rs, t->name);
  return false;
}

static bool names_project(const struct ts_constraint *con) {
  for (size_t t = 0; t < con->nterms; t++)
    if (!is_fact(con->terms[t].name))
      return true;
  return false;
}

/* A requires-rule under --no-deps: it may limit the versions of projects
 * that are installed anyway, never add one (install --no-deps
 * pymomentum-gpu installs pymomentum-gpu alone).  The subject conflicts
 * with the versions of each named project that no term admits; a host
 * fact term that holds satisfies the rule outright. */
static void apply_requires_as_limit(struct rs *rs, size_t c, Queue *subj) {
  const struct ts_constraint *con = &rs->req->rules->constraints[c];
  rs->rule_done[c] = true;
  for (size_t w = 0; w < con->nwhen; w++)
    if (!fact_term_holds(rs, &con->when[w]))
      return;
  for (size_t t = 0; t < con->nterms; t++)
    if (is_fact(con->terms[t].name) && fact_term_holds(rs, &con->terms[t]))
      return;
  Id dep = 0;
  for (size_t t = 0; t < con->nterms; t++) {
    const struct ts_term *tt = &con->terms[t];
    struct rs_proj *pj = is_fact(tt->name) ? NULL : ts_rs_proj_by_name(rs, tt->name);
    bool seen = false;
    for (size_t u = 0; u < t && pj; u++)
      seen |= strcmp(con->terms[u].name, tt->name) == 0;
    if (!pj || seen)
      continue;
    size_t n = pj->nvers;
    bool *match = ts_xcalloc(n + 1, sizeof *match);
    bool *exists = ts_xcalloc(n + 1, sizeof *exists);
    bool any = false;
    for (size_t i = 0; i < n; i++) {
      exists[i] = pj->vers[i].usable || pj->vers[i].inst_solv;
      bool admitted = false;
      for (size_t u = t; u < con->nterms; u++)
        if (strcmp(con->terms[u].name, tt->name) == 0)
          admitted |= term_matches_version(&con->terms[u], pj->vers[i].v);
      match[i] = exists[i] && !admitted;
      any |= match[i];
    }
    if (any) {
      Id d = ts_rs_ranks_dep(rs, pj->nameid, pj->evrs, n, match, exists);
      dep = dep ? pool_rel2id(rs->pool, dep, d, REL_OR, 1) : d;
    }
    free(match);
    free(exists);
  }
  if (!dep)
    return;
  rs->rule_dep[c] = dep;
  rs->rule_limit[c] = true;
  subject_solvables(rs, &con->subject, subj);
  for (int k = 0; k < subj->count; k++)
    ts_rs_add_dep(rs, subj->elements[k], dep, true, ts_xstrdup(con->id), -1,
                  NULL, (int)c, false);
}

/* Applies whatever rules can be applied now; asks for the pages a
 * requires-rule needs.  Conflict terms on projects nobody asked for are
 * applied only once such a project shows up. */
void ts_rs_apply_rules(struct rs *rs) {
  const struct ts_constraint_set *set = rs->req->rules;
  if (!set)
    return;
  Queue subj;
  queue_init(&subj);
  for (size_t c = 0; c < set->nconstraints; c++) {
    const struct ts_constraint *con = &set->constraints[c];
    if (rs->req->ignore_host && constraint_uses_host(con))
      continue;
    if (!term_ready(rs, &con->subject, false))
      continue;
    if (con->kind == TS_CONSTRAINT_REQUIRES && rs->req->no_deps &&
        names_project(con)) {
      if (!rs->rule_done[c])
        apply_requires_as_limit(rs, c, &subj);
      continue;
    }
    if (con->kind == TS_CONSTRAINT_REQUIRES) {
      if (rs->rule_done[c])
        continue;
      bool ready = true;
      for (size_t t = 0; t < con->nterms; t++)
        ready &= term_ready(rs, &con->terms[t], true);
      if (!ready)
        continue;
      rs->rule_done[c] = true;
      Id dep = 0;
      for (size_t t = 0; t < con->nterms; t++) {
        Id d = term_dep(rs, &con->terms[t]);
        dep = dep ? pool_rel2id(rs->pool, dep, d, REL_OR, 1) : d;
      }
      if (!dep)
        continue;
      bool rich = false;
      if (con->nwhen) {
        Id cond = 0;
        for (size_t w = 0; w < con->nwhen; w++) {
          Id d = term_dep(rs, &con->when[w]);
          cond = cond ? pool_rel2id(rs->pool, cond, d, REL_AND, 1) : d;
        }
        dep = pool_rel2id(rs->pool, dep, cond, REL_COND, 1);
        rich = true;
      }
      rs->rule_dep[c] = dep;
      rs->rule_rich[c] = rich;
      subject_solvables(rs, &con->subject, &subj);
      for (int k = 0; k < subj.count; k++)
        ts_rs_add_dep(rs, subj.elements[k], dep, false,
                      ts_xstrdup(con->id), -1, NULL, (int)c, rich);
    } else {
      bool when = true;
      for (size_t w = 0; w < con->nwhen; w++)
        when &= fact_term_holds(rs, &con->when[w]);
      if (!when)
        continue;
      for (size_t t = 0; t < con->nterms; t++) {
        bool *done = &rs->rule_term_done[c][t];
        if (*done || !term_ready(rs, &con->terms[t], false))
          continue;
        *done = true;
        Id dep = term_dep(rs, &con->terms[t]);
        rs->rule_term_dep[c][t] = dep;
        if (!subject_solvables(rs, &con->subject, &subj))
          continue;
        for (int k = 0; k < subj.count; k++)
          ts_rs_add_dep(rs, subj.elements[k], dep, true,
                        ts_xstrdup(con->id), -1, NULL, (int)c, false);
      }
    }
  }
  queue_free(&subj);
}

static int cmp_by_subject(const void *a, const void *b, void *set_) {
  const struct ts_constraint_set *set = set_;
  size_t x = *(const size_t *)a, y = *(const size_t *)b;
  int c = strcmp(set->constraints[x].subject.name, set->constraints[y].subject.name);
  return c ? c : (x > y) - (x < y);
}

void ts_rs_index_rules(struct rs *rs) {
  const struct ts_constraint_set *set = rs->req->rules;
  rs->rule_by_subject = ts_xcalloc(set->nconstraints + 1, sizeof *rs->rule_by_subject);
  for (size_t c = 0; c < set->nconstraints; c++)
    rs->rule_by_subject[c] = c;
  qsort_r(rs->rule_by_subject, set->nconstraints, sizeof *rs->rule_by_subject,
          cmp_by_subject, (void *)set);
}

const size_t *ts_rs_rules_about(const struct rs *rs, const char *name, size_t *n) {
  const struct ts_constraint_set *set = rs->req->rules;
  size_t lo = 0, hi = set->nconstraints;
  while (lo < hi) {
    size_t mid = lo + (hi - lo) / 2;
    if (strcmp(set->constraints[rs->rule_by_subject[mid]].subject.name, name) < 0)
      lo = mid + 1;
    else
      hi = mid;
  }
  size_t end = lo;
  while (end < set->nconstraints &&
         strcmp(set->constraints[rs->rule_by_subject[end]].subject.name, name) == 0)
    end++;
  *n = end - lo;
  return rs->rule_by_subject + lo;
}

/* Whether constraint c has a dep to give a version revealed now. */
static bool rule_applied(const struct rs *rs, size_t c) {
  const struct ts_constraint *con = &rs->req->rules->constraints[c];
  if (con->kind == TS_CONSTRAINT_REQUIRES)
    return rs->rule_done[c] && rs->rule_dep[c];
  for (size_t t = 0; t < con->nterms; t++)
    if (rs->rule_term_done[c][t] && rs->rule_term_dep[c][t])
      return true;
  return false;
}

/* The rules already applied to a project, for a version revealed later:
 * only the constraints about that project (rule_by_subject, in set order),
 * and of those only the ones applied, are matched against the version. */
void ts_rs_apply_rules_to_version(struct rs *rs, Id p, const struct rs_ver *v,
                                   const char *name) {
  const struct ts_constraint_set *set = rs->req->rules;
  if (!set)
    return;
  size_t n;
  const size_t *about = ts_rs_rules_about(rs, name, &n);
  for (size_t k = 0; k < n; k++) {
    size_t c = about[k];
    const struct ts_constraint *con = &set->constraints[c];
    if (!rule_applied(rs, c) ||
        !term_matches_version(&con->subject, v->twin ? v->twin : v->v))
      continue;
    if (con->kind == TS_CONSTRAINT_REQUIRES) {
      ts_rs_add_dep(rs, p, rs->rule_dep[c], rs->rule_limit[c],
                    ts_xstrdup(con->id), -1, NULL, (int)c,
                    rs->rule_rich[c]);
      continue;
    }
    for (size_t t = 0; t < con->nterms; t++)
      if (rs->rule_term_done[c][t] && rs->rule_term_dep[c][t])
        ts_rs_add_dep(rs, p, rs->rule_term_dep[c][t], true,
                      ts_xstrdup(con->id), -1, NULL, (int)c, false);
  }
}

/* -c constraints: a locked pseudo-solvable conflicts with the versions a
 * constraint excludes, so libsolv can name the constraint in a problem. */
void ts_rs_apply_user_constraints(struct rs *rs, int pidx) {
  struct rs_proj *pj = &rs->projs[pidx];
  for (size_t i = 0; i < rs->req->nconstraints; i++) {
    const struct ts_requirement *r = rs->constraints[i];
    if (strcmp(r->normalized_name, pj->name) != 0)
      continue;
    if (r->marker && !ts_marker_eval(r->marker, rs->target->markers, NULL))
      continue;
    size_t n = pj->nvers;
    bool *match = ts_xcalloc(n + 1, sizeof *match);
    bool *exists = ts_xcalloc(n + 1, sizeof *exists);
    bool any = false;
    for (size_t k = 0; k < n; k++) {
      exists[k] = pj->vers[k].usable;
      match[k] = exists[k] &&
                 !ts_specset_contains(r->specifier, pj->vers[k].v,
                                      TS_PRE_INCLUDE);
      any |= match[k];
    }
    if (any) {
      Id dep = ts_rs_ranks_dep(rs, pj->nameid, pj->evrs, n, match, exists);
      ts_rs_add_dep(rs, rs->constraints_solv, dep, true,
                    ts_rs_req_text(r->normalized_name, NULL, 0, r->specifier),
                    pidx, r->specifier, -1, false);
    }
    free(match);
    free(exists);
  }
}


