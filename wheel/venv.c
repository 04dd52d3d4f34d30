#include "wheel/venv.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/buf.h"
#include "core/fs.h"
#include "core/proc.h"
#include "core/str.h"

/* Runs python -E -s -c script; returns its stdout (capped). */
static enum ts_code run_python(const char *python, const char *script,
                               struct ts_buf *out, struct ts_error *err) {
  char *argv[] = {(char *)python, (char *)"-E", (char *)"-s", (char *)"-c",
                  (char *)script, NULL};
  struct ts_proc_options po = {.stderr_mode = TS_PROC_STDERR_INHERIT,
                               .stdout_cap = TS_CAP_SMALL_FILE};
  struct ts_proc_result pr;
  enum ts_code rc = ts_proc_run(argv, &po, &pr, err);
  if (rc != TS_OK) {
    ts_proc_result_clear(&pr);
    return ts_error_set(err, TS_E_PYTHON, "%s", err->detail);
  }
  if (!ts_proc_succeeded(&pr) || !pr.out.data) {
    ts_proc_result_clear(&pr);
    return ts_error_set(err, TS_E_PYTHON, "'%s' is not a working Python",
                        python);
  }
  *out = pr.out;
  pr.out = (struct ts_buf){0};
  ts_proc_result_clear(&pr);
  return TS_OK;
}

/* Splits the probe output into n lines (in place). */
static bool lines(char *s, char **v, int n) {
  for (int i = 0; i < n; i++) {
    char *nl = strchr(s, '\n');
    if (!nl)
      return false;
    *nl = '\0';
    v[i] = s;
    s = nl + 1;
  }
  return true;
}

static char *absolute(const char *p) {
  if (p[0] == '/')
    return ts_xasprintf("%s", p);
  char *cwd = getcwd(NULL, 0);
  char *r = ts_xasprintf("%s/%s", cwd ? cwd : ".", p);
  free(cwd);
  return r;
}

/* A bare name ("python3") is looked up in PATH, as a shell would. */
static char *find_in_path(const char *name) {
  if (strchr(name, '/'))
    return absolute(name);
  char *found = ts_proc_find_program(name);
  if (!found)
    return ts_xstrdup(name);
  char *r = absolute(found);
  free(found);
  return r;
}

enum ts_code ts_venv_probe_base(const char *python, struct ts_venv_base *out,
                                struct ts_error *err) {
  memset(out, 0, sizeof *out);
  char *exe = find_in_path(python);
  struct ts_buf b;
  enum ts_code rc = run_python(
      exe,
      "import sys\n"
      "print('%d.%d.%d' % sys.version_info[:3])\n"
      "print(sys.version_info[0]); print(sys.version_info[1])\n"
      "print(getattr(sys, '_base_executable', '') or sys.executable)\n",
      &b, err);
  free(exe);
  if (rc != TS_OK)
    return rc;
  char *v[4];
  if (!lines(b.data, v, 4) || v[3][0] != '/') {
    ts_buf_clear(&b);
    return ts_error_set(err, TS_E_PYTHON, "unexpected answer from '%s'",
                        python);
  }
  out->version = ts_xasprintf("%s", v[0]);
  out->major = (int)strtol(v[1], NULL, 10);
  out->minor = (int)strtol(v[2], NULL, 10);
  out->executable = ts_xasprintf("%s", v[3]);
  ts_buf_clear(&b);
  return TS_OK;
}

void ts_venv_base_clear(struct ts_venv_base *b) {
  free(b->executable);
  free(b->version);
  memset(b, 0, sizeof *b);
}

/* The activate scripts are written here, not copied from CPython: they set
 * VIRTUAL_ENV and PATH, save the old values, and define `deactivate`. */
static const char activate_sh[] =
    "# Source this file from bash or zsh: . %1$s/bin/activate\n"
    "deactivate () {\n"
    "    if [ -n \"${_OLD_VIRTUAL_PATH:-}\" ]; then\n"
    "        PATH=\"$_OLD_VIRTUAL_PATH\"; export PATH; unset _OLD_VIRTUAL_PATH\n"
    "    fi\n"
    "    if [ -n \"${_OLD_VIRTUAL_PYTHONHOME:-}\" ]; then\n"
    "        PYTHONHOME=\"$_OLD_VIRTUAL_PYTHONHOME\"; export PYTHONHOME\n"
    "        unset _OLD_VIRTUAL_PYTHONHOME\n"
    "    fi\n"
    "    if [ -n \"${_OLD_VIRTUAL_PS1:-}\" ]; then\n"
    "        PS1=\"$_OLD_VIRTUAL_PS1\"; export PS1; unset _OLD_VIRTUAL_PS1\n"
    "    fi\n"
    "    hash -r 2>/dev/null\n"
    "    unset VIRTUAL_ENV VIRTUAL_ENV_PROMPT\n"
    "    if [ \"${1:-}\" != \"nondestructive\" ]; then unset -f deactivate; fi\n"
    "}\n"
    "deactivate nondestructive\n"
    "VIRTUAL_ENV='%1$s'\nexport VIRTUAL_ENV\n"
    "_OLD_VIRTUAL_PATH=\"$PATH\"\nPATH=\"$VIRTUAL_ENV/bin:$PATH\"\nexport PATH\n"
    "VIRTUAL_ENV_PROMPT='(%2$s) '\nexport VIRTUAL_ENV_PROMPT\n"
    "if [ -n \"${PYTHONHOME:-}\" ]; then\n"
    "    _OLD_VIRTUAL_PYTHONHOME=\"$PYTHONHOME\"; unset PYTHONHOME\n"
    "fi\n"
    "if [ -z \"${VIRTUAL_ENV_DISABLE_PROMPT:-}\" ]; then\n"
    "    _OLD_VIRTUAL_PS1=\"${PS1:-}\"; PS1=\"$VIRTUAL_ENV_PROMPT${PS1:-}\"; export PS1\n"
    "fi\n"
    "hash -r 2>/dev/null\n";

static const char activate_fish[] =
    "# Source this file from fish: source %1$s/bin/activate.fish\n"
    "function deactivate -d 'Leave the virtual environment'\n"
    "    if set -q _OLD_VIRTUAL_PATH\n"
    "        set -gx PATH $_OLD_VIRTUAL_PATH; set -e _OLD_VIRTUAL_PATH\n"
    "    end\n"
    "    if set -q _OLD_VIRTUAL_PYTHONHOME\n"
    "        set -gx PYTHONHOME $_OLD_VIRTUAL_PYTHONHOME\n"
    "        set -e _OLD_VIRTUAL_PYTHONHOME\n"
    "    end\n"
    "    if functions -q _old_fish_prompt\n"
    "        functions -e fish_prompt; functions -c _old_fish_prompt fish_prompt\n"
    "        functions -e _old_fish_prompt\n"
    "    end\n"
    "    set -e VIRTUAL_ENV VIRTUAL_ENV_PROMPT\n"
    "    if test \"$argv[1]\" != nondestructive; functions -e deactivate; end\n"
    "end\n"
    "deactivate nondestructive\n"
    "set -gx VIRTUAL_ENV '%1$s'\n"
    "set -gx _OLD_VIRTUAL_PATH $PATH\n"
    "set -gx PATH \"$VIRTUAL_ENV/bin\" $PATH\n"
    "set -gx VIRTUAL_ENV_PROMPT '(%2$s) '\n"
    "if set -q PYTHONHOME\n"
    "    set -gx _OLD_VIRTUAL_PYTHONHOME $PYTHONHOME; set -e PYTHONHOME\n"
    "end\n"
    "if test -z \"$VIRTUAL_ENV_DISABLE_PROMPT\"\n"
    "    functions -c fish_prompt _old_fish_prompt\n"
    "    function fish_prompt\n"
    "        printf '%%s' $VIRTUAL_ENV_PROMPT\n"
    "        _old_fish_prompt\n"
    "    end\n"
    "end\n";

static const char activate_csh[] =
    "# Source this file from csh: source %1$s/bin/activate.csh\n"
    "alias deactivate 'test $?_OLD_VIRTUAL_PATH != 0 && setenv PATH "
    "\"$_OLD_VIRTUAL_PATH\" && unset _OLD_VIRTUAL_PATH; rehash; "
    "test $?_OLD_VIRTUAL_PROMPT != 0 && set prompt=\"$_OLD_VIRTUAL_PROMPT\" "
    "&& unset _OLD_VIRTUAL_PROMPT; unsetenv VIRTUAL_ENV; "
    "unsetenv VIRTUAL_ENV_PROMPT; test \"\\!:*\" != \"nondestructive\" && "
    "unalias deactivate'\n"
    "deactivate nondestructive\n"
    "setenv VIRTUAL_ENV '%1$s'\n"
    "set _OLD_VIRTUAL_PATH=\"$PATH\"\n"
    "setenv PATH \"$VIRTUAL_ENV/bin:$PATH\"\n"
    "setenv VIRTUAL_ENV_PROMPT '(%2$s) '\n"
    "set _OLD_VIRTUAL_PROMPT=\"$prompt\"\n"
    "if (! \"$?VIRTUAL_ENV_DISABLE_PROMPT\") then\n"
    "    set prompt = \"$VIRTUAL_ENV_PROMPT$prompt\"\n"
    "endif\n"
    "rehash\n";

static enum ts_code put(const char *dir, const char *rel, const char *text,
                        struct ts_error *err) {
  char *p = ts_path_join(dir, rel);
  enum ts_code rc = ts_fs_write_atomic(p, text, strlen(text), err);
  free(p);
  return rc;
}

static enum ts_code link_to(const char *target, const char *dir,
                            const char *rel, struct ts_error *err) {
  char *p = ts_path_join(dir, rel);
  enum ts_code rc = TS_OK;
  if (symlink(target, p) != 0)
    rc = ts_error_set(err, TS_E_IO, "cannot create '%s': %s", p,
                      strerror(errno));
  free(p);
  return rc;
}

enum ts_code ts_venv_create(const char *dir_in, const struct ts_venv_base *base,
                            const char *command, struct ts_error *err) {
  char *dir = absolute(dir_in);
  size_t dl = strlen(dir);
  while (dl > 1 && dir[dl - 1] == '/')
    dir[--dl] = '\0';
  enum ts_code rc = TS_OK;
  DIR *d = opendir(dir);
  if (d) {
    struct dirent *de;
    while ((de = readdir(d)))
      if (strcmp(de->d_name, ".") != 0 && strcmp(de->d_name, "..") != 0) {
        char *cfg = ts_path_join(dir, "pyvenv.cfg");
        bool venv = access(cfg, F_OK) == 0;
        free(cfg);
        rc = venv ? ts_error_set(err, TS_E_INVALID,
                                 "'%s' is already a virtual environment: use it, "
                                 "or pass --clear to replace it", dir)
                  : ts_error_set(err, TS_E_INVALID,
                                 "'%s' exists and is not empty (and is no virtual "
                                 "environment): choose another directory", dir);
        break;
      }
    closedir(d);
  }
  char *site = ts_xasprintf("%s/lib/python%d.%d/site-packages", dir, base->major,
                       base->minor);
  char *bin = ts_path_join(dir, "bin");
  if (rc == TS_OK)
    rc = ts_fs_mkdirs(site, err);
  if (rc == TS_OK)
    rc = ts_fs_mkdirs(bin, err);
  if (rc == TS_OK) {
    char *inc = ts_path_join(dir, "include");
    rc = ts_fs_mkdirs(inc, err);
    free(inc);
  }
  if (rc == TS_OK && sizeof(void *) == 8)
    rc = link_to("lib", dir, "lib64", err);
  if (rc == TS_OK)
    rc = link_to(base->executable, bin, "python", err);
  if (rc == TS_OK)
    rc = link_to("python", bin, "python3", err);
  char *minor = ts_xasprintf("python%d.%d", base->major, base->minor);
  if (rc == TS_OK)
    rc = link_to("python", bin, minor, err);
  free(minor);
  char *home = ts_xasprintf("%s", base->executable);
  *strrchr(home, '/') = '\0';
  char *cfg = ts_xasprintf("home = %s\n"
                      "include-system-site-packages = false\n"
                      "version = %s\n"
                      "executable = %s\n"
                      "%s%s%s",
                      home[0] ? home : "/", base->version, base->executable,
                      command ? "command = " : "", command ? command : "",
                      command ? "\n" : "");
  free(home);
  if (rc == TS_OK)
    rc = put(dir, "pyvenv.cfg", cfg, err);
  free(cfg);
  const char *name = strrchr(dir, '/') + 1;
  const char *tpl[3] = {activate_sh, activate_fish, activate_csh};
  const char *files[3] = {"activate", "activate.fish", "activate.csh"};
  for (int i = 0; rc == TS_OK && i < 3; i++) {
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wformat-nonliteral"
    char *text = ts_xasprintf(tpl[i], dir, name);
#pragma GCC diagnostic pop

    rc = put(bin, files[i], text, err);
    free(text);
  }
  if (rc == TS_OK)
    rc = put(dir, ".gitignore", "# created by torchsolve\n*\n", err);
  free(site);
  free(bin);
  free(dir);
  return rc;
}

void ts_venv_target_clear(struct ts_venv_target *t) {
  for (int i = 0; i < 7; i++)
    free(t->storage_[i]);
  memset(t, 0, sizeof *t);
}

static void fill(struct ts_venv_target *t) {
  t->paths.prefix = t->storage_[0];
  t->paths.purelib = t->storage_[1];
  t->paths.platlib = t->storage_[2];
  t->paths.scripts = t->storage_[3];
  t->paths.data = t->storage_[4];
  t->paths.headers = t->storage_[5];
  t->paths.python = t->storage_[6];
}

void ts_venv_target_for_layout(const char *dir_in, int major, int minor,
                               struct ts_venv_target *out) {
  memset(out, 0, sizeof *out);
  char *dir = absolute(dir_in);
  out->storage_[0] = dir;
  out->storage_[1] = ts_xasprintf("%s/lib/python%d.%d/site-packages", dir, major,
                             minor);
  out->storage_[2] = ts_xasprintf("%s", out->storage_[1]);
  out->storage_[3] = ts_xasprintf("%s/bin", dir);
  out->storage_[4] = ts_xasprintf("%s", dir);
  out->storage_[5] = ts_xasprintf("%s/include/site/python%d.%d", dir, major, minor);
  out->storage_[6] = ts_xasprintf("%s/bin/python", dir);
  out->major = major;
  out->minor = minor;
  fill(out);
  out->paths.python_major = major;
  out->paths.python_minor = minor;
}
