/*
 * inventory/tree.h — pip's install trees outside an environment, for
 * multi-stage images and Lambda layers:
 *
 *  --prefix DIR  the interpreter's posix_prefix scheme rooted at DIR:
 *                DIR/lib/pythonX.Y/site-packages, DIR/bin,
 *                DIR/include/pythonX.Y/NAME; installed in place (an
 *                installed version there is replaced).
 *  --target DIR  pip's home scheme in a stage directory made inside DIR
 *                (DIR/lib/python, DIR/bin...), then each top-level entry
 *                of the stage's lib/python (packages, dist-info) and of
 *                the stage itself (bin, include...) moved into DIR, as pip's
 *                _handle_target_dir: an entry that exists in DIR is kept
 *                with a warning, or replaced with `upgrade` (a symlink is
 *                never replaced).
 */
#pragma once

#include <stdbool.h>

#include "core/error.h"
#include "inventory/inventory.h"
#include "target/target.h"
#include "wheel/wheel.h"

struct ts_plan_tree {
  struct ts_wheel_paths paths; /* what to install into */
  char *dir;                   /* DIR, absolute */
  char *stage;                 /* --target: the stage, NULL for --prefix */
  char *storage_[5];
};

/* --prefix DIR for the interpreter t (its Python version): creates the
 * site-packages directory.  TS_E_IO when it cannot. */
enum ts_code ts_plan_tree_prefix(const struct ts_target *t, const char *dir,
                                 struct ts_plan_tree *out, struct ts_error *err);

/* --user: pip's posix_user scheme for the interpreter t, rooted at its
 * user base ($PYTHONUSERBASE, else ~/.local, as site.getuserbase):
 * BASE/lib/pythonX.Y[t]/site-packages, BASE/bin, BASE/include/pythonX.Y;
 * installed in place, as --prefix.  TS_E_PYTHON for a venv (pip's "User
 * site-packages are not visible in this virtualenv"), TS_E_IO when the
 * site-packages directory cannot be made. */
enum ts_code ts_plan_tree_user(const struct ts_target *t, struct ts_plan_tree *out,
                               struct ts_error *err);

/* The user site-packages directory of t (see ts_plan_tree_user), malloc'd;
 * NULL when there is no user base (no HOME) or t is a spec. */
char *ts_plan_tree_user_site(const struct ts_target *t);

/* --target DIR: creates DIR and a stage in it, for the interpreter t.
 * Finish with ts_plan_tree_target_finish after installing. */
enum ts_code ts_plan_tree_target(const struct ts_target *t, const char *dir,
                                 struct ts_plan_tree *out, struct ts_error *err);

/* Moves the stage's entries into DIR (see above); entries kept because
 * they exist (without upgrade) or are symlinks go to *warnings, in pip's
 * words.  The stage is removed. */
enum ts_code ts_plan_tree_target_finish(struct ts_plan_tree *t, bool upgrade,
                                        struct ts_plan_notes *warnings,
                                        struct ts_error *err);

/* Removes a stage left behind (after a failed install) and frees. */
void ts_plan_tree_free(struct ts_plan_tree *t);
