/*
 * host/host_internal.h — helpers shared by the files of host/.  Allocations
 * follow core/alloc.h (out of memory aborts: detection allocates a few
 * hundred bytes and has no useful way to continue without them).
 */
#pragma once

#include <stddef.h>

#include "host/host.h"

/* Replaces *slot by a copy of value (NULL clears it). */
void ts_host_set_string(char **slot, const char *value);
/* Appends a fact → source pair. */
void ts_host_add_source(struct ts_host *h, const char *fact, const char *source);
