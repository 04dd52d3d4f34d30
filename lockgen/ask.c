/* What `lock` is asked to produce, settled: see ask.h. */
#include "lockgen/ask.h"

#include <stdlib.h>

#include "core/alloc.h"

void ts_lock_ask_from_project(struct ts_lock_ask *a, const struct ts_project *p) {
  if (a->universal && !a->requires_python)
    a->requires_python = p->requires_python;
  if (a->universal && !a->nenvironments) {
    a->environments = (const char *const *)p->environments;
    a->nenvironments = p->nenvironments;
  }
  if (!a->nprofile_args && p->nprofiles) {
    a->profile_args = (const char *const *)p->profiles;
    a->nprofile_args = p->nprofiles;
    a->profiles_from = "pyproject.toml: tool.torchsolve.profiles";
  }
}

void ts_lock_ask_from_previous(struct ts_lock_ask *a, const struct ts_relock *r) {
  const struct ts_pylock *previous = r->previous;
  if (!a->check)
    return;
  if (!a->universal && !a->python_version && previous && previous->grid &&
      !a->nenvironments) {
    a->universal = true;
    a->requires_python = a->requires_python ? a->requires_python : previous->requires_python;
    a->environments = (const char *const *)previous->environments;
    a->nenvironments = previous->nenvironments;
  }
  if (!a->nprofile_args && r->nprofile_args) {
    a->profile_args = (const char *const *)r->profile_args;
    a->nprofile_args = r->nprofile_args;
  }
}

enum ts_code ts_lock_ask_profiles(const struct ts_lock_ask *a, const struct ts_rules *rules,
                                  struct ts_profile **out, struct ts_error *err) {
  *out = NULL;
  size_t n = a->nprofile_args;
  if (!n)
    return TS_OK;
  *out = ts_xcalloc(n + 1, sizeof **out);
  enum ts_code rc = TS_OK;
  for (size_t i = 0; i < n && rc == TS_OK; i++)
    rc = ts_profile_parse(a->profile_args[i], rules, &(*out)[i], err);
  if (rc == TS_OK)
    rc = ts_profiles_check_distinct(*out, n, err);
  if (rc != TS_OK && a->profiles_from)
    ts_error_wrap(err, "%s", a->profiles_from);
  return rc;
}

void ts_lock_ask_profiles_free(struct ts_profile *profiles, size_t n) {
  for (size_t i = 0; profiles && i < n; i++)
    ts_profile_clear(&profiles[i]);
  free(profiles);
}
