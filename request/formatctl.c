/* pip's --no-binary / --only-binary sets: see formatctl.h. */
#include "request/formatctl.h"

#include <stdlib.h>
#include <string.h>

#include "core/str.h"
#include "pep/name.h"

static void set_clear(char ***v, size_t *n) {
  for (size_t i = 0; i < *n; i++)
    free((*v)[i]);
  free(*v);
  *v = NULL;
  *n = 0;
}

static bool set_has(char *const *v, size_t n, const char *s) {
  for (size_t i = 0; i < n; i++)
    if (strcmp(v[i], s) == 0)
      return true;
  return false;
}

static void set_add(char ***v, size_t *n, const char *s) {
  if (set_has(*v, *n, s))
    return;
  ts_strv_push(v, n, s, strlen(s));
}

static void set_remove(char **v, size_t *n, const char *s) {
  for (size_t i = 0; i < *n; i++)
    if (strcmp(v[i], s) == 0) {
      free(v[i]);
      v[i] = v[--*n];
      return;
    }
}

enum ts_code ts_formatctl_add(struct ts_formatctl *fc, const char *value, bool no_binary,
                              struct ts_error *err) {
  /* every item is checked before any is applied: nothing half-done */
  for (const char *s = value;; s++) {
    size_t n = strcspn(s, ",");
    bool special = (n == 5 && !memcmp(s, ":all:", 5)) || (n == 6 && !memcmp(s, ":none:", 6));
    if (!special && !ts_name_is_valid(s, n))
      return ts_error_set(err, TS_E_INVALID,
                          "--%s '%s': '%.*s' is no project name (give names, "
                          ":all: or :none:, separated by commas)",
                          no_binary ? "no-binary" : "only-binary", value, (int)n, s);
    s += n;
    if (!*s)
      break;
  }
  char ***mine = no_binary ? &fc->no_binary : &fc->only_binary;
  size_t *nmine = no_binary ? &fc->nno_binary : &fc->nonly_binary;
  char ***other = no_binary ? &fc->only_binary : &fc->no_binary;
  size_t *nother = no_binary ? &fc->nonly_binary : &fc->nno_binary;
  for (const char *s = value;; s++) {
    size_t n = strcspn(s, ",");
    if (n == 5 && !memcmp(s, ":all:", 5)) {
      set_clear(mine, nmine);
      set_clear(other, nother);
      set_add(mine, nmine, TS_FORMATCTL_ALL);
    } else if (n == 6 && !memcmp(s, ":none:", 6)) {
      set_clear(mine, nmine);
    } else {
      char *norm = ts_name_normalize(s, n);
      set_remove(*other, nother, norm);
      set_add(mine, nmine, norm);
      free(norm);
    }
    s += n;
    if (!*s)
      break;
  }
  return TS_OK;
}

enum ts_code ts_formatctl_add_reqfile(struct ts_formatctl *fc, const struct ts_reqfile *rf,
                                      struct ts_error *err) {
  enum ts_code rc = TS_OK;
  for (size_t i = 0; i < rf->nno_binary && rc == TS_OK; i++)
    rc = ts_formatctl_add(fc, rf->no_binary[i], true, err);
  for (size_t i = 0; i < rf->nonly_binary && rc == TS_OK; i++)
    rc = ts_formatctl_add(fc, rf->only_binary[i], false, err);
  return rc;
}

void ts_formatctl_clear(struct ts_formatctl *fc) {
  set_clear(&fc->no_binary, &fc->nno_binary);
  set_clear(&fc->only_binary, &fc->nonly_binary);
}
