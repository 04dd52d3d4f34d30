/* Checking unpacked wheel trees in the cache; see treecheck.h. */
#include "wheel/treecheck.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/filehash.h"
#include "core/fs.h"
#include "core/str.h"
#include "wheel/record.h"

void ts_unpacked_tree_stamp(const char *dir) {
  utimensat(AT_FDCWD, dir, NULL, 0); /* best effort: an unstamped tree is
                                        only checked more strictly */
}

static bool newer(const struct timespec *a, const struct timespec *b) {
  return a->tv_sec > b->tv_sec || (a->tv_sec == b->tv_sec && a->tv_nsec > b->tv_nsec);
}

/* One file of the tree; NULL when it is as RECORD says, else why not. */
static const char *file_fault(const struct ts_unpacked *u, const struct ts_unpacked_file *f,
                              enum ts_tree_check how, const struct timespec *stamp) {
  char *p = ts_path_join(u->dir, f->path);
  struct stat st;
  const char *why = NULL;
  if (lstat(p, &st) != 0)
    why = "missing";
  else if (S_ISLNK(st.st_mode))
    why = NULL; /* a symlink member: its target was checked when unpacked */
  else if (!S_ISREG(st.st_mode))
    why = "not a regular file";
  else if ((uint64_t)st.st_size != f->size)
    why = "size differs from RECORD";
  else if (how == TS_TREE_SAMPLE && newer(&st.st_mtim, stamp))
    why = "modified after unpacking";
  else if (how == TS_TREE_FULL && f->hash && f->hash[0]) {
    uint8_t want[32], got[32];
    if (ts_record_hash_sha256(f->hash, want, NULL) == TS_OK &&
        (ts_filehash_path(p, NULL, got, NULL, NULL) != TS_OK || memcmp(want, got, 32) != 0))
      why = "sha256 differs from RECORD";
  }
  free(p);
  return why;
}

bool ts_unpacked_tree_intact(const struct ts_unpacked *u, enum ts_tree_check how,
                             char *bad, size_t bad_len) {
  struct stat root;
  if (stat(u->dir, &root) != 0) {
    if (bad)
      snprintf(bad, bad_len, "%s: missing", u->dir);
    return false;
  }
  size_t n = u->count, step_den = 1, picks = n;
  if (how == TS_TREE_SAMPLE && n > TS_TREE_SAMPLE_FILES) {
    picks = TS_TREE_SAMPLE_FILES; /* file k*n/picks: spread over the whole
                                     RECORD, the same files every run */
    step_den = picks;
  }
  for (size_t k = 0; k < picks; k++) {
    size_t i = step_den == 1 ? k : k * n / step_den;
    const char *why = file_fault(u, &u->files[i], how, &root.st_mtim);
    if (why) {
      if (bad)
        snprintf(bad, bad_len, "%s: %s", u->files[i].path, why);
      return false;
    }
  }
  return true;
}

enum ts_code ts_unpacked_tree_drop(const char *root, const char *dir, struct ts_error *err) {
  char *aside = ts_path_join(root, ".tmp-drop-XXXXXX");
  enum ts_code rc = TS_OK;
  if (!mkdtemp(aside)) {
    rc = ts_error_set(err, TS_E_IO, "cannot create a directory in '%s': %s", root,
                      strerror(errno));
  } else {
    char *into = ts_path_join(aside, "tree");
    if (rename(dir, into) != 0 && errno != ENOENT)
      rc = ts_error_set(err, TS_E_IO, "cannot move '%s' aside: %s", dir, strerror(errno));
    free(into);
    ts_fs_remove_tree(aside, NULL);
  }
  free(aside);
  return rc;
}
