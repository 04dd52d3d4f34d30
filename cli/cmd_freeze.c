/* torchsolve freeze — the installed set as requirements, as pip freeze
 * prints it.  The work is in inventory/freeze.c. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "core/alloc.h"
#include "inventory/inventory.h"

static const char usage[] =
    "usage: torchsolve freeze [-r FILE]... [--exclude NAME]... [options]\n"
    "\n"
    "Prints the installed distributions as pip freeze does: 'Name==version'\n"
    "sorted by name, 'Name @ URL' for what was installed from a URL or a\n"
    "file, '-e PATH' (after a comment line) for editable installs.  pip\n"
    "itself is left out, and below Python 3.12 setuptools, wheel and\n"
    "distribute too, unless --all.\n"
    "\n"
    "  -r, --requirement FILE   print FILE's lines first, in its order, each\n"
    "                           requirement as installed (options once), then\n"
    "                           '## The following requirements were added by\n"
    "                           pip freeze:' and the rest (repeatable)\n"
    "  --exclude NAME           leave NAME out (repeatable)\n"
    "  --all                    do not leave pip, setuptools, wheel out\n"
    "  --exclude-editable       leave editable installs out\n"
    "  -l, --local              accepted for pip's spelling: only the\n"
    "                           environment's own site-packages are read\n"
    "  --python PATH            interpreter or venv directory (default\n"
    "                           $TORCHSOLVE_PYTHON, $VIRTUAL_ENV, else ./.venv)\n"
    "  --system                 the python3 on PATH\n"
    "\n"
    "Examples:\n"
    "  torchsolve freeze > requirements.txt\n"
    "  torchsolve freeze -r requirements.in --exclude torch\n";

int ts_cmd_freeze(int argc, char **argv) {
  const char **exclude = ts_xcalloc((size_t)argc, sizeof *exclude);
  const char **files = ts_xcalloc((size_t)argc, sizeof *files);
  struct ts_freeze_options o = {.exclude = exclude, .requirement_files = files};
  struct ts_cli_env_choice where = {0};
  int status = 0;
  for (int i = 1; i < argc && status == 0; i++) {
    const char *a = argv[i], *v = NULL;
    int m;
    if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
      fputs(usage, stdout);
      free(exclude);
      free(files);
      return 0;
    } else if (!strcmp(a, "--all")) {
      o.all = true;
    } else if (!strcmp(a, "--exclude-editable")) {
      o.exclude_editable = true;
    } else if (!strcmp(a, "-l") || !strcmp(a, "--local")) {
      /* only the environment's site-packages are ever read */
    } else if ((m = ts_cli_env_option("freeze", &where, argc, argv, &i)) != 0) {
      status = m < 0 ? 2 : 0;
    } else if ((m = ts_cli_flag_value("--exclude", argc, argv, &i, &v)) != 0) {
      if (m < 0)
        status = ts_cli_usage_error("freeze", "--exclude needs a value");
      exclude[o.nexclude++] = v;
    } else if ((m = ts_cli_flag_value("-r", argc, argv, &i, &v)) != 0 ||
               (m = ts_cli_flag_value("--requirement", argc, argv, &i, &v)) != 0) {
      if (m < 0)
        status = ts_cli_usage_error("freeze", "%s needs a value", a);
      files[o.nrequirement_files++] = v;
    } else {
      int g = ts_cli_parse_global("freeze", argc, argv, &i);
      if (g < 0)
        status = 2;
      else if (g == 0)
        status = ts_cli_usage_error("freeze", a[0] == '-' ? "unknown option '%s'"
                                                          : "unexpected argument '%s'",
                                    a);
    }
  }
  struct ts_plan_env env;
  if (status == 0)
    status = ts_cli_open_env("freeze", &where, &env);
  if (status != 0) {
    free(exclude);
    free(files);
    return status;
  }
  struct ts_buf out;
  ts_buf_init(&out, TS_CAP_OUTPUT);
  struct ts_plan_notes warnings = {0};
  struct ts_error err = {0};
  enum ts_code rc = ts_plan_freeze(&env, &o, &out, &warnings, &err);
  if (out.len)
    fwrite(out.data, 1, out.len, stdout);
  for (size_t k = 0; k < warnings.n; k++)
    ts_cli_warn("%s", warnings.lines[k]);
  if (rc != TS_OK)
    status = ts_cli_report(&err);
  ts_plan_notes_clear(&warnings);
  ts_buf_clear(&out);
  ts_plan_env_close(&env);
  free(exclude);
  free(files);
  return status;
}
