/*
 * pep/specifier.h — PEP 440 version specifiers and specifier sets, with the
 * pre-release semantics of packaging 26.x.
 */
#pragma once

#include <stdbool.h>
#include <stddef.h>

#include "core/error.h"
#include "pep/version.h"

/* Pre-release policy argument, packaging's `prereleases=None|False|True`. */
enum ts_prereleases {
  TS_PRE_DEFAULT = -1, /* None: decided by the specifiers themselves */
  TS_PRE_EXCLUDE = 0,
  TS_PRE_INCLUDE = 1,
};

enum ts_spec_op {
  TS_OP_COMPATIBLE, /* ~= */
  TS_OP_EQ,         /* == (possibly with .* wildcard) */
  TS_OP_NE,         /* != (possibly with .* wildcard) */
  TS_OP_LE,
  TS_OP_GE,
  TS_OP_LT,
  TS_OP_GT,
  TS_OP_ARBITRARY,  /* === */
};

struct ts_specset; /* opaque: zero or more comma-separated specifiers */

/* Longest specifier-set text accepted; longer input fails with TS_E_TOO_BIG. */
#define TS_SPECSET_MAX_LEN 65536

/* Parses "" (matches everything), ">=1.0,<2", "~=2.2", "==1.*", "===foo".
 * Whitespace is allowed around operators and commas. */
enum ts_code ts_specset_parse(const char *s, size_t len,
                              struct ts_specset **out, struct ts_error *err);
void ts_specset_free(struct ts_specset *set);
/* A copy to free on its own.  It shares the parsed specifiers with `set`
 * (counted, not locked: a set and its copies stay on one thread); only
 * the pre-release override (ts_specset_set_prereleases) is each one's. */
struct ts_specset *ts_specset_dup(const struct ts_specset *set);

size_t ts_specset_count(const struct ts_specset *set);
enum ts_spec_op ts_specset_op_at(const struct ts_specset *set, size_t i);
/* The version text of specifier i as written after the operator
 * ("1.0", "1.*"). */
const char *ts_specset_version_at(const struct ts_specset *set, size_t i);
/* Canonical text: specifiers sorted as packaging's str(SpecifierSet),
 * e.g. "<2,>=1.0".  Owned by set. */
const char *ts_specset_str(const struct ts_specset *set);

/* packaging's SpecifierSet.prereleases: true if any specifier names a
 * pre-release (or explicitly set), else false/unknown per packaging. */
bool ts_specset_names_prerelease(const struct ts_specset *set);

/* SpecifierSet.contains(version, prereleases=...). */
bool ts_specset_contains(const struct ts_specset *set,
                         const struct ts_version *v, enum ts_prereleases pre);

/* SpecifierSet.filter(versions, prereleases=...): writes the indexes of the
 * kept versions, in input order, to keep[] (room for n) and returns how
 * many.  Follows packaging 26: with TS_PRE_DEFAULT, pre-releases are kept
 * only if the set names one, or if no final release matches. */
size_t ts_specset_filter(const struct ts_specset *set,
                         const struct ts_version *const *versions, size_t n,
                         enum ts_prereleases pre, size_t *keep);

/* Intersection: a new set holding the specifiers of both (a & b).  Returns
 * NULL when out of memory or when a and b carry opposite explicit
 * pre-release overrides (packaging raises ValueError). */
struct ts_specset *ts_specset_and(const struct ts_specset *a,
                                  const struct ts_specset *b);

/* --- pre-release policy, and items that may not be versions ------------ */

/* The set's own pre-release override, packaging's
 * SpecifierSet(..., prereleases=X); TS_PRE_DEFAULT (the parse default) lets
 * the specifiers decide. */
void ts_specset_set_prereleases(struct ts_specset *set,
                                enum ts_prereleases pre);
enum ts_prereleases ts_specset_get_prereleases(const struct ts_specset *set);

/* contains() for an item that may not be a PEP 440 version.  v is the parsed
 * item or NULL when its text is not a version; text/len is the item as
 * given, used only by `===` (NULL = ts_version_str(v)).  `installed`
 * accepts pre-releases whatever the policy (packaging's installed=True).
 * A non-version matches only `===` (or an empty set). */
bool ts_specset_contains_ex(const struct ts_specset *set,
                            const struct ts_version *v, const char *text,
                            size_t len, enum ts_prereleases pre,
                            bool installed);

/* One input of ts_specset_filter_items: as for ts_specset_contains_ex. */
struct ts_spec_item {
  const struct ts_version *version; /* NULL: not a PEP 440 version */
  const char *text;                 /* NULL: ts_version_str(version) */
  size_t len;
};
size_t ts_specset_filter_items(const struct ts_specset *set,
                               const struct ts_spec_item *items, size_t n,
                               enum ts_prereleases pre, size_t *keep);

/* packaging's SpecifierSet equality: the sets of canonical specifiers
 * ("==2.8.0" equals "==2.8"; order and duplicates do not matter). */
bool ts_specset_equal(const struct ts_specset *a, const struct ts_specset *b);
