/*
 * resolver/providers.c — the providers of deps over ranks, handed to
 * libsolv before it works them out itself.
 *
 * Every version dep compares rank EVRs ("0007"): libsolv finds the
 * providers of "name OP evr" by comparing the EVR string of every
 * solvable of the name (pool_addrelproviders, solv_vercmp), a tenth of a
 * warm resolve, again after each rebuild of its index.  The ranks are
 * known here as numbers, so each such relation gets the very list libsolv
 * would make (the providers of the name in index order, those whose
 * "name = rank" provide satisfies OP) without a string compared.  The
 * ORs and WITHs over them stay libsolv's: it merges the lists it finds.
 * A relation this file cannot judge exactly (an EVR that is not a rank, a
 * provide that is not "name = rank") is left to libsolv.
 */
#include "core/alloc.h"
#include "resolver/resolver.h"

#include <string.h>

#include <solv/pool.h>
#include <solv/repo.h>

#include "resolver/internal.h"
#include "resolver/state.h"

/* evr_rank[] holds rank + 2 for a rank EVR (1 for none_evr, which sorts
 * below every rank), 0 for any other id */
#define RANK_NONE (-1)
#define RANK_UNKNOWN (-2)

void ts_rs_note_rank(struct rs *rs, Id evr, int rank) {
  rs->evr_rank = ts_rs_grow(rs->evr_rank, &rs->evr_rank_cap, (size_t)evr + 1,
                            sizeof *rs->evr_rank);
  rs->evr_rank[evr] = rank + 2;
}

static int rank_of(const struct rs *rs, Id evr) {
  if (evr <= 0 || (size_t)evr >= rs->evr_rank_cap)
    return RANK_UNKNOWN;
  return rs->evr_rank[evr] - 2;
}

void ts_rs_note_rank_dep(struct rs *rs, Id dep) {
  if (!ISRELDEP(dep))
    return;
  Id rel = GETRELID(dep);
  rs->rank_dep_seen = ts_rs_grow(rs->rank_dep_seen, &rs->rank_dep_seen_cap,
                                 (size_t)rel + 1, sizeof *rs->rank_dep_seen);
  if (rs->rank_dep_seen[rel])
    return;
  rs->rank_dep_seen[rel] = true;
  queue_push(&rs->rank_deps, dep);
}

/* libsolv's pool_match_flags_evr for a provide "name = have" against
 * "name flags want", on ranks instead of EVR strings. */
static bool rank_matches(int have, int flags, int want) {
  if (have < want)
    return (flags & REL_LT) != 0;
  if (have > want)
    return (flags & REL_GT) != 0;
  return (flags & REL_EQ) != 0;
}

/* Where the providers of `name` (in index order) and their ranks start
 * in rs->name_ranks, worked out once a pass; -1 when a provider has
 * another provide of the name than one "name = rank". */
static int providers_ranked(struct rs *rs, Id name) {
  Pool *pool = rs->pool;
  size_t cap = rs->name_cap;
  rs->name_pass = ts_rs_grow(rs->name_pass, &cap, (size_t)name + 1,
                             sizeof *rs->name_pass);
  rs->name_first = ts_rs_grow(rs->name_first, &rs->name_cap, (size_t)name + 1,
                              sizeof *rs->name_first);
  if (rs->name_pass[name] == rs->pass)
    return rs->name_first[name];
  rs->name_pass[name] = rs->pass;
  Queue *q = &rs->name_ranks;
  int first = q->count;
  rs->name_first[name] = -1;
  for (Id *pp = pool_whatprovides_ptr(pool, name); *pp; pp++) {
    const Solvable *s = pool->solvables + *pp;
    if (!s->provides || s->arch == ARCH_SRC || s->arch == ARCH_NOSRC)
      return -1;
    int rank = RANK_UNKNOWN;
    for (const Id *pid = s->repo->idarraydata + s->provides; *pid; pid++) {
      if (!ISRELDEP(*pid)) {
        if (*pid == name)
          return -1;
        continue;
      }
      const Reldep *prd = GETRELDEP(pool, *pid);
      if (prd->name != name)
        continue;
      int have = rank_of(rs, prd->evr);
      if (prd->flags != REL_EQ || have == RANK_UNKNOWN || have == RANK_NONE ||
          rank != RANK_UNKNOWN)
        return -1;
      rank = have;
    }
    queue_push2(q, *pp, rank);
  }
  queue_push2(q, 0, 0);
  rs->name_first[name] = first;
  return first;
}

/* The providers of the simple relation rd into q, in libsolv's order;
 * false when it is not a relation over ranks of a name whose every
 * provide is "name = rank". */
static bool rank_providers(struct rs *rs, const Reldep *rd, Queue *q) {
  int want = rank_of(rs, rd->evr);
  if (ISRELDEP(rd->name) || want == RANK_UNKNOWN)
    return false;
  int first = providers_ranked(rs, rd->name);
  if (first < 0)
    return false;
  queue_empty(q);
  for (const Id *pr = rs->name_ranks.elements + first; pr[0]; pr += 2)
    if (rank_matches(pr[1], rd->flags, want))
      queue_push(q, pr[0]);
  return true;
}

/* Fills the providers of every simple rank relation under dep that libsolv
 * has not listed yet.  OR chains nest to the left (name side), so the loop
 * follows the name and recursion takes the other side. */
static void give_providers(struct rs *rs, Id dep, Queue *q) {
  Pool *pool = rs->pool;
  while (ISRELDEP(dep)) {
    Id rel = GETRELID(dep);
    if (pool->whatprovides_rel[rel])
      return;
    const Reldep *rd = GETRELDEP(pool, dep);
    switch (rd->flags) {
    case REL_OR:
    case REL_WITH:
    case REL_AND:
    case REL_COND:
    case REL_UNLESS:
    case REL_ELSE:
      give_providers(rs, rd->evr, q);
      dep = rd->name;
      continue;
    default:
      if (rd->flags > 0 && rd->flags < 8 && rank_providers(rs, rd, q))
        pool->whatprovides_rel[rel] = pool_queuetowhatprovides(pool, q);
      return;
    }
  }
}

void ts_rs_give_providers(struct rs *rs) {
  if (!rs->pool->whatprovides_rel)
    return;
  Queue q;
  queue_init(&q);
  rs->pass++;
  queue_empty(&rs->name_ranks);
  for (int i = 0; i < rs->rank_deps.count; i++)
    give_providers(rs, rs->rank_deps.elements[i], &q);
  queue_free(&q);
}
