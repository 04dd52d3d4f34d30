/*
 * rules/constraint.h — the compiled form of rules.yaml that the resolver
 * encodes into libsolv: host facts and package constraints.  rules/ produces
 * these (from rules.yaml + the host); resolver/ consumes them; tests build
 * them by hand.  This header is data only.
 *
 * Host facts become solvables of the installed repo, each locked in place
 * (libsolv may otherwise drop unreferenced solvables and silently void
 * rules): "__cuda_driver" = "580.159.4", "__cuda" = "13.0", "__rocm" =
 * "6.2.0", "__gfx1100" (no version), "__glibc" = "2.36", "__python" =
 * "3.12.3", "__cc_9.0" (a GPU of that compute capability).
 */
#pragma once

#include <stddef.h>

#include "pep/specifier.h"

struct ts_host_fact {
  char *name;     /* "__rocm", "__gfx1100" */
  char *version;  /* PEP 440 version text, or NULL for a presence-only fact */
  char *source;   /* where it was read ("/opt/rocm/.info/version", "--rocm") */
};

/* A term: a package (or host fact, name starting "__") whose version is in
 * `spec`, and, for packages, whose local version label matches
 * `local_pattern` (fnmatch-style; NULL = any, "" = no local label). */
struct ts_term {
  char *name;                  /* normalised project name or "__fact" */
  struct ts_specset *spec;     /* NULL = any version */
  char *local_pattern;         /* "rocm6.*", "cu12*", NULL */
};

enum ts_constraint_kind {
  /* Every candidate matching `subject` requires at least one of `terms`
   * (an OR), but only when every fact of `when` holds on the host. */
  TS_CONSTRAINT_REQUIRES,
  /* No candidate matching `subject` may be installed together with any
   * candidate matching one of `terms` (also evaluated under `when`). */
  TS_CONSTRAINT_CONFLICTS,
};

struct ts_constraint {
  char *id;              /* rule id, e.g. "hipblaslt-gfx1100" */
  char *message;         /* plain-words explanation from rules.yaml */
  char *fix;             /* suggested fix, or NULL */
  char *source;          /* URL of the fact */
  enum ts_constraint_kind kind;
  struct ts_term subject;
  struct ts_term *terms;
  size_t nterms;
  struct ts_term *when;  /* host-fact conditions (AND); may be empty */
  size_t nwhen;
  char *confidence;      /* NULL (read from the source), "medium" or "low" */
};

/* A variant the host may (or may not) use, in preference order. */
struct ts_backend_choice {
  char *name;      /* "cu130": the index path and the local version label */
  char *kind;      /* "cuda", "rocm", "xpu" or "cpu" */
  char *index_url; /* "https://download.pytorch.org/whl/cu130/" */
  int usable;      /* 1: may be used on this host; 0: excluded */
  char *reason;    /* why excluded (or a caveat when usable), or NULL */
  char *rule_id;   /* the constraint that excludes it, or NULL */
};

/* A torch build no rules file lists (a release newer than every one the
 * rules know, or a variant its release does not list): its gates carry the
 * facts of the build named in `assumed`, with confidence low. */
struct ts_assumed_build {
  struct ts_term subject; /* torch, its versions and local label ("" = PyPI's) */
  char *why;              /* "is newer than these rules (2.14)" */
  char *assumed;          /* "the kernels of 2.14.0+cu130" */
};

struct ts_constraint_set {
  struct ts_host_fact *facts;
  size_t nfacts;
  struct ts_constraint *constraints;
  size_t nconstraints;
  /* Added by rules/ (zero when built by hand): the backend list for
   * `release` (usable ones first, best first; then the excluded ones), the
   * projects served only from the PyTorch indexes (normalised names), and
   * the base URL of those indexes. */
  char *release;
  struct ts_backend_choice *backends;
  size_t nbackends;
  char **routed;
  size_t nrouted;
  char *index_base;
  struct ts_assumed_build *assumed;
  size_t nassumed;
  /* detect --release newer than the rules: how its list was judged */
  char *release_assumed;
};

/* Frees everything owned by the set (not the set struct itself). */
void ts_constraint_set_clear(struct ts_constraint_set *set);
