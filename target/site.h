/*
 * target/site.h — the installed set: every *.dist-info directory of an
 * environment's site-packages, read once into one list.  install's
 * resolver (plan/), sync's plan, `check` (inventory/envcheck.h) and the wheel
 * installer's removals all see the same distributions through it.
 *
 * A distribution is known by its METADATA Name and Version; when METADATA
 * is missing or lacks them, by its directory name ("name-version.dist-info",
 * as the wheel spec writes it), with metadata_ok false and the reason in
 * `problem`, so that callers can still show, replace or remove it instead
 * of not seeing it.  Only the METADATA header is read here; callers that
 * need Requires-Dist parse `metadata`.
 */
#pragma once

#include <stdbool.h>
#include <stddef.h>

#include "core/error.h"

/* Hostile-input bound on distributions in one directory. */
#define TS_SITE_MAX_DISTS 100000

struct ts_site_dist {
  char *dist_info;     /* path of the .dist-info directory */
  const char *site;    /* the directory it is in (into s->dirs) */
  size_t site_order;   /* that directory's index in the caller's list */
  char *name;          /* as written (METADATA, else the directory name) */
  char *normalized;    /* PEP 503 */
  char *version;       /* as written; NULL when neither source gives one */
  char *metadata;      /* METADATA bytes (NUL-terminated), NULL if unreadable */
  size_t metadata_len;
  bool metadata_ok;    /* METADATA read, with Name and Version */
  char *problem;       /* why not, one line; NULL when metadata_ok */
  bool requested;      /* a REQUESTED file (pip's "installed on request") */
};

struct ts_site {
  struct ts_site_dist *dists; /* by normalized name, then directory order */
  size_t n;
  char **dirs;                /* copies of the directories read (a dist's site) */
  size_t ndirs;
};

/* Reads the distributions in dirs[0..ndirs) (purelib, platlib: a directory
 * named twice is read once; one that does not exist is empty).  TS_E_IO
 * when a directory cannot be read, TS_E_TOO_BIG past TS_SITE_MAX_DISTS.
 * *out is zeroed first; clear it with ts_site_clear whatever the return. */
enum ts_code ts_site_read(const char *const *dirs, size_t ndirs, struct ts_site *out,
                          struct ts_error *err);
/* The first distribution of a project (any spelling): from the first
 * directory that has one, as sys.path order finds it.  NULL when none. */
const struct ts_site_dist *ts_site_find(const struct ts_site *s, const char *name);
void ts_site_clear(struct ts_site *s);

/* A value of <site>/torch/version.py ("cuda: Optional[str] = '12.8'",
 * "hip = '7.1.52802'"): what an installed torch was built with, which a
 * custom build's version label does not say.  malloc'd; NULL when the file
 * or the value (None) is absent. */
char *ts_site_torch_built_with(const char *site, const char *key);
/* The same from the file's bytes (text[0..len), need not be
 * NUL-terminated): a wheel's torch/version.py before it is installed. */
char *ts_site_torch_version_value(const char *text, size_t len, const char *key);
