/* Unit tests for pep/specifier.h: operators, pre-release policy, hostile
 * input. */
#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>

#include "pep/specifier.h"

static struct ts_specset *S(const char *s) {
  struct ts_specset *set = NULL;
  struct ts_error err = {0};
  cr_assert_eq(ts_specset_parse(s, strlen(s), &set, &err), TS_OK,
               "'%s' should parse: %s", s, err.detail);
  return set;
}

static struct ts_version *V(const char *s) {
  struct ts_version *v = NULL;
  cr_assert_eq(ts_version_parse(s, strlen(s), &v, NULL), TS_OK, "%s", s);
  return v;
}

static bool in(const char *spec, const char *ver, enum ts_prereleases pre) {
  struct ts_specset *set = S(spec);
  struct ts_version *v = V(ver);
  bool r = ts_specset_contains(set, v, pre);
  ts_version_free(v);
  ts_specset_free(set);
  return r;
}

static enum ts_code parse_code(const char *s, size_t len, struct ts_error *err) {
  struct ts_specset *set = NULL;
  enum ts_code rc = ts_specset_parse(s, len, &set, err);
  ts_specset_free(set);
  return rc;
}

Test(specifier, operators) {
  cr_expect(in(">=1.0", "1.0", TS_PRE_DEFAULT));
  cr_expect(!in(">=1.0", "0.9", TS_PRE_DEFAULT));
  cr_expect(in("<=1.0", "1.0+local", TS_PRE_DEFAULT));
  cr_expect(!in("<=1.0", "1.0.post0", TS_PRE_DEFAULT));
  cr_expect(!in("<2.0", "2.0rc1", TS_PRE_DEFAULT), "<V skips V's pre-releases");
  cr_expect(in("<2.0rc2", "2.0rc1", TS_PRE_DEFAULT));
  cr_expect(!in(">1.0", "1.0.post1", TS_PRE_DEFAULT), ">V skips V's posts");
  cr_expect(!in(">1.0", "1.0+local", TS_PRE_DEFAULT));
  cr_expect(in(">1.0.post1", "1.0.post2", TS_PRE_DEFAULT));
  cr_expect(in(">1.0", "1.0.1", TS_PRE_DEFAULT));
  cr_expect(in("==2.5.1", "2.5.1+cu126", TS_PRE_DEFAULT));
  cr_expect(!in("==2.5.1+cpu", "2.5.1+cu126", TS_PRE_DEFAULT));
  cr_expect(in("==2.5.*", "2.5.7", TS_PRE_DEFAULT));
  cr_expect(in("==2.5.*", "2.5", TS_PRE_DEFAULT));
  cr_expect(!in("==2.5.*", "2.50", TS_PRE_DEFAULT));
  cr_expect(in("!=2.5.*", "2.6", TS_PRE_DEFAULT));
  cr_expect(in("~=2.2", "2.9", TS_PRE_DEFAULT));
  cr_expect(!in("~=2.2", "3.0", TS_PRE_DEFAULT));
  cr_expect(in("~=2.2.1", "2.2.5", TS_PRE_DEFAULT));
  cr_expect(!in("~=2.2.1", "2.3", TS_PRE_DEFAULT));
  cr_expect(!in("~=1!2.2", "2.3", TS_PRE_DEFAULT), "epochs differ");
  cr_expect(in("===1.0", "1.0", TS_PRE_DEFAULT));
  cr_expect(!in("===1.0", "1.0.0", TS_PRE_DEFAULT));
  cr_expect(in(">=2.5,<2.6,!=2.5.0", "2.5.1", TS_PRE_DEFAULT));
  cr_expect(in("", "1.0a1", TS_PRE_DEFAULT));
}

Test(specifier, prerelease_policy) {
  /* packaging 26: a single pre-release in range is accepted by default. */
  cr_expect(in(">=1.0", "2.0a1", TS_PRE_DEFAULT));
  cr_expect(!in(">=1.0", "2.0a1", TS_PRE_EXCLUDE));
  cr_expect(in(">=1.0", "2.0a1", TS_PRE_INCLUDE));
  struct ts_specset *set = S(">=1.0");
  ts_specset_set_prereleases(set, TS_PRE_EXCLUDE);
  struct ts_version *v = V("2.0a1");
  cr_expect(!ts_specset_contains(set, v, TS_PRE_DEFAULT));
  cr_expect(ts_specset_contains(set, v, TS_PRE_INCLUDE));
  cr_expect(ts_specset_contains_ex(set, v, NULL, 0, TS_PRE_DEFAULT, true),
            "installed accepts pre-releases");
  ts_version_free(v);
  ts_specset_free(set);

  set = S(">=1.0.dev1");
  cr_expect(ts_specset_names_prerelease(set));
  ts_specset_free(set);
  set = S("!=1.0.dev1");
  cr_expect(!ts_specset_names_prerelease(set));
  ts_specset_free(set);
}

Test(specifier, filter) {
  const char *vs[] = {"1.0", "1.5a1", "2.0", "2.1rc1", "3.0"};
  struct ts_version *v[5];
  for (int i = 0; i < 5; i++)
    v[i] = V(vs[i]);
  size_t keep[5];
  struct ts_specset *set = S(">=1.2");
  size_t k = ts_specset_filter(set, (const struct ts_version *const *)v, 5,
                               TS_PRE_DEFAULT, keep);
  cr_assert_eq(k, 2);
  cr_expect_eq(keep[0], 2);
  cr_expect_eq(keep[1], 4);
  k = ts_specset_filter(set, (const struct ts_version *const *)v, 5,
                        TS_PRE_INCLUDE, keep);
  cr_expect_eq(k, 4);
  ts_specset_free(set);
  /* Only pre-releases match: they are returned (PEP 440). */
  set = S(">=2.1a0,<2.2");
  k = ts_specset_filter(set, (const struct ts_version *const *)v, 5,
                        TS_PRE_DEFAULT, keep);
  cr_assert_eq(k, 1);
  cr_expect_eq(keep[0], 3);
  ts_specset_free(set);
  for (int i = 0; i < 5; i++)
    ts_version_free(v[i]);
}

Test(specifier, text_and_equality) {
  struct ts_specset *a = S(" >=1.0 , <2 ,, != 1.5.* ");
  cr_expect_str_eq(ts_specset_str(a), "!=1.5.*,<2,>=1.0");
  cr_expect_eq(ts_specset_count(a), 3);
  cr_expect_eq(ts_specset_op_at(a, 0), TS_OP_GE);
  cr_expect_str_eq(ts_specset_version_at(a, 2), "1.5.*");
  struct ts_specset *b = S("<2.0.0,>=1,!=1.5.*,>=1.0.0");
  cr_expect(ts_specset_equal(a, b));
  struct ts_specset *c = ts_specset_and(a, b);
  cr_assert_not_null(c);
  cr_expect_eq(ts_specset_count(c), 7);
  cr_expect(ts_specset_equal(c, a));
  struct ts_specset *d = ts_specset_dup(c);
  cr_expect_str_eq(ts_specset_str(d), ts_specset_str(c));
  ts_specset_free(a);
  ts_specset_free(b);
  ts_specset_free(c);
  ts_specset_free(d);
}

Test(specifier, and_conflicting_overrides) {
  struct ts_specset *a = S(">=1"), *b = S("<2");
  ts_specset_set_prereleases(a, TS_PRE_INCLUDE);
  ts_specset_set_prereleases(b, TS_PRE_EXCLUDE);
  cr_expect_null(ts_specset_and(a, b));
  ts_specset_set_prereleases(b, TS_PRE_DEFAULT);
  struct ts_specset *c = ts_specset_and(a, b);
  cr_expect_eq(ts_specset_get_prereleases(c), TS_PRE_INCLUDE);
  ts_specset_free(a);
  ts_specset_free(b);
  ts_specset_free(c);
}

Test(specifier, rejects) {
  static const char *const bad[] = {
      "2.0", "=>2.0", "==", "~=1", "~=1.0.*", ">=1.0+x", "==1.0a1.*",
      "==1.0.*.5", "== 1.0 .*", ">=1.0, lolwat", "==1.0+\xc4\xb0", "<>1",
      ">=\xff", "=== a b",
  };
  for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
    struct ts_error err = {0};
    cr_expect_eq(parse_code(bad[i], strlen(bad[i]), &err), TS_E_PARSE,
                 "'%s' should be rejected", bad[i]);
    cr_expect(strstr(err.detail, "position") != NULL, "%s", err.detail);
  }
}

Test(specifier, hostile) {
  struct ts_error err = {0};
  cr_expect_eq(parse_code("===a\0b", 6, &err), TS_E_PARSE, "NUL inside");
  cr_expect_eq(parse_code(">=1.0\0", 6, &err), TS_E_PARSE);
  size_t n = TS_SPECSET_MAX_LEN + 1;
  char *s = malloc(n);
  memset(s, ',', n);
  cr_expect_eq(parse_code(s, n, &err), TS_E_TOO_BIG);
  /* Thousands of specifiers within the cap parse and evaluate. */
  size_t o = 0;
  while (o + 8 < TS_SPECSET_MAX_LEN) {
    memcpy(s + o, ">=1.0.0,", 8);
    o += 8;
  }
  struct ts_specset *set = NULL;
  cr_assert_eq(ts_specset_parse(s, o, &set, &err), TS_OK, "%s", err.detail);
  struct ts_version *v = V("1.0");
  cr_expect(ts_specset_contains(set, v, TS_PRE_DEFAULT));
  cr_expect_str_eq(ts_specset_str(set), ">=1.0.0");
  ts_version_free(v);
  ts_specset_free(set);
  /* Huge numbers compare exactly. */
  cr_expect(in(">99999999999999999999999", "100000000000000000000000",
               TS_PRE_DEFAULT));
  cr_expect(!in("<99999999999999999999999", "100000000000000000000000",
                TS_PRE_DEFAULT));
  free(s);
}

/* A copy shares the parsed specifiers with its original: it outlives the
 * original, and a pre-release override set on one is not the other's
 * (each answers as a fresh parse with its own override does). */
Test(specifier, copies_are_independent) {
  const char *text = ">=1.0,<2,!=1.5.*";
  struct ts_specset *a = S(text);
  struct ts_specset *b = ts_specset_dup(a), *c = ts_specset_dup(b);
  struct ts_specset *fresh_b = S(text), *fresh_c = S(text);
  ts_specset_set_prereleases(b, TS_PRE_EXCLUDE);
  ts_specset_set_prereleases(fresh_b, TS_PRE_EXCLUDE);
  cr_expect_eq(ts_specset_get_prereleases(a), TS_PRE_DEFAULT);
  cr_expect_eq(ts_specset_get_prereleases(c), TS_PRE_DEFAULT);
  cr_expect_eq(ts_specset_get_prereleases(b), TS_PRE_EXCLUDE);
  ts_specset_free(a);
  static const char *const versions[] = {"1.2a1", "1.4", "1.5.2", "2.0", "0.9"};
  for (size_t i = 0; i < sizeof versions / sizeof versions[0]; i++) {
    struct ts_version *v = V(versions[i]);
    cr_expect_eq(ts_specset_contains(b, v, TS_PRE_DEFAULT),
                 ts_specset_contains(fresh_b, v, TS_PRE_DEFAULT), "%s", versions[i]);
    cr_expect_eq(ts_specset_contains(c, v, TS_PRE_DEFAULT),
                 ts_specset_contains(fresh_c, v, TS_PRE_DEFAULT), "%s", versions[i]);
    ts_version_free(v);
  }
  struct ts_version *pre = V("1.2a1");
  cr_expect_not(ts_specset_contains(b, pre, TS_PRE_DEFAULT));
  ts_version_free(pre);
  cr_expect_str_eq(ts_specset_str(c), ts_specset_str(fresh_c));
  cr_expect(ts_specset_equal(b, c));
  ts_specset_free(c);
  cr_expect_str_eq(ts_specset_str(b), ts_specset_str(fresh_b));
  ts_specset_free(b);
  ts_specset_free(fresh_b);
  ts_specset_free(fresh_c);
}
