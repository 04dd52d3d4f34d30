/*
 * lock/syncplan.c — the sync plan (see syncplan.h).
 */
#include "lock/syncplan.h"

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "core/str.h"
#include "pep/filename.h"
#include "pep/name.h"
#include "pep/specifier.h"
#include "pep/version.h"
#include "variant/label.h"

static enum ts_code marker_holds(const char *text,
                                 const struct ts_marker_env *env,
                                 const struct ts_lock_selection *sel, bool *holds,
                                 struct ts_error *err) {
  struct ts_marker *m = NULL;
  struct ts_error why = {0}; /* not err: its detail is an argument below */
  enum ts_code rc = ts_marker_parse(text, strlen(text), &m, &why);
  if (rc != TS_OK)
    return ts_error_set(err, TS_E_PARSE, "marker '%s': %s", text, why.detail);
  struct ts_marker_eval_opts o = {
      .context = TS_MARKER_LOCK_FILE,
      .extras = (const char *const *)sel->extras,
      .nextras = sel->nextras,
      .dependency_groups = (const char *const *)sel->groups,
      .ngroups = sel->ngroups,
  };
  rc = ts_marker_evaluate(m, env, &o, holds, &why);
  ts_marker_free(m);
  if (rc != TS_OK)
    return ts_error_set(err, TS_E_PARSE, "marker '%s': %s", text, why.detail);
  return TS_OK;
}

/* True when `spec` (NULL: anything) holds for the version text. */
static bool python_ok(const char *spec, const char *version) {
  if (!spec || !version)
    return true;
  struct ts_specset *s = NULL;
  struct ts_version *v = NULL;
  struct ts_error e = {0};
  bool ok = true;
  if (ts_specset_parse(spec, strlen(spec), &s, &e) == TS_OK &&
      ts_version_parse(version, strlen(version), &v, &e) == TS_OK)
    ok = ts_specset_contains(s, v, TS_PRE_INCLUDE);
  ts_specset_free(s);
  ts_version_free(v);
  return ok;
}

static bool same_version(const char *a, const char *b) {
  struct ts_version *x = NULL, *y = NULL;
  struct ts_error e = {0};
  bool same;
  if (ts_version_parse(a, strlen(a), &x, &e) == TS_OK &&
      ts_version_parse(b, strlen(b), &y, &e) == TS_OK)
    same = ts_version_cmp(x, y) == 0;
  else
    same = strcmp(a, b) == 0;
  ts_version_free(x);
  ts_version_free(y);
  return same;
}

static int item_cmp(const void *a, const void *b) {
  return strcmp(((const struct ts_sync_item *)a)->name,
                ((const struct ts_sync_item *)b)->name);
}

static struct ts_sync_item *push(struct ts_sync_plan *p) {
  p->items = ts_xreallocarray(p->items, p->n + 1, sizeof *p->items);
  memset(&p->items[p->n], 0, sizeof p->items[p->n]);
  return &p->items[p->n++];
}

/* A locked wheel's place for the target: its tag priority (-1: its tags
 * do not fit) and, for a PEP 825 variant wheel, its label's rank among
 * those the host may install (-1: none; sel->variant_rank decides). */
struct wheel_fit {
  long tags;
  bool variant;
  long rank;
};

/* Whether a is better than b: a variant wheel (the best ranked) before a
 * wheel without a label, then the better tags. */
static bool fit_better(const struct wheel_fit *a, const char *aname, const struct wheel_fit *b,
                       const char *bname) {
  if (a->variant != b->variant)
    return a->variant;
  if (a->rank != b->rank)
    return a->rank < b->rank;
  if (a->tags != b->tags)
    return a->tags < b->tags;
  return strcmp(aname, bname) < 0;
}

/* The best wheel of pkg for the target, and its version text (malloc'd).
 * Among a lock's PEP 825 variant wheels sel->variant_rank chooses (the
 * host's providers, from the lock's variants-json); without either a lock
 * listing several variants of one version is TS_E_UNSUPPORTED. */
static enum ts_code pick_wheel(const struct ts_pylock_package *pkg,
                               const struct ts_lock_selection *sel,
                               const struct ts_tagset *tags,
                               const struct ts_pylock_file **best,
                               char **version, struct ts_error *err) {
  struct wheel_fit best_fit = {0};
  char *best_name = NULL, *best_label = NULL;
  *best = NULL;
  *version = NULL;
  enum ts_code rc = TS_OK;
  for (size_t i = 0; i < pkg->nwheels && rc == TS_OK; i++) {
    char *name = ts_pylock_file_decoded_name(&pkg->wheels[i]), *label = NULL;
    struct ts_wheel_filename *wf = NULL;
    if (!name || ts_variant_wheel_filename_parse(name, strlen(name), &wf, &label, NULL) != TS_OK) {
      free(name);
      continue;
    }
    struct wheel_fit fit = {ts_tagset_best_priority(tags, wf->tags, wf->ntags), label != NULL, 0};
    if (fit.tags >= 0 && label && sel->variant_rank && pkg->variants_json)
      fit.rank = sel->variant_rank(sel->variant_ctx, pkg, label);
    else if (fit.tags >= 0 && label && best_label && strcmp(label, best_label) != 0)
      rc = ts_error_set(err, TS_E_UNSUPPORTED,
                        "%s %s: the lock lists the variants %s and %s and carries no "
                        "variants.json to choose between them (lock again with this "
                        "torchsolve, or on this host)",
                        pkg->name, pkg->version ? pkg->version : "", best_label, label);
    bool better = rc == TS_OK && fit.tags >= 0 && fit.rank >= 0 &&
                  (!*best || fit_better(&fit, name, &best_fit, best_name));
    if (better) {
      best_fit = fit;
      free(best_name);
      free(best_label);
      best_name = name;
      best_label = label;
      *best = &pkg->wheels[i];
      free(*version);
      *version = ts_xstrdup(ts_version_str(wf->version));
    } else {
      free(name);
      free(label);
    }
    ts_wheel_filename_free(wf);
  }
  free(best_name);
  free(best_label);
  if (rc != TS_OK) {
    free(*version);
    *version = NULL;
    *best = NULL;
    return rc;
  }
  if (!*best)
    return ts_error_set(err, TS_E_PYTHON,
                        "%s%s%s: none of its %zu wheel%s fits the target "
                        "(Python, ABI or platform tags%s)",
                        pkg->name, pkg->version ? " " : "",
                        pkg->version ? pkg->version : "", pkg->nwheels,
                        pkg->nwheels == 1 ? "" : "s",
                        pkg->variants_json && sel->variant_rank
                            ? ", or a variant this host may install"
                            : "");
  return TS_OK;
}

enum ts_code ts_sync_plan_make(const struct ts_pylock *lock,
                               const struct ts_marker_env *env,
                               const struct ts_tagset *tags,
                               const struct ts_sync_installed *installed,
                               size_t ninstalled, struct ts_sync_plan *out,
                               struct ts_error *err) {
  struct ts_lock_selection defaults;
  enum ts_code rc = ts_lock_select(lock, NULL, NULL, &defaults, err);
  if (rc == TS_OK)
    rc = ts_sync_plan_make_selected(lock, env, &defaults, tags, installed, ninstalled, out, err);
  ts_lock_selection_clear(&defaults);
  return rc;
}

enum ts_code ts_sync_plan_make_selected(const struct ts_pylock *lock,
                                        const struct ts_marker_env *env,
                                        const struct ts_lock_selection *sel,
                                        const struct ts_tagset *tags,
                                        const struct ts_sync_installed *installed,
                                        size_t ninstalled, struct ts_sync_plan *out,
                                        struct ts_error *err) {
  memset(out, 0, sizeof *out);
  if (!python_ok(lock->requires_python, env->python_full_version))
    return ts_error_set(err, TS_E_PYTHON,
                        "the lock requires Python %s; the target is %s",
                        lock->requires_python,
                        env->python_full_version ? env->python_full_version : "?");
  if (lock->nenvironments) {
    bool any = false;
    for (size_t i = 0; i < lock->nenvironments && !any; i++) {
      enum ts_code rc = marker_holds(lock->environments[i], env, sel, &any, err);
      if (rc != TS_OK)
        return rc;
    }
    if (!any)
      return ts_error_set(err, TS_E_PYTHON,
                          "the lock is for other environments (%s%s)",
                          lock->environments[0],
                          lock->nenvironments > 1 ? ", ..." : "");
  }
  enum ts_code rc = TS_OK;
  for (size_t i = 0; rc == TS_OK && i < lock->npackages; i++) {
    const struct ts_pylock_package *pkg = &lock->packages[i];
    bool holds = true;
    if (pkg->marker && (rc = marker_holds(pkg->marker, env, sel, &holds, err)) != TS_OK)
      break;
    if (!holds)
      continue;
    for (size_t k = 0; k < out->n; k++)
      if (strcmp(out->items[k].name, pkg->name) == 0) {
        rc = ts_error_set(err, TS_E_PARSE,
                          "two entries of '%s' apply to the target; their "
                          "markers must exclude each other", pkg->name);
        break;
      }
    if (rc != TS_OK)
      break;
    if (!python_ok(pkg->requires_python, env->python_full_version)) {
      rc = ts_error_set(err, TS_E_PYTHON, "%s requires Python %s; the target is %s",
                        pkg->name, pkg->requires_python, env->python_full_version);
      break;
    }
    if (!pkg->nwheels) {
      /* a source: built when the sync applies */
      struct ts_sync_item *it = push(out);
      it->name = ts_xstrdup(pkg->name);
      it->new_version = ts_xstrdup(pkg->version);
      it->pkg = pkg;
      it->source = true;
      it->action = TS_SYNC_INSTALL;
      continue;
    }
    const struct ts_pylock_file *w = NULL;
    char *version = NULL;
    if ((rc = pick_wheel(pkg, sel, tags, &w, &version, err)) != TS_OK)
      break;
    const char *sha = ts_pylock_file_sha256(w);
    if (!sha) {
      free(version);
      char *wn = ts_pylock_file_decoded_name(w);
      rc = ts_error_set(err, TS_E_UNSUPPORTED,
                        "%s: the wheel %s has no sha256 in the lock, the only "
                        "hash sync verifies",
                        pkg->name, wn ? wn : "?");
      free(wn);
      break;
    }
    struct ts_sync_item *it = push(out);
    it->name = ts_xstrdup(pkg->name);
    it->new_version = version;
    it->pkg = pkg;
    it->wheel = w;
    it->sha256 = sha;
    it->action = TS_SYNC_INSTALL;
  }
  size_t nselected = out->n;
  for (size_t i = 0; rc == TS_OK && i < ninstalled; i++) {
    char *name = ts_name_normalize(installed[i].name, strlen(installed[i].name));
    struct ts_sync_item *it = NULL;
    for (size_t k = 0; k < nselected && !it; k++)
      if (strcmp(out->items[k].name, name) == 0)
        it = &out->items[k];
    if (it) {
      free(name);
      if (it->old_version) /* two installed copies: replace them */
        continue;
      it->old_version = ts_xstrdup(installed[i].version);
      it->action = !it->source && same_version(installed[i].version, it->new_version)
                       ? TS_SYNC_KEEP : TS_SYNC_CHANGE;
      continue;
    }
    bool seen = false;
    for (size_t k = nselected; k < out->n && !seen; k++)
      seen = strcmp(out->items[k].name, name) == 0;
    if (seen) {
      free(name);
      continue;
    }
    it = push(out);
    it->action = TS_SYNC_REMOVE;
    it->name = name;
    it->old_version = ts_xstrdup(installed[i].version);

  }
  if (rc != TS_OK)
    return rc;
  if (out->n)
    qsort(out->items, out->n, sizeof *out->items, item_cmp);
  for (size_t i = 0; i < out->n; i++) {
    switch (out->items[i].action) {
    case TS_SYNC_INSTALL: out->ninstall++; break;
    case TS_SYNC_CHANGE: out->nchange++; break;
    case TS_SYNC_KEEP: out->nkeep++; break;
    case TS_SYNC_REMOVE: out->nremove++; break;
    }
  }
  return TS_OK;
}

void ts_sync_plan_clear(struct ts_sync_plan *p) {
  for (size_t i = 0; i < p->n; i++) {
    free(p->items[i].name);
    free(p->items[i].old_version);
    free(p->items[i].new_version);
  }
  free(p->items);
  memset(p, 0, sizeof *p);
}
