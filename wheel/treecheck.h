/*
 * wheel/treecheck.h — whether an unpacked wheel tree in the cache still
 * holds what its RECORD says (internal to wheel/).
 *
 * Hardlinked installs share inodes with the cache, so an installed file
 * edited in place edits the cached tree, and every later install would link
 * the edit.  Before a cached tree is reused, a sample of its files is
 * checked by size and mtime (ts_unpacked_tree_intact, cheap: a few dozen
 * lstat calls whatever the wheel); `--verify` and `cache verify` re-hash
 * every file instead.  A tree that fails is dropped and unpacked again.
 *
 * mtime: a finished tree's root directory is stamped with the time the
 * unpack ended (ts_unpacked_tree_stamp), after every member was written; a
 * file written later (an in-place edit) has a newer mtime.
 */
#pragma once

#include <stdbool.h>
#include <stddef.h>

#include "core/error.h"
#include "wheel/unpacked.h"

/* How much of a tree is checked. */
enum ts_tree_check {
  TS_TREE_SAMPLE, /* up to TS_TREE_SAMPLE_FILES files spread evenly over
                     RECORD's order (the same ones every time): present,
                     RECORD's size, not modified after the stamp */
  TS_TREE_FULL,   /* every file: present, RECORD's size and sha256 */
};
#define TS_TREE_SAMPLE_FILES 64u

/* Stamps a freshly unpacked tree (its root directory's mtime := now). */
void ts_unpacked_tree_stamp(const char *dir);

/* Whether u's tree (u->dir, u->files as ts_unpacked_load read RECORD) passes the
 * check.  When not, bad (size bad_len, may be NULL) gets the first failing
 * file's path and the reason ("size differs", "sha256 differs",
 * "modified after unpacking", "missing"). */
bool ts_unpacked_tree_intact(const struct ts_unpacked *u, enum ts_tree_check how,
                             char *bad, size_t bad_len);

/* Removes a cached tree that failed its check: moved aside within root
 * first (rename is atomic, so no run sees it half-deleted), then deleted. */
enum ts_code ts_unpacked_tree_drop(const char *root, const char *dir, struct ts_error *err);
