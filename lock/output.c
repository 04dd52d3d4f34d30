/* Writing generated files to a user's path: atomically for files, in place
 * for devices and pipes (see output.h). */
#include <errno.h>
#include <stdbool.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/fs.h"
#include "lock/output.h"

static enum ts_code write_in_place(const char *path, const void *data,
                                   size_t len, bool create, struct ts_error *err) {
  /* O_CREAT only through a dangling link (as the shell's > would); no
   * O_TRUNC for devices: a pipe cannot be truncated, and a redirected
   * stdout is a file the shell already truncated. */
  int fd = create ? open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644)
                  : open(path, O_WRONLY | O_CLOEXEC);
  if (fd < 0)
    return ts_error_set(err, TS_E_IO, "cannot write '%s': %s", path,
                        strerror(errno));
  return ts_fs_write_fd(fd, data, len, path, err);
}

enum ts_code ts_output_write_file(const char *path, const void *data, size_t len,
                                  struct ts_error *err) {
  struct stat lst, st;
  if (lstat(path, &lst) != 0)
    return ts_fs_write_atomic(path, data, len, err); /* a new file */
  if (S_ISREG(lst.st_mode))
    return ts_fs_write_atomic(path, data, len, err);
  if (S_ISDIR(lst.st_mode))
    return ts_error_set(err, TS_E_IO, "cannot write '%s': it is a directory", path);
  if (S_ISLNK(lst.st_mode)) {
    if (stat(path, &st) != 0) /* dangling: create the target, as > would */
      return write_in_place(path, data, len, true, err);
    if (S_ISDIR(st.st_mode))
      return ts_error_set(err, TS_E_IO, "cannot write '%s': it is a directory",
                          path);
    char *real = realpath(path, NULL);
    /* /dev/stdout -> /proc/self/fd/1 -> the shell's redirection target:
     * a regular file by stat, but renaming over it would detach the
     * output from the descriptor the caller reads. */
    bool proc = real && (strncmp(real, "/proc/", 6) == 0 ||
                         strncmp(path, "/dev/", 5) == 0 ||
                         strncmp(path, "/proc/", 6) == 0);
    enum ts_code rc;
    if (S_ISREG(st.st_mode) && real && !proc)
      rc = ts_fs_write_atomic(real, data, len, err);
    else
      rc = write_in_place(path, data, len, false, err);
    free(real);
    return rc;
  }
  return write_in_place(path, data, len, false, err); /* device, FIFO, socket */
}
