/*
 * resolver/resolver.c — the entry point: ts_resolver_resolve sets up the
 * state, runs the solve loop (solve.c), hands a failed solve to
 * explain.c and a successful one to held_back.c, and frees it all.
 * Design notes (rank encoding, lazy metadata, why each choice) live in
 * resolver/README.md; comments in these files say why a step is needed.
 */
#include "core/alloc.h"
#include "core/str.h"
#include "resolver/resolver.h"

#include <stdlib.h>
#include <string.h>

#include <solv/pool.h>
#include <solv/repo.h>
#include <solv/solver.h>

#include "pep/metadata.h"
#include "pep/name.h"
#include "resolver/internal.h"
#include "resolver/state.h"

/* ---- canonical order ------------------------------------------------------ */

/* libsolv decides in job order and walks rules in solvable order, so an
 * input order that reached it would change the answer.  Requirements,
 * constraints and Requires-Dist are therefore visited in the order of their
 * canonical text (name, extras, specifier, marker), never as written. */
struct req_key {
  const struct ts_requirement *r;
  char *key;
};

static int req_key_cmp(const void *a, const void *b) {
  const struct req_key *x = a, *y = b;
  return strcmp(x->key, y->key);
}

static char *req_sort_key(const struct ts_requirement *r) {
  char *text = ts_requirement_str(r);
  /* the name first (normalised), so one project's requirements are
   * neighbours whatever their spelling */
  char *key = ts_xasprintf("%s\x01%s", r->normalized_name, text ? text : "");
  free(text);
  return key;
}

/* A copy of list[0..n) in canonical order (caller frees the array). */
static const struct ts_requirement **sorted_reqs(
    const struct ts_requirement *const *list, size_t n) {
  const struct ts_requirement **out = ts_xcalloc(n + 1, sizeof *out);
  struct req_key *keys = ts_xcalloc(n + 1, sizeof *keys);
  for (size_t i = 0; i < n; i++) {
    keys[i].r = list[i];
    keys[i].key = req_sort_key(list[i]);
  }
  if (n > 1)
    qsort(keys, n, sizeof *keys, req_key_cmp);
  for (size_t i = 0; i < n; i++) {
    out[i] = keys[i].r;
    free(keys[i].key);
  }
  free(keys);
  return out;
}


static void rs_free(struct rs *rs) {
  for (size_t i = 0; i < rs->nignored; i++)
    free(rs->ignored[i]);
  free(rs->ignored);
  for (size_t i = 0; i < rs->nprojs; i++) {
    struct rs_proj *pj = &rs->projs[i];
    for (size_t k = 0; k < pj->nvers; k++)
      ts_rs_ver_free(&pj->vers[k]);
    for (size_t k = 0; k < pj->nextras; k++) {
      free(pj->extras[k].name);
      free(pj->extras[k].solv);
    }
    ts_rs_meta_clear(&pj->inst_meta);
    ts_version_free(pj->inst_v);
    free(pj->extras);
    for (size_t k = 0; k < pj->nmemo; k++)
      free(pj->memo[k].spec);
    free(pj->memo);
    free(pj->vers);
    free(pj->evrs);
    free(pj->not_found);
    free(pj->pages);
    free(pj->name);
  }
  free(rs->projs);
  for (size_t i = 0; i < rs->ndeps; i++) {
    free(rs->deps[i].text);
    ts_specset_free(rs->deps[i].spec);
  }
  free(rs->deps);
  for (size_t i = 0; i < (size_t)rs->jobs.count / 2; i++)
    free(rs->job_info[i].text);
  free(rs->job_info);
  for (size_t i = 0; i < rs->nfacts; i++) {
    free(rs->facts[i].name);
    free(rs->facts[i].version);
    free(rs->facts[i].source);
    ts_version_free(rs->facts[i].v);
  }
  free(rs->facts);
  if (rs->rule_term_done) {
    for (size_t i = 0; i < rs->req->rules->nconstraints; i++) {
      free(rs->rule_term_done[i]);
      free(rs->rule_term_dep[i]);
    }
  }
  free(rs->rule_term_done);
  free(rs->rule_term_dep);
  free(rs->rule_dep);
  free(rs->rule_rich);
  free(rs->rule_limit);
  free(rs->rule_done);
  free(rs->rule_by_subject);
  for (size_t i = 0; i < rs->nwant; i++)
    free(rs->want[i]);
  free(rs->want);
  free(rs->si);
  free(rs->pidx);
  free(rs->roots);
  free(rs->constraints);
  queue_free(&rs->jobs);
  queue_free(&rs->rank_deps);
  free(rs->rank_dep_seen);
  free(rs->evr_rank);
  free(rs->name_pass);
  free(rs->name_first);
  queue_free(&rs->name_ranks);
  ts_version_free(rs->pyver);
  pool_free(rs->pool);
}

/* The state before any page is read: the pool and its repos, the host
 * facts (Python first) and the -c constraints holder, each held by an
 * install job. */
static void rs_init(struct rs *rs, const struct ts_resolver_request *req,
                    const struct ts_resolver_target *target,
                    const struct ts_resolver_provider *provider) {
  memset(rs, 0, sizeof *rs);
  rs->req = req;
  rs->target = target;
  rs->provider = provider;
  rs->roots = sorted_reqs(req->requirements, req->nrequirements);
  rs->constraints = sorted_reqs(req->constraints, req->nconstraints);
  rs->pool = pool_create();
  /* Host facts and the constraints holder are held by install jobs in a
   * repo of their own, not installed: libsolv scans every requires rule's
   * candidates for an installed package of the same name (choice rules)
   * whenever the pool has an installed repo, which cost pyrax 12% of its
   * time for no installed package at all.  So the installed repo becomes
   * libsolv's only with its first solvable (versions.c): a distribution
   * installed in the environment but never part of the resolve (pip in a
   * fresh venv) costs nothing; there it cost a warm pyrax 40%. */
  rs->host = repo_create(rs->pool, "@host");
  rs->sys = repo_create(rs->pool, "@System");
  rs->repo = repo_create(rs->pool, "index");
  rs->none_evr = pool_str2id(rs->pool, "~none", 1);
  ts_rs_note_rank(rs, rs->none_evr, -1);
  queue_init(&rs->jobs);
  queue_init(&rs->rank_deps);
  queue_init(&rs->name_ranks);
  if (target->python_full_version)
    ts_version_parse(target->python_full_version,
                     strlen(target->python_full_version), &rs->pyver, NULL);

  /* host facts, Python first */
  if (target->python_full_version)
    ts_rs_add_fact(rs, "__python", target->python_full_version, "target");
  if (req->rules) {
    for (size_t i = 0; i < req->rules->nfacts; i++) {
      const struct ts_host_fact *f = &req->rules->facts[i];
      if (req->ignore_host && strcmp(f->name, "__python") != 0)
        continue;
      ts_rs_add_fact(rs, f->name, f->version, f->source);
    }
    size_t n = req->rules->nconstraints;
    rs->rule_done = ts_xcalloc(n + 1, sizeof(bool));
    rs->rule_term_done = ts_xcalloc(n + 1, sizeof(bool *));
    rs->rule_dep = ts_xcalloc(n + 1, sizeof(Id));
    rs->rule_rich = ts_xcalloc(n + 1, sizeof(bool));
    rs->rule_limit = ts_xcalloc(n + 1, sizeof(bool));
    rs->rule_term_dep = ts_xcalloc(n + 1, sizeof(Id *));
    for (size_t i = 0; i < n; i++) {
      rs->rule_term_done[i] = ts_xcalloc(req->rules->constraints[i].nterms + 1, sizeof(bool));
      rs->rule_term_dep[i] = ts_xcalloc(req->rules->constraints[i].nterms + 1, sizeof(Id));
    }
    ts_rs_index_rules(rs);
  }
  rs->constraints_solv =
      ts_rs_new_solvable(rs, rs->host, pool_str2id(rs->pool, "__constraints", 1),
                         pool_str2id(rs->pool, "0", 1), RS_CONSTRAINTS, -1, -1, -1);
  ts_rs_sinfo(rs, rs->constraints_solv)->deps_done = true;
  /* ts_rs_push_job keeps job_info as long as the job list: the host facts
   * above already hold one entry each */
  ts_rs_push_job(rs, SOLVER_INSTALL | SOLVER_SOLVABLE, rs->constraints_solv);
}

/* The pages of the root projects, read and encoded, and the root jobs. */
static enum ts_code add_roots(struct rs *rs, struct ts_error *err) {
  for (size_t i = 0; i < rs->req->nrequirements; i++) {
    const struct ts_requirement *r = rs->req->requirements[i];
    if (r->url)
      return ts_error_set(err, TS_E_UNSUPPORTED,
                          "direct reference '%s @ %s' is not supported by the "
                          "resolver yet", r->name, r->url);
    if (!r->marker || ts_marker_eval(r->marker, rs->target->markers, NULL))
      ts_rs_want(rs, r->normalized_name);
  }
  enum ts_code c = ts_rs_load_wanted(rs, err);
  if (c == TS_OK)
    ts_rs_add_root_jobs(rs);
  return c;
}

/* After the loop's last solve: a failure is explained (res->why), an
 * answer is checked for a held-back torch (held_back.c), and either may be
 * written as a libsolv testcase (--debug-solver). */
static enum ts_code finish(struct rs *rs, Solver *solv, int nprob, const Queue *cl,
                           struct ts_resolution *res, struct ts_error *err) {
  const char *debug_dir = rs->req->debug_solver_dir;
  if (nprob)
    ts_rs_explain(rs, solv, &res->why);
  enum ts_code c = debug_dir ? ts_rs_write_testcase(solv, debug_dir, err) : TS_OK;
  solver_free(solv);
  if (c != TS_OK)
    return c;
  if (nprob)
    return ts_error_set(err, TS_E_RESOLVE,
                        "the requirements cannot be met together (%d "
                        "problem%s)",
                        nprob, nprob == 1 ? "" : "s");
  /* after the answer's solver is gone: it makes solvers of its own */
  return ts_rs_held_back(rs, cl, res, err);
}

/* Each chosen file's METADATA parse moves to its item. */
static void hand_over_metadata(struct rs *rs, struct ts_resolution *res) {
  for (size_t i = 0; i < res->nitems; i++) {
    struct ts_resolved *it = &res->items[i];
    if (!it->file)
      continue;
    struct rs_proj *pj = ts_rs_proj_by_name(rs, it->name);
    for (size_t k = 0; k < pj->nvers; k++)
      if (pj->vers[k].file == it->file && pj->vers[k].meta_ok) {
        ts_rs_meta_hand_over(&pj->vers[k].meta, it);
        break;
      }
  }
}

enum ts_code ts_resolver_resolve(const struct ts_resolver_request *req,
                                 const struct ts_resolver_target *target,
                                 const struct ts_resolver_provider *provider,
                                 struct ts_resolution **out,
                                 struct ts_error *err) {
  *out = NULL;
  if (!req || !target || !provider || !provider->get_pages ||
      !provider->get_metadata)
    return ts_error_set(err, TS_E_INVALID, "resolver: missing argument");
  struct rs rs;
  rs_init(&rs, req, target, provider);
  enum ts_code c = add_roots(&rs, err);
  if (c != TS_OK) {
    rs_free(&rs);
    return c;
  }
  struct ts_resolution *res = ts_xcalloc(1, sizeof *res);
  Queue cl;
  queue_init(&cl);
  Solver *solv = NULL;
  int nprob = 0;
  c = ts_rs_run(&rs, res, &cl, &solv, &nprob, err);
  if (c == TS_OK)
    c = finish(&rs, solv, nprob, &cl, res, err);
  queue_free(&cl);
  hand_over_metadata(&rs, res);
  res->pages_fetched = rs.pages_fetched;
  res->metadata_fetched = rs.metadata_fetched;
  res->ignored = rs.ignored;
  res->nignored = rs.nignored;
  rs.ignored = NULL;
  rs.nignored = 0;
  if (c == TS_OK || c == TS_E_RESOLVE)
    *out = res;
  else
    ts_resolution_free(res);
  rs_free(&rs);
  return c;
}

void ts_resolution_free(struct ts_resolution *r) {
  if (!r)
    return;
  for (size_t i = 0; i < r->nitems; i++) {
    struct ts_resolved *it = &r->items[i];
    free(it->name);
    free(it->version);
    free(it->installed_version);
    for (size_t k = 0; k < it->nextras; k++)
      free(it->extras[k]);
    free(it->extras);
    ts_metadata_free(it->metadata);
    for (size_t k = 0; k < it->nrequires_dist; k++)
      ts_requirement_free(it->requires_dist[k]);
    free(it->requires_dist);
  }
  free(r->items);
  for (size_t i = 0; i < r->nignored; i++)
    free(r->ignored[i]);
  free(r->ignored);
  if (r->held_back) {
    free(r->held_back->name);
    free(r->held_back->chosen);
    free(r->held_back->runnable);
    free(r->held_back->reason);
    free(r->held_back);
  }
  for (size_t i = 0; i < r->why.nlines; i++)
    free(r->why.lines[i]);
  free(r->why.lines);
  free(r);
}

const char *ts_resolved_action_name(enum ts_resolved_action a) {
  switch (a) {
  case TS_ACTION_INSTALL: return "install";
  case TS_ACTION_UPGRADE: return "upgrade";
  case TS_ACTION_DOWNGRADE: return "downgrade";
  case TS_ACTION_REINSTALL: return "reinstall";
  case TS_ACTION_KEEP: return "keep";
  case TS_ACTION_REMOVE: return "remove";
  }
  return "?";
}

