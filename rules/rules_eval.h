/*
 * rules/rules_eval.h — term evaluation shared by compile and check
 * (private to rules/).
 */
#pragma once

#include <stdbool.h>

#include "pep/version.h"
#include "rules/constraint.h"

bool ts_rules_term_match_version(const struct ts_term *t,
                              const struct ts_version *v);
/* Whether the term is about project `name` (names compared normalised). */
bool ts_rules_term_names(const struct ts_term *t, const char *name);
bool ts_rules_term_match_pkg(const struct ts_term *t, const char *name,
                          const struct ts_version *v);
bool ts_rules_term_match_facts(const struct ts_term *t,
                            const struct ts_constraint_set *set);
bool ts_rules_term_is_fact(const struct ts_term *t);
const struct ts_host_fact *ts_rules_find_fact(const struct ts_constraint_set *set,
                                           const char *name);
/* "torch>=2.8,<2.10 (+cu130)"; caller frees. */
char *ts_rules_term_str(const struct ts_term *t);
/* Why the host facts break c (caller frees), or NULL when they do not. */
char *ts_rules_fact_violation(const struct ts_constraint *c,
                           const struct ts_constraint_set *set);
