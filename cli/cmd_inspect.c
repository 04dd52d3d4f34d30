/* torchsolve inspect — pip inspect's JSON report of an environment.  The
 * work is in inventory/inspect.c. */
#include <stdio.h>
#include <string.h>

#include "cli/cli.h"
#include "inventory/inventory.h"

static const char usage[] =
    "usage: torchsolve inspect [--python PATH | --system]\n"
    "\n"
    "Prints pip inspect's JSON report (version 1) on stdout: each installed\n"
    "distribution's metadata (as JSON, PEP 566), metadata_location,\n"
    "direct_url (PEP 610, when it has one), installer and requested, sorted\n"
    "by name, then the interpreter's marker environment.\n"
    "\n"
    "  --python PATH            interpreter or venv directory (default\n"
    "                           $TORCHSOLVE_PYTHON, $VIRTUAL_ENV, else ./.venv)\n"
    "  --system                 the python3 on PATH\n"
    "  -l, --local              accepted for pip's spelling: only the\n"
    "                           environment's own site-packages are read\n"
    "\n"
    "Example:\n"
    "  torchsolve inspect --python .venv | jq -r '.installed[].metadata.name'\n";

int ts_cmd_inspect(int argc, char **argv) {
  struct ts_cli_env_choice where = {0};
  for (int i = 1; i < argc; i++) {
    const char *a = argv[i];
    int m;
    if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
      fputs(usage, stdout);
      return 0;
    }
    if (!strcmp(a, "-l") || !strcmp(a, "--local"))
      continue; /* only the environment's site-packages are ever read */
    if ((m = ts_cli_env_option("inspect", &where, argc, argv, &i)) != 0) {
      if (m < 0)
        return 2;
      continue;
    }
    int g = ts_cli_parse_global("inspect", argc, argv, &i);
    if (g < 0)
      return 2;
    if (g == 0)
      return ts_cli_usage_error("inspect", a[0] == '-' ? "unknown option '%s'"
                                                        : "unexpected argument '%s'",
                                a);
  }
  struct ts_plan_env env;
  int status = ts_cli_open_env("inspect", &where, &env);
  if (status != 0)
    return status;
  struct ts_buf out;
  ts_buf_init(&out, TS_CAP_OUTPUT);
  struct ts_error err = {0};
  if (ts_plan_inspect(&env, &out, &err) == TS_OK)
    fwrite(out.data, 1, out.len, stdout);
  else
    status = ts_cli_report(&err);
  ts_buf_clear(&out);
  ts_plan_env_close(&env);
  return status;
}
