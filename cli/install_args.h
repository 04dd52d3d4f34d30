/*
 * cli/install_args.h — the command line install and download share,
 * parsed: the request's switches and values (plan/request.h), the shared
 * GPU, index, build and requirement options.  Every function returning
 * int returns 0, or the exit status after printing the usage error.
 */
#pragma once

#include <stdbool.h>
#include <stddef.h>

#include "cli/build_options.h"
#include "cli/gpu_options.h"
#include "cli/index_options.h"
#include "cli/reqargs.h"
#include "plan/request.h"

struct ts_install_args {
  const char *cmd; /* "install" or "download" */
  struct ts_plan_request q;
  struct ts_gpu_options g;
  struct ts_index_cli ic;
  struct ts_cli_reqs reqs;
  struct ts_build_cli build;
  const char **upgrade_pkgs; /* --upgrade-package values */
  size_t nupgrade;
  const char *report, *debug_dir, *link_mode;
  char uv_platform[64]; /* --python-platform's, as --platform */
  bool help; /* --help was printed: nothing else to do */
};

void ts_install_args_init(struct ts_install_args *a, int argc, bool download);
void ts_install_args_free(struct ts_install_args *a);
int ts_install_args_parse(struct ts_install_args *a, int argc, char **argv);
