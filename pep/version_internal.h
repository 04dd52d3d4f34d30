/*
 * pep/version_internal.h — private helpers shared by version.c,
 * specifier.c, requirement.c and marker.c.  Not part of any public contract.
 */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "pep/version.h"

/* One number of a version: significant digits (no leading zeros) live in the
 * version's canonical string at `off`; `len` == 0 means zero.  `v` is exact
 * when len <= 19, else saturated and ordering falls back to the digits. */
struct ts_vnum {
  uint64_t v;
  uint32_t off;
  uint32_t len;
};

/* Python's str.isspace() (what `\s` matches in packaging's regexes): byte
 * length of the whitespace character starting at s[i] / ending at s[end-1],
 * 0 when there is none. */
size_t ts_pep_ws_at(const char *s, size_t len, size_t i);
size_t ts_pep_ws_before(const char *s, size_t end);
/* Trims Unicode whitespace from both ends of [*b, *e). */
void ts_pep_trim(const char *s, size_t *b, size_t *e);

/* Writes a printable, quoted-safe excerpt of s (non-printables as \xNN,
 * truncated with "...") into out (size outsz, always NUL-terminated). */
void ts_pep_excerpt(const char *s, size_t len, char *out, size_t outsz);

/* Exact comparison of two numbers of two versions. */
int ts_vnum_cmp(const struct ts_version *a, const struct ts_vnum *x,
                const struct ts_version *b, const struct ts_vnum *y);

/* Release segment access for prefix matching (`==1.2.*`, `~=`). */
const struct ts_vnum *ts_version_release_nums(const struct ts_version *v,
                                              size_t *n);
/* Compares release component i of a with component j of b (missing = 0). */
int ts_version_release_cmp_at(const struct ts_version *a, size_t i,
                              const struct ts_version *b, size_t j);

bool ts_version_has_local(const struct ts_version *v);
bool ts_version_has_pre(const struct ts_version *v);

/* Compares a and b ignoring the local label of a (packaging strips the
 * candidate's local segment for ordered comparisons). */
int ts_version_cmp_public(const struct ts_version *a,
                          const struct ts_version *b);

/* ASCII case-insensitive equality of two slices. */
bool ts_pep_ieq(const char *a, size_t alen, const char *b, size_t blen);

/* Pieces of packaging's range checks (see specifier.c). */
int ts_version_epoch_cmp(const struct ts_version *a, const struct ts_version *b);
/* The first k release numbers of v (missing ones are 0) equal the first k
 * of s. */
bool ts_version_release_prefix_eq(const struct ts_version *v,
                                  const struct ts_version *s, size_t k);
/* Same release once trailing zeros are ignored ("1.0" vs "1"). */
bool ts_version_same_release(const struct ts_version *a,
                             const struct ts_version *b);
/* Same pre-release segment (both none, or same letter and number). */
bool ts_version_same_pre(const struct ts_version *a,
                         const struct ts_version *b);

/* Longest prefix of s[p, len) that packaging's version grammar matches
 * (as its specifier regex does inside requirements): returns its end, or p
 * when there is no release number.  With allow_wildcard, a release followed
 * by ".*" ends there.  *nrel (if non-NULL) gets the release count. */
size_t ts_version_scan(const char *s, size_t len, size_t p, bool allow_local,
                       bool allow_wildcard, size_t *nrel);
