/*
 * rules_data.c — ownership of a loaded rules object: free, merge, lookup.
 */
#include <fnmatch.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/str.h"
#include "rules/rules.h"
#include "rules/rules_internal.h"

void ts_rules_backend_clear(struct ts_rules_backend *b) {
  free(b->id);
  free(b->version);
  free(b->index);
  free(b->driver_min);
  free(b->driver_toolkit);
  ts_strv_free(b->gfx, b->ngfx);
  free(b->source);
  free(b->confidence);
  memset(b, 0, sizeof *b);
}

static void variants_free(struct ts_rules_variant *vs, size_t n) {
  for (size_t i = 0; i < n; i++) {
    struct ts_rules_variant *v = &vs[i];
    free(v->backend);
    for (size_t j = 0; j < v->narchs; j++)
      free(v->archs[j].cc);
    free(v->archs);
    ts_strv_free(v->gfx, v->ngfx);
    free(v->driver_toolkit);
    free(v->source);
    free(v->confidence);
  }
  free(vs);
}

void ts_rules_release_clear(struct ts_rules_release *r) {
  free(r->series);
  ts_strv_free(r->versions, r->nversions);
  variants_free(r->variants, r->nvariants);
  for (size_t i = 0; i < r->nplatforms; i++) {
    free(r->platforms[i].machine);
    variants_free(r->platforms[i].variants, r->platforms[i].nvariants);
    free(r->platforms[i].pypi_default);
    free(r->platforms[i].source);
  }
  free(r->platforms);
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
  ts_strv_free(r->subject_locals, r->nsubject_locals);
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

void ts_rules_kmd_clear(struct ts_rules_kmd *k) {
  for (size_t i = 0; i < k->ndrivers; i++) {
    free(k->drivers[i].amdgpu);
    free(k->drivers[i].rocm);
    free(k->drivers[i].user_min);
    free(k->drivers[i].user_max);
    free(k->drivers[i].source);
  }
  free(k->drivers);
  ts_strv_free(k->releases, k->nreleases);
  for (size_t i = 0; i < k->namdgpu; i++) {
    free(k->amdgpu[i].amdgpu);
    free(k->amdgpu[i].rocm);
  }
  free(k->amdgpu);
  free(k->source);
  free(k->amdgpu_source);
  free(k->amdgpu_confidence);
  memset(k, 0, sizeof *k);
}

void ts_rules_torch_build_clear(struct ts_rules_torch_build *t) {
  free(t->project);
  free(t->only_from);
  free(t->source);
  memset(t, 0, sizeof *t);
}

const struct ts_rules_torch_build *ts_rules_find_torch_build(const struct ts_rules *r,
                                                             const char *project) {
  for (size_t i = 0; r && i < r->ntorch_builds; i++)
    if (strcmp(r->torch_builds[i].project, project) == 0)
      return &r->torch_builds[i];
  return NULL;
}

void ts_rules_provenance_clear(struct ts_rules_provenance *p) {
  free(p->version);
  free(p->path);
  free(p->url);
  memset(p, 0, sizeof *p);
}

void ts_rules_free(struct ts_rules *r) {
  if (!r)
    return;
  free(r->version);
  ts_rules_provenance_clear(&r->provenance);
  free(r->index_base);
  for (size_t i = 0; i < r->nbackends; i++)
    ts_rules_backend_clear(&r->backends[i]);
  free(r->backends);
  for (size_t i = 0; i < r->nreleases; i++)
    ts_rules_release_clear(&r->releases[i]);
  free(r->releases);
  ts_strv_free(r->routes, r->nroutes);
  free(r->routes_source);
  for (size_t i = 0; i < r->npairings; i++)
    ts_rules_pairing_clear(&r->pairings[i]);
  free(r->pairings);
  for (size_t i = 0; i < r->nrules; i++)
    ts_rules_rule_clear(&r->rules[i]);
  free(r->rules);
  ts_rules_kmd_clear(&r->kmd);
  for (size_t i = 0; i < r->ntorch_builds; i++)
    ts_rules_torch_build_clear(&r->torch_builds[i]);
  free(r->torch_builds);
  ts_strv_free(r->without_rules, r->nwithout_rules);
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

/* One variant table of a release against the backends it names. */
static bool table_problem(const struct ts_rules *r, const char *series,
                          const char *machine,
                          const struct ts_rules_variant *variants, size_t n,
                          const char *pypi_default, char *buf, size_t cap) {
  char where[96];
  snprintf(where, sizeof where, "release '%s'%s%s", series,
           machine ? " platform " : "", machine ? machine : "");
  bool has_default = !pypi_default;
  for (size_t k = 0; k < n; k++) {
    const struct ts_rules_variant *v = &variants[k];
    const struct ts_rules_backend *b = ts_rules_find_backend(r, v->backend);
    has_default |= pypi_default && strcmp(pypi_default, v->backend) == 0;
    if (!b) {
      snprintf(buf, cap, "%s: variant '%s' is not a backend", where, v->backend);
      return true;
    }
    if (b->kind == TS_BACKEND_CUDA && !v->narchs) {
      snprintf(buf, cap, "%s: CUDA variant '%s' needs archs", where, v->backend);
      return true;
    }
    if (b->kind != TS_BACKEND_CUDA && (v->narchs || v->driver_toolkit)) {
      snprintf(buf, cap, "%s: variant '%s' is not CUDA but has archs or driver_toolkit",
               where, v->backend);
      return true;
    }
  }
  if (!has_default) {
    snprintf(buf, cap, "%s: pypi_default '%s' is not one of its variants",
             where, pypi_default);
    return true;
  }
  return false;
}

bool ts_rules_release_problem(const struct ts_rules *r,
                           const struct ts_rules_release *rel, char *buf,
                           size_t cap) {
  const char *series = rel->series ? rel->series : "?";
  if (table_problem(r, series, NULL, rel->variants, rel->nvariants,
                    rel->pypi_default, buf, cap))
    return true;
  for (size_t p = 0; p < rel->nplatforms; p++)
    if (table_problem(r, series, rel->platforms[p].machine,
                      rel->platforms[p].variants, rel->platforms[p].nvariants,
                      rel->platforms[p].pypi_default, buf, cap))
      return true;
  return false;
}

struct ts_rules_variant_table ts_rules_release_variants(
    const struct ts_rules_release *r, const char *machine) {
  static const struct ts_rules_variant cpu_only = {.backend = (char *)"cpu"};
  struct ts_rules_variant_table t = {r->variants, r->nvariants, r->pypi_default};
  if (!machine || strcmp(machine, "x86_64") == 0)
    return t;
  for (size_t p = 0; p < r->nplatforms; p++)
    if (strcmp(r->platforms[p].machine, machine) == 0) {
      t.variants = r->platforms[p].variants;
      t.nvariants = r->platforms[p].nvariants;
      t.pypi_default = r->platforms[p].pypi_default;
      return t;
    }
  t.variants = &cpu_only;
  t.nvariants = 1;
  t.pypi_default = NULL;
  return t;
}

size_t ts_rules_drop(struct ts_rules *r, const char *pattern) {
  size_t keep = 0, dropped = 0;
  for (size_t i = 0; i < r->nrules; i++) {
    if (fnmatch(pattern, r->rules[i].id, 0) == 0) {
      ts_rules_rule_clear(&r->rules[i]);
      dropped++;
    } else {
      r->rules[keep++] = r->rules[i];
    }
  }
  r->nrules = keep;
  return dropped;
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
  for (size_t i = 0; i < over->nwithout_rules; i++)
    if (ts_rules_drop(base, over->without_rules[i]) == 0)
      return ts_error_set(err, TS_E_RULES,
                          "without_rules: '%s' matches no rule of the files "
                          "it is merged over", over->without_rules[i]);
  if (over->kmd.window) {
    ts_rules_kmd_clear(&base->kmd);
    base->kmd = over->kmd;
    memset(&over->kmd, 0, sizeof over->kmd);
  }
  MERGE_BY(base->backends, base->nbackends, over->backends, over->nbackends,
           id, ts_rules_backend_clear);
  MERGE_BY(base->releases, base->nreleases, over->releases, over->nreleases,
           series, ts_rules_release_clear);
  MERGE_BY(base->rules, base->nrules, over->rules, over->nrules, id,
           ts_rules_rule_clear);
  MERGE_BY(base->pairings, base->npairings, over->pairings, over->npairings,
           id, ts_rules_pairing_clear);
  MERGE_BY(base->torch_builds, base->ntorch_builds, over->torch_builds,
           over->ntorch_builds, project, ts_rules_torch_build_clear);
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
  char problem[256];
  for (size_t i = 0; i < base->nreleases; i++)
    if (ts_rules_release_problem(base, &base->releases[i], problem, sizeof problem))
      return ts_error_set(err, TS_E_RULES, "%s", problem);
  return TS_OK;
}
