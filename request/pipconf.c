/*
 * request/pipconf.c — pip.conf reading (see pipconf.h).
 */
#include "request/pipconf.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include "core/alloc.h"
#include "core/str.h"

void ts_pipconf_clear(struct ts_pipconf *c) {
  for (size_t i = 0; i < c->n; i++) {
    free(c->entries[i].section);
    free(c->entries[i].key);
    free(c->entries[i].value);
  }
  free(c->entries);
  memset(c, 0, sizeof *c);
}

const char *ts_pipconf_get(const struct ts_pipconf *c, const char *section,
                           const char *key) {
  for (size_t i = 0; i < c->n; i++)
    if (!strcmp(c->entries[i].section, section) && !strcmp(c->entries[i].key, key))
      return c->entries[i].value;
  return NULL;
}

static char *strip(const char *s, size_t n) {
  while (n && isspace((unsigned char)*s))
    s++, n--;
  while (n && isspace((unsigned char)s[n - 1]))
    n--;
  return ts_xstrndup(s, n);
}

static char *normal_key(const char *s, size_t n) {
  char *k = strip(s, n);
  for (char *c = k; *c; c++)
    *c = *c == '_' ? '-' : (char)tolower((unsigned char)*c);
  if (k[0] == '-' && k[1] == '-')
    memmove(k, k + 2, strlen(k + 2) + 1);
  return k;
}

enum ts_code ts_pipconf_parse(const char *text, size_t len, const char *file,
                              struct ts_pipconf *out, struct ts_error *err) {
  memset(out, 0, sizeof *out);
  char *section = NULL;
  struct ts_pipconf_entry *last = NULL; /* what a continuation line extends */
  const char *p = text, *end = text + len;
  unsigned line = 0;
  enum ts_code rc = TS_OK;
  while (p < end && rc == TS_OK) {
    const char *nl = memchr(p, '\n', (size_t)(end - p));
    size_t n = (size_t)((nl ? nl : end) - p);
    const char *l = p;
    p += n + (nl != NULL);
    line++;
    if (n && l[n - 1] == '\r')
      n--;
    size_t lead = 0;
    while (lead < n && (l[lead] == ' ' || l[lead] == '\t'))
      lead++;
    if (lead == n || l[lead] == '#' || l[lead] == ';') {
      continue; /* blank or comment (a blank line ends no value: rare) */
    }
    if (lead > 0 && last) {
      char *more = strip(l, n);
      char *joined = ts_xasprintf("%s%s%s", last->value, last->value[0] ? "\n" : "", more);
      free(more);
      free(last->value);
      last->value = joined;
      continue;
    }
    if (l[lead] == '[') {
      const char *close = memchr(l, ']', n);
      if (!close) {
        rc = ts_error_set(err, TS_E_PARSE, "%s line %u: '[' without ']'", file, line);
        break;
      }
      free(section);
      section = strip(l + lead + 1, (size_t)(close - l - lead - 1));
      last = NULL;
      continue;
    }
    size_t d = strcspn(l, "=:");
    if (d >= n) {
      rc = ts_error_set(err, TS_E_PARSE, "%s line %u: no '=' in '%.*s'", file, line,
                        (int)n, l);
      break;
    }
    if (!section) {
      rc = ts_error_set(err, TS_E_PARSE, "%s line %u: a value before any [section]",
                        file, line);
      break;
    }
    char *key = normal_key(l, d);
    if (ts_pipconf_get(out, section, key)) {
      rc = ts_error_set(err, TS_E_PARSE, "%s line %u: '%s' given twice in [%s]", file,
                        line, key, section);
      free(key);
      break;
    }
    out->entries = ts_xreallocarray(out->entries, out->n + 1, sizeof *out->entries);
    last = &out->entries[out->n++];
    *last = (struct ts_pipconf_entry){.section = ts_xstrdup(section), .key = key,
                                      .value = strip(l + d + 1, n - d - 1), .line = line};
  }
  free(section);
  if (rc != TS_OK)
    ts_pipconf_clear(out);
  return rc;
}
