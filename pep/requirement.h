/*
 * pep/requirement.h — PEP 508 dependency specifiers and environment markers.
 */
#pragma once

#include <stdbool.h>
#include <stddef.h>

#include "core/error.h"
#include "pep/specifier.h"

/* The target environment markers are evaluated against.  All strings are
 * borrowed (the caller keeps them alive); NULL means "unknown", which
 * compares as the empty string. */
struct ts_marker_env {
  const char *implementation_name;            /* "cpython" */
  const char *implementation_version;         /* "3.12.3" */
  const char *os_name;                        /* "posix" */
  const char *platform_machine;               /* "x86_64" */
  const char *platform_python_implementation; /* "CPython" */
  const char *platform_release;
  const char *platform_system;                /* "Linux" */
  const char *platform_version;
  const char *python_full_version;            /* "3.12.3" */
  const char *python_version;                 /* "3.12" */
  const char *sys_platform;                   /* "linux" */
  /* PEP 825, for the Requires-Dist of a variant wheel: its label
   * (variant_label; NULL reads as "") and its properties
   * ("nvidia :: sm_arch :: 90_real"), which variant_properties,
   * variant_features ("nvidia :: sm_arch") and variant_namespaces
   * ("nvidia") test with `in`; none for another wheel. */
  const char *variant_label;
  const char *const *variant_properties;
  size_t nvariant_properties;
};

struct ts_marker; /* opaque parsed marker expression */

/* Parses a marker expression ("python_version >= '3.8' and extra == 'x'").
 * Errors give the 0-based byte position and what was expected:
 * "expected a marker variable at position 17". */
enum ts_code ts_marker_parse(const char *s, size_t len, struct ts_marker **out,
                             struct ts_error *err);
void ts_marker_free(struct ts_marker *m);
struct ts_marker *ts_marker_dup(const struct ts_marker *m);
/* Canonical text as packaging's str(Marker) ('python_version >= "3.8"'). */
const char *ts_marker_str(const struct ts_marker *m);
/* The distinct literals the marker compares `variable` ("sys_platform")
 * with by == or != (either side), in the marker's order: up to cap
 * pointers into m in out; returns how many there are. */
size_t ts_marker_literals(const struct ts_marker *m, const char *variable, const char **out,
                          size_t cap);

/* Evaluates with `extra` bound to the given name (NULL or "" = no extra);
 * an undefined comparison (see ts_marker_evaluate) counts as false.
 * As packaging 26: for python_version, python_full_version,
 * implementation_version and platform_release, `op value` is tried as a
 * PEP 440 specifier (the variable's value must then be a version to match);
 * otherwise values compare as strings: == and !=, <= and >= mean ==, < and
 * > are false, in / not in test substrings, ~= and === are undefined.
 * `extra` comparisons normalise names (PEP 685).
 *
 * Deliberate differences from packaging, all on inputs it mishandles:
 * two literals compare as given (packaging looks the right one up as an
 * environment key); "a and ((b or c))" prints as "a and (b or c)" (packaging
 * drops the parentheses, changing the meaning); a value holding a backslash
 * or line break prints with escapes so the text parses back; \N{...}
 * escapes, escapes producing NUL, and values holding both quote characters
 * are parse errors. */
bool ts_marker_eval(const struct ts_marker *m, const struct ts_marker_env *env,
                    const char *extra);
/* True when the marker mentions the `extra` variable anywhere. */
bool ts_marker_uses_extra(const struct ts_marker *m);

struct ts_requirement {
  char *name;                 /* as written */
  char *normalized_name;      /* PEP 503 */
  char **extras;              /* normalised, sorted, unique; nextras long */
  size_t nextras;
  struct ts_specset *specifier; /* never NULL; empty set when none */
  char *url;                  /* "name @ url" form, else NULL */
  struct ts_marker *marker;   /* NULL when none */
  /* Added: the extras as written (sorted, unique), which packaging's
   * str(Requirement) prints; nextras_written long. */
  char **extras_written;
  size_t nextras_written;
};

/* Parses one PEP 508 string (also the legacy "name (>=1.0)" form found in
 * old metadata).  Errors name the position and what was expected. */
enum ts_code ts_requirement_parse(const char *s, size_t len,
                                  struct ts_requirement **out,
                                  struct ts_error *err);
void ts_requirement_free(struct ts_requirement *r);
struct ts_requirement *ts_requirement_dup(const struct ts_requirement *r);
/* Canonical text as packaging's str(Requirement).  malloc'd. */
char *ts_requirement_str(const struct ts_requirement *r);

/* --- input caps, equality, markers evaluated in a context -------------- */

/* Caps on hostile input: longer text fails with TS_E_TOO_BIG, and so do
 * parentheses nested deeper than TS_MARKER_MAX_DEPTH (the parser is
 * recursive; packaging itself fails with RecursionError near 330). */
#define TS_REQUIREMENT_MAX_LEN 65536
#define TS_MARKER_MAX_DEPTH 100

/* packaging's Requirement equality: normalised names and extras, equal
 * specifier sets, same URL, same marker text. */
bool ts_requirement_equal(const struct ts_requirement *a,
                          const struct ts_requirement *b);

/* Where a marker is evaluated, as packaging's `context` argument. */
enum ts_marker_context {
  TS_MARKER_METADATA,    /* core metadata: `extra` defaults to "" */
  TS_MARKER_REQUIREMENT, /* elsewhere: `extra` is undefined unless given */
  TS_MARKER_LOCK_FILE,   /* pylock.toml: `extras`, `dependency_groups`
                            default to empty sets */
};

struct ts_marker_eval_opts {
  enum ts_marker_context context;
  const char *extra; /* NULL: "" (metadata) or undefined (other contexts) */
  /* Set-valued names (PEP 751).  NULL = undefined, except in the lock-file
   * context where it means the empty set. */
  const char *const *extras;
  size_t nextras;
  const char *const *dependency_groups;
  size_t ngroups;
};

/* Evaluates m.  On success stores the answer in *result and returns TS_OK;
 * comparisons packaging rejects (`~=`/`===` on non-version values, a set on
 * the left, ...) return TS_E_INVALID with "undefined comparison ..." and a
 * name with no value returns TS_E_INVALID with "undefined environment name
 * ...".  Like packaging, every comparison is evaluated (no short-circuit),
 * so errors do not depend on the other operands. opts may be NULL
 * (metadata context, no extra). */
enum ts_code ts_marker_evaluate(const struct ts_marker *m,
                                const struct ts_marker_env *env,
                                const struct ts_marker_eval_opts *opts,
                                bool *result, struct ts_error *err);

/* m with every comparison on PEP 751's `extras` and `dependency_groups`
 * decided for the sets of opts (lock-file context: NULL is the empty set)
 * and the rest left for the environment: *holds false when m holds in no
 * environment; else true with *rest the marker still to evaluate
 * (malloc'd, it parses back), or NULL when m holds in every one.  For
 * `export`: a requirements file has no extras or groups to evaluate.
 *   "sys_platform == 'linux' and 'x' in extras", extras {x}
 *       -> sys_platform == "linux"
 * Errors as ts_marker_evaluate for a set comparison packaging rejects. */
enum ts_code ts_marker_decide_sets(const struct ts_marker *m,
                                   const struct ts_marker_eval_opts *opts, bool *holds,
                                   char **rest, struct ts_error *err);
