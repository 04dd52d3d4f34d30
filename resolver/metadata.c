/*
 * resolver/metadata.c — lazy METADATA: fetched in batches for the
 * pending solvables the answer reaches (plus prefetch), then their
 * Requires-Dist encoded as deps.
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

/* The markers Requires-Dist of solvable p is read with: a PEP 825
 * variant wheel's (its label and properties, from the provider), else
 * the target's. */
static const struct ts_marker_env *env_of(struct rs *rs, Id p) {
  struct rs_sinfo *si = ts_rs_sinfo(rs, p);
  const struct rs_proj *pj = &rs->projs[si->proj];
  const struct ts_index_file *f = si->kind == RS_INST ? NULL : pj->vers[si->ver].file;
  const struct ts_marker_env *e = f && rs->provider->variant_env
                                      ? rs->provider->variant_env(rs->provider->ctx, pj->name, f)
                                      : NULL;
  return e ? e : rs->target->markers;
}

static void want_meta_names(struct rs *rs, Id p, const struct ts_rs_meta *m,
                            const char *extra) {
  const struct ts_marker_env *env = env_of(rs, p);
  for (size_t i = 0; i < m->nrequires_dist; i++)
    if (ts_rs_req_applies(env, m->requires_dist[i], extra))
      ts_rs_want(rs, m->requires_dist[i]->normalized_name);
}

static void encode_req(struct rs *rs, Id p, const struct ts_requirement *r) {
  struct rs_proj *dpj = ts_rs_proj_by_name(rs, r->normalized_name);
  int didx = (int)(dpj - rs->projs);
  ts_rs_note_prerelease(rs, dpj, r->specifier);
  if (r->nextras == 0) {
    Id dep = ts_rs_spec_dep(rs, dpj, -1, r->specifier);
    ts_rs_add_dep(rs, p, dep, false,
                  ts_rs_req_text(r->normalized_name, NULL, 0, r->specifier),
                  didx, r->specifier, -1, false);
    return;
  }
  for (size_t e = 0; e < r->nextras; e++) {
    int x = ts_rs_get_extra(rs, didx, r->extras[e]);
    dpj = &rs->projs[didx];
    Id dep = ts_rs_spec_dep(rs, dpj, x, r->specifier);
    int rec = ts_rs_add_dep(rs, p, dep, false,
                            ts_rs_req_text(r->normalized_name, &r->extras[e],
                                           1, r->specifier),
                            didx, r->specifier, -1, false);
    rs->deps[rec].extra = x;
  }
}

/* Adds the deps of solvable p from metadata m (base or one extra). */
static void encode_meta(struct rs *rs, Id p, const struct ts_rs_meta *m,
                        const char *extra) {
  const struct ts_marker_env *env = env_of(rs, p);
  for (size_t i = 0; i < m->nrequires_dist; i++)
    if (ts_rs_req_applies(env, m->requires_dist[i], extra))
      encode_req(rs, p, m->requires_dist[i]);
  if (!extra && m->requires_python && !ts_rs_python_ok(rs, m->requires_python)) {
    Id name = pool_str2id(rs->pool, "__python", 1);
    struct ts_specset *sp = NULL;
    if (ts_specset_parse(m->requires_python, strlen(m->requires_python), &sp,
                         NULL) != TS_OK)
      sp = NULL;
    ts_rs_add_dep(rs, p, pool_rel2id(rs->pool, name, rs->none_evr, REL_EQ, 1),
                  false, ts_xasprintf("Python%s", m->requires_python), -1, sp,
                  -1, false);
    ts_specset_free(sp);
  }
  ts_rs_sinfo(rs, p)->deps_done = true;
}

static const struct ts_rs_meta *meta_of(struct rs *rs, Id p) {
  struct rs_sinfo *si = ts_rs_sinfo(rs, p);
  struct rs_proj *pj = &rs->projs[si->proj];
  if (si->kind == RS_INST)
    return pj->inst_meta_ok ? &pj->inst_meta : NULL;
  struct rs_ver *v = &pj->vers[si->ver];
  if (v->meta_ok)
    return &v->meta;
  /* an extra of the installed-only version reads the installed METADATA */
  if (!v->solv && v->inst_solv && pj->inst_meta_ok)
    return &pj->inst_meta;
  return NULL;
}


/* A version whose METADATA was fetched but does not read (a Requires-Dist
 * of "invalid-version ==2010i"): pip ignores it with a warning and the
 * resolution goes on.  Its solvable gets a requirement nothing provides. */
static void ignore_version(struct rs *rs, struct rs_ver *v, const char *name,
                           const struct ts_error *why) {
  rs->ignored = ts_xrealloc(rs->ignored, (rs->nignored + 1) * sizeof *rs->ignored);
  rs->ignored[rs->nignored++] = ts_xasprintf(
      "Ignoring version %s of %s since it has invalid metadata: %s", v->text, name,
      why->detail);
  Id dep = pool_rel2id(rs->pool, pool_str2id(rs->pool, "__valid_metadata", 1),
                       rs->none_evr, REL_EQ, 1);
  ts_rs_add_dep(rs, v->solv, dep, false,
                ts_xasprintf("readable METADATA (%s %s's does not read)", name, v->text),
                -1, NULL, -1, false);
  ts_rs_sinfo(rs, v->solv)->deps_done = true;
}

/* One round's METADATA requests, and the version each is for. */
struct batch {
  struct ts_resolver_meta *reqs;
  int *owner_p, *owner_v; /* project index and rank per request */
  size_t n, cap, ocap, ocap2;
};

static void batch_add(struct batch *b, const struct rs_proj *pj, int pidx,
                      int i, bool prefetch) {
  const struct rs_ver *v = &pj->vers[i];
  b->reqs = ts_rs_grow(b->reqs, &b->cap, b->n + 1, sizeof *b->reqs);
  b->owner_p = ts_rs_grow(b->owner_p, &b->ocap, b->n + 1, sizeof *b->owner_p);
  b->owner_v = ts_rs_grow(b->owner_v, &b->ocap2, b->n + 1, sizeof *b->owner_v);
  struct ts_resolver_meta *m = &b->reqs[b->n];
  m->name = pj->name;
  m->version = v->text;
  m->file = v->file;
  m->index_url = v->index_url;
  m->prefetch = prefetch;
  m->data = NULL;
  m->len = 0;
  m->code = TS_OK;
  b->owner_p[b->n] = pidx;
  b->owner_v[b->n] = i;
  b->n++;
}

static void batch_free(struct batch *b) {
  free(b->reqs);
  free(b->owner_p);
  free(b->owner_v);
}

/* The METADATA to ask for: the versions behind pending solvables, plus
 * the next few versions of each project the solver has moved away from
 * (which it will likely want after a conflict). */
static void plan_requests(struct rs *rs, const Queue *pending, struct batch *b) {
  for (int k = 0; k < pending->count; k++) {
    struct rs_sinfo *si = ts_rs_sinfo(rs, pending->elements[k]);
    struct rs_proj *pj = &rs->projs[si->proj];
    if (si->kind == RS_INST || (!pj->vers[si->ver].solv))
      continue;
    /* prefetch only once the solver has moved away from a version of this
     * project: the first choice usually stands, and a cold run should ask
     * for one METADATA per chosen version.  Each further round that finds
     * the project moving again prefetches `prefetch` more versions than
     * the last (16, 32, 48...), so a project the solver walks down
     * (oslo-utils under pyrax: 73 versions) costs a few rounds, not one
     * per version.  Not a doubling: the last prefetch of a walk is mostly
     * guessed past the version that stands, and doubling made it as long
     * as the whole walk (pyrax: 515 METADATA files, now 483, the same 14
     * solves; the solves are cheaper too, with fewer versions encoded). */
    if (pj->move_round != rs->round) {
      bool moved = pj->moves > 0;
      for (size_t i = 0; i < pj->nvers && !moved; i++)
        if ((int)i != si->ver && pj->vers[i].meta_requested)
          moved = true;
      if (moved && pj->moves < 16) {
        pj->moves++;
        pj->move_round = rs->round;
      }
    }
    size_t prefetch = rs->req->prefetch * pj->moves;
    size_t added = 0;
    for (int i = si->ver; i >= 0 && added <= prefetch; i--) {
      struct rs_ver *v = &pj->vers[i];
      if (!v->solv)
        continue;
      added++;
      if (v->meta_requested)
        continue;
      v->meta_requested = true;
      batch_add(b, pj, si->proj, i, i != si->ver);
    }
  }
}

/* Asks the provider for the batch and parses what came back; a version
 * whose METADATA does not read is ignored, a failed prefetch is asked
 * again if it is ever chosen. */
static enum ts_code fetch_batch(struct rs *rs, struct batch *b,
                                struct ts_error *err) {
  if (!b->n)
    return TS_OK;
  struct ts_resolver_meta *reqs = b->reqs;
  /* The provider leaves the detail of the first failed non-prefetch
   * request in err (which URL, which hash): keep it for the message
   * instead of a bare "no metadata", and keep it away from prefetch
   * failures, which are not errors. */
  struct ts_error perr = {0};
  enum ts_code c = rs->provider->get_metadata(rs->provider->ctx, reqs, b->n, &perr);
  if (c != TS_OK && err)
    *err = perr;
  for (size_t i = 0; c == TS_OK && i < b->n; i++) {
    struct rs_ver *v = &rs->projs[b->owner_p[i]].vers[b->owner_v[i]];
    enum ts_code mc = reqs[i].code;
    if (mc == TS_OK)
      mc = ts_rs_meta_parse(reqs[i].data, reqs[i].len, &v->meta, err);
    else if (!reqs[i].prefetch && perr.code != TS_OK && err)
      *err = perr;
    else
      ts_error_set(err, mc, "the provider could not fetch its METADATA");
    if (mc == TS_OK) {
      v->meta_ok = true;
      rs->metadata_fetched++;
    } else if (reqs[i].code == TS_OK && mc == TS_E_PARSE) {
      ignore_version(rs, v, reqs[i].name, err);
    } else if (!reqs[i].prefetch) {
      c = mc;
      ts_error_wrap(err, "metadata of %s %s", reqs[i].name, reqs[i].version);
    } else {
      v->meta_requested = false; /* try again if it is ever chosen */
    }
  }
  return c;
}

/* Installed distributions read their METADATA from the request. */
static enum ts_code read_installed(struct rs *rs, const Queue *pending,
                                   struct ts_error *err) {
  for (int k = 0; k < pending->count; k++) {
    struct rs_sinfo *si = ts_rs_sinfo(rs, pending->elements[k]);
    struct rs_proj *pj = &rs->projs[si->proj];
    if ((si->kind == RS_INST || !pj->vers[si->ver].solv) && !pj->inst_meta_ok &&
        pj->inst && pj->inst->metadata) {
      enum ts_code c = ts_rs_meta_parse(pj->inst->metadata, pj->inst->metadata_len,
                                        &pj->inst_meta, err);
      if (c != TS_OK)
        return ts_error_wrap(err, "installed %s", pj->name);
      pj->inst_meta_ok = true;
    }
  }
  return TS_OK;
}

/* The extra of solvable p's metadata it reads (NULL for the base). */
static const char *extra_of(struct rs *rs, Id p) {
  struct rs_sinfo *si = ts_rs_sinfo(rs, p);
  return si->kind == RS_EXTRA ? rs->projs[si->proj].extras[si->extra].name : NULL;
}

/* The deps of the pending solvables and of every one whose METADATA the
 * batch brought: the pages they name first (batched), then the deps. */
static enum ts_code encode_batch(struct rs *rs, const Queue *pending,
                                 const struct batch *b, struct ts_error *err) {
  /* Prefetched versions too: the solver can then backtrack through them
   * within one solve instead of one round per version. */
  Queue todo;
  queue_init_clone(&todo, pending);
  for (size_t i = 0; i < b->n; i++) {
    struct rs_proj *pj = &rs->projs[b->owner_p[i]];
    struct rs_ver *v = &pj->vers[b->owner_v[i]];
    if (!v->meta_ok || !v->solv)
      continue;
    if (!ts_rs_sinfo(rs, v->solv)->deps_done)
      queue_pushunique(&todo, v->solv);
    for (size_t e = 0; e < pj->nextras; e++) {
      Id xs = pj->extras[e].solv[b->owner_v[i]];
      if (xs && !ts_rs_sinfo(rs, xs)->deps_done)
        queue_pushunique(&todo, xs);
    }
  }
  for (int k = 0; k < todo.count; k++) {
    Id p = todo.elements[k];
    const struct ts_rs_meta *m = meta_of(rs, p);
    if (m)
      want_meta_names(rs, p, m, extra_of(rs, p));
  }
  enum ts_code c = ts_rs_load_wanted(rs, err);
  for (int k = 0; c == TS_OK && k < todo.count; k++) {
    Id p = todo.elements[k];
    const struct ts_rs_meta *m = meta_of(rs, p);
    if (!m) {
      ts_rs_sinfo(rs, p)->deps_done = true; /* installed without METADATA: no deps known */
      continue;
    }
    encode_meta(rs, p, m, extra_of(rs, p));
  }
  queue_free(&todo);
  return c;
}

enum ts_code ts_rs_grow_problem(struct rs *rs, const Queue *pending,
                                struct ts_error *err) {
  struct batch b = {0};
  rs->round++;
  plan_requests(rs, pending, &b);
  enum ts_code c = fetch_batch(rs, &b, err);
  if (c == TS_OK)
    c = read_installed(rs, pending, err);
  if (c == TS_OK)
    c = encode_batch(rs, pending, &b, err);
  batch_free(&b);
  return c;
}
