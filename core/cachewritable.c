/* Whether a cache root can be written: see cachewritable.h. */
#include "core/cachewritable.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/fs.h"
#include "core/str.h"

/* A page's worth: on a full filesystem creating the file may succeed
 * where its first block cannot be had. */
enum { PROBE_BYTES = 4096 };

enum ts_code ts_cache_root_writable(const char *root, struct ts_error *err) {
  struct ts_error mk = {0};
  if (ts_fs_mkdirs(root, &mk) != TS_OK)
    return ts_error_set(err, TS_E_IO, "cannot create the cache '%s': %s", root, mk.detail);
  struct stat st;
  if (stat(root, &st) != 0)
    return ts_error_set(err, TS_E_IO, "cannot read the cache '%s': %s", root,
                        strerror(errno));
  if (geteuid() == 0 && st.st_uid != 0)
    return ts_error_set(err, TS_E_IO, "the cache '%s' belongs to another user (uid %u)",
                        root, (unsigned)st.st_uid);
  char *probe = ts_path_join(root, ".torchsolve-probe-XXXXXX");
  int fd = mkstemp(probe);
  int saved = errno;
  if (fd >= 0) {
    char block[PROBE_BYTES];
    memset(block, 0, sizeof block);
    saved = write(fd, block, sizeof block) == (ssize_t)sizeof block ? 0 : errno ? errno : ENOSPC;
    if (close(fd) != 0 && !saved)
      saved = errno;
    unlink(probe);
  }
  free(probe);
  if (fd < 0 || saved)
    return ts_error_set(err, TS_E_IO, "cannot write in the cache '%s': %s", root,
                        strerror(saved));
  return TS_OK;
}
