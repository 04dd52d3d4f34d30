/* wheel/: RECORD CSV parsing and writing, sha256 field decoding, member
 * path safety table, wheel file name splitting. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/sha256.h"
#include "wheel/record.h"
#include "wheel/scripts.h"
#include "wheel/unpack.h"
#include "wheel/wheel.h"

Test(record, parse_python_csv) {
  const char text[] =
      "pkg/__init__.py,sha256=AAAA,10\r\n"
      "\"pkg/a,b.py\",sha256=BBBB,3\n"
      "\"pkg/q\"\"uote.py\",,\n"
      "\n"
      "pkg-1.0.dist-info/RECORD,,";
  struct ts_record r;
  struct ts_error err = {0};
  cr_assert_eq(ts_record_parse(text, sizeof text - 1, &r, &err), TS_OK, "%s", err.detail);
  cr_assert_eq(r.count, 4);
  cr_assert_str_eq(r.rows[0].path, "pkg/__init__.py");
  cr_assert_str_eq(r.rows[0].size, "10");
  cr_assert_str_eq(r.rows[1].path, "pkg/a,b.py");
  cr_assert_str_eq(r.rows[2].path, "pkg/q\"uote.py");
  cr_assert_str_eq(r.rows[2].hash, "");
  cr_assert_str_eq(r.rows[3].path, "pkg-1.0.dist-info/RECORD");
  ts_record_clear(&r);
}

Test(record, parse_errors) {
  const char *bad[] = {"a,b\n", "a,b,c,d\n", ",sha256=x,1\n", "\"unterminated,x,1\n", "\"a\"x,b,c\n"};
  for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
    struct ts_record r;
    struct ts_error err = {0};
    cr_assert_neq(ts_record_parse(bad[i], strlen(bad[i]), &r, &err), TS_OK, "%s", bad[i]);
    ts_record_clear(&r);
  }
  /* a NUL inside a path is refused, not truncated */
  struct ts_record r;
  cr_assert_neq(ts_record_parse("a\0b,,\n", 6, &r, NULL), TS_OK);
  ts_record_clear(&r);
}

Test(record, write_round_trip) {
  struct ts_buf b;
  ts_buf_init(&b, 0);
  cr_assert_eq(ts_record_write_row(&b, "plain/x.py", "sha256=abc", "1"), TS_OK);
  cr_assert_eq(ts_record_write_row(&b, "we,ird\"name", "", ""), TS_OK);
  cr_assert_str_eq(b.data, "plain/x.py,sha256=abc,1\n\"we,ird\"\"name\",,\n");
  struct ts_record r;
  cr_assert_eq(ts_record_parse(b.data, b.len, &r, NULL), TS_OK);
  cr_assert_str_eq(r.rows[1].path, "we,ird\"name");
  ts_record_clear(&r);
  ts_buf_clear(&b);
}

Test(record, sha256_field) {
  uint8_t d[32], got[32];
  char b64[44], field[64];
  ts_sha256("hello", 5, d);
  ts_sha256_b64url(d, b64);
  snprintf(field, sizeof field, "sha256=%s", b64);
  struct ts_error err = {0};
  cr_assert_eq(ts_record_hash_sha256(field, got, &err), TS_OK, "%s", err.detail);
  cr_assert(memcmp(d, got, 32) == 0);
  strcat(field, "=");  /* padding is tolerated */
  cr_assert_eq(ts_record_hash_sha256(field, got, &err), TS_OK);
  cr_assert_eq(ts_record_hash_sha256("md5=abc", got, &err), TS_E_UNSUPPORTED);
  cr_assert_eq(ts_record_hash_sha256("sha256=short", got, &err), TS_E_PARSE);
  cr_assert_eq(ts_record_hash_sha256("sha256", got, &err), TS_E_PARSE);
  char bad[64];
  snprintf(bad, sizeof bad, "sha256=%s", b64);
  bad[10] = '+'; /* not base64url */
  cr_assert_eq(ts_record_hash_sha256(bad, got, &err), TS_E_PARSE);
  /* a non-digit anywhere, in the four-digit groups and the last three */
  for (size_t i = 0; i < 43; i++) {
    snprintf(bad, sizeof bad, "sha256=%s", b64);
    bad[7 + i] = i % 2 ? '.' : '\x80';
    cr_assert_eq(ts_record_hash_sha256(bad, got, &err), TS_E_PARSE, "position %zu", i);
    cr_assert(strstr(err.detail, "base64url"), "%s", err.detail);
  }
  /* the last digit's two spare bits must be zero */
  snprintf(bad, sizeof bad, "sha256=%s", b64);
  bad[7 + 42] = bad[7 + 42] == 'A' ? 'B' : (char)(bad[7 + 42] ^ 1);
  cr_assert_eq(ts_record_hash_sha256(bad, got, &err), TS_E_PARSE);
  cr_assert(strstr(err.detail, "malformed"), "%s", err.detail);
}

/* Every digest round-trips through the writer's encoding and the decoder. */
Test(record, sha256_field_round_trips) {
  struct ts_error err = {0};
  for (unsigned k = 0; k < 500; k++) {
    uint8_t d[32], got[32];
    char b64[44], field[64];
    char seed[16];
    snprintf(seed, sizeof seed, "x%u", k);
    ts_sha256(seed, strlen(seed), d);
    if (k == 0)
      memset(d, 0, 32);
    if (k == 1)
      memset(d, 0xff, 32);
    ts_sha256_b64url(d, b64);
    snprintf(field, sizeof field, "sha256=%s", b64);
    cr_assert_eq(ts_record_hash_sha256(field, got, &err), TS_OK, "%s", err.detail);
    cr_assert(memcmp(d, got, 32) == 0, "%s", field);
  }
}

Test(wheel, member_paths) {
  const char *ok[] = {"a", "a/b.py", "a/b/", "pkg-1.0.data/scripts/x", "a/.hidden", "a/..b", "a/b..", "é/ü"};
  const char *bad[] = {"", "/abs", "../x", "a/../b", "a/./b", "./a", "a//b", "a\\b", "C:/x", "c:x",
                       "a/\nb", "a/b\x7f", "..", ".", "a/.."};
  for (size_t i = 0; i < sizeof ok / sizeof ok[0]; i++)
    cr_assert_eq(ts_wheel_check_path(ok[i], strlen(ok[i]), NULL), TS_OK, "'%s'", ok[i]);
  for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
    cr_assert_eq(ts_wheel_check_path(bad[i], strlen(bad[i]), NULL), TS_E_UNSAFE_PATH, "'%s'", bad[i]);
}

Test(wheel, file_names) {
  char *n, *v;
  cr_assert_eq(ts_wheel_parse_filename("/x/torch-2.11.0-py3-none-manylinux_2_28_x86_64.whl", &n, &v, NULL), TS_OK);
  cr_assert_str_eq(n, "torch");
  cr_assert_str_eq(v, "2.11.0");
  free(n);
  free(v);
  cr_assert_eq(ts_wheel_parse_filename("a_b-1.0-1build-py3-none-any.whl", &n, &v, NULL), TS_OK);
  cr_assert_str_eq(n, "a_b");
  free(n);
  free(v);
  const char *bad[] = {"x.whl", "a-1.0.whl", "a-1.0-py3-none-any.zip", "-1.0-py3-none-any.whl",
                       "a-b-c-d-e-f-g.whl"};
  for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
    cr_assert_eq(ts_wheel_parse_filename(bad[i], &n, &v, NULL), TS_E_INVALID, "%s", bad[i]);
}

Test(wheel, entry_points_check) {
  const char good[] = "[console_scripts]\nfoo = a.b:main\nbar=a:Obj.m [extra]\n[other]\nbad/name = x\n";
  cr_assert_eq(ts_wheel_check_entry_points(good, sizeof good - 1, NULL), TS_OK);
  const char *bad[] = {"[console_scripts]\n../x = a:b\n", "[gui_scripts]\nx = a\n",
                       "[console_scripts]\nx = a:b;rm\n", "[console_scripts]\nnoequals\n"};
  for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
    cr_assert_neq(ts_wheel_check_entry_points(bad[i], strlen(bad[i]), NULL), TS_OK, "%s", bad[i]);
}

Test(wheel, direct_url_json) {
  uint8_t d[32] = {0};
  char *j = ts_wheel_direct_url_for_file("/a b/\"x\".whl", d);
  cr_assert(strstr(j, "\"url\": \"file:///a%20b/%22x%22.whl\""), "%s", j);
  cr_assert(strstr(j, "\"hash\": \"sha256=0000"), "%s", j);
  free(j);
}
