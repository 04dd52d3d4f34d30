#include "wheel/record.h"

#include <stdlib.h>
#include <string.h>

#include "core/fs.h"
#include "core/str.h"
#include "core/vec.h"


void ts_record_clear(struct ts_record *r) {
  for (size_t i = 0; i < r->count; i++) {
    free(r->rows[i].path);
    free(r->rows[i].hash);
    free(r->rows[i].size);
  }
  free(r->rows);
  memset(r, 0, sizeof *r);
}

/* Reads one field at *pp into b; stops after ',' or at end of line. */
static enum ts_code read_field(const char **pp, const char *end,
                               struct ts_buf *b, int *eol) {
  const char *p = *pp;
  ts_buf_reset(b);
  *eol = 0;
  if (p < end && *p == '"') {
    p++;
    for (;;) {
      if (p >= end)
        return TS_E_PARSE;
      if (*p == '"') {
        if (p + 1 < end && p[1] == '"') {
          if (ts_buf_append(b, "\"", 1) != TS_OK)
            return TS_E_NOMEM;
          p += 2;
          continue;
        }
        p++;
        break;
      }
      if (ts_buf_append(b, p, 1) != TS_OK)
        return TS_E_NOMEM;
      p++;
    }
  } else {
    const char *s = p;
    while (p < end && *p != ',' && *p != '\n' && *p != '\r')
      p++;
    if (ts_buf_append(b, s, (size_t)(p - s)) != TS_OK)
      return TS_E_NOMEM;
  }
  if (p < end && *p == ',') {
    p++;
  } else if (p >= end) {
    *eol = 1;
  } else if (*p == '\r' || *p == '\n') {
    if (*p == '\r')
      p++;
    if (p < end && *p == '\n')
      p++;
    *eol = 1;
  } else {
    return TS_E_PARSE; /* text after a closing quote */
  }
  *pp = p;
  if (ts_buf_append(b, "", 0) != TS_OK)
    return TS_E_NOMEM;
  return TS_OK;
}

enum ts_code ts_record_parse(const char *data, size_t len,
                             struct ts_record *out, struct ts_error *err) {
  memset(out, 0, sizeof *out);
  const char *p = data, *end = data + len;
  struct ts_buf f[3];
  for (int i = 0; i < 3; i++)
    ts_buf_init(&f[i], TS_CAP_RECORD);
  enum ts_code rc = TS_OK;
  size_t line = 0;
  while (p < end) {
    line++;
    if (*p == '\n' || *p == '\r') { /* blank line */
      p++;
      continue;
    }
    int n = 0, eol = 0;
    while (!eol) {
      if (n == 3) {
        rc = ts_error_set(err, TS_E_PARSE,
                          "RECORD line %zu has more than 3 fields", line);
        goto out;
      }
      rc = read_field(&p, end, &f[n], &eol);
      if (rc != TS_OK) {
        rc = ts_error_set(err, rc, "RECORD line %zu is malformed", line);
        goto out;
      }
      n++;
    }
    if (n != 3 || f[0].len == 0 || strlen(f[0].data) != f[0].len) {
      rc = ts_error_set(err, TS_E_PARSE,
                        "RECORD line %zu: expected path,hash,size", line);
      goto out;
    }
    out->rows = ts_vec_grow(out->rows, &out->alloc_, out->count + 1, sizeof *out->rows);
    struct ts_record_row *row = &out->rows[out->count];
    row->path = ts_xstrndup(f[0].data, f[0].len);
    row->hash = ts_xstrndup(f[1].data ? f[1].data : "", f[1].len);
    row->size = ts_xstrndup(f[2].data ? f[2].data : "", f[2].len);
    out->count++;
  }

out:
  for (int i = 0; i < 3; i++)
    ts_buf_clear(&f[i]);
  return rc;
}

static enum ts_code write_field(struct ts_buf *b, const char *s) {
  if (!strpbrk(s, ",\"\r\n"))
    return ts_buf_append_str(b, s);
  enum ts_code rc = ts_buf_append(b, "\"", 1);
  for (const char *p = s; rc == TS_OK && *p; p++)
    rc = *p == '"' ? ts_buf_append(b, "\"\"", 2) : ts_buf_append(b, p, 1);
  if (rc == TS_OK)
    rc = ts_buf_append(b, "\"", 1);
  return rc;
}

enum ts_code ts_record_write_row(struct ts_buf *b, const char *path,
                                 const char *hash, const char *size) {
  enum ts_code rc = write_field(b, path);
  if (rc == TS_OK)
    rc = ts_buf_append(b, ",", 1);
  if (rc == TS_OK)
    rc = write_field(b, hash ? hash : "");
  if (rc == TS_OK)
    rc = ts_buf_append(b, ",", 1);
  if (rc == TS_OK)
    rc = write_field(b, size ? size : "");
  if (rc == TS_OK)
    rc = ts_buf_append(b, "\n", 1);
  return rc;
}

/* base64url digit values plus one; 0 for any other byte.  A big wheel's
 * RECORD has 12,000 digests of 43 digits, decoded before anything is
 * unpacked, four digits (three bytes) at a time. */
static const unsigned char B64URL1[256] = {
    ['A'] = 1, ['B'] = 2, ['C'] = 3, ['D'] = 4, ['E'] = 5, ['F'] = 6, ['G'] = 7,
    ['H'] = 8, ['I'] = 9, ['J'] = 10, ['K'] = 11, ['L'] = 12, ['M'] = 13, ['N'] = 14,
    ['O'] = 15, ['P'] = 16, ['Q'] = 17, ['R'] = 18, ['S'] = 19, ['T'] = 20, ['U'] = 21,
    ['V'] = 22, ['W'] = 23, ['X'] = 24, ['Y'] = 25, ['Z'] = 26, ['a'] = 27, ['b'] = 28,
    ['c'] = 29, ['d'] = 30, ['e'] = 31, ['f'] = 32, ['g'] = 33, ['h'] = 34, ['i'] = 35,
    ['j'] = 36, ['k'] = 37, ['l'] = 38, ['m'] = 39, ['n'] = 40, ['o'] = 41, ['p'] = 42,
    ['q'] = 43, ['r'] = 44, ['s'] = 45, ['t'] = 46, ['u'] = 47, ['v'] = 48, ['w'] = 49,
    ['x'] = 50, ['y'] = 51, ['z'] = 52, ['0'] = 53, ['1'] = 54, ['2'] = 55, ['3'] = 56,
    ['4'] = 57, ['5'] = 58, ['6'] = 59, ['7'] = 60, ['8'] = 61, ['9'] = 62, ['-'] = 63,
    ['_'] = 64};

enum ts_code ts_record_hash_sha256(const char *hash, uint8_t out[32],
                                   struct ts_error *err) {
  const char *eq = strchr(hash, '=');
  if (!eq)
    return ts_error_set(err, TS_E_PARSE, "RECORD hash '%.40s' has no '='",
                        hash);
  if ((size_t)(eq - hash) != 6 || memcmp(hash, "sha256", 6) != 0)
    return ts_error_set(err, TS_E_UNSUPPORTED,
                        "RECORD hash algorithm '%.*s' is not supported "
                        "(only sha256)",
                        (int)(eq - hash > 20 ? 20 : eq - hash), hash);
  const char *s = eq + 1;
  size_t n = strlen(s);
  while (n && s[n - 1] == '=') /* tolerate padding */
    n--;
  if (n != 43)
    return ts_error_set(err, TS_E_PARSE, "RECORD sha256 '%.50s' has a bad length",
                        s);
  const unsigned char *d = (const unsigned char *)s;
  unsigned missing = 0; /* any byte that is not a digit makes it non-zero */
  uint8_t *o = out;
  for (size_t i = 0; i < 40; i += 4, o += 3) {
    unsigned a = B64URL1[d[i]], b = B64URL1[d[i + 1]], c = B64URL1[d[i + 2]],
             e = B64URL1[d[i + 3]];
    missing |= !a | !b | !c | !e;
    uint32_t w = (a - 1) << 18 | (b - 1) << 12 | (c - 1) << 6 | (e - 1);
    o[0] = (uint8_t)(w >> 16);
    o[1] = (uint8_t)(w >> 8);
    o[2] = (uint8_t)w;
  }
  /* the last three digits: 18 bits, two bytes and two bits that must be 0 */
  unsigned a = B64URL1[d[40]], b = B64URL1[d[41]], c = B64URL1[d[42]];
  missing |= !a | !b | !c;
  if (missing)
    return ts_error_set(err, TS_E_PARSE, "RECORD sha256 '%.50s' is not base64url",
                        s);
  uint32_t w = (a - 1) << 12 | (b - 1) << 6 | (c - 1);
  o[0] = (uint8_t)(w >> 10);
  o[1] = (uint8_t)(w >> 2);
  if (w & 3)
    return ts_error_set(err, TS_E_PARSE, "RECORD sha256 '%.50s' is malformed", s);
  return TS_OK;
}

enum ts_code ts_record_read_distinfo(const char *distinfo, struct ts_record *out,
                                     struct ts_error *err) {
  memset(out, 0, sizeof *out);
  char *rp = ts_path_join(distinfo, "RECORD");
  struct ts_buf b;
  ts_buf_init(&b, TS_CAP_RECORD);
  enum ts_code rc = ts_fs_read_file(rp, &b, err);
  free(rp);
  if (rc == TS_OK)
    rc = ts_record_parse(b.data ? b.data : "", b.len, out, err);
  ts_buf_clear(&b);
  return rc;
}
