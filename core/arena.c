/* The bump allocator: see arena.h. */
#include "core/arena.h"

#include <stdlib.h>
#include <string.h>

#include "core/alloc.h"

#define ARENA_ALIGN 16
/* Chunks double from the first size up to the last: a small page takes one
 * small chunk, a large one a few large ones (each its own mapping). */
#define ARENA_FIRST_CHUNK (16u * 1024)
#define ARENA_MAX_CHUNK (1024u * 1024)

struct ts_arena_chunk {
  struct ts_arena_chunk *prev;
  /* the data follows, aligned */
  _Alignas(ARENA_ALIGN) char data[];
};

void ts_arena_init(struct ts_arena *a) {
  memset(a, 0, sizeof *a);
  a->chunk_size = ARENA_FIRST_CHUNK;
}

static struct ts_arena_chunk *new_chunk(size_t size) {
  return ts_xmalloc(sizeof(struct ts_arena_chunk) + size);
}

void *ts_arena_alloc(struct ts_arena *a, size_t n) {
  size_t need = (n + ARENA_ALIGN - 1) & ~(size_t)(ARENA_ALIGN - 1);
  if (need < n)
    abort(); /* overflow */
  if (need == 0)
    need = ARENA_ALIGN;
  a->used += need;
  if (need <= a->left) {
    void *p = a->next;
    a->next += need;
    a->left -= need;
    return p;
  }
  if (need > a->chunk_size / 4) {
    /* a big block gets a chunk of its own, behind the current one, so
     * that the current chunk's free room stays in use */
    struct ts_arena_chunk *c = new_chunk(need);
    if (a->chunks) {
      c->prev = a->chunks->prev;
      a->chunks->prev = c;
    } else {
      c->prev = NULL;
      a->chunks = c;
      a->next = c->data + need;
      a->left = 0;
    }
    return c->data;
  }
  struct ts_arena_chunk *c = new_chunk(a->chunk_size);
  c->prev = a->chunks;
  a->chunks = c;
  a->next = c->data + need;
  a->left = a->chunk_size - need;
  if (a->chunk_size < ARENA_MAX_CHUNK)
    a->chunk_size *= 2;
  return c->data;
}

void ts_arena_clear(struct ts_arena *a) {
  struct ts_arena_chunk *c = a->chunks;
  while (c) {
    struct ts_arena_chunk *prev = c->prev;
    free(c);
    c = prev;
  }
  ts_arena_init(a);
}
