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

#define MAX_ITEMS 64

struct pkgdef {
  char name[128], version[64], rp[64];
  char tags[8][128];
  size_t ntags;
  bool sdist_only, sdist, yanked;
  const char *reqs[MAX_ITEMS];
  size_t nreqs;
  const char *xn[MAX_ITEMS], *xr[MAX_ITEMS];
  size_t nx;
};

struct fixture {
  struct mem_index ix;
  struct ts_constraint_set rules;
  struct ts_resolver_installed inst[MAX_ITEMS];
  char *inst_meta[MAX_ITEMS];
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
  char python[32];
  bool expect_ok;
  long want_meta_requests, want_page_requests, want_solves; /* -1: not checked */
  char *expect[MAX_ITEMS];
  size_t nexpect;
  char *lines[1024]; /* owned copies the structs above point into */
  size_t nlines;
};

/* Splits off the next token at `sep` (runs of it skipped); NULL at the
 * end.  Modifies the string. */
static char *next_tok(char **s, char sep) {
  char *p = *s;
  while (p && *p == sep)
    p++;
  if (!p || !*p) {
    *s = p;
    return NULL;
  }
  char *end = strchr(p, sep);
  if (end) {
    *end = '\0';
    *s = end + 1;
  } else {
    *s = p + strlen(p);
  }
  return p;
}

static char *keep(struct fixture *fx, const char *s) {
  char *d = mem_strdup(s);
  if (fx->nlines < 1024)
    fx->lines[fx->nlines++] = d;
  return d;
}

static void flush_pkg(struct fixture *fx, struct pkgdef *p) {
  if (!p->name[0])
    return;
  struct mem_proj *mp = mem_project(&fx->ix, p->name);
  char *dist = mem_dist_name(p->name);
  char fname[512];
  if (p->sdist_only || p->sdist) {
    snprintf(fname, sizeof fname, "%s-%s.tar.gz", dist, p->version);
    mem_add_file(mp, fname, p->rp[0] ? p->rp : NULL, p->yanked);
  }
  if (!p->sdist_only) {
    if (!p->ntags)
      snprintf(p->tags[p->ntags++], sizeof p->tags[0], "py3-none-any");
    for (size_t i = 0; i < p->ntags; i++) {
      snprintf(fname, sizeof fname, "%s-%s-%s.whl", dist, p->version,
               p->tags[i]);
      mem_add_file(mp, fname, p->rp[0] ? p->rp : NULL, p->yanked);
    }
  }
  free(dist);
  mem_add_meta(mp, p->version,
               mem_metadata(p->name, p->version, p->rp, p->reqs, p->nreqs,
                            p->xn, p->xr, p->nx));
  memset(p, 0, sizeof *p);
}

static struct ts_term parse_term(const char *tok) {
  struct ts_term t = {0};
  const char *plus = strchr(tok, '@');
  size_t len = plus ? (size_t)(plus - tok) : strlen(tok);
  size_t n = strcspn(tok, "<>=!~");
  if (n > len)
    n = len;
  t.name = strndup(tok, n);
  if (n < len)
    cr_assert_eq(ts_specset_parse(tok + n, len - n, &t.spec, NULL), TS_OK,
                 "bad term '%s'", tok);
  if (plus)
    t.local_pattern = strdup(plus + 1);
  return t;
}

/* "@rule requires ID: SUBJECT -> T | T [when F & F] [fix: text]" */
static void parse_rule(struct fixture *fx, char *s) {
  struct ts_constraint_set *r = &fx->rules;
  r->constraints =
      realloc(r->constraints, (r->nconstraints + 1) * sizeof *r->constraints);
  struct ts_constraint *c = &r->constraints[r->nconstraints++];
  memset(c, 0, sizeof *c);
  char *fix = strstr(s, " fix: ");
  if (fix) {
    c->fix = strdup(fix + 6);
    *fix = '\0';
  }
  char *kind = next_tok(&s, ' ');
  c->kind = strcmp(kind, "conflicts") == 0 ? TS_CONSTRAINT_CONFLICTS
                                           : TS_CONSTRAINT_REQUIRES;
  char *id = next_tok(&s, ' ');
  id[strlen(id) - 1] = '\0'; /* trailing ':' */
  c->id = strdup(id);
  c->message = strdup("fixture rule");
  char *tok;
  int part = 0; /* 0 subject, 1 terms, 2 when */
  while ((tok = next_tok(&s, ' '))) {
    if (!strcmp(tok, "->")) {
      part = 1;
    } else if (!strcmp(tok, "when")) {
      part = 2;
    } else if (!strcmp(tok, "|") || !strcmp(tok, "&")) {
      continue;
    } else if (part == 0) {
      c->subject = parse_term(tok);
    } else if (part == 1) {
      c->terms = realloc(c->terms, (c->nterms + 1) * sizeof *c->terms);
      c->terms[c->nterms++] = parse_term(tok);
    } else {
      c->when = realloc(c->when, (c->nwhen + 1) * sizeof *c->when);
      c->when[c->nwhen++] = parse_term(tok);
    }
  }
}

static void parse_args(struct fixture *fx, char *s) {
  char *tok;
  while ((tok = next_tok(&s, ' '))) {
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
    } else if (!strcmp(tok, "--only-binary")) {
      fx->only_binary[fx->nonly_binary++] = keep(fx, next_tok(&s, ' '));
    } else if (!strcmp(tok, "--no-binary")) {
      fx->no_binary[fx->nno_binary++] = keep(fx, next_tok(&s, ' '));
    } else if (!strcmp(tok, "--upgrade-package")) {
      fx->upgrade_pkgs[fx->nupgrade++] = keep(fx, next_tok(&s, ' '));
    } else if (!strcmp(tok, "--resolution")) {
      const char *m = next_tok(&s, ' ');
      fx->req.resolution = !strcmp(m, "lowest") ? TS_RESOLUTION_LOWEST
                           : !strcmp(m, "lowest-direct")
                               ? TS_RESOLUTION_LOWEST_DIRECT
                               : TS_RESOLUTION_HIGHEST;
    } else if (!strcmp(tok, "-c")) {
      tok = next_tok(&s, ' ');
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
  struct ts_buf b;
  ts_buf_init(&b, TS_CAP_SMALL_FILE);
  struct ts_error err = {0};
  cr_assert_eq(ts_fs_read_file(path, &b, &err), TS_OK, "%s", err.detail);
  char *text = ts_buf_take(&b, NULL);
  snprintf(fx->python, sizeof fx->python, "3.12.3");
  fx->req.prefetch = 2;
  fx->want_meta_requests = fx->want_page_requests = fx->want_solves = -1;
  struct pkgdef pd;
  memset(&pd, 0, sizeof pd);
  char *rest = text;
  bool in_expect = false;
  for (char *line = next_tok(&rest, '\n'); line;
       line = next_tok(&rest, '\n')) {
    while (*line == ' ')
      line++;
    if (!*line || *line == '#')
      continue;
    char *l = keep(fx, line);
    if (in_expect) {
      fx->expect[fx->nexpect++] = l;
      continue;
    }
    if (!strncmp(l, "@package ", 9)) {
      flush_pkg(fx, &pd);
      sscanf(l + 9, "%127s %63s", pd.name, pd.version);
    } else if (!strncmp(l, "requires-python ", 16)) {
      snprintf(pd.rp, sizeof pd.rp, "%s", l + 16);
    } else if (!strncmp(l, "requires ", 9)) {
      pd.reqs[pd.nreqs++] = l + 9;
    } else if (!strncmp(l, "extra ", 6)) {
      char *colon = strchr(l, ':');
      *colon = '\0';
      pd.xn[pd.nx] = l + 6;
      pd.xr[pd.nx++] = colon + 2;
    } else if (!strncmp(l, "tag ", 4)) {
      snprintf(pd.tags[pd.ntags++], sizeof pd.tags[0], "%s", l + 4);
    } else if (!strcmp(l, "sdist-only")) {
      pd.sdist_only = true;
    } else if (!strcmp(l, "sdist")) {
      pd.sdist = true;
    } else if (!strcmp(l, "yanked")) {
      pd.yanked = true;
    } else if (!strncmp(l, "@installed ", 11)) {
      char *cur = l + 11;
      char *name = next_tok(&cur, ' ');
      char *ver = next_tok(&cur, ' ');
      struct ts_resolver_installed *in = &fx->inst[fx->ninst];
      in->name = name;
      in->version = ver;
      fx->ninst++;
    } else if (!strncmp(l, "@fact ", 6)) {
      char *cur = l + 6;
      char *name = next_tok(&cur, ' ');
      char *ver = next_tok(&cur, ' ');
      struct ts_constraint_set *r = &fx->rules;
      r->facts = realloc(r->facts, (r->nfacts + 1) * sizeof *r->facts);
      r->facts[r->nfacts].name = strdup(name);
      r->facts[r->nfacts].version = ver ? strdup(ver) : NULL;
      r->facts[r->nfacts].source = strdup("fixture");
      r->nfacts++;
    } else if (!strncmp(l, "@rule ", 6)) {
      parse_rule(fx, l + 6);
    } else if (!strncmp(l, "@variant ", 9)) {
      struct ts_resolver_variant_pref *v = &fx->vp[fx->nvp];
      char *cur = l + 9;
      v->name = next_tok(&cur, ' ');
      char *tok;
      bool fallback = false;
      while ((tok = next_tok(&cur, ' '))) {
        if (!strcmp(tok, "|")) { /* the patterns after it: fallback tier */
          fallback = true;
          continue;
        }
        fx->vpat[fx->nvp][v->npatterns++] = strcmp(tok, "-") ? tok : "";
        v->nfallback += fallback;
      }
      v->patterns = fx->vpat[fx->nvp];
      fx->nvp++;
    } else if (!strncmp(l, "@priority ", 10)) {
      char *cur = l + 10, *tok;
      while ((tok = next_tok(&cur, ' ')))
        fx->priority[fx->npriority++] = tok;
    } else if (!strncmp(l, "@link ", 6)) {
      char *cur = l + 6;
      char *project = next_tok(&cur, ' ');
      mem_add_file(mem_project(&fx->ix, project), next_tok(&cur, ' '), NULL, false);
    } else if (!strncmp(l, "@page ", 6)) {
      mem_project(&fx->ix, l + 6);
    } else if (!strncmp(l, "@prefetch ", 10)) {
      fx->req.prefetch = (size_t)atoi(l + 10);
    } else if (!strncmp(l, "@requests metadata ", 19)) {
      fx->want_meta_requests = atol(l + 19);
    } else if (!strncmp(l, "@requests pages ", 16)) {
      fx->want_page_requests = atol(l + 16);
    } else if (!strncmp(l, "@solves ", 8)) {
      fx->want_solves = atol(l + 8);
    } else if (!strncmp(l, "@python ", 8)) {
      snprintf(fx->python, sizeof fx->python, "%s", l + 8);
    } else if (!strncmp(l, "@args ", 6)) {
      parse_args(fx, l + 6);
    } else if (!strncmp(l, "@expect ", 8)) {
      fx->expect_ok = strcmp(l + 8, "ok") == 0;
      in_expect = true;
    } else {
      cr_assert_fail("%s: unknown line '%s'", path, l);
    }
  }
  flush_pkg(fx, &pd);
  free(text);
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
  for (size_t i = 0; i < fx->nlines; i++)
    free(fx->lines[i]);
}

/* The first expected substring (~ TEXT) the explanation lacks, into buf. */
static void explanation_lacks(const struct fixture *fx, const struct ts_resolution *res,
                              char *buf, size_t cap) {
  for (size_t i = 0; i < fx->nexpect && !buf[0]; i++) {
    const char *needle = fx->expect[i] + (fx->expect[i][0] == '~' ? 2 : 0);
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
  cr_assert(mem_target_init(&tg, fx->python, 2, 36, "x86_64"));
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
  } else if (fx->expect_ok != (c == TS_OK)) {
    snprintf(buf, sizeof buf, "expected %s, got %s%s%s",
             fx->expect_ok ? "a resolution" : "a failure",
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
    for (size_t i = 0; i < fx->nexpect; i++)
      len += (size_t)snprintf(want + len, sizeof want - len, "%s%s",
                              i ? ", " : "", fx->expect[i]);
    if (strcmp(got, want) != 0)
      snprintf(buf, sizeof buf, "expected [%s], got [%s]", want, got);
  } else {
    explanation_lacks(fx, res, buf, sizeof buf);
  }
  /* what the resolution took, where the fixture says */
  if (!buf[0] && fx->want_meta_requests >= 0 &&
      fx->ix.meta_requests != (size_t)fx->want_meta_requests)
    snprintf(buf, sizeof buf, "expected %ld METADATA requests, got %zu",
             fx->want_meta_requests, fx->ix.meta_requests);
  if (!buf[0] && fx->want_page_requests >= 0 &&
      fx->ix.page_requests != (size_t)fx->want_page_requests)
    snprintf(buf, sizeof buf, "expected %ld page requests, got %zu",
             fx->want_page_requests, fx->ix.page_requests);
  if (!buf[0] && fx->want_solves >= 0 && res && res->solves != (size_t)fx->want_solves)
    snprintf(buf, sizeof buf, "expected %ld solves, got %zu", fx->want_solves, res->solves);
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
