/* libFuzzer target: the bytes are a whole archive (the "tail" is all of
 * it), then shorter tails must either ask for more or agree; every member is
 * read from a range buffer with a cap.  Nothing may crash, leak or read out
 * of bounds, whatever the sizes and offsets claim. */
#include <stddef.h>
#include <stdint.h>

#include "zip/zip.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  struct ts_error err = {0};
  struct ts_zip_location loc;
  for (size_t t = size < 64 ? size : 64; t < size; t *= 4)
    ts_zip_locate(data + size - t, t, size, &loc, &err);
  struct ts_zip_archive *a = NULL;
  if (ts_zip_open_tail(data, size, size, &a, &err) != TS_OK)
    return 0;
  for (size_t i = 0; i < a->count && i < 64; i++) {
    const struct ts_zip_entry *e = &a->entries[i];
    if (ts_zip_find(a, e->name, e->name_len) == NULL)
      __builtin_trap(); /* every parsed name must be found again */
    uint64_t s, end;
    ts_zip_entry_span(e, &s, &end);
    if (s > end || end > size)
      __builtin_trap(); /* spans must lie inside the archive */
    struct ts_buf out;
    ts_buf_init(&out, 1u << 20);
    ts_zip_read_member_buf(e, data + s, (size_t)(end - s), s, &out, &err);
    ts_buf_clear(&out);
  }
  ts_zip_close(a);
  return 0;
}
