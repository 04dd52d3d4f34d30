/*
 * cli/usage.h — the --help texts of the commands whose help is long
 * (install and download, lock, sync): what the command does, every option
 * (the build, index and GPU options' own lines included), the exit
 * statuses and examples.  Kept apart from the commands so that each
 * cmd_<verb>.c is its parsing, the calls into plan/ and its output.
 */
#pragma once

#include <stdbool.h>
#include <stdio.h>

/* install's help, or download's when download. */
void ts_cli_install_help(FILE *out, bool download);
void ts_cli_lock_help(FILE *out);
void ts_cli_sync_help(FILE *out);
/* torchsolve pip: pip's commands, options and configuration. */
void ts_cli_pip_help(FILE *out);
/* torchsolve index: the diagnostics over the index client. */
void ts_cli_index_help(FILE *out);
