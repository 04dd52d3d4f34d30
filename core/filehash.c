#include "core/filehash.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/alloc.h"
#include "core/buf.h"
#include "core/fs.h"

#define CHUNK (256u << 10)

char *ts_filehash_memo_dir(const char *cache_root) {
  return ts_path_join(cache_root, "wheels-v1/by-stat");
}

enum ts_code ts_filehash_fd(int fd, const char *what, uint8_t out[TS_SHA256_LEN],
                            uint64_t *size, struct ts_error *err) {
  struct ts_sha256 *h = ts_sha256_new();
  unsigned char *buf = ts_xmalloc(CHUNK);

  off_t off = 0;
  for (;;) {
    ssize_t n = pread(fd, buf, CHUNK, off);
    if (n < 0 && errno == EINTR)
      continue;
    if (n < 0) {
      int e = errno;
      ts_sha256_free(h);
      free(buf);
      return ts_error_set(err, TS_E_IO, "cannot read '%s': %s", what, strerror(e));
    }
    if (n == 0)
      break;
    ts_sha256_update(h, buf, (size_t)n);
    off += n;
  }
  ts_sha256_final(h, out);
  ts_sha256_free(h);
  free(buf);
  if (size)
    *size = (uint64_t)off;
  return TS_OK;
}

char *ts_filehash_memo_key(const char *memo_dir, const char *path, const struct stat *st) {
  char *abs = realpath(path, NULL);
  char id[4200];
  snprintf(id, sizeof id, "%llu:%llu:%llu:%lld.%09ld:%lld.%09ld:%s",
           (unsigned long long)st->st_dev, (unsigned long long)st->st_ino,
           (unsigned long long)st->st_size, (long long)st->st_mtim.tv_sec,
           st->st_mtim.tv_nsec, (long long)st->st_ctim.tv_sec,
           st->st_ctim.tv_nsec, abs ? abs : path);
  free(abs);
  uint8_t d[TS_SHA256_LEN];
  char hex[TS_SHA256_HEX_LEN + 1];
  ts_sha256(id, strlen(id), d);
  ts_sha256_hex(d, hex);
  return ts_path_join(memo_dir, hex);
}

bool ts_filehash_memo_read(const char *keyfile, uint8_t out[TS_SHA256_LEN]) {
  struct ts_buf b;
  ts_buf_init(&b, 128);
  bool ok = ts_fs_read_file(keyfile, &b, NULL) == TS_OK &&
            b.len == TS_SHA256_HEX_LEN &&
            ts_sha256_from_hex(b.data, b.len, out) == TS_OK;
  ts_buf_clear(&b);
  return ok;
}

void ts_filehash_memo_write(const char *memo_dir, const char *keyfile,
                            const uint8_t sha[TS_SHA256_LEN]) {
  char hex[TS_SHA256_HEX_LEN + 1];
  ts_sha256_hex(sha, hex);
  if (ts_fs_mkdirs(memo_dir, NULL) == TS_OK) /* best effort: only a memo */
    ts_fs_write_atomic(keyfile, hex, TS_SHA256_HEX_LEN, NULL);
}

enum ts_code ts_filehash_path(const char *path, const char *memo_dir,
                              uint8_t out[TS_SHA256_LEN], uint64_t *size,
                              struct ts_error *err) {
  int fd = open(path, O_RDONLY | O_CLOEXEC);
  struct stat st;
  if (fd < 0 || fstat(fd, &st) != 0) {
    int e = errno;
    if (fd >= 0)
      close(fd);
    return ts_error_set(err, e == ENOENT ? TS_E_NOT_FOUND : TS_E_IO,
                        "cannot read '%s': %s", path, strerror(e));
  }
  char *key = memo_dir && S_ISREG(st.st_mode) ? ts_filehash_memo_key(memo_dir, path, &st) : NULL;
  enum ts_code rc = TS_OK;
  if (key && ts_filehash_memo_read(key, out)) {
    if (size)
      *size = (uint64_t)st.st_size;
  } else {
    uint64_t got = 0;
    rc = ts_filehash_fd(fd, path, out, &got, err);
    if (size)
      *size = got;
    /* st was taken before reading: a write meanwhile moves the ctime past
     * it, so such an entry never matches */
    if (rc == TS_OK && key && got == (uint64_t)st.st_size)
      ts_filehash_memo_write(memo_dir, key, out);
  }
  free(key);
  close(fd);
  return rc;
}
