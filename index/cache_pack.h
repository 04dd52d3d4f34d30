/*
 * index/cache_pack.h — the cache's pack files (internal to index/; the
 * layout and why are in cache.h).
 *
 * packs-v1/<time>-<pid>-<n>.pack holds many entries, each the bytes a
 * flat entry file would hold, then an index and a trailer:
 *   "TSPACK1\n"
 *   entry bytes, back to back
 *   index: per entry 56 bytes: kind (u32), 0 (u32), key (32 bytes),
 *          offset (u64), length (u64); little-endian
 *   trailer: "TSPKEND1", index offset (u64), count (u64), sha256 of the
 *          index (32 bytes)
 * A run appends what it stores to a temporary pack of its own
 * (packs-v1/.tmp-*) and renames it to its final name when it closes the
 * cache, so a pack is seen whole or not at all; a pack whose trailer or
 * index does not check out is ignored.  A key found in several packs is
 * taken from the newest (names sort by time); what this run stored wins
 * over every pack.
 */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <sys/uio.h>

#include "core/buf.h"
#include "core/error.h"

#define TS_PACKS_DIR "packs-v1"
/* When a run finds this many packs, the pack it writes takes in every
 * live entry of them and they are removed: a warm run opens a few packs,
 * never one per earlier run. */
#define TS_PACKS_MERGE_AT 8

/* A run's view of packs-v1/: the packs there (listed at the first
 * lookup) and the pack it writes.  Not shared between threads. */
struct ts_packs;

struct ts_packs *ts_packs_open(const char *root);
/* Seals and publishes the run's pack (nothing when it stored nothing),
 * then frees. */
void ts_packs_close(struct ts_packs *p);

/* Appends the bytes of entry (kind, key) to out (its cap applies);
 * TS_E_NOT_FOUND when no pack holds it, TS_E_PARSE when they do not read
 * back whole.  key: 64 hex digits. */
enum ts_code ts_packs_get(struct ts_packs *p, unsigned kind, const char *key,
                          struct ts_buf *out, struct ts_error *err);
/* Stores the pieces (at most 8, written with one writev) as entry (kind,
 * key) in the run's pack; `secret` makes the pack readable by its owner
 * only. */
enum ts_code ts_packs_put(struct ts_packs *p, unsigned kind, const char *key,
                          const struct iovec *iov, int niov, bool secret,
                          struct ts_error *err);

/* `cache clean NAME`: rewrites every pack under root without the entries
 * `drop` picks (each replaced pack renamed over the old one); *removed
 * counts the entries dropped. */
typedef bool (*ts_packs_drop_fn)(unsigned kind, const char *data, size_t len, void *ctx);
enum ts_code ts_packs_clean(const char *root, ts_packs_drop_fn drop, void *ctx,
                            size_t *removed, struct ts_error *err);
