#include "core/fs.h"
#include "core/str.h"

#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <linux/fs.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <unistd.h>

/* mkdir -p from the deepest missing level: the common cases (the folder
 * exists, or only its last level is missing) cost one mkdir, not one per
 * level of the path. */
static int mkdirs_from_leaf(char *tmp, size_t len) {
  if (mkdir(tmp, 0755) == 0 || errno == EEXIST)
    return 0;
  if (errno != ENOENT)
    return -1;
  size_t cut = len;
  while (cut > 0 && tmp[cut - 1] != '/')
    cut--;
  while (cut > 1 && tmp[cut - 1] == '/')
    cut--;
  if (cut == 0)
    return -1;
  tmp[cut] = '\0';
  int r = mkdirs_from_leaf(tmp, cut);
  tmp[cut] = '/';
  if (r != 0)
    return r;
  return mkdir(tmp, 0755) == 0 || errno == EEXIST ? 0 : -1;
}

enum ts_code ts_fs_mkdirs(const char *path, struct ts_error *err) {
  size_t len = strlen(path);
  while (len > 1 && path[len - 1] == '/')
    len--;
  char *tmp = ts_xstrndup(path, len);
  if (mkdirs_from_leaf(tmp, len) != 0) {
    int e = errno;
    free(tmp);
    return ts_error_set(err, TS_E_IO, "cannot create directory '%s': %s", path, strerror(e));
  }
  free(tmp);
  struct stat st;
  if (stat(path, &st) != 0 || !S_ISDIR(st.st_mode))
    return ts_error_set(err, TS_E_IO, "'%s' exists and is not a directory",
                        path);
  return TS_OK;
}

const char *ts_fs_temp_dir(void) {
  const char *t = getenv("TMPDIR");
  return t && *t ? t : "/tmp";
}

void ts_fs_spread_subdirs(const char *path) {
  int fd = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (fd < 0)
    return;
  int flags = 0;
  if (ioctl(fd, FS_IOC_GETFLAGS, &flags) == 0 && !(flags & FS_TOPDIR_FL)) {
    flags |= FS_TOPDIR_FL;
    (void)ioctl(fd, FS_IOC_SETFLAGS, &flags);
  }
  close(fd);
}

/* How much more room a read of unknown size reserves at a time. */
#define READ_STEP 65536

/* Reads fd into out: straight into the buffer, sized once from `hint`,
 * not through a bounce buffer and doubling reallocations (a warm run reads
 * ~1 MB of cached pages this way), up to `size` bytes when it is known (a
 * regular file as fstat saw it: no read is spent learning that it ended,
 * 400 syscalls of a warm resolve) or to the end.  Near the cap the tail
 * goes through ts_buf_append, whose TS_E_TOO_BIG names an oversized file. */
static enum ts_code read_fd(int fd, struct ts_buf *out, size_t hint, size_t size) {
  char chunk[4096];
  for (size_t start = out->len; size == 0 || out->len - start < size;) {
    size_t room = out->alloc > out->len + 1 ? out->alloc - out->len - 1 : 0;
    if (out->max && hint > out->max - out->len)
      hint = out->max - out->len;
    if (room == 0 && hint && ts_buf_reserve(out, hint) == TS_OK)
      room = out->alloc - out->len - 1;
    if (out->max && room > out->max - out->len)
      room = out->max - out->len; /* the allocation may round past the cap */
    hint = READ_STEP;
    ssize_t n = read(fd, room ? out->data + out->len : chunk, room ? room : sizeof chunk);
    if (n < 0 && errno == EINTR)
      continue;
    if (n < 0)
      return TS_E_IO;
    if (n == 0)
      return TS_OK;
    if (!room) {
      enum ts_code rc = ts_buf_append(out, chunk, (size_t)n);
      if (rc != TS_OK)
        return rc;
      continue;
    }
    out->len += (size_t)n;
    out->data[out->len] = '\0';
  }
  return TS_OK;
}

enum ts_code ts_fs_read_file(const char *path, struct ts_buf *out,
                             struct ts_error *err) {
  int fd = open(path, O_RDONLY | O_CLOEXEC);
  if (fd < 0) {
    if (errno == ENOENT)
      return ts_error_set(err, TS_E_NOT_FOUND, "'%s' does not exist", path);
    return ts_error_set(err, TS_E_IO, "cannot read '%s': %s", path,
                        strerror(errno));
  }
  struct stat st;
  size_t size = fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && st.st_size > 0
                    ? (size_t)st.st_size
                    : 0;
  enum ts_code rc = read_fd(fd, out, size ? size : READ_STEP, size);
  int e = errno;
  close(fd);
  if (rc == TS_E_IO)
    return ts_error_set(err, TS_E_IO, "cannot read '%s': %s", path, strerror(e));
  if (rc != TS_OK)
    return ts_error_set(err, rc, "'%s' is larger than the %zu-byte limit",
                        path, out->max);
  if (!out->data) /* empty file: still hand back a NUL-terminated buffer */
    return ts_buf_append(out, "", 0);
  out->data[out->len] = '\0'; /* reserved, nothing read */
  return TS_OK;
}

bool ts_fs_write_all(int fd, const void *data, size_t len) {
  const char *p = data;
  while (len) {
    ssize_t n = write(fd, p, len);
    if (n < 0 && errno == EINTR)
      continue;
    if (n <= 0) {
      if (n == 0)
        errno = EIO;
      return false;
    }
    p += n;
    len -= (size_t)n;
  }
  return true;
}

enum ts_code ts_fs_write_fd(int fd, const void *data, size_t len, const char *path,
                            struct ts_error *err) {
  if (!ts_fs_write_all(fd, data, len)) {
    int e = errno;
    close(fd);
    return ts_error_set(err, TS_E_IO, "cannot write '%s': %s", path, strerror(e));
  }
  if (close(fd) != 0)
    return ts_error_set(err, TS_E_IO, "cannot write '%s': %s", path, strerror(errno));
  return TS_OK;
}

enum ts_code ts_fs_write_atomic(const char *path, const void *data, size_t len,
                                struct ts_error *err) {
  return ts_fs_write_atomic_mode(path, data, len, 0644, err);
}

enum ts_code ts_fs_write_atomic_mode(const char *path, const void *data, size_t len,
                                     unsigned mode, struct ts_error *err) {
  static atomic_uint counter;
  size_t plen = strlen(path) + 64;
  char *tmp = ts_xmalloc(plen);
  snprintf(tmp, plen, "%s.tmp.%ld.%u", path, (long)getpid(),
           atomic_fetch_add(&counter, 1));
  int fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, (mode_t)mode);
  if (fd < 0) {
    int e = errno;
    free(tmp);
    return ts_error_set(err, TS_E_IO, "cannot write '%s': %s", path,
                        strerror(e));
  }
  enum ts_code rc = ts_fs_write_fd(fd, data, len, path, err);
  if (rc != TS_OK) {
    unlink(tmp);
    free(tmp);
    return rc;
  }
  if (rename(tmp, path) != 0) {
    int e = errno;
    unlink(tmp);
    free(tmp);
    return ts_error_set(err, TS_E_IO, "cannot write '%s': %s", path,
                        strerror(e));
  }
  free(tmp);
  return TS_OK;
}

static enum ts_code stream_copy(const char *src, const char *tmp, struct ts_error *err) {
  int in = open(src, O_RDONLY | O_CLOEXEC);
  if (in < 0)
    return ts_error_set(err, TS_E_IO, "cannot read '%s': %s", src, strerror(errno));
  int out = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
  if (out < 0) {
    enum ts_code rc = ts_error_set(err, TS_E_IO, "cannot write '%s': %s", tmp,
                                   strerror(errno));
    close(in);
    return rc;
  }
  enum ts_code rc = TS_OK;
  char buf[1 << 16];
  for (;;) {
    ssize_t n = read(in, buf, sizeof buf);
    if (n < 0 && errno == EINTR)
      continue;
    if (n < 0) {
      rc = ts_error_set(err, TS_E_IO, "cannot read '%s': %s", src, strerror(errno));
      break;
    }
    if (n == 0)
      break;
    for (ssize_t done = 0; done < n && rc == TS_OK;) {
      ssize_t w = write(out, buf + done, (size_t)(n - done));
      if (w < 0 && errno == EINTR)
        continue;
      if (w < 0)
        rc = ts_error_set(err, TS_E_IO, "cannot write '%s': %s", tmp, strerror(errno));
      else
        done += w;
    }
    if (rc != TS_OK)
      break;
  }
  close(in);
  if (close(out) != 0 && rc == TS_OK)
    rc = ts_error_set(err, TS_E_IO, "cannot write '%s': %s", tmp, strerror(errno));
  return rc;
}

enum ts_code ts_fs_copy_atomic(const char *src, const char *dst, struct ts_error *err) {
  static atomic_uint counter;
  char *tmp = ts_xasprintf("%s.tmp.%ld.%u", dst, (long)getpid(),
                           atomic_fetch_add(&counter, 1));
  enum ts_code rc = TS_OK;
  if (link(src, tmp) != 0)
    rc = stream_copy(src, tmp, err);
  if (rc == TS_OK && rename(tmp, dst) != 0)
    rc = ts_error_set(err, TS_E_IO, "cannot write '%s': %s", dst, strerror(errno));
  if (rc != TS_OK)
    unlink(tmp);
  free(tmp);
  return rc;
}

static int remove_entry(const char *p, const struct stat *st, int flag,
                        struct FTW *ftw) {
  (void)st;
  (void)flag;
  (void)ftw;
  return remove(p) != 0 && errno != ENOENT ? -1 : 0;
}

enum ts_code ts_fs_remove_tree(const char *path, struct ts_error *err) {
  struct stat st;
  if (lstat(path, &st) != 0)
    return errno == ENOENT ? TS_OK
                           : ts_error_set(err, TS_E_IO, "cannot remove '%s': %s",
                                          path, strerror(errno));
  if (nftw(path, remove_entry, 32, FTW_DEPTH | FTW_PHYS) != 0)
    return ts_error_set(err, TS_E_IO, "cannot remove '%s': %s", path,
                        strerror(errno));
  return TS_OK;
}

char *ts_path_join(const char *a, const char *b) {
  size_t la = strlen(a), lb = strlen(b);
  while (la > 1 && a[la - 1] == '/')
    la--;
  while (lb && b[0] == '/') {
    b++;
    lb--;
  }
  char *out = ts_xmalloc(la + lb + 2);

  memcpy(out, a, la);
  out[la] = '/';
  memcpy(out + la + 1, b, lb);
  out[la + 1 + lb] = '\0';
  return out;
}

char *ts_path_absolute(const char *path) {
  if (path[0] == '/')
    return ts_xstrdup(path);
  char *cwd = getcwd(NULL, 0);
  if (!cwd) /* a removed current directory: the path as given */
    return ts_xstrdup(path);
  const char *rel = strncmp(path, "./", 2) == 0 ? path + 2 : path;
  char *abs = rel[0] ? ts_path_join(cwd, rel) : ts_xstrdup(cwd);
  free(cwd);
  return abs;
}

char *ts_cache_root_dir(void) {
  const char *e = getenv("TORCHSOLVE_CACHE_DIR");
  if (e && e[0])
    return ts_path_absolute(e);
  e = getenv("XDG_CACHE_HOME");
  if (e && e[0] == '/')
    return ts_path_join(e, "torchsolve");
  const char *home = getenv("HOME");
  char *c = ts_path_join(home && home[0] ? home : "/tmp", ".cache");
  char *r = ts_path_join(c, "torchsolve");
  free(c);
  return r;
}
