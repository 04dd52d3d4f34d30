/* The binary form of a parsed project page; see parsed_page.h. */
#include "index/parsed_page.h"

#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "core/str.h"
#include "index/simple.h"
#include "pep/name.h"

#define FORM_MAGIC "TSPF"
#define NO_STRING 0xffffffffu
#define FLAG_YANKED 1u
#define FLAG_HAS_METADATA 2u

/* The form is sized first and written in place: a page of hundreds of
 * files took sixteen checked appends per file. */
static unsigned char *put_u32(unsigned char *w, uint32_t v) {
  w[0] = (unsigned char)v;
  w[1] = (unsigned char)(v >> 8);
  w[2] = (unsigned char)(v >> 16);
  w[3] = (unsigned char)(v >> 24);
  return w + 4;
}

static unsigned char *put_i64(unsigned char *w, int64_t v) {
  uint64_t u = (uint64_t)v;
  for (int i = 0; i < 8; i++)
    w[i] = (unsigned char)(u >> (8 * i));
  return w + 8;
}

static unsigned char *put_str(unsigned char *w, const char *s) {
  if (!s)
    return put_u32(w, NO_STRING);
  size_t n = strlen(s);
  w = put_u32(w, (uint32_t)n);
  memcpy(w, s, n);
  return w + n;
}

/* Adds the encoded size of s to *total; false when it cannot be encoded. */
static bool add_str_size(size_t *total, const char *s) {
  size_t n = s ? strlen(s) : 0;
  if (n >= NO_STRING)
    return false;
  *total += 4 + n;
  return true;
}

#define FILE_STRINGS(f)                                                                    \
  {(f)->filename, (f)->url, (f)->sha256, (f)->requires_python, (f)->yanked_reason,         \
   (f)->metadata_sha256, (f)->upload_time}

enum ts_code ts_parsed_page_encode(const struct ts_index_project *p, const char *page_url,
                                   struct ts_buf *out) {
  if (p->nfiles >= NO_STRING)
    return TS_E_TOO_BIG;
  size_t total = 4 + 4 + 4;
  bool ok = add_str_size(&total, page_url) && add_str_size(&total, p->name);
  for (size_t i = 0; i < p->nfiles && ok; i++) {
    const char *strs[] = FILE_STRINGS(&p->files[i]);
    for (size_t k = 0; k < sizeof strs / sizeof strs[0] && ok; k++)
      ok = add_str_size(&total, strs[k]);
    total += 1 + 8; /* flags, size */
  }
  if (!ok)
    return TS_E_TOO_BIG;
  enum ts_code c = ts_buf_reserve(out, total);
  if (c)
    return c;
  unsigned char *w = (unsigned char *)out->data + out->len;
  memcpy(w, FORM_MAGIC, 4);
  w = put_u32(w + 4, TS_PARSED_PAGE_VERSION);
  w = put_str(w, page_url);
  w = put_str(w, p->name);
  w = put_u32(w, (uint32_t)p->nfiles);
  for (size_t i = 0; i < p->nfiles; i++) {
    const struct ts_index_file *f = &p->files[i];
    const char *strs[] = FILE_STRINGS(f);
    for (size_t k = 0; k < sizeof strs / sizeof strs[0]; k++)
      w = put_str(w, strs[k]);
    *w++ = (unsigned char)((f->yanked ? FLAG_YANKED : 0) | (f->has_metadata ? FLAG_HAS_METADATA : 0));
    w = put_i64(w, f->size);
  }
  out->len += total;
  out->data[out->len] = '\0';
  return TS_OK;
}

/* A bounds-checked reader over the form. */
struct reader {
  const unsigned char *p;
  size_t left;
  bool bad;
};

static uint32_t get_u32(struct reader *r) {
  if (r->bad || r->left < 4) {
    r->bad = true;
    return 0;
  }
  uint32_t v = (uint32_t)r->p[0] | (uint32_t)r->p[1] << 8 | (uint32_t)r->p[2] << 16 |
               (uint32_t)r->p[3] << 24;
  r->p += 4;
  r->left -= 4;
  return v;
}

static int64_t get_i64(struct reader *r) {
  if (r->bad || r->left < 8) {
    r->bad = true;
    return 0;
  }
  uint64_t u = 0;
  for (int i = 0; i < 8; i++)
    u |= (uint64_t)r->p[i] << (8 * i);
  r->p += 8;
  r->left -= 8;
  return (int64_t)u;
}

/* A string's bytes in place: *s and *n, or *s = NULL for "none".  A NUL
 * inside is damage: no parser produces one. */
static void get_span(struct reader *r, const char **s, size_t *n) {
  *s = NULL;
  *n = 0;
  uint32_t len = get_u32(r);
  if (r->bad || len == NO_STRING)
    return;
  if (len > r->left || memchr(r->p, '\0', len)) {
    r->bad = true;
    return;
  }
  *s = (const char *)r->p;
  *n = len;
  r->p += len;
  r->left -= len;
}

static char *get_str(struct reader *r) {
  const char *s;
  size_t n;
  get_span(r, &s, &n);
  if (!s)
    return NULL;
  return ts_xstrndup(s, n);
}

static bool span_is(const char *s, size_t n, const char *want) {
  return s && strlen(want) == n && memcmp(s, want, n) == 0;
}

enum ts_code ts_parsed_page_decode(const char *data, size_t len, const char *page_url,
                                   const char *name, struct ts_index_project *out) {
  memset(out, 0, sizeof *out);
  struct reader r = {.p = (const unsigned char *)data, .left = len};
  if (len < 4 || memcmp(data, FORM_MAGIC, 4) != 0)
    return TS_E_PARSE;
  r.p += 4;
  r.left -= 4;
  if (get_u32(&r) != TS_PARSED_PAGE_VERSION)
    return TS_E_PARSE;
  const char *s;
  size_t n;
  get_span(&r, &s, &n);
  if (!span_is(s, n, page_url))
    return TS_E_PARSE;
  out->name = ts_name_normalize(name, strlen(name));
  get_span(&r, &s, &n);
  if (!span_is(s, n, out->name)) {
    ts_index_project_clear(out);
    return TS_E_PARSE;
  }
  out->index_url = ts_xstrdup(page_url);
  uint32_t nfiles = get_u32(&r);
  /* every file takes at least 7 lengths, a flag byte and a size */
  if (nfiles > r.left / (7 * 4 + 1 + 8))
    r.bad = true;
  for (uint32_t i = 0; i < nfiles && !r.bad; i++) {
    struct ts_index_file f = {0};
    f.filename = get_str(&r);
    f.url = get_str(&r);
    f.sha256 = get_str(&r);
    f.requires_python = get_str(&r);
    f.yanked_reason = get_str(&r);
    f.metadata_sha256 = get_str(&r);
    f.upload_time = get_str(&r);
    unsigned flags = 0;
    if (r.left >= 1 && !r.bad) {
      flags = *r.p++;
      r.left--;
    } else {
      r.bad = true;
    }
    f.yanked = flags & FLAG_YANKED;
    f.has_metadata = flags & FLAG_HAS_METADATA;
    f.size = get_i64(&r);
    if (!f.filename || !f.url || flags > (FLAG_YANKED | FLAG_HAS_METADATA))
      r.bad = true;
    else if (!r.bad)
      ts_index_project_take_file(out, &f);

    ts_index_file_clear(&f);
  }
  if (r.bad || r.left) {
    ts_index_project_clear(out);
    return TS_E_PARSE;
  }
  return TS_OK;
}
