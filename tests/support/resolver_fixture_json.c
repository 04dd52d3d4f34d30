/*
 * resolver_fixture_json FIXTURE.test — prints a resolver fixture as
 * resolver_fixture.c reads it, as one JSON object, so that a script replays
 * the fixture without a reader of its own (integration.resolver_fixtures).
 * Keys follow struct rfx_fixture; absent optional values are null.  Exit 1
 * with a one-line reason on stderr when the file does not read.
 */
#include <cjson/cJSON.h>
#include <stdio.h>
#include <stdlib.h>

#include "tests/support/resolver_fixture.h"

static cJSON *strv(char *const *v, size_t n) {
  cJSON *a = cJSON_CreateArray();
  for (size_t i = 0; i < n; i++)
    cJSON_AddItemToArray(a, cJSON_CreateString(v[i]));
  return a;
}

static cJSON *str_or_null(const char *s) {
  return s ? cJSON_CreateString(s) : cJSON_CreateNull();
}

static cJSON *pairs(const struct rfx_pair *p, size_t n) {
  cJSON *a = cJSON_CreateArray();
  for (size_t i = 0; i < n; i++) {
    cJSON *pair = cJSON_CreateArray();
    cJSON_AddItemToArray(pair, cJSON_CreateString(p[i].first));
    cJSON_AddItemToArray(pair, str_or_null(p[i].second));
    cJSON_AddItemToArray(a, pair);
  }
  return a;
}

static cJSON *term(const struct rfx_term *t) {
  cJSON *o = cJSON_CreateObject();
  cJSON_AddStringToObject(o, "name", t->name);
  cJSON_AddStringToObject(o, "spec", t->spec);
  cJSON_AddItemToObject(o, "local", str_or_null(t->local));
  return o;
}

static cJSON *terms(const struct rfx_term *t, size_t n) {
  cJSON *a = cJSON_CreateArray();
  for (size_t i = 0; i < n; i++)
    cJSON_AddItemToArray(a, term(&t[i]));
  return a;
}

static cJSON *packages(const struct rfx_fixture *fx) {
  cJSON *a = cJSON_CreateArray();
  for (size_t i = 0; i < fx->npackages; i++) {
    const struct rfx_package *p = &fx->packages[i];
    cJSON *o = cJSON_CreateObject();
    cJSON_AddStringToObject(o, "name", p->name);
    cJSON_AddStringToObject(o, "version", p->version);
    cJSON_AddItemToObject(o, "requires_python", str_or_null(p->requires_python));
    cJSON_AddItemToObject(o, "tags", strv(p->tags, p->ntags));
    cJSON_AddBoolToObject(o, "sdist_only", p->sdist_only);
    cJSON_AddBoolToObject(o, "sdist", p->sdist);
    cJSON_AddBoolToObject(o, "yanked", p->yanked);
    cJSON_AddItemToObject(o, "requires_dist", strv(p->requires_dist, p->nrequires_dist));
    cJSON_AddItemToObject(o, "provides_extra", strv(p->provides_extra, p->nprovides_extra));
    cJSON_AddItemToArray(a, o);
  }
  return a;
}

static cJSON *rules(const struct rfx_fixture *fx) {
  cJSON *a = cJSON_CreateArray();
  for (size_t i = 0; i < fx->nrules; i++) {
    const struct rfx_rule *r = &fx->rules[i];
    cJSON *o = cJSON_CreateObject();
    cJSON_AddStringToObject(o, "kind", r->conflicts ? "conflicts" : "requires");
    cJSON_AddStringToObject(o, "id", r->id);
    cJSON_AddItemToObject(o, "subject", term(&r->subject));
    cJSON_AddItemToObject(o, "terms", terms(r->terms, r->nterms));
    cJSON_AddItemToObject(o, "when", terms(r->when, r->nwhen));
    cJSON_AddItemToObject(o, "fix", str_or_null(r->fix));
    cJSON_AddItemToArray(a, o);
  }
  return a;
}

static cJSON *variants(const struct rfx_fixture *fx) {
  cJSON *a = cJSON_CreateArray();
  for (size_t i = 0; i < fx->nvariants; i++) {
    const struct rfx_variant *v = &fx->variants[i];
    cJSON *o = cJSON_CreateObject();
    cJSON_AddStringToObject(o, "name", v->name);
    cJSON_AddItemToObject(o, "patterns", strv(v->patterns, v->npatterns));
    cJSON_AddNumberToObject(o, "nfallback", (double)v->nfallback);
    cJSON_AddItemToArray(a, o);
  }
  return a;
}

static cJSON *count_or_null(long n) {
  return n >= 0 ? cJSON_CreateNumber((double)n) : cJSON_CreateNull();
}

int main(int argc, char **argv) {
  if (argc != 2) {
    fprintf(stderr, "usage: resolver_fixture_json FIXTURE.test\n");
    return 2;
  }
  struct rfx_fixture fx;
  char why[1200];
  if (!rfx_load(argv[1], &fx, why, sizeof why)) {
    fprintf(stderr, "resolver_fixture_json: %s\n", why);
    return 1;
  }
  cJSON *o = cJSON_CreateObject();
  cJSON_AddItemToObject(o, "packages", packages(&fx));
  cJSON_AddItemToObject(o, "links", pairs(fx.links, fx.nlinks));
  cJSON_AddItemToObject(o, "pages", strv(fx.pages, fx.npages));
  cJSON_AddItemToObject(o, "installed", pairs(fx.installed, fx.ninstalled));
  cJSON_AddItemToObject(o, "facts", pairs(fx.facts, fx.nfacts));
  cJSON_AddItemToObject(o, "rules", rules(&fx));
  cJSON_AddItemToObject(o, "variants", variants(&fx));
  cJSON_AddItemToObject(o, "priority", strv(fx.priority, fx.npriority));
  cJSON_AddStringToObject(o, "python", fx.python);
  cJSON_AddItemToObject(o, "args", strv(fx.args, fx.nargs));
  cJSON_AddNumberToObject(o, "prefetch", (double)fx.prefetch);
  cJSON_AddItemToObject(o, "requests_metadata", count_or_null(fx.requests_metadata));
  cJSON_AddItemToObject(o, "requests_pages", count_or_null(fx.requests_pages));
  cJSON_AddItemToObject(o, "solves", count_or_null(fx.solves));
  cJSON_AddBoolToObject(o, "expect_ok", fx.expect_ok);
  cJSON_AddItemToObject(o, "expect", strv(fx.expect, fx.nexpect));
  char *text = cJSON_PrintUnformatted(o);
  if (!text)
    abort();
  puts(text);
  free(text);
  cJSON_Delete(o);
  rfx_free(&fx);
  return 0;
}
