/* torchsolve venv [DIR] [--python PATH] [--seed] — create a virtual
 * environment natively (no `python -m venv`): one interpreter probe for its
 * version, then a handful of files and links.  --seed installs pip from the
 * system's wheel (Debian's python3-pip-whl) with our own installer. */
#include <glob.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "cli/cli.h"
#include "core/alloc.h"
#include "core/fs.h"
#include "core/str.h"
#include "target/target.h"
#include "wheel/venv.h"
#include "wheel/wheel.h"

static const char usage[] =
    "usage: torchsolve venv [DIR] [--python PATH] [--seed] [--clear]\n"
    "\n"
    "Creates a virtual environment in DIR (default ./.venv) for the\n"
    "interpreter PATH (default python3 on PATH): pyvenv.cfg, bin/python\n"
    "links, site-packages, and activate scripts for bash/zsh, fish and csh.\n"
    "No pip is installed unless --seed is given; then pip comes from\n"
    "$TORCHSOLVE_SEED_WHEELS (a directory) or /usr/share/python-wheels.\n"
    "DIR must not exist or be empty; --clear replaces an existing virtual\n"
    "environment there (one with a pyvenv.cfg; other directories are never\n"
    "deleted).\n";

/* The base interpreter's version and path: from the cached target probe
 * (no Python run when cached), or a direct probe for a venv's python, whose
 * base interpreter the cached probe does not record. */
static enum ts_code probe_base(const char *python, struct ts_venv_base *base,
                               struct ts_error *err) {
  char *located = NULL;
  struct ts_target *t = NULL;
  memset(base, 0, sizeof *base);
  if (ts_target_locate(python, &located, err) != TS_OK)
    return err->code;
  char *cache = ts_cache_root_dir();
  enum ts_code rc = ts_target_probe(located, cache, &t, err);
  free(cache);
  if (rc == TS_OK && !t->is_venv && t->executable && t->executable[0] == '/') {
    size_t n = strlen(t->executable) + 1;
    base->executable = ts_xmalloc(n);
    base->version = ts_xmalloc(32);
    memcpy(base->executable, t->executable, n);
    snprintf(base->version, 32, "%d.%d.%d", t->python_major, t->python_minor,
             t->python_micro);
    base->major = t->python_major;
    base->minor = t->python_minor;
  } else if (rc == TS_OK) {
    rc = ts_venv_probe_base(located, base, err);
  }
  if (t)
    ts_target_free(t);
  free(located);
  return rc;
}

static int seed(const char *dir, const struct ts_venv_base *base) {
  const char *wdir = getenv("TORCHSOLVE_SEED_WHEELS");
  char pattern[PATH_MAX];
  snprintf(pattern, sizeof pattern, "%s/pip-*.whl",
           wdir && wdir[0] ? wdir : "/usr/share/python-wheels");
  glob_t g;
  struct ts_error err = {0};
  if (glob(pattern, 0, NULL, &g) != 0 || g.gl_pathc == 0) {
    globfree(&g);
    ts_error_set(&err, TS_E_NOT_FOUND,
                 "--seed: no pip wheel matches '%s' (install python3-pip-whl "
                 "or set TORCHSOLVE_SEED_WHEELS)",
                 pattern);
    return ts_cli_report(&err);
  }
  struct ts_venv_target t;
  ts_venv_target_for_layout(dir, base->major, base->minor, &t);
  struct ts_wheel_options o = {.paths = &t.paths};
  /* The newest pip if several (glob sorts; good enough for one distro). */
  struct ts_wheel_request w = {.path = g.gl_pathv[g.gl_pathc - 1],
                               .requested = true};
  struct ts_wheel_result res = {0};
  enum ts_code code = ts_wheel_install(&o, &w, 1, &res, &err);
  for (size_t i = 0; code == TS_OK && i < res.count; i++)
    ts_cli_info(" + %s==%s", res.changes[i].name, res.changes[i].new_version);
  ts_wheel_result_clear(&res);
  ts_venv_target_clear(&t);
  globfree(&g);
  return code == TS_OK ? 0 : ts_cli_report(&err);
}

int ts_cmd_venv(int argc, char **argv) {
  const char *dir = NULL, *python = NULL;
  bool do_seed = false, clear = false;
  for (int i = 1; i < argc; i++) {
    const char *a = argv[i];
    if (strcmp(a, "--help") == 0 || strcmp(a, "-h") == 0) {
      fputs(usage, stdout);
      return 0;
    } else if (strcmp(a, "--python") == 0 || strncmp(a, "--python=", 9) == 0) {
      if (ts_cli_flag_value("--python", argc, argv, &i, &python) < 0)
        return ts_cli_usage_error("venv", "--python needs a value");
    } else if (strcmp(a, "--seed") == 0) {
      do_seed = true;
    } else if (strcmp(a, "--clear") == 0) {
      clear = true;
    } else if (a[0] == '-' && a[1]) {
      int j = i, used = ts_cli_parse_global("venv", argc, argv, &j);
      if (used < 0)
        return 2;
      if (used == 0)
        return ts_cli_usage_error("venv", "unknown option '%s'", a);
      i = j;
    } else if (!dir) {
      dir = a;
    } else {
      return ts_cli_usage_error("venv", "unexpected argument '%s'", a);
    }
  }
  if (!dir)
    dir = ".venv";
  double t0 = ts_now_ms();
  struct ts_error err = {0};
  struct ts_venv_base base;
  if (probe_base(python ? python : "python3", &base, &err) != TS_OK)
    return ts_cli_report(&err);
  /* Only what is a venv by its pyvenv.cfg is cleared: a mistyped DIR must
   * not cost the user a directory of their own. */
  char *cfg = ts_xasprintf("%s/pyvenv.cfg", dir);
  bool is_venv = access(cfg, F_OK) == 0;
  free(cfg);
  if (clear && is_venv && ts_fs_remove_tree(dir, &err) != TS_OK) {
    ts_venv_base_clear(&base);
    return ts_cli_report(&err);
  }
  char command[4200];
  snprintf(command, sizeof command, "torchsolve venv %s", dir);
  int rc = 0;
  if (ts_venv_create(dir, &base, command, &err) != TS_OK)
    rc = ts_cli_report(&err);
  if (rc == 0 && do_seed)
    rc = seed(dir, &base);
  if (rc == 0)
    ts_cli_info("Created %s (Python %s) in %.0fms; activate with: "
                "source %s/bin/activate",
                dir, base.version, ts_now_ms() - t0, dir);
  ts_venv_base_clear(&base);
  return rc;
}
