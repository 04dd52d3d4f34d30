/*
 * plan/plan_internal.h — private to plan/: what its workflows share.
 *
 * The one download-and-verify path that install (ts_plan_install) and
 * sync (ts_plan_sync_apply) share: given the files to install, it makes
 * each a verified local file before the environment is touched:
 *
 *  - a local file (a path, or a file:// URL) is used where it is, hashed
 *    and checked against the expected sha256; with nothing to check it
 *    against and may_hash_later set, it is left to the unpacker, which
 *    hashes it while extracting;
 *  - a remote file with a cache key lives in the index client's wheel
 *    cache (where later runs and --offline find it): present and verified
 *    it is not downloaded again;
 *  - anything else is downloaded into run_dir, hashed while it streams.
 *
 * --offline: every file missing from the cache is named in one
 * TS_E_OFFLINE error before anything is downloaded.
 */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/error.h"
#include "core/sha256.h"
#include "index/client.h"
#include "plan/plan.h"

struct ts_plan_fetch {
  /* in (borrowed) */
  const char *project;   /* normalised name: the cache path's folder */
  const char *filename;  /* for progress and messages */
  const char *url;       /* http(s):// or file://; NULL when path is set */
  const char *path;      /* a local file named by path */
  const char *sha256;    /* expected hex digest; NULL: known once read */
  const char *sha256_from; /* whose digest it is, for a mismatch ("the
                              lock"); NULL: the index's */
  const char *cache_key; /* keeps a remote file in the wheel cache under
                            this sha256 (the index's); NULL: not cached */
  int64_t size;          /* from the index or lock, <= 0 unknown */
  bool may_hash_later;
  /* out */
  char *local;           /* the verified file, owned (ts_plan_fetch_clear) */
  char sha256_out[TS_SHA256_HEX_LEN + 1]; /* its digest; "" when hash_later */
  bool hash_later;
};

struct ts_plan_fetch_options {
  const char *run_dir;        /* where uncached downloads go */
  bool reread_cached;         /* hash cached and local files again, never
                                 trusting the stat memo (sync verifies every
                                 byte it installs) */
  const struct ts_plan_callbacks *cb; /* progress; may be NULL */
};

/* What the batch downloaded (struct ts_plan_fetch_totals, plan.h): cache
 * hits and local files are not counted. */

enum ts_code ts_plan_fetch_files(struct ts_index *idx, struct ts_plan_fetch *f, size_t n,
                                 const struct ts_plan_fetch_options *o,
                                 struct ts_plan_fetch_totals *totals,
                                 struct ts_error *err);
void ts_plan_fetch_clear(struct ts_plan_fetch *f, size_t n);

/* A fresh directory for one run's uncached downloads: under download_dir
 * when given, else <cache>/downloads-v1, else (--no-cache) the temporary
 * directory.  *dir malloc'd; the caller removes the tree and frees it. */
enum ts_code ts_plan_fetch_run_dir(struct ts_index *idx, const char *download_dir,
                                   char **dir, struct ts_error *err);

/* The one wheel transaction install and sync end with: installs rq[0..n)
 * and removes the distributions named in remove[0..nremove) into the
 * target's scheme (ts_wheel_install: all or nothing), unpacking through
 * the index client's cache (none with --no-cache).  *count gets the number
 * of distributions installed. */
struct ts_plan_txn {
  const struct ts_target *target;
  struct ts_index *idx;
  const struct ts_wheel_request *rq;
  size_t n;
  const char *const *remove;
  size_t nremove;
  enum ts_wheel_link_mode link_mode;
  bool compile;
  const volatile sig_atomic_t *cancel;
  struct ts_wheel_callbacks cb;
  bool env_locked; /* the caller holds the environment's lock */
  bool allow_overwrite; /* see ts_wheel_options.allow_overwrite */
  bool verify_cache;    /* see ts_wheel_options.verify_cache */
  const struct ts_wheel_paths *paths; /* NULL: the target's scheme; else a
                                         --target or --prefix tree */
};
enum ts_code ts_plan_run_transaction(const struct ts_plan_txn *t, size_t *count,
                                     struct ts_error *err);

/* PEP 427: a wheel whose RECORD does not match is refused.  The index
 * wheels among todo's fetched files (fx, same order) are checked and
 * unpacked into the cache before the transaction; one that fails for what
 * it holds is replaced by the next file of the same version (the target's
 * best tag, then the highest build tag), fetched and checked in turn, with
 * cb->notice naming the refused file.  A file the user named or pinned by
 * --hash is never replaced.  The error of the first file when no other
 * passes. */
enum ts_code ts_plan_check_index_wheels(struct ts_plan_result *r, struct ts_plan_item **todo,
                                        struct ts_plan_fetch *fx, size_t n,
                                        const struct ts_plan_fetch_options *fo,
                                        const struct ts_wheel_callbacks *cb,
                                        struct ts_error *err);

/* A note for each installed distribution the answer replaces that breaks
 * a rule of `set` on this host (torch 2.13.0+cu130 under --cuda 12.6): it
 * is not kept as satisfying the request, and the note says why. */
void ts_plan_note_broken_installed(struct ts_plan_result *r, const struct ts_constraint_set *set);
/* The installed distributions a resolution orphans: needed (directly or
 * through one another) by the installed version of a distribution it
 * replaces by another build (a local label that changes: torch
 * 2.13.0+cu130's nvidia-*-cu13 when +cu126 comes in; an ordinary upgrade
 * orphans nothing, as in pip), and
 * by nothing that stays: neither by the answer nor by another installed
 * distribution; never one installed on request (REQUESTED) or in the
 * answer.  Sets r->orphans (names normalised, sorted) and
 * r->orphan_versions. */
struct ts_site;
void ts_plan_orphans(const struct ts_site *site, struct ts_plan_result *r,
                     const struct ts_marker_env *env);

/* ---- page filters (page_filters.c) -------------------------------------- */

/* Whether rules.yaml routes a project (normalised name) to the PyTorch
 * server. */
bool ts_plan_is_routed(const struct ts_constraint_set *set, const char *name);

/* A routed project's --find-links files, when the PyTorch server has
 * files of it too, are dropped with a note in *notes: the server's builds
 * are the ones the rules vouch for, and a folder's "torch 99.0.0" would
 * otherwise win on version alone. */
void ts_plan_drop_routed_find_links(const struct ts_constraint_set *set,
                                    struct ts_index_project *pr, char ***notes,
                                    size_t *nnotes);

/* ---- PEP 825 variant wheels (plan_variants.c) --------------------------- */

struct ts_plan_variants;
struct ts_variant_force;

/* What this host supports (variant/provider.h) from `host` (NULL: nothing,
 * only null variants fit) and the providers' variables, and the rules'
 * policy: for a routed project a variant whose PyTorch index twin the
 * rules exclude is refused with their reason, and ties go to the rules'
 * backend order (the newest CUDA that runs here first).  TS_E_INVALID
 * for a malformed forced value. */
enum ts_code ts_plan_variants_new(const struct ts_host *host,
                                  const struct ts_variant_force *force,
                                  const struct ts_constraint_set *set,
                                  const struct ts_marker_env *target,
                                  struct ts_plan_variants **out, struct ts_error *err);
void ts_plan_variants_free(struct ts_plan_variants *v);

/* Judges the variant wheels of a fetched page: for each release with
 * variant wheels its `{name}-{version}-variants.json` on the page is
 * fetched (hash-checked and cached by the index client) and read; the
 * variant wheels this host may install get their variant_rank, the others
 * (incompatible, refused by the rules, without readable metadata) and the
 * JSON files leave the page.  A release whose metadata cannot be had
 * loses its variant wheels with a note in *notes. */
void ts_plan_variants_apply(struct ts_plan_variants *v, struct ts_index *idx,
                            struct ts_index_project *pr, char ***notes, size_t *nnotes);

/* For a chosen variant wheel: its label and the one line of why ("torch
 * 2.10.0 [cuda12.8]: nvidia::sm_arch 89_real, ...; cuda13.0 rejected:
 * ..."), owned by v; both NULL for another file. */
void ts_plan_variants_describe(const struct ts_plan_variants *v, const char *name,
                               const struct ts_index_file *f, const char **label,
                               const char **why);

/* The marker environment of a chosen variant wheel's Requires-Dist (the
 * target's with its label and properties), or NULL for another file. */
const struct ts_marker_env *ts_plan_variants_env(const struct ts_plan_variants *v,
                                                 const char *name,
                                                 const struct ts_index_file *f);

/* A local torch wheel with a label no variant has (seed 003:
 * torch-2.9.1a0+gitd38164a) judged, as `check` judges it once installed,
 * by what its torch/version.py says it was built with (custom_build.c):
 * TS_E_HOST naming the rule and its fix when this host cannot run it. */
enum ts_code ts_plan_check_custom_builds(const struct ts_plan_result *r,
                                         const struct ts_constraint_set *set,
                                         struct ts_error *err);

/* ---- --hash options (plan_hashes.c) ---------------------------------- */

/* How many sha256 values e's --hash options give (e may be NULL). */
size_t ts_plan_entry_nsha256(const struct ts_reqfile_entry *e);
/* The only sha256 e allows, or NULL when it gives none or several. */
const char *ts_plan_entry_only_sha256(const struct ts_reqfile_entry *e);
/* Whether hex (NULL: no) is one of e's sha256 values, case-insensitive. */
bool ts_plan_entry_allows(const struct ts_reqfile_entry *e, const char *hex);
/* The requirement whose --hash values project `name` (normalised) must
 * match, or NULL. */
const struct ts_reqfile_entry *ts_plan_hash_entry(const struct ts_reqfile_entry *const *es,
                                                  size_t n, const char *name);
/* Whether f's version is one e accepts (pip filters hashes among the
 * candidates its specifier let through); a name that does not parse
 * counts as accepted. */
bool ts_plan_entry_accepts_file(const struct ts_reqfile_entry *e,
                                const struct ts_index_file *f);
/* Whether an action installs a file (install, upgrade, downgrade,
 * reinstall). */
bool ts_plan_action_changes(enum ts_resolved_action a);
/* " (FILE:LINE)" for a requirements-file entry, "" for the command line. */
struct ts_plan_where {
  char s[600];
};
struct ts_plan_where ts_plan_entry_where(const struct ts_reqfile_entry *e);
