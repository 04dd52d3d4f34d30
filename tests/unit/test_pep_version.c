/* Unit tests for pep/version.h: PEP 440 parsing, ordering, hostile input. */
#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>

#include "pep/version.h"

static struct ts_version *P(const char *s) {
  struct ts_version *v = NULL;
  struct ts_error err = {0};
  enum ts_code rc = ts_version_parse(s, strlen(s), &v, &err);
  cr_assert_eq(rc, TS_OK, "'%s' should parse: %s", s, err.detail);
  return v;
}

static enum ts_code parse_len(const char *s, size_t len, struct ts_error *err) {
  struct ts_version *v = (struct ts_version *)1;
  enum ts_code rc = ts_version_parse(s, len, &v, err);
  if (rc == TS_OK)
    ts_version_free(v);
  else
    cr_assert_null(v);
  return rc;
}

static int C(const char *a, const char *b) {
  struct ts_version *x = P(a), *y = P(b);
  int c = ts_version_cmp(x, y);
  ts_version_free(x);
  ts_version_free(y);
  return c;
}

Test(version, local_label_patterns) {
  struct { const char *pat, *label; bool want; } cases[] = {
      {"cu130", "cu130", true},   {"cu130", "cu1300", false}, {"cu130", "rocm6.4", false},
      {"cu12*", "cu126", true},   {"cu12*", "cu130", false},  {"rocm6.[34]", "rocm6.4", true},
      {"rocm6.[34]", "rocm6.2", false}, {"*", "cpu", true},   {"?pu", "xpu", true},
      {"\\cpu", "cpu", true},    {"[cx]pu", "cpu", true},    {"", "cpu", false},
  };
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++)
    cr_assert_eq(ts_local_label_matches(cases[i].pat, cases[i].label), cases[i].want,
                 "'%s' against '%s'", cases[i].pat, cases[i].label);
}

Test(version, normalises) {
  static const char *const cases[][2] = {
      {"1.0", "1.0"},           {"v1.0", "1.0"},
      {"1.0c1", "1.0rc1"},      {"1.0-1", "1.0.post1"},
      {"1.0.DEV", "1.0.dev0"},  {"0!1.0", "1.0"},
      {"007.0010", "7.10"},     {"1.0+Ubuntu-01", "1.0+ubuntu.1"},
      {"2.5.1+rocm6.2", "2.5.1+rocm6.2"},
      {"1.0a-", "1.0a0"},       {"1.0_preview.2", "1.0rc2"},
      {" \t1.0\n", "1.0"},      {"2.9.1a0+gitd38164a", "2.9.1a0+gitd38164a"},
  };
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    struct ts_version *v = P(cases[i][0]);
    cr_expect_str_eq(ts_version_str(v), cases[i][1], "input '%s'",
                     cases[i][0]);
    ts_version_free(v);
  }
}

Test(version, parts) {
  struct ts_version *v = P("3!2.5.1rc4.post7.dev9+cu126.x");
  cr_expect_eq(ts_version_epoch(v), 3);
  cr_expect_eq(ts_version_release_count(v), 3);
  cr_expect_eq(ts_version_release_at(v, 1), 5);
  char k;
  unsigned long long n;
  cr_expect(ts_version_pre(v, &k, &n));
  cr_expect_eq(k, 'r');
  cr_expect_eq(n, 4);
  cr_expect(ts_version_post(v, &n));
  cr_expect_eq(n, 7);
  cr_expect(ts_version_dev(v, &n));
  cr_expect_eq(n, 9);
  cr_expect_str_eq(ts_version_local(v), "cu126.x");
  cr_expect_str_eq(ts_version_public(v), "3!2.5.1rc4.post7.dev9");
  cr_expect_str_eq(ts_version_base(v), "3!2.5.1");
  cr_expect_str_eq(ts_version_original(v), "3!2.5.1rc4.post7.dev9+cu126.x");
  struct ts_version *d = ts_version_dup(v);
  cr_expect_eq(ts_version_cmp(v, d), 0);
  cr_expect_str_eq(ts_version_str(d), ts_version_str(v));
  ts_version_free(d);
  ts_version_free(v);
}

Test(version, ordering) {
  cr_expect_lt(C("1.0.dev0", "1.0a0"), 0);
  cr_expect_lt(C("1.0a0", "1.0b0"), 0);
  cr_expect_lt(C("1.0rc1", "1.0"), 0);
  cr_expect_lt(C("1.0", "1.0.post0.dev0"), 0);
  cr_expect_lt(C("1.0.post0.dev0", "1.0.post0"), 0);
  cr_expect_lt(C("1.0", "1.0+local"), 0);
  cr_expect_lt(C("1.0+abc", "1.0+0"), 0);
  cr_expect_lt(C("1.0+abc", "1.0+abc.0"), 0);
  cr_expect_lt(C("1.0+ab", "1.0+abc"), 0);
  cr_expect_lt(C("2.5.1+cpu", "2.5.1+cu126"), 0);
  cr_expect_lt(C("9!0", "10!0"), 0);
  cr_expect_eq(C("1.0", "1.0.0.0"), 0);
  cr_expect_eq(C("1.0c1", "1.0rc1"), 0);
  cr_expect_gt(C("1.10", "1.9"), 0);
}

Test(version, huge_numbers_are_exact) {
  /* 2**80 and neighbours: beyond uint64, ordering must use the digits. */
  cr_expect_lt(C("1208925819614629174706175", "1208925819614629174706176"), 0);
  cr_expect_gt(C("1208925819614629174706176", "99999999999999999999999"), 0);
  cr_expect_eq(C("0001208925819614629174706176", "1208925819614629174706176"), 0);
  cr_expect_lt(C("1.18446744073709551615", "1.18446744073709551616"), 0);
  cr_expect_lt(C("1.0+18446744073709551616", "1.0+18446744073709551617"), 0);
  cr_expect_lt(C("1.0.dev99999999999999999999", "1.0.dev100000000000000000000"), 0);
  struct ts_version *v = P("1.18446744073709551616");
  cr_expect_eq(ts_version_release_at(v, 1), ~0ULL, "saturates");
  cr_expect_str_eq(ts_version_str(v), "1.18446744073709551616");
  ts_version_free(v);
  v = P("1.18446744073709551615");
  cr_expect_eq(ts_version_release_at(v, 1), 18446744073709551615ULL);
  ts_version_free(v);
}

Test(version, rejects_garbage) {
  static const char *const bad[] = {
      "", " ", "french toast", "1.0+", "1.0+a+", "1..0", "1.0.", ".1",
      "1.0+_x", "1 .0", "v", "1!", "!1", "1.0a1b1", "1.0-", "1.0+a..b",
      "1.0+a.", "\xff", "1.0\xc3\xa9", "1.0+\xc4\xb0",
  };
  for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
    struct ts_error err = {0};
    cr_expect_eq(parse_len(bad[i], strlen(bad[i]), &err), TS_E_PARSE,
                 "'%s' should be rejected", bad[i]);
    cr_expect_neq(err.detail[0], '\0');
  }
}

Test(version, embedded_nul_is_an_error) {
  struct ts_error err = {0};
  cr_expect_eq(parse_len("1.0\0", 4, &err), TS_E_PARSE);
  cr_expect_eq(parse_len("1\0.0", 4, &err), TS_E_PARSE);
  cr_expect(strstr(err.detail, "\\x00") != NULL, "detail escapes NUL: %s",
            err.detail);
  /* Not NUL-terminated: only len bytes are read. */
  char buf[3] = {'1', '.', '2'};
  struct ts_version *v;
  cr_assert_eq(ts_version_parse(buf, 3, &v, &err), TS_OK);
  cr_expect_str_eq(ts_version_str(v), "1.2");
  ts_version_free(v);
}

Test(version, unicode_whitespace_trimmed) {
  /* U+202F, U+3000, U+0085 around the version. */
  const char *s = "\xe2\x80\xaf\xe3\x80\x80" "1.0\xc2\x85";
  struct ts_version *v = P(s);
  cr_expect_str_eq(ts_version_str(v), "1.0");
  cr_expect_str_eq(ts_version_original(v), "1.0");
  ts_version_free(v);
  /* A truncated multi-byte sequence is not whitespace. */
  struct ts_error err = {0};
  cr_expect_eq(parse_len("1.0\xe2\x80", 5, &err), TS_E_PARSE);
}

Test(version, overlong) {
  size_t n = TS_VERSION_MAX_LEN + 1;
  char *s = malloc(n);
  memset(s, '1', n);
  struct ts_error err = {0};
  cr_expect_eq(parse_len(s, n, &err), TS_E_TOO_BIG);
  /* Exactly at the cap: a 4096-digit number parses and compares. */
  struct ts_version *a, *b;
  cr_assert_eq(ts_version_parse(s, n - 1, &a, &err), TS_OK);
  s[n - 2] = '2';
  cr_assert_eq(ts_version_parse(s, n - 1, &b, &err), TS_OK);
  cr_expect_lt(ts_version_cmp(a, b), 0);
  ts_version_free(a);
  ts_version_free(b);
  /* Many release components. */
  for (size_t i = 0; i + 1 < n; i += 2) {
    s[i] = '1';
    s[i + 1] = '.';
  }
  cr_assert_eq(ts_version_parse(s, n - 2, &a, &err), TS_OK, "%s", err.detail);
  cr_expect_eq(ts_version_release_count(a), (n - 1) / 2);
  ts_version_free(a);
  free(s);
}

Test(version, canonicalize) {
  char *s = ts_version_canonicalize("1.4.0.0", 7, true);
  cr_expect_str_eq(s, "1.4");
  free(s);
  s = ts_version_canonicalize("0.0.0", 5, true);
  cr_expect_str_eq(s, "0");
  free(s);
  s = ts_version_canonicalize("2!1.0.0rc1+x", 12, true);
  cr_expect_str_eq(s, "2!1rc1+x");
  free(s);
  s = ts_version_canonicalize("not a version", 13, true);
  cr_expect_str_eq(s, "not a version");
  free(s);
}
