/*
 * rules/rules_internal.h — helpers private to rules/.  Allocation failures
 * abort, as ts_path_join does (rules are small and loaded once).
 */
#pragma once

#include <stddef.h>

#include "rules/rules.h"

char *rules_xstrdup(const char *s);
char *rules_xstrndup(const char *s, size_t n);
void *rules_xrealloc(void *p, size_t n);
void *rules_xcalloc(size_t n, size_t size);

void rules_backend_clear(struct ts_rules_backend *b);
void rules_release_clear(struct ts_rules_release *r);
void rules_rule_clear(struct ts_rules_rule *r);
void rules_pairing_clear(struct ts_rules_pairing *p);
