/*
 * core/heap.h — how the process's heap is laid out: part of the one
 * allocation policy, applied once by main (cli/) before anything else.
 */
#pragma once

/* Keeps large buffers on the main heap (reused when freed, not mapped and
 * faulted in afresh each time), never trims it, and asks for transparent
 * huge pages on the room it keeps ahead.  A warm resolve of 197 projects
 * took 5,300 page faults; in a virtual machine each costs microseconds, and
 * with huge pages the run needs 2,300 and a quarter less CPU time.  Where
 * the kernel has transparent huge pages off, or the allocator is not
 * glibc's brk heap (sanitizer builds), only the thresholds change. */
void ts_heap_setup(void);
