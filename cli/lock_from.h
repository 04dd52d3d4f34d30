/*
 * cli/lock_from.h — `torchsolve lock --from FILE [-o pylock.toml]`: another
 * tool's lock (uv.lock, or a PEP 751 lock of pip, uv, PDM) written as a
 * torchsolve lock without resolving (lockgen/import.h).
 */
#pragma once

#include <stdbool.h>

/* The `lock` command: lock --from here (0 written, 1 the file does not
 * read, 2 usage), any other lock in cmd_lock.c's ts_cmd_lock. */
int ts_cli_lock_command(int argc, char **argv);
