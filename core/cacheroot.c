/* The cache root's marker; see cacheroot.h. */
#include "core/cacheroot.h"

#include <dirent.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "core/buf.h"
#include "core/fs.h"

const char *const ts_cache_root_entries[] = {
    "packs-v1", "pages-v2", "metadata-v2", "wheels-v1", "downloads-v1", "python", "rules-v1",
    "pages-v1", "metadata-v1", /* an earlier layout's: not read, cleaned */
    NULL};

/* The spec's signature line, then who wrote it: another tool's tag does
 * not make a directory ours. */
static const char marker_text[] =
    "Signature: 8a477f597d28d172789f06886806bc55\n"
    "# This file is a cache directory tag created by torchsolve.\n"
    "# For information about cache directory tags see https://bford.info/cachedir/\n";
static const char marker_owner[] = "created by torchsolve";

static bool is_ours(const char *name) {
  for (size_t i = 0; ts_cache_root_entries[i]; i++)
    if (strcmp(name, ts_cache_root_entries[i]) == 0)
      return true;
  return false;
}

static bool marked(const char *root) {
  char *path = ts_path_join(root, TS_CACHE_MARKER);
  struct ts_buf b;
  ts_buf_init(&b, TS_CAP_TINY_FILE);
  bool ok = ts_fs_read_file(path, &b, NULL) == TS_OK && b.len &&
            memmem(b.data, b.len, marker_owner, sizeof marker_owner - 1);
  ts_buf_clear(&b);
  free(path);
  return ok;
}

/* Holds nothing but torchsolve's folders (an earlier version's cache, or
 * an empty directory).  A CACHEDIR.TAG that is not ours makes it foreign. */
static bool only_ours(const char *root) {
  DIR *d = opendir(root);
  if (!d)
    return false;
  bool ok = true;
  struct dirent *de;
  while (ok && (de = readdir(d)))
    ok = strcmp(de->d_name, ".") == 0 || strcmp(de->d_name, "..") == 0 ||
         is_ours(de->d_name);
  closedir(d);
  return ok;
}

static bool write_marker(const char *root) {
  char *path = ts_path_join(root, TS_CACHE_MARKER);
  bool ok = ts_fs_write_atomic(path, marker_text, sizeof marker_text - 1, NULL) == TS_OK;
  free(path);
  return ok;
}

bool ts_cache_root_prepare(const char *root) {
  if (marked(root))
    return true;
  if (ts_fs_mkdirs(root, NULL) != TS_OK)
    return false;
  return only_ours(root) && write_marker(root);
}

enum ts_code ts_cache_root_check(const char *root, struct ts_error *err) {
  struct stat st;
  if (stat(root, &st) != 0)
    return errno == ENOENT
               ? ts_error_set(err, TS_E_NOT_FOUND, "the cache '%s' does not exist", root)
               : ts_error_set(err, TS_E_IO, "cannot read the cache '%s': %s", root,
                              strerror(errno));
  if (!S_ISDIR(st.st_mode))
    return ts_error_set(err, TS_E_INVALID,
                        "'%s' is not a directory, so not a torchsolve cache; "
                        "nothing was deleted", root);
  if (marked(root) || (only_ours(root) && write_marker(root)))
    return TS_OK;
  return ts_error_set(err, TS_E_INVALID,
                      "'%s' is not a torchsolve cache (it has no " TS_CACHE_MARKER
                      " written by torchsolve, and holds other files): nothing was "
                      "deleted; check TORCHSOLVE_CACHE_DIR, XDG_CACHE_HOME or "
                      "--cache-dir", root);
}
