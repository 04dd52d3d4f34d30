#include <stdlib.h>
#include <string.h>

#include "rules/constraint.h"

#include "core/str.h"

static void term_clear(struct ts_term *t) {
  free(t->name);
  ts_specset_free(t->spec);
  free(t->local_pattern);
}

void ts_constraint_set_clear(struct ts_constraint_set *set) {
  if (!set)
    return;
  for (size_t i = 0; i < set->nfacts; i++) {
    free(set->facts[i].name);
    free(set->facts[i].version);
    free(set->facts[i].source);
  }
  free(set->facts);
  for (size_t i = 0; i < set->nconstraints; i++) {
    struct ts_constraint *c = &set->constraints[i];
    free(c->id);
    free(c->message);
    free(c->fix);
    free(c->source);
    term_clear(&c->subject);
    for (size_t j = 0; j < c->nterms; j++)
      term_clear(&c->terms[j]);
    free(c->terms);
    for (size_t j = 0; j < c->nwhen; j++)
      term_clear(&c->when[j]);
    free(c->when);
    free(c->confidence);
  }
  free(set->constraints);
  free(set->release);
  for (size_t i = 0; i < set->nbackends; i++) {
    free(set->backends[i].name);
    free(set->backends[i].kind);
    free(set->backends[i].index_url);
    free(set->backends[i].reason);
    free(set->backends[i].rule_id);
  }
  free(set->backends);
  ts_strv_free(set->routed, set->nrouted);
  free(set->index_base);
  for (size_t i = 0; i < set->nassumed; i++) {
    term_clear(&set->assumed[i].subject);
    free(set->assumed[i].why);
    free(set->assumed[i].assumed);
  }
  free(set->assumed);
  free(set->release_assumed);
  memset(set, 0, sizeof *set);
}
