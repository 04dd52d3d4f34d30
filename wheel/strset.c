#include "core/alloc.h"
#include "wheel/strset.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

static uint64_t hash(const char *s) {
  uint64_t h = 1469598103934665603ull; /* FNV-1a */
  for (; *s; s++)
    h = (h ^ (unsigned char)*s) * 1099511628211ull;
  return h;
}

static size_t find(const struct ts_strset *set, uint64_t h, const char *s) {
  size_t i = (size_t)h & (set->cap - 1);
  while (set->slots[i] && (set->hashes[i] != h || strcmp(set->slots[i], s) != 0))
    i = (i + 1) & (set->cap - 1);
  return i;
}

bool ts_strset_has(const struct ts_strset *set, const char *s) {
  if (!set->cap)
    return false;
  return set->slots[find(set, hash(s), s)] != NULL;
}

static void grow(struct ts_strset *set) {
  struct ts_strset n = {.cap = set->cap ? set->cap * 2 : 64, .count = set->count,
                        .strings = set->strings};
  n.slots = ts_xcalloc(n.cap, sizeof *n.slots);
  n.hashes = ts_xmalloc(n.cap * sizeof *n.hashes);
  for (size_t i = 0; i < set->cap; i++) {
    if (!set->slots[i])
      continue;
    size_t j = (size_t)set->hashes[i] & (n.cap - 1);
    while (n.slots[j]) /* every string is distinct: only an empty slot ends it */
      j = (j + 1) & (n.cap - 1);
    n.slots[j] = set->slots[i];
    n.hashes[j] = set->hashes[i];
  }
  free(set->slots);
  free(set->hashes);
  *set = n;
}

bool ts_strset_add(struct ts_strset *set, const char *s) {
  if ((set->count + 1) * 2 > set->cap)
    grow(set);
  uint64_t h = hash(s);
  size_t i = find(set, h, s);
  if (set->slots[i])
    return false;
  size_t n = strlen(s) + 1;
  if (!set->strings.chunk_size) /* a zeroed set: its arena starts here */
    ts_arena_init(&set->strings);
  set->slots[i] = ts_arena_alloc(&set->strings, n);
  memcpy(set->slots[i], s, n);
  set->hashes[i] = h;
  set->count++;
  return true;
}

void ts_strset_clear(struct ts_strset *set) {
  free(set->slots);
  free(set->hashes);
  ts_arena_clear(&set->strings);
  memset(set, 0, sizeof *set);
}
