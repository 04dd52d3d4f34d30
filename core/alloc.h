/*
 * core/alloc.h — the allocation policy of every library, in one place.
 *
 * Out of memory: small allocations whose failure leaves nothing sensible to
 * recover abort() (like libsolv's solv_malloc) instead of threading
 * TS_E_NOMEM through every caller; buffers sized by untrusted input go
 * through core/buf.h caps first, so only a genuinely exhausted machine
 * gets here.  Zero sizes: a request for 0 bytes (or 0 elements) returns a
 * unique 1-byte block, never NULL, so callers need no special case.
 * NULL: ts_xstrdup(NULL) is NULL (a missing optional string stays
 * missing); every other function here never returns NULL.
 *
 * Product code outside core/ defines no allocation helper of its own
 * (tests/integration/lint.sh checks).  The caller owns and
 * frees every result.
 */
#pragma once

#include <stddef.h>

void *ts_xmalloc(size_t n);
void *ts_xcalloc(size_t n, size_t size);
/* realloc; ts_xrealloc(NULL, n) is ts_xmalloc(n). */
void *ts_xrealloc(void *p, size_t n);
/* realloc to n * size bytes, aborting when the product overflows. */
void *ts_xreallocarray(void *p, size_t n, size_t size);
