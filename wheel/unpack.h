/*
 * wheel/unpack.h — validating a wheel and unpacking it into the cache
 * (internal to wheel/; the public entry point is ts_wheel_unpack).
 */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/error.h"
#include "wheel/wheel.h"

struct ts_unpacked_file {
  char *path;        /* as in the archive and RECORD, '/'-separated */
  char *hash;        /* "sha256=…" from the verified RECORD */
  uint64_t size;
};

struct ts_unpacked {
  char *dir;             /* absolute path of the unpacked tree */
  bool temporary;        /* remove dir when done (no_cache) */
  char *name;            /* distribution name from the dist-info directory */
  char *version;
  char *distinfo;        /* "<name>-<version>.dist-info" as in the archive */
  char *datadir;         /* "<name>-<version>.data" */
  bool root_is_purelib;
  bool newer_minor;      /* Wheel-Version 1.x with x > 0: read, with a warning */
  struct ts_unpacked_file *files; /* every member file but RECORD and its
                                     signatures */
  size_t count;
  char *entry_points;    /* entry_points.txt content or NULL */
  size_t entry_points_len;
  uint8_t sha256[32];    /* of the wheel file */
};

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

/* The launchers pip writes for the entry point `name` of a target Python
 * major.minor (0: unknown, just `name`): "easy_install" also as
 * "easy_install-X.Y", "pip" also as "pipX" and "pipX.Y", versioned ones
 * the wheel's builder wrote for its own Python (easy_install-2.6, pip3.12)
 * none.  Fills out (malloc'd names), returns how many (at most 3). */
size_t ts_wheel_launcher_names(const char *name, int major, int minor, char *out[3]);

/* Member-name safety: non-empty, relative, no '.', '..' or empty components
 * (a trailing '/' marks a directory), no backslash, no control characters,
 * no drive letter.  TS_E_UNSAFE_PATH otherwise. */
enum ts_code ts_wheel_check_path(const char *name, size_t len,
                                 struct ts_error *err);

/* Checks console_scripts/gui_scripts entries of an entry_points.txt: safe
 * launcher names, module:attribute values (implemented in install.c, which
 * writes the launchers). */
enum ts_code ts_wheel_check_entry_points(const char *text, size_t len,
                                         struct ts_error *err);

/* The interpreter links and activate scripts that a venv (ours, python -m
 * venv, uv) has in its scripts directory: "python", "python3",
 * "python3.12t", "activate", "activate.fish", "Activate.ps1"...  No
 * distribution owns them, so RECORD ownership cannot protect them; a wheel
 * whose script or entry point has such a name would replace the
 * environment's interpreter (implemented in install.c). */
bool ts_wheel_protected_script_name(const char *name);

/* A wheel file name (of a path's last component) as pep/filename.h parses
 * it: its name as written and its normalised version (malloc'd).
 * TS_E_INVALID naming what is wrong. */
enum ts_code ts_wheel_parse_filename(const char *filename, char **name,
                                     char **version, struct ts_error *err);
