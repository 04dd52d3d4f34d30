/*
 * wheel/place.h — placing one file of an installed wheel (private to
 * ts_wheel): created new, copied, cloned or hardlinked from the cache's
 * unpacked tree, and hashed for RECORD.
 */
#pragma once

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "core/error.h"
#include "wheel/wheel.h"

/* Creates path (which must not exist) holding data, with mode. */
enum ts_code ts_wheel_write_new_file(const char *path, const void *data, size_t len,
                                     mode_t mode, struct ts_error *err);
/* Copies the file or symlink src to the new path dst: a reflink when
 * `clone` and the filesystem shares extents, else copy_file_range (the
 * kernel copies, or shares, without a trip through user space), else
 * read and write. */
enum ts_code ts_wheel_copy_file(const char *src, const char *dst, bool clone,
                                struct ts_error *err);
/* Places src at dst by `mode`: a hardlink (falling back to a copy across
 * filesystems), a copy or a clone. */
enum ts_code ts_wheel_place_file(enum ts_wheel_link_mode mode, const char *src,
                                 const char *dst, struct ts_error *err);
/* The last directory a worker created files in (or linked from), kept
 * open: a call relative to it skips walking the ~10 components of a deep
 * path like torch's for every file.  Start with {.fd = -1}. */
struct ts_wheel_dir_cache {
  char path[4096];
  size_t len;
  int fd;
};
/* An O_PATH descriptor of `file`'s directory (*base: its last component),
 * or -1 (errno set). */
int ts_wheel_dir_cache_get(struct ts_wheel_dir_cache *c, const char *file,
                           const char **base);
void ts_wheel_dir_cache_close(struct ts_wheel_dir_cache *c);
/* RECORD's "sha256=<urlsafe-b64>" of a file, and its size. */
enum ts_code ts_wheel_hash_path(const char *path, char out[52], uint64_t *size,
                                struct ts_error *err);
