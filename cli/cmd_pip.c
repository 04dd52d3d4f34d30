/* torchsolve pip COMMAND — pip's spellings of install, download,
 * uninstall, freeze, list, show, inspect and check, so that
 * `alias pip='torchsolve pip'` keeps scripts and Dockerfiles working.
 *
 * Each pip option is passed on as torchsolve's spelling (most are the
 * same), dropped when it only tunes pip's own chatter, or refused (exit 2,
 * naming it) when torchsolve cannot do what it asks.  In this mode only,
 * pip's configuration is read: pip.conf at pip's locations and PIP_*
 * variables, lowest priority first (files, then variables, then the
 * command line), for the keys of the option table below. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include "cli/cli.h"
#include "core/alloc.h"
#include "core/buf.h"
#include "core/fs.h"
#include "core/str.h"
#include "cli/pip_target.h"
#include "request/pipconf.h"
#include "target/target.h"

/* The pip commands torchsolve runs, as bits for the option table. */
enum {
  C_INSTALL = 1, C_DOWNLOAD = 2, C_UNINSTALL = 4, C_FREEZE = 8, C_LIST = 16,
  C_SHOW = 32, C_INSPECT = 64, C_CHECK = 128, C_ALL = 255,
  C_INDEX = C_INSTALL | C_DOWNLOAD | C_LIST, /* the commands that ask indexes */
  C_RESOLVE = C_INSTALL | C_DOWNLOAD,
};

static const struct {
  const char *pip;
  ts_cli_command_fn *run;
  unsigned bit;
  bool needs_venv; /* PIP_REQUIRE_VIRTUALENV applies (pip's
                      ignore_require_venv is false) */
} commands[] = {
    {"install", ts_cmd_install, C_INSTALL, true},
    {"download", ts_cmd_download, C_DOWNLOAD, true},
    {"uninstall", ts_cmd_uninstall, C_UNINSTALL, true},
    {"freeze", ts_cmd_freeze, C_FREEZE, true},
    {"list", ts_cmd_list, C_LIST, false},
    {"show", ts_cmd_show, C_SHOW, false},
    {"inspect", ts_cmd_inspect, C_INSPECT, false},
    {"check", ts_cmd_check, C_CHECK, true},
};

enum how {
  AS_IS,    /* the same spelling in torchsolve */
  RENAME,   /* torchsolve's spelling in `ts` */
  IGNORE,   /* tunes pip's own output or prompts: nothing to do */
  NO_BUILD, /* needs a source build */
  REFUSE,   /* not supported: `ts` says why */
};

struct pip_option {
  const char *name;  /* long spelling */
  const char *alias; /* short (or older long) spelling, or NULL */
  bool value;
  enum how how;
  const char *ts;
  unsigned cmds;     /* the commands it means something to (pip.conf and
                        PIP_* set it for these only) */
  bool general;      /* one of pip's general options, which every command
                        accepts: dropped where it means nothing; any other
                        option outside `cmds` is pip's "no such option" */
};

static const struct pip_option options[] = {
    {"--index-url", "-i", true, AS_IS, NULL, C_INDEX, false},
    {"--extra-index-url", NULL, true, AS_IS, NULL, C_INDEX, false},
    {"--find-links", "-f", true, AS_IS, NULL, C_INDEX, false},
    {"--no-index", NULL, false, AS_IS, NULL, C_INDEX, false},
    {"--trusted-host", NULL, true, AS_IS, NULL, C_INDEX, true},
    {"--cert", NULL, true, AS_IS, NULL, C_INDEX, true},
    {"--client-cert", NULL, true, AS_IS, NULL, C_INDEX, true},
    {"--proxy", NULL, true, AS_IS, NULL, C_INDEX, true},
    {"--timeout", "--default-timeout", true, RENAME, "--timeout", C_INDEX, true},
    {"--retries", NULL, true, AS_IS, NULL, C_INDEX, true},
    {"--cache-dir", NULL, true, AS_IS, NULL, C_INDEX, true},
    {"--no-cache-dir", NULL, false, RENAME, "--no-cache", C_INDEX, true},
    {"--constraint", "-c", true, AS_IS, NULL, C_RESOLVE, false},
    {"--pre", NULL, false, AS_IS, NULL, C_RESOLVE | C_LIST, false},
    {"--only-binary", NULL, true, AS_IS, NULL, C_RESOLVE, false},
    {"--no-binary", NULL, true, AS_IS, NULL, C_RESOLVE, false},
    {"--prefer-binary", NULL, false, AS_IS, NULL, C_RESOLVE, false},
    {"--upgrade-strategy", NULL, true, AS_IS, NULL, C_INSTALL, false},
    {"--require-hashes", NULL, false, AS_IS, NULL, C_RESOLVE, false},
    {"--break-system-packages", NULL, false, AS_IS, NULL, C_INSTALL | C_UNINSTALL, false},
    {"--no-color", NULL, false, RENAME, "--color=never", C_ALL, true},
    {"--disable-pip-version-check", NULL, false, IGNORE, NULL, C_ALL, true},
    {"--no-input", NULL, false, IGNORE, NULL, C_ALL, true},
    {"--no-python-version-warning", NULL, false, IGNORE, NULL, C_ALL, true},
    {"--exists-action", NULL, true, IGNORE, NULL, C_ALL, true},
    {"--progress-bar", NULL, true, IGNORE, NULL, C_RESOLVE, false},
    {"--root-user-action", NULL, true, IGNORE, NULL, C_INSTALL | C_UNINSTALL, false},
    {"--no-warn-script-location", NULL, false, IGNORE, NULL, C_INSTALL, false},
    {"--no-warn-conflicts", NULL, false, IGNORE, NULL, C_INSTALL, false},
    {"--no-compile", NULL, false, IGNORE, NULL, C_INSTALL, false},
    {"--include-editable", NULL, false, IGNORE, NULL, C_LIST, false},
    {"--editable", "-e", true, AS_IS, NULL, C_INSTALL, false},
    {"--no-build-isolation", NULL, false, AS_IS, NULL, C_INSTALL, false},
    {"--config-settings", "-C", true, AS_IS, NULL, C_INSTALL, false},
    {"--global-option", NULL, true, NO_BUILD, NULL, C_RESOLVE, false},
    {"--build-option", NULL, true, NO_BUILD, NULL, C_RESOLVE, false},
    {"--use-pep517", NULL, false, NO_BUILD, NULL, C_RESOLVE, false},
    {"--no-use-pep517", NULL, false, NO_BUILD, NULL, C_RESOLVE, false},
    {"--check-build-dependencies", NULL, false, NO_BUILD, NULL, C_RESOLVE, false},
    {"--no-clean", NULL, false, NO_BUILD, NULL, C_RESOLVE, false},
    {"--src", NULL, true, NO_BUILD, NULL, C_RESOLVE, false},
    {"--user", NULL, false, REFUSE,
     "only install takes it here: the user site of the python on PATH", C_ALL, false},
    {"--root", NULL, true, REFUSE, "use --prefix or --target instead", C_INSTALL, false},
    {"--log", NULL, true, REFUSE, "torchsolve writes no log file: redirect stderr",
     C_ALL, true},
    {"--use-feature", NULL, true, REFUSE, "pip's feature flags do not apply", C_ALL, true},
    {"--use-deprecated", NULL, true, REFUSE, "pip's feature flags do not apply", C_ALL, true},
    {"--keyring-provider", NULL, true, REFUSE,
     "keyring is not supported: put credentials in the URL or ~/.netrc", C_ALL, true},
    {"--ignore-requires-python", NULL, false, REFUSE,
     "Requires-Python is always honoured", C_RESOLVE, false},
    {"--abi", NULL, true, REFUSE, "give it on the command line (cpXY, abi3 or none)",
     C_RESOLVE, false},
    {"--implementation", NULL, true, REFUSE, "only CPython (cp) is supported",
     C_RESOLVE, false},
    {"--path", NULL, true, REFUSE, "name the environment with --python", C_ALL, false},
};

static const char usage[] =
    "usage: torchsolve pip COMMAND [pip's options]\n"
    "\n"
    "pip's commands with pip's spellings, torchsolve's GPU-aware resolver\n"
    "underneath, so that  alias pip='torchsolve pip'  keeps scripts working:\n"
    "  install, download, uninstall, freeze, list, show, inspect, check\n"
    "Options are pip's; most are torchsolve's own spelling, --no-cache-dir is\n"
    "--no-cache, --default-timeout --timeout, --no-color --color never.  Dropped,\n"
    "since torchsolve neither prompts nor nags: --disable-pip-version-check,\n"
    "--no-input, --no-python-version-warning, --exists-action, --progress-bar,\n"
    "--root-user-action, --no-warn-script-location, --no-warn-conflicts,\n"
    "--no-compile, --include-editable.  Refused, naming the option (exit 2):\n"
    "the source-build options torchsolve's builds do not take (--global-option,\n"
    "--build-option, --use-pep517, --no-use-pep517, --check-build-dependencies,\n"
    "--no-clean, --src; -e, --no-build-isolation and -C pass on), --user\n"
    "but for install, --root, --log, --use-feature, --use-deprecated,\n"
    "--keyring-provider, --ignore-requires-python, --implementation other than\n"
    "cp, --abi other than cpXY of --python-version, abi3 or none, --path, and\n"
    "any option the command does not know.\n"
    "\n"
    "The target, as pip's: --python, else an activated venv ($VIRTUAL_ENV,\n"
    "or ./.venv), else the python on PATH (python3 when there is none), which\n"
    "is refused when its distribution manages it (PEP 668 EXTERNALLY-MANAGED)\n"
    "unless --break-system-packages.  install --user: that interpreter's user\n"
    "site ($PYTHONUSERBASE, else ~/.local), refused in a venv.  Another\n"
    "interpreter (pip's cross-target recipe, a Lambda layer):\n"
    "  pip install --target DIR --platform manylinux2014_x86_64 \\\n"
    "      --python-version 3.12 --implementation cp --only-binary=:all: requests\n"
    "wheels only (--only-binary=:all:, or --no-deps), into --target or as\n"
    "--dry-run, as pip requires.\n"
    "\n"
    "Configuration, read in this mode only (pip's order: later wins):\n"
    "  pip.conf files: $XDG_CONFIG_DIRS/pip/pip.conf (default /etc/xdg),\n"
    "    /etc/pip.conf, ~/.pip/pip.conf, $XDG_CONFIG_HOME/pip/pip.conf (default\n"
    "    ~/.config), the environment's own pip.conf, then $PIP_CONFIG_FILE\n"
    "    (/dev/null: no file at all; when it exists the user files are\n"
    "    skipped); in each, [global] then the command's section ([install],\n"
    "    [download], [list]...);\n"
    "  then PIP_<KEY> variables (PIP_INDEX_URL, PIP_EXTRA_INDEX_URL,\n"
    "    PIP_FIND_LINKS, PIP_TRUSTED_HOST, PIP_NO_CACHE_DIR, PIP_CONSTRAINT...);\n"
    "  then the command line.\n"
    "  Keys read: index-url, extra-index-url, find-links, no-index,\n"
    "  trusted-host, cert, client-cert, proxy, timeout (default-timeout),\n"
    "  retries, cache-dir, no-cache-dir (install, download, list); constraint,\n"
    "  only-binary, no-binary, prefer-binary, require-hashes, pre (install,\n"
    "  download; pre for list too); upgrade-strategy (install);\n"
    "  break-system-packages (install, uninstall); require-virtualenv (install,\n"
    "  download, uninstall, freeze, check: exit 3 outside a venv, as pip);\n"
    "  isolated; no-color and the dropped keys above.  Lists (extra-index-url,\n"
    "  find-links, trusted-host, constraint) are separated by blanks or lines;\n"
    "  flags take 1/true/yes/on or 0/false/no/off.  A key of a refused option\n"
    "  (PIP_USER=1, src...) is an error; other keys are ignored, as pip does.\n"
    "  --isolated: no PIP_* variables and no user files.  TORCHSOLVE_*\n"
    "  variables still apply where pip's configuration sets nothing.\n"
    "\n"
    "Exit status as pip's: 0 success, 1 failure, 2 usage error (an unknown or\n"
    "refused option), 3 no virtual environment with PIP_REQUIRE_VIRTUALENV.\n"
    "uninstall skips a name that is not installed with a warning, as pip.\n"
    "\n"
    "Examples:\n"
    "  alias pip='torchsolve pip'\n"
    "  PIP_INDEX_URL=https://mirror/simple pip install -U torch transformers\n"
    "  pip install --no-cache-dir --target /install -r requirements.txt\n"
    "  pip freeze -r requirements.txt; pip list --outdated; pip uninstall -y torch\n";

/* Arguments being built, owned strings. */
struct argv_out {
  char **v;
  size_t n;
};

static void push(struct argv_out *a, const char *s) {
  a->v = ts_xreallocarray(a->v, a->n + 2, sizeof *a->v);
  a->v[a->n++] = ts_xstrdup(s);
  a->v[a->n] = NULL;
}

static void argv_free(struct argv_out *a) {
  for (size_t i = 0; i < a->n; i++)
    free(a->v[i]);
  free(a->v);
}

/* The option argv[i] names (pip accepts "--name=value" for long ones). */
static const struct pip_option *find_option(const char *arg) {
  size_t n = strcspn(arg, "=");
  for (size_t k = 0; k < sizeof options / sizeof options[0]; k++) {
    const struct pip_option *o = &options[k];
    if ((strlen(o->name) == n && !strncmp(arg, o->name, n)) ||
        (o->alias && strlen(o->alias) == n && !strncmp(arg, o->alias, n)))
      return o;
  }
  return NULL;
}

static const struct pip_option *find_key(const char *key) {
  for (size_t k = 0; k < sizeof options / sizeof options[0]; k++) {
    const struct pip_option *o = &options[k];
    if (!strcmp(o->name + 2, key) || (o->alias && o->alias[1] == '-' && !strcmp(o->alias + 2, key)))
      return o;
  }
  return NULL;
}

static int refuse(const struct pip_option *o, const char *where) {
  if (o->how == NO_BUILD)
    return ts_cli_usage_error("pip", "%s: '%s' is not an option of torchsolve's source "
                              "builds (they take -e, --no-build-isolation and "
                              "-C/--config-settings)", where, o->name);
  return ts_cli_usage_error("pip", "%s: '%s': %s", where, o->name, o->ts);
}

/* strtobool as pip reads flags from its configuration: 1 true, 0 false,
 * -1 neither. */
static int truth(const char *v) {
  static const char *const yes[] = {"1", "true", "yes", "on", "y", "t"};
  static const char *const no[] = {"0", "false", "no", "off", "n", "f"};
  for (size_t i = 0; i < sizeof yes / sizeof yes[0]; i++) {
    if (!strcasecmp(v, yes[i]))
      return 1;
    if (!strcasecmp(v, no[i]))
      return 0;
  }
  return -1;
}

/* Settings from pip.conf and PIP_*: key -> value, the last source wins. */
struct setting {
  char *key;
  char *value;
  char *where; /* "PIP_FOO" or "FILE [section]" for messages */
};
struct settings {
  struct setting *s;
  size_t n;
};

static void settings_put(struct settings *st, const char *key, const char *value,
                         char *where) {
  for (size_t i = 0; i < st->n; i++)
    if (!strcmp(st->s[i].key, key)) {
      free(st->s[i].value);
      free(st->s[i].where);
      st->s[i].value = ts_xstrdup(value);
      st->s[i].where = where;
      return;
    }
  st->s = ts_xreallocarray(st->s, st->n + 1, sizeof *st->s);
  st->s[st->n++] = (struct setting){ts_xstrdup(key), ts_xstrdup(value), where};
}

static void settings_free(struct settings *st) {
  for (size_t i = 0; i < st->n; i++) {
    free(st->s[i].key);
    free(st->s[i].value);
    free(st->s[i].where);
  }
  free(st->s);
}

/* One pip.conf: [global], then the command's section over it.  Returns 0,
 * or 2 after a usage error for a file pip would refuse too. */
static int read_file(const char *path, const char *command, struct settings *st) {
  struct ts_buf b;
  ts_buf_init(&b, TS_CAP_SMALL_FILE);
  struct ts_error err = {0};
  if (ts_fs_read_file(path, &b, &err) != TS_OK) {
    ts_buf_clear(&b);
    return 0; /* absent (or unreadable): pip reads what it can */
  }
  struct ts_pipconf c;
  enum ts_code rc = ts_pipconf_parse(b.data ? b.data : "", b.len, path, &c, &err);
  ts_buf_clear(&b);
  if (rc != TS_OK)
    return ts_cli_usage_error("pip", "%s", err.detail);
  const char *sections[] = {"global", command};
  for (size_t k = 0; k < 2; k++)
    for (size_t i = 0; i < c.n; i++)
      if (!strcmp(c.entries[i].section, sections[k]) && c.entries[i].value[0])
        settings_put(st, c.entries[i].key, c.entries[i].value,
                     ts_xasprintf("%s [%s]", path, sections[k]));
  ts_pipconf_clear(&c);
  return 0;
}

/* pip's files, lowest priority first (configuration.py). */
static int read_files(const char *command, const char *env_prefix, bool isolated,
                      struct settings *st) {
  const char *cf = getenv("PIP_CONFIG_FILE");
  if (cf && !strcmp(cf, "/dev/null"))
    return 0;
  int rc = 0;
  const char *dirs = getenv("XDG_CONFIG_DIRS");
  char *list = ts_xstrdup(dirs && *dirs ? dirs : "/etc/xdg");
  for (char *save = NULL, *d = strtok_r(list, ":", &save); d && !rc;
       d = strtok_r(NULL, ":", &save)) {
    char *p = ts_xasprintf("%s/pip/pip.conf", d);
    rc = read_file(p, command, st);
    free(p);
  }
  free(list);
  if (!rc)
    rc = read_file("/etc/pip.conf", command, st);
  const char *home = getenv("HOME");
  if (!rc && !isolated && !(cf && access(cf, F_OK) == 0) && home) {
    char *legacy = ts_xasprintf("%s/.pip/pip.conf", home);
    const char *xdg = getenv("XDG_CONFIG_HOME");
    char *user = xdg && *xdg ? ts_xasprintf("%s/pip/pip.conf", xdg)
                             : ts_xasprintf("%s/.config/pip/pip.conf", home);
    rc = read_file(legacy, command, st);
    if (!rc)
      rc = read_file(user, command, st);
    free(legacy);
    free(user);
  }
  if (!rc && env_prefix) {
    char *site = ts_xasprintf("%s/pip.conf", env_prefix);
    rc = read_file(site, command, st);
    free(site);
  }
  if (!rc && cf)
    rc = read_file(cf, command, st);
  return rc;
}

/* PIP_<KEY> for every key of the table (and the two mode keys). */
static void read_environment(struct settings *st) {
  extern char **environ;
  for (char **e = environ; *e; e++) {
    if (strncmp(*e, "PIP_", 4) != 0 || !strncmp(*e, "PIP_CONFIG_FILE=", 16))
      continue;
    const char *eq = strchr(*e, '=');
    if (!eq || !eq[1])
      continue; /* pip ignores empty values */
    char *key = ts_xstrndup(*e + 4, (size_t)(eq - *e - 4));
    for (char *c = key; *c; c++)
      *c = *c == '_' ? '-' : (char)(*c >= 'A' && *c <= 'Z' ? *c - 'A' + 'a' : *c);
    settings_put(st, key, eq + 1, ts_xstrndup(*e, (size_t)(eq - *e)));
    free(key);
  }
}

/* The settings as torchsolve options for `bit`'s command.  Returns 0 or 2. */
static int settings_to_args(const struct settings *st, unsigned bit, struct argv_out *a) {
  for (size_t i = 0; i < st->n; i++) {
    const struct setting *s = &st->s[i];
    if (!strcmp(s->key, "require-virtualenv") || !strcmp(s->key, "isolated"))
      continue; /* mode keys, read by the caller */
    const struct pip_option *o = find_key(s->key);
    if (!o || !(o->cmds & bit))
      continue; /* not pip's, or not this command's: pip ignores it */
    if (o->how == NO_BUILD || o->how == REFUSE) {
      if (!strcmp(o->name, "--user") && bit == C_INSTALL && truth(s->value) == 1)
        push(a, "--user"); /* PIP_USER=1: install into the user site */
      else if (o->value || truth(s->value) == 1)
        return refuse(o, s->where);
      continue;
    }
    if (o->how == IGNORE)
      continue;
    const char *spelling = o->how == RENAME ? o->ts : o->name;
    if (!o->value) {
      int t = truth(s->value);
      if (t < 0)
        return ts_cli_usage_error("pip", "%s: '%s' wants 1/true/yes/on or "
                                  "0/false/no/off, not '%s'", s->where, s->key, s->value);
      if (t)
        push(a, spelling);
      continue;
    }
    /* pip splits list values on blanks and lines; one value stays one */
    char *copy = ts_xstrdup(s->value);
    for (char *save = NULL, *v = strtok_r(copy, " \t\r\n", &save); v;
         v = strtok_r(NULL, " \t\r\n", &save)) {
      push(a, spelling);
      push(a, v);
    }
    free(copy);
  }
  return 0;
}

/* "311" (pip's short form) as "3.11". */
static void python_version(const char *v, struct argv_out *a) {
  if (strlen(v) >= 2 && strspn(v, "0123456789") == strlen(v)) {
    char *dotted = ts_xasprintf("%c.%s", v[0], v + 1);
    push(a, dotted);
    free(dotted);
  } else {
    push(a, v);
  }
}

/* What pip's command line says that torchsolve's arguments do not carry. */
struct pip_target {
  const char *abi;     /* --abi's value (into argv), or NULL */
  bool implementation; /* --implementation cp */
};

/* A refused option that this command takes after all: --user for install
 * (the user site), --implementation cp (what torchsolve resolves for),
 * --abi (checked with the others, pip_target.h).  Returns whether it was
 * taken. */
static bool take_refused(const struct pip_option *o, const char *value, unsigned bit,
                         struct argv_out *a, struct pip_target *pt) {
  if (!strcmp(o->name, "--user") && bit == C_INSTALL)
    push(a, "--user");
  else if (!strcmp(o->name, "--implementation") && value && !strcmp(value, "cp"))
    pt->implementation = true;
  else if (!strcmp(o->name, "--abi") && value)
    pt->abi = value;
  else
    return false;
  return true;
}

/* pip's command line as torchsolve's, appended to a.  *python and
 * *system (pointing into argv) say which interpreter it names.  Returns 0
 * or 2. */
static int translate(int argc, char **argv, unsigned bit, struct argv_out *a,
                     const char **python, bool *system, bool *require_venv,
                     struct pip_target *pt) {
  bool operands = false;
  for (int i = 0; i < argc; i++) {
    const char *s = argv[i];
    if (operands || s[0] != '-' || !s[1]) {
      push(a, s);
      continue;
    }
    if (!strcmp(s, "--")) {
      operands = true;
      push(a, s);
      continue;
    }
    if (!strcmp(s, "--require-virtualenv") || !strcmp(s, "--isolated")) {
      *require_venv |= s[2] == 'r';
      continue;
    }
    if (!strcmp(s, "--system"))
      *system = true;
    const char *eq = strchr(s, '=');
    if ((!strcmp(s, "--python") || !strcmp(s, "--python-version")) && i + 1 < argc) {
      push(a, s);
      if (s[8] == '-')
        python_version(argv[++i], a);
      else
        push(a, *python = argv[++i]);
      continue;
    }
    if (!strncmp(s, "--python=", 9))
      *python = s + 9;
    if (!strncmp(s, "--python-version=", 17)) {
      push(a, "--python-version");
      python_version(s + 17, a);
      continue;
    }
    const struct pip_option *o = find_option(s);
    if (!o) {
      push(a, s); /* the command knows it, or says it does not */
      continue;
    }
    if (!(o->cmds & bit)) {
      if (o->general && o->value && !eq)
        i++; /* accepted by every pip command, of no use to this one */
      if (!o->general)
        push(a, s); /* another option of the same spelling (list -e), or
                       the command's "unknown option", as pip's */
      continue;
    }
    const char *value = NULL;
    if (o->value && eq)
      value = eq + 1;
    else if (o->value && i + 1 < argc)
      value = argv[++i];
    else if (o->value)
      return ts_cli_usage_error("pip", "%s needs a value", s);
    if (o->how == NO_BUILD || o->how == REFUSE) {
      if (take_refused(o, value, bit, a, pt))
        continue;
      return refuse(o, "pip");
    }
    if (o->how == IGNORE)
      continue;
    const char *spelling = o->how == RENAME ? o->ts : s;
    if (eq && o->how == AS_IS)
      push(a, s);
    else {
      push(a, o->how == RENAME ? spelling : o->name);
      if (value)
        push(a, value);
    }
  }
  return 0;
}

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
      fputs(usage, stdout);
      return 0;
    }
    const struct pip_option *o = find_option(argv[c]);
    bool valued = (o && o->value && !strchr(argv[c], '=')) || !strcmp(argv[c], "--python");
    c += valued ? 2 : 1;
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
  struct argv_out cli = {0}, out = {0};
  const char *python = NULL;
  bool system = false, require_venv = false;
  unsigned bit = commands[k].bit;
  struct pip_target pt = {0};
  int status = translate(c - 1, argv + 1, bit, &cli, &python, &system, &require_venv, &pt);
  if (status == 0)
    status = translate(argc - c - 1, argv + c + 1, bit, &cli, &python, &system,
                       &require_venv, &pt);
  char *prefix = status == 0 ? venv_prefix(python, system) : NULL;
  /* outside a venv, pip's target is the interpreter pip runs under */
  char *path_python = status == 0 ? ts_pip_default_python(python, system) : NULL;
  struct settings st = {0};
  if (status == 0)
    status = read_files(argv[c], prefix, isolated, &st);
  if (status == 0 && !isolated)
    read_environment(&st);
  push(&out, commands[k].pip);
  if (status == 0)
    status = settings_to_args(&st, bit, &out);
  for (size_t i = 0; i < st.n && status == 0; i++)
    if (!strcmp(st.s[i].key, "require-virtualenv")) {
      int t = truth(st.s[i].value);
      if (t < 0)
        status = ts_cli_usage_error("pip", "%s: require-virtualenv wants a boolean, "
                                    "not '%s'", st.s[i].where, st.s[i].value);
      require_venv |= t == 1;
    }
  if (status == 0 && require_venv && commands[k].needs_venv && !prefix) {
    fprintf(stderr, "error: Could not find an activated virtualenv (required).\n");
    status = 3;
  }
  if (path_python) {
    push(&out, "--python");
    push(&out, path_python);
  }
  for (size_t i = 0; i < cli.n; i++)
    push(&out, cli.v[i]);
  if (status == 0 && (bit & C_RESOLVE))
    status = ts_pip_check_target(out.v, out.n, bit == C_INSTALL, pt.abi, pt.implementation);
  if (status == 0) {
    ts_cli.pip_mode = true;
    status = commands[k].run((int)out.n, out.v);
    /* pip's statuses: 0, 1 for every failure, 2 for usage errors */
    if (status != 0 && status != 2)
      status = 1;
  }
  settings_free(&st);
  free(prefix);
  free(path_python);
  argv_free(&cli);
  argv_free(&out);
  return status;
}
