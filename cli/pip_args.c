/* pip's options in torchsolve's spelling: see pip_args.h. */
#include "cli/pip_args.h"

#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "core/alloc.h"
#include "core/str.h"

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
    {"--index-url", "-i", true, AS_IS, NULL, TS_PIP_INDEX, false},
    {"--extra-index-url", NULL, true, AS_IS, NULL, TS_PIP_INDEX, false},
    {"--find-links", "-f", true, AS_IS, NULL, TS_PIP_INDEX, false},
    {"--no-index", NULL, false, AS_IS, NULL, TS_PIP_INDEX, false},
    {"--trusted-host", NULL, true, AS_IS, NULL, TS_PIP_INDEX, true},
    {"--cert", NULL, true, AS_IS, NULL, TS_PIP_INDEX, true},
    {"--client-cert", NULL, true, AS_IS, NULL, TS_PIP_INDEX, true},
    {"--proxy", NULL, true, AS_IS, NULL, TS_PIP_INDEX, true},
    {"--timeout", "--default-timeout", true, RENAME, "--timeout", TS_PIP_INDEX, true},
    {"--retries", NULL, true, AS_IS, NULL, TS_PIP_INDEX, true},
    {"--cache-dir", NULL, true, AS_IS, NULL, TS_PIP_INDEX, true},
    {"--no-cache-dir", NULL, false, RENAME, "--no-cache", TS_PIP_INDEX, true},
    {"--constraint", "-c", true, AS_IS, NULL, TS_PIP_RESOLVE, false},
    {"--pre", NULL, false, AS_IS, NULL, TS_PIP_RESOLVE | TS_PIP_LIST, false},
    {"--only-binary", NULL, true, AS_IS, NULL, TS_PIP_RESOLVE, false},
    {"--no-binary", NULL, true, AS_IS, NULL, TS_PIP_RESOLVE, false},
    {"--prefer-binary", NULL, false, AS_IS, NULL, TS_PIP_RESOLVE, false},
    {"--upgrade-strategy", NULL, true, AS_IS, NULL, TS_PIP_INSTALL, false},
    {"--require-hashes", NULL, false, AS_IS, NULL, TS_PIP_RESOLVE, false},
    {"--break-system-packages", NULL, false, AS_IS, NULL, TS_PIP_INSTALL | TS_PIP_UNINSTALL, false},
    {"--no-color", NULL, false, RENAME, "--color=never", TS_PIP_ALL, true},
    {"--disable-pip-version-check", NULL, false, IGNORE, NULL, TS_PIP_ALL, true},
    {"--no-input", NULL, false, IGNORE, NULL, TS_PIP_ALL, true},
    {"--no-python-version-warning", NULL, false, IGNORE, NULL, TS_PIP_ALL, true},
    {"--exists-action", NULL, true, IGNORE, NULL, TS_PIP_ALL, true},
    {"--progress-bar", NULL, true, IGNORE, NULL, TS_PIP_RESOLVE, false},
    {"--root-user-action", NULL, true, IGNORE, NULL, TS_PIP_INSTALL | TS_PIP_UNINSTALL, false},
    {"--no-warn-script-location", NULL, false, IGNORE, NULL, TS_PIP_INSTALL, false},
    {"--no-warn-conflicts", NULL, false, IGNORE, NULL, TS_PIP_INSTALL, false},
    {"--no-compile", NULL, false, IGNORE, NULL, TS_PIP_INSTALL, false},
    {"--include-editable", NULL, false, IGNORE, NULL, TS_PIP_LIST, false},
    {"--editable", "-e", true, AS_IS, NULL, TS_PIP_INSTALL, false},
    {"--no-build-isolation", NULL, false, AS_IS, NULL, TS_PIP_INSTALL, false},
    {"--config-settings", "-C", true, AS_IS, NULL, TS_PIP_INSTALL, false},
    {"--global-option", NULL, true, NO_BUILD, NULL, TS_PIP_RESOLVE, false},
    {"--build-option", NULL, true, NO_BUILD, NULL, TS_PIP_RESOLVE, false},
    {"--use-pep517", NULL, false, NO_BUILD, NULL, TS_PIP_RESOLVE, false},
    {"--no-use-pep517", NULL, false, NO_BUILD, NULL, TS_PIP_RESOLVE, false},
    {"--check-build-dependencies", NULL, false, NO_BUILD, NULL, TS_PIP_RESOLVE, false},
    {"--no-clean", NULL, false, NO_BUILD, NULL, TS_PIP_RESOLVE, false},
    {"--src", NULL, true, NO_BUILD, NULL, TS_PIP_RESOLVE, false},
    {"--user", NULL, false, REFUSE,
     "only install takes it here: the user site of the python on PATH", TS_PIP_ALL, false},
    {"--root", NULL, true, REFUSE, "use --prefix or --target instead", TS_PIP_INSTALL, false},
    {"--log", NULL, true, REFUSE, "torchsolve writes no log file: redirect stderr",
     TS_PIP_ALL, true},
    {"--use-feature", NULL, true, REFUSE, "pip's feature flags do not apply", TS_PIP_ALL, true},
    {"--use-deprecated", NULL, true, REFUSE, "pip's feature flags do not apply", TS_PIP_ALL, true},
    {"--keyring-provider", NULL, true, REFUSE,
     "keyring is not supported: put credentials in the URL or ~/.netrc", TS_PIP_ALL, true},
    {"--ignore-requires-python", NULL, false, REFUSE,
     "Requires-Python is always honoured", TS_PIP_RESOLVE, false},
    {"--abi", NULL, true, REFUSE, "give it on the command line (cpXY, abi3 or none)",
     TS_PIP_RESOLVE, false},
    {"--implementation", NULL, true, REFUSE, "only CPython (cp) is supported",
     TS_PIP_RESOLVE, false},
    {"--path", NULL, true, REFUSE, "name the environment with --python", TS_PIP_ALL, false},
};

void ts_pip_argv_push(struct ts_pip_argv *a, const char *s) {
  a->v = ts_xreallocarray(a->v, a->n + 2, sizeof *a->v);
  a->v[a->n++] = ts_xstrdup(s);
  a->v[a->n] = NULL;
}

void ts_pip_argv_free(struct ts_pip_argv *a) {
  ts_strv_free(a->v, a->n);
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

bool ts_pip_option_takes_next(const char *arg) {
  const struct pip_option *o = find_option(arg);
  return (o && o->value && !strchr(arg, '=')) || !strcmp(arg, "--python");
}

/* The settings as torchsolve options for `bit`'s command.  Returns 0 or 2. */
int ts_pip_settings_to_args(const struct ts_pip_settings *st, unsigned bit,
                            struct ts_pip_argv *a) {
  for (size_t i = 0; i < st->n; i++) {
    const struct ts_pip_setting *s = &st->s[i];
    if (!strcmp(s->key, "require-virtualenv") || !strcmp(s->key, "isolated"))
      continue; /* mode keys, read by the caller */
    const struct pip_option *o = find_key(s->key);
    if (!o || !(o->cmds & bit))
      continue; /* not pip's, or not this command's: pip ignores it */
    if (o->how == NO_BUILD || o->how == REFUSE) {
      if (!strcmp(o->name, "--user") && bit == TS_PIP_INSTALL && ts_pip_truth(s->value) == 1)
        ts_pip_argv_push(a, "--user"); /* PIP_USER=1: install into the user site */
      else if (o->value || ts_pip_truth(s->value) == 1)
        return refuse(o, s->where);
      continue;
    }
    if (o->how == IGNORE)
      continue;
    const char *spelling = o->how == RENAME ? o->ts : o->name;
    if (!o->value) {
      int t = ts_pip_truth(s->value);
      if (t < 0)
        return ts_cli_usage_error("pip", "%s: '%s' wants 1/true/yes/on or "
                                  "0/false/no/off, not '%s'", s->where, s->key, s->value);
      if (t)
        ts_pip_argv_push(a, spelling);
      continue;
    }
    /* pip splits list values on blanks and lines; one value stays one */
    char *copy = ts_xstrdup(s->value);
    for (char *save = NULL, *v = strtok_r(copy, " \t\r\n", &save); v;
         v = strtok_r(NULL, " \t\r\n", &save)) {
      ts_pip_argv_push(a, spelling);
      ts_pip_argv_push(a, v);
    }
    free(copy);
  }
  return 0;
}

/* "311" (pip's short form) as "3.11". */
static void python_version(const char *v, struct ts_pip_argv *a) {
  if (strlen(v) >= 2 && strspn(v, "0123456789") == strlen(v)) {
    char *dotted = ts_xasprintf("%c.%s", v[0], v + 1);
    ts_pip_argv_push(a, dotted);
    free(dotted);
  } else {
    ts_pip_argv_push(a, v);
  }
}

/* A refused option that this command takes after all: --user for install
 * (the user site), --implementation cp (what torchsolve resolves for),
 * --abi (checked with the others, pip_target.h).  Returns whether it was
 * taken. */
static bool take_refused(const struct pip_option *o, const char *value, unsigned bit,
                         struct ts_pip_argv *a, struct ts_pip_abi_options *pt) {
  if (!strcmp(o->name, "--user") && bit == TS_PIP_INSTALL)
    ts_pip_argv_push(a, "--user");
  else if (!strcmp(o->name, "--implementation") && value && !strcmp(value, "cp"))
    pt->implementation = true;
  else if (!strcmp(o->name, "--abi") && value)
    pt->abi = value;
  else
    return false;
  return true;
}

int ts_pip_translate(int argc, char **argv, unsigned bit, struct ts_pip_argv *a,
                     const char **python, bool *system, bool *require_venv,
                     struct ts_pip_abi_options *pt) {
  bool operands = false;
  for (int i = 0; i < argc; i++) {
    const char *s = argv[i];
    if (operands || s[0] != '-' || !s[1]) {
      ts_pip_argv_push(a, s);
      continue;
    }
    if (!strcmp(s, "--")) {
      operands = true;
      ts_pip_argv_push(a, s);
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
      ts_pip_argv_push(a, s);
      if (s[8] == '-')
        python_version(argv[++i], a);
      else
        ts_pip_argv_push(a, *python = argv[++i]);
      continue;
    }
    if (!strncmp(s, "--python=", 9))
      *python = s + 9;
    if (!strncmp(s, "--python-version=", 17)) {
      ts_pip_argv_push(a, "--python-version");
      python_version(s + 17, a);
      continue;
    }
    const struct pip_option *o = find_option(s);
    if (!o) {
      ts_pip_argv_push(a, s); /* the command knows it, or says it does not */
      continue;
    }
    if (!(o->cmds & bit)) {
      if (o->general && o->value && !eq)
        i++; /* accepted by every pip command, of no use to this one */
      if (!o->general)
        ts_pip_argv_push(a, s); /* another option of the same spelling (list -e), or
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
      ts_pip_argv_push(a, s);
    else {
      ts_pip_argv_push(a, o->how == RENAME ? spelling : o->name);
      if (value)
        ts_pip_argv_push(a, value);
    }
  }
  return 0;
}
