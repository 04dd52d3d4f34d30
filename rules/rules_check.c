/*
 * rules_check.c — which compiled constraints does an installed environment
 * break?  The same constraints the resolver encodes are evaluated against
 * the installed (name, version) pairs plus the host facts, so `check` and
 * `install` can never disagree about a rule.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/str.h"
#include "pep/name.h"
#include "pep/version.h"
#include "rules/rules.h"
#include "rules/rules_eval.h"
#include "rules/rules_internal.h"

struct parsed {
  const struct ts_installed *pkg;
  struct ts_version *v; /* NULL when the version does not parse */
};

/* Does any installed distribution or host fact match t?  *who gets the
 * first match ("torch 2.10.0", "__gfx1100"). */
static bool term_present(const struct ts_term *t, const struct parsed *pk,
                         size_t n, const struct ts_constraint_set *set,
                         char **who) {
  if (ts_rules_term_is_fact(t)) {
    if (!ts_rules_term_match_facts(t, set))
      return false;
    const struct ts_host_fact *f = ts_rules_find_fact(set, t->name);
    *who = ts_xasprintf("%s%s%s", t->name, f && f->version ? " " : "",
                         f && f->version ? f->version : "");
    return true;
  }
  for (size_t i = 0; i < n; i++)
    if (pk[i].v && ts_rules_term_match_pkg(t, pk[i].pkg->name, pk[i].v)) {
      *who = ts_xasprintf("%s %s", pk[i].pkg->name, pk[i].pkg->version);
      return true;
    }
  return false;
}

static void add_finding(struct ts_rules_finding **out, size_t *nout,
                        const struct ts_constraint *c, const struct parsed *p,
                        char *detail) {
  *out = ts_xrealloc(*out, (*nout + 1) * sizeof **out);
  struct ts_rules_finding *f = &(*out)[(*nout)++];
  f->id = ts_xstrdup(c->id ? c->id : "");
  f->subject = ts_xasprintf("%s %s", p->pkg->name, p->pkg->version);
  f->detail = detail;
  f->message = ts_xstrdup(c->message ? c->message : "");
  f->fix = c->fix ? ts_xstrdup(c->fix) : NULL;
  f->source = ts_xstrdup(c->source ? c->source : "");
}

/* The installed version of the project a term names, for the detail. */
static const char *installed_version(const struct ts_term *t,
                                     const struct parsed *pk, size_t n) {
  for (size_t i = 0; i < n; i++)
    if (ts_name_eq(t->name, strlen(t->name), pk[i].pkg->name,
                   strlen(pk[i].pkg->name)))
      return pk[i].pkg->version;
  return NULL;
}

enum ts_code ts_rules_check_installed(const struct ts_constraint_set *set,
                                      const struct ts_installed *pkgs,
                                      size_t npkgs,
                                      struct ts_rules_finding **out,
                                      size_t *nout, struct ts_error *err) {
  (void)err;
  *out = NULL;
  *nout = 0;
  struct parsed *pk = ts_xcalloc(npkgs, sizeof *pk);
  for (size_t i = 0; i < npkgs; i++) {
    pk[i].pkg = &pkgs[i];
    if (pkgs[i].name && pkgs[i].version &&
        ts_version_parse(pkgs[i].version, strlen(pkgs[i].version), &pk[i].v,
                         NULL) != TS_OK)
      pk[i].v = NULL;
  }
  for (size_t ci = 0; ci < set->nconstraints; ci++) {
    const struct ts_constraint *c = &set->constraints[ci];
    bool when = true;
    for (size_t w = 0; w < c->nwhen; w++)
      when &= ts_rules_term_match_facts(&c->when[w], set);
    if (!when)
      continue;
    for (size_t i = 0; i < npkgs; i++) {
      if (!pk[i].v || !ts_rules_term_match_pkg(&c->subject, pk[i].pkg->name, pk[i].v))
        continue;
      char *who = NULL;
      if (c->kind == TS_CONSTRAINT_REQUIRES) {
        bool ok = false;
        for (size_t t = 0; t < c->nterms && !ok; t++) {
          ok = term_present(&c->terms[t], pk, npkgs, set, &who);
          free(who);
          who = NULL;
        }
        if (ok || c->nterms == 0)
          continue;
        const struct ts_term *t0 = &c->terms[0];
        char *want = ts_rules_term_str(t0);
        char *detail;
        if (ts_rules_term_is_fact(t0)) {
          const struct ts_host_fact *f = ts_rules_find_fact(set, t0->name);
          detail = f && f->version
                       ? ts_xasprintf("needs %s%s; this host has %s %s", want,
                                       c->nterms > 1 ? " (or another listed fact)" : "",
                                       t0->name, f->version)
                       : ts_xasprintf("needs %s%s; this host has none", want,
                                       c->nterms > 1 ? " (or another listed fact)" : "");
        } else {
          const char *have = installed_version(t0, pk, npkgs);
          detail = have ? ts_xasprintf("needs %s%s; installed: %s %s", want,
                                        c->nterms > 1 ? " (or another listed build)" : "",
                                        t0->name, have)
                        : ts_xasprintf("needs %s%s, which is not installed",
                                        want, c->nterms > 1 ? " (or another listed build)" : "");
        }
        free(want);
        add_finding(out, nout, c, &pk[i], detail);
      } else {
        for (size_t t = 0; t < c->nterms; t++) {
          if (!term_present(&c->terms[t], pk, npkgs, set, &who))
            continue;
          add_finding(out, nout, c, &pk[i],
                      ts_xasprintf("conflicts with %s", who));
          free(who);
          who = NULL;
          break;
        }
      }
    }
  }
  for (size_t i = 0; i < npkgs; i++)
    ts_version_free(pk[i].v);
  free(pk);
  return TS_OK;
}

void ts_rules_findings_free(struct ts_rules_finding *f, size_t n) {
  for (size_t i = 0; i < n; i++) {
    free(f[i].id);
    free(f[i].subject);
    free(f[i].detail);
    free(f[i].message);
    free(f[i].fix);
    free(f[i].source);
  }
  free(f);
}

enum ts_code ts_rules_check_build(const struct ts_constraint_set *set,
                                  const char *name, const char *version,
                                  const char *built_cuda, const char *built_rocm,
                                  struct ts_rules_finding **out, size_t *nout,
                                  struct ts_error *err) {
  struct ts_version *v = NULL;
  if (ts_version_parse(version, strlen(version), &v, err) != TS_OK)
    return ts_error_wrap(err, "%s", name);
  /* The label the PyTorch server would give such a build. */
  char label[32] = "";
  unsigned long maj = 0, min = 0;
  const char *bv = built_rocm ? built_rocm : built_cuda;
  char *end = NULL;
  if (bv) {
    maj = strtoul(bv, &end, 10);
    if (end && *end == '.')
      min = strtoul(end + 1, NULL, 10);
  }
  if (built_rocm)
    snprintf(label, sizeof label, "rocm%lu.%lu", maj, min);
  else if (built_cuda)
    snprintf(label, sizeof label, "cu%lu%lu", maj, min);
  else {
    ts_version_free(v);
    return TS_OK; /* nothing said about the build: nothing to check */
  }
  char *cand_text = ts_xasprintf("%s+%s", ts_version_public(v), label);
  struct ts_version *cand = NULL;
  enum ts_code rc = ts_version_parse(cand_text, strlen(cand_text), &cand, err);
  ts_version_free(v);
  if (rc != TS_OK) {
    free(cand_text);
    return rc;
  }
  struct ts_installed me = {name, version};
  struct parsed p = {&me, cand};
  bool gated = false;
  for (size_t i = 0; i < set->nconstraints; i++) {
    const struct ts_constraint *c = &set->constraints[i];
    if (!ts_rules_term_match_pkg(&c->subject, name, cand))
      continue;
    if (c->subject.local_pattern && c->subject.local_pattern[0])
      gated = true;
    char *why = ts_rules_fact_violation(c, set);
    if (why) {
      add_finding(out, nout, c, &p,
                  ts_xasprintf("built for %s: %s", label, why));
      free(why);
    }
  }
  /* A ROCm newer than any known variant still needs the installed ROCm. */
  const struct ts_host_fact *rocm = ts_rules_find_fact(set, "__rocm");
  if (built_rocm && !gated && rocm && rocm->version) {
    char mm[32];
    snprintf(mm, sizeof mm, "%lu.%lu", maj, min);
    if (ts_host_vercmp(rocm->version, mm) < 0) {
      struct ts_constraint c = {
          .id = (char *)"custom-build-rocm",
          .message = (char *)"a custom build made with a newer ROCm than the installed one",
          .fix = (char *)"upgrade ROCm, or use a build made for the installed ROCm",
          .source = (char *)"https://rocm.docs.amd.com/"};
      add_finding(out, nout, &c, &p,
                  ts_xasprintf("built with ROCm %s; this host has ROCm %s",
                                built_rocm, rocm->version));
    }
  }
  ts_version_free(cand);
  free(cand_text);
  return TS_OK;
}

bool ts_rules_is_custom_build(const struct ts_constraint_set *set, const char *version) {
  const char *plus = strchr(version, '+');
  for (size_t k = 0; plus && k < set->nbackends; k++)
    if (strcmp(plus + 1, set->backends[k].name) == 0)
      return false;
  return plus != NULL;
}

enum ts_code ts_rules_audit(const struct ts_constraint_set *set, const struct ts_installed *pkgs,
                            size_t npkgs, const char *built_cuda, const char *built_rocm,
                            struct ts_rules_finding **out, size_t *nout,
                            struct ts_error *err) {
  enum ts_code rc = ts_rules_check_installed(set, pkgs, npkgs, out, nout, err);
  for (size_t i = 0; rc == TS_OK && i < npkgs && (built_cuda || built_rocm); i++)
    if (ts_rules_is_custom_build(set, pkgs[i].version))
      rc = ts_rules_check_build(set, pkgs[i].name, pkgs[i].version, built_cuda, built_rocm,
                                out, nout, err);
  return rc;
}
