/*
 * core/fs.h — small filesystem helpers shared by the cache, the installer and
 * the lockfile writer.  All writes that others may read concurrently go
 * through a temporary file in the same directory and rename(2), so a reader
 * never sees a half-written file (tdnf's remoterepo.c pattern).
 */
#pragma once

#include <stddef.h>

#include <stdbool.h>

#include "core/buf.h"
#include "core/error.h"

/* mkdir -p with mode 0755.  Existing directories are fine. */
enum ts_code ts_fs_mkdirs(const char *path, struct ts_error *err);

/* Marks directory `path` as the top of independent trees (chattr +T,
 * FS_TOPDIR_FL), best effort: filesystems without the flag ignore it.
 * Why: on ext4, subdirectories of a TOPDIR directory are placed by the
 * Orlov allocator in spread-out block groups instead of next to their
 * parent.  Without that, a cache tree unpacked minutes after another was
 * deleted lands in the same groups, and on a journal-less ext4 every file
 * create scans past the recently freed inodes (recently_deleted() in
 * ialloc.c): 11,843 creates took 3.7 s of kernel time instead of 0.5 s. */
void ts_fs_spread_subdirs(const char *path);

/* Reads a whole regular file into *out (initialised by the caller with its
 * cap).  TS_E_NOT_FOUND when it does not exist, TS_E_TOO_BIG above the cap. */
enum ts_code ts_fs_read_file(const char *path, struct ts_buf *out,
                             struct ts_error *err);

/* Writes all of data to the open fd, retrying short writes and EINTR;
 * false (errno set) when a write fails. */
bool ts_fs_write_all(int fd, const void *data, size_t len);

/* Writes all of data to the open fd (as ts_fs_write_all) and closes it,
 * whatever happens; errors name `path`. */
enum ts_code ts_fs_write_fd(int fd, const void *data, size_t len, const char *path,
                            struct ts_error *err);

/* Writes data to path atomically: path.tmp.<pid>.<n>, fsync-free, rename.
 * On error the temporary is unlinked and path is untouched. */
enum ts_code ts_fs_write_atomic(const char *path, const void *data, size_t len,
                                struct ts_error *err);
/* The same with the file's permission bits (before the umask), e.g. 0600
 * for what only its owner may read. */
enum ts_code ts_fs_write_atomic_mode(const char *path, const void *data, size_t len,
                                     unsigned mode, struct ts_error *err);

/* Places a copy of the regular file src at dst atomically (a temporary
 * beside dst, then rename): a hardlink when both are on one filesystem,
 * else the bytes streamed.  dst is replaced when it exists. */
enum ts_code ts_fs_copy_atomic(const char *src, const char *dst, struct ts_error *err);

/* rm -rf.  Missing paths are fine. */
enum ts_code ts_fs_remove_tree(const char *path, struct ts_error *err);

/* The cache root: $TORCHSOLVE_CACHE_DIR (made absolute), else
 * $XDG_CACHE_HOME/torchsolve (when absolute), else $HOME/.cache/torchsolve,
 * else /tmp/.cache/torchsolve.  malloc'd; one definition for the index
 * cache and the wheel cache. */
char *ts_cache_root_dir(void);

/* path when absolute, else joined to the current directory (without
 * resolving links or ".."), so that a configured folder means the same in
 * a child process run elsewhere (a build backend).  malloc'd. */
char *ts_path_absolute(const char *path);

/* $TMPDIR when set and not empty, else /tmp: where --no-cache work goes. */
const char *ts_fs_temp_dir(void);

/* Joins a and b with one '/'; returns malloc'd string (aborts on OOM). */
char *ts_path_join(const char *a, const char *b);
