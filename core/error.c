#include "core/error.h"

#include <stdio.h>
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

enum ts_code ts_error_vset(struct ts_error *err, enum ts_code code,
                           const char *fmt, va_list ap) {
  if (err) {
    err->code = code;
    vsnprintf(err->detail, sizeof err->detail, fmt, ap);
  }
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
  char old[TS_ERROR_DETAIL_MAX];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(prefix, sizeof prefix, fmt, ap);
  va_end(ap);
  memcpy(old, err->detail, sizeof old);
  /* Truncation is acceptable: the detail is one line for a human. */
  size_t n = strlen(prefix);
  if (n > sizeof err->detail - 3)
    n = sizeof err->detail - 3;
  memcpy(err->detail, prefix, n);
  memcpy(err->detail + n, ": ", 2);
  size_t room = sizeof err->detail - n - 3;
  size_t m = strnlen(old, room);
  memcpy(err->detail + n + 2, old, m);
  err->detail[n + 2 + m] = '\0';
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
