/*
 * lock/output.h — writing a generated file (pylock.toml, requirements.txt,
 * an installation report) where the user pointed an -o/--report path.
 */
#pragma once

#include <stddef.h>

#include "core/error.h"

/* Writes data to path the way a user who names that path expects:
 *  - a new path or an existing regular file: atomically (temporary file in
 *    the same directory, then rename), so a reader never sees half a lock;
 *  - a symlink to a regular file: atomically at the link's target, so the
 *    link survives (dotfile managers, shared locks);
 *  - anything else that exists (/dev/stdout, /dev/null, a FIFO, a
 *    /proc/self/fd/N or /dev/fd/N from process substitution): opened and
 *    written in place, never renamed over (rename would replace the device
 *    node or the link itself, and write nothing where the user looks);
 *  - a directory: TS_E_IO naming it.
 * "-" is not handled here (cli/ writes standard output itself). */
enum ts_code ts_output_write_file(const char *path, const void *data, size_t len,
                                  struct ts_error *err);
