/*
 * core/proc.h — the one way library code runs a program: no shell, argv
 * as given, stdout captured into a capped buffer, stderr captured,
 * discarded or inherited, and an optional deadline after which the child
 * is killed (a wedged driver can hang nvidia-smi, a broken interpreter can
 * hang a probe).  The child's stdin is /dev/null.
 */
#pragma once

#include <signal.h>
#include <stdbool.h>
#include <stddef.h>

#include "core/buf.h"
#include "core/error.h"

enum ts_proc_stderr {
  TS_PROC_STDERR_INHERIT, /* the child writes to our stderr */
  TS_PROC_STDERR_DISCARD, /* /dev/null */
  TS_PROC_STDERR_CAPTURE, /* into ts_proc_result.err */
};

struct ts_proc_options {
  bool search_path;            /* argv[0] looked up in $PATH (posix_spawnp) */
  enum ts_proc_stderr stderr_mode;
  int timeout_ms;              /* 0: wait as long as it takes */
  size_t stdout_cap, stderr_cap; /* ts_buf caps; 0: TS_CAP_SMALL_FILE */
  /* For long-running tools (build backends, git); all optional. */
  const char *cwd;             /* the child's working directory; NULL: ours */
  char *const *envp;           /* its environment; NULL: ours */
  int sink_fd;                 /* > 2: stdout and stderr both go to this fd
                                  (a log) as they come, not into out/err */
  bool tee_stderr;             /* with sink_fd: copied to our stderr too */
  bool own_group;              /* the child leads a process group, so a kill
                                  (deadline, cancel) reaches its children */
  const volatile sig_atomic_t *cancel; /* polled; once set the child is
                                  killed and ts_proc_result.cancelled set */
};

struct ts_proc_result {
  struct ts_buf out, err;  /* data NULL when nothing was written */
  bool timed_out;          /* killed at the deadline */
  bool too_big;            /* killed: stdout passed its cap */
  bool cancelled;          /* killed: *cancel was set */
  bool sink_failed;        /* a write to sink_fd failed (output lost) */
  bool exited;             /* ended normally: exit_code holds its status */
  int exit_code;
  int signal;              /* the signal that ended it, when !exited */
};

/* Runs argv (NULL-terminated).  TS_E_IO when it cannot be started (the
 * detail names argv[0] and the reason); otherwise TS_OK with *r telling
 * how it ended: callers judge the status, the timeout and the output.
 * Free r with ts_proc_result_clear, whatever the return. */
enum ts_code ts_proc_run(char *const argv[], const struct ts_proc_options *o,
                         struct ts_proc_result *r, struct ts_error *err);

/* The path of the executable file `name` names on $PATH (searched as
 * posix_spawnp does), malloc'd, or NULL when there is none.  A program
 * that is only tried when present costs a stat per PATH entry this way
 * instead of a child process that fails to exec. */
char *ts_proc_find_program(const char *name);

/* True when it exited with status 0 and was not killed. */
bool ts_proc_succeeded(const struct ts_proc_result *r);

void ts_proc_result_clear(struct ts_proc_result *r);
