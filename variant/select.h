/*
 * variant/select.h — which variants of one release this host may install,
 * best first (PEP 825): a variant is compatible when every feature it
 * names has a value the host supports (a provider's value, or one of the
 * project's `static-properties` for a namespace found statically).  The
 * compatible ones are ordered by their properties' priorities: namespace
 * (default-priorities.namespace, then the providers' order), feature
 * (the file's feature priorities, then the provider's order) and value
 * (the file's property priorities, then the provider's order); each
 * variant is keyed by the sorted list of its features' best supported
 * priorities, compared in order (a longer list wins a tie of its
 * prefix: the more specific build).  The null variant follows every
 * other compatible one; wheels without a label come after it (the
 * resolver's business).  Ties the metadata leaves open go to the
 * caller's `tiebreak` (torchsolve's objective: the newest CUDA that runs
 * here), then to label order; the caller's `allowed` (rules.yaml) can
 * refuse a compatible variant with a reason.
 */
#pragma once

#include <stdbool.h>
#include <stddef.h>

#include "core/error.h"
#include "variant/metadata.h"
#include "variant/provider.h"

struct ts_variant_policy {
  void *ctx;
  /* Negative when label a is preferred to b among equally ranked
   * variants; NULL: label order. */
  int (*tiebreak)(void *ctx, const char *a, const char *b);
  /* false, with *why (malloc'd) set, to refuse a compatible variant;
   * NULL: every compatible one is allowed. */
  bool (*allowed)(void *ctx, const char *label, char **why);
};

struct ts_variant_choice {
  char *label;
  bool compatible;
  /* compatible: the properties that matched ("nvidia::sm_arch 89_real,
   * cuda_version_lower_bound 12.0 ≤ driver 12.8"); not: why not
   * ("nvidia::cuda_version_lower_bound 13.0 > driver 12.8") */
  char *why;
};

struct ts_variant_selection {
  /* the compatible variants best first, then the others by label */
  struct ts_variant_choice *choices;
  size_t nchoices;
  size_t ncompatible;
};

/* Judges every variant of `m` against `host` (plus m's static
 * properties).  Caller clears *out with ts_variant_selection_clear. */
void ts_variant_select(const struct ts_variant_metadata *m,
                       const struct ts_variant_supported *host,
                       const struct ts_variant_policy *policy,
                       struct ts_variant_selection *out);
void ts_variant_selection_clear(struct ts_variant_selection *s);

/* The position of a compatible label (0 = best), or -1 when the label is
 * not compatible or unknown. */
long ts_variant_selection_rank(const struct ts_variant_selection *s, const char *label);
/* The choice of a label, or NULL. */
const struct ts_variant_choice *ts_variant_selection_find(const struct ts_variant_selection *s,
                                                          const char *label);
