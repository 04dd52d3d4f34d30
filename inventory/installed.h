/*
 * inventory/installed.h — the distributions installed in site-packages
 * directories, as pip's importlib backend sees them: what list, freeze,
 * show, inspect and uninstall read.
 *
 * A view over target/site.h, the one reader of the installed set (install,
 * sync and check read the same ts_site): each distribution here points at
 * its ts_site_dist (name, PEP 503 name, dist-info path, directory,
 * REQUESTED, METADATA bytes) and adds only what pip's commands need
 * beyond it: the METADATA parsed (pep/metadata.h), and the small files of
 * PEP 376/610/627 (INSTALLER, direct_url.json).  A distribution whose
 * METADATA does not parse is in the set's `site` (sync and install see and
 * replace it) but not in `dists`: it is named in `skipped`, as pip logs and
 * skips it.  A project found in two directories (purelib, platlib) is
 * kept once: the first directory given wins, as sys.path order does.
 * RECORD is read on demand (ts_installed_files).
 */
#pragma once

#include <stdbool.h>
#include <stddef.h>

#include "core/error.h"
#include "pep/metadata.h"
#include "pep/requirement.h"
#include "target/site.h"

struct ts_installed_dist {
  /* The reader's entry: site->name (as in METADATA, pip's raw_name),
   * site->normalized (PEP 503), site->dist_info (its .dist-info path),
   * site->site (the site-packages directory it was found in),
   * site->requested (REQUESTED exists).  Into the set's `site`. */
  const struct ts_site_dist *site;
  struct ts_metadata *md;  /* site->metadata parsed */
  const char *version;     /* md's version normalised (str(Version)), or its
                              legacy_version as written; owned by md */
  char *installer;         /* INSTALLER's first line, NULL when absent */
  char *direct_url_json;   /* direct_url.json as written, NULL when absent */
  char *direct_url;        /* its "url", NULL when absent or unreadable */
  bool editable;           /* its dir_info.editable */
  /* What follows "name @ " in pip freeze (direct_url_as_pep440_direct_
   * reference): vcs+url@commit, or the url, with #sha256=... and/or
   * subdirectory=... fragments; NULL without a readable direct_url.json. */
  char *direct_reference;
  char *editable_location; /* the path of a file:// editable's url */
  /* A PEP 825 variant wheel's label, from the variant.json its dist-info
   * keeps (the wheel's own file, naming its one variant); NULL otherwise. */
  char *variant_label;
};

struct ts_installed_set {
  struct ts_site site;             /* every dist-info read, parsed or not */
  struct ts_installed_dist *dists; /* sorted by PEP 503 name */
  size_t ndists;
  char **skipped;                  /* "<dist-info path>: why" */
  size_t nskipped;
};

/* Reads the directories in order (a directory named twice is read once;
 * one that does not exist holds nothing).  TS_E_IO when one cannot be
 * read, TS_E_TOO_BIG past TS_SITE_MAX_DISTS.  Clear with
 * ts_installed_clear (also after an error). */
enum ts_code ts_installed_read(const char *const *dirs, size_t ndirs,
                               struct ts_installed_set *out, struct ts_error *err);
void ts_installed_clear(struct ts_installed_set *s);

/* The distribution named `name` (any spelling), or NULL. */
const struct ts_installed_dist *ts_installed_find(const struct ts_installed_set *s,
                                                  const char *name);

/* The files of d's RECORD, as written (relative to d->location, or
 * absolute), in RECORD order.  TS_E_NOT_FOUND without a RECORD.  Free
 * with ts_installed_files_free. */
enum ts_code ts_installed_files(const struct ts_installed_dist *d, char ***paths,
                                size_t *n, struct ts_error *err);
void ts_installed_files_free(char **paths, size_t n);

/* The names (as written) of d's Requires-Dist entries that apply with no
 * extra requested, as pip's iter_dependencies(): no marker, or a marker
 * that holds under env (NULL: only unmarked entries) with extra "".  In
 * order, duplicates kept; unparseable entries left out.  Free with
 * ts_installed_files_free. */
void ts_installed_requires(const struct ts_installed_dist *d,
                           const struct ts_marker_env *env, char ***names,
                           size_t *n);
