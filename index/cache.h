/*
 * index/cache.h — torchsolve's on-disk cache.
 *
 * Layout under the root (core/fs.h's ts_cache_root_dir), which carries the
 * marker of core/cacheroot.h:
 *   pages-v1/<project>/<sha256(url+accept)>   HTTP page entries (header, the
 *                                             page parsed (parsed_page.h),
 *                                             body); --find-links pages under
 *                                             the project "find-links"
 *   metadata-v1/<project>/<key>.metadata      verified METADATA files: PEP 658
 *                                             files checked against the index's
 *                                             hash, or read by range from a wheel
 *                                             the index gave a sha256 for (zip
 *                                             CRC-32 and size checked)
 *   wheels-v1/<project>/<key>/<filename>      verified whole wheels
 *   wheels-v1/by-stat/<key>                   sha256 of local wheels by stat
 *                                             identity (core/filehash.h)
 * Keys are the file's sha256 when the index gives one, else sha256(url).
 *
 * Every file is written to a temporary name in its directory and renamed,
 * so concurrent torchsolve processes never see half a file; downloads of
 * the same wheel are serialised with flock(2) on "<path>.lock".  Nothing is
 * written before it has been verified (parsed, or hash checked).
 */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/buf.h"
#include "core/error.h"

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
};

/* Seconds a 404 page is remembered (the max_age of a not-found entry). */
#define TS_CACHE_NOT_FOUND_TTL 600

void ts_cache_entry_clear(struct ts_cache_entry *e);

/* Path of a page entry; malloc'd. */
char *ts_cache_page_path(const char *root, const char *project, const char *url,
                         const char *accept);
/* Path of a METADATA file / of a whole wheel; malloc'd.  `key` is a
 * 64-hex sha256 (the file's) or NULL (then the URL's hash is used). */
char *ts_cache_metadata_path(const char *root, const char *project, const char *key,
                             const char *url);
char *ts_cache_wheel_path(const char *root, const char *project, const char *key,
                          const char *url, const char *filename);

/* Reads an entry; body and parsed form each capped at `cap`.
 * TS_E_NOT_FOUND when absent, TS_E_PARSE when corrupt (callers treat it as
 * absent).  File format: "TSCACHE2 <metalen> <parsedlen>\n", the metadata
 * as JSON (url, final_url, content_type, etag, last_modified, stored_at,
 * max_age, status), the parsed form, then the body; entries of earlier
 * versions ("TSCACHE1 <metalen>\n", no parsed form) are read too. */
enum ts_code ts_cache_read(const char *path, size_t cap, struct ts_cache_entry *e,
                           struct ts_error *err);
/* Writes an entry atomically (creating directories). */
enum ts_code ts_cache_write(const char *path, const struct ts_cache_entry *e,
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
 * its pages, metadata, whole wheels and unpacked wheel trees.  *removed
 * (may be NULL) gets the number of folders removed (0: nothing matched).
 * A root that is not torchsolve's cache is refused (ts_cache_root_check:
 * TS_E_INVALID, nothing deleted); TS_E_NOT_FOUND when root is missing. */
enum ts_code ts_cache_clean(const char *root, const char *project, size_t *removed,
                            struct ts_error *err);
