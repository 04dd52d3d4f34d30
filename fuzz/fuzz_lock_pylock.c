/* libFuzzer target: the TOML reader/writer and the PEP 751 reader/writer.
 * Invariants: whatever parses writes, the written text parses back to an
 * equal tree (TOML) / the same bytes (pylock), and export never crashes. */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "lock/export.h"
#include "lock/pylock.h"
#include "toml/toml.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void check_toml(const char *s, size_t n) {
  struct ts_toml_value *a = NULL;
  if (ts_toml_parse(s, n, &a, NULL) != TS_OK)
    return;
  struct ts_buf w1, w2;
  ts_buf_init(&w1, 0);
  ts_buf_init(&w2, 0);
  if (ts_toml_write(a, &w1, NULL) != TS_OK)
    abort(); /* every parsed tree must be writable */
  struct ts_toml_value *b = NULL;
  struct ts_error err = {0};
  if (ts_toml_parse(w1.data ? w1.data : "", w1.len, &b, &err) != TS_OK)
    abort();
  if (!ts_toml_equal(a, b))
    abort();
  if (ts_toml_write(b, &w2, NULL) != TS_OK || w1.len != w2.len ||
      (w1.len && memcmp(w1.data, w2.data, w1.len) != 0))
    abort();
  struct ts_toml_value *c = ts_toml_dup(a);
  if (!c || !ts_toml_equal(a, c))
    abort();
  ts_toml_free(c);
  ts_toml_free(a);
  ts_toml_free(b);
  ts_buf_clear(&w1);
  ts_buf_clear(&w2);
}

static void check_pylock(const char *s, size_t n) {
  struct ts_pylock *l = NULL;
  if (ts_pylock_parse(s, n, "fuzz.toml", &l, NULL) != TS_OK)
    return;
  struct ts_buf w1, w2, ex;
  ts_buf_init(&w1, 0);
  ts_buf_init(&w2, 0);
  ts_buf_init(&ex, 0);
  if (ts_pylock_write(l, &w1, NULL) != TS_OK)
    abort();
  struct ts_pylock *back = NULL;
  if (ts_pylock_parse(w1.data, w1.len, NULL, &back, NULL) != TS_OK)
    abort(); /* what we write, we read */
  if (ts_pylock_write(back, &w2, NULL) != TS_OK || w1.len != w2.len ||
      memcmp(w1.data, w2.data, w1.len) != 0)
    abort();
  (void)ts_export_requirements(l, NULL, &ex, NULL);
  ts_pylock_sort(l);
  ts_buf_clear(&w1);
  ts_buf_clear(&w2);
  ts_buf_clear(&ex);
  ts_pylock_free(l);
  ts_pylock_free(back);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  check_toml((const char *)data, size);
  check_pylock((const char *)data, size);
  return 0;
}
