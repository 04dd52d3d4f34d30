/* Unit tests for pep/requirement.h: PEP 508 requirement strings. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pep/requirement.h"

static struct ts_requirement *R(const char *s) {
  struct ts_requirement *r = NULL;
  struct ts_error err = {0};
  cr_assert_eq(ts_requirement_parse(s, strlen(s), &r, &err), TS_OK,
               "'%s' should parse: %s", s, err.detail);
  return r;
}

static enum ts_code bad(const char *s, size_t len, struct ts_error *err) {
  struct ts_requirement *r = (struct ts_requirement *)1;
  enum ts_code rc = ts_requirement_parse(s, len, &r, err);
  if (rc == TS_OK)
    ts_requirement_free(r);
  else
    cr_assert_null(r);
  return rc;
}

Test(requirement, full_form) {
  struct ts_requirement *r =
      R("Torch_Vision [CUDA, extra.two] (>=0.20, <0.21) ; "
        "python_version >= '3.9' and extra == 'Test_X'");
  cr_expect_str_eq(r->name, "Torch_Vision");
  cr_expect_str_eq(r->normalized_name, "torch-vision");
  cr_assert_eq(r->nextras, 2);
  cr_expect_str_eq(r->extras[0], "cuda");
  cr_expect_str_eq(r->extras[1], "extra-two");
  cr_expect_str_eq(r->extras_written[0], "CUDA");
  cr_expect_str_eq(ts_specset_str(r->specifier), "<0.21,>=0.20");
  cr_expect_null(r->url);
  cr_assert_not_null(r->marker);
  cr_expect_str_eq(ts_marker_str(r->marker),
                   "python_version >= \"3.9\" and extra == \"test-x\"");
  cr_expect(ts_marker_uses_extra(r->marker));
  char *s = ts_requirement_str(r);
  cr_expect_str_eq(s, "Torch_Vision[CUDA,extra.two]<0.21,>=0.20; "
                      "python_version >= \"3.9\" and extra == \"test-x\"");
  struct ts_requirement *again = R(s);
  cr_expect(ts_requirement_equal(r, again));
  struct ts_requirement *d = ts_requirement_dup(r);
  cr_expect(ts_requirement_equal(r, d));
  ts_requirement_free(d);
  ts_requirement_free(again);
  free(s);
  ts_requirement_free(r);
}

Test(requirement, url_form) {
  struct ts_requirement *r =
      R("pkg @ https://example.com/pkg-1.0-py3-none-any.whl ; os_name == 'nt'");
  cr_expect_str_eq(r->url, "https://example.com/pkg-1.0-py3-none-any.whl");
  cr_expect_eq(ts_specset_count(r->specifier), 0);
  char *s = ts_requirement_str(r);
  cr_expect_str_eq(s, "pkg @ https://example.com/pkg-1.0-py3-none-any.whl ; "
                      "os_name == \"nt\"");
  free(s);
  ts_requirement_free(r);
  r = R("pkg@file:///tmp/x.whl");
  cr_expect_str_eq(r->url, "file:///tmp/x.whl");
  ts_requirement_free(r);
}

Test(requirement, errors_name_position_and_expectation) {
  static const struct {
    const char *in;
    const char *want;
    size_t pos;
  } cases[] = {
      {"", "expected package name", 0},
      {"name[bar baz]", "expected comma between extra names", 9},
      {"name >= 1.0 <= 2.0", "expected comma (within version specifier)", 12},
      {"name @ ", "expected URL after @", 7},
      {"name; os_name = 'x'", "expected a marker operator", 14},
      {"name; (os_name == 'x'", "expected matching ')'", 21},
      {"name>=1.0+local", "local version label", 9},
      {"name>=1.0.*", ".* suffix can only be used", 9},
      {"name>=1\n", "expected comma (within version specifier)", 7},
  };
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    struct ts_error err = {0};
    cr_expect_eq(bad(cases[i].in, strlen(cases[i].in), &err), TS_E_PARSE,
                 "'%s'", cases[i].in);
    cr_expect(strstr(err.detail, cases[i].want) != NULL, "'%s': %s",
              cases[i].in, err.detail);
    char pos[64];
    snprintf(pos, sizeof pos, "at position %zu ", cases[i].pos);
    cr_expect(strstr(err.detail, pos) != NULL, "'%s': %s (want %s)",
              cases[i].in, err.detail, pos);
  }
}

Test(requirement, hostile_input) {
  struct ts_error err = {0};
  /* Embedded NUL: an error, not a terminator. */
  cr_expect_eq(bad("name\0>=1", 8, &err), TS_E_PARSE);
  cr_expect(strstr(err.detail, "NUL") != NULL, "%s", err.detail);
  cr_expect_eq(bad("name>=1.0\0", 10, &err), TS_E_PARSE);
  /* Invalid UTF-8 anywhere. */
  cr_expect_eq(bad("name @ http://x/\xff", 17, &err), TS_E_PARSE);
  cr_expect(strstr(err.detail, "UTF-8") != NULL, "%s", err.detail);
  cr_expect_eq(bad("name; os_name == '\xc0\xaf'", 22, &err), TS_E_PARSE);
  /* Overlong. */
  size_t n = TS_REQUIREMENT_MAX_LEN + 1;
  char *s = malloc(n);
  memset(s, 'a', n);
  cr_expect_eq(bad(s, n, &err), TS_E_TOO_BIG);
  /* A long but legal name and a huge version number. */
  struct ts_requirement *r = NULL;
  cr_expect_eq(ts_requirement_parse(s, n - 1, &r, &err), TS_OK, "%s",
               err.detail);
  ts_requirement_free(r);
  const char *big = "x==1234567890123456789012345678901234567890";
  r = R(big);
  cr_expect_str_eq(ts_specset_str(r->specifier),
                   "==1234567890123456789012345678901234567890");
  ts_requirement_free(r);
  /* Deeply nested marker in a requirement. */
  size_t depth = 10000, o = 0;
  char *m = malloc(depth * 2 + 64);
  memcpy(m, "x; ", 3);
  o = 3;
  for (size_t i = 0; i < depth; i++)
    m[o++] = '(';
  memcpy(m + o, "os_name == 'a'", 14);
  o += 14;
  for (size_t i = 0; i < depth; i++)
    m[o++] = ')';
  cr_expect_eq(bad(m, o, &err), TS_E_TOO_BIG);
  cr_expect(strstr(err.detail, "nested") != NULL, "%s", err.detail);
  free(m);
  free(s);
}

Test(requirement, legacy_and_odd_forms) {
  struct ts_requirement *r = R("name (>=1.0)");
  cr_expect_str_eq(ts_specset_str(r->specifier), ">=1.0");
  ts_requirement_free(r);
  r = R("name[]");
  cr_expect_eq(r->nextras, 0);
  ts_requirement_free(r);
  r = R("name()");
  cr_expect_eq(ts_specset_count(r->specifier), 0);
  ts_requirement_free(r);
  r = R("name===1.0-weird_thing");
  cr_expect_eq(ts_specset_op_at(r->specifier, 0), TS_OP_ARBITRARY);
  ts_requirement_free(r);
  r = R("name; os.name == 'posix'");
  cr_expect_str_eq(ts_marker_str(r->marker), "os_name == \"posix\"");
  ts_requirement_free(r);
}
