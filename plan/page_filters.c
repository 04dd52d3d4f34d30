/*
 * plan/page_filters.c — what plan/ takes off a fetched page before the
 * resolver reads it, beside the hash filter of plan.c and the variant
 * wheels of plan_variants.c (plan_internal.h).
 */
#include "plan/plan_internal.h"

#include <stdlib.h>
#include <string.h>

#include "core/alloc.h"
#include "core/str.h"
#include "index/simple.h"

bool ts_plan_is_routed(const struct ts_constraint_set *set, const char *name) {
  for (size_t i = 0; set && i < set->nrouted; i++)
    if (strcmp(set->routed[i], name) == 0)
      return true;
  return false;
}

void ts_plan_drop_routed_find_links(const struct ts_constraint_set *set,
                                    struct ts_index_project *pr, char ***notes,
                                    size_t *nnotes) {
  if (!ts_plan_is_routed(set, pr->name))
    return;
  bool served = false;
  for (size_t i = 0; i < pr->nfiles && !served; i++)
    served = !pr->files[i].from_find_links;
  if (!served)
    return;
  size_t k = 0;
  for (size_t i = 0; i < pr->nfiles; i++) {
    if (!pr->files[i].from_find_links) {
      if (k != i)
        pr->files[k] = pr->files[i];
      k++;
      continue;
    }
    *notes = ts_xreallocarray(*notes, *nnotes + 1, sizeof **notes);
    (*notes)[(*nnotes)++] = ts_xasprintf(
        "%s from --find-links is passed over: rules.yaml routes %s to the "
        "PyTorch server, which has it; to install that file, name its path",
        pr->files[i].filename, pr->name);
    ts_index_file_clear(&pr->files[i]);
  }
  pr->nfiles = k;
}
