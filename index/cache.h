/*
 * index/cache.h — torchsolve's on-disk cache.
 *
 * Layout under the root (core/fs.h's ts_cache_root_dir), which carries the
 * marker of core/cacheroot.h:
 *   packs-v1/<time>-<pid>-<n>.pack    page and METADATA entries, many to a
 *                                     file (index/cache_pack.h): a page
 *                                     entry is a header, the page parsed
 *                                     (parsed_page.h) and the body, keyed by
 *                                     sha256(url "\n" accept); a METADATA
 *                                     entry the verified file's bytes (PEP
 *                                     658 files checked against the index's
 *                                     hash, or read by range from a wheel
 *                                     the index gave a sha256 for, zip
 *                                     CRC-32 and size checked), keyed by
 *                                     that sha256
 *   wheels-v1/<project>/<key>/<filename>   verified whole wheels
 *   wheels-v1/by-stat/<key>           sha256 of local wheels by stat
 *                                     identity (core/filehash.h)
 * Keys are the file's sha256 when the index gives one, else sha256(url).
 *
 * Why packs: a first run stores one page and one METADATA per project
 * (566 entries for pyrax), and on ext4 every new inode in a block group
 * that holds recently deleted ones (the previous cache, removed with
 * rm -rf) scans them all: a file per entry was half of a first run's
 * system time.  A run now appends its entries to one temporary pack and
 * publishes it on ts_cache_close with one rename: one new file per run.
 * A warm run reads each pack's index once and each entry with one pread,
 * with no open per entry.  A run that finds TS_PACKS_MERGE_AT packs merges
 * their live entries into its own, so a warm run opens a few files.
 *
 * The flat entries of the previous layout (pages-v2/<s>/<key>,
 * metadata-v2/<s>/<key>.metadata, <s> the key's first hex digit) are still
 * read when no pack holds the entry, and never written; a run that found
 * such a folder missing at open does not look there.  The pages-v1/ and
 * metadata-v1/ folders of older versions (a folder per project) are not
 * read: their entries are fetched again once, and `cache clean` removes
 * them.
 *
 * Every file is written to a temporary name in its folder and renamed,
 * so concurrent torchsolve processes never see half a file (each writes a
 * pack of its own); downloads of the same wheel are serialised with
 * flock(2) on "<path>.lock".  Nothing is written before it has been
 * verified (parsed, or hash checked); an entry that does not read back
 * whole, or a pack whose index does not check out, is ignored (fetched
 * again, then stored anew).  An entry stored by a run is seen by the runs
 * that open the cache after it ends.
 */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/buf.h"
#include "core/error.h"
#include "core/sha256.h"

enum ts_cache_mode {
  TS_CACHE_NORMAL,   /* fresh entries used as is, stale ones revalidated */
  TS_CACHE_REFRESH,  /* --refresh: revalidate every entry */
  TS_CACHE_OFFLINE,  /* --offline: cache only, never the network */
  TS_CACHE_DISABLED, /* --no-cache: neither read nor written */
};

struct ts_cache_entry {
  char *url;            /* the URL asked for */
  char *final_url;      /* after redirects: base for relative links */
  char *content_type;
  char *etag;
  char *last_modified;
  int64_t stored_at;    /* unix seconds of the last 200 or 304 */
  long max_age;         /* seconds, -1 unknown (then always revalidated) */
  /* 200: a page.  404: the server said the page does not exist; kept for
   * TS_CACHE_NOT_FOUND_TTL so that a missing project (a typo, a project
   * only on another index) costs one request per ten minutes, not one per
   * run.  --refresh asks again. */
  long status;
  struct ts_buf body;
  /* What parsing body gave, in index/parsed_page.h's form; empty when not
   * stored (then the body is parsed).  Written in the same file as body,
   * so it always describes that body. */
  struct ts_buf parsed;
  char *project; /* as stored (ts_cache_put_page), or NULL */
};

/* Seconds a 404 page is remembered (the max_age of a not-found entry). */
#define TS_CACHE_NOT_FOUND_TTL 600

void ts_cache_entry_clear(struct ts_cache_entry *e);

/* A run's handle on one cache root: the root's path and what this run
 * knows about which entries exist.  Owned by one index client; not shared
 * between threads. */
struct ts_cache;

/* Opens root (which need not exist yet; nothing is created here).  Never
 * NULL.  ts_cache_close publishes what the run stored. */
struct ts_cache *ts_cache_open(const char *root);
void ts_cache_close(struct ts_cache *c);
const char *ts_cache_root(const struct ts_cache *c);

/* The key of a page: sha256(url "\n" accept) in hex. */
void ts_cache_page_key(const char *url, const char *accept,
                       char key[TS_SHA256_HEX_LEN + 1]);
/* The key of a METADATA file or of a whole wheel: the file's sha256 (64
 * hex digits) when known, else sha256(url). */
void ts_cache_file_key(const char *sha256, const char *url,
                       char key[TS_SHA256_HEX_LEN + 1]);

/* Path of a page entry / of a METADATA file in the flat layout of the
 * previous version (read, never written); malloc'd, for tests. */
char *ts_cache_page_path(const struct ts_cache *c, const char *key);
char *ts_cache_metadata_path(const struct ts_cache *c, const char *key);

/* Reads the page entry `key`; body and parsed form each capped at `cap`.
 * TS_E_NOT_FOUND when absent (from memory once the packs' indexes are
 * read), TS_E_PARSE when damaged (callers treat it as absent). */
enum ts_code ts_cache_get_page(struct ts_cache *c, const char *key, size_t cap,
                               struct ts_cache_entry *e, struct ts_error *err);
/* Stores the page entry `key` in the run's pack; `project` (normalised, or a
 * pseudo-name such as "find-links") is recorded for `cache clean NAME`. */
enum ts_code ts_cache_put_page(struct ts_cache *c, const char *key, const char *project,
                               const struct ts_cache_entry *e, struct ts_error *err);

/* Reads / stores the verified METADATA file `key` (its bytes as they
 * are).  Reading: out initialised by the caller with its cap;
 * TS_E_NOT_FOUND as for pages. */
enum ts_code ts_cache_get_metadata(struct ts_cache *c, const char *key, struct ts_buf *out,
                                   struct ts_error *err);
enum ts_code ts_cache_put_metadata(struct ts_cache *c, const char *key, const void *data,
                                   size_t len, struct ts_error *err);

/* Whether a whole wheel may be in the cache: false when wheels-v1/ did
 * not exist when the run began and the run has downloaded nothing since
 * (ts_cache_note_download). */
bool ts_cache_may_hold_wheels(const struct ts_cache *c);
void ts_cache_note_download(struct ts_cache *c);

/* Path of a whole wheel; malloc'd.  `key` as for ts_cache_file_key's
 * sha256 (NULL: the URL's hash is used). */
char *ts_cache_wheel_path(const char *root, const char *project, const char *key,
                          const char *url, const char *filename);

/* Reads a flat entry file; body and parsed form each capped at `cap`.
 * TS_E_NOT_FOUND when absent, TS_E_PARSE when corrupt.  File format:
 * "TSCACHE2 <metalen> <parsedlen>\n", the metadata as JSON (url,
 * final_url, project, content_type, etag, last_modified, stored_at,
 * max_age, status), the parsed form, then the body. */
enum ts_code ts_cache_read(const char *path, size_t cap, struct ts_cache_entry *e,
                           struct ts_error *err);
/* Whether an entry may be used without revalidation at time `now`. */
bool ts_cache_fresh(const struct ts_cache_entry *e, int64_t now);

/* Exclusive advisory lock on "<path>.lock" (created); blocks.  *fd gets the
 * lock's descriptor, released by ts_cache_unlock. */
enum ts_code ts_cache_lock(const char *path, int *fd, struct ts_error *err);
void ts_cache_unlock(int fd);

/* Total bytes (allocated) under root, and number of files. */
enum ts_code ts_cache_size(const char *root, uint64_t *bytes, uint64_t *files,
                           struct ts_error *err);
/* Removes torchsolve's folders under root (project NULL: every one in
 * core/cacheroot.h's list, never anything else), or one project's entries:
 * its pages (by the project they record), METADATA files (by their Name),
 * whole wheels and unpacked wheel trees.  *removed then counts entries and
 * folders.  *removed
 * (may be NULL) gets the number of folders removed (0: nothing matched).
 * A root that is not torchsolve's cache is refused (ts_cache_root_check:
 * TS_E_INVALID, nothing deleted); TS_E_NOT_FOUND when root is missing. */
enum ts_code ts_cache_clean(const char *root, const char *project, size_t *removed,
                            struct ts_error *err);
