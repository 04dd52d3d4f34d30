/*
 * wheel/strset.h — a set of strings (open addressing), for the installer's
 * "already planned" questions over tens of thousands of paths (internal).
 */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/arena.h"

struct ts_strset {
  char **slots;      /* copies, owned through `strings` */
  uint64_t *hashes;  /* each slot's hash: probes and growth compare these
                        instead of re-reading the strings */
  size_t cap;        /* power of two */
  size_t count;
  struct ts_arena strings; /* the copies: one release for 12,000 paths */
};

/* Adds a copy of s; returns false when it was already present. */
bool ts_strset_add(struct ts_strset *set, const char *s);
bool ts_strset_has(const struct ts_strset *set, const char *s);
void ts_strset_clear(struct ts_strset *set);
