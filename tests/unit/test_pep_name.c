/* Unit tests for pep/name.h: PEP 503 normalisation, PEP 508 validity. */
#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>

#include "pep/name.h"

static void norm_is(const char *in, const char *exp)
{
  char *got = ts_name_normalize(in, strlen(in));
  cr_assert_str_eq(got, exp, "normalize('%s')", in);
  free(got);
}

Test(name, normalises)
{
  norm_is("Django", "django");
  norm_is("oslo.concurrency", "oslo-concurrency");
  norm_is("Foo__Bar..Baz--Q", "foo-bar-baz-q");
  norm_is("nvidia_cublas_cu12", "nvidia-cublas-cu12");
  norm_is("", "");
  norm_is("-._", "-");
  norm_is("_not_legal", "-not-legal");
}

Test(name, normalize_into_needs_no_allocation)
{
  char out[32];
  size_t n = ts_name_normalize_into("Torch_Vision", 12, out);
  cr_assert_eq(n, 12);
  cr_assert_str_eq(out, "torch-vision");
  /* Slices: only len bytes are read. */
  n = ts_name_normalize_into("ABCDEF", 3, out);
  cr_assert_eq(n, 3);
  cr_assert_str_eq(out, "abc");
}

Test(name, validity)
{
  static const char *const ok[] = {"a", "A1", "torch", "foo.bar", "foo-_.bar",
                                   "1", "x_y", "ZOPE.interface"};
  static const char *const bad[] = {"", "-a", "a-", ".a", "a.", "_a", "a b",
                                    "a/b", "torch[cuda]", "é", "a\n", "a@b"};
  for (size_t i = 0; i < sizeof ok / sizeof *ok; i++)
    cr_assert(ts_name_is_valid(ok[i], strlen(ok[i])), "'%s' valid", ok[i]);
  for (size_t i = 0; i < sizeof bad / sizeof *bad; i++)
    cr_assert_not(ts_name_is_valid(bad[i], strlen(bad[i])), "'%s' invalid",
                  bad[i]);
}

Test(name, embedded_nul_is_invalid_and_slices_are_respected)
{
  cr_assert_not(ts_name_is_valid("ab\0cd", 5));
  cr_assert(ts_name_is_valid("ab\0cd", 2));
  char *n = ts_name_normalize("A\0B", 3);
  cr_assert_eq(memcmp(n, "a\0b", 4), 0);
  free(n);
}

Test(name, is_normalized)
{
  cr_assert(ts_name_is_normalized("foo-bar", 7));
  cr_assert(ts_name_is_normalized("1-1", 3));
  cr_assert_not(ts_name_is_normalized("foo--bar", 8));
  cr_assert_not(ts_name_is_normalized("Foo", 3));
  cr_assert_not(ts_name_is_normalized("foo_bar", 7));
  cr_assert_not(ts_name_is_normalized("-foo", 4));
  cr_assert_not(ts_name_is_normalized("foo-", 4));
  cr_assert_not(ts_name_is_normalized("", 0));
}

Test(name, equality_without_allocation)
{
  cr_assert(ts_name_eq("Foo.Bar", 7, "foo_bar", 7));
  cr_assert(ts_name_eq("a--b", 4, "A_._B", 5));
  cr_assert_not(ts_name_eq("foo", 3, "foo1", 4));
  cr_assert_not(ts_name_eq("foo-", 4, "foo", 3));
  cr_assert(ts_name_eq("", 0, "", 0));
}

Test(name, overlong_input)
{
  size_t n = 1 << 20;
  char *s = malloc(n);
  memset(s, 'A', n);
  s[n / 2] = '.';
  s[n / 2 + 1] = '_';
  cr_assert(ts_name_is_valid(s, n));
  char *out = ts_name_normalize(s, n);
  cr_assert_eq(strlen(out), n - 1);
  cr_assert_eq(out[0], 'a');
  cr_assert_eq(out[n / 2], '-');
  free(out);
  free(s);
}

Test(name, nearest_for_did_you_mean)
{
  const char *names[] = {"requests", "numpy", "requests-oauthlib", "torch", "six", "scipy"};
  size_t n = sizeof names / sizeof names[0];
  cr_assert_str_eq(ts_name_nearest("reqests", names, n), "requests");   /* a deletion */
  cr_assert_str_eq(ts_name_nearest("nmupy", names, n), "numpy");        /* a swap */
  cr_assert_str_eq(ts_name_nearest("trch", names, n), "torch");         /* 4 letters: 1 edit */
  cr_assert_null(ts_name_nearest("tch", names, n));                     /* 2 edits: too far */
  cr_assert_null(ts_name_nearest("si", names, n));                      /* too short to guess */
  cr_assert_null(ts_name_nearest("numpy", names, n));                   /* listed: no hint */
  cr_assert_null(ts_name_nearest("pandas", names, n));
  /* ties go to the name that sorts first, whatever the order given */
  const char *ab[] = {"scipy-b", "scipy-a"}, *ba[] = {"scipy-a", "scipy-b"};
  cr_assert_str_eq(ts_name_nearest("scipy-c", ab, 2), "scipy-a");
  cr_assert_str_eq(ts_name_nearest("scipy-c", ba, 2), "scipy-a");
}
