/*
 * Replays the text resolver fixtures in fixtures/resolver/ (*.test files) through
 * the public resolver API (after apk-tools' test/solver):
 * one file = an index, host facts, rules, installed distributions, the
 * arguments and the expected outcome.  Format: fixtures/resolver/README.md.
 */
#include <criterion/criterion.h>
#include <dirent.h>
#include <errno.h>

#include "core/buf.h"
#include "core/fs.h"
#include "tests/conformance/resolver_mem.h"
#include "tests/support/resolver_fixture.h"

#define MAX_ITEMS 64

struct fixture {
  struct rfx_fixture text; /* the parse the fields below point into */
  struct mem_index ix;
  struct ts_constraint_set rules;
  struct ts_resolver_installed inst[MAX_ITEMS];
  size_t ninst;
  struct ts_requirement *roots[MAX_ITEMS], *cons[MAX_ITEMS];
  size_t nroots, ncons;
  struct ts_resolver_variant_pref vp[8];
  const char *vpat[8][8];
  size_t nvp;
  const char *upgrade_pkgs[MAX_ITEMS];
  size_t nupgrade;
  const char *only_binary[MAX_ITEMS], *no_binary[MAX_ITEMS];
  size_t nonly_binary, nno_binary;
  const char *priority[MAX_ITEMS];
  size_t npriority;
  struct ts_resolver_request req;
};

/* A @package: its files on the in-memory index and its METADATA. */
static void add_package(struct fixture *fx, const struct rfx_package *p) {
  struct mem_proj *mp = mem_project(&fx->ix, p->name);
  char *dist = mem_dist_name(p->name);
  char fname[512];
  if (p->sdist_only || p->sdist) {
    snprintf(fname, sizeof fname, "%s-%s.tar.gz", dist, p->version);
    mem_add_file(mp, fname, p->requires_python, p->yanked);
  }
  if (!p->sdist_only) {
    for (size_t i = 0; i < (p->ntags ? p->ntags : 1); i++) {
      snprintf(fname, sizeof fname, "%s-%s-%s.whl", dist, p->version,
               p->ntags ? p->tags[i] : "py3-none-any");
      mem_add_file(mp, fname, p->requires_python, p->yanked);
    }
  }
  free(dist);
  /* the extras' Provides-Extra lines (their requirements are in
   * requires_dist already) */
  const char *none[MAX_ITEMS] = {0};
  cr_assert_lt(p->nprovides_extra, MAX_ITEMS);
  mem_add_meta(mp, p->version,
               mem_metadata(p->name, p->version, p->requires_python,
                            (const char *const *)p->requires_dist, p->nrequires_dist,
                            (const char *const *)p->provides_extra, none,
                            p->nprovides_extra));
}

static struct ts_term make_term(const struct rfx_term *t) {
  struct ts_term out = {0};
  out.name = strdup(t->name);
  if (t->spec[0])
    cr_assert_eq(ts_specset_parse(t->spec, strlen(t->spec), &out.spec, NULL), TS_OK,
                 "bad term '%s%s'", t->name, t->spec);
  if (t->local)
    out.local_pattern = strdup(t->local);
  return out;
}

static void add_rule(struct fixture *fx, const struct rfx_rule *r) {
  struct ts_constraint_set *set = &fx->rules;
  set->constraints =
      realloc(set->constraints, (set->nconstraints + 1) * sizeof *set->constraints);
  struct ts_constraint *c = &set->constraints[set->nconstraints++];
  memset(c, 0, sizeof *c);
  c->kind = r->conflicts ? TS_CONSTRAINT_CONFLICTS : TS_CONSTRAINT_REQUIRES;
  c->id = strdup(r->id);
  c->message = strdup("fixture rule");
  if (r->fix)
    c->fix = strdup(r->fix);
  c->subject = make_term(&r->subject);
  c->terms = calloc(r->nterms + 1, sizeof *c->terms);
  for (size_t i = 0; i < r->nterms; i++)
    c->terms[c->nterms++] = make_term(&r->terms[i]);
  c->when = calloc(r->nwhen + 1, sizeof *c->when);
  for (size_t i = 0; i < r->nwhen; i++)
    c->when[c->nwhen++] = make_term(&r->when[i]);
}

/* The @args words as a request: options, -c constraints, requirements. */
static void read_args(struct fixture *fx) {
  char **args = fx->text.args;
  size_t n = fx->text.nargs;
  for (size_t i = 0; i < n; i++) {
    const char *tok = args[i], *value = i + 1 < n ? args[i + 1] : NULL;
    struct ts_requirement **slot = NULL;
    if (!strcmp(tok, "--pre")) {
      fx->req.pre = true;
    } else if (!strcmp(tok, "--upgrade") || !strcmp(tok, "-U")) {
      fx->req.upgrade = true;
    } else if (!strcmp(tok, "--force-reinstall")) {
      fx->req.force_reinstall = true;
    } else if (!strcmp(tok, "--no-deps")) {
      fx->req.no_deps = true;
    } else if (!strcmp(tok, "--ignore-host")) {
      fx->req.ignore_host = true;
    } else if (!strcmp(tok, "--build")) {
      fx->req.sdists = true;
    } else if (!strcmp(tok, "--prefer-binary")) {
      fx->req.prefer_binary = true;
    } else if (!strcmp(tok, "--only-binary") && value) {
      fx->only_binary[fx->nonly_binary++] = args[++i];
    } else if (!strcmp(tok, "--no-binary") && value) {
      fx->no_binary[fx->nno_binary++] = args[++i];
    } else if (!strcmp(tok, "--upgrade-package") && value) {
      fx->upgrade_pkgs[fx->nupgrade++] = args[++i];
    } else if (!strcmp(tok, "--resolution") && value) {
      const char *m = args[++i];
      fx->req.resolution = !strcmp(m, "lowest") ? TS_RESOLUTION_LOWEST
                           : !strcmp(m, "lowest-direct")
                               ? TS_RESOLUTION_LOWEST_DIRECT
                               : TS_RESOLUTION_HIGHEST;
    } else if (!strcmp(tok, "-c") && value) {
      tok = args[++i];
      slot = &fx->cons[fx->ncons++];
    } else {
      slot = &fx->roots[fx->nroots++];
    }
    if (slot)
      cr_assert_eq(ts_requirement_parse(tok, strlen(tok), slot, NULL), TS_OK,
                   "bad requirement '%s'", tok);
  }
}

static void load(struct fixture *fx, const char *path) {
  char why[1200];
  cr_assert(rfx_load(path, &fx->text, why, sizeof why), "%s", why);
  const struct rfx_fixture *t = &fx->text;
  fx->req.prefetch = (size_t)t->prefetch;
  for (size_t i = 0; i < t->npackages; i++)
    add_package(fx, &t->packages[i]);
  for (size_t i = 0; i < t->nlinks; i++)
    mem_add_file(mem_project(&fx->ix, t->links[i].first), t->links[i].second, NULL, false);
  for (size_t i = 0; i < t->npages; i++)
    mem_project(&fx->ix, t->pages[i]);
  cr_assert_lt(t->ninstalled, MAX_ITEMS);
  for (size_t i = 0; i < t->ninstalled; i++) {
    fx->inst[fx->ninst].name = t->installed[i].first;
    fx->inst[fx->ninst++].version = t->installed[i].second;
  }
  struct ts_constraint_set *r = &fx->rules;
  r->facts = calloc(t->nfacts + 1, sizeof *r->facts);
  for (size_t i = 0; i < t->nfacts; i++) {
    r->facts[r->nfacts].name = strdup(t->facts[i].first);
    r->facts[r->nfacts].version = t->facts[i].second ? strdup(t->facts[i].second) : NULL;
    r->facts[r->nfacts++].source = strdup("fixture");
  }
  for (size_t i = 0; i < t->nrules; i++)
    add_rule(fx, &t->rules[i]);
  cr_assert_leq(t->nvariants, 8);
  for (size_t i = 0; i < t->nvariants; i++) {
    struct ts_resolver_variant_pref *v = &fx->vp[fx->nvp];
    cr_assert_leq(t->variants[i].npatterns, 8);
    v->name = t->variants[i].name;
    for (size_t k = 0; k < t->variants[i].npatterns; k++)
      fx->vpat[fx->nvp][k] = t->variants[i].patterns[k];
    v->npatterns = t->variants[i].npatterns;
    v->nfallback = t->variants[i].nfallback;
    v->patterns = fx->vpat[fx->nvp++];
  }
  for (size_t i = 0; i < t->npriority && i < MAX_ITEMS; i++)
    fx->priority[fx->npriority++] = t->priority[i];
  read_args(fx);
  /* installed distributions read their METADATA from the index */
  for (size_t i = 0; i < fx->ninst; i++) {
    struct mem_proj *p = mem_find(&fx->ix, fx->inst[i].name);
    for (size_t k = 0; p && k < p->nmetas; k++)
      if (!strcmp(p->metas[k].version, fx->inst[i].version)) {
        fx->inst[i].metadata = p->metas[k].text;
        fx->inst[i].metadata_len = strlen(p->metas[k].text);
      }
  }
}

static void fixture_free(struct fixture *fx) {
  for (size_t i = 0; i < fx->nroots; i++)
    ts_requirement_free(fx->roots[i]);
  for (size_t i = 0; i < fx->ncons; i++)
    ts_requirement_free(fx->cons[i]);
  ts_constraint_set_clear(&fx->rules);
  mem_free(&fx->ix);
  rfx_free(&fx->text);
}

/* The first expected substring (~ TEXT) the explanation lacks, into buf. */
static void explanation_lacks(const struct fixture *fx, const struct ts_resolution *res,
                              char *buf, size_t cap) {
  for (size_t i = 0; i < fx->text.nexpect && !buf[0]; i++) {
    const char *needle = fx->text.expect[i];
    bool found = false;
    for (size_t k = 0; k < res->why.nlines; k++)
      found |= strstr(res->why.lines[k], needle) != NULL;
    if (!found) {
      size_t len = (size_t)snprintf(buf, cap, "explanation lacks '%s':", needle);
      for (size_t k = 0; k < res->why.nlines && len < cap - 200; k++)
        len += (size_t)snprintf(buf + len, cap - len, "\n  | %s", res->why.lines[k]);
    }
  }
}

/* Returns NULL on success, else a malloc'd reason. */
static char *run_fixture(const char *path, const char *debug_dir) {
  struct fixture *fx = calloc(1, sizeof *fx);
  load(fx, path);
  struct mem_target tg;
  cr_assert(mem_target_init(&tg, fx->text.python, 2, 36, "x86_64"));
  fx->req.requirements = (const struct ts_requirement *const *)fx->roots;
  fx->req.nrequirements = fx->nroots;
  fx->req.constraints = (const struct ts_requirement *const *)fx->cons;
  fx->req.nconstraints = fx->ncons;
  fx->req.installed = fx->inst;
  fx->req.ninstalled = fx->ninst;
  fx->req.variants = fx->vp;
  fx->req.nvariants = fx->nvp;
  fx->req.priority = fx->priority;
  fx->req.npriority = fx->npriority;
  fx->req.upgrade_packages = fx->upgrade_pkgs;
  fx->req.nupgrade_packages = fx->nupgrade;
  fx->req.only_binary = fx->only_binary;
  fx->req.nonly_binary = fx->nonly_binary;
  fx->req.no_binary = fx->no_binary;
  fx->req.nno_binary = fx->nno_binary;
  fx->req.debug_solver_dir = debug_dir;
  if (fx->rules.nfacts || fx->rules.nconstraints)
    fx->req.rules = &fx->rules;
  struct ts_resolver_provider prov = {.ctx = &fx->ix, .get_pages = mem_get_pages,
                                      .get_metadata = mem_get_metadata};
  struct ts_resolution *res = NULL;
  struct ts_error err = {0};
  enum ts_code c = ts_resolver_resolve(&fx->req, &tg.target, &prov, &res,
                                       &err);
  char buf[9000] = "";
  if (c != TS_OK && c != TS_E_RESOLVE) {
    snprintf(buf, sizeof buf, "error: %s", err.detail);
  } else if (fx->text.expect_ok != (c == TS_OK)) {
    snprintf(buf, sizeof buf, "expected %s, got %s%s%s",
             fx->text.expect_ok ? "a resolution" : "a failure",
             c == TS_OK ? "a resolution" : "a failure: ",
             c == TS_OK ? "" : (res->why.nlines ? res->why.lines[0] : ""),
             "");
  } else if (c == TS_OK) {
    /* the exact set: "name version action" */
    size_t len = 0;
    char got[4096] = "";
    for (size_t i = 0; i < res->nitems; i++)
      len += (size_t)snprintf(got + len, sizeof got - len, "%s%s %s %s",
                              i ? ", " : "", res->items[i].name,
                              res->items[i].version,
                              ts_resolved_action_name(res->items[i].action));
    char want[4096] = "";
    len = 0;
    for (size_t i = 0; i < fx->text.nexpect; i++)
      len += (size_t)snprintf(want + len, sizeof want - len, "%s%s",
                              i ? ", " : "", fx->text.expect[i]);
    if (strcmp(got, want) != 0)
      snprintf(buf, sizeof buf, "expected [%s], got [%s]", want, got);
  } else {
    explanation_lacks(fx, res, buf, sizeof buf);
  }
  /* what the resolution took, where the fixture says */
  if (!buf[0] && fx->text.requests_metadata >= 0 &&
      fx->ix.meta_requests != (size_t)fx->text.requests_metadata)
    snprintf(buf, sizeof buf, "expected %ld METADATA requests, got %zu",
             fx->text.requests_metadata, fx->ix.meta_requests);
  if (!buf[0] && fx->text.requests_pages >= 0 &&
      fx->ix.page_requests != (size_t)fx->text.requests_pages)
    snprintf(buf, sizeof buf, "expected %ld page requests, got %zu",
             fx->text.requests_pages, fx->ix.page_requests);
  if (!buf[0] && fx->text.solves >= 0 && res && res->solves != (size_t)fx->text.solves)
    snprintf(buf, sizeof buf, "expected %ld solves, got %zu", fx->text.solves, res->solves);
  ts_resolution_free(res);
  mem_target_free(&tg);
  fixture_free(fx);
  free(fx);
  return buf[0] ? mem_strdup(buf) : NULL;
}

static int name_cmp(const void *a, const void *b) {
  return strcmp(*(char *const *)a, *(char *const *)b);
}

Test(resolver_fixtures, all) {
  const char *dir = TS_FIXTURES_DIR "/resolver";
  DIR *d = opendir(dir);
  cr_assert_not_null(d, "%s: %s", dir, strerror(errno));
  char *names[256];
  size_t n = 0;
  struct dirent *e;
  while ((e = readdir(d)) && n < 256) {
    size_t l = strlen(e->d_name);
    if (l > 5 && !strcmp(e->d_name + l - 5, ".test"))
      names[n++] = mem_strdup(e->d_name);
  }
  closedir(d);
  qsort(names, n, sizeof *names, name_cmp);
  cr_assert_gt(n, 0);
  int failed = 0;
  for (size_t i = 0; i < n; i++) {
    char path[1024];
    snprintf(path, sizeof path, "%s/%s", dir, names[i]);
    char *why = run_fixture(path, NULL);
    if (why) {
      cr_log_error("%s: %s", names[i], why);
      failed++;
      free(why);
    }
    free(names[i]);
  }
  cr_assert_eq(failed, 0, "%d fixture(s) failed", failed);
}

/* --debug-solver: the failing problem is written as a libsolv testcase */
Test(resolver_fixtures, debug_solver_writes_testcase) {
  char tmpl[] = "/tmp/ts-resolver-debug-XXXXXX";
  cr_assert_not_null(mkdtemp(tmpl));
  char dir[1100];
  snprintf(dir, sizeof dir, "%s/case", tmpl);
  char *why = run_fixture(TS_FIXTURES_DIR "/resolver/seed004-forced.test",
                          dir);
  cr_assert_null(why, "%s", why);
  char path[1200];
  snprintf(path, sizeof path, "%s/testcase.t", dir);
  struct ts_buf b;
  ts_buf_init(&b, TS_CAP_SMALL_FILE);
  cr_assert_eq(ts_fs_read_file(path, &b, NULL), TS_OK, "no %s", path);
  char *text = ts_buf_take(&b, NULL);
  cr_assert(strstr(text, "job install provides torch") != NULL);
  cr_assert(strstr(text, "job install pkg __rocm") != NULL);
  free(text);
  snprintf(path, sizeof path, "%s/solver.result", dir);
  ts_buf_init(&b, TS_CAP_SMALL_FILE);
  cr_assert_eq(ts_fs_read_file(path, &b, NULL), TS_OK, "no %s", path);
  text = ts_buf_take(&b, NULL);
  cr_assert(strstr(text, "requires __rocm") != NULL);
  free(text);
  struct ts_error err = {0};
  ts_fs_remove_tree(tmpl, &err);
}
