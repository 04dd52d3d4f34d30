/* Unit tests for toml/toml.h: the strict TOML 1.0 reader and the writer. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "toml/toml.h"

static struct ts_toml_value *parse_ok(const char *s) {
  struct ts_toml_value *root = NULL;
  struct ts_error err = {0};
  enum ts_code rc = ts_toml_parse(s, strlen(s), &root, &err);
  cr_assert_eq(rc, TS_OK, "parse failed: %s\n--\n%s", err.detail, s);
  cr_assert_not_null(root);
  return root;
}

/* Parses s, expects failure with `code` and a detail containing `frag`. */
static void parse_bad(const char *s, enum ts_code code, const char *frag) {
  struct ts_toml_value *root = NULL;
  struct ts_error err = {0};
  enum ts_code rc = ts_toml_parse(s, strlen(s), &root, &err);
  cr_assert_eq(rc, code, "expected %s for:\n%s\ngot %s (%s)",
               ts_code_name(code), s, ts_code_name(rc), err.detail);
  cr_assert_null(root);
  if (frag)
    cr_assert(strstr(err.detail, frag), "detail '%s' lacks '%s' for:\n%s",
              err.detail, frag, s);
}

static char *write_ok(const struct ts_toml_value *root) {
  struct ts_buf b;
  ts_buf_init(&b, 0);
  struct ts_error err = {0};
  cr_assert_eq(ts_toml_write(root, &b, &err), TS_OK, "%s", err.detail);
  if (!b.data)
    cr_assert_eq(ts_buf_append(&b, "", 0), TS_OK);
  return ts_buf_take(&b, NULL);
}

/* write(parse(s)) parses back to an equal tree and writes the same bytes. */
static void roundtrip(const char *s) {
  struct ts_toml_value *a = parse_ok(s);
  char *w1 = write_ok(a);
  struct ts_toml_value *b = parse_ok(w1);
  cr_assert(ts_toml_equal(a, b), "round trip differs:\n%s\n--\n%s", s, w1);
  char *w2 = write_ok(b);
  cr_assert_str_eq(w1, w2);
  free(w1);
  free(w2);
  ts_toml_free(a);
  ts_toml_free(b);
}

Test(toml, scalars) {
  struct ts_toml_value *r = parse_ok(
      "s = \"a\\tb\\u00e9\\U0001F600\"\n"
      "l = 'C:\\path\\n'\n"
      "i = -9_223_372_036_854_775_808\n"
      "h = 0xDEAD_beef\n"
      "o = 0o755\n"
      "b = 0b1010\n"
      "t = true\n"
      "f = false\n"
      "fl = 6.626e-34\n"
      "inf = -inf\n"
      "odt = 1979-05-27T07:32:00.999-07:00\n"
      "ldt = 1979-05-27 07:32:00\n"
      "ld = 1979-05-27\n"
      "lt = 00:32:00.5\n");
  const struct ts_toml_value *v = ts_toml_get(r, "s");
  cr_assert_eq(v->type, TS_TOML_STRING);
  cr_assert_str_eq(v->str, "a\tb\xc3\xa9\xf0\x9f\x98\x80");
  cr_assert_str_eq(ts_toml_get(r, "l")->str, "C:\\path\\n");
  cr_assert_eq(ts_toml_get(r, "i")->integer, (-9223372036854775807LL - 1));
  cr_assert_eq(ts_toml_get(r, "h")->integer, 0xDEADBEEF);
  cr_assert_eq(ts_toml_get(r, "o")->integer, 0755);
  cr_assert_eq(ts_toml_get(r, "b")->integer, 10);
  cr_assert(ts_toml_get(r, "t")->boolean);
  cr_assert_not(ts_toml_get(r, "f")->boolean);
  cr_assert_eq(ts_toml_get(r, "fl")->type, TS_TOML_FLOAT);
  cr_assert_str_eq(ts_toml_get(r, "fl")->str, "6.626e-34");
  cr_assert_str_eq(ts_toml_get(r, "inf")->str, "-inf");
  cr_assert_eq(ts_toml_get(r, "odt")->datetime_kind, TS_TOML_OFFSET_DATETIME);
  cr_assert_str_eq(ts_toml_get(r, "odt")->str, "1979-05-27T07:32:00.999-07:00");
  cr_assert_eq(ts_toml_get(r, "ldt")->datetime_kind, TS_TOML_LOCAL_DATETIME);
  cr_assert_eq(ts_toml_get(r, "ld")->datetime_kind, TS_TOML_LOCAL_DATE);
  cr_assert_eq(ts_toml_get(r, "lt")->datetime_kind, TS_TOML_LOCAL_TIME);
  ts_toml_free(r);
}

Test(toml, multiline_strings) {
  struct ts_toml_value *r = parse_ok(
      "a = \"\"\"\nRoses\nare red\"\"\"\n"
      "b = \"\"\"\\\n   The quick \\\n\n   brown fox.\"\"\"\n"
      "c = '''\nraw \\n text'''\n"
      "d = \"\"\"two quotes \"\" inside and at the end\"\"\"\"\"\n"
      "e = ''''one quote' '''\n");
  cr_assert_str_eq(ts_toml_get(r, "a")->str, "Roses\nare red");
  cr_assert_str_eq(ts_toml_get(r, "b")->str, "The quick brown fox.");
  cr_assert_str_eq(ts_toml_get(r, "c")->str, "raw \\n text");
  cr_assert_str_eq(ts_toml_get(r, "d")->str,
                   "two quotes \"\" inside and at the end\"\"");
  cr_assert_str_eq(ts_toml_get(r, "e")->str, "'one quote' ");
  ts_toml_free(r);
}

Test(toml, nul_escape_keeps_length) {
  struct ts_toml_value *r = parse_ok("a = \"x\\u0000y\"\n");
  const struct ts_toml_value *v = ts_toml_get(r, "a");
  cr_assert_eq(v->len, 3);
  cr_assert_eq(memcmp(v->str, "x\0y", 3), 0);
  char *w = write_ok(r);
  cr_assert(strstr(w, "\\u0000"));
  free(w);
  ts_toml_free(r);
}

Test(toml, tables_and_arrays_of_tables) {
  struct ts_toml_value *r = parse_ok(
      "[a.b]\nx = 1\n"
      "[a]\ny = 2\n"
      "[[p]]\nname = \"one\"\n[p.sub]\nz = 1\n[[p.w]]\nn = 1\n[[p.w]]\nn = 2\n"
      "[[p]]\nname = \"two\"\n"
      "[fruit]\napple.color = \"red\"\napple.taste.sweet = true\n"
      "[fruit.apple.texture]\nsmooth = true\n");
  const struct ts_toml_value *a = ts_toml_get(r, "a");
  cr_assert_eq(ts_toml_get(ts_toml_get(a, "b"), "x")->integer, 1);
  cr_assert_eq(ts_toml_get(a, "y")->integer, 2);
  const struct ts_toml_value *p = ts_toml_get(r, "p");
  cr_assert_eq(p->type, TS_TOML_ARRAY);
  cr_assert_eq(p->nitems, 2);
  cr_assert_eq(ts_toml_get(p->items[0], "w")->nitems, 2);
  cr_assert_eq(ts_toml_get(ts_toml_get(p->items[0], "sub"), "z")->integer, 1);
  cr_assert_str_eq(ts_toml_get(p->items[1], "name")->str, "two");
  const struct ts_toml_value *apple = ts_toml_get(ts_toml_get(r, "fruit"),
                                                  "apple");
  cr_assert(ts_toml_get(ts_toml_get(apple, "texture"), "smooth")->boolean);
  ts_toml_free(r);
}

Test(toml, arrays_multiline_trailing_comma_comments) {
  struct ts_toml_value *r = parse_ok(
      "a = [\n  1, # one\n  2,\n\n  # nothing\n  3,\n]\n"
      "m = [\"x\", 1, [2, 3], {k = \"v\"}]\n"
      "e = []\n"
      "it = { name = \"attrs\", ver.major = 25 }\n");
  cr_assert_eq(ts_toml_get(r, "a")->nitems, 3);
  cr_assert_eq(ts_toml_get(r, "m")->nitems, 4);
  cr_assert_eq(ts_toml_get(r, "e")->nitems, 0);
  const struct ts_toml_value *it = ts_toml_get(r, "it");
  cr_assert_eq(ts_toml_get(ts_toml_get(it, "ver"), "major")->integer, 25);
  ts_toml_free(r);
}

Test(toml, errors_carry_line_and_column) {
  parse_bad("a = 1\nb = 2\nb = 3\n", TS_E_PARSE, "3:1: duplicate key 'b'");
  parse_bad("x = \"bad \\q escape\"\n", TS_E_PARSE, "1:10: invalid escape '\\q'");
  parse_bad("# é\nv = \"é\" junk\n", TS_E_PARSE, "2:9:");
}

Test(toml, hostile_definitions) {
  parse_bad("[a]\n[a]\n", TS_E_PARSE, "defined twice");
  parse_bad("a = 1\n[a]\n", TS_E_PARSE, NULL);
  parse_bad("[a]\nb.c = 1\n[a.b]\n", TS_E_PARSE, "defined twice");
  parse_bad("[a.b.c]\nz = 9\n[a]\nb.c.t = 1\n", TS_E_PARSE, NULL);
  parse_bad("a = {x = 1}\na.y = 2\n", TS_E_PARSE, NULL);
  parse_bad("a = {x = 1}\n[a.b]\n", TS_E_PARSE, NULL);
  parse_bad("a = [1]\n[[a]]\n", TS_E_PARSE, "cannot append");
  parse_bad("[[a]]\n[a]\n", TS_E_PARSE, NULL);
  parse_bad("a = {x = 1, x = 2}\n", TS_E_PARSE, "duplicate key 'x'");
  parse_bad("a = {x = 1,}\n", TS_E_PARSE, "trailing comma");
  parse_bad("a = {x = 1,\n y = 2}\n", TS_E_PARSE, NULL);
  parse_bad("a.b = 1\na = 2\n", TS_E_PARSE, "duplicate key 'a'");
  parse_bad("\"\\u0000\" = 1\n", TS_E_PARSE, "U+0000");
}

Test(toml, hostile_values) {
  parse_bad("a = \"\\uD800\"\n", TS_E_PARSE, "scalar value");
  parse_bad("a = \"\\U00110000\"\n", TS_E_PARSE, "scalar value");
  parse_bad("a = \"\\u12\"\n", TS_E_PARSE, NULL);
  parse_bad("a = \"\\x41\"\n", TS_E_PARSE, "invalid escape");
  parse_bad("a = \"line\nbreak\"\n", TS_E_PARSE, "newline");
  parse_bad("a = \"unterminated\n", TS_E_PARSE, NULL);
  parse_bad("a = \"\x01\"\n", TS_E_PARSE, "control character");
  parse_bad("a = 1 # bell \x07\n", TS_E_PARSE, "comment");
  parse_bad("a = \"\xc3\x28\"\n", TS_E_PARSE, "UTF-8");
  parse_bad("a = \"\xed\xa0\x80\"\n", TS_E_PARSE, "UTF-8"); /* surrogate */
  parse_bad("a = 9223372036854775808\n", TS_E_PARSE, "out of range");
  parse_bad("a = 0x8000000000000000\n", TS_E_PARSE, "out of range");
  parse_bad("a = 012\n", TS_E_PARSE, "leading zero");
  parse_bad("a = 1__0\n", TS_E_PARSE, NULL);
  parse_bad("a = 1_\n", TS_E_PARSE, NULL);
  parse_bad("a = +0x10\n", TS_E_PARSE, NULL);
  parse_bad("a = 1.\n", TS_E_PARSE, NULL);
  parse_bad("a = .5\n", TS_E_PARSE, NULL);
  parse_bad("a = 2025-02-29T00:00:00Z\n", TS_E_PARSE, NULL);
  parse_bad("a = 2025-13-01\n", TS_E_PARSE, NULL);
  parse_bad("a = 24:00:00\n", TS_E_PARSE, NULL);
  parse_bad("a = 07:32\n", TS_E_PARSE, NULL); /* TOML 1.0 needs seconds */
  parse_bad("a = tru\n", TS_E_PARSE, NULL);
  parse_bad("a = \n", TS_E_PARSE, "expected a value");
  parse_bad("a = 1 b = 2\n", TS_E_PARSE, "end of the line");
  parse_bad("a = 1\r\n b = 2\r", TS_E_PARSE, NULL);
  parse_bad("= 1\n", TS_E_PARSE, "expected a key");
  parse_bad("[a\n", TS_E_PARSE, NULL);
  parse_bad("[[a]\n", TS_E_PARSE, NULL);
  parse_bad("a = [1, 2\n", TS_E_PARSE, NULL);
  parse_bad("a = [1 2]\n", TS_E_PARSE, NULL);
  struct ts_toml_value *ok = parse_ok("a = 2024-02-29T23:59:59Z\r\nb = 1\r\n");
  ts_toml_free(ok);
}

Test(toml, depth_cap) {
  char buf[512];
  size_t n = 0;
  n += (size_t)snprintf(buf, sizeof buf, "a = ");
  for (int i = 0; i < 100; i++)
    buf[n++] = '[';
  for (int i = 0; i < 100; i++)
    buf[n++] = ']';
  buf[n++] = '\n';
  buf[n] = '\0';
  parse_bad(buf, TS_E_TOO_BIG, "deeper");
  n = (size_t)snprintf(buf, sizeof buf, "a = ");
  for (int i = 0; i < 80; i++)
    n += (size_t)snprintf(buf + n, sizeof buf - n, "{b=");
  n += (size_t)snprintf(buf + n, sizeof buf - n, "1");
  for (int i = 0; i < 80; i++)
    buf[n++] = '}';
  buf[n++] = '\n';
  buf[n] = '\0';
  parse_bad(buf, TS_E_TOO_BIG, NULL);
  /* dotted keys count toward the cap as well */
  struct ts_buf b;
  ts_buf_init(&b, 0);
  cr_assert_eq(ts_buf_append_str(&b, "x"), TS_OK);
  for (int i = 0; i < 63; i++)
    cr_assert_eq(ts_buf_append_str(&b, ".x"), TS_OK);
  cr_assert_eq(ts_buf_append_str(&b, " = [[1]]\n"), TS_OK);
  parse_bad(b.data, TS_E_TOO_BIG, NULL);
  ts_buf_clear(&b);
}

Test(toml, size_cap) {
  size_t n = (size_t)TS_CAP_LOCKFILE + 1;
  char *big = malloc(n);
  cr_assert_not_null(big);
  memset(big, '#', n);
  struct ts_toml_value *root = NULL;
  struct ts_error err = {0};
  cr_assert_eq(ts_toml_parse(big, n, &root, &err), TS_E_TOO_BIG);
  free(big);
}

Test(toml, many_keys_use_the_index) {
  struct ts_buf b;
  ts_buf_init(&b, 0);
  for (int i = 0; i < 20000; i++)
    cr_assert_eq(ts_buf_printf(&b, "k%d = %d\n", i, i), TS_OK);
  struct ts_toml_value *r = parse_ok(b.data);
  cr_assert_eq(r->nkvs, 20000);
  cr_assert_eq(ts_toml_get(r, "k12345")->integer, 12345);
  cr_assert_null(ts_toml_get(r, "k20000"));
  cr_assert_eq(ts_buf_append_str(&b, "k777 = 1\n"), TS_OK);
  parse_bad(b.data, TS_E_PARSE, "20001:1: duplicate key 'k777'");
  ts_toml_free(r);
  ts_buf_clear(&b);
}

Test(toml, roundtrips) {
  roundtrip("a = 1\n[t]\nb = \"x\"\n[t.u]\nc = [1, 2]\n");
  roundtrip("[[p]]\nn = 1\n[[p.w]]\nq = 'x'\n[p.s]\nz = 1979-05-27\n[[p]]\n");
  roundtrip("[x.y.z]\n[x]\nk = {a.b = 1, c = [{d = 2}]}\n");
  roundtrip("\"key with space\" = \"tab\\tquote\\\"back\\\\ctl\\u001f\\u007f\"\n");
  roundtrip("\"\" = 1\n'quoted.dot' = 2\nf = [1.5, -0.0, +inf, nan]\n");
  roundtrip("[fruit]\napple.color = \"red\"\n[fruit.apple.texture]\ns = true\n");
  roundtrip("e = {}\narr = []\n[empty]\n");
}

Test(toml, datetime_check) {
  enum ts_toml_datetime_kind k;
  cr_assert(ts_toml_datetime_check("2025-01-25T11:30:10.164985+00:00", 32, &k));
  cr_assert_eq(k, TS_TOML_OFFSET_DATETIME);
  cr_assert(ts_toml_datetime_check("2025-03-06T12:28:57.760769", 26, &k));
  cr_assert_eq(k, TS_TOML_LOCAL_DATETIME);
  cr_assert_not(ts_toml_datetime_check("2025-03-06T12:28", 16, &k));
  cr_assert_not(ts_toml_datetime_check("yesterday", 9, &k));
  cr_assert_null(ts_toml_new_datetime("not a date", 10));
}

Test(toml, builders_and_writer_layout) {
  struct ts_toml_value *root = ts_toml_new_table();
  cr_assert_eq(ts_toml_table_set_str(root, "name", "x"), TS_OK);
  struct ts_toml_value *h = ts_toml_new_table();
  h->inline_form = true;
  cr_assert_eq(ts_toml_table_set_str(h, "sha256", "ab"), TS_OK);
  cr_assert_eq(ts_toml_table_set(root, "hashes", h), TS_OK);
  struct ts_toml_value *aot = ts_toml_new_array();
  for (int i = 0; i < 2; i++) {
    struct ts_toml_value *t = ts_toml_new_table();
    cr_assert_eq(ts_toml_table_set(t, "n", ts_toml_new_integer(i)), TS_OK);
    cr_assert_eq(ts_toml_array_push(aot, t), TS_OK);
  }
  cr_assert_eq(ts_toml_table_set(root, "w", aot), TS_OK);
  struct ts_toml_value *tool = ts_toml_new_table();
  struct ts_toml_value *mine = ts_toml_new_table();
  cr_assert_eq(ts_toml_table_set(mine, "flag", ts_toml_new_bool(true)), TS_OK);
  cr_assert_eq(ts_toml_table_set(tool, "mine", mine), TS_OK);
  cr_assert_eq(ts_toml_table_set(root, "tool", tool), TS_OK);
  /* replacing a key keeps its place */
  cr_assert_eq(ts_toml_table_set_str(root, "name", "y"), TS_OK);
  char *w = write_ok(root);
  cr_assert_str_eq(w, "name = \"y\"\n"
                      "hashes = { sha256 = \"ab\" }\n"
                      "\n[[w]]\nn = 0\n"
                      "\n[[w]]\nn = 1\n"
                      "\n[tool.mine]\nflag = true\n");
  free(w);
  ts_toml_free(root);
  /* the writer refuses strings that are not UTF-8 */
  struct ts_toml_value *bad = ts_toml_new_table();
  cr_assert_eq(ts_toml_table_set(bad, "k", ts_toml_new_string("\xff", 1)), TS_OK);
  struct ts_buf b;
  ts_buf_init(&b, 0);
  cr_assert_eq(ts_toml_write(bad, &b, NULL), TS_E_INVALID);
  ts_buf_clear(&b);
  ts_toml_free(bad);
}

Test(toml, spec_example_roundtrip) {
  const char *path = TS_SHARED_DIR
      "/conformance/packaging/tests/pylock/pylock.spec-example.toml";
  FILE *f = fopen(path, "rb");
  if (!f)
    cr_skip_test("%s absent", path);
  char buf[16384];
  size_t n = fread(buf, 1, sizeof buf - 1, f);
  fclose(f);
  buf[n] = '\0';
  roundtrip(buf);
  struct ts_toml_value *r = parse_ok(buf);
  const struct ts_toml_value *tool = ts_toml_get(ts_toml_get(r, "tool"),
                                                 "mousebender");
  cr_assert_eq(ts_toml_get(tool, "run-on")->datetime_kind,
               TS_TOML_LOCAL_DATETIME);
  ts_toml_free(r);
}
