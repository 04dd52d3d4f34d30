#include "core/alloc.h"
/*
 * pep/name.c — PEP 503 / PEP 508 names.
 */
#include "pep/name.h"

#include <stdlib.h>

static bool is_sep(char c) { return c == '-' || c == '_' || c == '.'; }

static bool is_alnum_ascii(char c)
{
  return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') ||
         (c >= 'A' && c <= 'Z');
}

static char lower_ascii(char c)
{
  return (c >= 'A' && c <= 'Z') ? (char)(c - 'A' + 'a') : c;
}

size_t ts_name_normalize_into(const char *s, size_t len, char *out)
{
  size_t n = 0;
  for (size_t i = 0; i < len; i++) {
    if (is_sep(s[i])) {
      while (i + 1 < len && is_sep(s[i + 1]))
        i++;
      out[n++] = '-';
    } else {
      out[n++] = lower_ascii(s[i]);
    }
  }
  out[n] = '\0';
  return n;
}

char *ts_name_normalize(const char *s, size_t len)
{
  char *out = ts_xmalloc(len + 1);
  ts_name_normalize_into(s, len, out);
  return out;
}

bool ts_name_is_valid(const char *s, size_t len)
{
  if (len == 0 || !is_alnum_ascii(s[0]) || !is_alnum_ascii(s[len - 1]))
    return false;
  for (size_t i = 1; i + 1 < len; i++)
    if (!is_alnum_ascii(s[i]) && !is_sep(s[i]))
      return false;
  return true;
}

bool ts_name_is_normalized(const char *s, size_t len)
{
  if (len == 0)
    return false;
  for (size_t i = 0; i < len; i++) {
    char c = s[i];
    bool ok = (c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') ||
              (c == '-' && i > 0 && i + 1 < len && s[i + 1] != '-');
    if (!ok)
      return false;
  }
  return true;
}

/* Steps one normalised character of s from *i; returns -1 at the end. */
static int next_norm(const char *s, size_t len, size_t *i)
{
  if (*i >= len)
    return -1;
  char c = s[(*i)++];
  if (is_sep(c)) {
    while (*i < len && is_sep(s[*i]))
      (*i)++;
    return '-';
  }
  return (unsigned char)lower_ascii(c);
}

bool ts_name_eq(const char *a, size_t alen, const char *b, size_t blen)
{
  size_t i = 0, j = 0;
  for (;;) {
    int ca = next_norm(a, alen, &i);
    int cb = next_norm(b, blen, &j);
    if (ca != cb)
      return false;
    if (ca < 0)
      return true;
  }
}
