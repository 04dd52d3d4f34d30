/* Placing one file of an installed wheel; see place.h. */
#include "wheel/place.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/fs.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/buf.h"
#include "core/fs.h"
#include "core/sha256.h"

enum ts_code ts_wheel_write_new_file(const char *path, const void *data,
                                   size_t len, mode_t mode,
                                   struct ts_error *err) {
  int fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, mode);
  if (fd < 0)
    return ts_error_set(err, TS_E_IO, "cannot create '%s': %s", path,
                        strerror(errno));
  return ts_fs_write_fd(fd, data, len, path, err);
}

enum ts_code ts_wheel_copy_file(const char *src, const char *dst, bool clone,
                              struct ts_error *err) {
  struct stat st;
  if (lstat(src, &st) != 0)
    return ts_error_set(err, TS_E_IO, "cannot read '%s': %s", src,
                        strerror(errno));
  if (S_ISLNK(st.st_mode)) {
    char target[4097];
    ssize_t n = readlink(src, target, sizeof target - 1);
    if (n < 0)
      return ts_error_set(err, TS_E_IO, "cannot read '%s': %s", src,
                          strerror(errno));
    target[n] = '\0';
    if (symlink(target, dst) != 0)
      return ts_error_set(err, TS_E_IO, "cannot create '%s': %s", dst,
                          strerror(errno));
    return TS_OK;
  }
  int in = open(src, O_RDONLY | O_CLOEXEC);
  if (in < 0)
    return ts_error_set(err, TS_E_IO, "cannot read '%s': %s", src,
                        strerror(errno));
  int out = open(dst, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC,
                 st.st_mode & 0777);
  if (out < 0) {
    int e = errno;
    close(in);
    return ts_error_set(err, TS_E_IO, "cannot create '%s': %s", dst,
                        strerror(e));
  }
  enum ts_code rc = TS_OK;
  if (clone && ioctl(out, FICLONE, in) == 0)
    goto done;
  off_t left = st.st_size;
  while (left > 0) {
    ssize_t k = copy_file_range(in, NULL, out, NULL, (size_t)left, 0);
    if (k < 0 && errno == EINTR)
      continue;
    if (k <= 0)
      break;
    left -= k;
  }
  if (left > 0) { /* copy_file_range unsupported here: plain copy */
    char buf[65536];
    if (lseek(in, st.st_size - left, SEEK_SET) < 0)
      rc = ts_error_set(err, TS_E_IO, "cannot read '%s': %s", src,
                        strerror(errno));
    while (rc == TS_OK && left > 0) {
      ssize_t k = read(in, buf, sizeof buf);
      if (k < 0 && errno == EINTR)
        continue;
      if (k <= 0) {
        rc = ts_error_set(err, TS_E_IO, "cannot read '%s'", src);
        break;
      }
      for (ssize_t w = 0; w < k;) {
        ssize_t m = write(out, buf + w, (size_t)(k - w));
        if (m < 0 && errno == EINTR)
          continue;
        if (m < 0) {
          rc = ts_error_set(err, TS_E_IO, "cannot write '%s': %s", dst,
                            strerror(errno));
          break;
        }
        w += m;
      }
      left -= k;
    }
  }
done:
  close(in);
  if (close(out) != 0 && rc == TS_OK)
    rc = ts_error_set(err, TS_E_IO, "cannot write '%s': %s", dst,
                      strerror(errno));
  return rc;
}

enum ts_code ts_wheel_place_file(enum ts_wheel_link_mode mode, const char *src,
                               const char *dst, struct ts_error *err) {
  if (mode == TS_WHEEL_LINK_HARDLINK) {
    if (link(src, dst) == 0)
      return TS_OK;
    if (errno != EXDEV && errno != EPERM && errno != EMLINK &&
        errno != ENOTSUP)
      return ts_error_set(err, TS_E_IO, "cannot link '%s': %s", dst,
                          strerror(errno));
  }
  return ts_wheel_copy_file(src, dst, mode == TS_WHEEL_LINK_CLONE, err);
}

enum ts_code ts_wheel_hash_path(const char *path, char out[52], uint64_t *size,
                              struct ts_error *err) {
  struct ts_buf b;
  ts_buf_init(&b, 0);
  enum ts_code rc = ts_fs_read_file(path, &b, err);
  if (rc == TS_OK) {
    uint8_t d[32];
    char b64[44];
    ts_sha256(b.data, b.len, d);
    ts_sha256_b64url(d, b64);
    snprintf(out, 52, "sha256=%s", b64);
    *size = b.len;
  }
  ts_buf_clear(&b);
  return rc;
}

int ts_wheel_dir_cache_get(struct ts_wheel_dir_cache *c, const char *file,
                           const char **base) {
  const char *slash = strrchr(file, '/');
  size_t len = slash ? (size_t)(slash - file) : 0;
  *base = slash ? slash + 1 : file;
  if (c->fd >= 0 && c->len == len && memcmp(c->path, file, len) == 0)
    return c->fd;
  ts_wheel_dir_cache_close(c);
  if (!slash || len >= sizeof c->path) {
    errno = ENAMETOOLONG;
    return -1;
  }
  memcpy(c->path, file, len);
  c->path[len] = '\0';
  c->len = len;
  c->fd = open(c->path, O_PATH | O_DIRECTORY | O_CLOEXEC);
  return c->fd;
}

void ts_wheel_dir_cache_close(struct ts_wheel_dir_cache *c) {
  if (c->fd >= 0)
    close(c->fd);
  c->fd = -1;
}
