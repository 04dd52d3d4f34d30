/* core/json: the string escaper against the report writer's escaper it
 * replaced (kept here as the reference: one byte at a time, an append per
 * escape), and the writer's layout against Python's json.dumps(indent=2,
 * ensure_ascii=False). */
#include <criterion/criterion.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "core/buf.h"
#include "core/json.h"
#include "core/text.h"

/* The escaper inventory/report.c had before core/json.h. */
static enum ts_code reference(struct ts_buf *o, const char *s, size_t len) {
  const unsigned char *u = (const unsigned char *)s;
  size_t run = 0, i = 0;
  enum ts_code rc = ts_buf_append(o, "\"", 1);
  while (i < len && rc == TS_OK) {
    unsigned char c = u[i];
    if (c >= 0x80) {
      size_t k = ts_utf8_seq_len(u + i, len - i);
      if (k == 0)
        return TS_E_INVALID;
      i += k;
      continue;
    }
    if (c >= 0x20 && c != '"' && c != '\\') {
      i++;
      continue;
    }
    const char *esc;
    char hex[8];
    switch (c) {
    case '"': esc = "\\\""; break;
    case '\\': esc = "\\\\"; break;
    case '\n': esc = "\\n"; break;
    case '\r': esc = "\\r"; break;
    case '\t': esc = "\\t"; break;
    case '\b': esc = "\\b"; break;
    case '\f': esc = "\\f"; break;
    default:
      snprintf(hex, sizeof hex, "\\u%04x", c);
      esc = hex;
    }
    rc = ts_buf_append(o, s + run, i - run);
    if (rc == TS_OK)
      rc = ts_buf_append_str(o, esc);
    run = ++i;
  }
  if (rc == TS_OK)
    rc = ts_buf_append(o, s + run, len - run);
  if (rc == TS_OK)
    rc = ts_buf_append(o, "\"", 1);
  return rc;
}

/* Both escapers on s after a prefix already in the buffer: the same
 * result, the same bytes; on failure the buffer as it was. */
static void same(const char *s, size_t len) {
  struct ts_buf a, b;
  ts_buf_init(&a, 0);
  ts_buf_init(&b, 0);
  cr_assert_eq(ts_buf_append(&a, "x:", 2), TS_OK);
  cr_assert_eq(ts_buf_append(&b, "x:", 2), TS_OK);
  enum ts_code ra = ts_json_string_append(&a, s, len);
  enum ts_code rb = reference(&b, s, len);
  cr_assert_eq(ra, rb, "result differs for a %zu-byte string", len);
  if (ra == TS_OK) {
    cr_assert_eq(a.len, b.len, "length differs for a %zu-byte string", len);
    cr_assert(memcmp(a.data, b.data, a.len) == 0, "bytes differ for a %zu-byte string", len);
  } else {
    cr_assert_eq(a.len, 2);
    cr_assert_str_eq(a.data, "x:");
  }
  ts_buf_clear(&a);
  ts_buf_clear(&b);
}

Test(json, every_byte_alone_and_at_every_offset_of_a_word) {
  for (int c = 0; c < 256; c++) {
    char one = (char)c;
    same(&one, 1);
    char text[40];
    for (size_t at = 0; at < 24; at++) {
      memset(text, 'a', sizeof text);
      text[at] = (char)c;
      same(text, sizeof text);
      same(text, at + 1); /* the byte last */
    }
  }
}

Test(json, every_pair_of_bytes) {
  char text[20];
  memset(text, 'q', sizeof text);
  for (int c = 0; c < 256; c++)
    for (int d = 0; d < 256; d++) {
      text[7] = (char)c;
      text[8] = (char)d;
      same(text, sizeof text);
    }
}

Test(json, utf8_sequences) {
  static const char *cases[] = {
      "\xc3\xa9t\xc3\xa9",           /* été */
      "\xe2\x82\xac 5",              /* € */
      "\xf0\x9f\x94\xa5 fire",       /* U+1F525 */
      "a\xc0\xafz",                  /* overlong '/' */
      "\xed\xa0\x80",                /* a surrogate */
      "\xf4\x90\x80\x80",            /* past U+10FFFF */
      "long ascii text then \xe2\x82", /* cut short at the end */
      "\x80 continuation first",
      "quote \" backslash \\ newline \n tab \t cr \r nul-free \x01\x1f\x7f",
  };
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++)
    same(cases[i], strlen(cases[i]));
}

Test(json, random_text) {
  static const char *pieces[] = {"a", "Z", " ", "\n", "\t", "\"", "\\", "\x01", "\x1f", "\x7f",
                                 "\xc3\xa9", "\xe2\x82\xac", "\xf0\x9f\x94\xa5", "\xc0",
                                 "\xff", "plain text run ", "\r\n", "\b\f"};
  const size_t npieces = sizeof pieces / sizeof pieces[0];
  uint64_t seed = 0x9e3779b97f4a7c15u;
  char text[600];
  for (int round = 0; round < 20000; round++) {
    size_t len = 0;
    size_t want = (size_t)(seed >> 33) % 500;
    while (len < want) {
      seed = seed * 6364136223846793005u + 1442695040888963407u;
      /* invalid bytes rarely, so most strings are valid UTF-8 */
      size_t k = (size_t)(seed >> 33) % (npieces * 8);
      const char *p = k < npieces ? pieces[k] : k % 3 ? "abcdefgh" : "\n";
      if ((p[0] == '\xc0' || p[0] == '\xff') && (seed >> 20) % 16)
        p = "x";
      size_t n = strlen(p);
      memcpy(text + len, p, n);
      len += n;
    }
    same(text, len);
    seed = seed * 6364136223846793005u + 1442695040888963407u;
  }
}

Test(json, cap) {
  struct ts_buf b;
  ts_buf_init(&b, 16);
  cr_expect_eq(ts_json_string_append(&b, "0123456789abcd", 14), TS_OK); /* 16 bytes */
  cr_expect_eq(b.len, 16);
  ts_buf_reset(&b);
  cr_expect_eq(ts_json_string_append(&b, "\n\n\n\n\n\n\n", 7), TS_OK); /* 16 bytes */
  ts_buf_reset(&b);
  cr_expect_eq(ts_json_string_append(&b, "\n\n\n\n\n\n\n\n", 8), TS_E_TOO_BIG);
  ts_buf_clear(&b);
}

Test(json, layout_as_python) {
  struct ts_buf b;
  ts_buf_init(&b, 0);
  struct ts_json_writer w;
  ts_json_writer_init(&w, &b);
  ts_json_open(&w, '{');
  ts_json_key(&w, "a");
  ts_json_open(&w, '[');
  ts_json_close(&w, ']');
  ts_json_key(&w, "b");
  ts_json_open(&w, '{');
  ts_json_close(&w, '}');
  ts_json_key(&w, "c");
  ts_json_open(&w, '[');
  ts_json_int(&w, 1);
  ts_json_str(&w, "x\xc3\xa9\n");
  ts_json_bool(&w, true);
  ts_json_str_or_null(&w, NULL);
  ts_json_open(&w, '{');
  ts_json_key(&w, "d");
  ts_json_str(&w, "e");
  ts_json_key(&w, "f");
  ts_json_open(&w, '[');
  ts_json_open(&w, '[');
  ts_json_close(&w, ']');
  ts_json_close(&w, ']');
  ts_json_close(&w, '}');
  ts_json_close(&w, ']');
  ts_json_key(&w, "g");
  ts_json_bool(&w, false);
  ts_json_close(&w, '}');
  cr_assert_eq(ts_json_finish(&w), TS_OK);
  /* python3 -c 'import json; print(json.dumps({"a": [], "b": {}, "c": [1, "xé\n", True,
   *   None, {"d": "e", "f": [[]]}], "g": False}, indent=2, ensure_ascii=False))' */
  cr_expect_str_eq(b.data, "{\n  \"a\": [],\n  \"b\": {},\n  \"c\": [\n    1,\n    \"x\xc3\xa9\\n\",\n"
                           "    true,\n    null,\n    {\n      \"d\": \"e\",\n      \"f\": [\n"
                           "        []\n      ]\n    }\n  ],\n  \"g\": false\n}");
  ts_buf_clear(&b);
}

Test(json, sticky_failure) {
  struct ts_buf b;
  ts_buf_init(&b, 0);
  struct ts_json_writer w;
  ts_json_writer_init(&w, &b);
  ts_json_open(&w, '[');
  ts_json_str(&w, "ok");
  ts_json_str(&w, "bad \xff");
  ts_json_str(&w, "after");
  ts_json_close(&w, ']');
  cr_expect_eq(ts_json_finish(&w), TS_E_INVALID);
  cr_expect(strstr(b.data, "after") == NULL);
  ts_buf_clear(&b);
}
