/*
 * core/filehash.h — the sha256 of files on disk, read in 1 MiB chunks (never
 * whole: wheels reach gigabytes), optionally remembered by the file's stat
 * identity so that a local wheel installed again is not read again.
 *
 * The memo (one per cache: <cache>/wheels-v1/by-stat/) maps device, inode,
 * size, mtime, ctime and real path to the digest.  Any write to the file, and
 * any utime(2) that could fake its mtime, moves its ctime, so a changed file
 * misses and is hashed again; entries are written atomically and only ever
 * read as a whole 64-hex line, so concurrent runs and stale entries are safe.
 */
#pragma once

#include <stdbool.h>
#include <stdint.h>
#include <sys/stat.h>

#include "core/error.h"
#include "core/sha256.h"

/* The memo directory of the cache rooted at cache_root; malloc'd. */
char *ts_filehash_memo_dir(const char *cache_root);

/* Hashes the open descriptor from offset 0 (pread: its offset is untouched);
 * *size (may be NULL) gets the bytes read.  Errors name `what`. */
enum ts_code ts_filehash_fd(int fd, const char *what, uint8_t out[TS_SHA256_LEN],
                            uint64_t *size, struct ts_error *err);

/* The memo entry of `path` as `st` describes it: malloc'd path of the key
 * file under memo_dir. */
char *ts_filehash_memo_key(const char *memo_dir, const char *path, const struct stat *st);
/* Reads / writes (best effort, creating memo_dir) a memo entry. */
bool ts_filehash_memo_read(const char *keyfile, uint8_t out[TS_SHA256_LEN]);
void ts_filehash_memo_write(const char *memo_dir, const char *keyfile,
                            const uint8_t sha[TS_SHA256_LEN]);

/* The sha256 of the file at `path`, from the memo under memo_dir when it
 * has the file as it is now (memo_dir NULL: always read), else read and
 * then remembered.  *size (may be NULL) gets the file's size. */
enum ts_code ts_filehash_path(const char *path, const char *memo_dir,
                              uint8_t out[TS_SHA256_LEN], uint64_t *size,
                              struct ts_error *err);
