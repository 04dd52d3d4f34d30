/*
 * wheel/unpack.h — validating a wheel and unpacking it into the cache
 * (internal to wheel/; the public entry point is ts_wheel_unpack).
 */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/error.h"
#include "wheel/unpacked.h"
#include "wheel/wheel.h"

/* Validates w->path and unpacks it into the cache (or a temporary dir when
 * o->no_cache), or reuses an earlier unpack of the same bytes.  Nothing is
 * left behind on error.  Free *out with ts_unpacked_clear (which also removes
 * a temporary dir). */
enum ts_code ts_unpack(const struct ts_wheel_options *o,
                       const struct ts_wheel_request *w,
                       struct ts_unpacked *out, struct ts_error *err);
void ts_unpacked_clear(struct ts_unpacked *u);

/* Fills out's metadata from the unpacked tree at out->dir (set by the
 * caller): its dist-info, WHEEL and RECORD.  fname/fver: the name and
 * version the wheel's file name says, which the dist-info must match (NULL:
 * not checked). */
enum ts_code ts_unpacked_load(struct ts_unpacked *out, const char *fname,
                              const char *fver, struct ts_error *err);

/* Whether `rel` (a path in the wheel's .data/scripts) is one of
 * setuptools' wrappers of an entry point EP that old wheels carry (EP,
 * EP.exe, EP-script.py, EP.pya): the launcher we write replaces them, and
 * pip leaves them out too. */
bool ts_unpacked_is_entry_point_wrapper(const struct ts_unpacked *u, const char *rel);

/* Member-name safety: non-empty, relative, no '.', '..' or empty components
 * (a trailing '/' marks a directory), no backslash, no control characters,
 * no drive letter.  TS_E_UNSAFE_PATH otherwise. */
enum ts_code ts_wheel_check_path(const char *name, size_t len,
                                 struct ts_error *err);

/* A wheel file name (of a path's last component) as pep/filename.h parses
 * it: its name as written and its normalised version (malloc'd).
 * TS_E_INVALID naming what is wrong. */
enum ts_code ts_wheel_parse_filename(const char *filename, char **name,
                                     char **version, struct ts_error *err);
