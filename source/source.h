/*
 * source/source.h — building wheels from source trees (PEP 517/518/660),
 * the part that needs no index: what a tree declares in [build-system], the
 * hook runner (source/pep517_runner.py, ours, installed beside rules.yaml)
 * run in a subprocess with a timeout and a clean environment, sdist
 * unpacking, the hash of a local tree, git checkouts, and the build log.
 * The builds that use it (the build cache, build environments filled by
 * a provider plan/ gives, torch-matched builds) are source/build.h; this
 * module only runs backends in an interpreter it is given.
 *
 * Errors: TS_E_BUILD for a backend that failed (detail: its last error
 * line and the log's path; ts_source_log_tail gives the lines before it),
 * TS_E_TIMEOUT past the timeout, TS_E_INTERRUPTED when *cancel was set
 * (the backend's process group is killed), TS_E_PARSE for a pyproject.toml
 * that does not read, TS_E_PYTHON when the interpreter cannot be run.
 */
#pragma once

#include <signal.h>
#include <stdbool.h>
#include <stddef.h>

#include "core/error.h"

/* The [build-system] table.  Absent table or file: setuptools' legacy
 * backend with requires ["setuptools>=40.8.0"], as pip does; a table
 * without build-backend keeps its requires and gets the legacy backend. */
struct ts_build_system {
  char **requires; /* PEP 508 strings, as written */
  size_t nrequires;
  char *backend;   /* "module.path:object" */
  char **backend_path; /* absolute, each inside the tree */
  size_t nbackend_path;
  bool declared;   /* pyproject.toml has [build-system] */
  char *project_name; /* [project].name as written, or NULL */
};

#define TS_LEGACY_BACKEND "setuptools.build_meta:__legacy__"

/* Reads DIR/pyproject.toml.  TS_E_PARSE for TOML errors, a requires that
 * is not a list of strings, a backend-path entry that leaves the tree. */
enum ts_code ts_build_system_read(const char *dir, struct ts_build_system *out,
                                  struct ts_error *err);
void ts_build_system_clear(struct ts_build_system *bs);

/* SOURCE_DATE_EPOCH for builds when the caller sets none: 1980-01-01,
 * the earliest time a ZIP member can carry, so wheels are reproducible. */
#define TS_SOURCE_DATE_EPOCH "315532800"

/* How to run the backend.  Its environment is the caller's cleaned of
 * TORCHSOLVE_*, PIP_*, PYTHON* and credentials, plus extra_env,
 * SOURCE_DATE_EPOCH and PYTHONUNBUFFERED=1. */
struct ts_hook_env {
  const char *python;     /* the interpreter that has the build requirements */
  const char *runner;     /* path of pep517_runner.py */
  const char *source_dir; /* the tree (working directory of the hooks) */
  const char *path_prepend; /* a bin directory put first on PATH, or NULL */
  const char *log_path;   /* backend output is appended here */
  const char *const *config_settings; /* "KEY=VALUE" (-C); a key given
                                         twice becomes a list, as pip */
  size_t nconfig_settings;
  const char *const *extra_env; /* "NAME=VALUE", set after the cleaning */
  size_t nextra_env;
  unsigned timeout_s;     /* 0: none */
  bool stream;            /* copy the output to stderr as well (-v) */
  const volatile sig_atomic_t *cancel; /* may be NULL */
};

enum ts_hook {
  TS_HOOK_GET_REQUIRES_WHEEL,
  TS_HOOK_GET_REQUIRES_EDITABLE,
  TS_HOOK_PREPARE_METADATA_WHEEL,
  TS_HOOK_PREPARE_METADATA_EDITABLE,
  TS_HOOK_BUILD_WHEEL,
  TS_HOOK_BUILD_EDITABLE,
};

struct ts_hook_result {
  char **requires;   /* get_requires_*: the extra requirements */
  size_t nrequires;
  char *basename;    /* prepare_metadata_* (.dist-info) and build_*
                        (.whl): the name inside `directory` */
  bool unsupported;  /* the backend lacks the (optional) hook */
};

/* Calls one hook; `directory` is the metadata or wheel output directory
 * (unused by get_requires_*), metadata_directory may be NULL.  A missing
 * build_editable is TS_E_UNSUPPORTED naming the backend. */
enum ts_code ts_hook_call(const struct ts_hook_env *env, const struct ts_build_system *bs,
                          enum ts_hook hook, const char *directory,
                          const char *metadata_directory, struct ts_hook_result *out,
                          struct ts_error *err);
void ts_hook_result_clear(struct ts_hook_result *r);

/* Unpacks an sdist (.tar.gz, .tgz, .tar.bz2, .tar.xz, .tar, .zip) into
 * dest with env's interpreter and runner; members outside dest are
 * TS_E_UNSAFE_PATH, links and special files are skipped.  *top gets the
 * tree to build: dest's only directory (sdists hold NAME-VERSION/), else
 * dest itself; malloc'd. */
enum ts_code ts_source_unpack(const struct ts_hook_env *env, const char *archive,
                              const char *dest, char **top, struct ts_error *err);

/* The PKG-INFO of a .tar.gz sdist (the member NAME-VERSION/PKG-INFO),
 * read without unpacking: *data malloc'd and NUL-terminated, NULL when the
 * archive is of another kind or holds none.  TS_E_PARSE for a damaged
 * archive, TS_E_TOO_BIG past TS_CAP_METADATA. */
enum ts_code ts_source_sdist_pkg_info(const char *archive, char **data, size_t *len,
                                      struct ts_error *err);

/* sha256 (hex) over a local tree's regular files (relative path, mode's
 * executable bit, contents) in name order, leaving out what builds and
 * tools write there (.git, __pycache__, build/, dist/, *.egg-info, .tox,
 * .nox, .venv), so that a rebuild is needed exactly when a source changed. */
enum ts_code ts_source_tree_hash(const char *dir, char out[65], struct ts_error *err);

/* Copies a local tree into dest (created) for a build, so that nothing the
 * backend writes (build/, *.egg-info) lands in the user's folder: what
 * ts_source_tree_hash leaves out as build output is not copied, .git/.hg/
 * .svn at the top are linked (version tools read them), symlinks are kept
 * as symlinks. */
enum ts_code ts_source_tree_copy(const char *dir, const char *dest, struct ts_error *err);

/* TS_OK when tree holds a setup.py or a pyproject.toml, else TS_E_NOT_FOUND
 * "'what' does not appear to be a Python project" (pip's refusal). */
enum ts_code ts_source_check_project(const char *tree, const char *what,
                                     struct ts_error *err);

/* A git URL ("git+https://host/r.git@REV#subdirectory=sub", git+file://,
 * git+ssh://) checked out with the system git into dest: a clone, the
 * revision resolved to its commit id (40 hex) and checked out.  A clone or
 * checkout git refuses is TS_E_NOT_FOUND (TS_E_NETWORK when git cannot
 * reach the server) with git's own "fatal:" line, never TS_E_BUILD. */
struct ts_vcs_ref {
  char *repo;         /* the URL git clones: "https://host/r.git" */
  char *revision;     /* "@REV" as requested, or NULL (the default branch) */
  char *subdirectory; /* #subdirectory=, or NULL */
};
enum ts_code ts_vcs_parse(const char *url, struct ts_vcs_ref *out, struct ts_error *err);
void ts_vcs_ref_clear(struct ts_vcs_ref *r);
enum ts_code ts_vcs_checkout(const struct ts_vcs_ref *ref, const char *dest,
                             const char *log_path, unsigned timeout_s,
                             const volatile sig_atomic_t *cancel, char commit[41],
                             struct ts_error *err);

/* A directory inside a git checkout as pip freeze describes an editable
 * install there (pip's vcs backend for git): the remote called origin,
 * else the first remote (url: "git+https://...", a local path as file://,
 * scp-like as ssh://; NULL when there is no remote, or when `remote` is
 * one pip cannot turn into a URL), HEAD's commit, and the directory's path
 * below the checkout's root (NULL at the root).  TS_E_NOT_FOUND when dir
 * is in no checkout (or git cannot be run). */
struct ts_vcs_origin {
  char *url;
  char *remote;       /* as configured, or NULL: no remote */
  char *commit;
  char *subdirectory;
};
enum ts_code ts_vcs_describe(const char *dir, struct ts_vcs_origin *out,
                             struct ts_error *err);
void ts_vcs_origin_clear(struct ts_vcs_origin *o);

/* The last `nlines` lines of a log, malloc'd ("" for an empty or missing
 * log); at most TS_SOURCE_LOG_TAIL_MAX bytes are read from its end (a
 * build log can be gigabytes; the error is in its last lines). */
#define TS_SOURCE_LOG_TAIL_MAX 65536
char *ts_source_log_tail(const char *log_path, size_t nlines);
