/* libFuzzer target: the bytes are a wheel's RECORD.  Parsing must not
 * crash or leak whatever the quoting; every digest is decoded (an error is
 * fine, reading past the field is not); and what parses must survive being
 * written back and parsed again unchanged (csv.writer's quoting). */
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "wheel/record.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  struct ts_error err = {0};
  struct ts_record r = {0};
  if (ts_record_parse((const char *)data, size, &r, &err) != TS_OK) {
    ts_record_clear(&r);
    return 0;
  }
  struct ts_buf b;
  ts_buf_init(&b, 0);
  for (size_t i = 0; i < r.count; i++) {
    uint8_t digest[32];
    if (r.rows[i].hash[0])
      ts_record_hash_sha256(r.rows[i].hash, digest, &err);
    if (ts_record_write_row(&b, r.rows[i].path, r.rows[i].hash, r.rows[i].size) != TS_OK)
      __builtin_trap();
  }
  struct ts_record again = {0};
  if (ts_record_parse(b.data ? b.data : "", b.len, &again, &err) != TS_OK || again.count != r.count)
    __builtin_trap(); /* what we write must parse back */
  for (size_t i = 0; i < r.count; i++)
    if (strcmp(r.rows[i].path, again.rows[i].path) != 0 ||
        strcmp(r.rows[i].hash, again.rows[i].hash) != 0 ||
        strcmp(r.rows[i].size, again.rows[i].size) != 0)
      __builtin_trap();
  ts_record_clear(&again);
  ts_buf_clear(&b);
  ts_record_clear(&r);
  return 0;
}
