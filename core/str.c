#include "core/str.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/alloc.h"

char *ts_xstrdup(const char *s) {
  return s ? ts_xstrndup(s, strlen(s)) : NULL;
}

char *ts_xstrndup(const char *s, size_t n) {
  char *p = malloc(n + 1);
  if (!p)
    abort();
  memcpy(p, s, n);
  p[n] = '\0';
  return p;
}

/* Formatted on the stack first and copied out at its size: vasprintf grows
 * and then shrinks a heap buffer, a quarter more instructions for the
 * short texts (ids, messages, specifiers) a run formats thousands of. */
char *ts_xvasprintf(const char *fmt, va_list ap) {
  char small[256];
  va_list again;
  va_copy(again, ap);
  int n = vsnprintf(small, sizeof small, fmt, ap);
  if (n < 0)
    abort();
  char *s = ts_xmalloc((size_t)n + 1);
  if ((size_t)n < sizeof small)
    memcpy(s, small, (size_t)n + 1);
  else if (vsnprintf(s, (size_t)n + 1, fmt, again) != n)
    abort();
  va_end(again);
  return s;
}

char *ts_xasprintf(const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  char *s = ts_xvasprintf(fmt, ap);
  va_end(ap);
  return s;
}

char *ts_xstrndup_lower(const char *s, size_t n) {
  char *d = ts_xstrndup(s, n);
  for (size_t i = 0; i < n; i++)
    if (d[i] >= 'A' && d[i] <= 'Z')
      d[i] = (char)(d[i] - 'A' + 'a');
  return d;
}

void ts_strv_push(char ***v, size_t *count, const char *s, size_t n) {
  char *c = ts_xstrndup(s, n);
  *v = ts_xreallocarray(*v, *count + 1, sizeof **v);
  (*v)[(*count)++] = c;
}

void ts_strv_free(char **v, size_t n) {
  for (size_t i = 0; i < n; i++)
    free(v[i]);
  free(v);
}

int ts_strv_cmp(const void *a, const void *b) {
  return strcmp(*(const char *const *)a, *(const char *const *)b);
}
