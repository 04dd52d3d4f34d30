/*
 * variant/select.c — compatibility and order of a release's variants
 * (select.h).
 */
#include "variant/select.h"

#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "core/alloc.h"
#include "core/str.h"
#include "variant/label.h"

/* A property's priority: smaller is preferred. */
struct prio {
  long ns, feature, value;
};

struct judged {
  struct ts_variant_choice choice;
  bool null_variant;
  struct prio *keys; /* one per feature, sorted */
  size_t nkeys;
};

struct judge_ctx {
  const struct ts_variant_metadata *m;
  const struct ts_variant_supported *host;
  const struct ts_variant_policy *policy;
};

static long index_of(char *const *list, size_t n, const char *s)
{
  for (size_t i = 0; i < n; i++)
    if (strcmp(list[i], s) == 0)
      return (long)i;
  return -1;
}

static const struct ts_variant_feature *find_in(const struct ts_variant_feature *arr, size_t n,
                                                const char *ns, const char *feature)
{
  for (size_t i = 0; i < n; i++)
    if (strcmp(arr[i].ns, ns) == 0 && strcmp(arr[i].feature, feature) == 0)
      return &arr[i];
  return NULL;
}

static bool has_static(const struct ts_variant_metadata *m, const char *ns)
{
  for (size_t i = 0; i < m->nstatic_properties; i++)
    if (strcmp(m->static_properties[i].ns, ns) == 0)
      return true;
  return false;
}

/* The host's values of ns::feature: a static namespace's from the file,
 * else the provider's; NULL with *none_why when nothing is supported. */
static const struct ts_variant_feature *supported(const struct judge_ctx *c, const char *ns,
                                                  const char *feature, const char **none_why)
{
  const struct ts_variant_provider_info *p = ts_variant_metadata_provider(c->m, ns);
  *none_why = "this host reports no such property";
  if (p && p->optional) {
    *none_why = "its provider is optional and not enabled";
    return NULL;
  }
  if ((p && !p->install_time) || (!ts_variant_supported_basis(c->host, ns) && has_static(c->m, ns))) {
    const struct ts_variant_feature *f =
        find_in(c->m->static_properties, c->m->nstatic_properties, ns, feature);
    if (!f)
      *none_why = "static-properties give no value";
    return f;
  }
  if (!ts_variant_supported_basis(c->host, ns))
    *none_why = strcmp(ns, "nvidia") == 0   ? "no NVIDIA GPU or driver here"
                : strcmp(ns, "amd") == 0    ? "no AMD GPU or ROCm here"
                : strcmp(ns, "x86_64") == 0 ? "not an x86_64 CPU"
                                            : "torchsolve has no provider for this namespace";
  return ts_variant_supported_find(c->host, ns, feature);
}

static long ns_priority(const struct judge_ctx *c, const char *ns)
{
  long i = index_of(c->m->namespaces, c->m->nnamespaces, ns);
  if (i >= 0)
    return i;
  for (size_t k = 0; k < c->host->nfeatures; k++)
    if (strcmp(c->host->features[k].ns, ns) == 0)
      return (long)(c->m->nnamespaces + k);
  return LONG_MAX / 4;
}

static long feature_priority(const struct judge_ctx *c, const char *ns, const char *feature)
{
  long at = 0;
  for (size_t i = 0; i < c->m->nfeature_priority; i++)
    if (strcmp(c->m->feature_priority[i].ns, ns) == 0) {
      if (strcmp(c->m->feature_priority[i].feature, feature) == 0)
        return at;
      at++;
    }
  for (size_t k = 0; k < c->host->nfeatures; k++)
    if (strcmp(c->host->features[k].ns, ns) == 0 &&
        strcmp(c->host->features[k].feature, feature) == 0)
      return at + (long)k;
  return at + (long)c->host->nfeatures;
}

static long value_priority(const struct judge_ctx *c, const struct ts_variant_feature *sup,
                           const char *ns, const char *feature, const char *value)
{
  const struct ts_variant_feature *pp =
      find_in(c->m->property_priority, c->m->nproperty_priority, ns, feature);
  long n = pp ? (long)pp->nvalues : 0;
  long i = pp ? index_of(pp->values, pp->nvalues, value) : -1;
  if (i >= 0)
    return i;
  return n + index_of(sup->values, sup->nvalues, value);
}

/* "cuda_version_lower_bound 12.0 ≤ driver 12.8" for the nvidia bounds,
 * "sm_arch 89_real" otherwise; a value not supported says what the host
 * has ("sm_arch 75_real (this host: driver CUDA 12.8, newest GPU sm_arch
 * 61_real)"). */
static char *words(const struct judge_ctx *c, const char *ns, const char *feature,
                   const char *value, bool ok)
{
  const struct ts_variant_feature *lo =
      ts_variant_supported_find(c->host, "nvidia", "cuda_version_lower_bound");
  const char *drv = lo && lo->nvalues ? lo->values[0] : NULL;
  if (strcmp(ns, "nvidia") == 0 && drv && strcmp(feature, "cuda_version_lower_bound") == 0)
    return ts_xasprintf("%s::%s %s %s driver %s", ns, feature, value, ok ? "≤" : ">", drv);
  if (strcmp(ns, "nvidia") == 0 && drv && strcmp(feature, "cuda_version_upper_bound") == 0)
    return ts_xasprintf("%s::%s %s %s driver %s", ns, feature, value, ok ? ">" : "≤", drv);
  const char *basis = ok ? NULL : ts_variant_supported_basis(c->host, ns);
  return ts_xasprintf("%s::%s %s%s%s%s", ns, feature, value, basis ? " (this host: " : "",
                      basis ? basis : "", basis ? ")" : "");
}

/* Appends ", owned" (or owned) to the list *s; takes owned. */
static void append(char **s, char *owned)
{
  if (!*s) {
    *s = owned;
    return;
  }
  char *joined = ts_xasprintf("%s, %s", *s, owned);
  free(*s);
  free(owned);
  *s = joined;
}

static int prio_cmp(const void *a, const void *b)
{
  const struct prio *x = a, *y = b;
  if (x->ns != y->ns)
    return x->ns < y->ns ? -1 : 1;
  if (x->feature != y->feature)
    return x->feature < y->feature ? -1 : 1;
  if (x->value != y->value)
    return x->value < y->value ? -1 : 1;
  return 0;
}

static void judge(const struct judge_ctx *c, const struct ts_variant_entry *e, struct judged *j)
{
  memset(j, 0, sizeof *j);
  j->choice.label = ts_xstrdup(e->label);
  j->null_variant = e->nfeatures == 0 || strcmp(e->label, TS_VARIANT_NULL_LABEL) == 0;
  j->keys = ts_xcalloc(e->nfeatures ? e->nfeatures : 1, sizeof *j->keys);
  char *ok = NULL, *bad = NULL;
  for (size_t i = 0; i < e->nfeatures; i++) {
    const struct ts_variant_feature *f = &e->features[i];
    const char *none_why;
    const struct ts_variant_feature *sup = supported(c, f->ns, f->feature, &none_why);
    long best = -1;
    const char *best_value = NULL;
    for (size_t v = 0; sup && v < f->nvalues; v++) {
      if (index_of(sup->values, sup->nvalues, f->values[v]) < 0)
        continue;
      long p = value_priority(c, sup, f->ns, f->feature, f->values[v]);
      if (best < 0 || p < best) {
        best = p;
        best_value = f->values[v];
      }
    }
    if (best < 0) {
      if (sup)
        append(&bad, words(c, f->ns, f->feature, f->values[0], false));
      else
        append(&bad, ts_xasprintf("%s::%s %s: %s", f->ns, f->feature, f->values[0], none_why));
      continue;
    }
    append(&ok, words(c, f->ns, f->feature, best_value, true));
    j->keys[j->nkeys++] = (struct prio){ns_priority(c, f->ns),
                                        feature_priority(c, f->ns, f->feature), best};
  }
  qsort(j->keys, j->nkeys, sizeof *j->keys, prio_cmp);
  j->choice.compatible = bad == NULL;
  char *refused = NULL;
  if (j->choice.compatible && c->policy && c->policy->allowed &&
      !c->policy->allowed(c->policy->ctx, e->label, &refused)) {
    j->choice.compatible = false;
    bad = refused ? refused : ts_xstrdup("refused by the rules");
  }
  if (j->choice.compatible) {
    j->choice.why = ok ? ok : ts_xstrdup("the null variant needs nothing");
  } else {
    j->choice.why = bad;
    free(ok);
  }
}

static int judged_cmp(const void *a, const void *b, void *vctx)
{
  const struct judge_ctx *c = vctx;
  const struct judged *x = a, *y = b;
  if (x->choice.compatible != y->choice.compatible)
    return x->choice.compatible ? -1 : 1;
  if (!x->choice.compatible)
    return strcmp(x->choice.label, y->choice.label);
  if (x->null_variant != y->null_variant)
    return x->null_variant ? 1 : -1;
  for (size_t i = 0; i < x->nkeys && i < y->nkeys; i++) {
    int k = prio_cmp(&x->keys[i], &y->keys[i]);
    if (k)
      return k;
  }
  if (x->nkeys != y->nkeys)
    return x->nkeys > y->nkeys ? -1 : 1;
  if (c->policy && c->policy->tiebreak) {
    int t = c->policy->tiebreak(c->policy->ctx, x->choice.label, y->choice.label);
    if (t)
      return t;
  }
  return strcmp(x->choice.label, y->choice.label);
}

void ts_variant_select(const struct ts_variant_metadata *m,
                       const struct ts_variant_supported *host,
                       const struct ts_variant_policy *policy,
                       struct ts_variant_selection *out)
{
  memset(out, 0, sizeof *out);
  struct judge_ctx c = {m, host, policy};
  struct judged *js = ts_xcalloc(m->nvariants ? m->nvariants : 1, sizeof *js);
  for (size_t i = 0; i < m->nvariants; i++)
    judge(&c, &m->variants[i], &js[i]);
  qsort_r(js, m->nvariants, sizeof *js, judged_cmp, &c);
  out->choices = ts_xcalloc(m->nvariants ? m->nvariants : 1, sizeof *out->choices);
  for (size_t i = 0; i < m->nvariants; i++) {
    out->choices[i] = js[i].choice;
    out->ncompatible += js[i].choice.compatible;
    free(js[i].keys);
  }
  out->nchoices = m->nvariants;
  free(js);
}

void ts_variant_selection_clear(struct ts_variant_selection *s)
{
  for (size_t i = 0; i < s->nchoices; i++) {
    free(s->choices[i].label);
    free(s->choices[i].why);
  }
  free(s->choices);
  memset(s, 0, sizeof *s);
}

long ts_variant_selection_rank(const struct ts_variant_selection *s, const char *label)
{
  for (size_t i = 0; i < s->ncompatible; i++)
    if (strcmp(s->choices[i].label, label) == 0)
      return (long)i;
  return -1;
}

const struct ts_variant_choice *ts_variant_selection_find(const struct ts_variant_selection *s,
                                                          const char *label)
{
  for (size_t i = 0; i < s->nchoices; i++)
    if (strcmp(s->choices[i].label, label) == 0)
      return &s->choices[i];
  return NULL;
}
