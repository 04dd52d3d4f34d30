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

/* Evaluates with `extra` bound to the given name (NULL or "" = no extra).
 * Version operators compare as PEP 440 when both sides parse as versions,
 * else as strings (== / != only; other operators on strings are false),
 * exactly as packaging 26. `extra` comparisons normalise names. */
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
