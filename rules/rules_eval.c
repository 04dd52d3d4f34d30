/*
 * rules_eval.c — evaluating compiled terms against distributions and host
 * facts: used for the backend list, `torchsolve check`, and tests.
 */
#include <fnmatch.h>
#include <stdlib.h>
#include <string.h>

#include "pep/name.h"
#include "pep/specifier.h"
#include "pep/version.h"
#include "rules/rules.h"
#include "rules/rules_eval.h"
#include "rules/rules_internal.h"

static bool local_matches(const char *pattern, const struct ts_version *v) {
  if (!pattern)
    return true;
  const char *local = ts_version_local(v);
  if (!pattern[0])
    return local == NULL || local[0] == '\0';
  return local && fnmatch(pattern, local, 0) == 0;
}

bool rules_term_match_version(const struct ts_term *t,
                              const struct ts_version *v) {
  if (t->spec && !ts_specset_contains(t->spec, v, TS_PRE_INCLUDE))
    return false;
  return local_matches(t->local_pattern, v);
}

bool rules_term_match_pkg(const struct ts_term *t, const char *name,
                          const struct ts_version *v) {
  if (!ts_name_eq(t->name, strlen(t->name), name, strlen(name)))
    return false;
  return rules_term_match_version(t, v);
}

const struct ts_host_fact *rules_find_fact(const struct ts_constraint_set *set,
                                           const char *name) {
  for (size_t i = 0; i < set->nfacts; i++)
    if (strcmp(set->facts[i].name, name) == 0)
      return &set->facts[i];
  return NULL;
}

bool rules_term_match_facts(const struct ts_term *t,
                            const struct ts_constraint_set *set) {
  const struct ts_host_fact *f = rules_find_fact(set, t->name);
  if (!f)
    return false;
  if (!t->spec)
    return true;
  if (!f->version)
    return false;
  struct ts_version *v = NULL;
  if (ts_version_parse(f->version, strlen(f->version), &v, NULL) != TS_OK)
    return false;
  bool ok = ts_specset_contains(t->spec, v, TS_PRE_INCLUDE);
  ts_version_free(v);
  return ok;
}

bool rules_term_is_fact(const struct ts_term *t) {
  return strncmp(t->name, "__", 2) == 0;
}

char *rules_term_str(const struct ts_term *t) {
  const char *spec = t->spec ? ts_specset_str(t->spec) : "";
  if (t->local_pattern && t->local_pattern[0])
    return rules_xprintf("%s%s (+%s)", t->name, spec, t->local_pattern);
  if (t->local_pattern)
    return rules_xprintf("%s%s (no local label)", t->name, spec);
  return rules_xprintf("%s%s", t->name, spec);
}

bool ts_rules_term_matches(const struct ts_term *term, const char *name,
                           const char *version) {
  struct ts_version *v = NULL;
  if (!name || !version ||
      ts_version_parse(version, strlen(version), &v, NULL) != TS_OK)
    return false;
  bool ok = rules_term_match_pkg(term, name, v);
  ts_version_free(v);
  return ok;
}

/* Why the host facts break constraint c for a subject, or NULL when they do
 * not (only fact terms are judged: package terms are the resolver's). */
char *rules_fact_violation(const struct ts_constraint *c,
                           const struct ts_constraint_set *set) {
  for (size_t i = 0; i < c->nwhen; i++)
    if (!rules_term_match_facts(&c->when[i], set))
      return NULL;
  if (c->kind == TS_CONSTRAINT_REQUIRES) {
    for (size_t i = 0; i < c->nterms; i++)
      if (!rules_term_is_fact(&c->terms[i]) ||
          rules_term_match_facts(&c->terms[i], set))
        return NULL;
    /* Every term is an unmet fact: say what the host has instead. */
    const struct ts_term *t = &c->terms[0];
    const struct ts_host_fact *f = rules_find_fact(set, t->name);
    char *want = rules_term_str(t);
    char *out;
    if (c->nterms > 1)
      out = rules_xprintf("needs one of %zu host facts such as %s; this host "
                          "has none of them", c->nterms, want);
    else if (f && f->version)
      out = rules_xprintf("needs %s; this host has %s %s", want, t->name,
                          f->version);
    else
      out = rules_xprintf("needs %s; this host has no %s", want, t->name);
    free(want);
    return out;
  }
  for (size_t i = 0; i < c->nterms; i++)
    if (rules_term_is_fact(&c->terms[i]) &&
        rules_term_match_facts(&c->terms[i], set)) {
      const struct ts_host_fact *f = rules_find_fact(set, c->terms[i].name);
      return rules_xprintf("this host has %s%s%s", c->terms[i].name,
                           f && f->version ? " " : "",
                           f && f->version ? f->version : "");
    }
  return NULL;
}
