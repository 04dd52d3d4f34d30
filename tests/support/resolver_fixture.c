/* The resolver fixture reader: see resolver_fixture.h. */
#include "tests/support/resolver_fixture.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Test support aborts on out-of-memory, as core/alloc.h does. */
static void *xrealloc(void *p, size_t n) {
  void *q = realloc(p, n ? n : 1);
  if (!q)
    abort();
  return q;
}

static char *xstrndup(const char *s, size_t n) {
  char *d = xrealloc(NULL, n + 1);
  memcpy(d, s, n);
  d[n] = '\0';
  return d;
}

static char *xstrdup(const char *s) { return xstrndup(s, strlen(s)); }

static char *xprintf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static char *xprintf(const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  char *s = NULL;
  if (vasprintf(&s, fmt, ap) < 0)
    abort();
  va_end(ap);
  return s;
}

#define PUSH(arr, n, item)                                                     \
  do {                                                                         \
    (arr) = xrealloc((arr), ((n) + 1) * sizeof *(arr));                        \
    (arr)[(n)++] = (item);                                                     \
  } while (0)

static const char *skip_blanks(const char *s) {
  while (*s == ' ' || *s == '\t')
    s++;
  return s;
}

/* The words of s (split at blanks), owned copies. */
static size_t split_words(const char *s, char ***out) {
  size_t n = 0;
  *out = NULL;
  for (s = skip_blanks(s); *s; s = skip_blanks(s)) {
    size_t len = strcspn(s, " \t");
    PUSH(*out, n, xstrndup(s, len));
    s += len;
  }
  return n;
}

static void free_words(char **w, size_t n) {
  for (size_t i = 0; i < n; i++)
    free(w[i]);
  free(w);
}

static bool starts(const char *s, const char *prefix, const char **rest) {
  size_t n = strlen(prefix);
  if (strncmp(s, prefix, n) != 0)
    return false;
  *rest = s + n;
  return true;
}

static struct rfx_term parse_term(const char *tok) {
  struct rfx_term t = {0};
  const char *at = strchr(tok, '@');
  size_t len = at ? (size_t)(at - tok) : strlen(tok);
  size_t n = strcspn(tok, "<>=!~");
  if (n > len)
    n = len;
  t.name = xstrndup(tok, n);
  t.spec = xstrndup(tok + n, len - n);
  t.local = at ? xstrdup(at + 1) : NULL;
  return t;
}

static void term_free(struct rfx_term *t) {
  free(t->name);
  free(t->spec);
  free(t->local);
}

static bool parse_rule(struct rfx_fixture *fx, const char *text) {
  struct rfx_rule r = {0};
  const char *fix = strstr(text, " fix: ");
  char *head = fix ? xstrndup(text, (size_t)(fix - text)) : xstrdup(text);
  char **w = NULL;
  size_t nw = split_words(head, &w);
  free(head);
  if (fix)
    r.fix = xstrdup(fix + 6);
  if (nw < 3 || w[1][strlen(w[1]) - 1] != ':' ||
      (strcmp(w[0], "requires") != 0 && strcmp(w[0], "conflicts") != 0)) {
    free_words(w, nw);
    free(r.fix);
    return false;
  }
  r.conflicts = strcmp(w[0], "conflicts") == 0;
  r.id = xstrndup(w[1], strlen(w[1]) - 1);
  int part = 0; /* 0 subject, 1 terms, 2 when */
  for (size_t i = 2; i < nw; i++) {
    if (!strcmp(w[i], "->"))
      part = 1;
    else if (!strcmp(w[i], "when"))
      part = 2;
    else if (!strcmp(w[i], "|") || !strcmp(w[i], "&"))
      continue;
    else if (part == 0)
      r.subject = parse_term(w[i]);
    else if (part == 1)
      PUSH(r.terms, r.nterms, parse_term(w[i]));
    else
      PUSH(r.when, r.nwhen, parse_term(w[i]));
  }
  free_words(w, nw);
  PUSH(fx->rules, fx->nrules, r);
  return true;
}

static void parse_variant(struct rfx_fixture *fx, const char *text) {
  struct rfx_variant v = {0};
  char **w = NULL;
  size_t nw = split_words(text, &w);
  bool fallback = false;
  for (size_t i = 0; i < nw; i++) {
    if (i == 0) {
      v.name = xstrdup(w[0]);
    } else if (!strcmp(w[i], "|")) { /* the patterns after it: fallback tier */
      fallback = true;
    } else {
      PUSH(v.patterns, v.npatterns, xstrdup(strcmp(w[i], "-") ? w[i] : ""));
      v.nfallback += fallback;
    }
  }
  free_words(w, nw);
  PUSH(fx->variants, fx->nvariants, v);
}

/* "@installed N V", "@fact N [V]", "@link P F": one or two words. */
static bool parse_pair(struct rfx_pair **arr, size_t *n, const char *text,
                       bool second_required) {
  char **w = NULL;
  size_t nw = split_words(text, &w);
  bool ok = nw >= 1 && nw <= 2 && (nw == 2 || !second_required);
  if (ok) {
    struct rfx_pair p = {xstrdup(w[0]), nw == 2 ? xstrdup(w[1]) : NULL};
    PUSH(*arr, *n, p);
  }
  free_words(w, nw);
  return ok;
}

/* "extra X: REQ[; MARKER]" as a Requires-Dist line of extra X. */
static bool add_extra_requirement(struct rfx_package *p, const char *text) {
  const char *colon = strchr(text, ':');
  if (!colon)
    return false;
  char *extra = xstrndup(text, (size_t)(colon - text));
  const char *req = skip_blanks(colon + 1);
  const char *semi = strchr(req, ';');
  char *line;
  if (semi) {
    size_t rlen = (size_t)(semi - req);
    while (rlen && (req[rlen - 1] == ' ' || req[rlen - 1] == '\t'))
      rlen--;
    line = xprintf("%.*s; (%s) and extra == \"%s\"", (int)rlen, req,
                   skip_blanks(semi + 1), extra);
  } else {
    line = xprintf("%s; extra == \"%s\"", req, extra);
  }
  PUSH(p->requires_dist, p->nrequires_dist, line);
  bool known = false;
  for (size_t i = 0; i < p->nprovides_extra; i++)
    known |= strcmp(p->provides_extra[i], extra) == 0;
  if (known)
    free(extra);
  else
    PUSH(p->provides_extra, p->nprovides_extra, extra);
  return true;
}

/* A line indented under "@package"; false when it is none of them. */
static bool package_line(struct rfx_package *p, const char *l) {
  const char *rest;
  if (starts(l, "requires-python ", &rest)) {
    free(p->requires_python);
    p->requires_python = xstrdup(rest);
  } else if (starts(l, "requires ", &rest)) {
    PUSH(p->requires_dist, p->nrequires_dist, xstrdup(rest));
  } else if (starts(l, "extra ", &rest)) {
    return add_extra_requirement(p, rest);
  } else if (starts(l, "tag ", &rest)) {
    PUSH(p->tags, p->ntags, xstrdup(rest));
  } else if (!strcmp(l, "sdist-only")) {
    p->sdist_only = true;
  } else if (!strcmp(l, "sdist")) {
    p->sdist = true;
  } else if (!strcmp(l, "yanked")) {
    p->yanked = true;
  } else {
    return false;
  }
  return true;
}

static bool number(const char *s, long *out) {
  char *end;
  *out = strtol(s, &end, 10);
  return end != s && !*skip_blanks(end);
}

/* One line before "@expect"; false when the format does not know it. */
static bool directive(struct rfx_fixture *fx, const char *l) {
  const char *rest;
  struct rfx_package *pkg = fx->npackages ? &fx->packages[fx->npackages - 1] : NULL;
  if (starts(l, "@package ", &rest)) {
    char **w = NULL;
    size_t nw = split_words(rest, &w);
    if (nw != 2) {
      free_words(w, nw);
      return false;
    }
    struct rfx_package p = {.name = w[0], .version = w[1]};
    free(w);
    PUSH(fx->packages, fx->npackages, p);
    return true;
  }
  if (l[0] != '@')
    return pkg && package_line(pkg, l);
  if (starts(l, "@installed ", &rest))
    return parse_pair(&fx->installed, &fx->ninstalled, rest, true);
  if (starts(l, "@fact ", &rest))
    return parse_pair(&fx->facts, &fx->nfacts, rest, false);
  if (starts(l, "@link ", &rest))
    return parse_pair(&fx->links, &fx->nlinks, rest, true);
  if (starts(l, "@page ", &rest)) {
    PUSH(fx->pages, fx->npages, xstrdup(skip_blanks(rest)));
    return true;
  }
  if (starts(l, "@rule ", &rest))
    return parse_rule(fx, rest);
  if (starts(l, "@variant ", &rest)) {
    parse_variant(fx, rest);
    return true;
  }
  if (starts(l, "@priority ", &rest)) {
    char **w = NULL;
    size_t nw = split_words(rest, &w);
    for (size_t i = 0; i < nw; i++)
      PUSH(fx->priority, fx->npriority, w[i]);
    free(w);
    return true;
  }
  if (starts(l, "@prefetch ", &rest))
    return number(rest, &fx->prefetch);
  if (starts(l, "@requests metadata ", &rest))
    return number(rest, &fx->requests_metadata);
  if (starts(l, "@requests pages ", &rest))
    return number(rest, &fx->requests_pages);
  if (starts(l, "@solves ", &rest))
    return number(rest, &fx->solves);
  if (starts(l, "@python ", &rest)) {
    free(fx->python);
    fx->python = xstrdup(skip_blanks(rest));
    return true;
  }
  if (starts(l, "@args ", &rest)) {
    char **w = NULL;
    size_t nw = split_words(rest, &w);
    for (size_t i = 0; i < nw; i++)
      PUSH(fx->args, fx->nargs, w[i]);
    free(w);
    return true;
  }
  return false;
}

bool rfx_load(const char *path, struct rfx_fixture *fx, char *why, size_t why_cap) {
  memset(fx, 0, sizeof *fx);
  fx->python = xstrdup("3.12.3");
  fx->prefetch = 2;
  fx->requests_metadata = fx->requests_pages = fx->solves = -1;
  FILE *f = fopen(path, "r");
  if (!f) {
    snprintf(why, why_cap, "%s: cannot read it", path);
    return false;
  }
  char *buf = NULL;
  size_t cap = 0;
  bool in_expect = false, ok = true;
  for (ssize_t got; ok && (got = getline(&buf, &cap, f)) >= 0;) {
    while (got > 0 && strchr(" \t\r\n", buf[got - 1]))
      buf[--got] = '\0';
    const char *l = skip_blanks(buf), *rest;
    if (!*l || *l == '#')
      continue;
    if (in_expect) {
      if (*l == '~')
        l += l[1] == ' ' ? 2 : 1;
      PUSH(fx->expect, fx->nexpect, xstrdup(l));
    } else if (starts(l, "@expect ", &rest)) {
      rest = skip_blanks(rest);
      ok = !strcmp(rest, "ok") || !strcmp(rest, "fail");
      fx->expect_ok = !strcmp(rest, "ok");
      in_expect = true;
    } else {
      ok = directive(fx, l);
    }
    if (!ok)
      snprintf(why, why_cap, "%s: unknown line '%s'", path, l);
  }
  free(buf);
  fclose(f);
  if (ok && !in_expect) {
    snprintf(why, why_cap, "%s: no @expect line", path);
    ok = false;
  }
  if (!ok)
    rfx_free(fx);
  return ok;
}

static void free_strv(char **v, size_t n) {
  for (size_t i = 0; i < n; i++)
    free(v[i]);
  free(v);
}

static void free_pairs(struct rfx_pair *p, size_t n) {
  for (size_t i = 0; i < n; i++) {
    free(p[i].first);
    free(p[i].second);
  }
  free(p);
}

void rfx_free(struct rfx_fixture *fx) {
  for (size_t i = 0; i < fx->npackages; i++) {
    struct rfx_package *p = &fx->packages[i];
    free(p->name);
    free(p->version);
    free(p->requires_python);
    free_strv(p->tags, p->ntags);
    free_strv(p->requires_dist, p->nrequires_dist);
    free_strv(p->provides_extra, p->nprovides_extra);
  }
  free(fx->packages);
  for (size_t i = 0; i < fx->nrules; i++) {
    struct rfx_rule *r = &fx->rules[i];
    free(r->id);
    free(r->fix);
    term_free(&r->subject);
    for (size_t k = 0; k < r->nterms; k++)
      term_free(&r->terms[k]);
    for (size_t k = 0; k < r->nwhen; k++)
      term_free(&r->when[k]);
    free(r->terms);
    free(r->when);
  }
  free(fx->rules);
  for (size_t i = 0; i < fx->nvariants; i++) {
    free(fx->variants[i].name);
    free_strv(fx->variants[i].patterns, fx->variants[i].npatterns);
  }
  free(fx->variants);
  free_pairs(fx->links, fx->nlinks);
  free_pairs(fx->installed, fx->ninstalled);
  free_pairs(fx->facts, fx->nfacts);
  free_strv(fx->pages, fx->npages);
  free_strv(fx->priority, fx->npriority);
  free_strv(fx->args, fx->nargs);
  free_strv(fx->expect, fx->nexpect);
  free(fx->python);
  memset(fx, 0, sizeof *fx);
}
