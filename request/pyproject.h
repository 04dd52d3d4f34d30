/*
 * request/pyproject.h — a project's pyproject.toml as `lock`'s input: the
 * PEP 621 `[project]` dependencies, optional-dependencies (extras) and
 * requires-python, PEP 735 `[dependency-groups]` (`{include-group = "x"}`
 * expanded, cycles refused), and torchsolve's own `[tool.torchsolve]`:
 * `environments` (markers, as --environment), `index-url`,
 * `extra-index-url` and `torch-index-url` (as -i, --extra-index-url and
 * --torch-index-url), `profiles` (GPU
 * profiles, as --profile; checked against rules.yaml by the caller).
 * Any other key under [tool.torchsolve] is an error naming it: a misspelt
 * key must not silently lock something else.
 *
 * Requirements are kept as the text written (each checked to be a PEP 508
 * requirement); extras and groups are sorted by name, so the result never
 * depends on the order of the file's tables.
 */
#pragma once

#include <stddef.h>

#include "core/error.h"

/* An extra or a dependency group: its name and requirements. */
struct ts_project_set {
  char *name;      /* normalised (PEP 685 / PEP 735: as PEP 503) */
  char **requires;
  size_t nrequires;
};

struct ts_project {
  char **requires;                 /* [project] dependencies */
  size_t nrequires;
  struct ts_project_set *extras;   /* [project.optional-dependencies] */
  size_t nextras;
  struct ts_project_set *groups;   /* [dependency-groups], includes expanded */
  size_t ngroups;
  char *requires_python;           /* [project] requires-python, or NULL */
  char **environments;             /* [tool.torchsolve] environments */
  size_t nenvironments;
  char *index_url;                 /* [tool.torchsolve] index-url, or NULL */
  char *torch_index_url;           /* [tool.torchsolve] torch-index-url, or NULL */
  char **extra_index_urls;         /* [tool.torchsolve] extra-index-url */
  size_t nextra_index_urls;
  char **profiles;                 /* [tool.torchsolve] profiles, as written */
  size_t nprofiles;
};

/* Reads and checks path.  TS_E_NOT_FOUND when it does not exist;
 * TS_E_PARSE for TOML errors and for a key of the wrong type, a
 * requirement that is no PEP 508 requirement, a requires-python that is
 * no PEP 440 specifier set, an unknown or cyclic
 * include-group, an unknown [tool.torchsolve] key, an empty `profiles`
 * (the detail names the file and the key).  Clear *out in any case. */
enum ts_code ts_project_read(const char *path, struct ts_project *out, struct ts_error *err);
void ts_project_clear(struct ts_project *p);
