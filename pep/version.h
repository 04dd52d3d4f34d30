/*
 * pep/version.h — PEP 440 versions: parse, normalise, compare.
 *
 * Pure: no I/O, every input a pointer + length (not NUL-terminated).
 * Numbers of any length are exact (release segments like 2**80 compare
 * correctly): digits are compared as strings without leading zeros.
 */
#pragma once

#include <stdbool.h>
#include <stddef.h>

#include "core/error.h"

struct ts_version; /* opaque; owns a copy of everything it needs */

/* Longest version text accepted (bytes, before trimming); longer input fails
 * with TS_E_TOO_BIG.  Real versions are < 100 bytes; the cap bounds work and
 * memory for hostile metadata. */
#define TS_VERSION_MAX_LEN 4096

/* Parses a version.  Leading/trailing whitespace (ASCII and Unicode, as
 * packaging) is ignored.  On failure returns TS_E_PARSE and sets *out = NULL
 * and err->detail to e.g. "invalid version '1.0+': empty local label".
 * Text longer than TS_VERSION_MAX_LEN fails with TS_E_TOO_BIG.  A NUL byte
 * inside [s, s+len) is an error, not a terminator. */
enum ts_code ts_version_parse(const char *s, size_t len,
                              struct ts_version **out, struct ts_error *err);
void ts_version_free(struct ts_version *v);
struct ts_version *ts_version_dup(const struct ts_version *v);

/* Total PEP 440 order: <0, 0, >0.  Equal versions may differ in spelling
 * ("1.0c1" == "1.0rc1", "1.0" == "1.0.0"). */
int ts_version_cmp(const struct ts_version *a, const struct ts_version *b);

/* Canonical string ("1.0rc1", "1!2.0.post1.dev3+abc.5"); owned by v, valid
 * until ts_version_free. */
const char *ts_version_str(const struct ts_version *v);
/* The text as given (trimmed); used by `===`. */
const char *ts_version_original(const struct ts_version *v);
/* Public part without local label; base version (epoch + release). */
const char *ts_version_public(const struct ts_version *v);
const char *ts_version_base(const struct ts_version *v);
/* Local label ("cu126", "gitd38164a", "rocm6.2") or NULL. */
const char *ts_version_local(const struct ts_version *v);
/* Whether a local label matches a rules pattern, an fnmatch glob ("cu12*",
 * "rocm6.[34]") or, without metacharacters, the label itself.  Labels are
 * matched against many patterns in a run, so a literal first character
 * that is not the label's ends the question before any other work. */
bool ts_local_label_matches(const char *pattern, const char *label);

bool ts_version_is_prerelease(const struct ts_version *v); /* pre or dev */
bool ts_version_is_devrelease(const struct ts_version *v);
bool ts_version_is_postrelease(const struct ts_version *v);

/* Accessors for tests and the rank encoding. Values that overflow uint64
 * saturate to UINT64_MAX (ordering still uses exact digits). */
unsigned long long ts_version_epoch(const struct ts_version *v);
size_t ts_version_release_count(const struct ts_version *v);
unsigned long long ts_version_release_at(const struct ts_version *v, size_t i);
/* pre: kind 'a', 'b' or 'r' (rc) and number; returns false if none. */
bool ts_version_pre(const struct ts_version *v, char *kind,
                    unsigned long long *num);
bool ts_version_post(const struct ts_version *v, unsigned long long *num);
bool ts_version_dev(const struct ts_version *v, unsigned long long *num);

/* packaging.utils.canonicalize_version of a parsed version: normalised
 * string, trailing ".0" release parts stripped when strip_trailing_zero;
 * malloc'd. */
char *ts_version_canonical(const struct ts_version *v, bool strip_trailing_zero);
/* The same from text; returns malloc'd copy of the input unchanged when it
 * is not a valid version. */
char *ts_version_canonicalize(const char *s, size_t len,
                              bool strip_trailing_zero);
