/*
 * wheel/owners.h — which installed distribution owns each file, from the
 * RECORDs in site-packages (internal to wheel/).
 *
 * Two distributions may list one path (nvidia-cublas-cu12 and
 * nvidia-cudnn-cu12 both ship nvidia/__init__.py).  The installer asks
 * two questions of this table: may a new file replace the one on disk (not
 * when another distribution owns it with other content, unless
 * --allow-overwrite), and may a removal delete a file (not while a
 * distribution that stays lists it).
 */
#pragma once

#include <stddef.h>

#include "wheel/strset.h"

struct ts_owned {
  char *path;   /* absolute, normalised */
  char *hash;   /* "sha256=…" from RECORD, "" when none */
  size_t owner; /* index into dists */
};

struct ts_owners {
  struct ts_owned *files; /* sorted by path; a path may repeat */
  size_t n;
  char **dists;           /* the owners' dist-info directories */
  size_t ndists;
};

/* Reads the RECORD of each dist-info directory in distinfos (the
 * installed set, target/site.h) except those in `skip` (being removed).  `normalize` turns a joined path into the installer's
 * absolute, normalised form (malloc'd).  A distribution whose RECORD
 * cannot be read owns nothing we can know of and is left out. */
void ts_owners_build(struct ts_owners *o, const char *const *distinfos, size_t n,
                     const struct ts_strset *skip, char *(*normalize)(const char *));
/* The first row for path, or NULL when no distribution lists it. */
const struct ts_owned *ts_owners_find(const struct ts_owners *o, const char *path);
/* "name version" of an owner's dist-info directory name, malloc'd. */
char *ts_owners_label(const struct ts_owners *o, size_t owner);
void ts_owners_clear(struct ts_owners *o);
