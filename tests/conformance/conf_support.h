/*
 * tests/conformance/conf_support.h — what the packaging-vector runners
 * share: pass/fail tallies with a table of argued exceptions, and loading a
 * JSON vector file.  Header-only: each runner is its own executable.
 */
#pragma once

#include <cjson/cJSON.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* A case we deliberately do not follow, with the reason (section + input). */
struct conf_exception {
  const char *section;
  const char *input;
  const char *reason;
};

struct tally {
  int passed, failed, excepted;
  const struct conf_exception *exceptions; /* NULL-terminated, or NULL */
};

static inline bool conf_is_exception(const struct tally *t, const char *section,
                                     const char *input) {
  for (const struct conf_exception *e = t->exceptions; e && e->section; e++)
    if (!strcmp(e->section, section) && !strcmp(e->input, input))
      return true;
  return false;
}

/* Counts one case; prints the first 50 unexpected failures. */
static inline void check(struct tally *t, bool ok, const char *section,
                         const char *input, const char *fmt, ...)
    __attribute__((format(printf, 5, 6)));
static inline void check(struct tally *t, bool ok, const char *section,
                         const char *input, const char *fmt, ...) {
  if (ok) {
    t->passed++;
    return;
  }
  if (conf_is_exception(t, section, input)) {
    t->excepted++;
    return;
  }
  if (++t->failed > 50)
    return;
  va_list ap;
  va_start(ap, fmt);
  fprintf(stderr, "FAIL %s: '%s': ", section, input);
  vfprintf(stderr, fmt, ap);
  fputc('\n', stderr);
  va_end(ap);
}

/* Parses DIR/REL (or DIR alone when rel is NULL); NULL when unreadable. */
static inline cJSON *conf_load_json(const char *dir, const char *rel) {
  char path[4096];
  snprintf(path, sizeof path, rel ? "%s/%s" : "%s", dir, rel ? rel : "");
  FILE *f = fopen(path, "rb");
  if (!f) {
    fprintf(stderr, "cannot open %s\n", path);
    return NULL;
  }
  char *buf = NULL;
  size_t len = 0, cap = 0;
  for (;;) {
    if (len + 65536 > cap) {
      cap = cap ? cap * 2 : 131072;
      buf = realloc(buf, cap);
      if (!buf)
        abort();
    }
    size_t n = fread(buf + len, 1, cap - len - 1, f);
    if (n == 0)
      break;
    len += n;
  }
  fclose(f);
  cJSON *j = cJSON_ParseWithLength(buf, len);
  free(buf);
  return j;
}
