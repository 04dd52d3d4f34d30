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

/* base64url digit values, -1 for anything else: a big wheel's RECORD has
 * 12,000 hashes of 43 digits each, decoded before anything is unpacked. */
static const signed char B64URL[256] = {
    ['A'] = 0,  ['B'] = 1,  ['C'] = 2,  ['D'] = 3,  ['E'] = 4,  ['F'] = 5,  ['G'] = 6,
    ['H'] = 7,  ['I'] = 8,  ['J'] = 9,  ['K'] = 10, ['L'] = 11, ['M'] = 12, ['N'] = 13,
    ['O'] = 14, ['P'] = 15, ['Q'] = 16, ['R'] = 17, ['S'] = 18, ['T'] = 19, ['U'] = 20,
    ['V'] = 21, ['W'] = 22, ['X'] = 23, ['Y'] = 24, ['Z'] = 25, ['a'] = 26, ['b'] = 27,
    ['c'] = 28, ['d'] = 29, ['e'] = 30, ['f'] = 31, ['g'] = 32, ['h'] = 33, ['i'] = 34,
    ['j'] = 35, ['k'] = 36, ['l'] = 37, ['m'] = 38, ['n'] = 39, ['o'] = 40, ['p'] = 41,
    ['q'] = 42, ['r'] = 43, ['s'] = 44, ['t'] = 45, ['u'] = 46, ['v'] = 47, ['w'] = 48,
    ['x'] = 49, ['y'] = 50, ['z'] = 51, ['0'] = 52, ['1'] = 53, ['2'] = 54, ['3'] = 55,
    ['4'] = 56, ['5'] = 57, ['6'] = 58, ['7'] = 59, ['8'] = 60, ['9'] = 61, ['-'] = 62,
    ['_'] = 63};

/* B64URL leaves every other byte 0, which is also 'A''s value: a byte is a
 * digit when it decodes to non-zero or is 'A' itself. */
static int b64url_val(unsigned char c) {
  int v = B64URL[c];
  return v || c == 'A' ? v : -1;
}

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
  uint32_t acc = 0;
  int bits = 0;
  size_t o = 0;
  for (size_t i = 0; i < n; i++) {
    int v = b64url_val((unsigned char)s[i]);
    if (v < 0)
      return ts_error_set(err, TS_E_PARSE, "RECORD sha256 '%.50s' is not base64url",
                          s);
    acc = (acc << 6) | (uint32_t)v;
    bits += 6;
    if (bits >= 8) {
      bits -= 8;
      if (o < 32)
        out[o++] = (uint8_t)(acc >> bits);
      acc &= (1u << bits) - 1;
    }
  }
  if (o != 32 || acc != 0)
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
