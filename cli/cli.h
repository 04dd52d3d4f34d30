/*
 * cli/cli.h — what command files share: the dispatch signature, printing of
 * errors (the one place a `struct ts_error` becomes text), and colour.
 * Global mutable state is allowed only in cli/ (the libraries take all
 * they need as arguments: README.md, Architecture); it lives in
 * `struct ts_cli_globals`, set once by main() from flags and environment.
 */
#pragma once

#include <signal.h>
#include <stdbool.h>
#include <stdio.h>

#include "core/clock.h" /* ts_now_ms, for the "in 31ms" summaries */
#include "core/error.h"
#include "wheel/wheel.h"

struct ts_cli_globals {
  int verbosity;      /* -q = -1, default 0, -v = 1, -vv = 2 */
  bool color;         /* --color / NO_COLOR / isatty(stderr) */
  const char *argv0;
  /* Set by the SIGINT/SIGTERM handler (main.c); passed to the index and
   * wheel modules as their cancel flag.  The handler resets itself, so a
   * second Ctrl-C kills at once (the journal repairs that next run). */
  volatile sig_atomic_t interrupted;
  /* Set by 'torchsolve pip' (cli/cmd_pip.c) before it runs a command:
   * pip's behaviour where it differs from torchsolve's (uninstall skips a
   * name that is not installed, with a warning, instead of refusing). */
  bool pip_mode;
};
extern struct ts_cli_globals ts_cli;

/* A subcommand: argv[0] is the command name.  Returns the exit status. */
typedef int ts_cli_command_fn(int argc, char **argv);

struct ts_cli_command {
  const char *name;
  ts_cli_command_fn *run;
  const char *summary;
};

/* Prints "torchsolve: error: <detail>" and, when the code has one, a hint
 * line; returns the documented exit status for the code. */
int ts_cli_report(const struct ts_error *err);
/* The same with explanation lines (a failed resolution's chain) printed,
 * indented, between the error and its hint. */
int ts_cli_report_explained(const struct ts_error *err, char *const *lines, size_t n);
/* Usage error: prints the message and "see 'torchsolve <cmd> --help'"
 * ('torchsolve --help' when command is NULL); returns 2. */
int ts_cli_usage_error(const char *command, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
/* Informational line on stderr unless -q ("Resolved 3 packages in 4ms"). */
void ts_cli_info(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* Warning line on stderr (always). */
void ts_cli_warn(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* Parses the globals every command accepts: -q/--quiet, -v/-vv/-vvv/
 * --verbose, --color auto|always|never (or --color=MODE).  Returns 1 when
 * argv[*i] was consumed (advancing *i past a separate value), 0 when it is
 * not a global, -1 after printing a usage error for `command` (NULL: the
 * top level) about a missing or bad --color value: return 2 then. */
int ts_cli_parse_global(const char *command, int argc, char **argv, int *i);
/* --color's mode: always, never or auto (a terminal and no NO_COLOR);
 * -1 for another word. */
int ts_cli_set_color(const char *mode);

/* Matches argv[*i] against "--name VALUE" or "--name=VALUE" (or "-x VALUE"):
 * returns 1 and sets *v (advancing *i past a separate value), 0 when it is
 * another option, -1 when the value is missing. */
int ts_cli_flag_value(const char *name, int argc, char **argv, int *i,
                      const char **v);

/* Writes generated text (a lock, a report, requirements) where the user
 * pointed -o/--report: "-" (or NULL) is standard output, anything else a
 * path written as lock/output.h's ts_output_write_file does.  Returns 0,
 * or the exit status after reporting the error. */
int ts_cli_write_output(const char *dest, const void *data, size_t len);

/* An option's whole value as a decimal integer in [lo, hi] into *out:
 * 0, or -1 (nothing set) when it is not one. */
int ts_cli_parse_long(const char *s, long lo, long hi, long *out);

/* Sets *out from a --link-mode value, or with v NULL from
 * $TORCHSOLVE_LINK_MODE when set (else leaves *out).  Returns 0, or -1
 * after a usage error. */
int ts_cli_link_mode(const char *command, const char *v,
                     enum ts_wheel_link_mode *out);

/* The wheel callbacks of every command that changes an environment
 * (install, sync, wheel): "waiting for another torchsolve on ENV…" when
 * another process holds its lock, and a warning for each repair. */
struct ts_wheel_callbacks ts_cli_env_callbacks(void);

/* The environment options of the commands that read or remove installed
 * packages (uninstall, freeze, list, show): --python PATH and --system
 * (the python3 on PATH).  ts_cli_env_option returns as ts_cli_flag_value
 * does (-1 after printing a usage error).  ts_cli_open_env locates, probes
 * (cached under the default cache root) and reads the environment:
 * returns 0, or the exit status after printing the error. */
struct ts_cli_env_choice {
  const char *python;
  bool system;
};
int ts_cli_env_option(const char *command, struct ts_cli_env_choice *c, int argc,
                      char **argv, int *i);
struct ts_plan_env;
int ts_cli_open_env(const char *command, const struct ts_cli_env_choice *c,
                    struct ts_plan_env *env);

/* uv's --python-platform (x86_64-manylinux_2_28, aarch64-unknown-linux-gnu,
 * linux...) as a platform tag (manylinux_2_28_x86_64) in out; -1 when it
 * names no Linux platform torchsolve knows. */
int ts_cli_uv_platform(const char *uv, char *out, size_t cap);

/* A data file installed with torchsolve (rules.yaml, pep517_runner.py):
 * $env_var when set, else PREFIX/share/torchsolve/NAME beside the running
 * binary (written into buf), else `installed` (the configured prefix) when
 * readable, else `source` (the source tree's copy). */
const char *ts_cli_data_file(const char *name, const char *env_var, const char *installed,
                             const char *source, char *buf, size_t cap);

/* Summary helpers: "s" unless n == 1 ("Resolved 1 package"); a duration
 * as "31ms" below a second, "1.2s" above; returns out. */
const char *ts_cli_plural(size_t n);
const char *ts_cli_elapsed(double ms, char out[32]);

/* Help topics (cli/help_topics.c): prints TOPIC and returns 1, or 0 when
 * there is no such topic; the list for the usage text. */
int ts_cli_help_topic(const char *name);
void ts_cli_help_topics_list(FILE *out);

/* Commands (cli/cmd_<verb>.c). */
ts_cli_command_fn ts_cmd_version;
ts_cli_command_fn ts_cmd_venv;
ts_cli_command_fn ts_cmd_wheel;
ts_cli_command_fn ts_cmd_index;
ts_cli_command_fn ts_cmd_cache;
ts_cli_command_fn ts_cmd_detect;
ts_cli_command_fn ts_cmd_rules;
ts_cli_command_fn ts_cmd_install;
ts_cli_command_fn ts_cmd_check;
ts_cli_command_fn ts_cmd_export;
ts_cli_command_fn ts_cmd_sync;
ts_cli_command_fn ts_cmd_mirror;
ts_cli_command_fn ts_cmd_lock;
ts_cli_command_fn ts_cmd_uninstall;
ts_cli_command_fn ts_cmd_download;
ts_cli_command_fn ts_cmd_freeze;
ts_cli_command_fn ts_cmd_list;
ts_cli_command_fn ts_cmd_show;
ts_cli_command_fn ts_cmd_inspect;
ts_cli_command_fn ts_cmd_pip;
