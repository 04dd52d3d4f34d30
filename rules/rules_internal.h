/*
 * rules/rules_internal.h — helpers private to rules/.  Allocations follow
 * core/alloc.h (out of memory aborts; rules are small and loaded once).
 */
#pragma once

#include <stddef.h>

#include "rules/rules.h"


void ts_rules_backend_clear(struct ts_rules_backend *b);
void ts_rules_release_clear(struct ts_rules_release *r);
void ts_rules_rule_clear(struct ts_rules_rule *r);
void ts_rules_pairing_clear(struct ts_rules_pairing *p);
