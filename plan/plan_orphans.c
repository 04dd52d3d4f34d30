/*
 * plan/plan_orphans.c — what switching builds leaves behind: see
 * ts_plan_orphans in plan_internal.h.
 */
#include <stdlib.h>
#include <string.h>

#include "core/alloc.h"
#include "core/str.h"
#include "core/vec.h"
#include "pep/metadata.h"
#include "pep/requirement.h"
#include "plan/plan_internal.h"
#include "target/site.h"

struct names {
  TS_VEC_MEMBERS(char *);
};

static bool has(const struct names *s, const char *name) {
  for (size_t i = 0; i < s->n; i++)
    if (strcmp(s->items[i], name) == 0)
      return true;
  return false;
}

static void add(struct names *s, const char *name) {
  if (has(s, name))
    return;
  ts_vec_push(s, ts_xstrdup(name));
}

static bool drop(struct names *s, const char *name) {
  for (size_t i = 0; i < s->n; i++)
    if (strcmp(s->items[i], name) == 0) {
      free(s->items[i]);
      s->items[i] = s->items[--s->n];
      return true;
    }
  return false;
}

/* The dependencies (normalised names) METADATA declares on env, without
 * extras, appended to out. */
static void deps_of(const char *md, size_t len, const struct ts_marker_env *env,
                    struct names *out) {
  struct ts_metadata *m = NULL;
  struct ts_error ignore = {0};
  if (!md || ts_metadata_parse(md, len, &m, &ignore) != TS_OK)
    return;
  for (size_t i = 0; i < m->nrequires_dist; i++) {
    struct ts_requirement *r = NULL;
    const char *s = m->requires_dist[i];
    if (ts_requirement_parse(s, strlen(s), &r, NULL) != TS_OK)
      continue;
    if (!r->marker || ts_marker_eval(r->marker, env, NULL))
      add(out, r->normalized_name);
    ts_requirement_free(r);
  }
  ts_metadata_free(m);
}

/* The same from requirements parsed already (the resolver's). */
static void deps_of_parsed(struct ts_requirement *const *reqs, size_t n,
                           const struct ts_marker_env *env, struct names *out) {
  for (size_t i = 0; i < n; i++)
    if (!reqs[i]->marker || ts_marker_eval(reqs[i]->marker, env, NULL))
      add(out, reqs[i]->normalized_name);
}

static const struct ts_resolved *answer_item(const struct ts_plan_result *r, const char *name) {
  for (size_t i = 0; r->res && i < r->res->nitems; i++)
    if (strcmp(r->res->items[i].name, name) == 0)
      return &r->res->items[i];
  return NULL;
}

static bool replaced(const struct ts_resolved *x) {
  return x && x->installed_version && x->action != TS_ACTION_KEEP;
}

/* A replacement by another build (+cu130 to +cu126, +cpu to +rocm6.4):
 * the label changes.  An ordinary upgrade orphans nothing, as in pip. */
static bool switched(const struct ts_resolved *x) {
  if (!replaced(x))
    return false;
  const char *a = strchr(x->installed_version, '+'), *b = strchr(x->version, '+');
  return (a || b) && (!a || !b || strcmp(a, b) != 0);
}

/* Every installed distribution the replaced ones need, through one another. */
static void candidates(const struct ts_site *site, const struct ts_plan_result *r,
                       const struct ts_marker_env *env, struct names *out) {
  for (size_t i = 0; r->res && i < r->res->nitems; i++) {
    const struct ts_site_dist *d = ts_site_find(site, r->res->items[i].name);
    if (switched(&r->res->items[i]) && d)
      deps_of(d->metadata, d->metadata_len, env, out);
  }
  for (size_t k = 0; k < out->n; k++) { /* out grows while walked */
    const struct ts_site_dist *d = ts_site_find(site, out->items[k]);
    if (d && !replaced(answer_item(r, out->items[k])))
      deps_of(d->metadata, d->metadata_len, env, out);
  }
}

void ts_plan_orphans(const struct ts_site *site, struct ts_plan_result *r,
                     const struct ts_marker_env *env) {
  struct names cand = {0}, keep = {0};
  candidates(site, r, env, &cand);
  /* what the user asked for, or the answer holds, stays */
  for (size_t i = 0; i < cand.n;) {
    const struct ts_site_dist *d = ts_site_find(site, cand.items[i]);
    if (!d || d->requested || answer_item(r, cand.items[i]))
      drop(&cand, cand.items[i]);
    else
      i++;
  }
  /* so does whatever stays needs: the answer (its new versions) and every
   * installed distribution outside the candidates, then what each kept
   * candidate needs in turn (nothing to do when nothing is a candidate) */
  for (size_t i = 0; cand.n && r->res && i < r->res->nitems; i++) {
    const struct ts_plan_item *it = &r->items[i];
    if (it->parsed)
      deps_of_parsed(it->r->requires_dist, it->r->nrequires_dist, env, &keep);
    else
      deps_of(it->metadata, it->metadata_len, env, &keep);
  }
  for (size_t i = 0; cand.n && i < site->n; i++) {
    const struct ts_site_dist *d = &site->dists[i];
    if (!has(&cand, d->normalized) && !answer_item(r, d->normalized))
      deps_of(d->metadata, d->metadata_len, env, &keep);
  }
  for (size_t k = 0; k < keep.n; k++) /* keep grows while walked */
    if (drop(&cand, keep.items[k])) {
      const struct ts_site_dist *d = ts_site_find(site, keep.items[k]);
      if (d)
        deps_of(d->metadata, d->metadata_len, env, &keep);
    }
  ts_strv_free(keep.items, keep.n);
  if (cand.n > 1)
    qsort(cand.items, cand.n, sizeof *cand.items, ts_strv_cmp);
  r->orphans = cand.items;
  r->norphans = cand.n;
  r->orphan_versions = ts_xcalloc(cand.n + 1, sizeof *r->orphan_versions);
  for (size_t i = 0; i < cand.n; i++) {
    const struct ts_site_dist *d = ts_site_find(site, cand.items[i]);
    r->orphan_versions[i] = ts_xstrdup(d && d->version ? d->version : "-");
  }
}
