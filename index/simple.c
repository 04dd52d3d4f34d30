/* Simple API parsers (PEP 503 HTML, PEP 691 JSON) and find-links sources. */
#include "index/simple.h"

#include <dirent.h>
#include <stddef.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "core/buf.h"
#include "core/fs.h"
#include "core/json_doc.h"
#include "core/str.h"
#include "core/text.h"
#include "index/url.h"
#include "pep/name.h"

/* Free text from a page (a yank reason, Requires-Python) ends up in the
 * user's terminal: control characters (C0, DEL, and C1 in UTF-8, which
 * some terminals obey) become spaces, in place, so that a hostile index
 * cannot move the cursor, recolour or split the one-line messages. */
static char *clean_text(char *s) {
  for (unsigned char *p = (unsigned char *)s; p && *p; p++) {
    if (*p < 0x20 || *p == 0x7f)
      *p = ' ';
    else if (*p == 0xc2 && p[1] >= 0x80 && p[1] <= 0x9f)
      p[0] = p[1] = ' ';
  }
  return s;
}

/* Page text (a file name, an attribute) in an error message: clipped, with
 * control characters shown as '?' (ts_url_for_message). */
static const char *shown(const char *s, char buf[128]) {
  ts_url_for_message(s ? s : "", s ? strlen(s) : 0, buf, 128);
  return buf;
}

void ts_index_file_clear(struct ts_index_file *f) {
  free(f->filename);
  free(f->url);
  free(f->sha256);
  free(f->requires_python);
  free(f->yanked_reason);
  free(f->metadata_sha256);
  free(f->upload_time);
  free(f->index_url);
  memset(f, 0, sizeof *f);
  f->size = -1;
}

void ts_index_project_clear(struct ts_index_project *p) {
  if (!p)
    return;
  for (size_t i = 0; i < p->nfiles; i++)
    ts_index_file_clear(&p->files[i]);
  free(p->files);
  free(p->name);
  free(p->index_url);
  memset(p, 0, sizeof *p);
}

static void grow(struct ts_index_project *p) {
  if ((p->nfiles & (p->nfiles - 1)) == 0) { /* grow at powers of two */
    size_t cap = p->nfiles ? p->nfiles * 2 : 8;
    p->files = ts_xreallocarray(p->files, cap, sizeof *p->files);
  }
}

void ts_index_project_take_file(struct ts_index_project *p, struct ts_index_file *f) {
  grow(p);
  p->files[p->nfiles++] = *f;
  memset(f, 0, sizeof *f);
  f->size = -1;
}

void ts_index_project_add_file(struct ts_index_project *p, const struct ts_index_file *f) {
  grow(p);
  struct ts_index_file *d = &p->files[p->nfiles];
  memset(d, 0, sizeof *d);
  d->filename = ts_xstrdup(f->filename);
  d->url = ts_xstrdup(f->url);
  d->sha256 = ts_xstrdup(f->sha256);
  d->requires_python = ts_xstrdup(f->requires_python);
  d->yanked = f->yanked;
  d->yanked_reason = ts_xstrdup(f->yanked_reason);
  d->has_metadata = f->has_metadata;
  d->metadata_sha256 = ts_xstrdup(f->metadata_sha256);
  d->size = f->size;
  d->upload_time = ts_xstrdup(f->upload_time);
  d->index_url = ts_xstrdup(f->index_url);
  d->from_find_links = f->from_find_links;
  d->variant_rank = f->variant_rank;
  p->nfiles++;
}

/* ---- HTML ---------------------------------------------------------- */

/* A character reference's code point as UTF-8; the ones HTML maps to
 * U+FFFD (NUL, surrogates, beyond Unicode) become U+FFFD. */
static void put_utf8(char *o, size_t *j, unsigned long cp) {
  if (cp == 0 || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF))
    cp = 0xFFFD;
  *j += ts_utf8_put(o + *j, (uint32_t)cp);
}

char *ts_index_html_unescape(const char *s, size_t n) {
  /* Every reference is at least as long as its UTF-8 encoding
   * ("&#1;" = 4 bytes → ≤ 3), so n + 1 bytes always suffice. */
  char *o = ts_xmalloc(n + 4);
  size_t j = 0;
  static const struct {
    const char *name;
    unsigned long cp;
  } named[] = {{"amp", '&'},  {"lt", '<'},    {"gt", '>'},
               {"quot", '"'}, {"apos", '\''}, {"nbsp", 0xA0}};
  for (size_t i = 0; i < n;) {
    if (s[i] != '&') {
      o[j++] = s[i++];
      continue;
    }
    const char *semi = memchr(s + i, ';', n - i < 12 ? n - i : 12);
    bool done = false;
    if (semi) {
      const char *ent = s + i + 1;
      size_t el = (size_t)(semi - ent);
      if (el >= 2 && ent[0] == '#') {
        unsigned long cp = 0;
        bool hex = ent[1] == 'x' || ent[1] == 'X';
        size_t k = hex ? 2 : 1;
        bool ok = k < el;
        for (; ok && k < el; k++) {
          char c = ent[k];
          int v = -1;
          if (c >= '0' && c <= '9')
            v = c - '0';
          else if (hex && (c | 0x20) >= 'a' && (c | 0x20) <= 'f')
            v = (c | 0x20) - 'a' + 10;
          if (v < 0 || cp > 0x10FFFF)
            ok = false;
          else
            cp = cp * (hex ? 16 : 10) + (unsigned long)v;
        }
        if (ok) {
          put_utf8(o, &j, cp);
          done = true;
        }
      } else {
        for (size_t k = 0; k < sizeof named / sizeof named[0]; k++)
          if (strlen(named[k].name) == el && memcmp(named[k].name, ent, el) == 0) {
            put_utf8(o, &j, named[k].cp);
            done = true;
            break;
          }
      }
      if (done) {
        i = (size_t)(semi - s) + 1;
        continue;
      }
    }
    o[j++] = s[i++];
  }
  o[j] = '\0';
  return o;
}

struct html_attr {
  const char *name;
  size_t nlen;
  const char *val; /* NULL when the attribute has no value */
  size_t vlen;
};

#define HTML_MAX_ATTRS 16

static bool is_space(char c) {
  return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f';
}

/* Parses attributes from s[*i] up to and including '>'.  Returns the number
 * stored (extra ones are skipped). */
static size_t parse_attrs(const char *s, size_t n, size_t *i,
                          struct html_attr *attrs) {
  size_t na = 0, p = *i;
  while (p < n) {
    while (p < n && (is_space(s[p]) || s[p] == '/'))
      p++;
    if (p >= n)
      break;
    if (s[p] == '>') {
      p++;
      break;
    }
    size_t ns = p;
    while (p < n && !is_space(s[p]) && s[p] != '=' && s[p] != '>' && s[p] != '/')
      p++;
    struct html_attr a = {s + ns, p - ns, NULL, 0};
    size_t q = p;
    while (q < n && is_space(s[q]))
      q++;
    if (q < n && s[q] == '=') {
      q++;
      while (q < n && is_space(s[q]))
        q++;
      if (q < n && (s[q] == '"' || s[q] == '\'')) {
        char quote = s[q++];
        const char *end = memchr(s + q, quote, n - q);
        size_t e = end ? (size_t)(end - s) : n;
        a.val = s + q;
        a.vlen = e - q;
        p = end ? e + 1 : n;
      } else {
        size_t vs = q;
        while (q < n && !is_space(s[q]) && s[q] != '>')
          q++;
        a.val = s + vs;
        a.vlen = q - vs;
        p = q;
      }
    }
    if (na < HTML_MAX_ATTRS && a.nlen)
      attrs[na++] = a;
    if (a.nlen == 0 && p < n && s[p] != '>')
      p++; /* a stray character such as '=' */
  }
  *i = p;
  return na;
}

static const struct html_attr *find_attr(const struct html_attr *a, size_t na,
                                         const char *name) {
  size_t l = strlen(name);
  for (size_t k = 0; k < na; k++)
    if (a[k].nlen == l && strncasecmp(a[k].name, name, l) == 0)
      return &a[k];
  return NULL;
}

static bool tag_is(const char *s, size_t n, size_t i, const char *tag) {
  size_t l = strlen(tag);
  if (i + 1 + l > n || strncasecmp(s + i + 1, tag, l) != 0)
    return false;
  if (i + 1 + l == n)
    return true;
  char c = s[i + 1 + l];
  return is_space(c) || c == '>' || c == '/';
}

static bool valid_sha256(const char *h, size_t n) {
  if (n != 64)
    return false;
  for (size_t i = 0; i < n; i++) {
    char c = (char)(h[i] | 0x20);
    if (!((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f')))
      return false;
  }
  return true;
}

/* A digest valid_sha256 accepted (64 bytes), in lower case: every file
 * on a page has one, often two. */
static char *lower_sha256(const char *h) {
  char *d = ts_xmalloc(65);
  for (size_t i = 0; i < 64; i++)
    d[i] = (char)(h[i] >= 'A' && h[i] <= 'F' ? h[i] + ('a' - 'A') : h[i]);
  d[64] = '\0';
  return d;
}

/* Value of a PEP 658 attribute ("true" or "<algo>=<hex>"): sets has/sha. */
static enum ts_code metadata_attr(const char *v, struct ts_index_file *f,
                                  const char *page, struct ts_error *err) {
  if (strcasecmp(v, "false") == 0)
    return TS_OK;
  f->has_metadata = true;
  if (strncasecmp(v, "sha256=", 7) == 0) {
    if (!valid_sha256(v + 7, strlen(v + 7))) {
      char b1[128], b2[128];
      return ts_error_set(err, TS_E_PARSE, "invalid metadata hash '%s' for %s on %s",
                          shown(v, b1), shown(f->filename, b2), page);
    }
    f->metadata_sha256 = lower_sha256(v + 7);

  }
  return TS_OK;
}

/* Fills f from one anchor; the caller clears f. */
static enum ts_code html_anchor(const struct html_attr *attrs, size_t na,
                                const char *text, size_t tlen,
                                const struct ts_url_base *base, const char *page,
                                struct ts_index_file *f, struct ts_error *err) {
  const struct html_attr *href = find_attr(attrs, na, "href");
  if (memchr(href->val, '\0', href->vlen))
    return ts_error_set(err, TS_E_PARSE, "invalid link on %s: NUL byte in href", page);
  char *h = ts_index_html_unescape(href->val, href->vlen);
  size_t hl = strlen(h);
  enum ts_code c = ts_url_resolve_at(base, h, hl, &f->url, err);
  const char *frag;
  size_t fl;
  if (!c && ts_url_fragment(h, hl, &frag, &fl) && fl > 7 &&
      strncasecmp(frag, "sha256=", 7) == 0) {
    if (!valid_sha256(frag + 7, fl - 7)) {
      char shown[128];
      ts_url_for_message(h, hl, shown, sizeof shown);
      c = ts_error_set(err, TS_E_PARSE, "invalid sha256 in link '%s' on %s", shown, page);
    }
    else
      f->sha256 = lower_sha256(frag + 7);
  }
  free(h);
  if (c)
    return c;
  f->filename = ts_url_basename(f->url);
  if (!f->filename) {
    char *t = ts_index_html_unescape(text, tlen);
    /* trim */
    char *st = t;
    while (is_space(*st))
      st++;
    size_t l = strlen(st);
    while (l && is_space(st[l - 1]))
      l--;
    f->filename = l ? ts_xstrndup(st, l) : NULL;
    free(t);
    if (!f->filename)
      return ts_error_set(err, TS_E_PARSE, "link without a file name on %s", page);
  }
  const struct html_attr *a;
  if ((a = find_attr(attrs, na, "data-requires-python")) && a->val && a->vlen)
    f->requires_python = clean_text(ts_index_html_unescape(a->val, a->vlen));
  if ((a = find_attr(attrs, na, "data-yanked"))) {
    f->yanked = true;
    if (a->val && a->vlen)
      f->yanked_reason = clean_text(ts_index_html_unescape(a->val, a->vlen));
  }
  a = find_attr(attrs, na, "data-core-metadata");
  if (!a)
    a = find_attr(attrs, na, "data-dist-info-metadata");
  if (a) {
    char *v = a->val ? ts_index_html_unescape(a->val, a->vlen) : ts_xstrdup("true");
    c = metadata_attr(v[0] ? v : "true", f, page, err);
    free(v);
  }
  return c;
}

static enum ts_code parse_html(const char *s, size_t n, const char *page_url,
                               const char *name, bool flat,
                               struct ts_index_project *out,
                               struct ts_error *err) {
  memset(out, 0, sizeof *out);
  char page[200];
  ts_url_redact_buf(page_url, page, sizeof page);
  out->name = ts_name_normalize(name, strlen(name));
  out->index_url = ts_xstrdup(page_url);
  char *base = ts_xstrdup(page_url);
  struct ts_url_base prepared;
  ts_url_base_init(&prepared, base);
  enum ts_code c = TS_OK;
  size_t i = 0;
  while (!c && i < n) {
    const char *lt = memchr(s + i, '<', n - i);
    if (!lt)
      break;
    i = (size_t)(lt - s);
    if (n - i >= 4 && memcmp(s + i, "<!--", 4) == 0) {
      const char *e = memmem(s + i + 4, n - i - 4, "-->", 3);
      i = e ? (size_t)(e - s) + 3 : n;
      continue;
    }
    bool is_a = tag_is(s, n, i, "a"), is_base = !is_a && tag_is(s, n, i, "base");
    if (!is_a && !is_base) {
      i++;
      continue;
    }
    i += is_a ? 2 : 5;
    struct html_attr attrs[HTML_MAX_ATTRS];
    size_t na = parse_attrs(s, n, &i, attrs);
    const struct html_attr *href = find_attr(attrs, na, "href");
    if (!href || !href->val)
      continue;
    if (is_base) {
      char *h = ts_index_html_unescape(href->val, href->vlen);
      char *nb = NULL;
      c = ts_url_resolve(base, h, strlen(h), &nb, err);
      free(h);
      if (!c) {
        free(base);
        base = nb;
        ts_url_base_init(&prepared, base);
      }
      continue;
    }
    size_t ts = i, te = i;
    while (te < n) {
      const char *l2 = memchr(s + te, '<', n - te);
      if (!l2) {
        te = n;
        break;
      }
      te = (size_t)(l2 - s);
      if (n - te >= 3 && s[te + 1] == '/' && (s[te + 2] | 0x20) == 'a')
        break;
      if (tag_is(s, n, te, "a"))
        break;
      te++;
    }
    struct ts_index_file f;
    memset(&f, 0, sizeof f);
    f.size = -1;
    c = html_anchor(attrs, na, s + ts, te - ts, &prepared, page, &f, err);
    if (!c && (!flat || ts_index_filename_matches(f.filename, out->name)))
      ts_index_project_take_file(out, &f);
    ts_index_file_clear(&f);
    i = te;
  }
  free(base);
  if (c) {
    if (c == TS_E_NOMEM)
      ts_error_set(err, c, "out of memory parsing %s", page);
    ts_index_project_clear(out);
  }
  return c;
}

enum ts_code ts_index_parse_html(const char *data, size_t len,
                                 const char *page_url, const char *name,
                                 struct ts_index_project *out,
                                 struct ts_error *err) {
  return parse_html(data, len, page_url, name, false, out, err);
}

enum ts_code ts_index_parse_flat(const char *data, size_t len,
                                 const char *page_url, const char *name,
                                 struct ts_index_project *out,
                                 struct ts_error *err) {
  return parse_html(data, len, page_url, name, true, out, err);
}

/* ---- JSON ---------------------------------------------------------- */

static enum ts_code json_metadata(const cJSON *v, struct ts_index_file *f,
                                  const char *page, struct ts_error *err) {
  char b[128];
  if (cJSON_IsTrue(v)) {
    f->has_metadata = true;
  } else if (cJSON_IsObject(v)) {
    f->has_metadata = true;
    const cJSON *h = cJSON_GetObjectItemCaseSensitive(v, "sha256");
    if (cJSON_IsString(h)) {
      if (!valid_sha256(h->valuestring, strlen(h->valuestring)))
        return ts_error_set(err, TS_E_PARSE, "invalid metadata sha256 for %s on %s",
                            shown(f->filename, b), page);
      f->metadata_sha256 = lower_sha256(h->valuestring);
    }
  } else if (v && !cJSON_IsFalse(v) && !cJSON_IsNull(v)) {
    return ts_error_set(err, TS_E_PARSE, "invalid core-metadata value for %s on %s",
                        shown(f->filename, b), page);
  }
  return TS_OK;
}

/* The members of a files[] entry that are read, found in one pass over
 * its keys (the first of a repeated key counts, as with
 * cJSON_GetObjectItemCaseSensitive). */
struct json_file_keys {
  const cJSON *filename, *url, *hashes, *requires_python, *yanked, *core_metadata,
      *dist_info_metadata, *data_dist_info_metadata, *size, *upload_time;
};

static void json_file_keys(const cJSON *o, struct json_file_keys *k) {
  memset(k, 0, sizeof *k);
  static const struct {
    const char *name;
    size_t offset;
  } wanted[] = {
      {"filename", offsetof(struct json_file_keys, filename)},
      {"url", offsetof(struct json_file_keys, url)},
      {"hashes", offsetof(struct json_file_keys, hashes)},
      {"requires-python", offsetof(struct json_file_keys, requires_python)},
      {"yanked", offsetof(struct json_file_keys, yanked)},
      {"core-metadata", offsetof(struct json_file_keys, core_metadata)},
      {"dist-info-metadata", offsetof(struct json_file_keys, dist_info_metadata)},
      {"data-dist-info-metadata", offsetof(struct json_file_keys, data_dist_info_metadata)},
      {"size", offsetof(struct json_file_keys, size)},
      {"upload-time", offsetof(struct json_file_keys, upload_time)},
  };
  for (const cJSON *m = o->child; m; m = m->next) {
    if (!m->string)
      continue;
    for (size_t i = 0; i < sizeof wanted / sizeof wanted[0]; i++) {
      if (wanted[i].name[0] != m->string[0] || strcmp(wanted[i].name, m->string) != 0)
        continue;
      const cJSON **slot = (const cJSON **)((char *)k + wanted[i].offset);
      if (!*slot)
        *slot = m;
      break;
    }
  }
}

static enum ts_code json_file(const cJSON *o, const struct ts_url_base *base,
                              const char *page, struct ts_index_file *f,
                              struct ts_error *err) {
  char b[128];
  if (!cJSON_IsObject(o))
    return ts_error_set(err, TS_E_PARSE, "a files[] entry is not an object on %s", page);
  struct json_file_keys k;
  json_file_keys(o, &k);
  const cJSON *fn = k.filename, *url = k.url;
  if (!cJSON_IsString(fn) || !cJSON_IsString(url) || !fn->valuestring[0] ||
      strchr(fn->valuestring, '/'))
    return ts_error_set(err, TS_E_PARSE,
                        "a files[] entry lacks a valid filename or url on %s", page);
  f->filename = ts_xstrdup(fn->valuestring);
  enum ts_code c = ts_url_resolve_at(base, url->valuestring, strlen(url->valuestring),
                                     &f->url, err);
  if (c)
    return c;
  const cJSON *hashes = k.hashes;
  if (hashes && !cJSON_IsObject(hashes))
    return ts_error_set(err, TS_E_PARSE, "hashes of %s is not an object on %s",
                        shown(f->filename, b), page);
  const cJSON *sha = cJSON_GetObjectItemCaseSensitive(hashes, "sha256");
  if (sha) {
    if (!cJSON_IsString(sha) || !valid_sha256(sha->valuestring, strlen(sha->valuestring)))
      return ts_error_set(err, TS_E_PARSE, "invalid sha256 for %s on %s",
                          shown(f->filename, b), page);
    f->sha256 = lower_sha256(sha->valuestring);
  }
  const cJSON *rp = k.requires_python;
  if (cJSON_IsString(rp) && rp->valuestring[0])
    f->requires_python = clean_text(ts_xstrdup(rp->valuestring));
  const cJSON *y = k.yanked;
  if (cJSON_IsTrue(y)) {
    f->yanked = true;
  } else if (cJSON_IsString(y)) {
    f->yanked = true;
    if (y->valuestring[0])
      f->yanked_reason = clean_text(ts_xstrdup(y->valuestring));
  }
  /* PEP 714 key first; older servers only send the PEP 691 spelling. */
  const cJSON *m = k.core_metadata;
  if (!m || cJSON_IsNull(m))
    m = k.dist_info_metadata;
  if (!m || cJSON_IsNull(m))
    m = k.data_dist_info_metadata;
  if ((c = json_metadata(m, f, page, err)))
    return c;
  const cJSON *size = k.size;
  if (cJSON_IsNumber(size) && size->valuedouble >= 0 && size->valuedouble < 9e15)
    f->size = (int64_t)size->valuedouble;
  const cJSON *ut = k.upload_time;
  if (cJSON_IsString(ut))
    f->upload_time = clean_text(ts_xstrdup(ut->valuestring));
  return TS_OK;
}

enum ts_code ts_index_parse_json(const char *data, size_t len,
                                 const char *page_url, const char *name,
                                 struct ts_index_project *out,
                                 struct ts_error *err) {
  memset(out, 0, sizeof *out);
  char page[200];
  ts_url_redact_buf(page_url, page, sizeof page);
  struct ts_json_doc doc;
  const cJSON *root = ts_json_doc_parse(&doc, data, len);
  if (!root) {
    ts_json_doc_free(&doc);
    size_t off = 0;
    const char *ep = cJSON_GetErrorPtr();
    if (ep && ep >= data && ep <= data + len)
      off = (size_t)(ep - data);
    return ts_error_set(err, TS_E_PARSE, "malformed JSON at byte %zu of %s", off, page);
  }
  enum ts_code c = TS_OK;
  const cJSON *meta = cJSON_GetObjectItemCaseSensitive(root, "meta");
  const cJSON *ver = cJSON_GetObjectItemCaseSensitive(meta, "api-version");
  const cJSON *files = cJSON_GetObjectItemCaseSensitive(root, "files");
  if (!cJSON_IsObject(root) || !cJSON_IsString(ver)) {
    c = ts_error_set(err, TS_E_PARSE, "not a PEP 691 page (no meta.api-version): %s", page);
  } else if (strncmp(ver->valuestring, "1.", 2) != 0 && strcmp(ver->valuestring, "1") != 0) {
    c = ts_error_set(err, TS_E_UNSUPPORTED, "unsupported Simple API version '%.20s' on %s",
                     ver->valuestring, page);
  } else if (!cJSON_IsArray(files)) {
    c = ts_error_set(err, TS_E_PARSE, "no files[] array on %s", page);
  }
  if (!c) {
    out->name = ts_name_normalize(name, strlen(name));
    out->index_url = ts_xstrdup(page_url);
  }
  struct ts_url_base base;
  ts_url_base_init(&base, page_url);
  const cJSON *o;
  cJSON_ArrayForEach(o, files) {
    if (c)
      break;
    struct ts_index_file f;
    memset(&f, 0, sizeof f);
    f.size = -1;
    c = json_file(o, &base, page, &f, err);
    if (!c)
      ts_index_project_take_file(out, &f);
    ts_index_file_clear(&f);
  }
  ts_json_doc_free(&doc);
  if (c) {
    if (c == TS_E_NOMEM)
      ts_error_set(err, c, "out of memory parsing %s", page);
    ts_index_project_clear(out);
  }
  return c;
}

/* ---- the root page: every project's name ---------------------------- */

static void add_name(char ***names, size_t *n, const char *s, size_t len) {
  while (len && is_space(*s))
    s++, len--;
  while (len && is_space(s[len - 1]))
    len--;
  if (!len)
    return;
  *names = ts_xrealloc(*names, (*n + 1) * sizeof **names);
  (*names)[(*n)++] = ts_name_normalize(s, len);
}

enum ts_code ts_index_parse_project_list(const char *data, size_t len, bool json,
                                         char ***names, size_t *n, struct ts_error *err) {
  *names = NULL;
  *n = 0;
  if (json) {
    struct ts_json_doc doc;
    const cJSON *root = ts_json_doc_parse(&doc, data, len);
    const cJSON *projects = cJSON_GetObjectItemCaseSensitive(root, "projects");
    if (!cJSON_IsArray(projects)) {
      ts_json_doc_free(&doc);
      return ts_error_set(err, TS_E_PARSE, "not a PEP 691 project list (no projects[])");
    }
    const cJSON *p;
    cJSON_ArrayForEach(p, projects) {
      const cJSON *name = cJSON_GetObjectItemCaseSensitive(p, "name");
      if (cJSON_IsString(name))
        add_name(names, n, name->valuestring, strlen(name->valuestring));
    }
    ts_json_doc_free(&doc);
    return TS_OK;
  }
  size_t i = 0;
  while (i < len) {
    const char *lt = memchr(data + i, '<', len - i);
    if (!lt)
      break;
    i = (size_t)(lt - data);
    if (len - i >= 4 && memcmp(data + i, "<!--", 4) == 0) {
      const char *e = memmem(data + i + 4, len - i - 4, "-->", 3);
      i = e ? (size_t)(e - data) + 3 : len;
      continue;
    }
    if (!tag_is(data, len, i, "a")) {
      i++;
      continue;
    }
    i += 2;
    struct html_attr attrs[HTML_MAX_ATTRS];
    parse_attrs(data, len, &i, attrs);
    const char *end = memchr(data + i, '<', len - i);
    size_t te = end ? (size_t)(end - data) : len;
    char *text = ts_index_html_unescape(data + i, te - i);
    add_name(names, n, text, strlen(text));
    free(text);
    i = te;
  }
  return TS_OK;
}

/* ---- find-links ---------------------------------------------------- */

int ts_index_filename_matches(const char *filename, const char *name) {
  if (!filename)
    return 0;
  size_t fl = strlen(filename);
  /* The project part of a distribution file name ends at the first '-'
   * that starts a version (a digit follows). */
  for (size_t i = 0; i < fl; i++) {
    if (filename[i] != '-' || i + 1 >= fl || filename[i + 1] < '0' || filename[i + 1] > '9')
      continue;
    char *norm = ts_name_normalize(filename, i);
    char *want = ts_name_normalize(name, strlen(name));
    int ok = strcmp(norm, want) == 0;
    free(norm);
    free(want);
    return ok;
  }
  return 0;
}

enum ts_code ts_index_scan_dir(const char *dir, const char *name,
                               struct ts_index_project *out,
                               struct ts_error *err) {
  memset(out, 0, sizeof *out);
  DIR *d = opendir(dir);
  if (!d)
    return ts_error_set(err, TS_E_NOT_FOUND, "cannot open find-links directory '%s'", dir);
  out->name = ts_name_normalize(name, strlen(name));
  struct ts_buf u;
  ts_buf_init(&u, 0);
  enum ts_code c = ts_buf_printf(&u, "file://%s", dir);
  out->index_url = c ? NULL : ts_buf_take(&u, NULL);
  struct dirent *e;
  while (!c && (e = readdir(d))) {
    if (e->d_name[0] == '.' || !ts_index_filename_matches(e->d_name, out->name))
      continue;
    char *path = ts_path_join(dir, e->d_name);
    struct stat st;
    bool reg = stat(path, &st) == 0 && S_ISREG(st.st_mode);
    if (reg) {
      struct ts_index_file f;
      memset(&f, 0, sizeof f);
      f.size = (int64_t)st.st_size;
      f.filename = ts_xstrdup(e->d_name);
      ts_buf_reset(&u);
      /* file URLs must be percent-encoded; names are plain ASCII in
       * practice, so only '%' '#' '?' ' ' and '+' need care. */
      c = ts_buf_append_str(&u, "file://");
      for (const char *p = path; !c && *p; p++)
        c = strchr("%#? +", *p) ? ts_buf_printf(&u, "%%%02X", (unsigned char)*p)
                                : ts_buf_append(&u, p, 1);
      if (!c) {
        f.url = ts_buf_take(&u, NULL);
        ts_index_project_take_file(out, &f);
      }

      ts_index_file_clear(&f);
    }
    free(path);
  }
  closedir(d);
  ts_buf_clear(&u);
  if (c) {
    ts_index_project_clear(out);
    return ts_error_set(err, c, "cannot list find-links directory '%s'", dir);
  }
  return TS_OK;
}
