/* torchsolve wheel install|uninstall|repair — install local wheel files
 * into an environment, remove distributions, or repair an interrupted
 * transaction.  The logic lives in wheel/; this file parses flags, finds
 * the environment and prints the summary. */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "core/alloc.h"
#include "core/fs.h"
#include "cli/cli.h"
#include "plan/plan.h"
#include "target/target.h"
#include "wheel/venv.h"
#include "wheel/wheel.h"

static const char usage[] =
    "usage: torchsolve wheel install FILE.whl... [--python PATH]\n"
    "                                [--link-mode hardlink|copy|clone|auto]\n"
    "                                [--compile] [--no-cache] [--no-wait]\n"
    "                                [--allow-overwrite] [--verify]\n"
    "       torchsolve wheel uninstall NAME... [--python PATH]\n"
    "       torchsolve wheel repair [--python PATH]\n"
    "\n"
    "Installs wheel files into an environment as one transaction (all or\n"
    "nothing; an interrupted run is repaired by the next), upgrading any\n"
    "installed versions; removes distributions through their RECORD, whoever\n"
    "installed them.  A wheel whose tags the interpreter does not support\n"
    "(built for another Python or platform) is refused, as install refuses it.\n"
    "\n"
    "The environment is --python PATH (an interpreter, or a venv directory),\n"
    "else $TORCHSOLVE_PYTHON, else $VIRTUAL_ENV, else ./.venv.\n"
    "\n"
    "  --link-mode M  how files come from the cache: hardlink (default; copies\n"
    "                 across filesystems), copy, clone (reflink, else copy),\n"
    "                 or auto (clone where the filesystem reflinks, else\n"
    "                 hardlink)\n"
    "  --compile      byte-compile the installed .py files\n"
    "  --no-cache     unpack into a temporary directory, not the cache\n"
    "  --verify       re-hash every file of a wheel reused from the cache\n"
    "                 against its RECORD (default: a fixed sample by size\n"
    "                 and mtime); a damaged copy is unpacked again\n"
    "  --allow-overwrite  let a wheel replace a file that another installed\n"
    "                 distribution owns with other content (refused by\n"
    "                 default: exit 1 naming both and the path)\n"
    "  --no-wait      when another torchsolve is changing the environment,\n"
    "                 exit 6 instead of waiting for it\n"
    "  --break-system-packages  install into or remove from an interpreter\n"
    "                 its distribution manages (PEP 668) anyway\n"
    "\n"
    "Wheels are unpacked once into $TORCHSOLVE_CACHE_DIR, else\n"
    "$XDG_CACHE_HOME/torchsolve, else ~/.cache/torchsolve (wheels-v1/).\n";

/* Install paths of the target environment: --python, else
 * $TORCHSOLVE_PYTHON, else $VIRTUAL_ENV,
 * else ./.venv (ts_target_locate), probed once and cached per interpreter. */
struct env_paths {
  struct ts_wheel_paths paths;
  char *python;
  char *headers;
  struct ts_target *target;
  struct ts_venv_target layout;
  bool from_layout;
};

static void env_paths_free(struct env_paths *e) {
  free(e->python);
  free(e->headers);
  if (e->target)
    ts_target_free(e->target);
  if (e->from_layout)
    ts_venv_target_clear(&e->layout);
  memset(e, 0, sizeof *e);
}

/* A venv's install paths follow from its pyvenv.cfg version (CPython's
 * "venv" scheme), so a fresh venv, whose probe is not cached yet, costs no
 * Python run.  Anything unusual (no version, no lib/pythonX.Y/site-packages,
 * e.g. PyPy) goes to the probe. */
static bool venv_layout(const char *python, struct env_paths *e) {
  size_t n = strlen(python);
  if (n < 11 || strcmp(python + n - 11, "/bin/python") != 0)
    return false;
  char dir[PATH_MAX], path[PATH_MAX + 104];
  if (n - 11 >= sizeof dir)
    return false;
  memcpy(dir, python, n - 11);
  dir[n - 11] = '\0';
  snprintf(path, sizeof path, "%s/pyvenv.cfg", dir);
  FILE *f = fopen(path, "r");
  if (!f)
    return false;
  char line[512];
  int major = 0, minor = 0;
  while (fgets(line, sizeof line, f)) {
    if (strncmp(line, "version", 7) != 0)
      continue;
    const char *v = strchr(line, '=');
    if (v && sscanf(v + 1, " %d.%d", &major, &minor) == 2)
      break;
    major = minor = 0;
  }
  fclose(f);
  if (major != 3 || minor < 6)
    return false;
  snprintf(path, sizeof path, "%s/lib/python%d.%d/site-packages", dir, major,
           minor);
  struct stat st;
  if (stat(path, &st) != 0 || !S_ISDIR(st.st_mode))
    return false;
  ts_venv_target_for_layout(dir, major, minor, &e->layout);
  e->from_layout = true;
  e->paths = e->layout.paths;
  e->paths.python = python;
  return true;
}

/* need_tags: probe the interpreter (cached) for its supported tags even
 * when the venv's layout gives the paths without it. */
static int find_target(const char *python, bool need_tags, struct env_paths *e) {
  struct ts_error err = {0};
  memset(e, 0, sizeof *e);
  char *located = NULL;
  if (ts_target_locate(python, &located, &err) != TS_OK)
    return ts_cli_report(&err);
  /* Absolute but not resolved: launchers must name the venv's python. */
  if (located[0] == '/') {
    e->python = located;
  } else {
    char *cwd = getcwd(NULL, 0);
    size_t n = strlen(cwd ? cwd : ".") + strlen(located) + 2;
    e->python = ts_xmalloc(n);
    snprintf(e->python, n, "%s/%s", cwd ? cwd : ".", located);
    free(cwd);
    free(located);
  }
  if (!need_tags && venv_layout(e->python, e))
    return 0;
  char *cache = ts_cache_root_dir();
  enum ts_code rc = ts_target_probe(e->python, cache, &e->target, &err);
  free(cache);
  if (rc != TS_OK) {
    env_paths_free(e);
    return ts_cli_report(&err);
  }
  const struct ts_target_paths *p = &e->target->paths;
  if (!p->purelib || !p->platlib || !p->scripts || !p->data || !p->prefix) {
    ts_error_set(&err, TS_E_PYTHON, "'%s' reported no install paths", e->python);
    env_paths_free(e);
    return ts_cli_report(&err);
  }
  size_t n = strlen(p->data) + 64;
  e->headers = ts_xmalloc(n);
  snprintf(e->headers, n, "%s/include/site/python%d.%d", p->data,
           e->target->python_major, e->target->python_minor);
  e->paths = (struct ts_wheel_paths){.prefix = p->prefix, .purelib = p->purelib,
                                     .platlib = p->platlib, .scripts = p->scripts,
                                     .data = p->data, .headers = e->headers,
                                     .python = e->python};
  return 0;
}

static void print_changes(const struct ts_wheel_result *r) {
  for (size_t i = 0; i < r->count; i++) {
    const struct ts_wheel_change *c = &r->changes[i];
    if (c->old_version)
      ts_cli_info(" - %s==%s", c->name, c->old_version);
    if (c->new_version)
      ts_cli_info(" + %s==%s", c->name, c->new_version);
  }
}

int ts_cmd_wheel(int argc, char **argv) {
  if (argc < 2 || strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0) {
    fputs(usage, argc < 2 ? stderr : stdout);
    return argc < 2 ? 2 : 0;
  }
  const char *sub = argv[1];
  if (strcmp(sub, "install") != 0 && strcmp(sub, "uninstall") != 0 &&
      strcmp(sub, "repair") != 0)
    return ts_cli_usage_error("wheel", "unknown subcommand '%s'", sub);
  const char *python = NULL, *link_mode = NULL;
  bool break_system = false;
  struct ts_wheel_options o = {.cancel = &ts_cli.interrupted};
  o.cb = ts_cli_env_callbacks();
  char **args = ts_xcalloc((size_t)argc, sizeof *args);
  size_t nargs = 0;

  for (int i = 2; i < argc; i++) {
    const char *a = argv[i];
    if (strcmp(a, "--help") == 0 || strcmp(a, "-h") == 0) {
      fputs(usage, stdout);
      free(args);
      return 0;
    } else if (strcmp(a, "--python") == 0 && i + 1 < argc) {
      python = argv[++i];
    } else if (strncmp(a, "--python=", 9) == 0) {
      python = a + 9;
    } else if ((strcmp(a, "--link-mode") == 0 && i + 1 < argc) ||
               strncmp(a, "--link-mode=", 12) == 0) {
      link_mode = a[11] == '=' ? a + 12 : argv[++i];
    } else if (strcmp(a, "--compile") == 0) {
      o.compile = true;
    } else if (strcmp(a, "--break-system-packages") == 0) {
      break_system = true;
    } else if (strcmp(a, "--no-cache") == 0) {
      o.no_cache = true;
    } else if (strcmp(a, "--no-wait") == 0) {
      o.no_wait = true;
    } else if (strcmp(a, "--allow-overwrite") == 0) {
      o.allow_overwrite = true;
    } else if (strcmp(a, "--verify") == 0) {
      o.verify_cache = true;
    } else if (strcmp(a, "--") == 0) {
      for (i++; i < argc; i++)
        args[nargs++] = argv[i];
    } else if (a[0] == '-' && a[1]) {
      int j = i;
      int used = ts_cli_parse_global("wheel", argc, argv, &j);
      if (used <= 0) {
        free(args);
        return used < 0 ? 2 : ts_cli_usage_error("wheel", "unknown option '%s'", a);
      }
      i = j;
    } else {
      args[nargs++] = argv[i];
    }
  }
  bool repair = strcmp(sub, "repair") == 0;
  if (ts_cli_link_mode("wheel", link_mode, &o.link_mode) < 0) {
    free(args);
    return 2;
  }
  if (!repair && nargs == 0) {
    free(args);
    return ts_cli_usage_error("wheel", "%s needs at least one %s", sub,
                              strcmp(sub, "install") == 0 ? "wheel file"
                                                          : "name");
  }
  struct env_paths t;
  bool installing = strcmp(sub, "install") == 0;
  int rc = find_target(python, installing, &t);
  if (rc != 0) {
    free(args);
    return rc;
  }
  o.paths = &t.paths;
  if (installing) /* as install does: no wheel built for another interpreter */
    o.tags = t.target->tags;
  struct ts_error err = {0};
  if (!repair && !break_system &&
      ts_target_check_externally_managed(t.target, &err) != TS_OK) {
    env_paths_free(&t);
    free(args);
    return ts_cli_report(&err);
  }
  struct ts_wheel_result res = {0};
  double t0 = ts_now_ms();
  enum ts_code code;
  if (repair) {
    bool repaired = false;
    code = ts_wheel_repair(&o, &repaired, &err);
    if (code == TS_OK && !repaired)
      ts_cli_info("nothing to repair in %s", t.paths.prefix);
  } else if (strcmp(sub, "install") == 0) {
    struct ts_wheel_request *w = ts_xcalloc(nargs, sizeof *w);
    for (size_t k = 0; k < nargs; k++)
      w[k] = (struct ts_wheel_request){.path = args[k], .requested = true,
                                       .direct_url_from_path = true};
    code = ts_wheel_install(&o, w, nargs, &res, &err);
    free(w);
    if (code == TS_OK) {
      char el[32];
      ts_cli_info("Installed %zu package%s in %s", res.count, ts_cli_plural(res.count),
                  ts_cli_elapsed(ts_now_ms() - t0, el));
      print_changes(&res);
    }
  } else {
    code = ts_wheel_uninstall(&o, (const char *const *)args, nargs, &res, &err);
    if (code == TS_OK) {
      char el[32];
      ts_cli_info("Uninstalled %zu package%s in %s", res.count, ts_cli_plural(res.count),
                  ts_cli_elapsed(ts_now_ms() - t0, el));
      print_changes(&res);
    }
  }
  ts_wheel_result_clear(&res);
  env_paths_free(&t);
  free(args);
  return code == TS_OK ? 0 : ts_cli_report(&err);
}
