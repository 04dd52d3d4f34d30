/*
 * core/arena.h — a bump allocator: many small blocks given out in order
 * and all released together, for data whose parts die at one moment (a
 * parsed JSON page's tree).  Memory comes from core/alloc.h (aborts on
 * out of memory); the arena owns it until ts_arena_clear.
 */
#pragma once

#include <stddef.h>

struct ts_arena_chunk;

struct ts_arena {
  struct ts_arena_chunk *chunks; /* newest first */
  char *next;                    /* free room in chunks[0] */
  size_t left;
  size_t chunk_size;             /* the next ordinary chunk's size */
  size_t used;                   /* bytes given out since init or clear */
};

/* An empty arena (takes no memory until the first allocation). */
void ts_arena_init(struct ts_arena *a);
/* n bytes aligned for any type (16), valid until ts_arena_clear; n == 0
 * gives a unique non-NULL pointer like ts_xmalloc. */
void *ts_arena_alloc(struct ts_arena *a, size_t n);
/* Frees every block at once; the arena is empty and usable again. */
void ts_arena_clear(struct ts_arena *a);
