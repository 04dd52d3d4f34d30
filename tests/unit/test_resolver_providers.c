/* resolver/providers.c: the providers it hands libsolv for relations over
 * ranks are exactly the list libsolv computes itself (same solvables, same
 * order), for every shape ts_rs_ranks_dep makes, over candidates hidden or
 * revealed in any order, an installed copy, an extra's name, and again
 * after the index is rebuilt; a relation it cannot judge is left to
 * libsolv. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "resolver/state.h"

#define NRANKS 9

struct world {
  struct rs rs;
  Id name, extra;
  Id evrs[NRANKS];
};

static void world_init(struct world *w) {
  memset(w, 0, sizeof *w);
  struct rs *rs = &w->rs;
  rs->pool = pool_create();
  rs->repo = repo_create(rs->pool, "index");
  rs->sys = repo_create(rs->pool, "@System");
  pool_set_installed(rs->pool, rs->sys);
  queue_init(&rs->jobs);
  queue_init(&rs->rank_deps);
  queue_init(&rs->name_ranks);
  rs->none_evr = pool_str2id(rs->pool, "~none", 1);
  ts_rs_note_rank(rs, rs->none_evr, -1);
  w->name = pool_str2id(rs->pool, "alpha", 1);
  w->extra = pool_str2id(rs->pool, "alpha[x]", 1);
  for (int i = 0; i < NRANKS; i++) {
    char evr[8];
    snprintf(evr, sizeof evr, "%04d", i);
    w->evrs[i] = pool_str2id(rs->pool, evr, 1);
    ts_rs_note_rank(rs, w->evrs[i], i);
  }
}

static void world_free(struct world *w) {
  struct rs *rs = &w->rs;
  for (size_t i = 0; i < rs->ndeps; i++)
    free(rs->deps[i].text);
  free(rs->deps);
  free(rs->si);
  free(rs->evr_rank);
  free(rs->rank_dep_seen);
  free(rs->name_pass);
  free(rs->name_first);
  queue_free(&rs->name_ranks);
  queue_free(&rs->rank_deps);
  queue_free(&rs->jobs);
  pool_free(rs->pool);
}

static void add_version(struct world *w, Repo *repo, int rank) {
  ts_rs_new_solvable(&w->rs, repo, w->name, w->evrs[rank], RS_CAND, 0, rank, -1);
  ts_rs_new_solvable(&w->rs, w->rs.repo, w->extra, w->evrs[rank], RS_EXTRA, 0,
                     rank, 0);
}

/* Every relation's list, from the cache as given (libsolv merging the
 * ORs and WITHs over the lists given) against libsolv's own from an
 * emptied cache. */
static void expect_libsolv_lists(struct world *w) {
  Pool *pool = w->rs.pool;
  Queue ours, theirs;
  queue_init(&ours);
  queue_init(&theirs);
  int nrels = pool->nrels;
  Offset *given = calloc((size_t)nrels + 1, sizeof *given);
  memcpy(given, pool->whatprovides_rel, (size_t)nrels * sizeof *given);
  for (Id rel = 1; rel < nrels; rel++) {
    memcpy(pool->whatprovides_rel, given, (size_t)nrels * sizeof *given);
    queue_empty(&ours);
    for (Id *pp = pool_whatprovides_ptr(pool, MAKERELDEP(rel)); *pp; pp++)
      queue_push(&ours, *pp);
    memset(pool->whatprovides_rel, 0, (size_t)nrels * sizeof *given);
    queue_empty(&theirs);
    for (Id *pp = pool_whatprovides_ptr(pool, MAKERELDEP(rel)); *pp; pp++)
      queue_push(&theirs, *pp);
    cr_assert_eq(ours.count, theirs.count, "%s: %d providers given, libsolv finds %d",
                 pool_dep2str(pool, MAKERELDEP(rel)), ours.count, theirs.count);
    for (int k = 0; k < ours.count; k++)
      cr_assert_eq(ours.elements[k], theirs.elements[k], "%s: provider %d differs",
                   pool_dep2str(pool, MAKERELDEP(rel)), k);
  }
  memset(pool->whatprovides_rel, 0, (size_t)nrels * sizeof *given);
  free(given);
  queue_free(&ours);
  queue_free(&theirs);
}

/* A dep per subset of ranks (exists/match patterns), on both names. */
static size_t note_all_patterns(struct world *w, unsigned exists_mask) {
  bool exists[NRANKS], match[NRANKS];
  size_t n = 0;
  for (unsigned m = 0; m < (1u << NRANKS); m += 7) {
    for (int i = 0; i < NRANKS; i++) {
      exists[i] = (exists_mask >> i) & 1;
      match[i] = exists[i] && ((m >> i) & 1);
    }
    ts_rs_ranks_dep(&w->rs, w->name, w->evrs, NRANKS, match, exists);
    ts_rs_ranks_dep(&w->rs, w->extra, w->evrs, NRANKS, match, exists);
    n += 2;
  }
  return n;
}

/* How many simple relations have a list in the cache. */
static int listed_simple(Pool *pool) {
  int n = 0;
  for (Id rel = 1; rel < pool->nrels; rel++)
    if (pool->whatprovides_rel[rel] && pool->rels[rel].flags < 8)
      n++;
  return n;
}

Test(resolver_providers, same_lists_as_libsolv_for_every_rank_pattern) {
  struct world w;
  world_init(&w);
  /* revealed out of rank order, as windows do (preferred first) */
  int revealed[] = {7, 8, 3, 5, 0};
  for (size_t i = 0; i < sizeof revealed / sizeof *revealed; i++)
    add_version(&w, w.rs.repo, revealed[i]);
  ts_rs_new_solvable(&w.rs, w.rs.sys, w.name, w.evrs[5], RS_INST, 0, 5, -1);
  unsigned exists = 0x1ff & ~(1u << 2) & ~(1u << 6);
  note_all_patterns(&w, exists);
  Solver *solv = ts_rs_solver(&w.rs);
  cr_expect_gt(listed_simple(w.rs.pool), 0, "no relation got its providers from us");
  expect_libsolv_lists(&w);
  solver_free(solv);

  /* a wider window: the index is rebuilt and every list given again */
  add_version(&w, w.rs.repo, 1);
  add_version(&w, w.rs.repo, 4);
  note_all_patterns(&w, exists);
  solv = ts_rs_solver(&w.rs);
  cr_expect_gt(listed_simple(w.rs.pool), 0);
  expect_libsolv_lists(&w);
  solver_free(solv);
  world_free(&w);
}

Test(resolver_providers, leaves_a_name_with_a_foreign_provide_to_libsolv) {
  struct world w;
  world_init(&w);
  add_version(&w, w.rs.repo, 3);
  add_version(&w, w.rs.repo, 6);
  /* something providing alpha at a version that is not a rank */
  Id p = repo_add_solvable(w.rs.repo);
  Solvable *s = pool_id2solvable(w.rs.pool, p);
  s->name = pool_str2id(w.rs.pool, "other", 1);
  s->evr = pool_str2id(w.rs.pool, "1.0", 1);
  s->arch = ARCH_NOARCH;
  s->provides = repo_addid_dep(
      w.rs.repo, s->provides,
      pool_rel2id(w.rs.pool, w.name, pool_str2id(w.rs.pool, "0004.5", 1), REL_EQ, 1), 0);
  Id dep = pool_rel2id(w.rs.pool, w.name, w.evrs[4], REL_GT | REL_EQ, 1);
  ts_rs_note_rank_dep(&w.rs, dep);
  Id on_extra = pool_rel2id(w.rs.pool, w.extra, w.evrs[4], REL_GT | REL_EQ, 1);
  ts_rs_note_rank_dep(&w.rs, on_extra);
  Solver *solv = ts_rs_solver(&w.rs);
  cr_expect_eq(w.rs.pool->whatprovides_rel[GETRELID(dep)], 0,
               "a relation over a non-rank provide was judged");
  cr_expect_neq(w.rs.pool->whatprovides_rel[GETRELID(on_extra)], 0);
  expect_libsolv_lists(&w);
  Queue q;
  queue_init(&q);
  for (Id *pp = pool_whatprovides_ptr(w.rs.pool, dep); *pp; pp++)
    queue_push(&q, *pp);
  cr_expect_eq(q.count, 2, "alpha 0006 and the foreign 0004.5 provide");
  queue_free(&q);
  solver_free(solv);
  world_free(&w);
}
