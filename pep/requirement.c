/*
 * pep/requirement.c — PEP 508 dependency specifiers, parsed as packaging 26
 * does (_parser.py's requirement grammar over _tokenizer.py's tokens).
 */
#include <stdlib.h>
#include <string.h>

#include "core/buf.h"
#include "core/str.h"
#include "core/vec.h"

#include "pep/name.h"
#include "pep/pep508_internal.h"
#include "pep/requirement.h"
#include "pep/version_internal.h"

struct rparser {
  const char *s;
  size_t len;
  size_t p;
  struct ts_error *err;
  size_t spec_start; /* where the version specifier began */
};

static enum ts_code rfail(struct rparser *ps, size_t pos, const char *what) {
  return ts_pep508_error(ps->err, TS_E_PARSE, ps->s, ps->len, pos, what);
}

static void rws(struct rparser *ps) {
  ps->p += ts_pep508_ws(ps->s, ps->len, ps->p);
}

static bool is_alnum(char c) {
  return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') ||
         (c >= 'A' && c <= 'Z');
}

/* IDENTIFIER: \b[a-zA-Z0-9][a-zA-Z0-9._-]*\b (the regex backtracks until
 * the end is a word boundary).  Returns the length, 0 if none. */
static size_t identifier_at(const char *s, size_t len, size_t p) {
  if (p >= len || !is_alnum(s[p]) || !ts_pep508_word_boundary(s, len, p))
    return 0;
  size_t q = p + 1;
  while (q < len && (is_alnum(s[q]) || s[q] == '.' || s[q] == '_' ||
                     s[q] == '-'))
    q++;
  for (; q > p; q--)
    if (ts_pep508_word_boundary(s, len, q))
      return q - p;
  return 0;
}

static size_t uws(const char *s, size_t len, size_t p) {
  size_t w;
  while (p < len && (w = ts_pep_ws_at(s, len, p)) > 0)
    p += w;
  return p;
}

/* packaging's SPECIFIER token (Specifier's regex, matched, not
 * full-matched): the end of the token at p, or p when there is none. */
static size_t specifier_at(const char *s, size_t len, size_t p) {
  size_t n = len - p;
  if (n >= 3 && !memcmp(s + p, "===", 3)) {
    size_t q = uws(s, len, p + 3);
    while (q < len && s[q] != ';' && s[q] != ')' && !ts_pep_ws_at(s, len, q))
      q++;
    return q;
  }
  if (n >= 2 && (!memcmp(s + p, "==", 2) || !memcmp(s + p, "!=", 2))) {
    size_t q = uws(s, len, p + 2);
    size_t e = ts_version_scan(s, len, q, true, true, NULL);
    return e == q ? p : e;
  }
  if (n >= 2 && !memcmp(s + p, "~=", 2)) {
    size_t q = uws(s, len, p + 2), nrel = 0;
    size_t e = ts_version_scan(s, len, q, false, false, &nrel);
    return e == q || nrel < 2 ? p : e;
  }
  if (n >= 1 && (s[p] == '<' || s[p] == '>')) {
    size_t ol = n >= 2 && s[p + 1] == '=' ? 2 : 1;
    size_t q = uws(s, len, p + ol);
    size_t e = ts_version_scan(s, len, q, false, false, NULL);
    return e == q ? p : e;
  }
  return p;
}

/* VERSION_LOCAL_LABEL_TRAIL: \+[a-z0-9]+(?:[-_\.][a-z0-9]+)* */
static bool local_trail_at(const char *s, size_t len, size_t p) {
  return p + 1 < len && s[p] == '+' &&
         ((s[p + 1] >= 'a' && s[p + 1] <= 'z') ||
          (s[p + 1] >= '0' && s[p + 1] <= '9'));
}

static enum ts_code version_many(struct rparser *ps, struct ts_buf *spec) {
  for (;;) {
    size_t start = ps->p;
    size_t e = specifier_at(ps->s, ps->len, ps->p);
    if (e == ps->p)
      return TS_OK;
    ts_buf_xappend(spec, ps->s + ps->p, e - ps->p);
    ps->p = e;
    if (e + 1 < ps->len && ps->s[e] == '.' && ps->s[e + 1] == '*') {
      bool eq = !memcmp(ps->s + start, "==", 2) || !memcmp(ps->s + start, "!=", 2);
      return rfail(ps, e,
                   eq ? ".* suffix cannot be used after pre-release, "
                        "post-release, developmental release, or local "
                        "version labels"
                      : ".* suffix can only be used with == or !=");
    }
    if (local_trail_at(ps->s, ps->len, e))
      return rfail(ps, e, "local version label can only be used with == or !=");
    rws(ps);
    if (ps->p >= ps->len || ps->s[ps->p] != ',')
      return TS_OK;
    ts_buf_xappend(spec, ",", 1);
    ps->p++;
    rws(ps);
  }
}

/* Sorts and drops duplicates of a malloc'd string array; returns count. */
static size_t sort_unique(char **v, size_t n) {
  if (n == 0)
    return 0;
  qsort(v, n, sizeof *v, ts_strv_cmp);
  size_t m = 1;
  for (size_t i = 1; i < n; i++) {
    if (!strcmp(v[i], v[m - 1]))
      free(v[i]);
    else
      v[m++] = v[i];
  }
  return m;
}

void ts_requirement_free(struct ts_requirement *r) {
  if (!r)
    return;
  free(r->name);
  free(r->normalized_name);
  ts_strv_free(r->extras, r->nextras);
  ts_strv_free(r->extras_written, r->nextras_written);
  ts_specset_free(r->specifier);
  free(r->url);
  ts_marker_free(r->marker);
  free(r);
}


/* extras = '[' WS? (IDENTIFIER (WS? ',' WS? IDENTIFIER)*)? WS? ']' */
static enum ts_code parse_extras(struct rparser *ps,
                                 struct ts_requirement *r) {
  if (ps->p >= ps->len || ps->s[ps->p] != '[')
    return TS_OK;
  ps->p++;
  rws(ps);
  size_t cap = 0;
  size_t n = identifier_at(ps->s, ps->len, ps->p);
  while (n > 0) {
    r->extras_written = ts_vec_grow(r->extras_written, &cap, r->nextras_written + 1,
                                    sizeof *r->extras_written);
    r->extras_written[r->nextras_written++] = ts_xstrndup(ps->s + ps->p, n);
    ps->p += n;
    rws(ps);
    if (identifier_at(ps->s, ps->len, ps->p))
      return rfail(ps, ps->p, "expected comma between extra names");
    if (ps->p >= ps->len || ps->s[ps->p] != ',')
      break;
    ps->p++;
    rws(ps);
    n = identifier_at(ps->s, ps->len, ps->p);
    if (n == 0)
      return rfail(ps, ps->p, "expected extra name after comma");
  }
  rws(ps);
  if (ps->p >= ps->len || ps->s[ps->p] != ']')
    return rfail(ps, ps->p, "expected matching ']' for '[', after extras");
  ps->p++;
  return TS_OK;
}

/* requirement_marker = ';' marker WS? */
static enum ts_code parse_req_marker(struct rparser *ps,
                                     struct ts_requirement *r,
                                     const char *expected) {
  if (ps->p >= ps->len || ps->s[ps->p] != ';')
    return rfail(ps, ps->p, expected);
  ps->p++;
  enum ts_code rc =
      ts_marker_parse_at(ps->s, ps->len, &ps->p, &r->marker, ps->err);
  if (rc != TS_OK)
    return rc;
  rws(ps);
  return TS_OK;
}

static enum ts_code parse_details(struct rparser *ps, struct ts_requirement *r,
                                  struct ts_buf *spec) {
  if (ps->p < ps->len && ps->s[ps->p] == '@') {
    ps->p++;
    rws(ps);
    size_t u = ps->p;
    while (u < ps->len && ps->s[u] != ' ' && ps->s[u] != '\t')
      u++;
    if (u == ps->p)
      return rfail(ps, ps->p, "expected URL after @");
    r->url = ts_xstrndup(ps->s + ps->p, u - ps->p);
    ps->p = u;
    if (ps->p == ps->len)
      return TS_OK;
    rws(ps); /* a URL ends at whitespace, so there is some */
    if (ps->p == ps->len)
      return TS_OK;
    return parse_req_marker(ps, r,
                            "expected semicolon (after URL and whitespace) "
                            "or end");
  }
  ps->spec_start = ps->p;
  bool paren = ps->p < ps->len && ps->s[ps->p] == '(';
  if (paren)
    ps->p++;
  rws(ps);
  enum ts_code rc = version_many(ps, spec);
  if (rc != TS_OK)
    return rc;
  rws(ps);
  if (paren) {
    if (ps->p >= ps->len || ps->s[ps->p] != ')')
      return rfail(ps, ps->p,
                   "expected matching ')' for '(', after version specifier");
    ps->p++;
  }
  rws(ps);
  if (ps->p == ps->len)
    return TS_OK;
  return parse_req_marker(
      ps, r,
      spec->len ? "expected comma (within version specifier), semicolon "
                  "(after version specifier) or end"
                : "expected semicolon (after name with no version "
                  "specifier) or end");
}

static void fill_extras(struct ts_requirement *r) {
  r->nextras_written = sort_unique(r->extras_written, r->nextras_written);
  if (r->nextras_written == 0)
    return;
  r->extras = ts_xcalloc(r->nextras_written, sizeof *r->extras);
  for (size_t i = 0; i < r->nextras_written; i++) {
    const char *e = r->extras_written[i];
    r->extras[i] = ts_name_normalize(e, strlen(e));
    r->nextras++;
  }
  r->nextras = sort_unique(r->extras, r->nextras);
}

enum ts_code ts_requirement_parse(const char *s, size_t len,
                                  struct ts_requirement **out,
                                  struct ts_error *err) {
  *out = NULL;
  if (len > TS_REQUIREMENT_MAX_LEN)
    return ts_error_set(err, TS_E_TOO_BIG,
                        "requirement of %zu bytes is longer than the %d-byte "
                        "limit",
                        len, TS_REQUIREMENT_MAX_LEN);
  size_t bad = ts_pep508_check_utf8(s, len);
  if (bad < len)
    return ts_pep508_error(err, TS_E_PARSE, s, len, bad,
                           s[bad] ? "invalid UTF-8" : "NUL byte");
  struct rparser ps = {s, len, 0, err, 0};
  struct ts_requirement *r = ts_xcalloc(1, sizeof *r);
  struct ts_buf spec;
  ts_buf_init(&spec, 0);
  enum ts_code rc;

  rws(&ps);
  size_t n = identifier_at(s, len, ps.p);
  if (n == 0) {
    rc = rfail(&ps, ps.p,
               "expected package name at the start of dependency specifier");
    goto out;
  }
  r->name = ts_xstrndup(s + ps.p, n);
  r->normalized_name = ts_name_normalize(r->name, n);
  ps.p += n;
  rws(&ps);
  if ((rc = parse_extras(&ps, r)) != TS_OK)
    goto out;
  rws(&ps);
  if ((rc = parse_details(&ps, r, &spec)) != TS_OK)
    goto out;
  if (ps.p != len) {
    rc = rfail(&ps, ps.p, "expected end of dependency specifier");
    goto out;
  }
  fill_extras(r);
  rc = ts_specset_parse(spec.data ? spec.data : "", spec.len, &r->specifier,
                        err);
  if (rc != TS_OK) {
    /* e.g. "demo===x,y": the === token swallowed the comma. */
    ts_error_wrap(err, "invalid version specifier at position %zu",
                  ps.spec_start);
    goto out;
  }
out:
  ts_buf_clear(&spec);
  if (rc != TS_OK) {
    ts_requirement_free(r);
    return rc;
  }
  *out = r;
  return TS_OK;
}

static char **dup_strv(char *const *v, size_t n) {
  if (n == 0)
    return NULL;
  char **d = ts_xcalloc(n, sizeof *d);
  for (size_t i = 0; i < n; i++)
    d[i] = ts_xstrdup(v[i]);
  return d;
}

struct ts_requirement *ts_requirement_dup(const struct ts_requirement *r) {
  if (!r)
    return NULL;
  struct ts_requirement *d = ts_xcalloc(1, sizeof *d);
  d->name = ts_xstrdup(r->name);
  d->normalized_name = ts_xstrdup(r->normalized_name);
  d->extras = dup_strv(r->extras, r->nextras);
  d->nextras = d->extras ? r->nextras : 0;
  d->extras_written = dup_strv(r->extras_written, r->nextras_written);
  d->nextras_written = d->extras_written ? r->nextras_written : 0;
  d->specifier = ts_specset_dup(r->specifier);
  d->url = ts_xstrdup(r->url);
  d->marker = r->marker ? ts_marker_dup(r->marker) : NULL;
  if (!d->specifier || (r->marker && !d->marker)) {

    ts_requirement_free(d);
    return NULL;
  }
  return d;
}

char *ts_requirement_str(const struct ts_requirement *r) {
  struct ts_buf b;
  ts_buf_init(&b, 0);
  enum ts_code rc = ts_buf_append_str(&b, r->name);
  for (size_t i = 0; i < r->nextras_written && rc == TS_OK; i++) {
    rc = ts_buf_append_str(&b, i ? "," : "[");
    if (rc == TS_OK)
      rc = ts_buf_append_str(&b, r->extras_written[i]);
    if (rc == TS_OK && i + 1 == r->nextras_written)
      rc = ts_buf_append_str(&b, "]");
  }
  if (rc == TS_OK && ts_specset_count(r->specifier))
    rc = ts_buf_append_str(&b, ts_specset_str(r->specifier));
  if (rc == TS_OK && r->url) {
    rc = ts_buf_printf(&b, " @ %s%s", r->url, r->marker ? " " : "");
  }
  if (rc == TS_OK && r->marker)
    rc = ts_buf_printf(&b, "; %s", ts_marker_str(r->marker));
  if (rc != TS_OK) {
    ts_buf_clear(&b);
    return NULL;
  }
  return ts_buf_take(&b, NULL);
}

bool ts_requirement_equal(const struct ts_requirement *a,
                          const struct ts_requirement *b) {
  if (strcmp(a->normalized_name, b->normalized_name) ||
      a->nextras != b->nextras)
    return false;
  for (size_t i = 0; i < a->nextras; i++)
    if (strcmp(a->extras[i], b->extras[i]))
      return false;
  if (!ts_specset_equal(a->specifier, b->specifier))
    return false;
  if ((a->url == NULL) != (b->url == NULL) ||
      (a->url && strcmp(a->url, b->url)))
    return false;
  if ((a->marker == NULL) != (b->marker == NULL))
    return false;
  return !a->marker || !strcmp(ts_marker_str(a->marker),
                               ts_marker_str(b->marker));
}
