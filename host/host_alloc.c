#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "host/host_internal.h"

static void oom(void) {
  /* Library code never prints; abort is the documented OOM policy here. */
  abort();
}

char *host_xstrdup(const char *s) {
  char *d = strdup(s);
  if (!d)
    oom();
  return d;
}

char *host_xstrndup(const char *s, size_t n) {
  char *d = strndup(s, n);
  if (!d)
    oom();
  return d;
}

void *host_xrealloc(void *p, size_t n) {
  void *q = realloc(p, n ? n : 1);
  if (!q)
    oom();
  return q;
}

void host_set(char **slot, const char *value) {
  char *copy = value ? host_xstrdup(value) : NULL;
  free(*slot);
  *slot = copy;
}

void host_source(struct ts_host *h, const char *fact, const char *source) {
  h->sources = host_xrealloc(h->sources, (h->nsources + 1) * sizeof *h->sources);
  h->sources[h->nsources].fact = host_xstrdup(fact);
  h->sources[h->nsources].source = host_xstrdup(source ? source : "unknown");
  h->nsources++;
}
