/*
 * index/simple.h — parsers for the Simple repository API: PEP 691 JSON and
 * PEP 503 HTML project pages (with PEP 592 yanking, PEP 658/714 metadata
 * attributes, PEP 700 size and upload time), flat --find-links pages and
 * local directories.  Pure: no network, no printing.
 *
 * Input is a (ptr,len) slice that need not be NUL-terminated; page_url is
 * the URL the page was finally read from (after redirects), against which
 * relative links are resolved.  On success *out is filled and owned by the
 * caller (ts_index_project_clear); on failure *out is left empty and err
 * names the redacted page URL.
 *
 * The page cache stores what these parsers give (parsed_page.h): a change
 * to what any of them produces for the same page must bump
 * TS_PARSED_PAGE_VERSION, or warm runs keep the old answer.
 */
#pragma once

#include <stddef.h>

#include "core/error.h"
#include "index/project.h"

/* PEP 691 JSON ("application/vnd.pypi.simple.v1+json").  `name` is the
 * project asked for (normalised into out->name).  Rejects pages whose
 * meta.api-version major is not 1, and malformed JSON, with TS_E_PARSE. */
enum ts_code ts_index_parse_json(const char *data, size_t len,
                                 const char *page_url, const char *name,
                                 struct ts_index_project *out,
                                 struct ts_error *err);

/* PEP 503 HTML.  A small tolerant tokenizer of <a> (and <base>) tags: any
 * attribute order or quoting, entity unescaping, comments skipped.  An
 * anchor whose href is not a valid URL reference, or whose #sha256=
 * fragment is not 64 hex digits, fails the page with TS_E_PARSE. */
enum ts_code ts_index_parse_html(const char *data, size_t len,
                                 const char *page_url, const char *name,
                                 struct ts_index_project *out,
                                 struct ts_error *err);

/* The project names an index's root page lists, normalised (PEP 503):
 * PEP 691 JSON's projects[].name when json, else the text of each <a> of
 * PEP 503 HTML.  *names (n of them) is the caller's: free each and the
 * array.  TS_E_PARSE when JSON is not a PEP 691 project list. */
enum ts_code ts_index_parse_project_list(const char *data, size_t len, bool json,
                                         char ***names, size_t *n, struct ts_error *err);

/* A flat --find-links page: like parse_html, but only files whose name
 * belongs to project `name` are kept (wheel or sdist name prefix). */
enum ts_code ts_index_parse_flat(const char *data, size_t len,
                                 const char *page_url, const char *name,
                                 struct ts_index_project *out,
                                 struct ts_error *err);

/* A local directory used as --find-links: its files of project `name`,
 * with file:// URLs.  Hashes are not computed here (NULL). */
enum ts_code ts_index_scan_dir(const char *dir, const char *name,
                               struct ts_index_project *out,
                               struct ts_error *err);

/* Whether filename is a distribution of project `name` (normalised): a
 * wheel "<name>-<ver>-...whl" or an sdist "<name>-<ver>.tar.gz|.zip". */
int ts_index_filename_matches(const char *filename, const char *name);

/* Decodes HTML character references in s[0..n) (named: amp lt gt quot apos
 * nbsp; numeric &#N; &#xH;).  Unknown references are kept verbatim.
 * malloc'd result, caller frees. */
char *ts_index_html_unescape(const char *s, size_t n);

/* Appends a copy of *f (deep) to p->files. */
void ts_index_project_add_file(struct ts_index_project *p, const struct ts_index_file *f);
/* Moves *f into p->files (no copy) and leaves *f empty. */
void ts_index_project_take_file(struct ts_index_project *p, struct ts_index_file *f);

/* Frees the members of one file (not the struct itself). */
void ts_index_file_clear(struct ts_index_file *f);
