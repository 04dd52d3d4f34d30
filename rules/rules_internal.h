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
