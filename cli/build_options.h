/*
 * cli/build_options.h — the source-build options of install (and of lock
 * and sync where they build): how sdists, project directories and git
 * URLs are built into wheels (source/build.h does the work).
 *
 *   -C, --config-settings KEY=VALUE   passed to the build backend (repeatable)
 *   --build-constraint FILE           constraints for build environments
 *   --no-build-isolation              build with the target's interpreter
 *   --no-build-isolation-package P    the same for project P only
 *   --build-timeout S                 per backend call (default 7200, 0: none)
 */
#pragma once

#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>

#include "request/reqfile.h"
#include "source/build.h"

struct ts_build_cli {
  const char **config_settings;
  size_t nconfig_settings;
  struct ts_reqfile constraints; /* --build-constraint files */
  bool no_isolation;
  const char **no_isolation_packages; /* --no-build-isolation-package */
  size_t nno_isolation_packages;
  unsigned timeout_s;
  /* progress: the build under way, for the TTY line (redrawn by a
   * ticker thread while the backend runs) */
  double started;
  bool tty;
  char building[256];
  pthread_t ticker;
  pthread_mutex_t tick_mu;
  pthread_cond_t tick_cv;
  bool ticking, tick_stop;
};

extern const char ts_build_cli_help[];

void ts_build_cli_init(struct ts_build_cli *o, int argc);
void ts_build_cli_free(struct ts_build_cli *o);
/* 1 when argv[*i] was one of ours (advancing past its value), 0 when not,
 * -1 after printing a usage error for `command`. */
int ts_build_cli_parse(struct ts_build_cli *o, const char *command, int argc, char **argv,
                       int *i);
/* The plan's options: the same indexes, the build cache under cache_root
 * (NULL: none), the runner installed with torchsolve, progress lines on a
 * TTY, the backend's output on stderr with -v.  `entries` is a scratch
 * array the caller frees (the constraint pointers). */
void ts_build_cli_options(struct ts_build_cli *o, const struct ts_index_options *index,
                          const char *cache_root, struct ts_source_build_options *out,
                          const struct ts_reqfile_entry ***entries);
/* The runner script installed with torchsolve: $TORCHSOLVE_PEP517_RUNNER,
 * else PREFIX/share/torchsolve/pep517_runner.py beside the binary, else
 * the configured install path, else the source tree's copy. */
const char *ts_build_cli_runner_path(void);
/* After a failed build: the last lines of its log on stderr. */
void ts_build_cli_print_log_tail(const char *log_path);
