/*
 * pep/name.h — project and extra names: PEP 503 normalisation and the
 * PEP 508 name grammar.
 *
 * Pure: every input is a pointer + length (need not be NUL-terminated and
 * may contain NUL bytes, which simply make a name invalid).
 */
#pragma once

#include <stdbool.h>
#include <stddef.h>

/* PEP 503 normalisation as packaging's canonicalize_name: ASCII letters
 * lowercased, every run of '-', '_' and '.' replaced by one '-'.  Works on
 * any input, valid or not ("_not_legal" -> "-not-legal"); bytes >= 0x80 are
 * copied unchanged.  Returns a malloc'd NUL-terminated string that the
 * caller frees with free(); aborts on OOM. */
char *ts_name_normalize(const char *s, size_t len);

/* Writes the normalised form of s into out (room for len + 1 bytes: the
 * result is never longer than the input) and returns its length.  For
 * callers that want no allocation. */
size_t ts_name_normalize_into(const char *s, size_t len, char *out);

/* PEP 508 name: ^([A-Z0-9]|[A-Z0-9][A-Z0-9._-]*[A-Z0-9])$, ignoring case.
 * The empty string is not a name. */
bool ts_name_is_valid(const char *s, size_t len);

/* True when s is already in normalised form, as packaging's
 * is_normalized_name: ^([a-z0-9]|[a-z0-9]([a-z0-9-](?!--))*[a-z0-9])$. */
bool ts_name_is_normalized(const char *s, size_t len);

/* True when a and b normalise to the same name ("Foo.Bar" == "foo_bar"),
 * without allocating. */
bool ts_name_eq(const char *a, size_t alen, const char *b, size_t blen);

/* The name among candidates[0..n) (normalised) nearest to `name`
 * (normalised) for a "did you mean" hint: the fewest single-character
 * insertions, deletions, substitutions and swaps of neighbours, at most 1
 * for names of 3 or 4 characters and 2 for longer ones (none for shorter);
 * ties go to the name that sorts first, so the answer never depends on the
 * order of the candidates.  NULL when none is that near, or when `name` is
 * itself a candidate.  Returns one of the candidates (borrowed). */
const char *ts_name_nearest(const char *name, const char *const *candidates, size_t n);
