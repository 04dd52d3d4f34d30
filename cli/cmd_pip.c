/* torchsolve pip COMMAND — pip's spellings of install, download,
 * uninstall, freeze, list, show, inspect and check, so that
 * `alias pip='torchsolve pip'` keeps scripts and Dockerfiles working.
 *
 * pip's options become torchsolve's (cli/pip_args.h).  In this mode only,
 * pip's configuration is read (request/pip_settings.h): pip.conf at pip's
 * locations and PIP_* variables, lowest priority first (files, then
 * variables, then the command line). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli/cli.h"
#include "cli/pip_args.h"
#include "cli/pip_target.h"
#include "cli/usage.h"
#include "core/fs.h"
#include "core/str.h"
#include "request/pip_settings.h"
#include "target/target.h"

static const struct {
  const char *pip;
  ts_cli_command_fn *run;
  unsigned bit;
  bool needs_venv; /* PIP_REQUIRE_VIRTUALENV applies (pip's
                      ignore_require_venv is false) */
} commands[] = {
    {"install", ts_cmd_install, TS_PIP_INSTALL, true},
    {"download", ts_cmd_download, TS_PIP_DOWNLOAD, true},
    {"uninstall", ts_cmd_uninstall, TS_PIP_UNINSTALL, true},
    {"freeze", ts_cmd_freeze, TS_PIP_FREEZE, true},
    {"list", ts_cmd_list, TS_PIP_LIST, false},
    {"show", ts_cmd_show, TS_PIP_SHOW, false},
    {"inspect", ts_cmd_inspect, TS_PIP_INSPECT, false},
    {"check", ts_cmd_check, TS_PIP_CHECK, true},
};

/* The venv the command would use, for PIP_REQUIRE_VIRTUALENV and the
 * environment's own pip.conf: its prefix, or NULL when the interpreter is
 * none (or no venv is found). */
static char *venv_prefix(const char *python, bool system) {
  if (system)
    return NULL;
  char *located = NULL;
  struct ts_error err = {0};
  if (ts_target_locate(python, &located, &err) != TS_OK)
    return NULL;
  /* <venv>/bin/python: pyvenv.cfg sits two levels up */
  char *prefix = NULL;
  char *slash = strrchr(located, '/');
  if (slash) {
    *slash = '\0';
    slash = strrchr(located, '/');
    if (slash) {
      *slash = '\0';
      char *cfg = ts_path_join(located[0] ? located : "/", "pyvenv.cfg");
      if (access(cfg, F_OK) == 0)
        prefix = ts_xstrdup(located);
      free(cfg);
    }
  }
  free(located);
  return prefix;
}

int ts_cmd_pip(int argc, char **argv) {
  /* pip's global options may come before the command */
  int c = 1;
  while (c < argc && argv[c][0] == '-') {
    if (!strcmp(argv[c], "--help") || !strcmp(argv[c], "-h")) {
      ts_cli_pip_help(stdout);
      return 0;
    }
    c += ts_pip_option_takes_next(argv[c]) ? 2 : 1;
  }
  if (c >= argc)
    return ts_cli_usage_error("pip", "give a pip command: install, download, uninstall, "
                              "freeze, list, show, inspect or check");
  size_t k = 0;
  while (k < sizeof commands / sizeof commands[0] && strcmp(commands[k].pip, argv[c]))
    k++;
  if (k == sizeof commands / sizeof commands[0])
    return ts_cli_usage_error("pip", "pip's '%s' command is not supported: torchsolve "
                              "runs install, download, uninstall, freeze, list, show, "
                              "inspect and check", argv[c]);
  bool isolated = false;
  for (int i = 1; i < argc; i++)
    isolated |= !strcmp(argv[i], "--isolated");
  /* the command line first, to know the interpreter; configuration goes
   * before it in the final order */
  struct ts_pip_argv cli = {0}, out = {0};
  const char *python = NULL;
  bool system = false, require_venv = false;
  unsigned bit = commands[k].bit;
  struct ts_pip_abi_options pt = {0};
  int status =
      ts_pip_translate(c - 1, argv + 1, bit, &cli, &python, &system, &require_venv, &pt);
  if (status == 0)
    status = ts_pip_translate(argc - c - 1, argv + c + 1, bit, &cli, &python, &system,
                              &require_venv, &pt);
  char *prefix = status == 0 ? venv_prefix(python, system) : NULL;
  /* outside a venv, pip's target is the interpreter pip runs under */
  char *path_python = status == 0 ? ts_pip_default_python(python, system) : NULL;
  struct ts_pip_settings st = {0};
  struct ts_error err = {0};
  if (status == 0 && ts_pip_settings_read_files(argv[c], prefix, isolated, &st, &err) != TS_OK)
    status = ts_cli_usage_error("pip", "%s", err.detail);
  extern char **environ;
  if (status == 0 && !isolated)
    ts_pip_settings_read_environment(&st, (const char *const *)environ);
  ts_pip_argv_push(&out, commands[k].pip);
  if (status == 0)
    status = ts_pip_settings_to_args(&st, bit, &out);
  const struct ts_pip_setting *rv = ts_pip_settings_get(&st, "require-virtualenv");
  if (status == 0 && rv) {
    int t = ts_pip_truth(rv->value);
    if (t < 0)
      status = ts_cli_usage_error("pip", "%s: require-virtualenv wants a boolean, "
                                  "not '%s'", rv->where, rv->value);
    require_venv |= t == 1;
  }
  if (status == 0 && require_venv && commands[k].needs_venv && !prefix) {
    fprintf(stderr, "error: Could not find an activated virtualenv (required).\n");
    status = 3;
  }
  if (path_python) {
    ts_pip_argv_push(&out, "--python");
    ts_pip_argv_push(&out, path_python);
  }
  for (size_t i = 0; i < cli.n; i++)
    ts_pip_argv_push(&out, cli.v[i]);
  if (status == 0 && (bit & TS_PIP_RESOLVE))
    status = ts_pip_check_target(out.v, out.n, bit == TS_PIP_INSTALL, pt.abi,
                                 pt.implementation);
  if (status == 0) {
    ts_cli.pip_mode = true;
    status = commands[k].run((int)out.n, out.v);
    /* pip's statuses: 0, 1 for every failure, 2 for usage errors */
    if (status != 0 && status != 2)
      status = 1;
  }
  ts_pip_settings_free(&st);
  free(prefix);
  free(path_python);
  ts_pip_argv_free(&cli);
  ts_pip_argv_free(&out);
  return status;
}

