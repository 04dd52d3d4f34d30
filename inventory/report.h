/*
 * inventory/report.h — pip's installation report (`pip install --report`),
 * version "1", so that tools reading pip's report read ours.
 *
 *   { "version": "1", "pip_version": "torchsolve 0.1.0",
 *     "install": [ { "download_info": {...}, "is_direct": false,
 *                    "is_yanked": false, "requested": true,
 *                    "metadata": {...}, "requested_extras": [...] } ],
 *     "environment": { "implementation_name": "cpython", ... } }
 *
 * metadata is the JSON form of core metadata (PEP 566, pip's
 * msg_to_json): keys lower-case with '_' for '-', multiple-use fields as
 * lists, keywords split, in pip's field order; unknown fields dropped.
 * download_info is PEP 610's direct_url.json form: url, subdirectory, then
 * archive_info {hash, hashes}, dir_info {editable} or vcs_info.
 * Output is JSON indented by 2 as pip's json.dump(indent=2,
 * ensure_ascii=False).  The writer takes plain structs whose strings stay
 * the caller's.
 */
#pragma once

#include <stdbool.h>
#include <stddef.h>

#include "core/buf.h"
#include "core/error.h"
#include "pep/metadata.h"
#include "pep/requirement.h"

struct ts_report_kv {
  const char *key;
  const char *value;
};

struct ts_report_item {
  const char *name;    /* used when metadata is empty */
  const char *version;
  /* METADATA fields as written ("Requires-Dist", "Classifier", ...), a
   * multiple-use field once per value; the body as "Description". */
  const struct ts_report_kv *metadata;
  size_t nmetadata;
  /* download_info */
  const char *url;
  const char *subdirectory;  /* NULL: none */
  const char *sha256;        /* archive hash (hex) or NULL */
  bool is_dir;               /* dir_info instead of archive_info */
  bool editable;             /* dir_info.editable */
  const char *vcs;           /* vcs_info when non-NULL ("git") */
  const char *commit_id;
  const char *requested_revision;
  /* flags */
  bool is_direct;
  bool is_yanked;
  bool requested;            /* named by the user */
  const char *const *requested_extras; /* written when requested */
  size_t nrequested_extras;
  /* A PEP 825 variant wheel: its label and why it was chosen, written as
   * the item's "torchsolve": {"variant", "variant_why"}; NULL otherwise. */
  const char *variant_label;
  const char *variant_why;
};

struct ts_report_rules {
  bool updated;        /* the file `rules update` kept, not the bundled one */
  const char *version; /* may be NULL */
  const char *path;
  const char *url;     /* may be NULL */
};

struct ts_report {
  const char *tool_version;  /* "pip_version": "torchsolve 0.1.0" */
  const struct ts_report_item *items;
  size_t nitems;
  const struct ts_report_kv *environment; /* marker name -> value */
  size_t nenvironment;
  /* torchsolve's addition, written as "conflicts" when there are any: the
   * requirements of installed distributions the install leaves unmet, one
   * line each ("needsnew 1.0 requires depx>=2, but depx 1.0 will be
   * installed"); pip prints them after installing and records nothing. */
  const char *const *conflicts;
  size_t nconflicts;
  /* torchsolve's notes on the choice (a torch held back, and why): a
   * top-level "torchsolve": {"notes": [...]} after "environment", only
   * when there is one (pip's readers ignore keys they do not know) */
  const char *const *notes;
  size_t nnotes;
  /* The rules the choice was made with, written under "torchsolve":
   * {"rules": {"in_force": "bundled"|"updated", "version", "path", "url"}};
   * NULL: none (no GPU rules). */
  const struct ts_report_rules *rules;
};

/* Appends the report (ending in a newline) to out.  TS_E_INVALID for a
 * string that is not UTF-8, or an item with neither metadata nor name. */
enum ts_code ts_report_write(const struct ts_report *r, struct ts_buf *out,
                             struct ts_error *err);

/* The 11 marker variables of env in packaging's default_environment()
 * order (NULL values become ""); returns 11.  Strings stay env's. */
#define TS_REPORT_ENV_KEYS 11
size_t ts_report_env_from_markers(const struct ts_marker_env *env,
                                  struct ts_report_kv out[TS_REPORT_ENV_KEYS]);

/* The metadata of md as report key/values: every header in file order,
 * then the body as Description unless a Description header exists (pip's
 * msg_to_json keeps that order).  The strings stay md's; the array is
 * malloc'd, *n long. */
struct ts_report_kv *ts_report_metadata_kvs(const struct ts_metadata *md, size_t *n);

/* ---- pip inspect (version 1) ------------------------------------------

 *   { "version": "1", "pip_version": "torchsolve 0.1.0",
 *     "installed": [ { "metadata": {...}, "metadata_location": "...",
 *                      "direct_url": {...}, "installer": "pip",
 *                      "requested": true } ],
 *     "environment": { ... } }
 * as pip's _dist_to_dict: direct_url only when the distribution has one,
 * installer only when known. */
struct ts_inspect_item {
  const char *name;          /* used when metadata is empty */
  const char *version;
  const struct ts_report_kv *metadata;
  size_t nmetadata;
  const char *metadata_location; /* the .dist-info directory */
  const char *direct_url_json;   /* direct_url.json as written, or NULL */
  const char *installer;         /* NULL: left out */
  bool requested;
};

struct ts_inspect {
  const char *tool_version;
  const struct ts_inspect_item *items;
  size_t nitems;
  const struct ts_report_kv *environment;
  size_t nenvironment;
};

/* Appends the inspect report (ending in a newline).  A direct_url.json
 * that is not JSON is left out; TS_E_INVALID for a string that is not
 * UTF-8. */
enum ts_code ts_report_write_inspect(const struct ts_inspect *r, struct ts_buf *out,
                                     struct ts_error *err);
