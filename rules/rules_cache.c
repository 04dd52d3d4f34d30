/* Parsed rules files in the cache; see rules_cache.h. */
#include "rules/rules_cache.h"

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/alloc.h"
#include "core/buf.h"
#include "core/fs.h"
#include "core/sha256.h"
#include "core/str.h"
#include "rules/builtin.h"
#include "rules/rules_codec.h"

static const char magic[8] = {'T', 'S', 'R', 'U', 'L', 'E', 'S', '\n'};
#define HEADER_LEN (sizeof magic + 4 + TS_SHA256_LEN)
#define ENTRY_FORMAT TS_RULES_CODEC_FORMAT

static char *entry_path(const char *cache_root, const struct ts_buf *file) {
  static const char salt[] = "torchsolve " TS_VERSION "\n";
  char head[sizeof salt + 32];
  int n = snprintf(head, sizeof head, "%sentry format %u\n", salt, ENTRY_FORMAT);
  struct ts_sha256 *h = ts_sha256_new();

  ts_sha256_update(h, head, (size_t)n);
  ts_sha256_update(h, file->data, file->len);
  uint8_t key[TS_SHA256_LEN];
  ts_sha256_final(h, key);
  ts_sha256_free(h);
  char hex[2 * TS_SHA256_LEN + 1];
  ts_sha256_hex(key, hex);
  char *name = ts_xasprintf("%s/%s", TS_RULES_CACHE_DIR, hex);
  char *path = ts_path_join(cache_root, name);
  free(name);
  return path;
}

/* The entry at path decoded, or NULL when it is missing or does not check. */
static struct ts_rules *read_entry(const char *path, const char *file) {
  struct ts_buf b;
  ts_buf_init(&b, TS_CAP_RULES_FILE * 4);
  struct ts_rules *r = NULL;
  if (ts_fs_read_file(path, &b, NULL) != TS_OK || b.len < HEADER_LEN ||
      memcmp(b.data, magic, sizeof magic) != 0)
    goto done;
  const unsigned char *head = (const unsigned char *)b.data + sizeof magic;
  uint32_t format = (uint32_t)head[0] | (uint32_t)head[1] << 8 |
                    (uint32_t)head[2] << 16 | (uint32_t)head[3] << 24;
  if (format != ENTRY_FORMAT)
    goto done;
  const unsigned char *body = (const unsigned char *)b.data + HEADER_LEN;
  size_t body_len = b.len - HEADER_LEN;
  uint8_t sum[TS_SHA256_LEN];
  ts_sha256(body, body_len, sum);
  if (memcmp(head + 4, sum, sizeof sum) != 0)
    goto done;
  r = ts_rules_decode(body, body_len, file);
done:
  ts_buf_clear(&b);
  return r;
}

static void write_entry(const char *cache_root, const char *path, const struct ts_rules *r) {
  struct ts_buf b;
  ts_buf_init(&b, 0);
  const unsigned char head[4 + TS_SHA256_LEN] = {ENTRY_FORMAT & 0xff, (ENTRY_FORMAT >> 8) & 0xff,
                                                 (ENTRY_FORMAT >> 16) & 0xff, ENTRY_FORMAT >> 24};
  bool ok = ts_buf_append(&b, magic, sizeof magic) == TS_OK &&
            ts_buf_append(&b, head, sizeof head) == TS_OK && ts_rules_encode(r, &b) == TS_OK;
  if (ok) {
    ts_sha256(b.data + HEADER_LEN, b.len - HEADER_LEN,
              (uint8_t *)b.data + sizeof magic + 4);
    char *dir = ts_path_join(cache_root, TS_RULES_CACHE_DIR);
    if (ts_fs_write_atomic(path, b.data, b.len, NULL) != TS_OK &&
        ts_fs_mkdirs(dir, NULL) == TS_OK)
      (void)ts_fs_write_atomic(path, b.data, b.len, NULL);
    free(dir);
  }
  ts_buf_clear(&b);
}

enum ts_code ts_rules_load_file_cached(const char *path, const char *cache_root,
                                       const struct ts_rules_builtin *builtin,
                                       struct ts_rules **out, struct ts_error *err) {
  if (!cache_root && !builtin)
    return ts_rules_load_file(path, out, NULL, err);
  *out = NULL;
  struct ts_buf b;
  ts_buf_init(&b, TS_CAP_RULES_FILE);
  enum ts_code rc = ts_fs_read_file(path, &b, err);
  if (rc != TS_OK) {
    ts_buf_clear(&b);
    return rc;
  }
  if (builtin && (*out = ts_rules_builtin_parse(builtin, b.data, b.len, path)) != NULL) {
    ts_buf_clear(&b);
    return TS_OK;
  }
  char *entry = cache_root ? entry_path(cache_root, &b) : NULL;
  if (entry && (*out = read_entry(entry, path)) != NULL) {
    free(entry);
    ts_buf_clear(&b);
    return TS_OK;
  }
  rc = ts_rules_parse(b.data, b.len, path, out, NULL, err);
  if (rc == TS_OK && entry)
    write_entry(cache_root, entry, *out);
  free(entry);
  ts_buf_clear(&b);
  return rc;
}
