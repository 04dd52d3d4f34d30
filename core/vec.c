#include "core/vec.h"

#include <stdint.h>
#include <string.h>

#include "core/alloc.h"

/* The first allocation: 8 elements cover most lists we build (a
 * requirement's extras, a file's hashes) in one step. */
#define VEC_FIRST_CAP 8

void *ts_vec_grow(void *p, size_t *cap, size_t need, size_t esize) {
  if (p && need <= *cap)
    return p;
  size_t n = *cap ? *cap : VEC_FIRST_CAP;
  while (n < need)
    n = n > SIZE_MAX / 2 ? need : n * 2;
  p = ts_xreallocarray(p, n, esize);
  *cap = n;
  return p;
}

void ts_vec_zero_(void *elem, size_t esize) { memset(elem, 0, esize); }

void ts_vec_sort_(void *items, size_t n, size_t esize, int (*cmp)(const void *, const void *)) {
  if (n > 1)
    qsort(items, n, esize, cmp);
}

void *ts_vec_take_(void **items, size_t *n, size_t *cap, size_t *count) {
  void *p = *n ? *items : NULL;
  if (!*n)
    free(*items);
  if (count)
    *count = *n;
  *items = NULL;
  *n = *cap = 0;
  return p;
}
