/* Locking again over an existing lock: see relock.h. */
#include "lockgen/relock.h"

#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "core/alloc.h"
#include "core/buf.h"
#include "core/fs.h"
#include "core/str.h"
#include "lockgen/profiles.h"
#include "pep/name.h"

static bool named(const char *name, const char *const *list, size_t n) {
  for (size_t i = 0; i < n; i++)
    if (ts_name_eq(name, strlen(name), list[i], strlen(list[i])))
      return true;
  return false;
}

enum ts_code ts_relock_read(const char *path, const char *const *upgrade, size_t nupgrade,
                            bool upgrade_all, struct ts_relock *out, struct ts_error *err) {
  memset(out, 0, sizeof *out);
  struct stat st;
  if (!path || strcmp(path, "-") == 0 || stat(path, &st) != 0)
    return TS_OK;
  enum ts_code rc = ts_pylock_read_file(path, &out->previous, err);
  if (rc != TS_OK) {
    struct ts_error why = *err;
    return ts_error_set(err, rc, "the existing lock %s cannot be read (%s): fix or remove it",
                        path, why.detail);
  }
  const struct ts_pylock *l = out->previous;
  out->prefs = ts_xcalloc(l->npackages + 1, sizeof *out->prefs);
  for (size_t i = 0; i < l->npackages && !upgrade_all; i++) {
    const struct ts_pylock_package *p = &l->packages[i];
    if (p->version && !named(p->name, upgrade, nupgrade))
      out->prefs[out->nprefs++] = (struct ts_resolver_preference){p->name, p->version};
  }
  out->profile_args = ts_profile_args_of_lock(l, &out->nprofile_args);
  return TS_OK;
}

void ts_relock_clear(struct ts_relock *r) {
  ts_pylock_free(r->previous);
  free(r->prefs);
  ts_strv_free(r->profile_args, r->nprofile_args);
  memset(r, 0, sizeof *r);
}

enum ts_code ts_relock_same(const struct ts_pylock *lock, const char *path, bool *same,
                            struct ts_error *err) {
  *same = false;
  struct ts_buf want, have;
  ts_buf_init(&want, TS_CAP_LOCKFILE);
  ts_buf_init(&have, TS_CAP_LOCKFILE);
  enum ts_code rc = ts_pylock_write(lock, &want, err);
  if (rc == TS_OK) {
    enum ts_code r = ts_fs_read_file(path, &have, err);
    if (r == TS_OK)
      *same = have.len == want.len && memcmp(have.data, want.data, want.len) == 0;
    else if (r == TS_E_NOT_FOUND)
      *err = (struct ts_error){0};
    else
      rc = r;
  }
  ts_buf_clear(&want);
  ts_buf_clear(&have);
  return rc;
}
