/* Which profile of a fleet lock a host runs: see profile_choice.h. */
#include "plan/profile_choice.h"

#include <stdlib.h>
#include <string.h>

#include "core/alloc.h"
#include "core/str.h"
#include "lock/selection.h"
#include "lock/syncplan.h"
#include "pep/name.h"

const struct ts_pylock_profile *ts_profile_find(const struct ts_pylock *lock,
                                                const char *name) {
  char *norm = ts_name_normalize(name, strlen(name));
  const struct ts_pylock_profile *p = norm ? ts_pylock_find_profile(lock, norm) : NULL;
  free(norm);
  return p;
}

/* The profile's entries for the target against the host's rules. */
static enum ts_code judge(const struct ts_pylock *lock, const struct ts_constraint_set *set,
                          const struct ts_marker_env *env, const struct ts_tagset *tags,
                          struct ts_profile_verdict *v, struct ts_error *err) {
  struct ts_sync_plan plan = {0};
  struct ts_error why = {0};
  struct ts_lock_selection sel; /* the lock's defaults and the profile */
  enum ts_code made = ts_lock_select(lock, NULL, v->profile->name, &sel, &why);
  if (made == TS_OK)
    made = ts_sync_plan_make_selected(lock, env, &sel, tags, NULL, 0, &plan, &why);
  ts_lock_selection_clear(&sel);
  if (made != TS_OK) {
    ts_sync_plan_clear(&plan);
    v->why = ts_xstrdup(why.detail);
    return TS_OK;
  }
  struct ts_installed *pk = ts_xcalloc(plan.n, sizeof *pk);
  size_t n = 0;
  for (size_t i = 0; i < plan.n; i++) /* a source tree has no version to judge */
    if (plan.items[i].new_version)
      pk[n++] = (struct ts_installed){plan.items[i].name, plan.items[i].new_version};
  enum ts_code rc = ts_rules_check_installed(set, pk, n, &v->findings, &v->nfindings, err);
  free(pk);
  ts_sync_plan_clear(&plan);
  return rc;
}

static int cmp_verdict(const struct ts_profile_verdict *x, const struct ts_profile_verdict *y,
                       const struct ts_host *host) {
  if (x->backend && y->backend) {
    int c = ts_rules_backend_cmp(x->backend, y->backend, host);
    if (c)
      return c;
  } else if (x->backend != y->backend) {
    return x->backend ? -1 : 1;
  }
  return strcmp(x->profile->name, y->profile->name);
}

enum ts_code ts_profile_choose(const struct ts_pylock *lock, const struct ts_rules *rules,
                               const struct ts_host *host, const struct ts_marker_env *env,
                               const struct ts_tagset *tags, struct ts_profile_choice *out,
                               struct ts_error *err) {
  memset(out, 0, sizeof *out);
  struct ts_rules_options ro = {.ignore_host = false};
  struct ts_constraint_set set;
  enum ts_code rc = ts_rules_compile(rules, host, &ro, &set, err);
  if (rc != TS_OK)
    return rc;
  out->n = lock->nprofiles;
  out->v = ts_xcalloc(out->n, sizeof *out->v);
  for (size_t i = 0; i < out->n && rc == TS_OK; i++) {
    struct ts_profile_verdict *v = &out->v[i];
    v->profile = &lock->profiles[i];
    const char *id = v->profile->backend ? v->profile->backend : v->profile->name;
    v->backend = ts_rules_find_backend(rules, id);
    if (!v->backend)
      v->why = ts_xasprintf("rules.yaml has no backend '%s'", id);
    else
      rc = judge(lock, &set, env, tags, v, err);
  }
  ts_constraint_set_clear(&set);
  if (rc != TS_OK) {
    ts_profile_choice_clear(out);
    return rc;
  }
  /* insertion sort: a handful of profiles, and the order needs the host */
  for (size_t i = 1; i < out->n; i++)
    for (size_t k = i; k > 0 && cmp_verdict(&out->v[k], &out->v[k - 1], host) < 0; k--) {
      struct ts_profile_verdict t = out->v[k];
      out->v[k] = out->v[k - 1];
      out->v[k - 1] = t;
    }
  out->chosen = out->n;
  for (size_t i = 0; i < out->n && out->chosen == out->n; i++)
    if (!out->v[i].why && !out->v[i].nfindings)
      out->chosen = i;
  return TS_OK;
}

void ts_profile_choice_clear(struct ts_profile_choice *c) {
  for (size_t i = 0; c->v && i < c->n; i++) {
    ts_rules_findings_free(c->v[i].findings, c->v[i].nfindings);
    free(c->v[i].why);
  }
  free(c->v);
  memset(c, 0, sizeof *c);
}
