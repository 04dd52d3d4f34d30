/* An index wheel that fails its check, replaced by another file of the
 * same version: see plan_internal.h. */
#include "plan/plan_internal.h"

#include <stdlib.h>
#include <string.h>

#include "core/fs.h"
#include "core/sha256.h"
#include "core/str.h"
#include "pep/filename.h"
#include "pep/tags.h"

/* A wheel refused for what it holds (its RECORD, paths, members), not
 * for where it is. */
static bool broken(enum ts_code c) {
  return c == TS_E_HASH || c == TS_E_BAD_WHEEL || c == TS_E_UNSAFE_PATH;
}

/* The wheel checked and unpacked into the cache as the transaction will
 * want it (a --no-cache unpack is dropped again). */
static enum ts_code check(const struct ts_wheel_options *wo, const struct ts_plan_fetch *f,
                          struct ts_error *err) {
  uint8_t dig[TS_SHA256_LEN];
  ts_sha256_from_hex(f->sha256_out, 64, dig);
  struct ts_wheel_request rq = {.path = f->local, .sha256 = dig};
  char *dir = NULL;
  enum ts_code rc = ts_wheel_unpack(wo, &rq, &dir, err);
  if (rc == TS_OK && wo->no_cache) {
    struct ts_error ignore = {0};
    ts_fs_remove_tree(dir, &ignore);
  }
  free(dir);
  return rc;
}

/* The next candidate after the refused ones: a wheel of the version that
 * the target supports, best tag first, then the highest build tag (pip's
 * order); NULL when none is left. */
static const struct ts_index_file *next_candidate(const struct ts_plan_result *r,
                                                  const struct ts_resolved *x,
                                                  char *const *tried, size_t ntried) {
  const struct ts_index_file **files = NULL;
  size_t n = ts_plan_version_files(r, x->name, x->version, &files);
  const struct ts_index_file *best = NULL;
  struct ts_wheel_filename *bw = NULL;
  long bp = -1;
  for (size_t i = 0; i < n; i++) {
    bool seen = false;
    for (size_t k = 0; k < ntried && !seen; k++)
      seen = strcmp(tried[k], files[i]->filename) == 0;
    struct ts_wheel_filename *w = NULL;
    const char *fn = files[i]->filename;
    if (seen || ts_wheel_filename_parse(fn, strlen(fn), &w, NULL) != TS_OK)
      continue;
    long pr = ts_tagset_best_priority(r->target->tags, w->tags, w->ntags);
    if (pr >= 0 && (!best || pr < bp || (pr == bp && ts_wheel_build_cmp(w, bw) > 0))) {
      best = files[i];
      bp = pr;
      ts_wheel_filename_free(bw);
      bw = w;
    } else {
      ts_wheel_filename_free(w);
    }
  }
  ts_wheel_filename_free(bw);
  free(files);
  return best;
}

/* Item i's wheel failed its check with `why`: the next candidates are
 * fetched and checked until one passes (it replaces the file in the plan
 * and in fx[i]) or none is left (`why` stands). */
static enum ts_code fall_back(struct ts_plan_result *r, struct ts_plan_item *it,
                              struct ts_plan_fetch *fx, const struct ts_wheel_options *wo,
                              const struct ts_plan_fetch_options *fo,
                              const struct ts_error *why, struct ts_error *err) {
  struct ts_resolved *x = (struct ts_resolved *)it->r;
  char **tried = NULL;
  size_t ntried = 0;
  ts_strv_push(&tried, &ntried, x->file->filename, strlen(x->file->filename));
  enum ts_code rc = why->code;
  *err = *why;
  const struct ts_index_file *alt;
  while (broken(rc) && (alt = next_candidate(r, x, tried, ntried))) {
    ts_strv_push(&tried, &ntried, alt->filename, strlen(alt->filename));
    struct ts_plan_fetch f = {.project = x->name, .filename = alt->filename,
                              .url = alt->url, .sha256 = alt->sha256,
                              .cache_key = alt->sha256, .size = alt->size};
    struct ts_plan_fetch_totals totals;
    struct ts_error e = {0};
    rc = ts_plan_fetch_files(r->idx, &f, 1, fo, &totals, &e);
    if (rc == TS_OK && !f.sha256_out[0])
      rc = ts_error_set(&e, TS_E_HASH, "%s: not hashed", alt->filename);
    if (rc == TS_OK)
      rc = check(wo, &f, &e);
    if (rc == TS_OK) {
      if (wo->cb.notice) {
        char *what = ts_xasprintf("refused (%s); %s %s is installed from %s instead",
                                  why->detail, x->name, x->version, alt->filename);
        wo->cb.notice(wo->cb.ctx, tried[0], what);
        free(what);
      }
      free(fx->local);
      *fx = f;
      fx->project = x->name;
      x->file = alt;
    } else {
      ts_plan_fetch_clear(&f, 1);
      if (!broken(rc))
        *err = e;
    }
  }
  ts_strv_free(tried, ntried);
  return rc;
}

enum ts_code ts_plan_check_index_wheels(struct ts_plan_result *r, struct ts_plan_item **todo,
                                        struct ts_plan_fetch *fx, size_t n,
                                        const struct ts_plan_fetch_options *fo,
                                        const struct ts_wheel_callbacks *cb,
                                        struct ts_error *err) {
  const char *croot = ts_index_cache_mode(r->idx) == TS_CACHE_DISABLED
                          ? NULL : ts_index_cache_dir(r->idx);
  struct ts_wheel_options wo = {.cache_dir = croot, .no_cache = croot == NULL, .cb = *cb};
  enum ts_code rc = TS_OK;
  for (size_t i = 0; i < n && rc == TS_OK; i++) {
    const struct ts_plan_item *it = todo[i];
    /* a file the user named or pinned by --hash is that file or nothing */
    if (it->r->sdist || it->built || it->direct_url || it->hashed_by || fx[i].hash_later ||
        !fx[i].sha256_out[0] || ts_dist_kind_of(fx[i].filename, strlen(fx[i].filename)) !=
                                    TS_DIST_WHEEL)
      continue;
    struct ts_error why = {0};
    rc = check(&wo, &fx[i], &why);
    if (rc != TS_OK)
      rc = broken(rc) ? fall_back(r, todo[i], &fx[i], &wo, fo, &why, err)
                      : (*err = why, rc);
  }
  return rc;
}
