/*
 * host/host_internal.h — allocation helpers private to host/.  They abort
 * on out-of-memory, as ts_path_join does: detection allocates a few hundred
 * bytes and has no useful way to continue without them.
 */
#pragma once

#include <stddef.h>

#include "host/host.h"

char *host_xstrdup(const char *s);
char *host_xstrndup(const char *s, size_t n);
void *host_xrealloc(void *p, size_t n);
/* Replaces *slot by a copy of value (NULL clears it). */
void host_set(char **slot, const char *value);
/* Appends a fact → source pair. */
void host_source(struct ts_host *h, const char *fact, const char *source);
