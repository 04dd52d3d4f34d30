/*
 * cli/pip_args.h — pip's command line and configuration in torchsolve's
 * spelling, for `torchsolve pip`: each pip option passed on as
 * torchsolve's spelling (most are the same), dropped when it only tunes
 * pip's own chatter, or refused (a usage error naming it) when torchsolve
 * cannot do what it asks.  Every function returning int returns 0, or 2
 * after printing the usage error.
 */
#pragma once

#include <stdbool.h>
#include <stddef.h>

#include "request/pip_settings.h"

/* The pip commands torchsolve runs, as bits for the option table. */
enum {
  TS_PIP_INSTALL = 1, TS_PIP_DOWNLOAD = 2, TS_PIP_UNINSTALL = 4, TS_PIP_FREEZE = 8, TS_PIP_LIST = 16,
  TS_PIP_SHOW = 32, TS_PIP_INSPECT = 64, TS_PIP_CHECK = 128, TS_PIP_ALL = 255,
  TS_PIP_INDEX = TS_PIP_INSTALL | TS_PIP_DOWNLOAD | TS_PIP_LIST, /* the commands that ask indexes */
  TS_PIP_RESOLVE = TS_PIP_INSTALL | TS_PIP_DOWNLOAD,
};

/* Arguments being built: owned strings, NULL-ended. */
struct ts_pip_argv {
  char **v;
  size_t n;
};
void ts_pip_argv_push(struct ts_pip_argv *a, const char *s);
void ts_pip_argv_free(struct ts_pip_argv *a);

/* What pip's command line says that torchsolve's arguments do not carry. */
struct ts_pip_abi_options {
  const char *abi;     /* --abi's value (into argv), or NULL */
  bool implementation; /* --implementation cp */
};

/* Whether arg is an option that takes the next argument as its value
 * (pip's global options before the command). */
bool ts_pip_option_takes_next(const char *arg);

/* pip's command line argv[0..argc) for the command `bit` as torchsolve's,
 * appended to a.  *python and *system (pointing into argv) say which
 * interpreter it names; --require-virtualenv sets *require_venv. */
int ts_pip_translate(int argc, char **argv, unsigned bit, struct ts_pip_argv *a,
                     const char **python, bool *system, bool *require_venv,
                     struct ts_pip_abi_options *abi);

/* pip's configuration as torchsolve options for `bit`'s command (the
 * mode keys require-virtualenv and isolated are the caller's). */
int ts_pip_settings_to_args(const struct ts_pip_settings *st, unsigned bit,
                            struct ts_pip_argv *a);
