/* The process's heap; see heap.h. */
#include "core/heap.h"

#include <malloc.h>
#include <stdint.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>

#define HUGE_PAGE ((uintptr_t)2 << 20)
/* Room the heap keeps ahead of its top: what a resolve of a few hundred
 * projects grows to, so that it is advised once. */
#define HEAP_AHEAD (64u << 20)

void ts_heap_setup(void) {
  mallopt(M_MMAP_THRESHOLD, 32 << 20);
  mallopt(M_TRIM_THRESHOLD, 512 << 20);
  mallopt(M_TOP_PAD, (int)HEAP_AHEAD);
  /* One allocation from the heap makes it grow by the pad; the room from
   * there to the heap's end (brk) is what later allocations take. */
  void *first = malloc(4096);
  uintptr_t end = (uintptr_t)sbrk(0);
  uintptr_t lo = ((uintptr_t)first + HUGE_PAGE - 1) & ~(HUGE_PAGE - 1);
  uintptr_t hi = end & ~(HUGE_PAGE - 1);
  /* `first` from elsewhere than the brk heap (another allocator): leave it */
  if (first && (uintptr_t)first < end && hi > lo && hi - lo <= 2 * (uintptr_t)HEAP_AHEAD)
    (void)madvise((void *)lo, hi - lo, MADV_HUGEPAGE);
  free(first);
}
