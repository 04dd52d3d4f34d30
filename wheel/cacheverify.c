/* `cache verify`: every unpacked tree in the cache re-hashed against its
 * RECORD, and the damaged ones dropped (ts_wheel_cache_verify, wheel.h).
 * Above unpack.c (which loads a tree) and treecheck.c (which checks it). */
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/alloc.h"
#include "core/cacheroot.h"
#include "core/fs.h"
#include "core/str.h"
#include "wheel/treecheck.h"
#include "wheel/unpack.h"
#include "wheel/wheel.h"

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
    if (is_tree_name(de->d_name))
      ts_strv_push(&names, &n, de->d_name, strlen(de->d_name));
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
