/*
 * inventory/envcheck.h — environment consistency: what `pip check` reports for a
 * site-packages directory, without running Python.
 *
 * The installed set comes from target/site.h (the reader install and sync
 * use); for each
 * distribution, each Requires-Dist whose marker holds for the target (with
 * `extra` bound to "", as pip's iter_dependencies does) is checked:
 *   missing:     "X 1.0 requires y, which is not installed."
 *   conflicting: "X 1.0 has requirement y>=2, but you have y 1.0."
 * in pip's exact wording (names canonical, versions normalised, the
 * requirement as packaging's str(Requirement)).  A distribution whose
 * metadata or requirements cannot be parsed is left out of the set, as pip
 * does ("Error parsing requirements for ..."), and listed in `skipped`.
 * The installed set (name, version) is returned too, for the rules check
 * (rules/rules.h ts_rules_check_installed), which lives above this library.
 */
#pragma once

#include <stdbool.h>
#include <stddef.h>

#include "core/error.h"
#include "pep/requirement.h"

enum ts_envcheck_kind {
  TS_ENVCHECK_MISSING,
  TS_ENVCHECK_CONFLICT,
};

struct ts_envcheck_dist {
  char *name;    /* canonical (PEP 503) */
  char *version; /* normalised (str(Version)) */
};

struct ts_envcheck_problem {
  enum ts_envcheck_kind kind;
  char *project;       /* canonical name of the distribution that requires */
  char *version;       /* its version */
  char *requirement;   /* str(Requirement) */
  char *dep_name;      /* canonical */
  char *dep_version;   /* installed version (conflicts only), else NULL */
  char *message;       /* pip's line, without newline */
};

struct ts_envcheck_result {
  struct ts_envcheck_dist *dists;      /* sorted by name */
  size_t ndists;
  struct ts_envcheck_problem *problems;/* by project, then message */
  size_t nproblems;
  char **skipped;                      /* "name: why" for unreadable dists */
  size_t nskipped;
};

/* Checks the distributions installed in `site_dir` against the marker
 * environment `env`.  Fills *out (zeroed first); the caller clears it with
 * ts_envcheck_result_clear.  TS_E_IO / TS_E_NOT_FOUND when the directory
 * cannot be read; unreadable distributions are not an error. */
enum ts_code ts_envcheck_run(const char *site_dir,
                             const struct ts_marker_env *env,
                             struct ts_envcheck_result *out,
                             struct ts_error *err);
/* The same over several directories (purelib and platlib, when they
 * differ); a project found in two is counted once (the last one read, as
 * pip's dict keeps).  Directories named twice are read once. */
enum ts_code ts_envcheck_run_dirs(const char *const *site_dirs, size_t ndirs,
                                  const struct ts_marker_env *env,
                                  struct ts_envcheck_result *out,
                                  struct ts_error *err);
/* The same over an installed set already read, or made up: install checks
 * the set it would leave (plan/) before changing anything. */
struct ts_site;
enum ts_code ts_envcheck_run_site(const struct ts_site *site,
                                  const struct ts_marker_env *env,
                                  struct ts_envcheck_result *out,
                                  struct ts_error *err);

/* One distribution of a set to check: an installed one (its METADATA read
 * here), or one whose METADATA the caller has parsed already (the
 * resolver's parse of a file it chose): the canonical name and version
 * that METADATA gives and every Requires-Dist of it, parsed.  Borrowed. */
struct ts_site_dist;
struct ts_envcheck_dist_in {
  const struct ts_site_dist *site; /* NULL: the parsed fields below */
  const char *name;
  const struct ts_version *version;
  const struct ts_requirement *const *requires_dist;
  size_t nrequires_dist;
};
/* The same over such a set, in read order (of two copies of a project,
 * the last one counts). */
enum ts_code ts_envcheck_run_set(const struct ts_envcheck_dist_in *dists, size_t n,
                                 const struct ts_marker_env *env,
                                 struct ts_envcheck_result *out,
                                 struct ts_error *err);
void ts_envcheck_result_clear(struct ts_envcheck_result *r);
