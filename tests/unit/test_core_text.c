/* core/text, core/alloc, core/str: the helpers every parser shares, with
 * the edge cases the private copies they replaced disagreed on. */
#include <criterion/criterion.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/alloc.h"
#include "core/buf.h"
#include "core/clock.h"
#include "core/str.h"
#include "core/text.h"

Test(text, hex) {
  cr_expect_eq(ts_hex_digit('0'), 0);
  cr_expect_eq(ts_hex_digit('f'), 15);
  cr_expect_eq(ts_hex_digit('F'), 15);
  cr_expect_eq(ts_hex_digit('g'), -1);
  cr_expect_eq(ts_hex_digit('\0'), -1);
  uint8_t out[3];
  cr_assert(ts_hex_decode("00fFa5", 3, out));
  cr_expect(out[0] == 0 && out[1] == 0xff && out[2] == 0xa5);
  cr_expect(!ts_hex_decode("0x", 1, out));
}

Test(text, utf8_check) {
  cr_expect_eq(ts_utf8_check("abc", 3), 3);
  cr_expect_eq(ts_utf8_check("\xc3\xa9t\xc3\xa9", 5), 5);    /* été */
  cr_expect_eq(ts_utf8_check("\xf0\x9f\x94\xa5", 4), 4);     /* U+1F525 */
  cr_expect_eq(ts_utf8_check("a\xc0\xafz", 4), 1);           /* overlong '/' */
  cr_expect_eq(ts_utf8_check("ab\xed\xa0\x80", 5), 2);       /* surrogate */
  cr_expect_eq(ts_utf8_check("\xf4\x90\x80\x80", 4), 0);     /* > U+10FFFF */
  cr_expect_eq(ts_utf8_check("x\xe2\x82", 3), 1);            /* truncated */
  cr_expect_eq(ts_utf8_check("\x80", 1), 0);                 /* stray */
  cr_expect_eq(ts_utf8_check("a\0b", 3), 3);                 /* NUL is UTF-8 */
  cr_expect_eq(ts_utf8_seq_len((const unsigned char *)"\xe2\x82\xac", 2), 0);
  cr_expect_eq(ts_utf8_seq_len((const unsigned char *)"\xe2\x82\xac", 3), 3);
}

Test(text, utf8_put_round_trips) {
  const uint32_t cps[] = {0x41, 0xe9, 0x20ac, 0x1f525, 0x10ffff};
  for (size_t i = 0; i < sizeof cps / sizeof cps[0]; i++) {
    char b[4];
    size_t n = ts_utf8_put(b, cps[i]);
    cr_expect_eq(n, (size_t)(i < 1 ? 1 : i < 2 ? 2 : i < 3 ? 3 : 4));
    cr_expect_eq(ts_utf8_check(b, n), n);
  }
}

Test(text, u64_decimal_matches_printf) {
  uint64_t vals[] = {0, 1, 9, 10, 99, 100, 4294967295ull, 4294967296ull, 18446744073709551615ull};
  for (size_t i = 0; i < sizeof vals / sizeof vals[0]; i++) {
    char got[21], want[32];
    snprintf(want, sizeof want, "%llu", (unsigned long long)vals[i]);
    cr_assert_eq(ts_u64_decimal(got, vals[i]), strlen(want));
    cr_assert_str_eq(got, want);
  }
  for (uint64_t v = 1; v < (1ull << 63); v = v * 3 + 1) {
    char got[21], want[32];
    snprintf(want, sizeof want, "%llu", (unsigned long long)v);
    ts_u64_decimal(got, v);
    cr_assert_str_eq(got, want);
  }
}

Test(text, percent_decode) {
  char *s = ts_percent_decode("torch-2.9.1%2Bcu130%2bx", 23);
  cr_expect_str_eq(s, "torch-2.9.1+cu130+x");
  free(s);
  s = ts_percent_decode("100%-%zz%4", 10); /* not escapes: kept */
  cr_expect_str_eq(s, "100%-%zz%4");
  free(s);
  s = ts_percent_decode("a%41", 3); /* only the first n bytes */
  cr_expect_str_eq(s, "a%4");
  free(s);
}

Test(alloc, policy) {
  /* zero sizes give a block, never NULL */
  void *p = ts_xmalloc(0), *q = ts_xcalloc(0, 8), *r = ts_xrealloc(NULL, 0);
  cr_expect(p && q && r);
  free(p);
  free(q);
  free(r);
  int *v = ts_xreallocarray(NULL, 4, sizeof *v);
  v[3] = 7;
  free(v);
  /* a missing optional string stays missing */
  cr_expect_null(ts_xstrdup(NULL));
  char *s = ts_xstrdup("");
  cr_expect_str_eq(s, "");
  free(s);
  s = ts_xstrndup_lower("Manylinux_2_28_X86_64", 9);
  cr_expect_str_eq(s, "manylinux");
  free(s);
}

Test(strv, sort_and_free) {
  char **v = NULL;
  size_t n = 0;
  ts_strv_push(&v, &n, "torchvision", 11);
  ts_strv_push(&v, &n, "numpy", 5);
  ts_strv_push(&v, &n, "torch", 5);
  qsort(v, n, sizeof *v, ts_strv_cmp);
  cr_expect_str_eq(v[0], "numpy");
  cr_expect_str_eq(v[1], "torch");
  cr_expect_str_eq(v[2], "torchvision");
  const char *borrowed[] = {"b", "a"};
  qsort(borrowed, 2, sizeof *borrowed, ts_strv_cmp);
  cr_expect_str_eq(borrowed[0], "a");
  ts_strv_free(v, n);
}

Test(buf, aborting_writers) {
  struct ts_buf b;
  ts_buf_init(&b, 0);
  ts_buf_xprintf(&b, "%s-%d", "cu", 126);
  ts_buf_xappend_str(&b, ", ");
  ts_buf_xappend(&b, "rocm6.2xyz", 7);
  cr_expect_str_eq(b.data, "cu-126, rocm6.2");
  ts_buf_clear(&b);
}

Test(buf, aborting_writer_past_its_cap, .signal = SIGABRT) {
  struct ts_buf b;
  ts_buf_init(&b, 4);
  ts_buf_xprintf(&b, "%s", "longer than four");
}

Test(clock, monotonic) {
  double a = ts_now_ms(), b = ts_now_ms();
  cr_expect_geq(b, a);
  cr_expect_gt(a, 0);
}
