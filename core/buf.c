#include "core/buf.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/alloc.h"

void ts_buf_init(struct ts_buf *b, size_t max) {
  b->data = NULL;
  b->len = 0;
  b->alloc = 0;
  b->max = max;
}

void ts_buf_clear(struct ts_buf *b) {
  free(b->data);
  b->data = NULL;
  b->len = 0;
  b->alloc = 0;
}

void ts_buf_reset(struct ts_buf *b) {
  b->len = 0;
  if (b->data)
    b->data[0] = '\0';
}

enum ts_code ts_buf_reserve(struct ts_buf *b, size_t extra) {
  if (extra > (size_t)-1 - b->len - 1)
    return TS_E_TOO_BIG;
  size_t need = b->len + extra + 1;
  if (b->max && need - 1 > b->max)
    return TS_E_TOO_BIG;
  if (need <= b->alloc)
    return TS_OK;
  size_t alloc = b->alloc ? b->alloc : 256;
  while (alloc < need)
    alloc = alloc > ((size_t)-1) / 2 ? need : alloc * 2;
  b->data = ts_xrealloc(b->data, alloc);

  b->alloc = alloc;
  return TS_OK;
}

enum ts_code ts_buf_append(struct ts_buf *b, const void *data, size_t len) {
  enum ts_code rc = ts_buf_reserve(b, len);
  if (rc != TS_OK)
    return rc;
  if (len)
    memcpy(b->data + b->len, data, len);
  b->len += len;
  b->data[b->len] = '\0';
  return TS_OK;
}

enum ts_code ts_buf_append_str(struct ts_buf *b, const char *s) {
  return ts_buf_append(b, s, strlen(s));
}

/* The format attribute lets the compiler check vsnprintf's format here as
 * it checks every caller's (clang's -Wformat-nonliteral otherwise fails). */
__attribute__((format(printf, 2, 0)))
static enum ts_code buf_vprintf(struct ts_buf *b, const char *fmt, va_list ap) {
  va_list again;
  va_copy(again, ap);
  int n = vsnprintf(NULL, 0, fmt, ap);
  enum ts_code rc = n < 0 ? TS_E_INVALID : ts_buf_reserve(b, (size_t)n);
  if (rc == TS_OK) {
    vsnprintf(b->data + b->len, (size_t)n + 1, fmt, again);
    b->len += (size_t)n;
  }
  va_end(again);
  return rc;
}

enum ts_code ts_buf_printf(struct ts_buf *b, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  enum ts_code rc = buf_vprintf(b, fmt, ap);
  va_end(ap);
  return rc;
}

void ts_buf_xprintf(struct ts_buf *b, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  enum ts_code rc = buf_vprintf(b, fmt, ap);
  va_end(ap);
  if (rc != TS_OK)
    abort();
}

void ts_buf_xappend(struct ts_buf *b, const void *data, size_t len) {
  if (ts_buf_append(b, data, len) != TS_OK)
    abort();
}

void ts_buf_xappend_str(struct ts_buf *b, const char *s) {
  if (ts_buf_append_str(b, s) != TS_OK)
    abort();
}

char *ts_buf_take(struct ts_buf *b, size_t *len_out) {
  char *p = b->data;
  size_t len = b->len;
  if (!p) {
    p = ts_xmalloc(1);
    p[0] = '\0';
  }

  if (len_out)
    *len_out = len;
  b->data = NULL;
  b->len = 0;
  b->alloc = 0;
  return p;
}
