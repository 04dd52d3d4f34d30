/*
 * inventory/tree.c — pip's --prefix and --target trees (see tree.h).
 */
#include "inventory/tree.h"

#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/alloc.h"
#include "core/fs.h"
#include "core/proc.h"
#include "core/str.h"

static char *absolute(const char *dir) {
  if (dir[0] == '/')
    return ts_xstrdup(dir);
  char *cwd = getcwd(NULL, 0);
  char *abs = ts_path_join(cwd ? cwd : ".", dir);
  free(cwd);
  return abs;
}

enum ts_code ts_plan_tree_prefix(const struct ts_target *t, const char *dir,
                                 struct ts_plan_tree *out, struct ts_error *err) {
  memset(out, 0, sizeof *out);
  out->dir = absolute(dir);
  char **s = out->storage_;
  s[0] = ts_xasprintf("%s/lib/python%d.%d/site-packages", out->dir, t->python_major,
                      t->python_minor);
  s[1] = ts_path_join(out->dir, "bin");
  s[2] = ts_xasprintf("%s/include/python%d.%d", out->dir, t->python_major,
                      t->python_minor);
  out->paths = (struct ts_wheel_paths){.prefix = out->dir, .purelib = s[0],
                                       .platlib = s[0], .scripts = s[1],
                                       .data = out->dir, .headers = s[2],
                                       .python = t->python,
                                       .python_major = t->python_major,
                                       .python_minor = t->python_minor};
  return ts_fs_mkdirs(s[0], err);
}

/* site.getuserbase() on POSIX: $PYTHONUSERBASE, else ~/.local. */
static char *user_base(void) {
  const char *env = getenv("PYTHONUSERBASE");
  if (env && *env)
    return absolute(env);
  const char *home = getenv("HOME");
  return home && *home ? ts_path_join(home, ".local") : NULL;
}

static char *user_site_in(const struct ts_target *t, const char *base) {
  /* sysconfig's posix_user: {userbase}/lib/python{X.Y}{abi_thread} */
  bool threaded = t->abi_flags && strchr(t->abi_flags, 't');
  return ts_xasprintf("%s/lib/python%d.%d%s/site-packages", base, t->python_major,
                      t->python_minor, threaded ? "t" : "");
}

char *ts_plan_tree_user_site(const struct ts_target *t) {
  char *base = t && !t->from_spec ? user_base() : NULL;
  char *site = base ? user_site_in(t, base) : NULL;
  free(base);
  return site;
}

enum ts_code ts_plan_tree_user(const struct ts_target *t, struct ts_plan_tree *out,
                               struct ts_error *err) {
  memset(out, 0, sizeof *out);
  if (t->is_venv)
    return ts_error_set(err, TS_E_PYTHON, "Can not perform a '--user' install. User "
                        "site-packages are not visible in this virtualenv (%s): drop "
                        "--user", t->python ? t->python : "the target");
  out->dir = user_base();
  if (!out->dir)
    return ts_error_set(err, TS_E_PYTHON, "--user: no user base: set HOME or "
                        "PYTHONUSERBASE");
  char **s = out->storage_;
  s[0] = user_site_in(t, out->dir);
  s[1] = ts_path_join(out->dir, "bin");
  s[2] = ts_xasprintf("%s/include/python%d.%d", out->dir, t->python_major,
                      t->python_minor);
  out->paths = (struct ts_wheel_paths){.prefix = out->dir, .purelib = s[0],
                                       .platlib = s[0], .scripts = s[1],
                                       .data = out->dir, .headers = s[2],
                                       .python = t->python};
  return ts_fs_mkdirs(s[0], err);
}

enum ts_code ts_plan_tree_target(const struct ts_target *t, const char *dir,
                                 struct ts_plan_tree *out, struct ts_error *err) {
  memset(out, 0, sizeof *out);
  out->dir = absolute(dir);
  enum ts_code rc = ts_fs_mkdirs(out->dir, err);
  if (rc != TS_OK)
    return rc;
  /* in DIR: the moves into it are renames on one filesystem */
  char *tmpl = ts_path_join(out->dir, ".torchsolve-target-XXXXXX");
  if (!mkdtemp(tmpl)) {
    rc = ts_error_set(err, TS_E_IO, "cannot create a directory in '%s': %s", out->dir,
                      strerror(errno));
    free(tmpl);
    return rc;
  }
  out->stage = tmpl;
  char **s = out->storage_;
  s[0] = ts_path_join(out->stage, "lib/python"); /* posix_home */
  s[1] = ts_path_join(out->stage, "bin");
  s[2] = ts_path_join(out->stage, "include/python");
  /* scripts for another interpreter (--python-version) start the python3
   * on PATH, as pip's name the interpreter pip runs under */
  if (!t->python)
    s[3] = ts_proc_find_program("python3");
  out->paths = (struct ts_wheel_paths){.prefix = out->stage, .purelib = s[0],
                                       .platlib = s[0], .scripts = s[1],
                                       .data = out->stage, .headers = s[2],
                                       .python = t->python ? t->python
                                                 : s[3] ? s[3] : "/usr/bin/python3",
                                       .python_major = t->python_major,
                                       .python_minor = t->python_minor};
  return ts_fs_mkdirs(s[0], err);
}

/* Moves each entry of `from` into the tree's DIR; `skip` (may be NULL) is
 * an entry name that stays (the stage's lib, which holds lib/python). */
static enum ts_code move_entries(struct ts_plan_tree *t, const char *from,
                                 const char *skip, bool upgrade,
                                 struct ts_plan_notes *warnings, struct ts_error *err) {
  DIR *d = opendir(from);
  if (!d)
    return errno == ENOENT ? TS_OK
                           : ts_error_set(err, TS_E_IO, "cannot read '%s': %s", from,
                                          strerror(errno));
  /* sorted, so that warnings come in one order */
  char **names = NULL;
  size_t n = 0;
  struct dirent *de;
  while ((de = readdir(d))) {
    const char *nm = de->d_name;
    if (!strcmp(nm, ".") || !strcmp(nm, "..") || (skip && !strcmp(nm, skip)) ||
        !strncmp(nm, ".torchsolve", 11)) /* the install's lock and journal */
      continue;
    ts_strv_push(&names, &n, nm, strlen(nm));
  }
  closedir(d);
  if (n) /* qsort's array may not be NULL, even for no elements */
    qsort(names, n, sizeof *names, ts_strv_cmp);
  enum ts_code rc = TS_OK;
  for (size_t i = 0; i < n; i++) {
    char *src = ts_path_join(from, names[i]);
    char *dst = ts_path_join(t->dir, names[i]);
    struct stat st;
    bool move = rc == TS_OK;
    if (move && lstat(dst, &st) == 0) {
      if (!upgrade) {
        ts_plan_notes_add(warnings, ts_xasprintf("Target directory %s already exists. Specify "
                                    "--upgrade to force replacement.", dst));
        move = false;
      } else if (S_ISLNK(st.st_mode)) {
        ts_plan_notes_add(warnings, ts_xasprintf("Target directory %s already exists and is a "
                                    "link. pip will not automatically replace "
                                    "links, please remove if replacement is desired.",
                                    dst));
        move = false;
      } else {
        rc = ts_fs_remove_tree(dst, err);
        move = rc == TS_OK;
      }
    }
    if (move && rename(src, dst) != 0)
      rc = ts_error_set(err, TS_E_IO, "cannot move '%s' to '%s': %s", src, dst,
                        strerror(errno));
    free(src);
    free(dst);
    free(names[i]);
  }
  free(names);
  return rc;
}

enum ts_code ts_plan_tree_target_finish(struct ts_plan_tree *t, bool upgrade,
                                        struct ts_plan_notes *warnings,
                                        struct ts_error *err) {
  enum ts_code rc = move_entries(t, t->paths.purelib, NULL, upgrade, warnings, err);
  if (rc == TS_OK)
    rc = move_entries(t, t->stage, "lib", upgrade, warnings, err);
  struct ts_error ignore = {0};
  ts_fs_remove_tree(t->stage, &ignore);
  free(t->stage);
  t->stage = NULL;
  return rc;
}

void ts_plan_tree_free(struct ts_plan_tree *t) {
  if (t->stage) {
    struct ts_error ignore = {0};
    ts_fs_remove_tree(t->stage, &ignore);
  }
  free(t->stage);
  free(t->dir);
  for (size_t i = 0; i < sizeof t->storage_ / sizeof t->storage_[0]; i++)
    free(t->storage_[i]);
  memset(t, 0, sizeof *t);
}
