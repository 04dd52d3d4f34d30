/*
 * plan/rules_update.h — `torchsolve rules update`: the newest
 * torchsolve-rules package an index offers (a py3-none-any wheel holding
 * torchsolve_rules/rules.yaml, its version the facts' date), verified
 * against the index's sha256 and the wheel's RECORD, validated as `rules
 * check` validates a file, and kept in the data folder as the rules in
 * force (rules/origin.h).  Nothing is kept unless all of that passes.
 */
#pragma once

#include <stdbool.h>

#include "core/error.h"
#include "index/client.h"
#include "rules/rules.h"

#define TS_RULES_PACKAGE "torchsolve-rules"
#define TS_RULES_PACKAGE_MEMBER "torchsolve_rules/rules.yaml"

enum ts_rules_update_outcome {
  TS_RULES_UPDATE_KEPT,    /* newer than the rules in force: now in force */
  TS_RULES_UPDATE_CURRENT, /* the index's newest is already in force */
  TS_RULES_UPDATE_OLDER,   /* not newer than the bundled rules: nothing kept */
};

struct ts_rules_update_options {
  struct ts_index *idx;
  const char *bundled;  /* the bundled rules.yaml */
  const char *data_dir; /* where the update is kept (ts_rules_data_dir) */
  bool again;           /* fetch and validate the in-force version again */
};

struct ts_rules_update_result {
  enum ts_rules_update_outcome outcome;
  char *version;      /* the index's newest, "2026.11.28" */
  char *url;          /* its wheel, redacted */
  char *in_force;     /* the version in force before, or NULL */
  char *label;        /* "FILE.whl!torchsolve_rules/rules.yaml", for diagnostics */
  struct ts_rules_diags diags; /* an invalid package's problems */
  size_t nbackends, nreleases, nrules;
  char newest_series[16]; /* the newest torch series it knows */
};
void ts_rules_update_result_clear(struct ts_rules_update_result *r);

/* TS_E_NOT_FOUND when the index has no torchsolve-rules wheel, TS_E_HASH /
 * TS_E_HASH_MISSING for a file that cannot be verified, TS_E_RULES (with
 * out->diags) for one that does not validate; the rules in force are then
 * unchanged. */
enum ts_code ts_rules_update(const struct ts_rules_update_options *o,
                             struct ts_rules_update_result *out,
                             struct ts_error *err);
