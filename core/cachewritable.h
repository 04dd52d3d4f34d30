/*
 * core/cachewritable.h — whether a cache root can be written at all, asked
 * once per run before anything uses the cache, so that a cache this run
 * cannot use (read-only, another user's, a full filesystem) is left out
 * (as --no-cache) instead of failing every install, as pip does.
 */
#pragma once

#include "core/error.h"

/* Creates root when missing, then writes and removes a small probe file
 * in it.  TS_E_IO naming root and why when that fails, or when running as
 * root and root belongs to another user (pip's rule: sudo without -H must
 * not leave root-owned files in a user's cache).  Nothing is left behind. */
enum ts_code ts_cache_root_writable(const char *root, struct ts_error *err);
