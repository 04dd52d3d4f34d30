/*
 * source/process.h — running a build tool (the hook runner, git) as a
 * child process: its own process group, a working directory, an
 * environment cleaned of torchsolve's and credentials' variables, output
 * appended to a log file (and copied to stderr when streaming), a
 * wall-clock timeout and a cancel flag, both of which kill the whole group.
 * Internal to source/.
 */
#pragma once

#include <signal.h>
#include <stdbool.h>
#include <stddef.h>

#include "core/error.h"

struct ts_process {
  const char *const *argv; /* argv[0] is an absolute path or found on PATH */
  const char *cwd;         /* NULL: inherited */
  const char *path_prepend; /* put first on PATH, or NULL */
  const char *const *extra_env; /* "NAME=VALUE", after cleaning */
  size_t nextra_env;
  const char *log_path;    /* output appended here (created 0644) */
  bool stream;             /* copy output to stderr as well */
  unsigned timeout_s;      /* 0: none */
  const volatile sig_atomic_t *cancel;
};

/* Whether NAME=VALUE is kept in a build's environment: not TORCHSOLVE_*,
 * PIP_*, UV_*, PYTHON*, VIRTUAL_ENV, nor anything that looks like a
 * credential (TOKEN, PASSWORD, SECRET, CREDENTIAL, AUTH, ..._KEY, NETRC,
 * SSH_AUTH_SOCK) or a proxy URL carrying user:password@. */
bool ts_process_env_kept(const char *entry);

/* Runs it to the end.  *status gets the exit status (128+N for signal N).
 * TS_E_TIMEOUT / TS_E_INTERRUPTED after killing the group, TS_E_IO when
 * it cannot start or the log cannot be written. */
enum ts_code ts_process_run(const struct ts_process *p, int *status,
                            struct ts_error *err);
