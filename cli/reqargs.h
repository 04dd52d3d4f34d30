/*
 * cli/reqargs.h — the requirements of install and lock as given on the
 * command line: REQ arguments and -r/-c files (request/reqfile.h reads
 * them), gathered into one list for plan/, and --no-binary/--only-binary
 * (request/formatctl.h), command line first, then the files'.
 */
#pragma once

#include <stdbool.h>
#include <stddef.h>

#include "request/formatctl.h"
#include "request/pyproject.h"
#include "request/reqfile.h"

struct ts_cli_reqs {
  struct ts_reqfile rf;               /* -r / -c files and their options */
  struct ts_reqfile_entry **args;     /* REQ arguments */
  size_t nargs;
  const struct ts_reqfile_entry **all; /* after ts_cli_reqs_collect: args, then files */
  size_t nall;
  struct ts_formatctl binary;         /* after ts_cli_reqs_collect: complete */
};

void ts_cli_reqs_init(struct ts_cli_reqs *r, int argc);
/* A REQ argument: 0, or the usage error's exit status. */
int ts_cli_reqs_add_arg(struct ts_cli_reqs *r, const char *command, const char *text);
/* -e DIR: a project directory installed editable; 0, or the usage
 * error's exit status. */
int ts_cli_reqs_add_editable(struct ts_cli_reqs *r, const char *command, const char *dir);
/* A project's requirements (request/pyproject.h): its dependencies, then each
 * extra's and group's, as REQ arguments; its [tool.torchsolve]
 * extra-index-url as a requirements file's lines (its index-url is a
 * default below the flags and the files, which the caller applies).  0, or
 * the usage error's exit status. */
int ts_cli_reqs_add_project(struct ts_cli_reqs *r, const char *command,
                            const struct ts_project *p);
/* -r FILE (constraint false) or -c FILE: 0, or the error's exit status. */
int ts_cli_reqs_add_file(struct ts_cli_reqs *r, const char *path, bool constraint);
/* --no-binary VALUE (no_binary true) or --only-binary VALUE: 0, or the
 * usage error's exit status. */
int ts_cli_reqs_add_binary(struct ts_cli_reqs *r, const char *command, const char *value,
                           bool no_binary);
/* Gathers every entry into r->all and the files' --no-binary/--only-binary
 * into r->binary: 0, or the error's exit status (a usage error "nothing to
 * <verb>: give REQ or -r FILE" when none is a requirement). */
int ts_cli_reqs_collect(struct ts_cli_reqs *r, const char *command, const char *verb);
void ts_cli_reqs_free(struct ts_cli_reqs *r);
