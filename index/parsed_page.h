/*
 * index/parsed_page.h — the binary form of a parsed project page.
 *
 * The page cache (cache.h) keeps, beside each page's body, what parsing it
 * gave (a struct ts_index_project), so that a warm run reads the files of
 * a page back without parsing JSON or HTML again, resolving every link
 * and checking every hash.  The form is written into the same cache file
 * as the body, in one atomic write, so it always describes that body.
 *
 * Layout (integers little-endian; a string is a u32 length then its bytes,
 * with 0xffffffff for "none"):
 *   "TSPF" u32 version
 *   string page_url          the URL links were resolved against
 *   string name              the project, normalised
 *   u32 nfiles, then per file:
 *     string filename, url, sha256, requires_python, yanked_reason,
 *            metadata_sha256, upload_time
 *     u8 flags (1: yanked, 2: has_metadata)
 *     i64 size
 * A form is used only when its version, page_url and name are the ones
 * asked for and every length fits; anything else is TS_E_PARSE, and the
 * caller parses the body instead (and stores a new form).
 */
#pragma once

#include <stddef.h>

#include "core/buf.h"
#include "core/error.h"
#include "index/project.h"

/* Bump whenever a page parser (simple.h) changes what it produces for the
 * same page: forms written by other versions are then parsed again. */
#define TS_PARSED_PAGE_VERSION 1u

/* Appends p's form to out.  Only what the parsers fill is kept: a file's
 * index_url and from_find_links (set when projects are merged) are not. */
enum ts_code ts_parsed_page_encode(const struct ts_index_project *p, const char *page_url,
                                   struct ts_buf *out);

/* Fills *out (the caller's, ts_index_project_clear) from a form made for
 * page_url and project `name` (normalised), with out->index_url =
 * page_url as the parsers set it.  TS_E_PARSE when the form is damaged,
 * of another version, or for another page; *out is then left empty. */
enum ts_code ts_parsed_page_decode(const char *data, size_t len, const char *page_url,
                                   const char *name, struct ts_index_project *out);
