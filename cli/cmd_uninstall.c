/* torchsolve uninstall — remove distributions through their RECORD, as
 * pip uninstall does, in one transaction.  The work is in plan/. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cli/cli.h"
#include "core/alloc.h"
#include "request/reqfile.h"
#include "inventory/uninstall.h"

static const char usage[] =
    "usage: torchsolve uninstall NAME... [-r FILE]... [options]\n"
    "\n"
    "Removes the named distributions from the environment through their\n"
    "RECORD (files, scripts, bytecode), whoever installed them, as one\n"
    "transaction: all of them or, on an error, none.  A name that is not\n"
    "installed is an error and nothing is removed ('torchsolve pip\n"
    "uninstall' skips it with a warning, as pip does).  Nothing outside the\n"
    "environment's prefix is ever removed.\n"
    "\n"
    "  -r, --requirement FILE   uninstall every project the file names\n"
    "  -y, --yes                accepted for pip's spelling: torchsolve never\n"
    "                           asks for confirmation\n"
    "  --python PATH            interpreter or venv directory (default\n"
    "                           $TORCHSOLVE_PYTHON, $VIRTUAL_ENV, else ./.venv)\n"
    "  --system                 the python3 on PATH (refused when it is\n"
    "                           externally managed, PEP 668)\n"
    "  --break-system-packages  remove from an interpreter its distribution\n"
    "                           manages (PEP 668 EXTERNALLY-MANAGED) anyway\n"
    "  --no-wait                when another torchsolve is changing the\n"
    "                           environment, fail (exit 6) instead of waiting\n"
    "  -q, --quiet / -v, --verbose\n"
    "\n"
    "Exit status: 0 removed, 1 not installed or a failure, 2 usage error,\n"
    "6 the environment is busy (--no-wait).\n"
    "\n"
    "Examples:\n"
    "  torchsolve uninstall torchvision torchaudio\n"
    "  torchsolve uninstall -y -r requirements.txt --python .venv\n";

int ts_cmd_uninstall(int argc, char **argv) {
  const char **names = ts_xcalloc((size_t)argc, sizeof *names);
  size_t n = 0;
  struct ts_cli_env_choice where = {0};
  bool break_system = false, no_wait = false, opts_done = false;
  struct ts_reqfile rf;
  ts_reqfile_init(&rf);
  struct ts_reqfile_reader reader = {.read = ts_reqfile_read_real,
                                     .is_dir = ts_reqfile_is_dir_real};
  struct ts_reqfile_opts ropts = {.reader = &reader};
  struct ts_error err = {0};
  int status = 0;
  for (int i = 1; i < argc && status == 0; i++) {
    const char *a = argv[i], *v = NULL;
    if (opts_done || a[0] != '-' || !a[1]) {
      names[n++] = a;
      continue;
    }
    if (!strcmp(a, "--")) {
      opts_done = true;
    } else if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
      fputs(usage, stdout);
      ts_reqfile_clear(&rf);
      free(names);
      return 0;
    } else if (!strcmp(a, "-y") || !strcmp(a, "--yes")) {
      /* never asks */
    } else if (!strcmp(a, "--break-system-packages")) {
      break_system = true;
    } else if (!strcmp(a, "--no-wait")) {
      no_wait = true;
    } else {
      int m = ts_cli_env_option("uninstall", &where, argc, argv, &i);
      if (m != 0) {
        status = m < 0 ? 2 : 0;
        continue;
      }
      m = ts_cli_flag_value("-r", argc, argv, &i, &v);
      if (m == 0)
        m = ts_cli_flag_value("--requirement", argc, argv, &i, &v);
      if (m > 0 && ts_reqfile_add_file(&rf, v, false, &ropts, &err) != TS_OK)
        status = ts_cli_report(&err);
      if (m > 0)
        continue;
      if (m < 0) {
        status = ts_cli_usage_error("uninstall", "%s needs a value", a);
        break;
      }
      int g = ts_cli_parse_global("uninstall", argc, argv, &i);
      if (g < 0)
        status = 2;
      else if (g == 0)
        status = ts_cli_usage_error("uninstall", "unknown option '%s'", a);
    }
  }
  for (size_t k = 0; k < rf.nentries && status == 0; k++) {
    const struct ts_reqfile_entry *e = &rf.entries[k];
    const char *nm = e->req ? e->req->name : e->name;
    if (!nm)
      status = ts_cli_usage_error("uninstall", "%s line %u: '%s' names no project",
                                  e->file, e->line, e->text);
    else
      names[n++] = nm;
  }
  if (status == 0 && n == 0)
    status = ts_cli_usage_error("uninstall", "nothing to uninstall: give NAME or -r FILE");
  struct ts_plan_env env;
  if (status == 0)
    status = ts_cli_open_env("uninstall", &where, &env);
  if (status != 0) {
    ts_reqfile_clear(&rf);
    free(names);
    return status;
  }
  struct ts_plan_uninstall_options o = {
      .names = names, .nnames = n, .skip_missing = ts_cli.pip_mode,
      .break_system_packages = break_system, .no_wait = no_wait, .cancel = &ts_cli.interrupted,
      .cb = ts_cli_env_callbacks()};
  struct ts_wheel_result res = {0};
  struct ts_plan_notes missing = {0};
  double t0 = ts_now_ms();
  enum ts_code rc = ts_plan_uninstall(&env, &o, &res, &missing, &err);
  for (size_t k = 0; k < missing.n; k++)
    ts_cli_warn("Skipping %s as it is not installed.", missing.lines[k]);
  if (rc != TS_OK) {
    status = ts_cli_report(&err);
    if (status == 0)
      status = 1;
  } else if (res.count) {
    char el[32];
    ts_cli_info("Uninstalled %zu package%s in %s", res.count, ts_cli_plural(res.count),
                ts_cli_elapsed(ts_now_ms() - t0, el));
    for (size_t k = 0; k < res.count; k++)
      ts_cli_info(" - %s==%s", res.changes[k].name, res.changes[k].old_version);
  }
  ts_plan_notes_clear(&missing);
  ts_wheel_result_clear(&res);
  ts_plan_env_close(&env);
  ts_reqfile_clear(&rf);
  free(names);
  return status;
}
