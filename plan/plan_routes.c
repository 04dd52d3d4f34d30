/* The variants a resolution routes to and prefers (plan_state.h's
 * `route`): compiled from the rules once per plan, see README.md
 * ("ts_plan_resolve", steps 2 to 4). */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/alloc.h"
#include "core/str.h"
#include "pep/specifier.h"
#include "pep/version.h"
#include "plan/plan_internal.h"
#include "plan/plan_state.h"
#include "rules/series.h"

size_t ts_plan_route_project(void *ctx, const char *name, const char **urls, size_t max) {
  struct ts_plan_state *p = ctx;
  if (!ts_plan_is_routed(p->in.set, name))
    return 0;
  size_t n = 0;
  for (size_t i = 0; i < p->route.nroutes && n < max; i++)
    urls[n++] = p->route.routes[i];
  return n;
}

/* The variants to route to, best first: the usable backends of every
 * release series, newest series first (an older torch may be the newest
 * with a build for this GPU), plus any label a root requirement pins
 * ("torch==2.5.1+rocm6.2"), so that the rules can explain its refusal. */

static void variants_add(struct ts_plan_variant_list *v, const char *name, bool cpu) {
  for (size_t i = 0; i < v->n; i++)
    if (strcmp(v->names[i], name) == 0)
      return;
  v->names = ts_xrealloc(v->names, (v->n + 1) * sizeof *v->names);
  v->cpu = ts_xrealloc(v->cpu, (v->n + 1) * sizeof *v->cpu);
  v->names[v->n] = ts_xstrdup(name);
  v->cpu[v->n++] = cpu;
}

/* Drops every GPU variant but `backend` (ts_plan_options.only_backend). */
static void keep_only_backend(struct ts_plan_variant_list *v, const char *backend) {
  size_t k = 0;
  for (size_t i = 0; i < v->n; i++) {
    if (v->cpu[i] || strcmp(v->names[i], backend) == 0) {
      v->names[k] = v->names[i];
      v->cpu[k++] = v->cpu[i];
    } else {
      free(v->names[i]);
    }
  }
  v->n = k;
}

static void collect_usable(struct ts_plan_variant_list *v, const struct ts_constraint_set *s) {
  for (size_t i = 0; i < s->nbackends; i++)
    if (s->backends[i].usable)
      variants_add(v, s->backends[i].name, strcmp(s->backends[i].kind, "cpu") == 0);
}

/* rules/series.h's walk: every series' usable backends, none stopping it. */
static bool collect_series(void *ctx, const struct ts_rules_release *rel,
                           struct ts_constraint_set *backends) {
  (void)rel;
  collect_usable(ctx, backends);
  return false;
}

enum ts_code ts_plan_compile_rules(const struct ts_plan_options *o, struct ts_constraint_set *out,
                                   struct ts_plan_variant_list *v, struct ts_error *err) {
  struct ts_rules_options ro = {.ignore_host = o->ignore_host};
  enum ts_code rc = ts_rules_compile(o->rules, o->host, &ro, out, err);
  if (rc != TS_OK)
    return rc;
  for (size_t i = 0; i < o->ntorch_backends; i++) {
    const struct ts_rules_backend *b = ts_rules_find_backend(o->rules, o->torch_backends[i]);
    variants_add(v, o->torch_backends[i], b && b->kind == TS_BACKEND_CPU);
  }
  if (!o->ntorch_backends) {
    collect_usable(v, out);
    ts_rules_each_series(o->rules, o->host, o->ignore_host, out, collect_series, v);
  }
  /* The labels were gathered newest series first, so a variant only an
   * older series has (cu129 of 2.8, cu124 of 2.5) landed behind the newest
   * series' ones and lost to them among builds of one version: torch==2.8.0
   * on a 13.0 driver came as +cu126, not +cu129.  One order of the backend
   * list (the same for every series) puts them back. */
  const struct ts_host *h = o->ignore_host ? NULL : o->host;
  for (size_t i = 1; i < v->n; i++)
    for (size_t j = i; j > 0; j--) {
      const struct ts_rules_backend *a =
          ts_rules_find_backend(o->rules, v->names[j - 1]);
      const struct ts_rules_backend *b = ts_rules_find_backend(o->rules, v->names[j]);
      if (!a || !b || ts_rules_backend_cmp(b, a, h) >= 0)
        break;
      char *tn = v->names[j - 1];
      bool tc = v->cpu[j - 1];
      v->names[j - 1] = v->names[j];
      v->cpu[j - 1] = v->cpu[j];
      v->names[j] = tn;
      v->cpu[j] = tc;
    }
  return TS_OK;
}

static void pinned_labels(struct ts_plan_variant_list *v, const struct ts_constraint_set *set,
                          const struct ts_plan_options *o) {
  for (size_t i = 0; i < o->nentries; i++) {
    const struct ts_reqfile_entry *e = o->entries[i];
    if (e->kind != TS_REQFILE_NAMED || e->req->url ||
        !ts_plan_is_routed(set, e->req->normalized_name))
      continue;
    const char *plus = strchr(e->text, '+');
    if (!plus)
      continue;
    size_t n = 0;
    while (plus[1 + n] && (isalnum((unsigned char)plus[1 + n]) || plus[1 + n] == '.'))
      n++;
    if (n == 0 || n > 64)
      continue;
    char label[80];
    snprintf(label, sizeof label, "%.*s", (int)n, plus + 1);
    variants_add(v, label, strcmp(label, "cpu") == 0);
  }
}

/* Every variant of `rel` whose backend kind is marked in kinds[]. */
static void route_release(struct ts_plan_variant_list *v, const struct ts_plan_options *o,
                          const struct ts_rules_release *rel, const bool *kinds,
                          size_t nkinds) {
  for (size_t k = 0; k < rel->nvariants; k++) {
    const struct ts_rules_backend *b =
        ts_rules_find_backend(o->rules, rel->variants[k].backend);
    if (b && (size_t)b->kind < nkinds && kinds[b->kind])
      variants_add(v, b->id, false);
  }
}

/* Variants routed only so that the resolver can say why they do not run:
 *  - a root requirement that pins a routed project to some releases routes
 *    every variant of those releases whose backend kind this host runs (the
 *    kinds of the usable variants): torch==2.5.1 on an RX 7900 XT routes
 *    rocm6.1 and rocm6.2 of 2.5, so the resolver names the rule that
 *    refuses each GPU build (hipblaslt-gfx1100) instead of finding none;
 *  - when the newest release has no usable variant of such a kind, its
 *    variants of that kind: the held-back note then names the rules that
 *    keep the host on an older torch (backend-rocm7.2-rocm).
 * The rules refuse them in the resolver as everywhere else. */
static void explaining_variants(struct ts_plan_variant_list *v, const struct ts_constraint_set *set,
                                const struct ts_plan_options *o) {
  bool kinds[8] = {false}, newest_has[8] = {false};
  for (size_t i = 0; i < v->n; i++) {
    const struct ts_rules_backend *b = ts_rules_find_backend(o->rules, v->names[i]);
    if (b && !v->cpu[i] && (size_t)b->kind < sizeof kinds)
      kinds[b->kind] = true;
  }
  for (size_t i = 0; i < set->nbackends; i++) {
    const struct ts_rules_backend *b =
        ts_rules_find_backend(o->rules, set->backends[i].name);
    if (b && set->backends[i].usable && (size_t)b->kind < sizeof newest_has)
      newest_has[b->kind] = true;
  }
  bool missing[8] = {false}, any_missing = false;
  for (size_t k = 0; k < sizeof kinds; k++) {
    missing[k] = kinds[k] && !newest_has[k];
    any_missing |= missing[k];
  }
  if (any_missing && ts_rules_newest(o->rules))
    route_release(v, o, ts_rules_newest(o->rules), missing, sizeof missing);
  for (size_t i = 0; i < o->nentries; i++) {
    const struct ts_reqfile_entry *e = o->entries[i];
    if (e->kind != TS_REQFILE_NAMED || e->req->url ||
        !ts_plan_is_routed(set, e->req->normalized_name) ||
        !ts_specset_count(e->req->specifier))
      continue;
    for (size_t r = 0; r < o->rules->nreleases; r++) {
      const struct ts_rules_release *rel = &o->rules->releases[r];
      bool admitted = false;
      for (size_t k = 0; k < rel->nversions && !admitted; k++) {
        struct ts_version *ver = NULL;
        if (ts_version_parse(rel->versions[k], strlen(rel->versions[k]), &ver,
                             NULL) == TS_OK)
          admitted = ts_specset_contains(e->req->specifier, ver, TS_PRE_INCLUDE);
        ts_version_free(ver);
      }
      if (admitted)
        route_release(v, o, rel, kinds, sizeof kinds);
    }
  }
}

static void build_routes_and_prefs(struct ts_plan_routing *rt, struct ts_index *idx,
                                   const struct ts_constraint_set *set, bool variant_index) {
  const struct ts_plan_variant_list *v = &rt->vars;
  rt->routes = ts_xcalloc(v->n + 1, sizeof *rt->routes);
  /* PEP 825 wheels of every build (<torch-index-url>/variant/), unless the
   * user named one build or no build goes to the torch index at all */
  if (variant_index && v->n)
    rt->routes[rt->nroutes++] = ts_index_torch_url(idx, "variant");
  rt->patterns = ts_xcalloc(v->n, sizeof *rt->patterns);
  size_t k = 0, cpu = 0;
  for (size_t i = 0; i < v->n; i++) {
    rt->routes[rt->nroutes++] = ts_index_torch_url(idx, v->names[i]);
    if (!v->cpu[i])
      rt->patterns[k++] = v->names[i];
  }
  for (size_t i = 0; i < v->n; i++)
    if (v->cpu[i]) {
      rt->patterns[k++] = v->names[i];
      cpu++;
    }
  /* The objective (doc/rules.md): torch is decided first, then its
   * companions (the other routed projects, in name order) */
  rt->priority = ts_xcalloc(set->nrouted + 1, sizeof *rt->priority);
  for (size_t i = 0; i < set->nrouted; i++)
    if (strcmp(set->routed[i], "torch") == 0)
      rt->priority[rt->npriority++] = set->routed[i];
  for (size_t i = 0; rt->npriority && i < set->nrouted; i++)
    if (strcmp(set->routed[i], "torch") != 0)
      rt->priority[rt->npriority++] = set->routed[i];
  if (rt->npriority > 2)
    qsort(rt->priority + 1, rt->npriority - 1, sizeof *rt->priority, ts_strv_cmp);
  rt->prefs = ts_xcalloc(set->nrouted, sizeof *rt->prefs);
  for (size_t i = 0; i < set->nrouted; i++)
    rt->prefs[rt->nprefs++] = (struct ts_resolver_variant_pref){
        .name = set->routed[i], .patterns = rt->patterns, .npatterns = k,
        .nfallback = k > cpu ? cpu : 0};
}

void ts_plan_route(struct ts_plan_state *p, const struct ts_plan_options *o,
                   const struct ts_constraint_set *set) {
  struct ts_plan_variant_list *v = &p->route.vars;
  if (o->facts_override)
    collect_usable(v, set);
  pinned_labels(v, set, o);
  if (o->rules && !o->ntorch_backends) /* a named build: that one only */
    explaining_variants(v, set, o);
  if (o->only_backend)
    keep_only_backend(v, o->only_backend);
  build_routes_and_prefs(&p->route, p->in.idx, set, !o->ntorch_backends && !o->only_backend);
}

void ts_plan_routing_clear(struct ts_plan_routing *r) {
  for (size_t i = 0; i < r->nroutes; i++)
    free(r->routes[i]);
  free(r->routes);
  free(r->patterns);
  free(r->priority);
  for (size_t i = 0; i < r->vars.n; i++)
    free(r->vars.names[i]);
  free(r->vars.names);
  free(r->vars.cpu);
  free(r->prefs);
  memset(r, 0, sizeof *r);
}
