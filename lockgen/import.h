/*
 * lockgen/import.h — another tool's lock as a torchsolve lock, without
 * resolving (lock --from FILE), so that a team moves over with the
 * versions and files it has reviewed.
 *
 * Two inputs:
 *   - a PEP 751 lock written by another tool (pip lock, uv export, PDM):
 *     read and checked by lock/pylock.h, written back canonically;
 *   - uv's own uv.lock (version 1): every [[package]] reachable from the
 *     workspace's projects (source virtual or editable) becomes an entry
 *     with the marker under which it is reached: the or, over the paths
 *     from a project, of the and of the dependency markers along each
 *     ("sys_platform == 'linux'"), and-ed with the package's own
 *     `resolution-markers` (or-ed) when uv forked, so that a name locked
 *     at two versions keeps each under its fork; a project's optional dependencies add
 *     "'EXTRA' in extras", its dev dependencies "'GROUP' in
 *     dependency_groups" (uv's `dev` group the default one), as PEP 751
 *     writes them.  A registry package keeps its index, wheels and sdist
 *     (URL, sha256, size); a git source becomes [packages.vcs] with its
 *     commit; a path or directory source [packages.directory].  The
 *     projects themselves are not entries (sync installs what they need).
 *     A marker reached through more than TS_IMPORT_MAX_PATHS distinct
 *     conditions is written without a condition (installed everywhere the
 *     lock's environments hold) rather than guessed.
 * The result names torchsolve as created-by and keeps requires-python.
 */
#pragma once

#include "core/error.h"
#include "lock/pylock.h"

#define TS_IMPORT_MAX_PATHS 16

/* Reads path (uv.lock by its contents: `version` and [[package]], no
 * `lock-version`; else PEP 751) into a new lock (*out, ts_pylock_free).
 * TS_E_PARSE naming the file and the entry for what does not read (a
 * package with an unknown source kind, a hash that is not sha256),
 * TS_E_IO for a file that cannot be read. */
enum ts_code ts_lock_import(const char *path, struct ts_pylock **out, struct ts_error *err);
