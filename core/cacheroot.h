/*
 * core/cacheroot.h — what makes a directory torchsolve's cache, so that
 * cleaning it deletes only what torchsolve created.
 *
 * A cache root carries CACHEDIR.TAG (the Cache Directory Tagging
 * Specification, https://bford.info/cachedir/, which backup tools honour)
 * with a line saying torchsolve wrote it; it is written when torchsolve
 * creates the root.  Inside the root torchsolve owns only its versioned
 * folders (ts_cache_root_entries); cleaning removes those and nothing else.
 *
 * Caches of earlier versions carry no marker.  A root without one that
 * holds nothing but torchsolve's folders (or nothing at all) is taken to be
 * such a cache and marked on its next use.  Any other root without our
 * marker (TORCHSOLVE_CACHE_DIR=$HOME by mistake, another tool's cache) is
 * never marked, and never cleaned.
 */
#pragma once

#include <stdbool.h>

#include "core/error.h"

#define TS_CACHE_MARKER "CACHEDIR.TAG"

/* The folders torchsolve creates in a cache root; NULL-terminated. */
extern const char *const ts_cache_root_entries[];

/* Creates root when missing and marks it when it is ours (see above).
 * Best effort: a cache that cannot be marked still works; cleaning it is
 * refused.  Returns whether root carries the marker afterwards. */
bool ts_cache_root_prepare(const char *root);

/* Whether root may be cleaned: TS_OK when it carries our marker (or is an
 * unmarked cache of an earlier torchsolve, which is marked now),
 * TS_E_NOT_FOUND when it does not exist, TS_E_INVALID naming root and what
 * to do otherwise. */
enum ts_code ts_cache_root_check(const char *root, struct ts_error *err);
