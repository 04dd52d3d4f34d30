/*
 * index/url.h — URL helpers for the index client: redaction of credentials
 * (every URL in a message goes through ts_url_redact, every URL written as
 * data through ts_url_without_userinfo; one parser of the authority),
 * resolution of relative links against a page URL, fragments and file://
 * paths.  Project names are normalised by pep/name.h (PEP 503).
 */
#pragma once

#include <stdbool.h>
#include <stddef.h>

#include "core/error.h"

/* Copies url into out (size n, always NUL-terminated, truncated if needed)
 * with any userinfo ("user:pass@") replaced by "***@".  Safe for any input. */
void ts_url_redact_buf(const char *url, char *out, size_t n);
/* Same, malloc'd; caller frees.  Aborts on OOM like ts_path_join. */
char *ts_url_redact(const char *url);
/* The URL with "user[:password]@" removed altogether, for what is written
 * as data rather than shown (lock files, pip's report, the dry-run plan):
 * the URL still works where the credentials come from elsewhere (netrc,
 * keyring), and no placeholder poses as a user name.  malloc'd. */
char *ts_url_without_userinfo(const char *url);
#define TS_URL_MESSAGE_MAX 100 /* bytes of a link a message quotes */
/* A link taken from a page, fit for a one-line message: ref[0..n) clipped
 * to TS_URL_MESSAGE_MAX bytes, userinfo redacted, control characters (C0, DEL, C1 in
 * UTF-8) shown as '?', so a hostile page can neither leak the credentials
 * of an absolute link nor send escape sequences to the terminal. */
void ts_url_for_message(const char *ref, size_t n, char *out, size_t outn);

/* Resolves ref[0..reflen) (absolute or relative, e.g. "../../files/x.whl")
 * against the absolute base URL; the fragment of ref, if any, is dropped
 * (see ts_url_fragment).  *out is malloc'd, caller frees.  TS_E_PARSE with
 * the redacted base when ref is not a valid URL reference. */
enum ts_code ts_url_resolve(const char *base, const char *ref, size_t reflen,
                            char **out, struct ts_error *err);

/* A base URL looked at once for the many links of one page
 * (ts_url_resolve_at); it borrows url, which must outlive it. */
struct ts_url_base {
  const char *url;
  size_t authority_end; /* where "scheme://host[:port]" ends; 0: no fast path */
  size_t dir_end;       /* after the path's last '/'; 0: none for relative links */
};
void ts_url_base_init(struct ts_url_base *b, const char *url);
/* ts_url_resolve against a prepared base: the same answers. */
enum ts_code ts_url_resolve_at(const struct ts_url_base *b, const char *ref, size_t reflen,
                               char **out, struct ts_error *err);

/* Points *frag and *fraglen at the fragment of ref[0..reflen) (after '#'),
 * or returns false when there is none. */
bool ts_url_fragment(const char *ref, size_t reflen, const char **frag,
                     size_t *fraglen);

/* url with the bytes that no URL may hold literally (space, controls,
 * '"', '<', '>', '\\', '^', '`', '{', '|', '}', non-ASCII) percent-encoded,
 * as pip cleans a link: "file:///srv/in dex" -> "file:///srv/in%20dex".
 * malloc'd. */
char *ts_url_escape(const char *url);

/* Last path component of url, percent-decoded, without query/fragment;
 * malloc'd, caller frees.  NULL when it is empty. */
char *ts_url_basename(const char *url);

/* For "file://" URLs: the local path (percent-decoded), malloc'd, caller
 * frees.  NULL for any other scheme or a non-local host. */
char *ts_url_file_path(const char *url);

/* Whether url uses http or https (the only schemes fetched over the
 * network). */
bool ts_url_is_http(const char *url);
/* Whether url carries "user[:password]@" in its authority. */
bool ts_url_has_userinfo(const char *url);

/* "http://h/simple" + "torch" → "http://h/simple/torch/"; malloc'd. */
char *ts_url_project_page(const char *index_url, const char *project);

