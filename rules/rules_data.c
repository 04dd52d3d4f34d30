/*
 * rules_data.c — ownership of a loaded rules object: free, merge, lookup.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/str.h"
#include "rules/rules.h"
#include "rules/rules_internal.h"

static void free_strv(char **v, size_t n) {
  for (size_t i = 0; i < n; i++)
    free(v[i]);
  free(v);
}

void ts_rules_backend_clear(struct ts_rules_backend *b) {
  free(b->id);
  free(b->version);
  free(b->index);
  free(b->driver_min);
  free(b->driver_toolkit);
  free_strv(b->gfx, b->ngfx);
  free(b->source);
  free(b->confidence);
  memset(b, 0, sizeof *b);
}

void ts_rules_release_clear(struct ts_rules_release *r) {
  free(r->series);
  free_strv(r->versions, r->nversions);
  for (size_t i = 0; i < r->nvariants; i++) {
    struct ts_rules_variant *v = &r->variants[i];
    free(v->backend);
    for (size_t j = 0; j < v->narchs; j++)
      free(v->archs[j].cc);
    free(v->archs);
    free_strv(v->gfx, v->ngfx);
    free(v->source);
    free(v->confidence);
  }
  free(r->variants);
  for (size_t i = 0; i < r->npairs; i++) {
    free(r->pairs[i].torch);
    free(r->pairs[i].torchvision);
    free(r->pairs[i].torchaudio);
  }
  free(r->pairs);
  free(r->source);
  free(r->confidence);
  free(r->pypi_default);
  free(r->pypi_source);
  memset(r, 0, sizeof *r);
}

static void term_clear(struct ts_rules_term *t) {
  free(t->name);
  free(t->spec);
  free(t->local);
}

void ts_rules_rule_clear(struct ts_rules_rule *r) {
  free(r->id);
  free(r->subject_name);
  free(r->subject_spec);
  free_strv(r->subject_locals, r->nsubject_locals);
  for (size_t i = 0; i < r->nterms; i++)
    term_clear(&r->terms[i]);
  free(r->terms);
  for (size_t i = 0; i < r->nwhen; i++)
    term_clear(&r->when[i]);
  free(r->when);
  free(r->message);
  free(r->fix);
  free(r->source);
  free(r->confidence);
  free(r->file);
  memset(r, 0, sizeof *r);
}

void ts_rules_pairing_clear(struct ts_rules_pairing *p) {
  free(p->id);
  free(p->project);
  free(p->message);
  free(p->fix);
  free(p->source);
  memset(p, 0, sizeof *p);
}

void ts_rules_free(struct ts_rules *r) {
  if (!r)
    return;
  free(r->index_base);
  for (size_t i = 0; i < r->nbackends; i++)
    ts_rules_backend_clear(&r->backends[i]);
  free(r->backends);
  for (size_t i = 0; i < r->nreleases; i++)
    ts_rules_release_clear(&r->releases[i]);
  free(r->releases);
  free_strv(r->routes, r->nroutes);
  free(r->routes_source);
  for (size_t i = 0; i < r->npairings; i++)
    ts_rules_pairing_clear(&r->pairings[i]);
  free(r->pairings);
  for (size_t i = 0; i < r->nrules; i++)
    ts_rules_rule_clear(&r->rules[i]);
  free(r->rules);
  free(r);
}

const struct ts_rules_backend *ts_rules_find_backend(const struct ts_rules *r,
                                                     const char *id) {
  for (size_t i = 0; id && i < r->nbackends; i++)
    if (r->backends[i].id && strcmp(r->backends[i].id, id) == 0)
      return &r->backends[i];
  return NULL;
}

const struct ts_rules_release *ts_rules_find_release(const struct ts_rules *r,
                                                     const char *series) {
  for (size_t i = 0; series && i < r->nreleases; i++)
    if (r->releases[i].series && strcmp(r->releases[i].series, series) == 0)
      return &r->releases[i];
  return NULL;
}

const struct ts_rules_release *ts_rules_newest(const struct ts_rules *r) {
  return r->nreleases ? &r->releases[r->nreleases - 1] : NULL;
}

static int cmp_release(const void *a, const void *b) {
  return ts_host_vercmp(((const struct ts_rules_release *)a)->series,
                        ((const struct ts_rules_release *)b)->series);
}

/* Moves `src` over the entry of `base` with the same key, or appends. */
#define MERGE_BY(base_arr, base_n, over_arr, over_n, key, clear)            \
  do {                                                                      \
    for (size_t i_ = 0; i_ < (over_n); i_++) {                              \
      size_t j_ = 0;                                                        \
      while (j_ < (base_n) && strcmp((base_arr)[j_].key, (over_arr)[i_].key)) \
        j_++;                                                               \
      if (j_ < (base_n))                                                    \
        clear(&(base_arr)[j_]);                                             \
      else                                                                  \
        (base_arr) = ts_xrealloc((base_arr),                             \
                                    ((base_n) + 1) * sizeof *(base_arr)),   \
        (base_n)++;                                                         \
      (base_arr)[j_] = (over_arr)[i_];                                      \
    }                                                                       \
    free(over_arr);                                                         \
    (over_arr) = NULL;                                                      \
    (over_n) = 0;                                                           \
  } while (0)

enum ts_code ts_rules_merge(struct ts_rules *base, struct ts_rules *over,
                            struct ts_error *err) {
  if (over->index_base) {
    free(base->index_base);
    base->index_base = over->index_base;
    over->index_base = NULL;
  }
  MERGE_BY(base->backends, base->nbackends, over->backends, over->nbackends,
           id, ts_rules_backend_clear);
  MERGE_BY(base->releases, base->nreleases, over->releases, over->nreleases,
           series, ts_rules_release_clear);
  MERGE_BY(base->rules, base->nrules, over->rules, over->nrules, id,
           ts_rules_rule_clear);
  MERGE_BY(base->pairings, base->npairings, over->pairings, over->npairings,
           id, ts_rules_pairing_clear);
  for (size_t i = 0; i < over->nroutes; i++) {
    bool dup = false;
    for (size_t j = 0; j < base->nroutes; j++)
      dup |= strcmp(base->routes[j], over->routes[i]) == 0;
    if (dup) {
      free(over->routes[i]);
      continue;
    }
    base->routes = ts_xrealloc(base->routes,
                                  (base->nroutes + 1) * sizeof *base->routes);
    base->routes[base->nroutes++] = over->routes[i];
  }
  free(over->routes);
  over->routes = NULL;
  over->nroutes = 0;
  if (base->nreleases > 1)
    qsort(base->releases, base->nreleases, sizeof *base->releases, cmp_release);
  /* References the user file could not check alone: the same checks the
   * loader makes on a file that defines its backends. */
  for (size_t i = 0; i < base->nreleases; i++) {
    const struct ts_rules_release *r = &base->releases[i];
    bool has_default = !r->pypi_default;
    for (size_t k = 0; k < r->nvariants; k++) {
      const struct ts_rules_variant *v = &r->variants[k];
      const struct ts_rules_backend *b = ts_rules_find_backend(base, v->backend);
      has_default |= r->pypi_default && strcmp(r->pypi_default, v->backend) == 0;
      if (!b)
        return ts_error_set(err, TS_E_RULES,
                            "release '%s': variant '%s' is not a backend",
                            r->series, v->backend);
      if (b->kind == TS_BACKEND_CUDA && !v->narchs)
        return ts_error_set(err, TS_E_RULES,
                            "release '%s': CUDA variant '%s' needs archs",
                            r->series, v->backend);
      if (b->kind != TS_BACKEND_CUDA && v->narchs)
        return ts_error_set(err, TS_E_RULES,
                            "release '%s': variant '%s' is not CUDA but has archs",
                            r->series, v->backend);
    }
    if (!has_default)
      return ts_error_set(err, TS_E_RULES,
                          "release '%s': pypi_default '%s' is not one of its variants",
                          r->series, r->pypi_default);
  }
  return TS_OK;
}
