/*
 * pep/metadata.h — core metadata (METADATA / PKG-INFO, versions 1.0 to 2.x):
 * RFC 822-style headers, continuation lines, and the body.
 *
 * Follows what packaging.metadata.parse_email reads through the email
 * package (compat32): headers up to the first empty line, names compared
 * case-insensitively, a line starting with a space or tab continues the
 * previous header, the rest of the file is the description body.  Lines
 * end with "\n" or "\r\n".
 *
 * Every header is kept in order in a generic multi-map (`fields`, values as
 * written, continuation lines joined with "\n"); the fields the installer
 * needs are also extracted, unfolded (a line break plus the continuation's
 * leading blanks becomes one space) and trimmed.
 *
 * Pure: input is pointer + length; NUL bytes in the header block are an
 * error; the body may hold anything.  Inputs above TS_CAP_METADATA are
 * refused with TS_E_TOO_BIG.
 */
#pragma once

#include <stdbool.h>
#include <stddef.h>

#include "core/error.h"
#include "pep/version.h"

struct ts_metadata_field {
  char *name;  /* as written ("Requires-Dist") */
  char *value; /* raw: leading blanks removed, continuations kept */
};

struct ts_metadata {
  char *metadata_version;    /* "2.1" */
  char *name;                /* as written */
  char *normalized_name;     /* PEP 503 */
  struct ts_version *version; /* NULL only with legacy_version */
  /* ts_metadata_parse_installed only: a Version that is not PEP 440
   * ("2010i", from old tools), as written. */
  char *legacy_version;
  char *summary;             /* NULL when absent, as the next ones */
  char *requires_python;     /* specifier text, e.g. ">=3.9" */
  char *license_expression;  /* SPDX (2.4) */
  char *description_content_type;
  /* The body, else the Description header with its "        |" or
   * 8-space continuation prefixes removed (metadata 1.x style). */
  char *description;
  char **requires_dist;      /* PEP 508 strings, in order */
  size_t nrequires_dist;
  char **provides_extra;     /* as written */
  size_t nprovides_extra;
  char **dynamic;            /* field names (2.2+) */
  size_t ndynamic;
  struct ts_metadata_field *fields; /* every header, in file order */
  size_t nfields;
};

/* Parses a METADATA file.  Name (a valid PEP 508 name), Version (PEP 440)
 * and Metadata-Version (major 1 or 2) are required; Dynamic may not name
 * them.  Errors (TS_E_PARSE, TS_E_TOO_BIG, TS_E_UNSUPPORTED for metadata
 * 3.x) name the line.  Caller frees with ts_metadata_free. */
enum ts_code ts_metadata_parse(const char *data, size_t len,
                               struct ts_metadata **out, struct ts_error *err);
void ts_metadata_free(struct ts_metadata *md);

/* As ts_metadata_parse, for a distribution already installed: a Version
 * that is not PEP 440 is kept in legacy_version (version NULL), as pip
 * lists, shows, freezes and uninstalls such a distribution. */
enum ts_code ts_metadata_parse_installed(const char *data, size_t len,
                                         struct ts_metadata **out, struct ts_error *err);

/* The first value of one header field ("Name", "Version"), case-insensitive,
 * without a full parse: the header block only, value trimmed.  malloc'd;
 * NULL when the field is absent.  For reading an installed set quickly. */
char *ts_metadata_header_value(const char *data, size_t len, const char *field);

/* First value of a header (case-insensitive name), raw, or NULL. */
const char *ts_metadata_get(const struct ts_metadata *md, const char *name);
/* Number of headers with that name; fills out[0..cap) with their raw
 * values (borrowed from md). */
size_t ts_metadata_get_all(const struct ts_metadata *md, const char *name,
                           const char **out, size_t cap);
/* True when the extra is declared by Provides-Extra (names compared
 * normalised, as packaging does). */
bool ts_metadata_has_extra(const struct ts_metadata *md, const char *extra);
