#include "core/alloc.h"

#include <stdint.h>
#include <stdlib.h>

void *ts_xmalloc(size_t n) {
  void *p = malloc(n ? n : 1);
  if (!p)
    abort();
  return p;
}

void *ts_xcalloc(size_t n, size_t size) {
  void *p = calloc(n ? n : 1, size ? size : 1);
  if (!p)
    abort();
  return p;
}

void *ts_xrealloc(void *p, size_t n) {
  void *q = realloc(p, n ? n : 1);
  if (!q)
    abort();
  return q;
}

void *ts_xreallocarray(void *p, size_t n, size_t size) {
  if (size && n > SIZE_MAX / size)
    abort();
  return ts_xrealloc(p, n * size);
}
