/*
 * conf_pep_pep440.c — runs every vector of packaging/pep440_versions.json and
 * packaging/pep440_specifiers.json (extracted from pypa/packaging 26.3)
 * through pep/version.h and pep/specifier.h.
 *
 * Usage: conf_pep_pep440 SHARED_CONFORMANCE_DIR.  Prints "N passed, N failed"
 * per file; exits 77 when the directory is absent, 1 on any unexpected
 * failure.  Known, argued exceptions are listed in `exceptions` below.
 */
#include <cjson/cJSON.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "conf_support.h"
#include "pep/specifier.h"
#include "pep/version.h"

/* Cases we deliberately do not follow, with the reason.  Matched on
 * section + input text. */
static const struct conf_exception exceptions[] = {
    {NULL, NULL, NULL},
};

static struct ts_version *pv(const char *s) {
  struct ts_version *v = NULL;
  struct ts_error err = {0};
  if (ts_version_parse(s, strlen(s), &v, &err) != TS_OK)
    return NULL;
  return v;
}

/* ---------------------------------------------------------------- versions */

static void run_versions(cJSON *root, struct tally *t) {
  cJSON *sorted = cJSON_GetObjectItem(root, "versions_sorted");
  int n = cJSON_GetArraySize(sorted);
  struct ts_version **vs = calloc((size_t)n, sizeof *vs);
  for (int i = 0; i < n; i++) {
    const char *s = cJSON_GetArrayItem(sorted, i)->valuestring;
    vs[i] = pv(s);
    check(t, vs[i] != NULL, "versions_sorted", s, "does not parse");
  }
  for (int i = 0; i < n; i++)
    for (int j = i + 1; j < n; j++) {
      if (!vs[i] || !vs[j])
        continue;
      int c1 = ts_version_cmp(vs[i], vs[j]), c2 = ts_version_cmp(vs[j], vs[i]);
      check(t, c1 < 0 && c2 > 0, "versions_sorted",
            cJSON_GetArrayItem(sorted, i)->valuestring,
            "not < '%s' (cmp %d/%d)", cJSON_GetArrayItem(sorted, j)->valuestring,
            c1, c2);
    }
  for (int i = 0; i < n; i++)
    ts_version_free(vs[i]);
  free(vs);

  cJSON *it;
  cJSON_ArrayForEach(it, cJSON_GetObjectItem(root, "invalid_versions")) {
    struct ts_version *v = pv(it->valuestring);
    check(t, v == NULL, "invalid_versions", it->valuestring, "parsed as '%s'",
          v ? ts_version_str(v) : "");
    ts_version_free(v);
  }
  cJSON_ArrayForEach(it, cJSON_GetObjectItem(root, "normalized")) {
    const char *in = cJSON_GetObjectItem(it, "input")->valuestring;
    const char *want = cJSON_GetObjectItem(it, "normalized")->valuestring;
    struct ts_version *v = pv(in);
    check(t, v && !strcmp(ts_version_str(v), want), "normalized", in,
          "got '%s', want '%s'", v ? ts_version_str(v) : "(invalid)", want);
    ts_version_free(v);
  }
  cJSON_ArrayForEach(it, cJSON_GetObjectItem(root, "equal_pairs")) {
    const char *a = cJSON_GetArrayItem(it, 0)->valuestring;
    const char *b = cJSON_GetArrayItem(it, 1)->valuestring;
    struct ts_version *va = pv(a), *vb = pv(b);
    check(t, va && vb && ts_version_cmp(va, vb) == 0, "equal_pairs", a,
          "not equal to '%s'", b);
    ts_version_free(va);
    ts_version_free(vb);
  }

  cJSON *props = cJSON_GetObjectItem(root, "properties");
  cJSON *list;
  cJSON_ArrayForEach(list, props) {
    const char *prop = list->string;
    cJSON_ArrayForEach(it, list) {
      const char *in = cJSON_GetObjectItem(it, "version")->valuestring;
      cJSON *want = cJSON_GetObjectItem(it, "expected");
      struct ts_version *v = pv(in);
      if (!v) {
        check(t, false, prop, in, "does not parse");
        continue;
      }
      bool ok = false;
      char got[256] = "";
      if (!strcmp(prop, "public") || !strcmp(prop, "base_version") ||
          !strcmp(prop, "local")) {
        const char *g = !strcmp(prop, "public")  ? ts_version_public(v)
                        : !strcmp(prop, "local") ? ts_version_local(v)
                                                 : ts_version_base(v);
        snprintf(got, sizeof got, "%s", g ? g : "null");
        ok = cJSON_IsNull(want) ? g == NULL
                                : (g && !strcmp(g, want->valuestring));
      } else if (!strcmp(prop, "epoch")) {
        snprintf(got, sizeof got, "%llu", ts_version_epoch(v));
        ok = (double)ts_version_epoch(v) == want->valuedouble;
      } else if (!strcmp(prop, "release")) {
        ok = (int)ts_version_release_count(v) == cJSON_GetArraySize(want);
        for (size_t i = 0; ok && i < ts_version_release_count(v); i++)
          ok = (double)ts_version_release_at(v, i) ==
               cJSON_GetArrayItem(want, (int)i)->valuedouble;
        snprintf(got, sizeof got, "%zu parts", ts_version_release_count(v));
      } else if (!strcmp(prop, "pre")) {
        char kind;
        unsigned long long num;
        bool has = ts_version_pre(v, &kind, &num);
        if (cJSON_IsNull(want)) {
          ok = !has;
        } else {
          const char *wk = cJSON_GetArrayItem(want, 0)->valuestring;
          ok = has && kind == wk[0] &&
               (double)num == cJSON_GetArrayItem(want, 1)->valuedouble;
        }
        snprintf(got, sizeof got, "%c%llu", has ? kind : '-', has ? num : 0);
      } else if (!strcmp(prop, "dev") || !strcmp(prop, "post")) {
        unsigned long long num;
        bool has = !strcmp(prop, "dev") ? ts_version_dev(v, &num)
                                        : ts_version_post(v, &num);
        ok = cJSON_IsNull(want) ? !has
                                : (has && (double)num == want->valuedouble);
        snprintf(got, sizeof got, "%s%llu", has ? "" : "none ", num);
      } else if (!strncmp(prop, "is_", 3)) {
        bool g = !strcmp(prop, "is_prerelease")   ? ts_version_is_prerelease(v)
                 : !strcmp(prop, "is_devrelease") ? ts_version_is_devrelease(v)
                                                  : ts_version_is_postrelease(v);
        ok = g == cJSON_IsTrue(want);
        snprintf(got, sizeof got, "%s", g ? "true" : "false");
      } else {
        snprintf(got, sizeof got, "unknown property");
      }
      check(t, ok, prop, in, "got %s", got);
      ts_version_free(v);
    }
  }

  cJSON_ArrayForEach(it, cJSON_GetObjectItem(root, "canonicalize_version")) {
    const char *in = cJSON_GetObjectItem(it, "input")->valuestring;
    const char *want = cJSON_GetObjectItem(it, "expected")->valuestring;
    bool strip = cJSON_IsTrue(cJSON_GetObjectItem(it, "strip_trailing_zero"));
    char *got = ts_version_canonicalize(in, strlen(in), strip);
    check(t, got && !strcmp(got, want), "canonicalize_version", in,
          "got '%s', want '%s'", got ? got : "(null)", want);
    free(got);
  }
}

/* -------------------------------------------------------------- specifiers */

static struct ts_specset *ps(const char *s) {
  struct ts_specset *set = NULL;
  struct ts_error err = {0};
  if (ts_specset_parse(s, strlen(s), &set, &err) != TS_OK)
    return NULL;
  return set;
}

static enum ts_prereleases pre_of(cJSON *j) {
  if (!j || cJSON_IsNull(j))
    return TS_PRE_DEFAULT;
  return cJSON_IsTrue(j) ? TS_PRE_INCLUDE : TS_PRE_EXCLUDE;
}

/* A test item: parsed (text = its normalized form) or a raw string. */
struct item {
  struct ts_version *v;
  struct ts_spec_item it;
};

static void item_make(struct item *x, const char *s, bool is_parsed) {
  x->v = pv(s);
  x->it.version = x->v;
  if (is_parsed && x->v) {
    x->it.text = NULL;
    x->it.len = 0;
  } else {
    x->it.text = s;
    x->it.len = strlen(s);
  }
}

/* Membership of every sample version, for the set relations. */
static bool *sample_membership(struct ts_specset *set, struct item *items,
                               size_t n) {
  bool *in = calloc(n ? n : 1, sizeof *in);
  for (size_t i = 0; i < n; i++)
    in[i] = ts_specset_contains_ex(set, items[i].v, items[i].it.text,
                                   items[i].it.len, TS_PRE_INCLUDE, false);
  return in;
}

static void run_specifiers(cJSON *root, struct tally *t) {
  cJSON *it;
  cJSON_ArrayForEach(it, cJSON_GetObjectItem(root, "valid_specifiers")) {
    struct ts_specset *set = ps(it->valuestring);
    check(t, set && ts_specset_count(set) == 1, "valid_specifiers",
          it->valuestring, "rejected");
    ts_specset_free(set);
  }
  cJSON_ArrayForEach(it, cJSON_GetObjectItem(root, "invalid_specifiers")) {
    struct ts_specset *set = ps(it->valuestring);
    check(t, set == NULL, "invalid_specifiers", it->valuestring, "accepted");
    ts_specset_free(set);
  }
  cJSON_ArrayForEach(it, cJSON_GetObjectItem(root, "str_normalization")) {
    const char *in = cJSON_GetObjectItem(it, "input")->valuestring;
    const char *want = cJSON_GetObjectItem(it, "expected")->valuestring;
    struct ts_specset *set = ps(in);
    check(t, set && !strcmp(ts_specset_str(set), want), "str_normalization",
          in, "got '%s', want '%s'", set ? ts_specset_str(set) : "(invalid)",
          want);
    ts_specset_free(set);
  }
  cJSON_ArrayForEach(it, cJSON_GetObjectItem(root, "contains")) {
    const char *spec = cJSON_GetObjectItem(it, "spec")->valuestring;
    const char *ver = cJSON_GetObjectItem(it, "version")->valuestring;
    bool parsed = cJSON_IsTrue(cJSON_GetObjectItem(it, "version_is_parsed"));
    enum ts_prereleases sp = pre_of(cJSON_GetObjectItem(it, "spec_prereleases"));
    enum ts_prereleases pre = pre_of(cJSON_GetObjectItem(it, "prereleases"));
    bool installed = cJSON_IsTrue(cJSON_GetObjectItem(it, "installed"));
    bool want = cJSON_IsTrue(cJSON_GetObjectItem(it, "expected"));
    struct ts_specset *set = ps(spec);
    if (!set) {
      check(t, false, "contains", spec, "does not parse");
      continue;
    }
    ts_specset_set_prereleases(set, sp);
    struct item x;
    item_make(&x, ver, parsed);
    bool got = ts_specset_contains_ex(set, x.v, x.it.text, x.it.len, pre,
                                      installed);
    /* The plain API must agree whenever it applies. */
    bool plain_ok = true;
    if (x.v && !installed && (parsed || !strstr(spec, "===")))
      plain_ok = ts_specset_contains(set, x.v, pre) == got;
    check(t, got == want && plain_ok, "contains", spec,
          "version '%s' (pre %d/%d installed %d): got %d%s", ver, sp, pre,
          installed, got, plain_ok ? "" : ", plain API disagrees");
    ts_version_free(x.v);
    ts_specset_free(set);
  }
  cJSON_ArrayForEach(it, cJSON_GetObjectItem(root, "filter")) {
    const char *spec = cJSON_GetObjectItem(it, "spec")->valuestring;
    cJSON *input = cJSON_GetObjectItem(it, "input");
    cJSON *isp = cJSON_GetObjectItem(it, "input_is_parsed");
    cJSON *want = cJSON_GetObjectItem(it, "expected");
    struct ts_specset *set = ps(spec);
    if (!set) {
      check(t, false, "filter", spec, "does not parse");
      continue;
    }
    ts_specset_set_prereleases(set,
                               pre_of(cJSON_GetObjectItem(it, "spec_prereleases")));
    size_t n = (size_t)cJSON_GetArraySize(input);
    struct item *xs = calloc(n + 1, sizeof *xs);
    struct ts_spec_item *its = calloc(n + 1, sizeof *its);
    size_t *keep = calloc(n + 1, sizeof *keep);
    for (size_t i = 0; i < n; i++) {
      item_make(&xs[i], cJSON_GetArrayItem(input, (int)i)->valuestring,
                cJSON_IsTrue(cJSON_GetArrayItem(isp, (int)i)));
      its[i] = xs[i].it;
    }
    size_t k = ts_specset_filter_items(
        set, its, n, pre_of(cJSON_GetObjectItem(it, "prereleases")), keep);
    bool ok = (int)k == cJSON_GetArraySize(want);
    for (size_t j = 0; ok && j < k; j++)
      ok = !strcmp(cJSON_GetArrayItem(input, (int)keep[j])->valuestring,
                   cJSON_GetArrayItem(want, (int)j)->valuestring);
    char got[512] = "";
    size_t o = 0;
    for (size_t j = 0; j < k && o < sizeof got - 64; j++)
      o += (size_t)snprintf(got + o, sizeof got - o, "%s ",
                            cJSON_GetArrayItem(input, (int)keep[j])->valuestring);
    check(t, ok, "filter", spec, "kept [%s] (%zu items)", got, k);
    for (size_t i = 0; i < n; i++)
      ts_version_free(xs[i].v);
    free(xs);
    free(its);
    free(keep);
    ts_specset_free(set);
  }
  cJSON_ArrayForEach(it, cJSON_GetObjectItem(root, "prereleases_autodetect")) {
    const char *spec = cJSON_GetObjectItem(it, "spec")->valuestring;
    bool want = cJSON_IsTrue(cJSON_GetObjectItem(it, "expected"));
    struct ts_specset *set = ps(spec);
    check(t, set && ts_specset_names_prerelease(set) == want,
          "prereleases_autodetect", spec, "wrong");
    ts_specset_free(set);
  }
  cJSON_ArrayForEach(it, cJSON_GetObjectItem(root, "equality")) {
    const char *l = cJSON_GetObjectItem(it, "left")->valuestring;
    const char *r = cJSON_GetObjectItem(it, "right")->valuestring;
    bool want = cJSON_IsTrue(cJSON_GetObjectItem(it, "equal"));
    struct ts_specset *a = ps(l), *b = ps(r);
    check(t, a && b && ts_specset_equal(a, b) == want &&
                 ts_specset_equal(b, a) == want,
          "equality", l, "vs '%s': want %d", r, want);
    ts_specset_free(a);
    ts_specset_free(b);
  }

  /* Satisfiability and set relations have no API of their own here: they
   * are checked through filter/contains over upstream's sample versions,
   * which is how the README defines them. */
  cJSON *samples = cJSON_GetObjectItem(root, "satisfiability_sample_versions");
  size_t ns = (size_t)cJSON_GetArraySize(samples);
  struct item *xs = calloc(ns + 1, sizeof *xs);
  struct ts_spec_item *its = calloc(ns + 1, sizeof *its);
  size_t *keep = calloc(ns + 1, sizeof *keep);
  for (size_t i = 0; i < ns; i++) {
    item_make(&xs[i], cJSON_GetArrayItem(samples, (int)i)->valuestring, false);
    its[i] = xs[i].it;
  }
  cJSON_ArrayForEach(it, cJSON_GetObjectItem(root, "satisfiability")) {
    const char *spec = cJSON_GetObjectItem(it, "spec")->valuestring;
    enum ts_prereleases sp = pre_of(cJSON_GetObjectItem(it, "spec_prereleases"));
    bool want = cJSON_IsTrue(cJSON_GetObjectItem(it, "unsatisfiable"));
    struct ts_specset *set = ps(spec);
    if (!set) {
      check(t, false, "satisfiability", spec, "does not parse");
      continue;
    }
    ts_specset_set_prereleases(set, sp);
    size_t k = ts_specset_filter_items(
        set, its, ns, sp == TS_PRE_EXCLUDE ? TS_PRE_EXCLUDE : TS_PRE_INCLUDE,
        keep);
    check(t, (k == 0) == want, "satisfiability", spec,
          "kept %zu sample versions, unsatisfiable=%d", k, want);
    ts_specset_free(set);
  }
  cJSON_ArrayForEach(it, cJSON_GetObjectItem(root, "set_relations")) {
    const char *rel = cJSON_GetObjectItem(it, "relation")->valuestring;
    const char *l = cJSON_GetObjectItem(it, "left")->valuestring;
    const char *r = cJSON_GetObjectItem(it, "right")->valuestring;
    bool want = cJSON_IsTrue(cJSON_GetObjectItem(it, "expected"));
    struct ts_specset *a = ps(l), *b = ps(r);
    if (!a || !b) {
      check(t, false, "set_relations", l, "does not parse");
      ts_specset_free(a);
      ts_specset_free(b);
      continue;
    }
    /* Universe: upstream's samples plus, for every version either side
     * names, its neighbours (last number + 1, one more number). */
    size_t nx = ns;
    struct item *ux = calloc(ns + 64, sizeof *ux);
    char texts[64][96];
    memcpy(ux, xs, ns * sizeof *ux);
    for (int side = 0; side < 2; side++) {
      struct ts_specset *set = side ? b : a;
      for (size_t i = 0; i < ts_specset_count(set) && nx + 3 <= ns + 64; i++) {
        struct ts_version *sv = pv(ts_specset_version_at(set, i));
        if (!sv)
          continue;
        size_t rc = ts_version_release_count(sv), o = 0;
        char rel_txt[80] = "";
        for (size_t j = 0; j < rc && o < 60; j++)
          o += (size_t)snprintf(rel_txt + o, sizeof rel_txt - o, "%s%llu",
                                j ? "." : "", ts_version_release_at(sv, j));
        char *last = strrchr(rel_txt, '.');
        char head[80];
        snprintf(head, sizeof head, "%.*s", last ? (int)(last - rel_txt) : 0,
                 rel_txt);
        size_t slot = nx - ns;
        snprintf(texts[slot], sizeof texts[slot], "%s.1", rel_txt);
        snprintf(texts[slot + 1], sizeof texts[slot + 1], "%s%s%llu", head,
                 last ? "." : "", ts_version_release_at(sv, rc - 1) + 1);
        snprintf(texts[slot + 2], sizeof texts[slot + 2], "%s", rel_txt);
        for (int k = 0; k < 3; k++, nx++)
          item_make(&ux[nx], texts[slot + (size_t)k], true);
        ts_version_free(sv);
      }
    }
    bool *ia = sample_membership(a, ux, nx), *ib = sample_membership(b, ux, nx);
    bool got = true;
    for (size_t i = 0; i < nx; i++) {
      if (!ux[i].v)
        continue; /* relations are about versions */
      if (!strcmp(rel, "is_subset") && ia[i] && !ib[i])
        got = false;
      if (!strcmp(rel, "is_superset") && ib[i] && !ia[i])
        got = false;
      if (!strcmp(rel, "is_disjoint") && ia[i] && ib[i])
        got = false;
    }
    for (size_t i = ns; i < nx; i++)
      ts_version_free(ux[i].v);
    free(ux);
    check(t, got == want, "set_relations", l, "%s '%s': got %d", rel, r, got);
    free(ia);
    free(ib);
    ts_specset_free(a);
    ts_specset_free(b);
  }
  for (size_t i = 0; i < ns; i++)
    ts_version_free(xs[i].v);
  free(xs);
  free(its);
  free(keep);
}

int main(int argc, char **argv) {
  if (argc < 2) {
    fprintf(stderr, "usage: %s SHARED_CONFORMANCE_DIR\n", argv[0]);
    return 2;
  }
  struct stat st;
  if (stat(argv[1], &st) != 0) {
    printf("%s absent: skipped\n", argv[1]);
    return 77;
  }
  int bad = 0;
  cJSON *root = conf_load_json(argv[1], "packaging/pep440_versions.json");
  if (!root)
    return 1;
  struct tally t = {.exceptions = exceptions};
  run_versions(root, &t);
  printf("pep440_versions.json: %d passed, %d failed (%d known exceptions)\n",
         t.passed, t.failed, t.excepted);
  bad |= t.failed > 0 || t.passed == 0; /* no case run = the data moved */
  cJSON_Delete(root);

  root = conf_load_json(argv[1], "packaging/pep440_specifiers.json");
  if (!root)
    return 1;
  t = (struct tally){.exceptions = exceptions};
  run_specifiers(root, &t);
  printf("pep440_specifiers.json: %d passed, %d failed (%d known exceptions)\n",
         t.passed, t.failed, t.excepted);
  bad |= t.failed > 0 || t.passed == 0; /* no case run = the data moved */
  cJSON_Delete(root);
  return bad ? 1 : 0;
}
