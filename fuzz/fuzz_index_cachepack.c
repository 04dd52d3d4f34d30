/* libFuzzer target: a cache pack file (index/cache_pack.h) read back
 * through the cache, whatever its entries' offsets, lengths and bytes say.
 * The input is the pack's body and, at its end, n = data[0] % 8 index
 * records of 56 bytes; the harness adds the magic and a trailer whose
 * index checksum is right, so that the fuzzer reaches the records and the
 * entries instead of stopping at the checksum.  Every record's key is then
 * looked up as a page and as a METADATA file.  Nothing may crash, leak or
 * read out of bounds. */
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/sha256.h"
#include "index/cache.h"

#define REC_LEN 56

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static char root[64];
static char pack_path[128];

static void setup(void) {
  if (root[0])
    return;
  snprintf(root, sizeof root, "/tmp/ts-fuzz-cachepack-XXXXXX");
  if (!mkdtemp(root))
    abort();
  char dir[96];
  snprintf(dir, sizeof dir, "%s/packs-v1", root);
  if (mkdir(dir, 0755) != 0)
    abort();
  snprintf(pack_path, sizeof pack_path, "%s/0001.pack", dir);
}

static void put_u64(uint8_t *p, uint64_t v) {
  for (int i = 0; i < 8; i++)
    p[i] = (uint8_t)(v >> (8 * i));
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  setup();
  if (size < 1)
    return 0;
  size_t n = data[0] % 8;
  data++;
  size--;
  if (size < n * REC_LEN)
    return 0;
  size_t body = size - n * REC_LEN;
  uint8_t trailer[8 + 16 + TS_SHA256_LEN];
  memcpy(trailer, "TSPKEND1", 8);
  put_u64(trailer + 8, 8 + body);
  put_u64(trailer + 16, n);
  ts_sha256(data + body, n * REC_LEN, trailer + 24);
  FILE *f = fopen(pack_path, "wb");
  if (!f)
    abort();
  fwrite("TSPACK1\n", 1, 8, f);
  fwrite(data, 1, size, f);
  fwrite(trailer, 1, sizeof trailer, f);
  fclose(f);

  struct ts_cache *c = ts_cache_open(root);
  for (size_t i = 0; i < n; i++) {
    char key[TS_SHA256_HEX_LEN + 1];
    ts_sha256_hex(data + body + i * REC_LEN + 8, key);
    struct ts_error err = {0};
    struct ts_cache_entry e;
    if (ts_cache_get_page(c, key, 1u << 16, &e, &err) == TS_OK)
      ts_cache_entry_clear(&e);
    struct ts_buf out;
    ts_buf_init(&out, 1u << 16);
    ts_cache_get_metadata(c, key, &out, &err);
    ts_buf_clear(&out);
  }
  ts_cache_close(c);
  return 0;
}
