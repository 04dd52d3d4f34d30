/*
 * wheel/wheel.h — installing wheels into an environment, and removing
 * distributions from it, atomically.
 *
 * How an install works:
 *  1. Each wheel is validated as a whole (paths, duplicates, symlinks, size
 *     and ratio caps, dist-info name, every member listed in RECORD) and
 *     unpacked ONCE into the cache, <cache>/wheels-v1/<sha256-of-wheel>/,
 *     members extracted in parallel, largest first, with the CRC-32, the
 *     SHA-256 and the size of each checked against the archive and RECORD in
 *     the same pass.  A hostile or broken wheel fails here, before the
 *     environment is touched (not even its lock file is created).  A
 *     request with stage_directly (and every one under no_cache) is only
 *     validated here when the cache has no tree of it: its members are
 *     inflated in step 3, straight into the stage, with the same checks.
 *  2. The environment is locked (flock on <venv>/.torchsolve.lock, or for
 *     a folder that is no venv a lock file in $TMPDIR, see txn.h); a
 *     transaction left by a killed run is repaired first.
 *  3. The new files are staged in <purelib>/.torchsolve-txn/ (hardlinks from
 *     the cache, else reflinks or copies), with generated files (launchers,
 *     rewritten scripts, INSTALLER, REQUESTED, direct_url.json,
 *     TS_WHEEL_SHA256_FILE, RECORD and,
 *     with compile, bytecode).
 *  4. A journal of renames is written (atomically), then carried out: files
 *     of the old versions move into the transaction, staged trees move in
 *     (a whole new top-level directory is one rename).  A run killed before
 *     the journal exists leaves the environment untouched (the next run
 *     deletes the stage); one killed after is rolled forward by the next
 *     run, which then deletes the old files.
 *
 * Removal goes through RECORD, whichever installer (pip, uv, torchsolve)
 * wrote the distribution; it never touches a path outside the prefix.
 */
#pragma once

#include <signal.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/error.h"
#include "core/fs.h"
#include "pep/tags.h"

/* The dist-info file holding the sha256 (hex, newline) of the wheel a
 * distribution was installed from: sync compares it with the lock's. */
#define TS_WHEEL_SHA256_FILE "torchsolve-wheel-sha256"

/* Where things go: an interpreter's sysconfig paths (target/ probes them). */
struct ts_wheel_paths {
  const char *prefix;   /* sys.prefix: nothing outside it is ever removed */
  const char *purelib;
  const char *platlib;
  const char *scripts;
  const char *data;     /* usually == prefix */
  /* Root of wheel headers, e.g. <prefix>/include/site/python3.11; each
   * distribution's headers go into <headers>/<name>, as pip does. */
  const char *headers;
  const char *python;   /* interpreter written into launchers' shebangs and
                           run for byte-compilation */
  /* Its version, for the versioned launchers pip writes (easy_install-X.Y,
   * pipX, pipX.Y); 0: unknown, the wheel's own names are kept. */
  int python_major, python_minor;
};

enum ts_wheel_link_mode {
  TS_WHEEL_LINK_HARDLINK, /* falls back to copy across filesystems */
  TS_WHEEL_LINK_COPY,
  TS_WHEEL_LINK_CLONE,    /* FICLONE reflink, falls back to copy */
  TS_WHEEL_LINK_AUTO,     /* clone where the cache's filesystem reflinks,
                             else hardlink, else copy */
};

/* Zip-bomb and sanity caps; zero fields take the defaults. */
struct ts_wheel_limits {
  uint64_t max_total;       /* sum of uncompressed sizes; default 64 GiB */
  uint64_t max_ratio;       /* per-member usize/csize; default 200 */
  uint64_t ratio_min_size;  /* ratio applies above this usize; default 1 MiB */
};

/* Progress and notices from the library; every hook may be NULL. */
struct ts_wheel_callbacks {
  void *ctx;
  /* The lock is held by another process; called once, then we block.
   * env is the environment's sys.prefix. */
  void (*waiting_for_lock)(void *ctx, const char *env);
  /* A transaction interrupted earlier was repaired ("rolled forward"...). */
  void (*repaired)(void *ctx, const char *what);
  /* One line per wheel unpacked into the cache (or found there). */
  void (*unpacked)(void *ctx, const char *wheel, bool from_cache);
  /* The cache's unpacked tree of `wheel` failed its check (see verify):
   * `why` names a file and what is wrong; it is dropped and unpacked
   * again. */
  void (*cache_damaged)(void *ctx, const char *wheel, const char *why);
  /* `wheel` is installed, but the user should know `what` about it (its
   * WHEEL says a newer 1.x Wheel-Version than the 1.0 we implement). */
  void (*notice)(void *ctx, const char *wheel, const char *what);
};

struct ts_wheel_options {
  const struct ts_wheel_paths *paths;
  const char *cache_dir;            /* NULL: ts_cache_root_dir() */
  bool no_cache;                    /* unpack into a temporary dir, dropped after */
  /* A wheel unpacked earlier is reused from the cache after a check of
   * its tree against RECORD (hardlinked installs share inodes with it, so
   * an edit in any environment edits it): by default a fixed sample of its
   * files by size and mtime (wheel/treecheck.h); with verify_cache every
   * file by sha256.  A tree that fails is unpacked again. */
  bool verify_cache;
  enum ts_wheel_link_mode link_mode;
  bool compile;                     /* byte-compile .py with paths->python */
  unsigned threads;                 /* extraction workers; 0 = online CPUs */
  struct ts_wheel_limits limits;
  struct ts_wheel_callbacks cb;
  /* ts_wheel_install only: distributions (any spelling of the name) to
   * remove through their RECORD in the same transaction, so that a sync
   * that installs and removes is all or nothing.  Each must be installed
   * (TS_E_NOT_FOUND otherwise, nothing changed). */
  const char *const *remove;
  size_t nremove;
  /* ts_wheel_install only: the tags the interpreter supports (target/); a
   * wheel whose file name carries none of them is refused (TS_E_PYTHON, as
   * pip's "is not a supported wheel on this platform") before anything is
   * unpacked.  NULL: not checked (the caller chose the file by its tags). */
  const struct ts_tagset *tags;
  /* A new file may replace one that another installed distribution lists
   * in its RECORD with other content (the default refuses: TS_E_CONFLICT
   * naming both and the path; identical content is never a conflict).
   * Either way a file that two distributions list stays until the last of
   * them is removed. */
  bool allow_overwrite;
  /* Another torchsolve holds the environment's lock: TS_E_BUSY instead of
   * waiting for it. */
  bool no_wait;
  /* The caller holds the environment's lock (ts_wheel_lock_env) since it
   * read the installed set; the transaction runs under it. */
  bool env_locked;
  const volatile sig_atomic_t *cancel; /* when set, install stops before its
                                          commit point with TS_E_INTERRUPTED,
                                          leaving the environment as it was;
                                          after it, it finishes; may be NULL */
};

/* One wheel to install. */
struct ts_wheel_request {
  const char *path;          /* local .whl file; its name must be a valid
                                wheel file name */
  const uint8_t *sha256;     /* 32-byte digest already verified by the
                                caller (download), or NULL to compute */
  bool requested;            /* write REQUESTED (a direct request) */
  const char *direct_url;    /* PEP 610 JSON to write as direct_url.json, or
                                NULL; see ts_wheel_direct_url_for_file */
  bool direct_url_from_path; /* with direct_url NULL: write the file:// form
                                for path, with the wheel's sha256 */
  /* A wheel file the user named (pip caches none): when the cache holds
   * no unpacked tree of its bytes, its members are inflated straight into
   * the environment's stage, each file written once, and no tree is kept
   * (also for every wheel under no_cache) -- unless the cache's stat memo
   * shows the same file hashed by an earlier run: installed a second time,
   * it is unpacked into the cache as any wheel, from where later installs
   * hardlink it. */
  bool stage_directly;
};

/* What a transaction changed, for the CLI's summary.  Strings are owned by
 * the result; clear with ts_wheel_result_clear. */
struct ts_wheel_change {
  char *name;            /* distribution name as in its METADATA/dist-info */
  char *old_version;     /* NULL when newly installed */
  char *new_version;     /* NULL when removed */
};
struct ts_wheel_result {
  struct ts_wheel_change *changes;
  size_t count;
  size_t files_linked;   /* files placed from the cache or the archive (incl. pyc) */
};
void ts_wheel_result_clear(struct ts_wheel_result *r);

/* Installs the wheels (upgrading or reinstalling any installed versions of
 * the same distributions) and removes o->remove, as one transaction.
 * *result may be NULL.
 * Errors: TS_E_BAD_WHEEL / TS_E_UNSAFE_PATH / TS_E_HASH / TS_E_TOO_BIG for
 * bad wheels (nothing written to the environment), TS_E_IO, TS_E_PYTHON
 * (compile failed), TS_E_BUSY with o->no_wait when another process holds
 * the environment's lock (we wait otherwise). */
enum ts_code ts_wheel_install(const struct ts_wheel_options *o,
                              const struct ts_wheel_request *wheels, size_t n,
                              struct ts_wheel_result *result,
                              struct ts_error *err);

/* Removes the named distributions (any spelling of the name) through their
 * RECORD.  A name that is not installed is TS_E_NOT_FOUND (nothing removed). */
enum ts_code ts_wheel_uninstall(const struct ts_wheel_options *o,
                                const char *const *names, size_t n,
                                struct ts_wheel_result *result,
                                struct ts_error *err);

/* Takes the environment's lock for a caller that reads the installed set
 * and then changes it (install, sync): holding it from the read to the
 * commit makes two processes on one environment behave as some serial
 * order.  Waits for another process (cb->waiting_for_lock first), or with
 * no_wait fails TS_E_BUSY; then repairs an interrupted transaction
 * (cb->repaired), so that the set read afterwards is whole.  `env` is the
 * environment (sys.prefix) for messages.  *fd gets the lock; pass
 * env_locked to the transactions run under it; release it with
 * ts_wheel_unlock_env.  An environment this process cannot write
 * (read-only filesystem, no permission) gets no lock (*fd -1, TS_OK):
 * nothing in it can change here, so a no-op install succeeds, and a
 * transaction that would change it fails taking its own lock. */
enum ts_code ts_wheel_lock_env(const char *purelib, const char *env, bool no_wait,
                               const struct ts_wheel_callbacks *cb, int *fd,
                               struct ts_error *err);
void ts_wheel_unlock_env(int fd);

/* Takes the lock and repairs an interrupted transaction, if any.
 * *repaired (may be NULL) says whether there was one. */
enum ts_code ts_wheel_repair(const struct ts_wheel_options *o, bool *repaired,
                             struct ts_error *err);

/* What ts_wheel_cache_verify found, one call per unpacked tree: its
 * directory, the distribution ("name version", or NULL when the tree is
 * unreadable) and, for a dropped tree, why (NULL: intact). */
typedef void ts_wheel_verify_fn(void *ctx, const char *dir, const char *dist,
                                const char *why);

/* Re-hashes every file of every unpacked tree in the cache rooted at
 * cache_root (<cache_root>/wheels-v1/<sha256>/) against its RECORD and
 * drops the trees that fail (a later install unpacks them again).  A root
 * that is not torchsolve's (core/cacheroot.h) is refused, TS_E_INVALID,
 * nothing read or deleted; TS_E_NOT_FOUND when it does not exist.
 * *checked and *dropped count trees (may be NULL). */
enum ts_code ts_wheel_cache_verify(const char *cache_root, ts_wheel_verify_fn *report,
                                   void *ctx, size_t *checked, size_t *dropped,
                                   struct ts_error *err);

/* Validates and unpacks one wheel into the cache without installing it;
 * writes the unpacked directory's path to *dir_out (caller frees). */
enum ts_code ts_wheel_unpack(const struct ts_wheel_options *o,
                             const struct ts_wheel_request *w, char **dir_out,
                             struct ts_error *err);


/* PEP 610 JSON for a local file install: {"url": "file:///abs",
 * "archive_info": {"hash": "sha256=…", "hashes": {"sha256": "…"}}}.
 * Caller frees. */
char *ts_wheel_direct_url_for_file(const char *abs_path,
                                   const uint8_t sha256[32]);

/* Whether the distribution installed at `distinfo` is exactly what
 * torchsolve leaves when it installs the wheel whose sha256 is
 * sha256_hex with REQUESTED as `requested` (sync: everything is): INSTALLER
 * says torchsolve, TS_WHEEL_SHA256_FILE holds that digest, no
 * direct_url.json, and every file RECORD lists is there with its size and,
 * up to 256 KiB, its hash.  When not, *why says why in a few words. */
bool ts_wheel_installed_exact(const char *distinfo, const char *sha256_hex,
                              bool requested, const char **why);

/* Finds the installed distribution `name` in dir (a site-packages): writes
 * the dist-info directory's full path to *out (caller frees).
 * TS_E_NOT_FOUND when absent. */
enum ts_code ts_wheel_find_installed(const char *dir, const char *name,
                                     char **out, struct ts_error *err);
