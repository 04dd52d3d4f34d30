/* Several resolutions as one lock: see fleet.h. */
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "core/alloc.h"
#include "core/buf.h"
#include "core/str.h"
#include "pep/requirement.h"
#include "lockgen/fleet.h"

/* An operand of `and` needs parentheses when it has an `or` (which binds
 * looser); one of `or` is parenthesised when it has an `and`, only so that
 * a reader sees the groups.  Text inside quotes may trigger it: harmless. */
static bool has_op(const char *m, const char *op) {
  return strstr(m, op) != NULL;
}

char *ts_fleet_marker_and(const char *a, const char *b) {
  if (!a || !b)
    return ts_xstrdup(a ? a : b);
  bool pa = has_op(a, " or "), pb = has_op(b, " or ");
  return ts_xasprintf("%s%s%s and %s%s%s", pa ? "(" : "", a, pa ? ")" : "", pb ? "(" : "",
                      b, pb ? ")" : "");
}

/* The or of the conditions of the inputs in `members`, sorted, unique. */
static char *conditions_or(const struct ts_fleet_input *in, size_t n, const bool *members) {
  const char **c = ts_xcalloc(n, sizeof *c);
  size_t k = 0;
  for (size_t i = 0; i < n; i++)
    if (members[i])
      c[k++] = in[i].condition;
  qsort(c, k, sizeof *c, ts_strv_cmp);
  struct ts_buf b;
  ts_buf_init(&b, 0);
  size_t written = 0;
  for (size_t i = 0; i < k; i++) {
    if (i && strcmp(c[i], c[i - 1]) == 0)
      continue;
    bool paren = k > 1 && has_op(c[i], " and ");
    ts_buf_xprintf(&b, "%s%s%s%s", written++ ? " or " : "", paren ? "(" : "", c[i],
                   paren ? ")" : "");
  }
  free(c);
  return ts_buf_take(&b, NULL);
}

/* One distinct entry: the first input's copy and which inputs hold it. */
struct group {
  const struct ts_pylock_package *pkg;
  bool *members;
};

static enum ts_code check_conditions(const struct ts_fleet_input *in, size_t n,
                                     struct ts_error *err) {
  if (n == 0)
    return ts_error_set(err, TS_E_INVALID, "no resolution to merge");
  for (size_t i = 0; i < n; i++) {
    if (!in[i].lock)
      return ts_error_set(err, TS_E_INVALID, "resolution %zu has no lock", i + 1);
    if (!in[i].condition) {
      if (n == 1)
        continue;
      return ts_error_set(err, TS_E_INVALID,
                          "resolution %zu of %zu has no marker condition", i + 1, n);
    }
    struct ts_marker *m = NULL;
    struct ts_error why = {0};
    if (ts_marker_parse(in[i].condition, strlen(in[i].condition), &m, &why) != TS_OK)
      return ts_error_set(err, TS_E_INVALID, "condition '%s' is not a marker: %s",
                          in[i].condition, why.detail);
    ts_marker_free(m);
  }
  return TS_OK;
}

enum ts_code ts_fleet_merge(const struct ts_fleet_input *in, size_t n,
                            struct ts_pylock **out, struct ts_error *err) {
  return ts_fleet_merge_simplified(in, n, NULL, NULL, out, err);
}

enum ts_code ts_fleet_merge_simplified(const struct ts_fleet_input *in, size_t n,
                                       ts_fleet_simplify_fn simplify, void *ctx,
                                       struct ts_pylock **out, struct ts_error *err) {
  *out = NULL;
  enum ts_code rc = check_conditions(in, n, err);
  if (rc != TS_OK)
    return rc;
  size_t total = 0, ngroups = 0;
  for (size_t i = 0; i < n; i++)
    total += in[i].lock->npackages;
  struct group *g = ts_xcalloc(total, sizeof *g);
  for (size_t i = 0; i < n; i++)
    for (size_t j = 0; j < in[i].lock->npackages; j++) {
      const struct ts_pylock_package *p = &in[i].lock->packages[j];
      size_t k = 0;
      while (k < ngroups && !(strcmp(g[k].pkg->name, p->name) == 0 &&
                              ts_pylock_package_equal(g[k].pkg, p)))
        k++;
      if (k == ngroups)
        g[ngroups++] = (struct group){p, ts_xcalloc(n, sizeof(bool))};
      g[k].members[i] = true;
    }
  struct ts_pylock *lock = ts_pylock_new();

  for (size_t k = 0; k < ngroups && rc == TS_OK; k++) {
    size_t held = 0;
    for (size_t i = 0; i < n; i++)
      held += g[k].members[i];
    struct ts_pylock_package *p = ts_pylock_copy_package(lock, g[k].pkg);
    if (!p) {
      rc = ts_error_set(err, TS_E_INVALID, "%s %s: the entry cannot be copied",
                        g[k].pkg->name, g[k].pkg->version ? g[k].pkg->version : "");
      break;
    }
    if (held == n)
      continue;
    char *cond = simplify ? simplify(g[k].members, n, ctx) : NULL;
    if (!cond)
      cond = conditions_or(in, n, g[k].members);
    char *marker = ts_fleet_marker_and(p->marker, cond);
    free(cond);
    free(p->marker);
    p->marker = marker;
  }
  for (size_t k = 0; k < ngroups; k++)
    free(g[k].members);
  free(g);
  if (rc == TS_OK)
    rc = ts_pylock_validate(lock, err);
  if (rc != TS_OK) {
    ts_pylock_free(lock);
    return rc;
  }
  *out = lock;
  return TS_OK;
}
