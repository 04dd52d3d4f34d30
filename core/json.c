/*
 * core/json.c — JSON as Python's json.dump(indent=2, ensure_ascii=False).
 */
#include "core/json.h"

#include <stdint.h>
#include <string.h>
#ifdef __SSE2__
#include <emmintrin.h>
#endif

#include "core/text.h"

/* The offset in p[0..n) of the first byte that is not printable ASCII
 * other than '"' and '\\' (n when none): a report carries every METADATA
 * description, megabytes of text that mostly needs neither escaping nor a
 * UTF-8 check, so it is scanned 16 bytes (SSE2), else 8, at a time. */
static size_t first_special(const unsigned char *p, size_t n) {
  size_t i = 0;
#ifdef __SSE2__
  const __m128i quote = _mm_set1_epi8('"'), backslash = _mm_set1_epi8('\\'),
                space = _mm_set1_epi8(0x20);
  for (; n - i >= 16; i += 16) {
    __m128i x = _mm_loadu_si128((const __m128i *)(const void *)(p + i));
    /* signed: bytes >= 0x80 are negative, below ' ' too */
    __m128i special = _mm_or_si128(_mm_cmplt_epi8(x, space),
                                   _mm_or_si128(_mm_cmpeq_epi8(x, quote),
                                                _mm_cmpeq_epi8(x, backslash)));
    unsigned mask = (unsigned)_mm_movemask_epi8(special);
    if (mask)
      return i + (size_t)__builtin_ctz(mask);
  }
#endif
  const uint64_t ones = 0x0101010101010101u, high = 0x8080808080808080u;
  for (; n - i >= 8; i += 8) {
    uint64_t x;
    memcpy(&x, p + i, sizeof x);
    uint64_t quote8 = x ^ (ones * '"'), backslash8 = x ^ (ones * '\\');
    uint64_t special = ((x - ones * 0x20) | ((quote8 - ones) & ~quote8) |
                        ((backslash8 - ones) & ~backslash8) | x) & high;
    if (special)
      break;
  }
  for (; i < n; i++)
    if (p[i] < 0x20 || p[i] >= 0x80 || p[i] == '"' || p[i] == '\\')
      return i;
  return n;
}

/* The escape json.dumps writes for an ASCII byte, or 0 bytes for one it
 * writes as it is: the length, the text in esc[6]. */
static size_t escape_of(unsigned char c, char esc[6]) {
  static const char hex[] = "0123456789abcdef";
  char short_form = c == '"' ? '"' : c == '\\' ? '\\' : c == '\n' ? 'n' : c == '\r' ? 'r'
                  : c == '\t' ? 't' : c == '\b' ? 'b' : c == '\f' ? 'f' : 0;
  esc[0] = '\\';
  if (short_form) {
    esc[1] = short_form;
    return 2;
  }
  if (c >= 0x20)
    return 0;
  memcpy(esc + 1, "u00", 3);
  esc[4] = hex[c >> 4];
  esc[5] = hex[c & 15];
  return 6;
}

/* Room for `need` more bytes at o->data + used, the written part kept. */
static enum ts_code room(struct ts_buf *o, size_t used, size_t need) {
  size_t len = o->len;
  o->len += used;
  enum ts_code rc = ts_buf_reserve(o, need);
  o->len = len;
  return rc;
}

/* Runs of plain text are copied whole into room reserved for the whole
 * string (plus its quotes); each escape makes room for what it adds. */
enum ts_code ts_json_string_append(struct ts_buf *o, const char *s, size_t len) {
  const unsigned char *u = (const unsigned char *)s;
  size_t avail = len + 2;
  enum ts_code rc = ts_buf_reserve(o, avail);
  if (rc != TS_OK)
    return rc;
  size_t used = 0, run = 0, i = 0;
  o->data[o->len + used++] = '"';
  while (i < len) {
    i += first_special(u + i, len - i);
    if (i == len)
      break;
    unsigned char c = u[i];
    if (c >= 0x80) {
      size_t k = ts_utf8_seq_len(u + i, len - i);
      if (k == 0) {
        o->data[o->len] = '\0';
        return TS_E_INVALID;
      }
      i += k;
      continue;
    }
    char esc[6];
    size_t elen = escape_of(c, esc);
    if (elen == 0) {
      i++;
      continue;
    }
    memcpy(o->data + o->len + used, s + run, i - run);
    used += i - run;
    /* what is left: this escape, the rest of s, the closing quote */
    size_t need = elen + (len - i - 1) + 1;
    if (avail - used < need) {
      /* a quarter more for the escapes to come, when the cap allows */
      size_t more = room(o, used, need + need / 4) == TS_OK ? need + need / 4 : need;
      if (more == need && (rc = room(o, used, need)) != TS_OK) {
        o->data[o->len] = '\0';
        return rc;
      }
      avail = used + more;
    }
    memcpy(o->data + o->len + used, esc, elen);
    used += elen;
    run = ++i;
  }
  memcpy(o->data + o->len + used, s + run, len - run);
  used += len - run;
  o->data[o->len + used++] = '"';
  o->len += used;
  o->data[o->len] = '\0';
  return TS_OK;
}

void ts_json_writer_init(struct ts_json_writer *w, struct ts_buf *out) {
  *w = (struct ts_json_writer){.out = out, .first = true};
}

static void put(struct ts_json_writer *w, const char *s, size_t n) {
  if (w->rc == TS_OK)
    w->rc = ts_buf_append(w->out, s, n);
}

/* A newline and the indent of `level`. */
static void newline(struct ts_json_writer *w, unsigned level) {
  static const char spaces[] = "\n                                        ";
  const size_t most = sizeof spaces - 2; /* spaces after the newline */
  size_t n = 2 * (size_t)level, k = n < most ? n : most;
  put(w, spaces, 1 + k);
  for (n -= k; n; n -= k) {
    k = n < most ? n : most;
    put(w, spaces + 1, k);
  }
}

/* What goes before a value: nothing after a key or at the top, else the
 * array item's separator and indent. */
static void before_value(struct ts_json_writer *w) {
  if (w->after_key) {
    w->after_key = false;
    return;
  }
  if (w->level == 0)
    return;
  if (!w->first)
    put(w, ",", 1);
  w->first = false;
  newline(w, w->level);
}

void ts_json_open(struct ts_json_writer *w, char bracket) {
  before_value(w);
  put(w, &bracket, 1);
  w->level++;
  w->first = true;
}

void ts_json_close(struct ts_json_writer *w, char bracket) {
  w->level--;
  if (!w->first)
    newline(w, w->level);
  put(w, &bracket, 1);
  w->first = false;
}

static void string_value(struct ts_json_writer *w, const char *s) {
  if (!s && w->rc == TS_OK)
    w->rc = TS_E_INVALID; /* a string the caller does not have */
  if (w->rc == TS_OK)
    w->rc = ts_json_string_append(w->out, s, strlen(s));
}

void ts_json_key(struct ts_json_writer *w, const char *key) {
  if (!w->first)
    put(w, ",", 1);
  w->first = false;
  newline(w, w->level);
  string_value(w, key);
  put(w, ": ", 2);
  w->after_key = true;
}

void ts_json_str(struct ts_json_writer *w, const char *s) {
  before_value(w);
  string_value(w, s);
}

void ts_json_str_or_null(struct ts_json_writer *w, const char *s) {
  if (s)
    ts_json_str(w, s);
  else
    ts_json_null(w);
}

void ts_json_bool(struct ts_json_writer *w, bool v) {
  before_value(w);
  put(w, v ? "true" : "false", v ? 4 : 5);
}

void ts_json_null(struct ts_json_writer *w) {
  before_value(w);
  put(w, "null", 4);
}

void ts_json_int(struct ts_json_writer *w, long long v) {
  before_value(w);
  if (w->rc == TS_OK)
    w->rc = ts_buf_printf(w->out, "%lld", v);
}

enum ts_code ts_json_finish(const struct ts_json_writer *w) { return w->rc; }
