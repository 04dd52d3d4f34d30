/* rules/builtin.h and rules/rules_codec.h: the bundled rules.yaml compiled
 * into the binary at build time is the run-time parse of that file, and is
 * used only for exactly its bytes. */
#include <criterion/criterion.h>
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/buf.h"
#include "core/fs.h"
#include "rules/builtin.h"
#include "rules/rules.h"
#include "rules/rules_cache.h"
#include "rules/rules_codec.h"

#define BUNDLED TS_FIXTURES_DIR "/../rules.yaml"

static void read_bundled(struct ts_buf *b) {
  struct ts_error e = {0};
  ts_buf_init(b, TS_CAP_RULES_FILE);
  cr_assert_eq(ts_fs_read_file(BUNDLED, b, &e), TS_OK, "%s", e.detail);
}

/* Two parses are equal when their bytes are: the codec walks every field
 * (its static asserts fail on a new one). */
static void expect_same(const struct ts_rules *a, const struct ts_rules *b) {
  struct ts_buf x, y;
  ts_buf_init(&x, 0);
  ts_buf_init(&y, 0);
  cr_assert_eq(ts_rules_encode(a, &x), TS_OK);
  cr_assert_eq(ts_rules_encode(b, &y), TS_OK);
  cr_expect_eq(x.len, y.len);
  cr_expect(x.len == y.len && memcmp(x.data, y.data, x.len) == 0, "the parses differ");
  ts_buf_clear(&x);
  ts_buf_clear(&y);
}

static size_t entries(const char *cache_root) {
  char dir[512];
  snprintf(dir, sizeof dir, "%s/%s", cache_root, TS_RULES_CACHE_DIR);
  DIR *d = opendir(dir);
  size_t n = 0;
  for (struct dirent *e; d && (e = readdir(d));)
    n += e->d_name[0] != '.';
  if (d)
    closedir(d);
  return n;
}

Test(rules_builtin, is_the_run_time_parse_of_rules_yaml) {
  struct ts_buf src;
  read_bundled(&src);
  cr_assert_eq(ts_rules_bundled.source_len, src.len,
               "the binary was built from another rules.yaml");
  cr_assert(memcmp(ts_rules_bundled.source, src.data, src.len) == 0);
  struct ts_rules *parsed = NULL;
  struct ts_error e = {0};
  cr_assert_eq(ts_rules_parse(src.data, src.len, "/x/rules.yaml", &parsed, NULL, &e), TS_OK,
               "%s", e.detail);
  struct ts_rules *built = ts_rules_builtin_parse(&ts_rules_bundled, src.data, src.len,
                                                  "/x/rules.yaml");
  cr_assert_not_null(built);
  expect_same(built, parsed);
  cr_expect_gt(built->nreleases, 10);
  cr_expect_gt(built->nrules, 0);
  cr_expect_str_eq(built->rules[0].file, "/x/rules.yaml");
  cr_expect_eq(built->rules[0].line, parsed->rules[0].line);
  ts_rules_free(built);
  ts_rules_free(parsed);
  ts_buf_clear(&src);
}

Test(rules_builtin, other_bytes_are_not_answered) {
  struct ts_buf src;
  read_bundled(&src);
  cr_expect_null(ts_rules_builtin_parse(&ts_rules_bundled, src.data, src.len - 1, "r"));
  src.data[src.len / 2] ^= 1;
  cr_expect_null(ts_rules_builtin_parse(&ts_rules_bundled, src.data, src.len, "r"));
  ts_buf_clear(&src);
}

Test(rules_builtin, codec_round_trip_and_damage) {
  struct ts_rules *r = NULL;
  struct ts_error e = {0};
  cr_assert_eq(ts_rules_load_file(BUNDLED, &r, NULL, &e), TS_OK, "%s", e.detail);
  struct ts_buf b;
  ts_buf_init(&b, 0);
  cr_assert_eq(ts_rules_encode(r, &b), TS_OK);
  struct ts_rules *back = ts_rules_decode(b.data, b.len, BUNDLED);
  cr_assert_not_null(back);
  expect_same(back, r);
  cr_expect_null(ts_rules_decode(b.data, b.len - 1, BUNDLED), "a cut blob decoded");
  ts_rules_free(back);
  ts_rules_free(r);
  ts_buf_clear(&b);
  struct ts_buf small;
  ts_buf_init(&small, 16);
  cr_assert_eq(ts_rules_load_file(BUNDLED, &r, NULL, &e), TS_OK, "%s", e.detail);
  cr_expect_neq(ts_rules_encode(r, &small), TS_OK, "a capped buffer took the rules");
  ts_rules_free(r);
  ts_buf_clear(&small);
}

/* The loader takes the builtin for the bundled bytes wherever they lie
 * (no cache entry written), and parses and caches any other bytes. */
Test(rules_builtin, loader_uses_it_for_those_bytes_only) {
  char dir[] = "/tmp/ts-rules-builtin-XXXXXX";
  cr_assert_not_null(mkdtemp(dir));
  char copy[512], edited[512];
  snprintf(copy, sizeof copy, "%s/rules.yaml", dir);
  snprintf(edited, sizeof edited, "%s/edited.yaml", dir);
  struct ts_buf src;
  read_bundled(&src);
  struct ts_error e = {0};
  cr_assert_eq(ts_fs_write_atomic(copy, src.data, src.len, &e), TS_OK, "%s", e.detail);
  cr_assert_eq(ts_buf_append_str(&src, "# a local edit\n"), TS_OK);
  cr_assert_eq(ts_fs_write_atomic(edited, src.data, src.len, &e), TS_OK, "%s", e.detail);
  struct ts_rules *r = NULL;
  cr_assert_eq(ts_rules_load_file_cached(copy, dir, &ts_rules_bundled, &r, &e), TS_OK, "%s",
               e.detail);
  cr_expect_str_eq(r->rules[0].file, copy);
  cr_expect_eq(entries(dir), 0, "the builtin's bytes were cached");
  struct ts_rules *p = NULL;
  cr_assert_eq(ts_rules_load_file_cached(edited, dir, &ts_rules_bundled, &p, &e), TS_OK, "%s",
               e.detail);
  cr_expect_eq(entries(dir), 1, "an edited file was not parsed and cached");
  cr_expect_str_eq(p->rules[0].file, edited);
  ts_rules_free(p);
  /* without a cache the builtin still answers */
  cr_assert_eq(ts_rules_load_file_cached(copy, NULL, &ts_rules_bundled, &p, &e), TS_OK);
  expect_same(p, r);
  ts_rules_free(p);
  ts_rules_free(r);
  ts_buf_clear(&src);
  char cmd[600];
  snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
  cr_expect_eq(system(cmd), 0);
}
