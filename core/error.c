#include "core/error.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const struct {
  const char *name;
  int exit_status;
  const char *hint;
} code_table[] = {
#define TS_ERROR_ROW(name, exit, hint) {#name, exit, hint},
    TS_ERROR_LIST(TS_ERROR_ROW)
#undef TS_ERROR_ROW
};

/* s[0..len) as the detail.  One too long for it keeps its beginning and
 * its end around " ... ": a long subject (a URL, a list of indexes) must
 * not push out the reason that follows it.  Cuts fall between UTF-8
 * characters. */
static void put_detail(struct ts_error *err, const char *s, size_t len) {
  char *d = err->detail;
  size_t cap = sizeof err->detail;
  if (len < cap) {
    memcpy(d, s, len);
    d[len] = '\0';
    return;
  }
  static const char gap[] = " ... ";
  size_t head = cap / 3, tail = cap - head - (sizeof gap - 1) - 1;
  while (head && ((unsigned char)s[head] & 0xC0) == 0x80)
    head--;
  size_t from = len - tail;
  while (from < len && ((unsigned char)s[from] & 0xC0) == 0x80)
    from++;
  memcpy(d, s, head);
  memcpy(d + head, gap, sizeof gap - 1);
  memcpy(d + head + sizeof gap - 1, s + from, len - from);
  d[head + sizeof gap - 1 + len - from] = '\0';
}

enum ts_code ts_error_vset(struct ts_error *err, enum ts_code code,
                           const char *fmt, va_list ap) {
  if (!err)
    return code;
  err->code = code;
  char small[TS_ERROR_DETAIL_MAX];
  va_list again;
  va_copy(again, ap);
  int n = vsnprintf(small, sizeof small, fmt, ap);
  if (n < 0) {
    err->detail[0] = '\0';
  } else if ((size_t)n < sizeof small) {
    put_detail(err, small, (size_t)n);
  } else {
    char *full = malloc((size_t)n + 1); /* error paths only; none is fatal */
    if (full && vsnprintf(full, (size_t)n + 1, fmt, again) == n)
      put_detail(err, full, (size_t)n);
    else
      put_detail(err, small, sizeof small - 1);
    free(full);
  }
  va_end(again);
  return code;
}

enum ts_code ts_error_set(struct ts_error *err, enum ts_code code,
                          const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  ts_error_vset(err, code, fmt, ap);
  va_end(ap);
  return code;
}

enum ts_code ts_error_wrap(struct ts_error *err, const char *fmt, ...) {
  if (!err)
    return TS_OK;
  char prefix[TS_ERROR_DETAIL_MAX];
  char both[2 * TS_ERROR_DETAIL_MAX + 2];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(prefix, sizeof prefix, fmt, ap);
  va_end(ap);
  /* the old detail's reason survives a long prefix (put_detail) */
  int n = snprintf(both, sizeof both, "%s: %s", prefix, err->detail);
  put_detail(err, both, n < 0 ? 0 : (size_t)n < sizeof both ? (size_t)n : sizeof both - 1);
  return err->code;
}

static int code_valid(enum ts_code code) {
  return (int)code >= 0 && code < TS_CODE_COUNT;
}

const char *ts_code_name(enum ts_code code) {
  return code_valid(code) ? code_table[code].name : "TS_E_UNKNOWN";
}

const char *ts_code_hint(enum ts_code code) {
  return code_valid(code) ? code_table[code].hint : "";
}

int ts_code_exit_status(enum ts_code code) {
  return code_valid(code) ? code_table[code].exit_status : 70;
}
