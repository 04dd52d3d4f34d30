/*
 * rules/rules_internal.h — helpers private to rules/.  Allocations follow
 * core/alloc.h (out of memory aborts; rules are small and loaded once).
 */
#pragma once

#include <stdbool.h>
#include <stddef.h>

#include "rules/rules.h"


void ts_rules_backend_clear(struct ts_rules_backend *b);
void ts_rules_release_clear(struct ts_rules_release *r);
void ts_rules_rule_clear(struct ts_rules_rule *r);
void ts_rules_pairing_clear(struct ts_rules_pairing *p);
void ts_rules_kmd_clear(struct ts_rules_kmd *k);
void ts_rules_torch_build_clear(struct ts_rules_torch_build *t);

/* A release's variant tables (its own and each platform's) checked
 * against the backends of `r`: true with the problem in buf when a
 * variant names no backend, a CUDA variant lacks archs, or pypi_default
 * is not among the variants. */
bool ts_rules_release_problem(const struct ts_rules *r,
                           const struct ts_rules_release *rel, char *buf,
                           size_t cap);

/* The facts a torch build of backend `b` is judged on, for the release at
 * index `at` of r->releases (r->nreleases: a release newer than every one
 * listed), on `machine`. */
struct ts_rules_assumption {
  enum {
    TS_ASSUME_KNOWN,   /* the release lists the variant: its own facts */
    TS_ASSUME_NEAREST, /* the nearest release listing it stands in (`from`) */
    TS_ASSUME_FAMILY,  /* no release lists it here: what every known build
                          of its CUDA major / ROCm family carries (`own`) */
  } how;
  const struct ts_rules_release *from;
  const struct ts_rules_variant *v; /* the facts: into the rules, or &own */
  struct ts_rules_variant own;      /* TS_ASSUME_FAMILY; arrays owned, strings borrowed */
  size_t nrelatives;                /* TS_ASSUME_FAMILY: lists intersected */
};
void ts_rules_assume(const struct ts_rules *rules, const char *machine, size_t at,
                     const struct ts_rules_backend *b, struct ts_rules_assumption *a);
void ts_rules_assumption_clear(struct ts_rules_assumption *a);
