/*
 * core/str.h — string copies that abort on out-of-memory.
 *
 * Like libsolv's solv_malloc, small allocations whose failure leaves nothing
 * sensible to recover abort instead of threading TS_E_NOMEM through every
 * caller; buffers sized by untrusted input still go through core/buf.h caps.
 * The caller owns (and frees) every returned string.
 */
#pragma once

#include <stddef.h>

/* strdup; NULL in gives NULL out. */
char *ts_xstrdup(const char *s);
/* Copies n bytes of s and NUL-terminates. */
char *ts_xstrndup(const char *s, size_t n);
/* asprintf. */
char *ts_xasprintf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
