/*
 * wheel/unpacked.h — a wheel unpacked into the cache: the tree and what its
 * dist-info says (internal to wheel/).  unpack.c fills it (unpack.h),
 * treecheck.c checks the tree still holds what RECORD says.
 */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct ts_unpacked_file {
  char *path;        /* as in the archive and RECORD, '/'-separated */
  char *hash;        /* "sha256=…" from the verified RECORD */
  uint64_t size;
};

struct ts_unpack_source; /* a validated archive not unpacked (unpack.c) */

struct ts_unpacked {
  char *dir;             /* absolute path of the unpacked tree; NULL when
                            `source` holds the archive instead */
  struct ts_unpack_source *source;
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
