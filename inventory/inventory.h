/*
 * inventory/inventory.h — what pip's freeze, list and show report about an
 * environment's installed set (inventory/env.h), computed as pip 23 does; the
 * CLI formats and prints.  One file per workflow: plan_freeze.c,
 * plan_list.c, plan_show.c, plan_inspect.c.
 */
#pragma once

#include <stdbool.h>
#include <stddef.h>

#include "core/buf.h"
#include "core/error.h"
#include "index/client.h"
#include "inventory/env.h"

/* Lines for the user (warnings), owned. */
struct ts_plan_notes {
  char **lines;
  size_t n;
};
/* Appends line (malloc'd; the notes own it from here). */
void ts_plan_notes_add(struct ts_plan_notes *n, char *line);
void ts_plan_notes_clear(struct ts_plan_notes *n);

/* ---- freeze ---------------------------------------------------------- */

struct ts_freeze_options {
  const char *const *exclude; /* names left out (--exclude), any spelling */
  size_t nexclude;
  bool all;              /* keep pip (and, below Python 3.12, setuptools,
                            distribute and wheel), which pip freeze hides */
  bool exclude_editable;
  /* -r FILE: its lines first, in its order (options once, requirements
   * replaced by what is installed), then "## The following requirements
   * were added by pip freeze:" and the rest. */
  const char *const *requirement_files;
  size_t nrequirement_files;
};

/* Appends pip freeze's output to out: "Name==version" ("===" for a
 * version that is not PEP 440), "Name @ reference" for direct URLs,
 * "-e git+URL@COMMIT#egg=Name" for an editable in a git checkout with a
 * remote (the system git asked, as pip asks it), else "# Editable install
 * with no version control (Name==version)" (or pip's Git comments) then
 * "-e PATH"; sorted by lower-case name.  Requirements files
 * that name something not installed add a warning, as pip's.  TS_E_IO /
 * TS_E_NOT_FOUND for an unreadable requirements file. */
enum ts_code ts_plan_freeze(const struct ts_plan_env *env,
                            const struct ts_freeze_options *o, struct ts_buf *out,
                            struct ts_plan_notes *warnings, struct ts_error *err);

/* One freeze line for d (without newline), as above.  malloc'd. */
char *ts_plan_freeze_line(const struct ts_installed_dist *d);

/* ---- list ------------------------------------------------------------ */

enum ts_list_select { TS_LIST_ALL, TS_LIST_OUTDATED, TS_LIST_UPTODATE };

struct ts_list_options {
  enum ts_list_select select;  /* outdated/uptodate ask the indexes */
  bool editable_only, exclude_editable;
  bool not_required;           /* only what no other installed dist requires */
  bool pre;                    /* a pre-release may be the latest */
  const char *const *exclude;
  size_t nexclude;
  const struct ts_index_options *index; /* needed for outdated/uptodate */
};

struct ts_list_row {
  const struct ts_installed_dist *dist; /* into env->installed */
  char *latest;                /* newest version on the indexes (outdated/
                                  uptodate), else NULL */
  const char *latest_type;     /* "wheel" or "sdist" with latest */
};

/* The rows pip list would print, sorted by canonical name.  A project the
 * indexes do not have is left out of outdated/uptodate, as pip does.
 * Errors: the index's (a failure other than not-found).  Free with
 * ts_plan_list_free. */
enum ts_code ts_plan_list(const struct ts_plan_env *env,
                          const struct ts_list_options *o, struct ts_list_row **rows,
                          size_t *n, struct ts_error *err);
void ts_plan_list_free(struct ts_list_row *rows, size_t n);

/* ---- show ------------------------------------------------------------ */

struct ts_show_info {
  const struct ts_installed_dist *dist; /* into env->installed */
  char **requires;             /* Requires-Dist names that apply, lower-case
                                  sorted, as written */
  size_t nrequires;
  char **required_by;          /* Names of installed dists requiring it */
  size_t nrequired_by;
  char **files;                /* RECORD paths, sorted (with_files) */
  size_t nfiles;
  bool has_record;
};

/* pip show for each installed name, in the order asked (a name asked twice
 * is shown twice, as pip does); names not installed go to *missing (sorted,
 * as given).  Free with ts_plan_show_free. */
enum ts_code ts_plan_show(const struct ts_plan_env *env, const char *const *names,
                          size_t nnames, bool with_files, struct ts_show_info **out,
                          size_t *nout, struct ts_plan_notes *missing,
                          struct ts_error *err);
void ts_plan_show_free(struct ts_show_info *info, size_t n);

/* ---- inspect --------------------------------------------------------- */

/* Appends pip inspect's JSON (version 1, inventory/report.h) for the
 * environment: every installed distribution by name, the target's marker
 * environment. */
enum ts_code ts_plan_inspect(const struct ts_plan_env *env, struct ts_buf *out,
                             struct ts_error *err);
