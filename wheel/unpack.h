/*
 * wheel/unpack.h — validating a wheel and unpacking it into the cache
 * (internal to wheel/; the public entry point is ts_wheel_unpack).
 */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/buf.h"
#include "core/error.h"
#include "wheel/unpacked.h"
#include "wheel/wheel.h"

/* Validates w->path and unpacks it into the cache (or a temporary dir when
 * o->no_cache), or reuses an earlier unpack of the same bytes.  With
 * `direct`, a wheel the cache has no tree of, and whose file no earlier
 * run hashed (the stat memo; under o->no_cache: any), is validated but not
 * unpacked: out->dir is NULL and out->source keeps the archive for
 * ts_unpacked_extract, so that each file is written once, where it is
 * installed.  Nothing is left behind on error.  Free *out with
 * ts_unpacked_clear (which also removes a temporary dir). */
enum ts_code ts_unpack(const struct ts_wheel_options *o,
                       const struct ts_wheel_request *w, bool direct,
                       struct ts_unpacked *out, struct ts_error *err);

/* A file of a wheel validated without a tree (u->source): u->files[file]
 * goes to the absolute `path`, whose directory exists and which does not. */
struct ts_unpack_dest {
  size_t file;
  const char *path;
};
/* Writes the n files, inflated in parallel (a worker per core, the large
 * ones first), each hashed as it is written and checked against RECORD.
 * On error some may have been written: the caller drops them. */
enum ts_code ts_unpacked_extract(const struct ts_unpacked *u, const struct ts_unpack_dest *d,
                                 size_t n, const struct ts_wheel_options *o,
                                 struct ts_error *err);
/* Waits for the sha256 of a wheel validated without a tree when it was
 * still being computed (alongside the extraction) and remembers it in
 * the stat memo: u->sha256 is valid only after this (at once for a tree). */
enum ts_code ts_unpacked_finish(struct ts_unpacked *u, struct ts_error *err);
/* u->files[file]'s bytes (at most cap) checked against RECORD, into *out
 * (initialised here; u->source only). */
enum ts_code ts_unpacked_read_file(const struct ts_unpacked *u, size_t file, size_t cap,
                                   struct ts_buf *out, struct ts_error *err);
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
