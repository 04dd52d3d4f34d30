#include "index/url.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "core/buf.h"
#include "core/str.h"
#include "core/text.h"
#include "index/curl_lib.h"

/* Returns the span of userinfo-including-'@' in url, or 0 when none. */
static size_t userinfo_span(const char *url, size_t *start) {
  const char *sep = strstr(url, "://");
  if (!sep)
    return 0;
  const char *auth = sep + 3;
  size_t alen = strcspn(auth, "/?#");
  const char *at = NULL;
  for (size_t i = 0; i < alen; i++)
    if (auth[i] == '@')
      at = auth + i;
  if (!at)
    return 0;
  *start = (size_t)(auth - url);
  return (size_t)(at - auth) + 1;
}

bool ts_url_has_userinfo(const char *url) {
  size_t start = 0;
  return userinfo_span(url, &start) != 0;
}

char *ts_url_without_userinfo(const char *url) {
  size_t start = 0, span = userinfo_span(url, &start);
  if (!span)
    return ts_xstrdup(url);
  return ts_xasprintf("%.*s%s", (int)start, url, url + start + span);
}

void ts_url_redact_buf(const char *url, char *out, size_t n) {
  if (!n)
    return;
  if (!url) {
    out[0] = '\0';
    return;
  }
  size_t start = 0, span = userinfo_span(url, &start);
  struct ts_buf b;
  ts_buf_init(&b, 0);
  enum ts_code c = TS_OK;
  if (span) {
    c = ts_buf_append(&b, url, start);
    if (!c)
      c = ts_buf_append_str(&b, "***@");
    if (!c)
      c = ts_buf_append_str(&b, url + start + span);
  } else {
    c = ts_buf_append_str(&b, url);
  }
  if (c || !b.data) {
    snprintf(out, n, "%s", "<url>");
  } else {
    snprintf(out, n, "%s", b.data);
  }
  ts_buf_clear(&b);
}

char *ts_url_redact(const char *url) {
  size_t n = (url ? strlen(url) : 0) + 8;
  char *out = ts_xmalloc(n);
  ts_url_redact_buf(url, out, n);
  return out;
}

void ts_url_for_message(const char *ref, size_t n, char *out, size_t outn) {
  char clip[TS_URL_MESSAGE_MAX + 1];
  if (n > TS_URL_MESSAGE_MAX)
    n = TS_URL_MESSAGE_MAX;
  memcpy(clip, ref, n);
  clip[n] = '\0';
  for (unsigned char *p = (unsigned char *)clip; *p; p++) {
    if (*p < 0x20 || *p == 0x7f)
      *p = '?';
    else if (*p == 0xc2 && p[1] >= 0x80 && p[1] <= 0x9f)
      p[0] = p[1] = '?';
  }
  ts_url_redact_buf(clip, out, outn);
}

bool ts_url_fragment(const char *ref, size_t reflen, const char **frag,
                     size_t *fraglen) {
  const char *h = memchr(ref, '#', reflen);
  if (!h)
    return false;
  *frag = h + 1;
  *fraglen = reflen - (size_t)(h + 1 - ref);
  return true;
}

static bool has_scheme(const char *s, size_t n) {
  /* RFC 3986: ALPHA *( ALPHA / DIGIT / "+" / "-" / "." ) ":" */
  if (!n || !((s[0] | 0x20) >= 'a' && (s[0] | 0x20) <= 'z'))
    return false;
  for (size_t i = 1; i < n; i++) {
    char c = s[i];
    if (c == ':')
      return true;
    if (!((c | 0x20) >= 'a' && (c | 0x20) <= 'z') && !(c >= '0' && c <= '9') &&
        c != '+' && c != '-' && c != '.')
      return false;
  }
  return false;
}

/* Characters a URL may carry verbatim; anything else goes to libcurl,
 * which encodes or rejects it. */
static bool plain_url_char(unsigned char c) {
  /* one bit per byte: a table, as every byte of every link on a page
   * passes here */
  static const uint32_t plain[8] = {
      0,
      0xffffffffu & ~(1u << ('"' - 32)) & ~(1u << ('<' - 32)) & ~(1u << ('>' - 32)) &
          ~(1u << 0 /* space */),
      0xffffffffu & ~(1u << ('\\' - 64)) & ~(1u << ('^' - 64)),
      0x7fffffffu & ~(1u << ('`' - 96)) & ~(1u << ('{' - 96)) & ~(1u << ('|' - 96)) &
          ~(1u << ('}' - 96)),
      0, 0, 0, 0};
  return plain[c >> 5] >> (c & 31) & 1;
}

/* RFC 3986 5.2.4 on path[0..n) in place; returns the new length. */
static size_t remove_dot_segments(char *path, size_t n) {
  size_t o = 0, i = 0;
  while (i < n) {
    /* input begins with "../" or "./": drop it */
    if (n - i >= 3 && memcmp(path + i, "../", 3) == 0) {
      i += 3;
    } else if (n - i >= 2 && memcmp(path + i, "./", 2) == 0) {
      i += 2;
    } else if (n - i >= 3 && memcmp(path + i, "/./", 3) == 0) {
      i += 2;
    } else if (n - i == 2 && memcmp(path + i, "/.", 2) == 0) {
      path[i + 1] = '/';
      i += 1;
    } else if ((n - i >= 4 && memcmp(path + i, "/../", 4) == 0) ||
               (n - i == 3 && memcmp(path + i, "/..", 3) == 0)) {
      if (n - i == 3) {
        i += 2;
        path[i] = '/';
      } else {
        i += 3;
      }
      while (o > 0 && path[o - 1] != '/')
        o--;
      if (o > 0)
        o--;
    } else if ((n - i == 1 && path[i] == '.') || (n - i == 2 && memcmp(path + i, "..", 2) == 0)) {
      i = n;
    } else {
      /* move the first segment (with its leading '/') to the output */
      size_t j = i + (path[i] == '/');
      while (j < n && path[j] != '/')
        j++;
      memmove(path + o, path + i, j - i);
      o += j - i;
      i = j;
    }
  }
  return o;
}

/* Whether host[0..n) is one libcurl keeps as written: a name (some label
 * is not a number), or a canonical dotted quad.  libcurl rewrites numeric
 * shorthands ("127.1", "0x7f.1", "0177.0.0.1") to dotted quads. */
static bool canonical_host(const char *h, size_t n) {
  size_t parts = 0, i = 0;
  bool all_numeric = true, canonical = true;
  while (i <= n) {
    size_t s = i;
    while (i < n && h[i] != '.')
      i++;
    size_t l = i - s;
    bool dec = l > 0, hex = l >= 2 && h[s] == '0' && (h[s + 1] | 0x20) == 'x';
    for (size_t k = s; k < i; k++) {
      dec = dec && h[k] >= '0' && h[k] <= '9';
      if (hex && k >= s + 2)
        hex = (h[k] >= '0' && h[k] <= '9') || ((h[k] | 0x20) >= 'a' && (h[k] | 0x20) <= 'f');
    }
    if (!dec && !hex)
      all_numeric = false;
    unsigned v = 0;
    for (size_t k = s; dec && k < i && k < s + 4; k++)
      v = v * 10 + (unsigned)(h[k] - '0');
    if (!dec || l > 3 || (l > 1 && h[s] == '0') || v > 255)
      canonical = false;
    parts++;
    i++;
  }
  return !all_numeric || (canonical && parts == 4);
}

/* A well-formed http(s) URL we can keep as written: scheme://host[:port]
 * followed by '/', '?' or nothing, all characters plain. */
static bool simple_absolute(const char *u, size_t n) {
  size_t s = 0;
  if (n > 7 && strncmp(u, "http://", 7) == 0)
    s = 7;
  else if (n > 8 && strncmp(u, "https://", 8) == 0)
    s = 8;
  else
    return false;
  size_t h = s;
  while (h < n && ((u[h] >= 'a' && u[h] <= 'z') || (u[h] >= '0' && u[h] <= '9') || u[h] == '.' ||
                   u[h] == '-'))
    h++;
  if (h == s || !canonical_host(u + s, h - s))
    return false;
  if (h < n && u[h] == ':') {
    size_t p = ++h;
    unsigned long port = 0;
    while (h < n && u[h] >= '0' && u[h] <= '9' && h - p < 6)
      port = port * 10 + (unsigned long)(u[h++] - '0');
    /* libcurl rewrites "h:/", "h:080" and refuses ports above 65535 */
    if (h == p || h - p > 5 || port > 65535 || (u[p] == '0' && h - p > 1))
      return false;
  }
  if (h >= n || u[h] != '/')
    return false; /* libcurl adds the root path itself */
  for (size_t i = h; i < n; i++)
    if (!plain_url_char((unsigned char)u[i]))
      return false;
  return true;
}

/* Offset where the authority of an http(s) URL ends. */
static size_t authority_end(const char *u) {
  size_t s = (size_t)(strstr(u, "://") - u) + 3;
  return s + strcspn(u + s, "/?#");
}

/* "<prefix><path>" with dot segments removed from the path (not from a
 * query), malloc'd; NULL when the path climbs above the root. */
static char *join_clean(const char *prefix, size_t pl, const char *dir, size_t dl,
                        const char *rel, size_t rl) {
  char *o = ts_xmalloc(pl + dl + rl + 1);
  memcpy(o, prefix, pl);
  char *path = o + pl;
  memcpy(path, dir, dl);
  memcpy(path + dl, rel, rl);
  size_t total = dl + rl;
  path[total] = '\0';
  size_t qpos = strcspn(path, "?");
  if (memmem(path, qpos, "//", 2) || (qpos + 1 == total)) {
    /* empty segments (libcurl's dot removal differs from RFC 3986 there,
     * and libcurl is what sends the request) or an empty query (dropped) */
    free(o);
    return NULL;
  }
  size_t plen = remove_dot_segments(path, qpos);
  memmove(path + plen, path + qpos, total - qpos + 1);
  if (path[0] != '/') {
    free(o);
    return NULL;
  }
  return o;
}

void ts_url_base_init(struct ts_url_base *b, const char *url) {
  memset(b, 0, sizeof *b);
  b->url = url;
  size_t bl = strlen(url);
  if (memchr(url, '#', bl) || !simple_absolute(url, bl))
    return;
  size_t ae = authority_end(url);
  b->authority_end = ae;
  size_t pe = ae + strcspn(url + ae, "?");
  /* libcurl normalises the base first; keep to bases that are already
   * normal (no dot segments, no empty segments) */
  for (size_t i = ae; i < pe; i++)
    if (url[i] == '/' && i + 1 < pe + 1 &&
        (url[i + 1] == '/' || (url[i + 1] == '.' && (i + 2 == pe || url[i + 2] == '/' ||
                                                      (url[i + 2] == '.' &&
                                                       (i + 3 == pe || url[i + 3] == '/'))))))
      return;
  size_t de = ae;
  for (size_t i = ae; i < pe; i++)
    if (url[i] == '/')
      de = i + 1;
  if (de != ae)
    b->dir_end = de;
}

/* The common link shape, "../../files/x.whl" or "x.whl#sha256=...": the
 * leading "../" and "./" climb the base's folder and the rest is appended
 * as it is, which is what the general join gives for it.  NULL when the
 * rest needs that join (a dot segment, "//", a query). */
static char *join_relative(const struct ts_url_base *b, const char *ref, size_t n) {
  size_t de = b->dir_end, root = b->authority_end + 1, i = 0;
  for (;;) {
    if (n - i >= 3 && ref[i] == '.' && ref[i + 1] == '.' && ref[i + 2] == '/') {
      if (de > root)
        do
          de--;
        while (b->url[de - 1] != '/');
      i += 3;
    } else if (n - i >= 2 && ref[i] == '.' && ref[i + 1] == '/') {
      i += 2;
    } else {
      break;
    }
  }
  if (i < n && ref[i] == '/')
    return NULL; /* ".//x": an empty segment after the climb */
  for (size_t k = i; k < n; k++) {
    char ch = ref[k];
    if (ch == '?' || (ch == '/' && k + 1 < n && ref[k + 1] == '/') ||
        (ch == '.' && (k == i || ref[k - 1] == '/')))
      return NULL;
  }
  char *o = ts_xmalloc(de + (n - i) + 1);
  memcpy(o, b->url, de);
  memcpy(o + de, ref + i, n - i);
  o[de + n - i] = '\0';
  return o;
}

/* Resolution without libcurl for the shapes index pages use: absolute
 * http(s) URLs, "/abs/path" and "rel/../path" against an http(s) base,
 * all plain ASCII with a lower-case host.  Returns NULL for anything else,
 * which libcurl then resolves (tests/unit and fuzz/fuzz_index_url check
 * that both agree). */
static char *fast_resolve(const struct ts_url_base *b, const char *ref, size_t n) {
  if (!n)
    return NULL;
  for (size_t i = 0; i < n; i++)
    if (!plain_url_char((unsigned char)ref[i]))
      return NULL;
  if (has_scheme(ref, n)) {
    if (!simple_absolute(ref, n))
      return NULL;
    /* simple_absolute: "http(s)://" + host[:port] + "/" */
    size_t hs = ref[4] == 's' ? 8 : 7;
    const char *slash = memchr(ref + hs, '/', n - hs);
    size_t ae = (size_t)(slash - ref);
    return join_clean(ref, ae, "", 0, ref + ae, n - ae);
  }
  if (ref[0] == '?' || (n >= 2 && ref[0] == '/' && ref[1] == '/'))
    return NULL;
  /* a last segment "." or ".." (libcurl's handling differs from RFC 3986) */
  {
    size_t pe = 0;
    while (pe < n && ref[pe] != '?')
      pe++;
    size_t ls = pe;
    while (ls > 0 && ref[ls - 1] != '/')
      ls--;
    if ((pe - ls == 1 && ref[ls] == '.') || (pe - ls == 2 && ref[ls] == '.' && ref[ls + 1] == '.'))
      return NULL;
    /* nor dot segments together with a query */
    if (pe < n)
      for (size_t i = 0; i < pe; i++)
        if (ref[i] == '.' && (i == 0 || ref[i - 1] == '/'))
          return NULL;
  }
  /* a ':' in the first segment: libcurl may take it for a scheme */
  for (size_t i = 0; i < n && ref[i] != '/' && ref[i] != '?'; i++)
    if (ref[i] == ':')
      return NULL;
  size_t ae = b->authority_end;
  if (!ae)
    return NULL;
  if (ref[0] == '/')
    return join_clean(b->url, ae, "", 0, ref, n);
  if (!b->dir_end)
    return NULL;
  char *quick = join_relative(b, ref, n);
  return quick ? quick : join_clean(b->url, ae, b->url + ae, b->dir_end - ae, ref, n);
}

enum ts_code ts_url_resolve(const char *base, const char *ref, size_t reflen,
                            char **out, struct ts_error *err) {
  struct ts_url_base b;
  ts_url_base_init(&b, base);
  return ts_url_resolve_at(&b, ref, reflen, out, err);
}

enum ts_code ts_url_resolve_at(const struct ts_url_base *b, const char *ref, size_t reflen,
                               char **out, struct ts_error *err) {
  const char *base = b->url;
  *out = NULL;
  {
    const char *hf = memchr(ref, '#', reflen);
    size_t rn = hf ? (size_t)(hf - ref) : reflen;
    if ((*out = fast_resolve(b, ref, rn)))
      return TS_OK;
  }
  const char *h = memchr(ref, '#', reflen);
  size_t n = h ? (size_t)(h - ref) : reflen;
  char rb[160], shown[128];
  ts_url_redact_buf(base, rb, sizeof rb);
  ts_url_for_message(ref, n, shown, sizeof shown);
  for (size_t i = 0; i < n; i++) {
    unsigned char c = (unsigned char)ref[i];
    if (c < 0x21 || c == 0x7f)
      return ts_error_set(err, TS_E_PARSE,
                          "invalid link '%s' on %s: control character or space", shown, rb);
  }
  if (has_scheme(ref, n)) {
    size_t sl = strcspn(ref, ":");
    if (!((sl == 4 && strncasecmp(ref, "http", 4) == 0) ||
          (sl == 5 && strncasecmp(ref, "https", 5) == 0) ||
          (sl == 4 && strncasecmp(ref, "file", 4) == 0)))
      return ts_error_set(err, TS_E_PARSE, "invalid link '%s' on %s: unsupported scheme",
                          shown, rb);
    /* A page from a server may not point into this machine's files (a
     * hostile index linking file:///etc/... or a private wheel). */
    if (sl == 4 && strncasecmp(ref, "file", 4) == 0 && ts_url_is_http(base))
      return ts_error_set(err, TS_E_PARSE,
                          "invalid link '%s' on %s: a page from a server may not link to local files",
                          shown, rb);
  }
  const struct ts_curl *curl = ts_curl_load(err);
  if (!curl)
    return TS_E_NETWORK;
  char *r = ts_xstrndup(ref, n);
  CURLU *u = curl->url();
  if (!u) {
    free(r);
    return ts_error_set(err, TS_E_NOMEM, "out of memory resolving a URL");
  }
  /* A base libcurl refuses leaves the handle empty: then only an absolute
   * reference resolves, as it needs no base. */
  (void)curl->url_set(u, CURLUPART_URL, base, CURLU_NON_SUPPORT_SCHEME);
  CURLUcode uc = curl->url_set(u, CURLUPART_URL, r, CURLU_NON_SUPPORT_SCHEME);
  char *res = NULL;
  if (!uc)
    uc = curl->url_get(u, CURLUPART_URL, &res, 0);
  curl->url_cleanup(u);
  if (uc) {
    enum ts_code c = ts_error_set(err, TS_E_PARSE, "invalid link '%s' on %s: %s", shown, rb,
                                  curl->url_strerror(uc));
    free(r);
    return c;
  }
  free(r);
  *out = ts_xstrdup(res);
  curl->free(res);
  return TS_OK;

}

char *ts_url_basename(const char *url) {
  size_t end = strcspn(url, "?#");
  size_t start = 0;
  const char *sep = strstr(url, "://");
  size_t min = sep ? (size_t)(sep - url) + 3 : 0;
  for (size_t i = min; i < end; i++)
    if (url[i] == '/')
      start = i + 1;
  if (!start || start >= end)
    return NULL;
  char *d = ts_percent_decode(url + start, end - start);
  if (!d[0] || strchr(d, '/')) {
    free(d);
    return NULL;
  }
  return d;
}

char *ts_url_file_path(const char *url) {
  if (strncasecmp(url, "file://", 7) != 0)
    return NULL;
  const char *p = url + 7;
  if (strncasecmp(p, "localhost/", 10) == 0)
    p += 9;
  if (p[0] != '/')
    return NULL;
  return ts_percent_decode(p, strcspn(p, "?#"));
}

bool ts_url_is_http(const char *url) {
  return strncasecmp(url, "http://", 7) == 0 || strncasecmp(url, "https://", 8) == 0;
}

char *ts_url_project_page(const char *index_url, const char *project) {
  size_t n = strlen(index_url);
  while (n && index_url[n - 1] == '/')
    n--;
  size_t pl = strlen(project);
  char *o = ts_xmalloc(n + pl + 3);
  memcpy(o, index_url, n);
  o[n] = '/';
  memcpy(o + n + 1, project, pl);
  o[n + 1 + pl] = '/';
  o[n + 2 + pl] = '\0';
  return o;
}

char *ts_url_escape(const char *url) {
  static const char hex[] = "0123456789ABCDEF";
  size_t n = strlen(url);
  char *out = ts_xmalloc(3 * n + 1), *o = out;
  for (const unsigned char *c = (const unsigned char *)url; *c; c++) {
    if (*c <= ' ' || *c >= 0x7f || strchr("\"<>\\^`{|}", *c)) {
      *o++ = '%';
      *o++ = hex[*c >> 4];
      *o++ = hex[*c & 15];
    } else {
      *o++ = (char)*c;
    }
  }
  *o = '\0';
  return out;
}
