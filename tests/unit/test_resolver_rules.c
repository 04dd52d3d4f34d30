/*
 * Resolver unit tests: hand-made indexes, host facts and rules (the
 * mechanism the GPU rules compiler feeds), variants, installed
 * distributions, pre-releases, yanks, lazy metadata.
 */
#include <criterion/criterion.h>
#include <stdarg.h>

#include "tests/conformance/resolver_mem.h"

/* ---- a tiny scenario builder --------------------------------------------- */

struct world {
  struct mem_index ix;
  struct mem_target tg;
  struct ts_constraint_set rules;
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

static struct ts_specset *spec(const char *s) {
  struct ts_specset *sp = NULL;
  cr_assert_eq(ts_specset_parse(s, strlen(s), &sp, NULL), TS_OK);
  return sp;
}

static void fact(struct world *w, const char *name, const char *version) {
  struct ts_constraint_set *r = &w->rules;
  r->facts = realloc(r->facts, (r->nfacts + 1) * sizeof *r->facts);
  r->facts[r->nfacts].name = strdup(name);
  r->facts[r->nfacts].version = version ? strdup(version) : NULL;
  r->facts[r->nfacts].source = strdup("test");
  r->nfacts++;
}

static struct ts_term term(const char *name, const char *sp,
                           const char *local) {
  struct ts_term t = {strdup(name), sp ? spec(sp) : NULL,
                      local ? strdup(local) : NULL};
  return t;
}

static struct ts_constraint *rule(struct world *w, const char *id,
                                  enum ts_constraint_kind kind,
                                  struct ts_term subject) {
  struct ts_constraint_set *r = &w->rules;
  r->constraints =
      realloc(r->constraints, (r->nconstraints + 1) * sizeof *r->constraints);
  struct ts_constraint *c = &r->constraints[r->nconstraints++];
  memset(c, 0, sizeof *c);
  c->id = strdup(id);
  c->message = strdup("test rule message");
  c->fix = strdup("test fix");
  c->kind = kind;
  c->subject = subject;
  return c;
}

static void add_term(struct ts_term **v, size_t *n, struct ts_term t) {
  *v = realloc(*v, (*n + 1) * sizeof **v);
  (*v)[(*n)++] = t;
}

static void resolve(struct world *w) {
  w->req.requirements = (const struct ts_requirement *const *)w->reqs;
  w->req.nrequirements = w->nreqs;
  if (w->rules.nfacts || w->rules.nconstraints)
    w->req.rules = &w->rules;
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
  ts_constraint_set_clear(&w->rules);
  mem_free(&w->ix);
  mem_target_free(&w->tg);
}

/* ---- seed-004: hipBLASLt needs ROCm 6.3 on gfx1100 ------------------------ */

static void seed004(struct world *w) {
  world_init(w);
  PKG(w, "torch", "2.4.1+rocm6.2");
  PKG(w, "torch", "2.5.1+rocm6.2");
  fact(w, "__rocm", "6.2.0");
  fact(w, "__gfx1100", NULL);
  struct ts_constraint *c = rule(w, "hipblaslt-gfx1100", TS_CONSTRAINT_REQUIRES,
                                 term("torch", ">=2.5", "rocm*"));
  add_term(&c->terms, &c->nterms, term("__rocm", ">=6.3", NULL));
  add_term(&c->when, &c->nwhen, term("__gfx1100", NULL, NULL));
}

Test(resolver_rules, seed004_picks_older_torch) {
  struct world w;
  seed004(&w);
  root(&w, "torch");
  resolve(&w);
  dump_why(&w);
  cr_assert_eq(w.code, TS_OK, "%s", w.err.detail);
  cr_assert_str_eq(got(&w, "torch"), "2.4.1+rocm6.2");
  world_free(&w);
}

Test(resolver_rules, seed004_forced_explains_rule_and_host) {
  struct world w;
  seed004(&w);
  root(&w, "torch==2.5.1");
  resolve(&w);
  dump_why(&w);
  cr_assert_eq(w.code, TS_E_RESOLVE);
  cr_assert(why_has(&w, "you asked for torch==2.5.1"));
  cr_assert(why_has(&w, "torch 2.5.1+rocm6.2 needs __rocm>=6.3"));
  cr_assert(why_has(&w, "rule hipblaslt-gfx1100"));
  cr_assert(why_has(&w, "this host has __rocm 6.2.0"));
  cr_assert(why_has(&w, "this host has __gfx1100"));
  cr_assert(why_has(&w, "fix (rule hipblaslt-gfx1100): test fix"));
  /* never solver-internal ranks */
  cr_assert(!why_has(&w, "0001"));
  world_free(&w);
}

Test(resolver_rules, seed004_rule_inactive_without_gfx1100) {
  struct world w;
  world_init(&w);
  PKG(&w, "torch", "2.4.1+rocm6.2");
  PKG(&w, "torch", "2.5.1+rocm6.2");
  fact(&w, "__rocm", "6.2.0");
  fact(&w, "__gfx90a", NULL);
  struct ts_constraint *c = rule(&w, "hipblaslt-gfx1100",
                                 TS_CONSTRAINT_REQUIRES,
                                 term("torch", ">=2.5", "rocm*"));
  add_term(&c->terms, &c->nterms, term("__rocm", ">=6.3", NULL));
  add_term(&c->when, &c->nwhen, term("__gfx1100", NULL, NULL));
  root(&w, "torch");
  resolve(&w);
  cr_assert_eq(w.code, TS_OK, "%s", w.err.detail);
  cr_assert_str_eq(got(&w, "torch"), "2.5.1+rocm6.2");
  world_free(&w);
}

Test(resolver_rules, ignore_host_drops_host_rules) {
  struct world w;
  seed004(&w);
  root(&w, "torch");
  w.req.ignore_host = true;
  resolve(&w);
  cr_assert_eq(w.code, TS_OK, "%s", w.err.detail);
  cr_assert_str_eq(got(&w, "torch"), "2.5.1+rocm6.2");
  world_free(&w);
}

/* ---- ABI-bound extension: pymomentum-gpu needs torch >=2.8,<2.10 ---------- */

Test(resolver_rules, abi_range_requires) {
  struct world w;
  world_init(&w);
  PKG(&w, "torch", "2.7.1");
  PKG(&w, "torch", "2.8.0");
  PKG(&w, "torch", "2.9.1");
  PKG(&w, "torch", "2.10.0");
  PKG(&w, "pymomentum-gpu", "0.1.0", "numpy");
  PKG(&w, "numpy", "2.1.0");
  struct ts_constraint *c = rule(&w, "pymomentum-torch-abi",
                                 TS_CONSTRAINT_REQUIRES,
                                 term("pymomentum-gpu", "==0.1.*", NULL));
  add_term(&c->terms, &c->nterms, term("torch", ">=2.8,<2.10", NULL));
  root(&w, "pymomentum-gpu");
  root(&w, "torch");
  resolve(&w);
  dump_why(&w);
  cr_assert_eq(w.code, TS_OK, "%s", w.err.detail);
  cr_assert_str_eq(got(&w, "torch"), "2.9.1");
  cr_assert_str_eq(got(&w, "numpy"), "2.1.0");
  /* the rule also pulls torch in when only the extension is asked for */
  world_free(&w);

  world_init(&w);
  PKG(&w, "torch", "2.9.1");
  PKG(&w, "torch", "2.10.0");
  PKG(&w, "pymomentum-gpu", "0.1.0");
  c = rule(&w, "pymomentum-torch-abi", TS_CONSTRAINT_REQUIRES,
           term("pymomentum-gpu", NULL, NULL));
  add_term(&c->terms, &c->nterms, term("torch", ">=2.8,<2.10", NULL));
  root(&w, "pymomentum-gpu");
  root(&w, "torch>=2.10");
  resolve(&w);
  dump_why(&w);
  cr_assert_eq(w.code, TS_E_RESOLVE);
  cr_assert(why_has(&w, "rule pymomentum-torch-abi"));
  cr_assert(why_has(&w, "you asked for torch>=2.10"));
  world_free(&w);
}

/* ---- floors: torch >= 2.10 needs transformers >= 4.45 --------------------- */

Test(resolver_rules, transformers_floor_conflict) {
  struct world w;
  world_init(&w);
  PKG(&w, "torch", "2.9.1");
  PKG(&w, "torch", "2.10.0");
  PKG(&w, "transformers", "4.44.0");
  PKG(&w, "transformers", "4.46.0");
  struct ts_constraint *c = rule(&w, "hf-floor-torch210",
                                 TS_CONSTRAINT_CONFLICTS,
                                 term("torch", ">=2.10", NULL));
  add_term(&c->terms, &c->nterms, term("transformers", "<4.45", NULL));
  root(&w, "torch");
  root(&w, "transformers<4.45");
  resolve(&w);
  dump_why(&w);
  cr_assert_eq(w.code, TS_OK, "%s", w.err.detail);
  cr_assert_str_eq(got(&w, "torch"), "2.9.1");
  cr_assert_str_eq(got(&w, "transformers"), "4.44.0");
  world_free(&w);

  world_init(&w);
  PKG(&w, "torch", "2.10.0");
  PKG(&w, "transformers", "4.44.0");
  c = rule(&w, "hf-floor-torch210", TS_CONSTRAINT_CONFLICTS,
           term("torch", ">=2.10", NULL));
  add_term(&c->terms, &c->nterms, term("transformers", "<4.45", NULL));
  root(&w, "torch>=2.10");
  root(&w, "transformers<4.45");
  resolve(&w);
  dump_why(&w);
  cr_assert_eq(w.code, TS_E_RESOLVE);
  cr_assert(why_has(&w, "rule hf-floor-torch210"));
  cr_assert(why_has(&w, "torch 2.10.0 cannot be installed with transformers 4.44.0"));
  world_free(&w);
}

/* ---- variants: preference order, then what the host can run --------------- */

Test(resolver_rules, variant_preference_and_driver_rule) {
  struct world w;
  world_init(&w);
  PKG(&w, "torch", "2.9.1+cpu");
  PKG(&w, "torch", "2.9.1+cu130");
  PKG(&w, "torch", "2.9.1+cu128");
  PKG(&w, "torch", "2.8.0+cu130");
  const char *pats[] = {"cu130", "cu128", "cpu"};
  struct ts_resolver_variant_pref pref = {"torch", pats, 3, 0};
  w.req.variants = &pref;
  w.req.nvariants = 1;
  root(&w, "torch");
  resolve(&w);
  cr_assert_eq(w.code, TS_OK, "%s", w.err.detail);
  cr_assert_str_eq(got(&w, "torch"), "2.9.1+cu130");

  /* a driver too old for CUDA 13: the cu128 build of the same version */
  fact(&w, "__cuda_driver", "570.86.10");
  struct ts_constraint *c = rule(&w, "cu130-driver", TS_CONSTRAINT_REQUIRES,
                                 term("torch", NULL, "cu130"));
  add_term(&c->terms, &c->nterms, term("__cuda_driver", ">=580.65", NULL));
  resolve(&w);
  cr_assert_eq(w.code, TS_OK, "%s", w.err.detail);
  cr_assert_str_eq(got(&w, "torch"), "2.9.1+cu128");

  /* "==2.9.1" matches the local variants (PEP 440) */
  ts_requirement_free(w.reqs[0]);
  w.nreqs = 0;
  root(&w, "torch==2.9.1");
  resolve(&w);
  cr_assert_eq(w.code, TS_OK, "%s", w.err.detail);
  cr_assert_str_eq(got(&w, "torch"), "2.9.1+cu128");
  world_free(&w);
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

Test(resolver_rules, installed_kept_then_upgraded) {
  struct world w;
  world_init(&w);
  PKG(&w, "a", "1.0");
  PKG(&w, "a", "2.0");
  struct ts_resolver_installed inst = {"A", "1.0", true, NULL, 0};
  w.req.installed = &inst;
  w.req.ninstalled = 1;
  root(&w, "a");
  resolve(&w);
  cr_assert_eq(w.code, TS_OK, "%s", w.err.detail);
  cr_assert_str_eq(got(&w, "a"), "1.0");
  cr_assert_eq(w.res->items[0].action, TS_ACTION_KEEP);
  cr_assert_null(w.res->items[0].file);

  w.req.upgrade = true;
  resolve(&w);
  cr_assert_eq(w.code, TS_OK, "%s", w.err.detail);
  cr_assert_str_eq(got(&w, "a"), "2.0");
  cr_assert_eq(w.res->items[0].action, TS_ACTION_UPGRADE);
  cr_assert_not_null(w.res->items[0].file);

  w.req.upgrade = false;
  w.req.force_reinstall = true;
  ts_requirement_free(w.reqs[0]);
  w.nreqs = 0;
  root(&w, "a==1.0");
  resolve(&w);
  cr_assert_eq(w.code, TS_OK, "%s", w.err.detail);
  cr_assert_eq(w.res->items[0].action, TS_ACTION_REINSTALL);

  w.req.force_reinstall = false;
  ts_requirement_free(w.reqs[0]);
  w.nreqs = 0;
  root(&w, "a<1");
  resolve(&w);
  cr_assert_eq(w.code, TS_E_RESOLVE);
  world_free(&w);
}

Test(resolver_rules, installed_replaced_when_needed) {
  struct world w;
  world_init(&w);
  PKG(&w, "a", "1.0");
  PKG(&w, "a", "2.0");
  PKG(&w, "b", "1.0", "a>=2");
  struct ts_resolver_installed inst = {"a", "1.0", false, NULL, 0};
  w.req.installed = &inst;
  w.req.ninstalled = 1;
  root(&w, "b");
  resolve(&w);
  cr_assert_eq(w.code, TS_OK, "%s", w.err.detail);
  cr_assert_str_eq(got(&w, "a"), "2.0");
  cr_assert_str_eq(got(&w, "b"), "1.0");
  world_free(&w);
}

/* ---- extras, pre-releases, yanks, sdists ---------------------------------- */

Test(resolver_rules, extras_are_solvables) {
  struct world w;
  world_init(&w);
  struct mem_proj *p = mem_project(&w.ix, "a");
  mem_add_file(p, "a-1.0-py3-none-any.whl", NULL, false);
  const char *xn[] = {"x"}, *xr[] = {"b>=2"};
  mem_add_meta(p, "1.0", mem_metadata("a", "1.0", NULL, NULL, 0, xn, xr, 1));
  PKG(&w, "b", "1.0");
  PKG(&w, "b", "2.0");
  root(&w, "a[x]");
  resolve(&w);
  cr_assert_eq(w.code, TS_OK, "%s", w.err.detail);
  cr_assert_str_eq(got(&w, "b"), "2.0");
  cr_assert_eq(w.res->items[0].nextras, 1);
  cr_assert_str_eq(w.res->items[0].extras[0], "x");
  world_free(&w);
}

Test(resolver_rules, prereleases) {
  struct world w;
  world_init(&w);
  PKG(&w, "a", "1.0");
  PKG(&w, "a", "2.0b1");
  PKG(&w, "b", "1.0a1");
  root(&w, "a");
  root(&w, "b");
  resolve(&w);
  cr_assert_eq(w.code, TS_OK, "%s", w.err.detail);
  cr_assert_str_eq(got(&w, "a"), "1.0");
  cr_assert_str_eq(got(&w, "b"), "1.0a1"); /* nothing else fits */
  w.req.pre = true;
  resolve(&w);
  cr_assert_str_eq(got(&w, "a"), "2.0b1");
  w.req.pre = false;
  ts_requirement_free(w.reqs[0]);
  w.reqs[0] = NULL;
  struct ts_error err = {0};
  cr_assert_eq(ts_requirement_parse("a>1.0", 5, &w.reqs[0], &err), TS_OK);
  resolve(&w);
  cr_assert_eq(w.code, TS_OK, "%s", w.err.detail);
  cr_assert_str_eq(got(&w, "a"), "2.0b1");
  world_free(&w);
}

Test(resolver_rules, yanked_only_when_pinned) {
  struct world w;
  world_init(&w);
  struct mem_proj *p = mem_project(&w.ix, "a");
  mem_add_file(p, "a-1.0-py3-none-any.whl", NULL, false);
  mem_add_file(p, "a-2.0-py3-none-any.whl", NULL, true);
  mem_add_meta(p, "1.0", mem_metadata("a", "1.0", NULL, NULL, 0, NULL, NULL, 0));
  mem_add_meta(p, "2.0", mem_metadata("a", "2.0", NULL, NULL, 0, NULL, NULL, 0));
  root(&w, "a");
  resolve(&w);
  cr_assert_str_eq(got(&w, "a"), "1.0");
  ts_requirement_free(w.reqs[0]);
  w.nreqs = 0;
  root(&w, "a==2.0");
  resolve(&w);
  cr_assert_eq(w.code, TS_OK, "%s", w.err.detail);
  cr_assert_str_eq(got(&w, "a"), "2.0");
  ts_requirement_free(w.reqs[0]);
  w.nreqs = 0;
  root(&w, "a>=2");
  resolve(&w);
  dump_why(&w);
  cr_assert_eq(w.code, TS_E_RESOLVE);
  cr_assert(why_has(&w, "a 2.0 would fit but is yanked"));
  world_free(&w);
}

Test(resolver_rules, sdist_only_and_python_hints) {
  struct world w;
  world_init(&w);
  struct mem_proj *p = mem_project(&w.ix, "a");
  mem_add_file(p, "a-1.0.tar.gz", NULL, false);
  mem_add_file(p, "a-2.0-py3-none-any.whl", ">=3.13", false);
  root(&w, "a");
  resolve(&w);
  dump_why(&w);
  cr_assert_eq(w.code, TS_E_RESOLVE);
  cr_assert(why_has(&w, "a 1.0 would fit but has only a source distribution"));
  cr_assert(why_has(&w, "a 2.0 would fit but requires Python >=3.13"));
  ts_requirement_free(w.reqs[0]);
  w.nreqs = 0;
  root(&w, "nosuch");
  resolve(&w);
  cr_assert_eq(w.code, TS_E_RESOLVE);
  cr_assert(why_has(&w, "no index has a project named 'nosuch'"));
  world_free(&w);
}

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

Test(resolver_rules, constraints_limit_without_adding) {
  struct world w;
  world_init(&w);
  PKG(&w, "a", "1.0", "b");
  PKG(&w, "b", "1.0");
  PKG(&w, "b", "2.0");
  PKG(&w, "c", "1.0");
  struct ts_requirement *cons[2] = {NULL, NULL};
  cr_assert_eq(ts_requirement_parse("b<2", 3, &cons[0], NULL), TS_OK);
  cr_assert_eq(ts_requirement_parse("c==1.0", 6, &cons[1], NULL), TS_OK);
  w.req.constraints = (const struct ts_requirement *const *)cons;
  w.req.nconstraints = 2;
  root(&w, "a");
  resolve(&w);
  cr_assert_eq(w.code, TS_OK, "%s", w.err.detail);
  cr_assert_str_eq(got(&w, "b"), "1.0");
  cr_assert_null(got(&w, "c"));
  ts_requirement_free(w.reqs[0]);
  w.nreqs = 0;
  root(&w, "b>=2");
  resolve(&w);
  dump_why(&w);
  cr_assert_eq(w.code, TS_E_RESOLVE);
  cr_assert(why_has(&w, "excluded by the constraint b<2"));
  ts_requirement_free(cons[0]);
  ts_requirement_free(cons[1]);
  world_free(&w);
}

Test(resolver_rules, resolution_lowest) {
  struct world w;
  world_init(&w);
  PKG(&w, "a", "1.0", "b");
  PKG(&w, "a", "2.0", "b");
  PKG(&w, "b", "1.0");
  PKG(&w, "b", "2.0");
  root(&w, "a");
  w.req.resolution = TS_RESOLUTION_LOWEST;
  resolve(&w);
  cr_assert_str_eq(got(&w, "a"), "1.0");
  cr_assert_str_eq(got(&w, "b"), "1.0");
  w.req.resolution = TS_RESOLUTION_LOWEST_DIRECT;
  resolve(&w);
  cr_assert_str_eq(got(&w, "a"), "1.0");
  cr_assert_str_eq(got(&w, "b"), "2.0");
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
