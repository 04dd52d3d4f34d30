/*
 * rules_assume.c — the facts that stand in for a (release, variant) pair no
 * rules file lists (see rules_internal.h).  A build the rules do not know
 * is judged, never trusted: first on the nearest release that lists the
 * same variant for this machine, else on what every known build of its
 * CUDA major or ROCm family carries in common.
 */
#include <stdlib.h>
#include <string.h>

#include "core/str.h"
#include "rules/rules_internal.h"

static bool table_lists(const struct ts_rules_release *r, const char *machine,
                        const char *backend, const struct ts_rules_variant **v) {
  struct ts_rules_variant_table t = ts_rules_release_variants(r, machine);
  for (size_t k = 0; k < t.nvariants; k++)
    if (strcmp(t.variants[k].backend, backend) == 0) {
      if (v)
        *v = &t.variants[k];
      return true;
    }
  return false;
}

/* "13.2" → 13, "7.14" → 7: the family a build of a new variant belongs to. */
static unsigned long major_of(const char *version) {
  return version ? strtoul(version, NULL, 10) : 0;
}

static bool same_family(const struct ts_rules_backend *a,
                        const struct ts_rules_backend *b) {
  return a->kind == b->kind && major_of(a->version) == major_of(b->version);
}

/* Keeps the arch entries of `a` that `v` lists too (PTX only where both
 * carry it): a GPU the result covers, every list covers. */
static void intersect_archs(struct ts_rules_assumption *a,
                            const struct ts_rules_variant *v) {
  size_t keep = 0;
  for (size_t i = 0; i < a->own.narchs; i++) {
    const struct ts_rules_arch *x = &a->own.archs[i];
    for (size_t j = 0; j < v->narchs; j++)
      if (strcmp(v->archs[j].cc, x->cc) == 0) {
        a->own.archs[keep] = *x;
        a->own.archs[keep++].ptx = x->ptx && v->archs[j].ptx;
        break;
      }
  }
  a->own.narchs = keep;
}

static void intersect_gfx(struct ts_rules_assumption *a, char *const *gfx,
                          size_t ngfx) {
  size_t keep = 0;
  for (size_t i = 0; i < a->own.ngfx; i++)
    for (size_t j = 0; j < ngfx; j++)
      if (strcmp(gfx[j], a->own.gfx[i]) == 0) {
        a->own.gfx[keep++] = a->own.gfx[i];
        break;
      }
  a->own.ngfx = keep;
}

/* A variant no release lists for this machine: the targets every known
 * build of the same CUDA major (ROCm family) carries, the most cautious
 * reading of the lists.  A ROCm index's own target list starts it; a CUDA
 * variant with no relative gets an empty list, which no GPU passes. */
static void assume_family(const struct ts_rules *rules, const char *machine,
                          const struct ts_rules_backend *b,
                          struct ts_rules_assumption *a) {
  a->how = TS_ASSUME_FAMILY;
  a->own.backend = b->id;
  a->v = &a->own;
  bool first = true;
  if (b->kind == TS_BACKEND_ROCM) {
    a->own.gfx = ts_xcalloc(b->ngfx + 1, sizeof *a->own.gfx);
    memcpy(a->own.gfx, b->gfx, b->ngfx * sizeof *b->gfx);
    a->own.ngfx = b->ngfx;
    a->own.has_gfx = true;
    first = false;
  }
  for (size_t i = 0; i < rules->nreleases; i++) {
    struct ts_rules_variant_table t = ts_rules_release_variants(&rules->releases[i], machine);
    for (size_t k = 0; k < t.nvariants; k++) {
      const struct ts_rules_variant *v = &t.variants[k];
      const struct ts_rules_backend *vb = ts_rules_find_backend(rules, v->backend);
      if (!vb || !same_family(vb, b))
        continue;
      a->nrelatives++;
      if (b->kind == TS_BACKEND_ROCM) {
        intersect_gfx(a, v->has_gfx ? v->gfx : vb->gfx, v->has_gfx ? v->ngfx : vb->ngfx);
      } else if (first) {
        a->own.archs = ts_xcalloc(v->narchs + 1, sizeof *a->own.archs);
        memcpy(a->own.archs, v->archs, v->narchs * sizeof *v->archs);
        a->own.narchs = v->narchs;
        first = false;
      } else {
        intersect_archs(a, v);
      }
    }
  }
}

void ts_rules_assume(const struct ts_rules *rules, const char *machine, size_t at,
                     const struct ts_rules_backend *b, struct ts_rules_assumption *a) {
  memset(a, 0, sizeof *a);
  if (at < rules->nreleases && table_lists(&rules->releases[at], machine, b->id, &a->v)) {
    a->how = TS_ASSUME_KNOWN;
    a->from = &rules->releases[at];
    return;
  }
  /* The nearest release listing the variant; on a tie the newer, whose
   * lists tend to be the shorter ones. */
  size_t best = rules->nreleases, bestd = (size_t)-1;
  for (size_t i = 0; i < rules->nreleases; i++) {
    if (!table_lists(&rules->releases[i], machine, b->id, NULL))
      continue;
    size_t d = i > at ? i - at : at - i;
    if (d <= bestd) {
      best = i;
      bestd = d;
    }
  }
  if (best < rules->nreleases) {
    a->how = TS_ASSUME_NEAREST;
    a->from = &rules->releases[best];
    table_lists(a->from, machine, b->id, &a->v);
    return;
  }
  assume_family(rules, machine, b, a);
}

void ts_rules_assumption_clear(struct ts_rules_assumption *a) {
  /* own.archs and own.gfx borrow their strings from the rules */
  free(a->own.archs);
  free(a->own.gfx);
  memset(a, 0, sizeof *a);
}

char *ts_rules_assumed_warning(const struct ts_constraint_set *set,
                               const char *version) {
  for (size_t i = 0; set && version && i < set->nassumed; i++) {
    const struct ts_assumed_build *x = &set->assumed[i];
    if (ts_rules_term_matches(&x->subject, "torch", version))
      return ts_xasprintf("torch %s %s; assumed %s (confidence low); "
                          "'torchsolve rules update' may know it",
                          version, x->why, x->assumed);
  }
  return NULL;
}
