/* The setters every host/ detection path records its facts with. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/str.h"
#include "host/host_internal.h"

void ts_host_set_string(char **slot, const char *value) {
  char *copy = value ? ts_xstrdup(value) : NULL;
  free(*slot);
  *slot = copy;
}

void ts_host_add_source(struct ts_host *h, const char *fact, const char *source) {
  h->sources = ts_xrealloc(h->sources, (h->nsources + 1) * sizeof *h->sources);
  h->sources[h->nsources].fact = ts_xstrdup(fact);
  h->sources[h->nsources].source = ts_xstrdup(source ? source : "unknown");
  h->nsources++;
}
