#include "core/text.h"

#include "core/alloc.h"

int ts_hex_digit(char c) {
  if (c >= '0' && c <= '9')
    return c - '0';
  if (c >= 'a' && c <= 'f')
    return c - 'a' + 10;
  if (c >= 'A' && c <= 'F')
    return c - 'A' + 10;
  return -1;
}

bool ts_hex_decode(const char *hex, size_t n, uint8_t *out) {
  for (size_t i = 0; i < n; i++) {
    int hi = ts_hex_digit(hex[2 * i]), lo = ts_hex_digit(hex[2 * i + 1]);
    if (hi < 0 || lo < 0)
      return false;
    out[i] = (uint8_t)(hi << 4 | lo);
  }
  return true;
}

size_t ts_utf8_seq_len(const unsigned char *s, size_t n) {
  if (n == 0)
    return 0;
  unsigned char c = s[0];
  if (c < 0x80)
    return 1;
  size_t len;
  uint32_t cp, min;
  if ((c & 0xE0) == 0xC0) {
    len = 2, cp = c & 0x1F, min = 0x80;
  } else if ((c & 0xF0) == 0xE0) {
    len = 3, cp = c & 0x0F, min = 0x800;
  } else if ((c & 0xF8) == 0xF0) {
    len = 4, cp = c & 0x07, min = 0x10000;
  } else {
    return 0;
  }
  if (n < len)
    return 0;
  for (size_t k = 1; k < len; k++) {
    if ((s[k] & 0xC0) != 0x80)
      return 0;
    cp = (cp << 6) | (s[k] & 0x3F);
  }
  if (cp < min || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF))
    return 0;
  return len;
}

size_t ts_utf8_check(const char *s, size_t len) {
  const unsigned char *u = (const unsigned char *)s;
  size_t i = 0;
  while (i < len) {
    if (u[i] < 0x80) { /* ASCII, nearly all of the text checked */
      i++;
      continue;
    }
    size_t k = ts_utf8_seq_len(u + i, len - i);
    if (k == 0)
      return i;
    i += k;
  }
  return len;
}

size_t ts_utf8_put(char out[4], uint32_t cp) {
  if (cp < 0x80) {
    out[0] = (char)cp;
    return 1;
  }
  if (cp < 0x800) {
    out[0] = (char)(0xC0 | (cp >> 6));
    out[1] = (char)(0x80 | (cp & 0x3F));
    return 2;
  }
  if (cp < 0x10000) {
    out[0] = (char)(0xE0 | (cp >> 12));
    out[1] = (char)(0x80 | ((cp >> 6) & 0x3F));
    out[2] = (char)(0x80 | (cp & 0x3F));
    return 3;
  }
  out[0] = (char)(0xF0 | (cp >> 18));
  out[1] = (char)(0x80 | ((cp >> 12) & 0x3F));
  out[2] = (char)(0x80 | ((cp >> 6) & 0x3F));
  out[3] = (char)(0x80 | (cp & 0x3F));
  return 4;
}

char *ts_percent_decode(const char *s, size_t n) {
  char *o = ts_xmalloc(n + 1);
  size_t j = 0;
  for (size_t i = 0; i < n; i++) {
    int hi, lo;
    if (s[i] == '%' && i + 2 < n && (hi = ts_hex_digit(s[i + 1])) >= 0 &&
        (lo = ts_hex_digit(s[i + 2])) >= 0) {
      o[j++] = (char)(hi * 16 + lo);
      i += 2;
    } else {
      o[j++] = s[i];
    }
  }
  o[j] = '\0';
  return o;
}

size_t ts_u64_decimal(char out[21], uint64_t v) {
  char rev[20];
  size_t n = 0;
  do {
    rev[n++] = (char)('0' + v % 10);
    v /= 10;
  } while (v);
  for (size_t i = 0; i < n; i++)
    out[i] = rev[n - 1 - i];
  out[n] = '\0';
  return n;
}
