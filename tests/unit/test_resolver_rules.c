/*
 * Resolver unit tests for what a text fixture cannot say: how much the
 * resolver asks its provider (lazy metadata, version windows, --no-deps),
 * pages that list no file of their project, and the variant fallback tier.
 * Resolution scenarios (rules, host facts, variants, installed sets,
 * pre-releases, yanks, constraints, resolution modes) are text fixtures in
 * fixtures/resolver/ (one .test file each), replayed by
 * test_resolver_fixtures.c.
 */
#include <criterion/criterion.h>
#include <stdarg.h>

#include "tests/conformance/resolver_mem.h"

/* ---- a tiny scenario builder --------------------------------------------- */

struct world {
  struct mem_index ix;
  struct mem_target tg;
  struct ts_requirement *reqs[16];
  size_t nreqs;
  struct ts_resolver_request req;
  struct ts_resolution *res;
  enum ts_code code;
  struct ts_error err;
};

static void world_init(struct world *w) {
  memset(w, 0, sizeof *w);
  cr_assert(mem_target_init(&w->tg, "3.12.3", 2, 36, "x86_64"));
  w->req.prefetch = 2;
}

/* "name version [dep; dep; ...]" with one py3-none-any wheel. */
static void pkg(struct world *w, const char *name, const char *version,
                const char *const *deps, size_t ndeps) {
  struct mem_proj *p = mem_project(&w->ix, name);
  char *dist = mem_dist_name(name);
  char fname[512];
  snprintf(fname, sizeof fname, "%s-%s-py3-none-any.whl", dist, version);
  mem_add_file(p, fname, NULL, false);
  mem_add_meta(p, version,
               mem_metadata(name, version, NULL, deps, ndeps, NULL, NULL, 0));
  free(dist);
}

#define PKG(w, n, v, ...)                                                   \
  do {                                                                      \
    const char *d_[] = {NULL, __VA_ARGS__};                                 \
    pkg(w, n, v, d_ + 1, sizeof d_ / sizeof *d_ - 1);                       \
  } while (0)

static void root(struct world *w, const char *s) {
  struct ts_error err = {0};
  cr_assert_eq(ts_requirement_parse(s, strlen(s), &w->reqs[w->nreqs], &err),
               TS_OK, "%s", err.detail);
  w->nreqs++;
}

static void resolve(struct world *w) {
  w->req.requirements = (const struct ts_requirement *const *)w->reqs;
  w->req.nrequirements = w->nreqs;
  struct ts_resolver_provider prov = {.ctx = &w->ix, .get_pages = mem_get_pages,
                                      .get_metadata = mem_get_metadata};
  ts_resolution_free(w->res);
  w->res = NULL;
  w->code = ts_resolver_resolve(&w->req, &w->tg.target, &prov, &w->res,
                                &w->err);
}

static const char *got(struct world *w, const char *name) {
  if (!w->res)
    return NULL;
  for (size_t i = 0; i < w->res->nitems; i++)
    if (strcmp(w->res->items[i].name, name) == 0)
      return w->res->items[i].version;
  return NULL;
}

static bool why_has(struct world *w, const char *needle) {
  if (!w->res)
    return false;
  for (size_t i = 0; i < w->res->why.nlines; i++)
    if (strstr(w->res->why.lines[i], needle))
      return true;
  return false;
}

static void dump_why(struct world *w) {
  if (!w->res)
    return;
  for (size_t i = 0; i < w->res->why.nlines; i++)
    fprintf(stderr, "  | %s\n", w->res->why.lines[i]);
}

static void world_free(struct world *w) {
  ts_resolution_free(w->res);
  for (size_t i = 0; i < w->nreqs; i++)
    ts_requirement_free(w->reqs[i]);
  mem_free(&w->ix);
  mem_target_free(&w->tg);
}

/* ---- lazy metadata: only chosen versions (+ prefetch) are fetched -------- */

Test(resolver_rules, lazy_metadata_is_minimal) {
  struct world w;
  world_init(&w);
  char v[32];
  for (int i = 0; i < 50; i++) {
    snprintf(v, sizeof v, "1.%d", i);
    PKG(&w, "a", v, "b");
  }
  PKG(&w, "b", "1.0");
  PKG(&w, "b", "2.0");
  root(&w, "a");
  w.req.prefetch = 0;
  resolve(&w);
  cr_assert_eq(w.code, TS_OK, "%s", w.err.detail);
  cr_assert_str_eq(got(&w, "a"), "1.49");
  cr_assert_str_eq(got(&w, "b"), "2.0");
  cr_assert_eq(w.ix.meta_requests, 2, "fetched %zu", w.ix.meta_requests);
  cr_assert_eq(w.ix.page_requests, 2);
  world_free(&w);
}

Test(resolver_rules, lazy_metadata_backtracks_exactly) {
  struct world w;
  world_init(&w);
  /* the newest a needs a c that does not exist: the answer must move to
   * the older a after its metadata was seen */
  PKG(&w, "a", "1.0", "b");
  PKG(&w, "a", "2.0", "c");
  PKG(&w, "b", "1.0");
  root(&w, "a");
  resolve(&w);
  dump_why(&w);
  cr_assert_eq(w.code, TS_OK, "%s", w.err.detail);
  cr_assert_str_eq(got(&w, "a"), "1.0");
  cr_assert_str_eq(got(&w, "b"), "1.0");
  cr_assert_null(got(&w, "c"));
  world_free(&w);
}

/* ---- installed distributions ------------------------------------------------ */

/* A page that lists nothing of its project (a wrong "name @ url", a
 * broken mirror page): the hint says what it does list. */
Test(resolver_rules, page_without_own_files_hints) {
  struct world w;
  world_init(&w);
  mem_add_file(mem_project(&w.ix, "a"), "b-1.0-py3-none-any.whl", NULL, false);
  mem_add_file(mem_project(&w.ix, "c"), "README.txt", NULL, false);
  mem_project(&w.ix, "d");
  const char *cases[][2] = {
      {"a", "the index page of a lists no file of a, only other projects' "
            "(b-1.0-py3-none-any.whl)"},
      {"c", "the index page of c lists no wheel or sdist file name torchsolve "
            "can read (README.txt)"},
      {"d", "the index page of d lists no files"},
  };
  for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
    for (size_t k = 0; k < w.nreqs; k++)
      ts_requirement_free(w.reqs[k]);
    w.nreqs = 0;
    root(&w, cases[i][0]);
    resolve(&w);
    dump_why(&w);
    cr_assert_eq(w.code, TS_E_RESOLVE);
    cr_assert(why_has(&w, cases[i][1]), "%s", cases[i][1]);
  }
  world_free(&w);
}

Test(resolver_rules, no_deps) {
  struct world w;
  world_init(&w);
  PKG(&w, "a", "1.0", "b");
  root(&w, "a");
  w.req.no_deps = true;
  resolve(&w);
  cr_assert_eq(w.code, TS_OK, "%s", w.err.detail);
  cr_assert_eq(w.res->nitems, 1);
  cr_assert_eq(w.ix.meta_requests, 0);
  world_free(&w);
}

/* ---- version windows: old versions are found when the new ones fail ----- */

Test(resolver_rules, deep_version_found_through_windows) {
  struct world w;
  world_init(&w);
  char v[32];
  PKG(&w, "a", "1.0", "b<2");
  for (int i = 1; i < 100; i++) {
    snprintf(v, sizeof v, "1.%d", i);
    PKG(&w, "a", v, "b>=2");
  }
  PKG(&w, "b", "1.0");
  PKG(&w, "b", "2.0");
  root(&w, "a");
  root(&w, "b<2");
  resolve(&w);
  dump_why(&w);
  cr_assert_eq(w.code, TS_OK, "%s", w.err.detail);
  cr_assert_str_eq(got(&w, "a"), "1.0");
  cr_assert_str_eq(got(&w, "b"), "1.0");
  ts_requirement_free(w.reqs[1]);
  w.nreqs = 1;
  ts_requirement_free(w.reqs[0]);
  w.nreqs = 0;
  root(&w, "a==1.3");
  resolve(&w);
  cr_assert_eq(w.code, TS_OK, "%s", w.err.detail);
  cr_assert_str_eq(got(&w, "a"), "1.3");
  cr_assert_str_eq(got(&w, "b"), "2.0");
  cr_assert_eq(w.res->solves, 3, "%zu solves", w.res->solves);
  ts_requirement_free(w.reqs[0]);
  w.nreqs = 0;
  root(&w, "a>=1.50");
  root(&w, "b<2");
  resolve(&w);
  dump_why(&w);
  cr_assert_eq(w.code, TS_E_RESOLVE);
  cr_assert(why_has(&w, "you asked for b<2"));
  world_free(&w);
}

/* ---- fallback tier: an older GPU build before a newer CPU build --------- */

Test(resolver_rules, variant_fallback_tier) {
  struct world w;
  world_init(&w);
  PKG(&w, "torch", "2.4.1+rocm6.1");
  PKG(&w, "torch", "2.5.1+cpu");
  const char *pats[] = {"rocm6.2*", "rocm6.1*", "cpu"};
  struct ts_resolver_variant_pref pref = {"torch", pats, 3, 0};
  w.req.variants = &pref;
  w.req.nvariants = 1;
  root(&w, "torch");
  resolve(&w);
  cr_assert_eq(w.code, TS_OK, "%s", w.err.detail);
  cr_assert_str_eq(got(&w, "torch"), "2.5.1+cpu"); /* no tiers: newest */
  pref.nfallback = 1;
  resolve(&w);
  cr_assert_eq(w.code, TS_OK, "%s", w.err.detail);
  cr_assert_str_eq(got(&w, "torch"), "2.4.1+rocm6.1");
  ts_requirement_free(w.reqs[0]);
  w.nreqs = 0;
  root(&w, "torch>=2.5");
  resolve(&w);
  cr_assert_eq(w.code, TS_OK, "%s", w.err.detail);
  cr_assert_str_eq(got(&w, "torch"), "2.5.1+cpu"); /* the fallback fits */
  world_free(&w);
}
