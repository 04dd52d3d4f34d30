/* Checking unpacked wheel trees in the cache; see treecheck.h. */
#include "wheel/treecheck.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/cacheroot.h"
#include "core/filehash.h"
#include "core/fs.h"
#include "core/str.h"
#include "wheel/record.h"
#include "wheel/wheel.h"

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

static bool is_tree_name(const char *n) {
  size_t i = 0;
  for (; n[i]; i++)
    if (!((n[i] >= '0' && n[i] <= '9') || (n[i] >= 'a' && n[i] <= 'f')))
      return false;
  return i == 64;
}

enum ts_code ts_wheel_cache_verify(const char *cache_root, ts_wheel_verify_fn *report,
                                   void *ctx, size_t *checked, size_t *dropped,
                                   struct ts_error *err) {
  size_t nchecked = 0, ndropped = 0;
  enum ts_code rc = ts_cache_root_check(cache_root, err);
  if (rc != TS_OK)
    return rc;
  char *root = ts_path_join(cache_root, "wheels-v1");
  DIR *d = opendir(root);
  if (!d) {
    rc = errno == ENOENT ? TS_OK
                         : ts_error_set(err, TS_E_IO, "cannot open '%s': %s", root,
                                        strerror(errno));
    free(root);
    if (checked)
      *checked = 0;
    if (dropped)
      *dropped = 0;
    return rc;
  }
  /* sorted: the report reads the same on every run */
  char **names = NULL;
  size_t n = 0;
  struct dirent *de;
  while ((de = readdir(d)))
    if (is_tree_name(de->d_name)) {
      ts_strv_push(&names, &n, de->d_name, strlen(de->d_name));
    }
  closedir(d);
  if (n) /* qsort with a NULL array is undefined even for 0 elements */
    qsort(names, n, sizeof *names, ts_strv_cmp);
  for (size_t i = 0; i < n && rc == TS_OK; i++) {
    struct ts_unpacked u = {.dir = ts_path_join(root, names[i])};
    struct ts_error le = {0};
    char why[TS_ERROR_DETAIL_MAX], dist[300];
    bool ok = false, loaded = ts_unpacked_load(&u, NULL, NULL, &le) == TS_OK;
    if (loaded) {
      snprintf(dist, sizeof dist, "%s %s", u.name, u.version);
      ok = ts_unpacked_tree_intact(&u, TS_TREE_FULL, why, sizeof why);
    } else {
      snprintf(why, sizeof why, "%s", le.detail);
    }
    nchecked++;
    if (!ok) {
      rc = ts_unpacked_tree_drop(root, u.dir, err);
      ndropped += rc == TS_OK;
    }
    if (report && rc == TS_OK)
      report(ctx, u.dir, loaded ? dist : NULL, ok ? NULL : why);
    ts_unpacked_clear(&u);
  }
  ts_strv_free(names, n);
  free(root);
  if (checked)
    *checked = nchecked;
  if (dropped)
    *dropped = ndropped;
  return rc;
}
