/*
 * lock/syncplan.h — what `torchsolve sync` must do to make an environment
 * exactly a pylock.toml for one target: pure planning, no I/O.
 *
 * The lock applies to the target when its `requires-python` holds and one
 * of its `environments` markers (if any) is true.  A package is selected
 * when its marker is true (PEP 751 lock-file context: `extras` and
 * `dependency_groups` those of a lock/selection.h selection; by default
 * no extras and the lock's default-groups); two selected entries of one
 * name are an error.  Each selected package needs a wheel: the one
 * whose tags the target ranks best (ties: file name order), with a sha256,
 * or else an sdist, VCS, directory or archive source (`source`: the
 * caller builds it).  Compared with the installed set by normalised name:
 * missing → install; another version (local label included) → change;
 * same version → keep (a source: change, it is built and installed
 * again, a build cache hit when nothing changed); installed but not
 * selected → remove.  Like `uv sync`, nothing is
 * exempt from removal: pip, setuptools and wheel stay only when locked.
 */
#pragma once

#include <stddef.h>

#include "core/error.h"
#include "lock/pylock.h"
#include "lock/selection.h"
#include "pep/requirement.h"
#include "pep/tags.h"

enum ts_sync_action {
  TS_SYNC_INSTALL,
  TS_SYNC_CHANGE,
  TS_SYNC_KEEP,
  TS_SYNC_REMOVE,
};

struct ts_sync_installed {
  const char *name;    /* any spelling */
  const char *version; /* as installed */
};

struct ts_sync_item {
  enum ts_sync_action action;
  char *name;          /* normalised */
  char *old_version;   /* installed version, NULL for install */
  char *new_version;   /* locked version, NULL for remove */
  /* Borrowed from the lock (NULL for remove). */
  const struct ts_pylock_package *pkg;
  const struct ts_pylock_file *wheel; /* NULL for a source */
  const char *sha256;  /* the wheel's hex digest; NULL for a source */
  bool source;         /* pkg's sdist/vcs/directory/archive is built */
};

struct ts_sync_plan {
  struct ts_sync_item *items; /* sorted by name */
  size_t n;
  size_t ninstall, nchange, nkeep, nremove;
};

/* Plans the sync.  `python_full_version` is the target's ("3.12.0").
 * Errors: TS_E_PYTHON when the lock does not apply to the target (its
 * requires-python, environments, a package's requires-python) or a package
 * has no wheel for it; TS_E_UNSUPPORTED for a chosen wheel without a
 * sha256; TS_E_PARSE for two selected entries of
 * one name or a marker that cannot be evaluated.  The caller clears *out
 * with ts_sync_plan_clear (also after an error). */
enum ts_code ts_sync_plan_make(const struct ts_pylock *lock,
                               const struct ts_marker_env *env,
                               const struct ts_tagset *tags,
                               const struct ts_sync_installed *installed,
                               size_t ninstalled, struct ts_sync_plan *out,
                               struct ts_error *err);
/* The same with the extras and groups of a selection (lock/selection.h;
 * a fleet lock's profile is one of its extras): ts_sync_plan_make is this
 * with the lock's defaults. */
enum ts_code ts_sync_plan_make_selected(const struct ts_pylock *lock,
                                        const struct ts_marker_env *env,
                                        const struct ts_lock_selection *sel,
                                        const struct ts_tagset *tags,
                                        const struct ts_sync_installed *installed,
                                        size_t ninstalled, struct ts_sync_plan *out,
                                        struct ts_error *err);
void ts_sync_plan_clear(struct ts_sync_plan *p);

