/* A local source tree: its hash, the copy it is built from, whether it is a
 * project at all (see source.h). */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/alloc.h"
#include "core/fs.h"
#include "core/sha256.h"
#include "core/str.h"
#include "source/source.h"

/* What builds and tools leave in a tree; none of it is source. */
static bool skipped(const char *name, bool dir) {
  static const char *const dirs[] = {".git", ".hg", ".svn", "__pycache__", "build",
                                     "dist", ".tox", ".nox", ".venv", ".eggs",
                                     ".mypy_cache", ".pytest_cache"};
  if (dir) {
    for (size_t i = 0; i < sizeof dirs / sizeof dirs[0]; i++)
      if (!strcmp(name, dirs[i]))
        return true;
    size_t n = strlen(name);
    return n > 9 && !strcmp(name + n - 9, ".egg-info");
  }
  size_t n = strlen(name);
  return n > 4 && (!strcmp(name + n - 4, ".pyc") || !strcmp(name + n - 3, ".so") ||
                   !strcmp(name + n - 2, ".o"));
}

enum { MAX_DEPTH = 64, MAX_FILES = 200000 };

static enum ts_code walk(struct ts_sha256 *h, const char *dir, const char *rel,
                         unsigned depth, size_t *nfiles, struct ts_error *err) {
  if (depth > MAX_DEPTH)
    return ts_error_set(err, TS_E_TOO_BIG, "'%s' is nested deeper than %d directories",
                        dir, MAX_DEPTH);
  DIR *d = opendir(dir);
  if (!d)
    return ts_error_set(err, TS_E_IO, "cannot read '%s': %s", dir, strerror(errno));
  char **names = NULL;
  size_t n = 0;
  struct dirent *de;
  while ((de = readdir(d))) {
    if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, ".."))
      continue;
    ts_strv_push(&names, &n, de->d_name, strlen(de->d_name));
  }
  closedir(d);
  qsort(names, n, sizeof *names, ts_strv_cmp);
  enum ts_code rc = TS_OK;
  for (size_t i = 0; i < n && rc == TS_OK; i++) {
    char *path = ts_xasprintf("%s/%s", dir, names[i]);
    char *r = rel[0] ? ts_xasprintf("%s/%s", rel, names[i]) : ts_xstrdup(names[i]);
    struct stat st;
    if (lstat(path, &st) != 0) {
      rc = ts_error_set(err, TS_E_IO, "cannot read '%s': %s", path, strerror(errno));
    } else if (S_ISDIR(st.st_mode)) {
      if (!skipped(names[i], true))
        rc = walk(h, path, r, depth + 1, nfiles, err);
    } else if (S_ISLNK(st.st_mode)) {
      char target[PATH_MAX];
      ssize_t tl = readlink(path, target, sizeof target);
      ts_sha256_update(h, "L", 1);
      ts_sha256_update(h, r, strlen(r) + 1);
      if (tl > 0)
        ts_sha256_update(h, target, (size_t)tl);
      ts_sha256_update(h, "", 1);
    } else if (S_ISREG(st.st_mode) && !skipped(names[i], false)) {
      if (++*nfiles > MAX_FILES) {
        rc = ts_error_set(err, TS_E_TOO_BIG, "'%s' holds more than %d files", dir,
                          MAX_FILES);
        break;
      }
      ts_sha256_update(h, st.st_mode & 0111 ? "X" : "F", 1);
      ts_sha256_update(h, r, strlen(r) + 1);
      int fd = open(path, O_RDONLY | O_CLOEXEC);
      if (fd < 0) {
        rc = ts_error_set(err, TS_E_IO, "cannot read '%s': %s", path, strerror(errno));
      } else {
        /* the length first, so file boundaries cannot shift */
        char len[32];
        int ll = snprintf(len, sizeof len, "%lld:", (long long)st.st_size);
        ts_sha256_update(h, len, (size_t)ll);
        char buf[65536];
        ssize_t got;
        while ((got = read(fd, buf, sizeof buf)) > 0)
          ts_sha256_update(h, buf, (size_t)got);
        if (got < 0)
          rc = ts_error_set(err, TS_E_IO, "cannot read '%s': %s", path, strerror(errno));
        close(fd);
      }
    }
    free(path);
    free(r);
  }
  ts_strv_free(names, n);
  return rc;
}

enum ts_code ts_source_tree_hash(const char *dir, char out[65], struct ts_error *err) {
  struct ts_sha256 *h = ts_sha256_new();

  size_t nfiles = 0;
  enum ts_code rc = walk(h, dir, "", 0, &nfiles, err);
  uint8_t dig[TS_SHA256_LEN];
  ts_sha256_final(h, dig);
  ts_sha256_free(h);
  ts_sha256_hex(dig, out);
  return rc;
}

/* ---- the copy a local tree is built from --------------------------------- */

/* Version control data stays where it is; a version tool (setuptools-scm)
 * reads it through a link. */
static bool is_vcs_dir(const char *name) {
  return !strcmp(name, ".git") || !strcmp(name, ".hg") || !strcmp(name, ".svn");
}

static enum ts_code copy_file(const char *from, const char *to, mode_t mode,
                              struct ts_error *err) {
  int in = open(from, O_RDONLY | O_CLOEXEC);
  if (in < 0)
    return ts_error_set(err, TS_E_IO, "cannot read '%s': %s", from, strerror(errno));
  int out = open(to, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, mode & 0111 ? 0755 : 0644);
  enum ts_code rc = out < 0 ? ts_error_set(err, TS_E_IO, "cannot create '%s': %s", to,
                                           strerror(errno))
                            : TS_OK;
  char buf[65536];
  ssize_t got = 0;
  while (rc == TS_OK && (got = read(in, buf, sizeof buf)) > 0)
    for (ssize_t done = 0, w; rc == TS_OK && done < got; done += w > 0 ? w : 0)
      if ((w = write(out, buf + done, (size_t)(got - done))) < 0 && errno != EINTR)
        rc = ts_error_set(err, TS_E_IO, "cannot write '%s': %s", to, strerror(errno));
  if (rc == TS_OK && got < 0)
    rc = ts_error_set(err, TS_E_IO, "cannot read '%s': %s", from, strerror(errno));
  if (out >= 0 && close(out) != 0 && rc == TS_OK)
    rc = ts_error_set(err, TS_E_IO, "cannot write '%s': %s", to, strerror(errno));
  close(in);
  return rc;
}

static enum ts_code copy_walk(const char *from, const char *to, unsigned depth,
                              size_t *nfiles, struct ts_error *err) {
  if (depth > MAX_DEPTH)
    return ts_error_set(err, TS_E_TOO_BIG, "'%s' is nested deeper than %d directories",
                        from, MAX_DEPTH);
  if (mkdir(to, 0755) != 0)
    return ts_error_set(err, TS_E_IO, "cannot create '%s': %s", to, strerror(errno));
  DIR *d = opendir(from);
  if (!d)
    return ts_error_set(err, TS_E_IO, "cannot read '%s': %s", from, strerror(errno));
  enum ts_code rc = TS_OK;
  struct dirent *de;
  while (rc == TS_OK && (de = readdir(d))) {
    if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, ".."))
      continue;
    char *src = ts_path_join(from, de->d_name), *dst = ts_path_join(to, de->d_name);
    struct stat st;
    if (lstat(src, &st) != 0) {
      rc = ts_error_set(err, TS_E_IO, "cannot read '%s': %s", src, strerror(errno));
    } else if (S_ISDIR(st.st_mode) && depth == 0 && is_vcs_dir(de->d_name)) {
      if (symlink(src, dst) != 0)
        rc = ts_error_set(err, TS_E_IO, "cannot link '%s': %s", dst, strerror(errno));
    } else if (S_ISDIR(st.st_mode)) {
      if (!skipped(de->d_name, true))
        rc = copy_walk(src, dst, depth + 1, nfiles, err);
    } else if (S_ISLNK(st.st_mode)) {
      char target[PATH_MAX];
      ssize_t tl = readlink(src, target, sizeof target - 1);
      if (tl > 0) {
        target[tl] = '\0';
        if (symlink(target, dst) != 0)
          rc = ts_error_set(err, TS_E_IO, "cannot link '%s': %s", dst, strerror(errno));
      }
    } else if (S_ISREG(st.st_mode)) {
      rc = ++*nfiles > MAX_FILES ? ts_error_set(err, TS_E_TOO_BIG,
                                                "'%s' holds more than %d files", from,
                                                MAX_FILES)
                                 : copy_file(src, dst, st.st_mode, err);
    }
    free(src);
    free(dst);
  }
  closedir(d);
  return rc;
}

enum ts_code ts_source_tree_copy(const char *dir, const char *dest, struct ts_error *err) {
  size_t nfiles = 0;
  enum ts_code rc = copy_walk(dir, dest, 0, &nfiles, err);
  if (rc != TS_OK)
    ts_error_wrap(err, "copying '%s' to build it", dir);
  return rc;
}

enum ts_code ts_source_check_project(const char *tree, const char *what,
                                     struct ts_error *err) {
  static const char *const markers[] = {"pyproject.toml", "setup.py"};
  for (size_t i = 0; i < sizeof markers / sizeof markers[0]; i++) {
    char *p = ts_path_join(tree, markers[i]);
    struct stat st;
    bool there = stat(p, &st) == 0 && S_ISREG(st.st_mode);
    free(p);
    if (there)
      return TS_OK;
  }
  return ts_error_set(err, TS_E_NOT_FOUND,
                      "'%s' does not appear to be a Python project: neither 'setup.py' "
                      "nor 'pyproject.toml' found",
                      what);
}
