/* core/arena.h and core/json_doc.h: the bump allocator and cJSON documents
 * parsed into it. */
#include <criterion/criterion.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "core/arena.h"
#include "core/json_doc.h"

Test(core_arena, blocks_are_aligned_distinct_and_kept) {
  struct ts_arena a;
  ts_arena_init(&a);
  enum { N = 5000 };
  unsigned char **p = calloc(N, sizeof *p);
  size_t *len = calloc(N, sizeof *len);
  for (size_t i = 0; i < N; i++) {
    /* small ones, a few larger than a chunk, and empty ones */
    len[i] = i % 997 == 0 ? 300000 + i : i % 13 == 0 ? 0 : 1 + (i * 7919) % 200;
    p[i] = ts_arena_alloc(&a, len[i]);
    cr_assert_not_null(p[i]);
    cr_expect_eq((uintptr_t)p[i] % 16, 0, "block %zu is not aligned", i);
    memset(p[i], (int)(i & 0xff), len[i]);
  }
  for (size_t i = 0; i < N; i++)
    for (size_t k = 0; k < len[i]; k++)
      if (p[i][k] != (unsigned char)(i & 0xff))
        cr_assert_fail("block %zu was overwritten at %zu", i, k);
  for (size_t i = 1; i < N; i++)
    cr_expect_neq(p[i], p[i - 1]);
  cr_expect_geq(a.used, 5 * 300000);
  ts_arena_clear(&a);
  cr_expect_eq(a.used, 0);
  cr_expect_null(a.chunks);
  /* usable again after a clear */
  char *s = ts_arena_alloc(&a, 6);
  memcpy(s, "again", 6);
  cr_expect_str_eq(s, "again");
  ts_arena_clear(&a);
  free(p);
  free(len);
}

static const char page[] = "{\"meta\":{\"api-version\":\"1.1\"},\"files\":[{\"filename\":\"a-1.whl\","
                           "\"url\":\"../a-1.whl\",\"size\":12,\"yanked\":\"bad \\u00e9\"}]}";

static void expect_page(const cJSON *root) {
  cr_assert_not_null(root);
  const cJSON *files = cJSON_GetObjectItemCaseSensitive(root, "files");
  const cJSON *f = cJSON_GetArrayItem(files, 0);
  cr_expect_str_eq(cJSON_GetObjectItemCaseSensitive(f, "filename")->valuestring, "a-1.whl");
  cr_expect_str_eq(cJSON_GetObjectItemCaseSensitive(f, "yanked")->valuestring, "bad \xc3\xa9");
  cr_expect_eq(cJSON_GetObjectItemCaseSensitive(f, "size")->valueint, 12);
}

Test(core_json, without_setup_a_document_is_cjsons_own) {
  struct ts_json_doc d;
  expect_page(ts_json_doc_parse(&d, page, sizeof page - 1));
  cr_expect_not(d.in_arena);
  ts_json_doc_free(&d);
}

Test(core_json, with_setup_a_document_lives_in_its_arena) {
  ts_json_setup();
  struct ts_json_doc d;
  /* not NUL-terminated: the length bounds the parse */
  char *copy = malloc(sizeof page - 1);
  memcpy(copy, page, sizeof page - 1);
  expect_page(ts_json_doc_parse(&d, copy, sizeof page - 1));
  cr_expect(d.in_arena);
  cr_expect_gt(d.arena.used, 0);
  ts_json_doc_free(&d);
  free(copy);
  /* malformed text: NULL, and the partial tree goes with the arena */
  cr_expect_null(ts_json_doc_parse(&d, page, sizeof page - 3));
  ts_json_doc_free(&d);
  /* outside a parse the hooks are malloc and free: trees built, printed
   * and deleted the ordinary way still work */
  cJSON *o = cJSON_CreateObject();
  cJSON_AddStringToObject(o, "k", "v");
  char *text = cJSON_PrintUnformatted(o);
  cr_expect_str_eq(text, "{\"k\":\"v\"}");
  cJSON_free(text);
  cJSON_Delete(o);
  cJSON *parsed = cJSON_Parse(page);
  expect_page(parsed);
  cJSON_Delete(parsed);
}
