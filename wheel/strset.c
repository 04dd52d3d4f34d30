#include "core/alloc.h"
#include "core/str.h"
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

static size_t find(char *const *slots, size_t cap, const char *s) {
  size_t i = (size_t)hash(s) & (cap - 1);
  while (slots[i] && strcmp(slots[i], s) != 0)
    i = (i + 1) & (cap - 1);
  return i;
}

bool ts_strset_has(const struct ts_strset *set, const char *s) {
  if (!set->cap)
    return false;
  return set->slots[find(set->slots, set->cap, s)] != NULL;
}

bool ts_strset_add(struct ts_strset *set, const char *s) {
  if ((set->count + 1) * 2 > set->cap) {
    size_t nc = set->cap ? set->cap * 2 : 64;
    char **ns = ts_xcalloc(nc, sizeof *ns);
    for (size_t i = 0; i < set->cap; i++)
      if (set->slots[i])
        ns[find(ns, nc, set->slots[i])] = set->slots[i];
    free(set->slots);
    set->slots = ns;
    set->cap = nc;
  }
  size_t i = find(set->slots, set->cap, s);
  if (set->slots[i])
    return false;
  size_t n = strlen(s) + 1;
  set->slots[i] = ts_xmalloc(n);
  memcpy(set->slots[i], s, n);
  set->count++;
  return true;
}

void ts_strset_clear(struct ts_strset *set) {
  ts_strv_free(set->slots, set->cap);
  memset(set, 0, sizeof *set);
}
