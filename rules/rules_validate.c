/* One rules file validated as `rules check` and `rules update` do; see
 * rules.h (ts_rules_validate_file). */
#include <stdlib.h>
#include <string.h>

#include "core/alloc.h"
#include "core/str.h"
#include "rules/rules.h"

static bool same_file(const char *a, const char *b) {
  char *ra = realpath(a, NULL), *rb = realpath(b, NULL);
  bool same = ra && rb && strcmp(ra, rb) == 0;
  free(ra);
  free(rb);
  return same;
}

static void add_diag(struct ts_rules_diags *d, const char *file, const char *message) {
  if (!d)
    return;
  d->items = ts_xreallocarray(d->items, d->n + 1, sizeof *d->items);
  d->items[d->n].file = ts_xstrdup(file);
  d->items[d->n].line = 0;
  d->items[d->n].column = 0;
  d->items[d->n].message = ts_xstrdup(message);
  d->n++;
}

/* A file used over the bundled one (--rules, the config file) must merge
 * over it: its references to bundled backends are checked that way, on a
 * second copy of the file. */
static enum ts_code merges_over(const char *path, const char *bundled,
                                struct ts_error *err) {
  struct ts_rules *base = NULL, *copy = NULL;
  struct ts_error ignored = {0};
  if (ts_rules_load_file(bundled, &base, NULL, &ignored) != TS_OK)
    return TS_OK; /* no bundled rules to merge over: nothing more to check */
  enum ts_code rc = ts_rules_load_file(path, &copy, NULL, err);
  if (rc == TS_OK)
    rc = ts_rules_merge(base, copy, err);
  ts_rules_free(copy);
  ts_rules_free(base);
  return rc;
}

enum ts_code ts_rules_validate_file(const char *path, const char *bundled,
                                    struct ts_rules **out,
                                    struct ts_rules_diags *diags,
                                    struct ts_error *err) {
  *out = NULL;
  struct ts_rules *r = NULL;
  enum ts_code rc = ts_rules_load_file(path, &r, diags, err);
  if (rc != TS_OK)
    return rc;
  if (bundled && !same_file(path, bundled) &&
      (rc = merges_over(path, bundled, err)) != TS_OK) {
    char *msg = ts_xasprintf("%s (merged over %s)", err->detail, bundled);
    add_diag(diags, path, msg);
    ts_error_set(err, TS_E_RULES, "%s: %s", path, msg);
    free(msg);
    ts_rules_free(r);
    return TS_E_RULES;
  }
  *out = r;
  return TS_OK;
}
