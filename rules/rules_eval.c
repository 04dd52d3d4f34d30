/*
 * rules_eval.c — evaluating compiled terms against distributions and host
 * facts: used for the backend list, `torchsolve check`, and tests.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/str.h"
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
  return local && ts_local_label_matches(pattern, local);
}

/* The label first: it rules out most candidates at the cost of a string
 * compare, before the specifier is evaluated. */
bool ts_rules_term_match_version(const struct ts_term *t,
                              const struct ts_version *v) {
  if (!local_matches(t->local_pattern, v))
    return false;
  return !t->spec || ts_specset_contains(t->spec, v, TS_PRE_INCLUDE);
}

bool ts_rules_term_names(const struct ts_term *t, const char *name) {
  return ts_name_eq(t->name, strlen(t->name), name, strlen(name));
}

bool ts_rules_term_match_pkg(const struct ts_term *t, const char *name,
                          const struct ts_version *v) {
  return ts_rules_term_names(t, name) && ts_rules_term_match_version(t, v);
}

const struct ts_host_fact *ts_rules_find_fact(const struct ts_constraint_set *set,
                                           const char *name) {
  for (size_t i = 0; i < set->nfacts; i++)
    if (strcmp(set->facts[i].name, name) == 0)
      return &set->facts[i];
  return NULL;
}

bool ts_rules_term_match_facts(const struct ts_term *t,
                            const struct ts_constraint_set *set) {
  const struct ts_host_fact *f = ts_rules_find_fact(set, t->name);
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

bool ts_rules_term_is_fact(const struct ts_term *t) {
  return strncmp(t->name, "__", 2) == 0;
}

char *ts_rules_term_str(const struct ts_term *t) {
  const char *spec = t->spec ? ts_specset_str(t->spec) : "";
  if (t->local_pattern && t->local_pattern[0])
    return ts_xasprintf("%s%s (+%s)", t->name, spec, t->local_pattern);
  if (t->local_pattern)
    return ts_xasprintf("%s%s (no local label)", t->name, spec);
  return ts_xasprintf("%s%s", t->name, spec);
}

bool ts_rules_term_matches(const struct ts_term *term, const char *name,
                           const char *version) {
  struct ts_version *v = NULL;
  if (!name || !version ||
      ts_version_parse(version, strlen(version), &v, NULL) != TS_OK)
    return false;
  bool ok = ts_rules_term_match_pkg(term, name, v);
  ts_version_free(v);
  return ok;
}

char *ts_rules_fact_words(const char *name) {
  if (strcmp(name, "__cuda_driver") == 0)
    return ts_xstrdup("NVIDIA driver");
  if (strcmp(name, "__cuda") == 0)
    return ts_xstrdup("CUDA (driver-supported)");
  if (strcmp(name, "__rocm") == 0)
    return ts_xstrdup("ROCm");
  if (strcmp(name, "__rocm_kmd") == 0)
    return ts_xstrdup("ROCm kernel driver");
  if (strcmp(name, "__jetson") == 0)
    return ts_xstrdup("an NVIDIA Jetson (L4T)");
  if (strcmp(name, "__rocm_intree") == 0)
    return ts_xstrdup("ROCm installed beside the kernel's own amdgpu");
  if (strcmp(name, "__glibc") == 0)
    return ts_xstrdup("glibc");
  if (strcmp(name, "__python") == 0)
    return ts_xstrdup("Python");
  if (strcmp(name, "__xpu") == 0)
    return ts_xstrdup("an Intel XPU");
  if (strncmp(name, "__cc_", 5) == 0)
    return ts_xasprintf("a GPU of compute capability %s", name + 5);
  if (strncmp(name, "__gfx", 5) == 0)
    return ts_xasprintf("GPU target %s", name + 2);
  return ts_xstrdup(name);
}

/* Why the host facts break constraint c for a subject, or NULL when they do
 * not (only fact terms are judged: package terms are the resolver's). */
char *ts_rules_fact_violation(const struct ts_constraint *c,
                           const struct ts_constraint_set *set) {
  for (size_t i = 0; i < c->nwhen; i++)
    if (!ts_rules_term_match_facts(&c->when[i], set))
      return NULL;
  if (c->kind == TS_CONSTRAINT_REQUIRES) {
    for (size_t i = 0; i < c->nterms; i++)
      if (!ts_rules_term_is_fact(&c->terms[i]) ||
          ts_rules_term_match_facts(&c->terms[i], set))
        return NULL;
    if (c->nterms == 0)
      return NULL;
    const struct ts_term *t = &c->terms[0];
    if (c->nterms > 1 && strncmp(t->name, "__gfx", 5) == 0) {
      bool any_amd = false;
      for (size_t i = 0; i < set->nfacts; i++)
        any_amd |= strncmp(set->facts[i].name, "__gfx", 5) == 0;
      if (!any_amd)
        return ts_xstrdup("needs an AMD GPU; this host has none");
    }
    if (c->nterms > 1) {
      /* "needs one of gfx900, gfx906 GPUs" */
      char buf[768] = "";
      size_t used = 0;
      for (size_t i = 0; i < c->nterms && used < sizeof buf - 40; i++) {
        const char *n = c->terms[i].name;
        used += (size_t)snprintf(buf + used, sizeof buf - used, "%s%s",
                                 i ? ", " : "",
                                 strncmp(n, "__", 2) == 0 ? n + 2 : n);
      }
      return ts_xasprintf("needs one of: %s; this host has none of them", buf);
    }
    const struct ts_host_fact *f = ts_rules_find_fact(set, t->name);
    char *words = ts_rules_fact_words(t->name);
    const char *spec = t->spec ? ts_specset_str(t->spec) : "";
    char *out;
    if (f && f->version)
      out = ts_xasprintf("needs %s %s; this host has %s", words, spec,
                          f->version);
    else
      out = ts_xasprintf("needs %s%s%s; this host has none", words,
                          spec[0] ? " " : "", spec);
    free(words);
    return out;
  }
  for (size_t i = 0; i < c->nterms; i++)
    if (ts_rules_term_is_fact(&c->terms[i]) &&
        ts_rules_term_match_facts(&c->terms[i], set)) {
      const struct ts_host_fact *f = ts_rules_find_fact(set, c->terms[i].name);
      char *words = ts_rules_fact_words(c->terms[i].name);
      char *out = ts_xasprintf("cannot run on %s%s%s", words,
                                f && f->version ? " " : "",
                                f && f->version ? f->version : "");
      free(words);
      return out;
    }
  return NULL;
}
