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
/* Room left below the first boundary: one 4 KiB allocation and the
 * headers malloc writes around it */
#define HEAP_LEAD ((uintptr_t)8192)

void ts_heap_setup(void) {
  mallopt(M_MMAP_THRESHOLD, 32 << 20);
  mallopt(M_TRIM_THRESHOLD, 512 << 20);
  mallopt(M_TOP_PAD, (int)HEAP_AHEAD);
  /* The brk heap starts at a random address (ASLR), and the room from
   * there to the next 2 MiB boundary cannot be a huge page: it was faulted
   * in 4 KiB at a time, 0 to 511 faults a run (110 of a warm resolve of
   * torch's 239).  The break is moved first to just short of a boundary:
   * malloc takes a break moved by someone else as a gap it skips, the
   * first allocation and the heap's top header fit in the two pages left,
   * and every page past the boundary is untouched when it is advised (one
   * 4 KiB page faulted in first keeps its 2 MiB from being a huge page). */
  uintptr_t cur = (uintptr_t)sbrk(0);
  if (cur != (uintptr_t)-1) {
    uintptr_t want = ((cur + HEAP_LEAD + HUGE_PAGE - 1) & ~(HUGE_PAGE - 1)) - HEAP_LEAD;
    if (want > cur)
      (void)sbrk((intptr_t)(want - cur));
  }
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
