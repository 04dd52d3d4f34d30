/*
 * cli/lock_args.h — `torchsolve lock`'s command line parsed: its own
 * options, the shared GPU, index, build and requirement options, and the
 * combinations it refuses.  Every function returning int returns 0, or
 * the exit status after printing the usage error.
 */
#pragma once

#include <stdbool.h>
#include <stddef.h>

#include "cli/build_options.h"
#include "cli/gpu_options.h"
#include "cli/index_options.h"
#include "cli/reqargs.h"
#include "lockgen/ask.h"
#include "resolver/resolver.h"

struct ts_lock_args {
  struct ts_gpu_options g;
  struct ts_index_cli ic;
  struct ts_cli_reqs reqs;
  struct ts_build_cli bc; /* sources are built to be locked */
  const char *python, *pyver, *platform, *output;
  bool pre, upgrade;
  bool help; /* --help was printed: nothing else to do */
  enum ts_resolution_mode mode;
  const char **upgrade_pkgs; /* --upgrade-package values */
  size_t nupgrade;
  /* --universal, --check, --requires-python, --environment, --profile
   * (ask.environments and ask.profile_args point into room) */
  struct ts_lock_ask ask;
  const char **room;
  size_t slots; /* argc: room holds 3 * slots */
};

void ts_lock_args_init(struct ts_lock_args *a, int argc);
void ts_lock_args_free(struct ts_lock_args *a);
int ts_lock_args_parse(struct ts_lock_args *a, int argc, char **argv);
/* The options that contradict one another, once the project's defaults
 * are in (ts_lock_ask_from_project); then the GPU variables read. */
int ts_lock_args_check(struct ts_lock_args *a);
