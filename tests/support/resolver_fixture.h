/*
 * tests/support/resolver_fixture.h — the one reader of the resolver
 * fixture format (the .test files of fixtures/resolver/, described in its
 * README.md).  Both replays use it:
 * unit.resolver_fixtures builds an in-memory index and a request from the
 * parsed fixture, and integration.resolver_fixtures reads the same parse
 * as JSON from resolver_fixture_json (a file:// index, rules.yaml and the
 * binary's options).  The parse is text only: requirements, specifiers
 * and markers are left to the consumers' own parsers.
 */
#pragma once

#include <stdbool.h>
#include <stddef.h>

/* A rules term "name[SPEC][@LOCALGLOB]". */
struct rfx_term {
  char *name;
  char *spec;  /* "" when none */
  char *local; /* NULL when none; "" = no local label */
};

/* "@rule KIND ID: SUBJECT -> TERM | TERM [when FACT & FACT] [fix: TEXT]" */
struct rfx_rule {
  bool conflicts; /* else requires */
  char *id;
  char *fix;      /* NULL when none */
  struct rfx_term subject;
  struct rfx_term *terms, *when;
  size_t nterms, nwhen;
};

/* "@package NAME VERSION" and its indented lines. */
struct rfx_package {
  char *name, *version;
  char *requires_python;       /* NULL when none */
  char **tags;                 /* none: one py3-none-any wheel */
  size_t ntags;
  bool sdist_only, sdist, yanked;
  /* Requires-Dist lines: "requires" lines, then each "extra X: REQ" as
   * "REQ; extra == "X"" (or "REQ; (MARKER) and extra == "X"") */
  char **requires_dist;
  size_t nrequires_dist;
  char **provides_extra;       /* the extras named, once each */
  size_t nprovides_extra;
};

struct rfx_pair {
  char *first, *second; /* second NULL when the line has none */
};

/* "@variant NAME PAT ... [| PAT ...]": patterns best first, "-" read as
 * "" (no local label); the last nfallback are the fallback tier. */
struct rfx_variant {
  char *name;
  char **patterns;
  size_t npatterns, nfallback;
};

struct rfx_fixture {
  struct rfx_package *packages;
  size_t npackages;
  struct rfx_pair *links;     /* "@link PROJECT FILE" */
  size_t nlinks;
  char **pages;               /* "@page PROJECT" */
  size_t npages;
  struct rfx_pair *installed; /* "@installed NAME VERSION" */
  size_t ninstalled;
  struct rfx_pair *facts;     /* "@fact NAME [VERSION]" */
  size_t nfacts;
  struct rfx_rule *rules;
  size_t nrules;
  struct rfx_variant *variants;
  size_t nvariants;
  char **priority;            /* "@priority NAME..." */
  size_t npriority;
  char *python;               /* "@python", default 3.12.3 */
  char **args;                /* "@args", split at blanks */
  size_t nargs;
  long prefetch;              /* default 2 */
  long requests_metadata, requests_pages, solves; /* -1: not stated */
  bool expect_ok;             /* "@expect ok", else "@expect fail" */
  /* after "@expect": "name version action" lines, or the substrings of
   * "~ TEXT" lines (the "~ " dropped) */
  char **expect;
  size_t nexpect;
};

/* Reads the fixture at path; false with a one-line reason in why (a line
 * the format does not know, an unreadable file). */
bool rfx_load(const char *path, struct rfx_fixture *out, char *why, size_t why_cap);
void rfx_free(struct rfx_fixture *fx);
