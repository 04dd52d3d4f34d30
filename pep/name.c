#include "core/alloc.h"
/*
 * pep/name.c — PEP 503 / PEP 508 names.
 */
#include "pep/name.h"

#include <stdlib.h>
#include <string.h>

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

/* Optimal string alignment distance of a and b, or limit + 1 when it is
 * over limit (rows cut short: most candidates are rejected at once). */
static size_t osa_distance(const char *a, size_t al, const char *b, size_t bl, size_t limit) {
  if ((al > bl ? al - bl : bl - al) > limit)
    return limit + 1;
  enum { MAXLEN = 128 };
  if (al >= MAXLEN || bl >= MAXLEN)
    return limit + 1;
  size_t rows[3][MAXLEN + 1];
  size_t *prev2 = rows[0], *prev = rows[1], *cur = rows[2]; /* rows i-2, i-1, i */
  for (size_t j = 0; j <= bl; j++)
    prev[j] = j;
  for (size_t i = 1; i <= al; i++) {
    cur[0] = i;
    size_t best = cur[0];
    for (size_t j = 1; j <= bl; j++) {
      size_t cost = a[i - 1] != b[j - 1];
      size_t d = prev[j] + 1;
      if (cur[j - 1] + 1 < d)
        d = cur[j - 1] + 1;
      if (prev[j - 1] + cost < d)
        d = prev[j - 1] + cost;
      if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] &&
          prev2[j - 2] + 1 < d)
        d = prev2[j - 2] + 1;
      cur[j] = d;
      if (d < best)
        best = d;
    }
    if (best > limit)
      return limit + 1;
    size_t *t = prev2;
    prev2 = prev;
    prev = cur;
    cur = t;
  }
  return prev[bl];
}

const char *ts_name_nearest(const char *name, const char *const *candidates, size_t n) {
  size_t len = strlen(name);
  if (len < 3)
    return NULL;
  size_t limit = len <= 4 ? 1 : 2, best_d = limit + 1;
  const char *best = NULL;
  for (size_t i = 0; i < n; i++) {
    const char *c = candidates[i];
    size_t d = osa_distance(name, len, c, strlen(c), limit);
    if (d == 0)
      return NULL;
    if (d < best_d || (d == best_d && best && strcmp(c, best) < 0)) {
      best_d = d;
      best = c;
    }
  }
  return best_d <= limit ? best : NULL;
}
