/*
 * cli/install_help.h — the --help of install and download (cmd_install.c):
 * what the command does, every option it takes (the build, index and GPU
 * options' own lines included), the exit statuses and examples.  Kept
 * apart from the command so that its file is the parsing and printing.
 */
#pragma once

#include <stdbool.h>
#include <stdio.h>

/* Prints download's help when download, else install's. */
void ts_cli_install_help(FILE *out, bool download);
