/*
 * toml/toml.c — strict TOML 1.0 reader (tree of ts_toml_value) and the
 * tree's builders; the writer is write.c.  The definition rules follow the TOML 1.0 text and
 * CPython's tomllib: a [header] may define a table once; tables made by
 * dotted keys are closed to headers and, once their section ends, to other
 * dotted keys; inline tables and value arrays are frozen.
 */
#include "core/text.h"
#include "core/str.h"
#include "core/vec.h"
#include "toml/chars.h"
#include "toml/toml.h"

#include <limits.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>

enum {
  F_EXPLICIT = 1u << 0, /* defined by a [header] or [[header]] */
  F_DOTTED = 1u << 1,   /* created by a dotted key; .section says where */
  F_FROZEN = 1u << 2,   /* inline table or value array: closed */
  F_AOT = 1u << 3,      /* array made by [[header]] */
};

/* ------------------------------------------------------------------ */
/* nodes                                                                */

static struct ts_toml_value *node_new(enum ts_toml_type type) {
  struct ts_toml_value *v = ts_xcalloc(1, sizeof *v);
  v->type = type;
  return v;
}

void ts_toml_free(struct ts_toml_value *v) {
  if (!v)
    return;
  free(v->str);
  for (size_t i = 0; i < v->nitems; i++)
    ts_toml_free(v->items[i]);
  free(v->items);
  for (size_t i = 0; i < v->nkvs; i++) {
    free(v->kvs[i].key);
    ts_toml_free(v->kvs[i].value);
  }
  free(v->kvs);
  free(v->index);
  free(v);
}

static uint64_t key_hash(const char *k, size_t len) {
  uint64_t h = 1469598103934665603ull; /* FNV-1a */
  for (size_t i = 0; i < len; i++) {
    h ^= (unsigned char)k[i];
    h *= 1099511628211ull;
  }
  return h;
}

#define INDEX_EMPTY ((size_t)-1)
#define INDEX_MIN_KEYS 8

static void index_insert(struct ts_toml_value *t, size_t i) {
  size_t mask = t->index_cap - 1;
  size_t h = (size_t)key_hash(t->kvs[i].key, t->kvs[i].key_len) & mask;
  while (t->index[h] != INDEX_EMPTY)
    h = (h + 1) & mask;
  t->index[h] = i;
}

static void index_grow(struct ts_toml_value *t) {
  size_t cap = t->index_cap ? t->index_cap : 32;
  while (cap < 2 * (t->nkvs + 1))
    cap *= 2;
  if (cap == t->index_cap)
    return;
  size_t *idx = ts_xreallocarray(NULL, cap, sizeof *idx);
  for (size_t i = 0; i < cap; i++)
    idx[i] = INDEX_EMPTY;
  free(t->index);
  t->index = idx;
  t->index_cap = cap;
  for (size_t i = 0; i < t->nkvs; i++)
    index_insert(t, i);
}

static ssize_t table_find(const struct ts_toml_value *t, const char *key,
                          size_t len) {
  if (t->index) {
    size_t mask = t->index_cap - 1;
    size_t h = (size_t)key_hash(key, len) & mask;
    while (t->index[h] != INDEX_EMPTY) {
      const struct ts_toml_kv *kv = &t->kvs[t->index[h]];
      if (kv->key_len == len && memcmp(kv->key, key, len) == 0)
        return (ssize_t)t->index[h];
      h = (h + 1) & mask;
    }
    return -1;
  }
  for (size_t i = 0; i < t->nkvs; i++)
    if (t->kvs[i].key_len == len && memcmp(t->kvs[i].key, key, len) == 0)
      return (ssize_t)i;
  return -1;
}

/* Appends key -> value (key must be absent) and takes value. */
static void table_add(struct ts_toml_value *t, const char *key, size_t len,
                      struct ts_toml_value *value) {
  t->kvs = ts_vec_grow(t->kvs, &t->kvs_cap, t->nkvs + 1, sizeof *t->kvs);
  char *k = ts_xstrndup(key, len);
  if (t->nkvs + 1 > INDEX_MIN_KEYS && 2 * (t->nkvs + 1) > t->index_cap)
    index_grow(t);
  t->kvs[t->nkvs].key = k;
  t->kvs[t->nkvs].key_len = len;
  t->kvs[t->nkvs].value = value;
  t->nkvs++;
  if (t->index)
    index_insert(t, t->nkvs - 1);
}

static void array_add(struct ts_toml_value *a, struct ts_toml_value *v) {
  a->items = ts_vec_grow(a->items, &a->items_cap, a->nitems + 1, sizeof *a->items);
  a->items[a->nitems++] = v;
}

const struct ts_toml_value *ts_toml_get(const struct ts_toml_value *t,
                                        const char *key) {
  if (!t || t->type != TS_TOML_TABLE || !key)
    return NULL;
  ssize_t i = table_find(t, key, strlen(key));
  return i < 0 ? NULL : t->kvs[i].value;
}

struct ts_toml_value *ts_toml_new_table(void) { return node_new(TS_TOML_TABLE); }
struct ts_toml_value *ts_toml_new_array(void) { return node_new(TS_TOML_ARRAY); }

struct ts_toml_value *ts_toml_new_string(const char *s, size_t len) {
  if (!s && len)
    return NULL;
  struct ts_toml_value *v = node_new(TS_TOML_STRING);
  v->str = ts_xstrndup(s ? s : "", len);
  if (!v->str) {
    free(v);
    return NULL;
  }
  v->len = len;
  return v;
}

struct ts_toml_value *ts_toml_new_integer(long long i) {
  struct ts_toml_value *v = node_new(TS_TOML_INTEGER);
  if (v)
    v->integer = i;
  return v;
}

struct ts_toml_value *ts_toml_new_bool(bool b) {
  struct ts_toml_value *v = node_new(TS_TOML_BOOL);
  if (v)
    v->boolean = b;
  return v;
}

struct ts_toml_value *ts_toml_new_datetime(const char *text, size_t len) {
  enum ts_toml_datetime_kind kind;
  if (!text || !ts_toml_datetime_check(text, len, &kind))
    return NULL;
  struct ts_toml_value *v = ts_toml_new_string(text, len);
  if (!v)
    return NULL;
  v->type = TS_TOML_DATETIME;
  v->datetime_kind = kind;
  return v;
}

enum ts_code ts_toml_table_set(struct ts_toml_value *t, const char *key,
                               struct ts_toml_value *value) {
  if (!value)
    return TS_E_NOMEM;
  if (!t || t->type != TS_TOML_TABLE || !key) {
    ts_toml_free(value);
    return TS_E_INVALID;
  }
  size_t len = strlen(key);
  ssize_t i = table_find(t, key, len);
  if (i >= 0) {
    ts_toml_free(t->kvs[i].value);
    t->kvs[i].value = value;
    return TS_OK;
  }
  table_add(t, key, len, value);
  return TS_OK;
}

enum ts_code ts_toml_table_set_str(struct ts_toml_value *t, const char *key,
                                   const char *s) {
  if (!s)
    return TS_OK;
  return ts_toml_table_set(t, key, ts_toml_new_string(s, strlen(s)));
}

enum ts_code ts_toml_array_push(struct ts_toml_value *a,
                                struct ts_toml_value *value) {
  if (!value)
    return TS_E_NOMEM;
  if (!a || a->type != TS_TOML_ARRAY) {
    ts_toml_free(value);
    return TS_E_INVALID;
  }
  array_add(a, value);
  return TS_OK;
}

struct ts_toml_value *ts_toml_dup(const struct ts_toml_value *v) {
  if (!v)
    return NULL;
  struct ts_toml_value *c = node_new(v->type);
  c->line = v->line;
  c->col = v->col;
  c->integer = v->integer;
  c->boolean = v->boolean;
  c->datetime_kind = v->datetime_kind;
  c->inline_form = v->inline_form;
  c->flags = v->flags;
  if (v->str) {
    c->str = ts_xstrndup(v->str, v->len);
    c->len = v->len;
  }
  for (size_t i = 0; i < v->nitems; i++)
    array_add(c, ts_toml_dup(v->items[i]));
  for (size_t i = 0; i < v->nkvs; i++)
    table_add(c, v->kvs[i].key, v->kvs[i].key_len, ts_toml_dup(v->kvs[i].value));
  return c;

}

bool ts_toml_equal(const struct ts_toml_value *a,
                   const struct ts_toml_value *b) {
  if (!a || !b)
    return a == b;
  if (a->type != b->type)
    return false;
  switch (a->type) {
  case TS_TOML_INTEGER:
    return a->integer == b->integer;
  case TS_TOML_BOOL:
    return a->boolean == b->boolean;
  case TS_TOML_DATETIME:
    if (a->datetime_kind != b->datetime_kind)
      return false;
    /* fallthrough */
  case TS_TOML_STRING:
  case TS_TOML_FLOAT:
    return a->len == b->len && memcmp(a->str, b->str, a->len) == 0;
  case TS_TOML_ARRAY:
    if (a->nitems != b->nitems)
      return false;
    for (size_t i = 0; i < a->nitems; i++)
      if (!ts_toml_equal(a->items[i], b->items[i]))
        return false;
    return true;
  case TS_TOML_TABLE:
    if (a->nkvs != b->nkvs)
      return false;
    for (size_t i = 0; i < a->nkvs; i++) {
      ssize_t j = table_find(b, a->kvs[i].key, a->kvs[i].key_len);
      if (j < 0 || !ts_toml_equal(a->kvs[i].value, b->kvs[j].value))
        return false;
    }
    return true;
  }
  return false;
}

/* ------------------------------------------------------------------ */
/* dates and times                                                      */

static bool digits(const char *s, size_t len, size_t at, size_t n,
                   unsigned *out) {
  if (at + n > len)
    return false;
  unsigned v = 0;
  for (size_t i = 0; i < n; i++) {
    if (s[at + i] < '0' || s[at + i] > '9')
      return false;
    v = v * 10 + (unsigned)(s[at + i] - '0');
  }
  *out = v;
  return true;
}

/* Length of a valid YYYY-MM-DD at s, or 0. */
static size_t scan_date(const char *s, size_t len) {
  unsigned y, m, d;
  if (!digits(s, len, 0, 4, &y) || len < 10 || s[4] != '-' ||
      !digits(s, len, 5, 2, &m) || s[7] != '-' || !digits(s, len, 8, 2, &d))
    return 0;
  static const unsigned mdays[] = {31, 29, 31, 30, 31, 30,
                                   31, 31, 30, 31, 30, 31};
  if (m < 1 || m > 12 || d < 1 || d > mdays[m - 1])
    return 0;
  bool leap = (y % 4 == 0 && y % 100 != 0) || y % 400 == 0;
  if (m == 2 && d == 29 && !leap)
    return 0;
  return 10;
}

/* Length of a valid HH:MM:SS(.frac)? at s, or 0. */
static size_t scan_time(const char *s, size_t len) {
  unsigned h, mi, sec;
  if (!digits(s, len, 0, 2, &h) || len < 8 || s[2] != ':' ||
      !digits(s, len, 3, 2, &mi) || s[5] != ':' || !digits(s, len, 6, 2, &sec))
    return 0;
  if (h > 23 || mi > 59 || sec > 59)
    return 0;
  size_t n = 8;
  if (n < len && s[n] == '.') {
    size_t f = n + 1;
    while (f < len && s[f] >= '0' && s[f] <= '9')
      f++;
    if (f == n + 1)
      return 0;
    n = f;
  }
  return n;
}

/* Length of a valid Z or +HH:MM at s, or 0. */
static size_t scan_offset(const char *s, size_t len) {
  if (len >= 1 && (s[0] == 'Z' || s[0] == 'z'))
    return 1;
  unsigned h, m;
  if (len >= 6 && (s[0] == '+' || s[0] == '-') && digits(s, len, 1, 2, &h) &&
      s[3] == ':' && digits(s, len, 4, 2, &m) && h <= 23 && m <= 59)
    return 6;
  return 0;
}

/* Longest date/time literal at s: returns its length (0 if none). */
static size_t scan_datetime(const char *s, size_t len,
                            enum ts_toml_datetime_kind *kind) {
  size_t n = scan_date(s, len);
  if (n == 0) {
    n = scan_time(s, len);
    if (n)
      *kind = TS_TOML_LOCAL_TIME;
    return n;
  }
  if (n < len && (s[n] == 'T' || s[n] == 't' || s[n] == ' ')) {
    size_t t = scan_time(s + n + 1, len - n - 1);
    if (t == 0) {
      if (s[n] == ' ') {
        *kind = TS_TOML_LOCAL_DATE;
        return n;
      }
      return 0;
    }
    n += 1 + t;
    size_t o = scan_offset(s + n, len - n);
    *kind = o ? TS_TOML_OFFSET_DATETIME : TS_TOML_LOCAL_DATETIME;
    return n + o;
  }
  *kind = TS_TOML_LOCAL_DATE;
  return n;
}

bool ts_toml_datetime_check(const char *s, size_t len,
                            enum ts_toml_datetime_kind *kind) {
  enum ts_toml_datetime_kind k;
  if (!s)
    return false;
  size_t n = scan_datetime(s, len, &k);
  if (n == 0 || n != len)
    return false;
  if (kind)
    *kind = k;
  return true;
}

/* ------------------------------------------------------------------ */
/* parser                                                               */

struct parser {
  const char *s;
  size_t len, pos;
  struct ts_error *err;
  enum ts_code rc;
  unsigned section; /* counts [headers]; dotted tables remember theirs */
  unsigned base_depth; /* key parts of the current [header] */
  /* Incremental line/column cursor for node positions and errors. */
  size_t cur_pos, cur_line_start;
  unsigned cur_line, cur_col;
};

static void linecol(struct parser *p, size_t pos, unsigned *line,
                    unsigned *col) {
  if (pos < p->cur_pos) {
    p->cur_pos = 0;
    p->cur_line = 1;
    p->cur_col = 1;
  }
  while (p->cur_pos < pos && p->cur_pos < p->len) {
    unsigned char c = (unsigned char)p->s[p->cur_pos++];
    if (c == '\n') {
      p->cur_line++;
      p->cur_col = 1;
    } else if ((c & 0xC0) != 0x80) {
      p->cur_col++;
    }
  }
  *line = p->cur_line;
  *col = p->cur_col;
}

static enum ts_code fail_at(struct parser *p, size_t pos, enum ts_code code,
                            const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
static enum ts_code fail_at(struct parser *p, size_t pos, enum ts_code code,
                            const char *fmt, ...) {
  if (p->rc != TS_OK)
    return p->rc; /* keep the first (innermost) error */
  unsigned line, col;
  linecol(p, pos, &line, &col);
  char msg[512];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(msg, sizeof msg, fmt, ap);
  va_end(ap);
  p->rc = code;
  ts_error_set(p->err, code, "%u:%u: %s", line, col, msg);
  return code;
}

#define FAIL(p, ...) fail_at((p), (p)->pos, TS_E_PARSE, __VA_ARGS__)

static int peek(const struct parser *p) {
  return p->pos < p->len ? (unsigned char)p->s[p->pos] : -1;
}

static bool at_str(const struct parser *p, const char *lit) {
  size_t n = strlen(lit);
  return p->len - p->pos >= n && memcmp(p->s + p->pos, lit, n) == 0;
}

static void skip_ws(struct parser *p) {
  while (p->pos < p->len && (p->s[p->pos] == ' ' || p->s[p->pos] == '\t'))
    p->pos++;
}

/* A control character TOML forbids in comments and strings. */
static bool bad_control(unsigned char c) {
  return (c < 0x20 && c != '\t') || c == 0x7F;
}

/* Skips a comment if there is one.  Stops before the newline. */
static enum ts_code skip_comment(struct parser *p) {
  if (peek(p) != '#')
    return TS_OK;
  while (p->pos < p->len && p->s[p->pos] != '\n') {
    unsigned char c = (unsigned char)p->s[p->pos];
    if (c == '\r' && p->pos + 1 < p->len && p->s[p->pos + 1] == '\n')
      break;
    if (bad_control(c))
      return FAIL(p, "control character U+%04X in a comment", c);
    p->pos++;
  }
  return TS_OK;
}

/* Consumes one newline (LF or CRLF).  Returns false if none is here. */
static bool eat_newline(struct parser *p) {
  if (peek(p) == '\n') {
    p->pos++;
    return true;
  }
  if (peek(p) == '\r' && p->pos + 1 < p->len && p->s[p->pos + 1] == '\n') {
    p->pos += 2;
    return true;
  }
  return false;
}

/* Whitespace, comments and newlines (inside arrays). */
static enum ts_code skip_ws_nl(struct parser *p) {
  for (;;) {
    skip_ws(p);
    if (skip_comment(p) != TS_OK)
      return p->rc;
    if (!eat_newline(p))
      break;
  }
  if (peek(p) == '\r')
    return FAIL(p, "carriage return not followed by a line feed");
  return TS_OK;
}

/* After a key/value or header: spaces, optional comment, then newline/EOF. */
static enum ts_code expect_eol(struct parser *p) {
  skip_ws(p);
  if (skip_comment(p) != TS_OK)
    return p->rc;
  if (p->pos >= p->len || eat_newline(p))
    return TS_OK;
  return FAIL(p, "expected the end of the line, found '%c'",
              peek(p) >= 0x20 && peek(p) < 0x7F ? peek(p) : '?');
}

/* \uXXXX or \UXXXXXXXX at p->pos (the letter e; the backslash at esc):
 * false when malformed (*rc: the parse error), else the scalar value is
 * appended to b as UTF-8 (*rc: the append's code, which the caller meets
 * again where the string stops). */
static bool unicode_escape(struct parser *p, size_t esc, int e, struct ts_buf *b,
                           enum ts_code *rc) {
  size_t n = e == 'u' ? 4 : 8;
  uint32_t cp = 0;
  if (p->len - p->pos - 1 < n) {
    *rc = fail_at(p, esc, TS_E_PARSE, "truncated \\%c escape", e);
    return false;
  }
  for (size_t k = 0; k < n; k++) {
    int v = ts_hex_digit(p->s[p->pos + 1 + k]);
    if (v < 0) {
      *rc = fail_at(p, esc, TS_E_PARSE, "invalid hex digit in \\%c escape", e);
      return false;
    }
    cp = cp * 16 + (uint32_t)v;
  }
  if (cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF)) {
    *rc = fail_at(p, esc, TS_E_PARSE, "\\%c escape is not a Unicode scalar value", e);
    return false;
  }
  char u[4];
  size_t ul = ts_utf8_put(u, cp);
  *rc = ts_buf_append(b, u, ul);
  p->pos += 1 + n;
  return true;
}

/* A line-ending backslash in a multi-line basic string (at esc): only
 * whitespace may follow it on the line; it eats that newline and every
 * blank line and indentation after it. */
static enum ts_code line_ending_backslash(struct parser *p, size_t esc) {
  size_t q2 = p->pos;
  while (q2 < p->len && (p->s[q2] == ' ' || p->s[q2] == '\t'))
    q2++;
  p->pos = q2;
  if (!eat_newline(p))
    return fail_at(p, esc, TS_E_PARSE, "invalid escape '\\ '");
  for (;;) {
    skip_ws(p);
    if (!eat_newline(p))
      break;
  }
  return TS_OK;
}

/* Parses a string of any of the four kinds at p->pos into a new buffer. */
static enum ts_code parse_string(struct parser *p, char **out, size_t *out_len) {
  *out = NULL;
  bool literal = peek(p) == '\'';
  const char *delim = literal ? "'''" : "\"\"\"";
  bool multi = at_str(p, delim);
  size_t start = p->pos;
  p->pos += multi ? 3 : 1;
  if (multi) /* a newline right after the opening delimiter is trimmed */
    eat_newline(p);
  char q = literal ? '\'' : '"';
  struct ts_buf b;
  ts_buf_init(&b, TS_TOML_MAX_STRING);
  enum ts_code rc = TS_OK;
  for (;;) {
    if (p->pos >= p->len) {
      rc = fail_at(p, start, TS_E_PARSE, "unterminated string");
      break;
    }
    unsigned char c = (unsigned char)p->s[p->pos];
    if (c == (unsigned char)q) {
      if (!multi) {
        p->pos++;
        break;
      }
      if (at_str(p, delim)) {
        /* Up to two more quotes belong to the content: """a""""" -> a"" */
        size_t extra = 0;
        while (extra < 2 && p->pos + 3 + extra < p->len &&
               p->s[p->pos + 3 + extra] == q)
          extra++;
        if (extra && (rc = ts_buf_append(&b, p->s + p->pos, extra)) != TS_OK)
          break;
        p->pos += 3 + extra;
        break;
      }
      rc = ts_buf_append(&b, &q, 1);
      p->pos++;
      if (rc != TS_OK)
        break;
      continue;
    }
    if (c == '\n' || c == '\r') {
      if (!multi) {
        rc = FAIL(p, "newline in a single-line string");
        break;
      }
      if (!eat_newline(p)) {
        rc = FAIL(p, "carriage return not followed by a line feed");
        break;
      }
      if ((rc = ts_buf_append(&b, "\n", 1)) != TS_OK)
        break;
      continue;
    }
    if (bad_control(c)) {
      rc = FAIL(p, "control character U+%04X in a string", c);
      break;
    }
    if (c != '\\' || literal) {
      size_t run = p->pos + 1; /* copy a run of ordinary bytes */
      while (run < p->len) {
        unsigned char d = (unsigned char)p->s[run];
        if (d == (unsigned char)q || d == '\\' || d == '\n' || d == '\r' ||
            bad_control(d))
          break;
        run++;
      }
      if (literal && run < p->len && p->s[run] == '\\')
        run++; /* a backslash is plain text in literal strings */
      if ((rc = ts_buf_append(&b, p->s + p->pos, run - p->pos)) != TS_OK)
        break;
      p->pos = run;
      continue;
    }
    /* escapes */
    size_t esc = p->pos;
    p->pos++;
    int e = peek(p);
    char ch = ts_toml_unescaped(e);
    if (ch) {
      p->pos++;
      if ((rc = ts_buf_append(&b, &ch, 1)) != TS_OK)
        break;
      continue;
    }
    switch (e) {
    case 'u':
    case 'U':
      if (!unicode_escape(p, esc, e, &b, &rc))
        break;
      continue;
    default:
      if (multi && (e == ' ' || e == '\t' || e == '\n' || e == '\r')) {
        rc = line_ending_backslash(p, esc);
        if (rc != TS_OK)
          break;
        continue;
      }
      if (e >= 0x20 && e < 0x7F)
        rc = fail_at(p, esc, TS_E_PARSE, "invalid escape '\\%c'", e);
      else
        rc = fail_at(p, esc, TS_E_PARSE, "invalid escape");
      break;
    }
    if (rc != TS_OK)
      break;
  }
  if (rc == TS_E_TOO_BIG)
    rc = fail_at(p, start, TS_E_TOO_BIG, "string longer than %u bytes",
                 TS_TOML_MAX_STRING);
  if (rc != TS_OK) {
    ts_buf_clear(&b);
    return rc;
  }
  if (!b.data)
    ts_buf_xappend(&b, "", 0);
  *out = ts_buf_take(&b, out_len);
  return TS_OK;
}

struct key_part {
  char *s;
  size_t len;
  size_t pos;
};

struct key {
  struct key_part parts[TS_TOML_MAX_DEPTH];
  size_t n;
};

static void key_free(struct key *k) {
  for (size_t i = 0; i < k->n; i++)
    free(k->parts[i].s);
  k->n = 0;
}

/* key = simple-key *( ws "." ws simple-key ) */
static enum ts_code parse_key(struct parser *p, struct key *k) {
  k->n = 0;
  for (;;) {
    skip_ws(p);
    if (k->n == TS_TOML_MAX_DEPTH)
      return fail_at(p, p->pos, TS_E_TOO_BIG, "key has more than %d parts",
                     TS_TOML_MAX_DEPTH);
    struct key_part *part = &k->parts[k->n];
    part->pos = p->pos;
    int c = peek(p);
    if (c == '"' || c == '\'') {
      if (at_str(p, c == '"' ? "\"\"\"" : "'''"))
        return FAIL(p, "a key cannot be a multi-line string");
      if (parse_string(p, &part->s, &part->len) != TS_OK)
        return p->rc;
      k->n++;
      if (memchr(part->s, '\0', part->len))
        return fail_at(p, part->pos, TS_E_PARSE, "a key cannot hold U+0000");
    } else if (ts_toml_is_bare(c)) {
      size_t st = p->pos;
      while (ts_toml_is_bare(peek(p)))
        p->pos++;
      part->s = ts_xstrndup(p->s + st, p->pos - st);
      part->len = p->pos - st;
      k->n++;
    } else {
      return FAIL(p, "expected a key");
    }
    skip_ws(p);
    if (peek(p) != '.')
      return TS_OK;
    p->pos++;
  }
}

static const char *type_name(const struct ts_toml_value *v) {
  switch (v->type) {
  case TS_TOML_STRING: return "a string";
  case TS_TOML_INTEGER: return "an integer";
  case TS_TOML_FLOAT: return "a float";
  case TS_TOML_BOOL: return "a boolean";
  case TS_TOML_DATETIME: return "a date-time";
  case TS_TOML_ARRAY: return (v->flags & F_AOT) ? "an array of tables" : "an array";
  case TS_TOML_TABLE: return "a table";
  }
  return "a value";
}

static enum ts_code parse_value(struct parser *p, struct ts_toml_value **out,
                                unsigned depth);

/* A new, empty table under t named by key part kp, its position
 * recorded. */
static struct ts_toml_value *add_subtable(struct parser *p, struct ts_toml_value *t,
                                          const struct key_part *kp) {
  struct ts_toml_value *nt = node_new(TS_TOML_TABLE);
  table_add(t, kp->s, kp->len, nt);
  linecol(p, kp->pos, &nt->line, &nt->col);
  return nt;
}

/* Assigns key = value inside table t (dotted keys create sub-tables).
 * Takes value in every case. */
static enum ts_code assign(struct parser *p, struct ts_toml_value *t,
                           struct key *k, struct ts_toml_value *value) {
  for (size_t i = 0; i + 1 < k->n; i++) {
    struct key_part *kp = &k->parts[i];
    ssize_t j = table_find(t, kp->s, kp->len);
    if (j < 0) {
      struct ts_toml_value *nt = add_subtable(p, t, kp);
      nt->flags = F_DOTTED;
      nt->section = p->section;
      t = nt;
      continue;
    }
    struct ts_toml_value *x = t->kvs[j].value;
    if (x->type != TS_TOML_TABLE || (x->flags & (F_FROZEN | F_EXPLICIT)) ||
        ((x->flags & F_DOTTED) && x->section != p->section)) {
      ts_toml_free(value);
      return fail_at(p, kp->pos, TS_E_PARSE,
                     "cannot add keys to '%s': it is %s defined elsewhere",
                     kp->s, type_name(x));
    }
    t = x;
  }
  struct key_part *last = &k->parts[k->n - 1];
  if (table_find(t, last->s, last->len) >= 0) {
    ts_toml_free(value);
    return fail_at(p, last->pos, TS_E_PARSE, "duplicate key '%s'", last->s);
  }
  table_add(t, last->s, last->len, value);
  return TS_OK;
}

static void freeze(struct ts_toml_value *v) {
  v->flags |= F_FROZEN;
}

static enum ts_code parse_inline_table(struct parser *p,
                                       struct ts_toml_value **out,
                                       unsigned depth) {
  struct ts_toml_value *t = node_new(TS_TOML_TABLE);
  if (!t)
    return FAIL(p, "out of memory");
  linecol(p, p->pos, &t->line, &t->col);
  t->inline_form = true;
  p->pos++; /* { */
  skip_ws(p);
  if (peek(p) == '}') {
    p->pos++;
    freeze(t);
    *out = t;
    return TS_OK;
  }
  /* Dotted keys inside the braces must not leak into other sections:
   * give the inline table a section number of its own. */
  unsigned saved = p->section;
  p->section = UINT_MAX - depth;
  for (;;) {
    struct key k;
    if (parse_key(p, &k) != TS_OK) {
      key_free(&k);
      goto fail;
    }
    if (peek(p) != '=') {
      key_free(&k);
      FAIL(p, "expected '=' after a key");
      goto fail;
    }
    p->pos++;
    skip_ws(p);
    struct ts_toml_value *v = NULL;
    /* dotted parts nest tables too: they count toward the depth cap */
    if (parse_value(p, &v, depth + (unsigned)k.n) != TS_OK) {
      key_free(&k);
      goto fail;
    }
    enum ts_code rc = assign(p, t, &k, v);
    key_free(&k);
    if (rc != TS_OK)
      goto fail;
    skip_ws(p);
    if (peek(p) == ',') {
      p->pos++;
      skip_ws(p);
      if (peek(p) == '}') {
        FAIL(p, "trailing comma in an inline table");
        goto fail;
      }
      continue;
    }
    if (peek(p) == '}') {
      p->pos++;
      break;
    }
    if (peek(p) == '\n' || peek(p) == '\r')
      FAIL(p, "newline in an inline table");
    else
      FAIL(p, "expected ',' or '}' in an inline table");
    goto fail;
  }
  p->section = saved;
  /* Everything in an inline table is closed once it is written. */
  for (size_t i = 0; i < t->nkvs; i++)
    if (t->kvs[i].value->type == TS_TOML_TABLE)
      t->kvs[i].value->inline_form = true;
  freeze(t);
  *out = t;
  return TS_OK;
fail:
  p->section = saved;
  ts_toml_free(t);
  return p->rc;
}

static enum ts_code parse_array(struct parser *p, struct ts_toml_value **out,
                                unsigned depth) {
  struct ts_toml_value *a = node_new(TS_TOML_ARRAY);
  if (!a)
    return FAIL(p, "out of memory");
  linecol(p, p->pos, &a->line, &a->col);
  p->pos++; /* [ */
  for (;;) {
    if (skip_ws_nl(p) != TS_OK)
      goto fail;
    if (peek(p) == ']') {
      p->pos++;
      break;
    }
    struct ts_toml_value *v = NULL;
    if (parse_value(p, &v, depth + 1) != TS_OK)
      goto fail;
    array_add(a, v);
    if (skip_ws_nl(p) != TS_OK)
      goto fail;
    if (peek(p) == ',') {
      p->pos++;
      continue;
    }
    if (peek(p) == ']') {
      p->pos++;
      break;
    }
    FAIL(p, p->pos >= p->len ? "unterminated array"
                             : "expected ',' or ']' in an array");
    goto fail;
  }
  freeze(a);
  a->inline_form = true; /* a value array stays a value array when written */
  *out = a;
  return TS_OK;
fail:
  ts_toml_free(a);
  return p->rc;
}

/* Checks digits with single underscores between them; returns count. */
static size_t scan_digits(const char *s, size_t len, size_t at, int base) {
  size_t i = at;
  bool prev_digit = false;
  while (i < len) {
    char c = s[i];
    bool d = base == 16   ? ((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') ||
                           (c >= 'A' && c <= 'F'))
             : base == 8 ? (c >= '0' && c <= '7')
             : base == 2 ? (c == '0' || c == '1')
                         : (c >= '0' && c <= '9');
    if (d) {
      prev_digit = true;
    } else if (c == '_' && prev_digit && i + 1 < len) {
      prev_digit = false;
    } else {
      break;
    }
    i++;
  }
  if (i > at && s[i - 1] == '_')
    i--; /* trailing underscore: let the caller see it as junk */
  return i - at;
}

static bool token_end(int c) {
  return c < 0 || c == ' ' || c == '\t' || c == '\n' || c == '\r' ||
         c == ',' || c == ']' || c == '}' || c == '#';
}

/* Integers, floats, inf/nan. */
static enum ts_code parse_number(struct parser *p, struct ts_toml_value **out) {
  size_t st = p->pos;
  const char *s = p->s;
  size_t len = p->len, i = st;
  bool sign = s[i] == '+' || s[i] == '-';
  if (sign)
    i++;
  if (len - i >= 3 && (memcmp(s + i, "inf", 3) == 0 ||
                       memcmp(s + i, "nan", 3) == 0) &&
      token_end(i + 3 < len ? (unsigned char)s[i + 3] : -1)) {
    i += 3;
    goto float_done;
  }
  if (i + 1 < len && s[i] == '0' &&
      (s[i + 1] == 'x' || s[i + 1] == 'o' || s[i + 1] == 'b')) {
    if (sign)
      return fail_at(p, st, TS_E_PARSE, "a sign is not allowed on 0%c numbers",
                     s[i + 1]);
    int base = s[i + 1] == 'x' ? 16 : s[i + 1] == 'o' ? 8 : 2;
    size_t n = scan_digits(s, len, i + 2, base);
    if (n == 0 || !token_end(i + 2 + n < len ? (unsigned char)s[i + 2 + n] : -1))
      return fail_at(p, st, TS_E_PARSE, "invalid integer");
    unsigned long long v = 0;
    for (size_t k = i + 2; k < i + 2 + n; k++) {
      if (s[k] == '_')
        continue;
      unsigned d = s[k] <= '9' ? (unsigned)(s[k] - '0')
                               : (unsigned)((s[k] | 0x20) - 'a' + 10);
      if (v > ((unsigned long long)LLONG_MAX - d) / (unsigned)base)
        return fail_at(p, st, TS_E_PARSE, "integer out of range");
      v = v * (unsigned)base + d;
    }
    struct ts_toml_value *x = node_new(TS_TOML_INTEGER);
    x->integer = (long long)v;
    p->pos = i + 2 + n;
    *out = x;
    return TS_OK;
  }
  size_t n = scan_digits(s, len, i, 10);
  if (n == 0)
    return fail_at(p, st, TS_E_PARSE, "invalid value");
  if (s[i] == '0' && n > 1)
    return fail_at(p, st, TS_E_PARSE, "leading zeros are not allowed");
  size_t int_end = i + n;
  bool is_float = false;
  i = int_end;
  if (i < len && s[i] == '.') {
    size_t f = scan_digits(s, len, i + 1, 10);
    if (f == 0)
      return fail_at(p, st, TS_E_PARSE, "a decimal point needs digits after it");
    i += 1 + f;
    is_float = true;
  }
  if (i < len && (s[i] == 'e' || s[i] == 'E')) {
    size_t e = i + 1;
    if (e < len && (s[e] == '+' || s[e] == '-'))
      e++;
    size_t f = scan_digits(s, len, e, 10);
    if (f == 0)
      return fail_at(p, st, TS_E_PARSE, "an exponent needs digits");
    i = e + f;
    is_float = true;
  }
  if (!token_end(i < len ? (unsigned char)s[i] : -1))
    return fail_at(p, st, TS_E_PARSE, "invalid number");
  if (!is_float) {
    unsigned long long v = 0;
    bool neg = s[st] == '-';
    unsigned long long lim = neg ? (unsigned long long)LLONG_MAX + 1
                                 : (unsigned long long)LLONG_MAX;
    for (size_t k = st + (sign ? 1 : 0); k < int_end; k++) {
      if (s[k] == '_')
        continue;
      unsigned d = (unsigned)(s[k] - '0');
      if (v > (lim - d) / 10)
        return fail_at(p, st, TS_E_PARSE, "integer out of range");
      v = v * 10 + d;
    }
    struct ts_toml_value *x = node_new(TS_TOML_INTEGER);
    x->integer = neg ? (v == (unsigned long long)LLONG_MAX + 1
                            ? LLONG_MIN
                            : -(long long)v)
                     : (long long)v;
    p->pos = i;
    *out = x;
    return TS_OK;
  }
float_done:;
  struct ts_toml_value *x = ts_toml_new_string(s + st, i - st);
  x->type = TS_TOML_FLOAT;
  p->pos = i;
  *out = x;
  return TS_OK;
}

static enum ts_code parse_value(struct parser *p, struct ts_toml_value **out,
                                unsigned depth) {
  *out = NULL;
  if (depth > TS_TOML_MAX_DEPTH)
    return fail_at(p, p->pos, TS_E_TOO_BIG, "values nested deeper than %d",
                   TS_TOML_MAX_DEPTH);
  unsigned line, col;
  linecol(p, p->pos, &line, &col);
  int c = peek(p);
  enum ts_code rc;
  if (c == '"' || c == '\'') {
    char *s;
    size_t len;
    if (parse_string(p, &s, &len) != TS_OK)
      return p->rc;
    struct ts_toml_value *v = node_new(TS_TOML_STRING);
    if (!v) {
      free(s);
      return FAIL(p, "out of memory");
    }
    v->str = s;
    v->len = len;
    *out = v;
    rc = TS_OK;
  } else if (c == '[') {
    rc = parse_array(p, out, depth);
  } else if (c == '{') {
    rc = parse_inline_table(p, out, depth);
  } else if (at_str(p, "true") &&
             token_end(p->pos + 4 < p->len ? (unsigned char)p->s[p->pos + 4]
                                           : -1)) {
    p->pos += 4;
    *out = ts_toml_new_bool(true);
    rc = *out ? TS_OK : FAIL(p, "out of memory");
  } else if (at_str(p, "false") &&
             token_end(p->pos + 5 < p->len ? (unsigned char)p->s[p->pos + 5]
                                           : -1)) {
    p->pos += 5;
    *out = ts_toml_new_bool(false);
    rc = *out ? TS_OK : FAIL(p, "out of memory");
  } else if (c < 0 || c == '\n' || c == '\r' || c == '#') {
    return FAIL(p, "expected a value");
  } else {
    enum ts_toml_datetime_kind kind;
    size_t n = scan_datetime(p->s + p->pos, p->len - p->pos, &kind);
    if (n) {
      if (!token_end(p->pos + n < p->len ? (unsigned char)p->s[p->pos + n] : -1))
        return FAIL(p, "invalid date or time");
      *out = ts_toml_new_string(p->s + p->pos, n);
      if (!*out)
        return FAIL(p, "out of memory");
      (*out)->type = TS_TOML_DATETIME;
      (*out)->datetime_kind = kind;
      p->pos += n;
      rc = TS_OK;
    } else if ((c >= '0' && c <= '9') || c == '+' || c == '-' || c == 'i' ||
               c == 'n') {
      rc = parse_number(p, out);
    } else {
      return FAIL(p, "expected a value");
    }
  }
  if (rc == TS_OK && *out) {
    (*out)->line = line;
    (*out)->col = col;
  }
  return rc;
}

/* Walks/creates the tables of a [header] or [[header]] path (all parts but
 * the last) starting at root.  Array-of-tables steps go to their last
 * element. */
static enum ts_code walk_header(struct parser *p, struct ts_toml_value *root,
                                struct key *k, struct ts_toml_value **out) {
  struct ts_toml_value *t = root;
  for (size_t i = 0; i + 1 < k->n; i++) {
    struct key_part *kp = &k->parts[i];
    ssize_t j = table_find(t, kp->s, kp->len);
    if (j < 0) {
      t = add_subtable(p, t, kp);

      continue;
    }
    struct ts_toml_value *x = t->kvs[j].value;
    if (x->type == TS_TOML_ARRAY && (x->flags & F_AOT) && x->nitems) {
      t = x->items[x->nitems - 1];
      continue;
    }
    if (x->type != TS_TOML_TABLE || (x->flags & F_FROZEN))
      return fail_at(p, kp->pos, TS_E_PARSE,
                     "cannot define a table inside '%s': it is %s", kp->s,
                     (x->flags & F_FROZEN) && x->type == TS_TOML_TABLE
                         ? "an inline table"
                         : type_name(x));
    t = x;
  }
  *out = t;
  return TS_OK;
}

static enum ts_code parse_header(struct parser *p, struct ts_toml_value *root,
                                 struct ts_toml_value **current) {
  size_t st = p->pos;
  bool aot = at_str(p, "[[");
  p->pos += aot ? 2 : 1;
  struct key k;
  enum ts_code rc = parse_key(p, &k);
  if (rc != TS_OK)
    goto out;
  if (aot ? !at_str(p, "]]") : peek(p) != ']') {
    rc = FAIL(p, aot ? "expected ']]' after the table name"
                     : "expected ']' after the table name");
    goto out;
  }
  p->pos += aot ? 2 : 1;
  if ((rc = expect_eol(p)) != TS_OK)
    goto out;
  p->section++;
  p->base_depth = (unsigned)k.n;
  struct ts_toml_value *parent = NULL;
  if ((rc = walk_header(p, root, &k, &parent)) != TS_OK)
    goto out;
  struct key_part *last = &k.parts[k.n - 1];
  ssize_t j = table_find(parent, last->s, last->len);
  if (aot) {
    struct ts_toml_value *arr;
    if (j < 0) {
      arr = node_new(TS_TOML_ARRAY);
      table_add(parent, last->s, last->len, arr);
      arr->flags = F_AOT;
      linecol(p, st, &arr->line, &arr->col);
    } else {
      arr = parent->kvs[j].value;
      if (arr->type != TS_TOML_ARRAY || !(arr->flags & F_AOT)) {
        rc = fail_at(p, last->pos, TS_E_PARSE,
                     "cannot append to '%s': it is %s", last->s,
                     type_name(arr));
        goto out;
      }
    }
    struct ts_toml_value *t = node_new(TS_TOML_TABLE);
    array_add(arr, t);

    t->flags = F_EXPLICIT;
    linecol(p, st, &t->line, &t->col);
    *current = t;
  } else {
    struct ts_toml_value *t;
    if (j < 0) {
      t = node_new(TS_TOML_TABLE);
      table_add(parent, last->s, last->len, t);
    } else {
      t = parent->kvs[j].value;
      if (t->type != TS_TOML_TABLE || (t->flags & (F_EXPLICIT | F_DOTTED |
                                                   F_FROZEN))) {
        rc = fail_at(p, last->pos, TS_E_PARSE,
                     t->type == TS_TOML_TABLE
                         ? "table '%s' is defined twice"
                         : "cannot define table '%s': it is %s",
                     last->s, type_name(t));
        goto out;
      }
    }
    t->flags |= F_EXPLICIT;
    linecol(p, st, &t->line, &t->col);
    *current = t;
  }
out:
  key_free(&k);
  return rc;
}

enum ts_code ts_toml_parse(const char *data, size_t len,
                           struct ts_toml_value **root, struct ts_error *err) {
  *root = NULL;
  struct parser p = {.s = data, .len = len, .err = err, .cur_line = 1,
                     .cur_col = 1};
  if (len > TS_CAP_LOCKFILE)
    return ts_error_set(err, TS_E_TOO_BIG, "document larger than %u bytes",
                        TS_CAP_LOCKFILE);
  if (!data && len)
    return ts_error_set(err, TS_E_INVALID, "no data");
  size_t bad = ts_utf8_check(data, len);
  if (bad != len)
    return fail_at(&p, bad, TS_E_PARSE, "invalid UTF-8");
  struct ts_toml_value *top = node_new(TS_TOML_TABLE);
  top->line = top->col = 1;
  top->flags = F_EXPLICIT;
  struct ts_toml_value *cur = top;
  while (p.pos < p.len) {
    if (skip_ws_nl(&p) != TS_OK)
      break;
    if (p.pos >= p.len)
      break;
    int c = peek(&p);
    if (c == '[') {
      if (parse_header(&p, top, &cur) != TS_OK)
        break;
      continue;
    }
    struct key k;
    if (parse_key(&p, &k) != TS_OK) {
      key_free(&k);
      break;
    }
    if (peek(&p) != '=') {
      key_free(&k);
      FAIL(&p, "expected '=' after a key");
      break;
    }
    p.pos++;
    skip_ws(&p);
    struct ts_toml_value *v;
    if (parse_value(&p, &v, p.base_depth + (unsigned)k.n) != TS_OK) {
      key_free(&k);
      break;
    }
    enum ts_code rc = assign(&p, cur, &k, v);
    key_free(&k);
    if (rc != TS_OK || expect_eol(&p) != TS_OK)
      break;
  }
  if (p.rc != TS_OK) {
    ts_toml_free(top);
    return p.rc;
  }
  *root = top;
  return TS_OK;
}
