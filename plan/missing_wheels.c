#include "plan/missing_wheels.h"

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "core/alloc.h"
#include "core/buf.h"
#include "core/str.h"
#include "core/vec.h"

struct words {
  char **v;
  size_t n;
};

struct missing {
  char *name, *version, *listed;
  struct words systems, machines, pythons;
};

struct ts_missing_wheels {
  struct missing *v;
  size_t n, cap;
};

struct ts_missing_wheels *ts_missing_wheels_new(void) {
  return ts_xcalloc(1, sizeof(struct ts_missing_wheels));
}

static void words_clear(struct words *w) {
  ts_strv_free(w->v, w->n);
}

void ts_missing_wheels_free(struct ts_missing_wheels *m) {
  for (size_t i = 0; m && i < m->n; i++) {
    free(m->v[i].name);
    free(m->v[i].version);
    free(m->v[i].listed);
    words_clear(&m->v[i].systems);
    words_clear(&m->v[i].machines);
    words_clear(&m->v[i].pythons);
  }
  if (m)
    free(m->v);
  free(m);
}

static void words_add(struct words *w, const char *s) {
  for (size_t i = 0; i < w->n; i++)
    if (strcmp(w->v[i], s) == 0)
      return;
  ts_strv_push(&w->v, &w->n, s, strlen(s));
}

void ts_missing_wheels_add(struct ts_missing_wheels *m, const char *name, const char *version,
                           const char *listed, const char *system, const char *machine,
                           const char *python) {
  struct missing *x = NULL;
  for (size_t i = 0; i < m->n && !x; i++)
    if (strcmp(m->v[i].name, name) == 0 && strcmp(m->v[i].version, version) == 0 &&
        strcmp(m->v[i].listed, listed) == 0)
      x = &m->v[i];
  if (!x) {
    m->v = ts_vec_grow(m->v, &m->cap, m->n + 1, sizeof *m->v);
    x = &m->v[m->n++];
    *x = (struct missing){.name = ts_xstrdup(name), .version = ts_xstrdup(version),
                          .listed = ts_xstrdup(listed)};
  }
  words_add(&x->systems, system);
  words_add(&x->machines, machine);
  words_add(&x->pythons, python);
}

static int by_name(const void *a, const void *b) {
  const struct missing *x = a, *y = b;
  int c = strcmp(x->name, y->name);
  if (!c)
    c = strcmp(x->version, y->version);
  return c ? c : strcmp(x->listed, y->listed);
}

/* The words in sorted order, comma-separated (each run sorts the same,
 * whatever order the points were solved in). */
static bool put_words(struct ts_buf *b, struct words *w) {
  if (w->n > 1) /* qsort of a NULL array is undefined even for none */
    qsort(w->v, w->n, sizeof *w->v, ts_strv_cmp);
  bool ok = true;
  for (size_t i = 0; i < w->n && ok; i++)
    ok = ts_buf_printf(b, "%s%s", i ? ", " : "", w->v[i]) == TS_OK;
  return ok;
}

void ts_missing_wheels_lines(const struct ts_missing_wheels *m, char ***lines, size_t *n) {
  if (m->n > 1)
    qsort(m->v, m->n, sizeof *m->v, by_name);
  for (size_t i = 0; i < m->n; i++) {
    struct missing *x = &m->v[i];
    struct ts_buf b;
    ts_buf_init(&b, 0);
    bool ok = ts_buf_printf(&b, "no wheel of %s %s for ", x->name, x->version) == TS_OK &&
              put_words(&b, &x->systems) && ts_buf_printf(&b, " (") == TS_OK &&
              put_words(&b, &x->machines) && ts_buf_printf(&b, "; ") == TS_OK &&
              put_words(&b, &x->pythons) &&
              ts_buf_printf(&b, "): the lock lists %s there", x->listed) == TS_OK;
    char *line = ok ? ts_buf_take(&b, NULL) : NULL;
    ts_buf_clear(&b);
    if (!line)
      continue;
    *lines = ts_xreallocarray(*lines, *n + 1, sizeof **lines);
    (*lines)[(*n)++] = line;
  }
}
