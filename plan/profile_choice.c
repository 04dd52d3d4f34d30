/* Which profile of a fleet lock a host runs: see profile_choice.h. */
#include "plan/profile_choice.h"

#include <stdlib.h>
#include <string.h>

#include "core/alloc.h"
#include "core/buf.h"
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

/* A profile is judged by the versions it locks: any of a version's PEP 825
 * variant wheels stands for it here (sync chooses among them later, with
 * the lock's variants.json). */
static long any_variant(void *ctx, const struct ts_pylock_package *pkg, const char *label) {
  (void)ctx;
  (void)pkg;
  (void)label;
  return 0;
}

/* The profile's entries for the target against the host's rules. */
static enum ts_code judge(const struct ts_pylock *lock, const struct ts_constraint_set *set,
                          const struct ts_marker_env *env, const struct ts_tagset *tags,
                          struct ts_profile_verdict *v, struct ts_error *err) {
  struct ts_sync_plan plan = {0};
  struct ts_error why = {0};
  struct ts_lock_selection sel; /* the lock's defaults and the profile */
  enum ts_code made = ts_lock_select(lock, NULL, v->profile->name, &sel, &why);
  sel.variant_rank = any_variant;
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

/* This host's GPU targets of a kind as fact names ("__gfx1100",
 * "__cc_9.0"), unique; n set to their number. */
static char **host_targets(const struct ts_host *host, enum ts_backend_kind kind, size_t *n) {
  size_t cap = kind == TS_BACKEND_ROCM ? host->nrocm_gpus : host->ncuda_gpus;
  char **t = ts_xcalloc(cap + 1, sizeof *t);
  *n = 0;
  for (size_t i = 0; i < cap; i++) {
    const char *v = kind == TS_BACKEND_ROCM ? host->rocm_gpus[i].gfx
                                            : host->cuda_gpus[i].compute_capability;
    if (!v)
      continue;
    char *name = ts_xasprintf(kind == TS_BACKEND_ROCM ? "__%s" : "__cc_%s", v);
    bool seen = false;
    for (size_t k = 0; k < *n && !seen; k++)
      seen = strcmp(t[k], name) == 0;
    if (seen)
      free(name);
    else
      t[(*n)++] = name;
  }
  return t;
}

/* "gfx942, gfx90a": fact names without their prefix, joined. */
static char *targets_text(char *const *names, size_t n, size_t prefix) {
  struct ts_buf b;
  ts_buf_init(&b, 0);
  for (size_t i = 0; i < n; i++)
    ts_buf_xprintf(&b, "%s%s", i ? ", " : "", names[i] + prefix);
  return ts_buf_take(&b, NULL);
}

/* v->fit and v->ntargets: the profile's GPU targets against the host's. */
static void judge_targets(const struct ts_host *host, struct ts_profile_verdict *v) {
  v->fit = TS_PROFILE_FOR_ANY;
  if (!host || !v->backend ||
      (v->backend->kind != TS_BACKEND_ROCM && v->backend->kind != TS_BACKEND_CUDA))
    return;
  const char *prefix = v->backend->kind == TS_BACKEND_ROCM ? "__gfx" : "__cc_";
  const struct ts_pylock_profile *p = v->profile;
  char **named = ts_xcalloc(p->nhost_facts + 1, sizeof *named);
  for (size_t i = 0; i < p->nhost_facts; i++)
    if (strncmp(p->host_facts[i].key, prefix, 5) == 0)
      named[v->ntargets++] = p->host_facts[i].key;
  size_t nh = 0;
  char **have = host_targets(host, v->backend->kind, &nh);
  if (v->ntargets && nh) {
    size_t missing = 0;
    for (size_t i = 0; i < nh; i++) {
      bool in = false;
      for (size_t k = 0; k < v->ntargets && !in; k++)
        in = strcmp(have[i], named[k]) == 0;
      missing += !in;
    }
    v->fit = missing ? TS_PROFILE_FOR_OTHERS : TS_PROFILE_FOR_HOST;
    if (missing) {
      size_t skip = v->backend->kind == TS_BACKEND_ROCM ? 2 : 5; /* "__gfx942" -> "gfx942" */
      v->targets = targets_text(named, v->ntargets, skip);
      v->host_targets = targets_text(have, nh, skip);
    }
  }
  ts_strv_free(have, nh);
  free(named);
}

static int cmp_verdict(const struct ts_profile_verdict *x, const struct ts_profile_verdict *y,
                       const struct ts_host *host) {
  if (x->backend && y->backend && x->backend->kind == y->backend->kind) {
    if (x->fit != y->fit)
      return x->fit < y->fit ? -1 : 1;
    if (x->fit == TS_PROFILE_FOR_HOST && x->ntargets != y->ntargets)
      return x->ntargets < y->ntargets ? -1 : 1;
  }
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
    judge_targets(host, v);
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
    free(c->v[i].targets);
    free(c->v[i].host_targets);
  }
  free(c->v);
  memset(c, 0, sizeof *c);
}
