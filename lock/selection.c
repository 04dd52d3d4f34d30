/* A lock's extras and groups to install: see selection.h. */
#include "lock/selection.h"

#include <stdlib.h>
#include <string.h>

#include "core/alloc.h"
#include "core/buf.h"
#include "core/str.h"
#include "pep/name.h"
#include "pep/requirement.h"

static char *normalized(const char *s) {
  char *n = ts_name_normalize(s, strlen(s));
  return n;
}

static bool has(char *const *set, size_t n, const char *name) {
  for (size_t i = 0; i < n; i++)
    if (strcmp(set[i], name) == 0)
      return true;
  return false;
}

/* Adds a copy of name (normalised) unless the set has it. */
static void add(char ***set, size_t *n, const char *name) {
  char *norm = normalized(name);
  if (has(*set, *n, norm)) {
    free(norm);
    return;
  }
  *set = ts_xreallocarray(*set, *n + 1, sizeof **set);
  (*set)[(*n)++] = norm;
}

static bool is_profile(const struct ts_pylock *lock, const char *extra) {
  for (size_t i = 0; i < lock->nprofiles; i++)
    if (strcmp(lock->profiles[i].name, extra) == 0)
      return true;
  return false;
}

/* The lock's declared names a user may ask for (normalised; the profiles
 * left out of the extras). */
static void declared(const struct ts_pylock *lock, bool extras, char ***out, size_t *n) {
  char *const *names = extras ? lock->extras : lock->dependency_groups;
  size_t count = extras ? lock->nextras : lock->ndependency_groups;
  for (size_t i = 0; i < count; i++) {
    char *norm = normalized(names[i]);
    if (!extras || !is_profile(lock, norm))
      add(out, n, norm);
    free(norm);
  }
}

static enum ts_code unknown(const char *option, const char *name, const char *kind,
                            char *const *valid, size_t nvalid, struct ts_error *err) {
  if (!nvalid)
    return ts_error_set(err, TS_E_INVALID, "%s %s: the lock declares no %ss", option, name,
                        kind);
  struct ts_buf list;
  ts_buf_init(&list, 0);
  for (size_t i = 0; i < nvalid; i++)
    ts_buf_xprintf(&list, "%s%s", i ? ", " : "", valid[i]);
  enum ts_code rc = ts_error_set(err, TS_E_INVALID, "%s %s: the lock has no such %s (it has %s)",
                                 option, name, kind, list.data);
  ts_buf_clear(&list);
  return rc;
}

enum ts_code ts_lock_select(const struct ts_pylock *lock, const struct ts_lock_request *rq,
                            const char *profile_extra, struct ts_lock_selection *out,
                            struct ts_error *err) {
  static const struct ts_lock_request nothing = {0};
  memset(out, 0, sizeof *out);
  if (!rq)
    rq = &nothing;
  char **extras = NULL, **groups = NULL;
  size_t nextras = 0, ngroups = 0;
  declared(lock, true, &extras, &nextras);
  declared(lock, false, &groups, &ngroups);
  enum ts_code rc = TS_OK;
  for (size_t i = 0; i < rq->nextras && rc == TS_OK; i++) {
    char *name = normalized(rq->extras[i]);
    if (is_profile(lock, name))
      rc = ts_error_set(err, TS_E_INVALID, "--extra %s: that is a GPU profile of the lock; "
                        "choose it with --profile %s", rq->extras[i], rq->extras[i]);
    else if (!has(extras, nextras, name))
      rc = unknown("--extra", rq->extras[i], "extra", extras, nextras, err);
    else
      add(&out->extras, &out->nextras, name);
    free(name);
  }
  for (size_t i = 0; i < rq->ngroups && rc == TS_OK; i++) {
    char *name = normalized(rq->groups[i]);
    if (!has(groups, ngroups, name))
      rc = unknown("--group", rq->groups[i], "dependency group", groups, ngroups, err);
    else
      add(&out->groups, &out->ngroups, name);
    free(name);
  }
  for (size_t i = 0; rq->all_extras && i < nextras; i++)
    add(&out->extras, &out->nextras, extras[i]);
  for (size_t i = 0; rq->all_groups && i < ngroups; i++)
    add(&out->groups, &out->ngroups, groups[i]);
  for (size_t i = 0; !rq->no_default_groups && i < lock->ndefault_groups; i++)
    add(&out->groups, &out->ngroups, lock->default_groups[i]);
  if (profile_extra)
    add(&out->extras, &out->nextras, profile_extra);
  ts_strv_free(extras, nextras);
  ts_strv_free(groups, ngroups);
  if (out->nextras > 1)
    qsort(out->extras, out->nextras, sizeof *out->extras, ts_strv_cmp);
  if (out->ngroups > 1)
    qsort(out->groups, out->ngroups, sizeof *out->groups, ts_strv_cmp);
  return rc;
}

void ts_lock_selection_clear(struct ts_lock_selection *s) {
  ts_strv_free(s->extras, s->nextras);
  ts_strv_free(s->groups, s->ngroups);
  memset(s, 0, sizeof *s);
}

enum ts_code ts_lock_selection_apply(struct ts_pylock *lock, const struct ts_lock_selection *sel,
                                     struct ts_error *err) {
  struct ts_marker_eval_opts eo = {.context = TS_MARKER_LOCK_FILE,
                                   .extras = (const char *const *)sel->extras,
                                   .nextras = sel->nextras,
                                   .dependency_groups = (const char *const *)sel->groups,
                                   .ngroups = sel->ngroups};
  struct ts_pylock *kept = ts_pylock_new();

  enum ts_code rc = TS_OK;
  for (size_t i = 0; i < lock->npackages && rc == TS_OK; i++) {
    const struct ts_pylock_package *p = &lock->packages[i];
    bool holds = true;
    char *rest = NULL;
    if (p->marker) {
      struct ts_marker *m = NULL;
      struct ts_error why = {0};
      rc = ts_marker_parse(p->marker, strlen(p->marker), &m, &why);
      if (rc == TS_OK)
        rc = ts_marker_decide_sets(m, &eo, &holds, &rest, &why);
      ts_marker_free(m);
      if (rc != TS_OK)
        rc = ts_error_set(err, TS_E_PARSE, "%s: marker '%s': %s", p->name, p->marker,
                          why.detail);
    }
    struct ts_pylock_package *c = rc == TS_OK && holds ? ts_pylock_copy_package(kept, p) : NULL;
    if (c) {
      free(c->marker);
      c->marker = rest;
      rest = NULL;
    } else if (rc == TS_OK && holds) {
      rc = ts_error_set(err, TS_E_NOMEM, "%s: cannot copy the entry", p->name);
    }
    free(rest);
  }
  if (rc == TS_OK) { /* the kept entries in, the old ones out with `kept` */
    struct ts_pylock_package *all = lock->packages;
    size_t n = lock->npackages;
    lock->packages = kept->packages;
    lock->npackages = kept->npackages;
    kept->packages = all;
    kept->npackages = n;
  }
  ts_pylock_free(kept);
  return rc;
}
