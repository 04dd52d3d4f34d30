/*
 * pep/filename.h — distribution file names: wheels (PEP 427 / binary
 * distribution format, with compressed tag sets and build tags) and sdists
 * (name-version.tar.gz / .zip).
 *
 * Matches packaging.utils.parse_wheel_filename / parse_sdist_filename of
 * packaging 26, plus two refusals of our own:
 *  - PEP 825 variant wheels (name-ver(-build)?-py-abi-plat-<label>.whl,
 *    label [0-9a-z_.]{1,8}) are recognised and refused with
 *    TS_E_UNSUPPORTED, so that a variant is never mistaken for a plain
 *    wheel with a build tag;
 *  - control characters and spaces anywhere in a name are refused.
 *
 * Pure: inputs are pointer + length, never assumed NUL-terminated.
 */
#pragma once

#include <stdbool.h>
#include <stddef.h>

#include "core/error.h"
#include "pep/tags.h"
#include "pep/version.h"

/* Longest file name we accept (ext4 allows 255 bytes). */
#define TS_FILENAME_MAX 1024
/* PEP 825 variant labels are at most this long. */
#define TS_VARIANT_LABEL_MAX 8

/* The strings and tags live in the struct's own allocation (read them,
 * never free them); only `version` may be taken (set it to NULL). */
struct ts_wheel_filename {
  char *name;            /* as in the file name ("some_PACKAGE") */
  char *normalized_name; /* PEP 503 ("some-package") */
  struct ts_version *version;
  /* Build tag: NULL when absent.  build_number is its leading digits
   * (saturating at ULLONG_MAX; build_digits keeps them exact, without
   * leading zeros, for comparison) and build_suffix the rest ("abc"). */
  char *build;
  unsigned long long build_number;
  char *build_digits;
  char *build_suffix;
  /* The compressed sets as written, lowercased ("py2.py3", "none", ...). */
  char *python_tags;
  char *abi_tags;
  char *platform_tags;
  /* Expanded triples in file-name order (python, then abi, then platform
   * vary slowest to fastest); duplicates removed. */
  struct ts_tag *tags;
  size_t ntags;
};

/* Parses a wheel file name (the last path component only; a '/' is an
 * error).  TS_E_PARSE with a detail naming the bad part, TS_E_UNSUPPORTED
 * for a PEP 825 variant wheel.  Caller frees with ts_wheel_filename_free. */
enum ts_code ts_wheel_filename_parse(const char *s, size_t len,
                                     struct ts_wheel_filename **out,
                                     struct ts_error *err);
/* The same, given `hint`, a version parsed earlier (NULL: none): when the
 * name's version field is the hint's original text, the version is a copy
 * of the hint instead of a parse of its own (the wheels of one release, a
 * dozen for torch, are read one after another). */
enum ts_code ts_wheel_filename_parse_hinted(const char *s, size_t len,
                                            const struct ts_version *hint,
                                            struct ts_wheel_filename **out,
                                            struct ts_error *err);
void ts_wheel_filename_free(struct ts_wheel_filename *w);

/* Orders build tags as pip does: no build tag sorts first, then by number,
 * then by suffix (string order).  <0, 0, >0. */
int ts_wheel_build_cmp(const struct ts_wheel_filename *a,
                       const struct ts_wheel_filename *b);

/* True when the file name looks like a PEP 825 variant wheel; *label gets
 * the label's offset and length within s. */
bool ts_wheel_filename_is_variant(const char *s, size_t len,
                                  size_t *label_off, size_t *label_len);

struct ts_sdist_filename {
  char *name;            /* as in the file name */
  char *normalized_name;
  struct ts_version *version;
  const char *extension; /* static: ".tar.gz" or ".zip" */
};

/* Parses "name-version.tar.gz" or "name-version.zip" (split at the last
 * '-', as packaging does).  Caller frees with ts_sdist_filename_free. */
enum ts_code ts_sdist_filename_parse(const char *s, size_t len,
                                     struct ts_sdist_filename **out,
                                     struct ts_error *err);
void ts_sdist_filename_free(struct ts_sdist_filename *sd);

enum ts_dist_kind {
  TS_DIST_UNKNOWN = 0,
  TS_DIST_WHEEL,
  TS_DIST_SDIST,
};
/* Classifies a file name by extension only (".whl"; ".tar.gz"/".zip"). */
enum ts_dist_kind ts_dist_kind_of(const char *s, size_t len);
/* The same for a path or URL a user names (query and fragment already
 * cut), by pip's ARCHIVE_EXTENSIONS, case-insensitive: ".whl" a wheel;
 * ".zip", ".tar.gz", ".tgz", ".tar.bz2", ".tbz", ".tar.xz", ".txz",
 * ".tlz", ".tar.lz", ".tar.lzma" and ".tar" a source archive (what
 * Python's tarfile and zipfile open). */
enum ts_dist_kind ts_archive_kind_of(const char *s, size_t len);
