/*
 * target/venvread.c — a CPython venv read from its files (venvread.h).
 *
 * Each step mirrors what the interpreter does at start-up: getpath (3.8-3.10
 * in C, 3.11+ in getpath.py) finds sys.base_prefix, site.py makes the venv
 * sys.prefix, sysconfig expands the posix_prefix / posix_venv scheme, and
 * the probe script derives markers and tags.  Where the interpreter's
 * answer could depend on something not read here, the answer is "run it".
 */
#include "target/venvread.h"

#include <cjson/cJSON.h>
#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <unistd.h>

#include "core/buf.h"
#include "core/fs.h"
#include "core/json_doc.h"
#include "core/str.h"
#include "target/pyfiles.h"

#define MIN_MINOR 8  /* 3.8: the oldest startup rules checked */
#define MAX_MINOR 13 /* 3.13: the newest (3.14 moves the stdlib under platlibdir) */

/* Absolute, no empty, "." or ".." component, no trailing '/', printable
 * ASCII: what Python's abspath/normpath and dirname leave unchanged. */
static bool clean_path(const char *p)
{
  if (p[0] != '/' || p[1] == '\0')
    return false;
  for (const char *s = p; *s; s++) {
    if (*s < 0x20 || *s > 0x7e)
      return false;
    if (*s != '/')
      continue;
    const char *c = s + 1;
    size_t n = strcspn(c, "/");
    if (n == 0 || (n == 1 && c[0] == '.') || (n == 2 && c[0] == '.' && c[1] == '.'))
      return false;
  }
  return true;
}

/* dirname of a clean path ("/a/b" -> "/a", "/a" -> "/"). */
static char *dir_of(const char *p)
{
  const char *slash = strrchr(p, '/');
  return slash == p ? ts_xstrdup("/") : ts_xstrndup(p, (size_t)(slash - p));
}

static bool exists(const char *dir, const char *name)
{
  char *p = ts_path_join(dir, name);
  struct stat st;
  bool r = lstat(p, &st) == 0 || errno != ENOENT;
  free(p);
  return r;
}

static bool is_regular(const char *dir, const char *name)
{
  char *p = ts_path_join(dir, name);
  struct stat st;
  bool r = stat(p, &st) == 0 && S_ISREG(st.st_mode);
  free(p);
  return r;
}

static enum ts_code read_small(const char *path, struct ts_buf *b, struct ts_error *err)
{
  ts_buf_init(b, TS_CAP_SMALL_FILE);
  if (ts_fs_read_file(path, b, NULL) != TS_OK)
    return ts_error_set(err, TS_E_UNSUPPORTED, "cannot read %s", path);
  return TS_OK;
}

/* What the venv's files say before the base installation is looked at. */
struct venv_facts {
  const char *python;   /* as given */
  char *venv;           /* sys.prefix */
  char *real;           /* the end of python's symlink chain (textual), or NULL for a copy */
  struct ts_pyvenv_cfg cfg;
  char *start;          /* the directory getpath searches up from */
  char *base;           /* sys.base_prefix */
  char lib[32];         /* "lib/pythonX.Y" */
  char full_version[32];
};

static void venv_facts_clear(struct venv_facts *f)
{
  free(f->venv);
  free(f->real);
  ts_pyvenv_cfg_clear(&f->cfg);
  free(f->start);
  free(f->base);
}

/* The interpreter runs with this process's C library: a native 64-bit ELF
 * whose loader is ours, and we are glibc. */
static enum ts_code check_elf(const char *python, struct ts_error *err)
{
  struct ts_elf_facts self, py;
  if (ts_elf_read_facts("/proc/self/exe", &self, NULL) != TS_OK || !self.interp[0])
    return ts_error_set(err, TS_E_UNSUPPORTED, "%s: this program's own loader is unknown", python);
  if (!strstr(strrchr(self.interp, '/') ? strrchr(self.interp, '/') : self.interp, "ld-linux"))
    return ts_error_set(err, TS_E_UNSUPPORTED, "%s: this program does not run on glibc", python);
  enum ts_code rc = ts_elf_read_facts(python, &py, err);
  if (rc != TS_OK)
    return rc == TS_E_UNSUPPORTED ? rc : ts_error_set(err, TS_E_UNSUPPORTED, "cannot read %s", python);
  if (py.machine != self.machine)
    return ts_error_set(err, TS_E_UNSUPPORTED, "%s is built for another machine", python);
  if (strcmp(py.interp, self.interp) != 0)
    return ts_error_set(err, TS_E_UNSUPPORTED, "%s does not use this machine's glibc loader", python);
  return TS_OK;
}

/* Follows python's symlinks one link at a time, joining relative targets
 * textually, as CPython 3.8-3.10's getpath does.  NULL for a regular file. */
static char *symlink_chain_end(const char *python, struct ts_error *err, enum ts_code *rc)
{
  char *cur = ts_xstrdup(python);
  *rc = TS_OK;
  for (int hops = 0;; hops++) {
    char target[PATH_MAX];
    ssize_t n = readlink(cur, target, sizeof target - 1);
    if (n < 0) {
      if (hops == 0) {
        free(cur);
        return NULL;
      }
      break;
    }
    target[n] = '\0';
    char *next;
    if (target[0] == '/') {
      next = ts_xstrdup(target);
    } else {
      char *d = dir_of(cur);
      next = ts_path_join(d, target);
      free(d);
    }
    free(cur);
    cur = next;
    if (hops == 40 || !clean_path(cur)) {
      *rc = ts_error_set(err, TS_E_UNSUPPORTED, "%s: a symlink chain this reader does not follow", python);
      free(cur);
      return NULL;
    }
  }
  return cur;
}

/* The interpreter is the pythonX.Y its pyvenv.cfg names: a link to
 * HOME/pythonX.Y (through any links), or a copy of it. */
static enum ts_code check_identity(struct venv_facts *f, struct ts_error *err)
{
  char want[32];
  snprintf(want, sizeof want, "python%d.%d", f->cfg.major, f->cfg.minor);
  enum ts_code rc;
  f->real = symlink_chain_end(f->python, err, &rc);
  if (rc != TS_OK)
    return rc;
  if (f->real) {
    /* in home: the stdlib found from home (3.11+) is the binary's own */
    const char *name = strrchr(f->real, '/') + 1;
    size_t dn = (size_t)(name - 1 - f->real);
    if (strcmp(name, want) != 0 || strlen(f->cfg.home) != dn ||
        strncmp(f->real, f->cfg.home, dn) != 0)
      return ts_error_set(err, TS_E_UNSUPPORTED, "%s does not link to pyvenv.cfg's home/%s", f->python, want);
    return TS_OK;
  }
  char *base_exe = ts_path_join(f->cfg.home, want);
  struct stat a, b;
  bool same = stat(f->python, &a) == 0 && stat(base_exe, &b) == 0 && S_ISREG(b.st_mode) &&
              a.st_size == b.st_size;
  free(base_exe);
  return same ? TS_OK : ts_error_set(err, TS_E_UNSUPPORTED, "%s is not a copy of its home's interpreter", f->python);
}

/* getpath's starting directory and what must not be beside it. */
static enum ts_code find_start(struct venv_facts *f, struct ts_error *err)
{
  if (f->cfg.minor >= 11 || !f->real) {
    f->start = ts_xstrdup(f->cfg.home);
  } else {
    /* 3.8-3.10 look for pyvenv.cfg beside the resolved binary, and above */
    f->start = dir_of(f->real);
    char *up = dir_of(f->start);
    bool cfg = exists(f->start, "pyvenv.cfg") || exists(up, "pyvenv.cfg");
    free(up);
    if (cfg)
      return ts_error_set(err, TS_E_UNSUPPORTED, "%s: the base interpreter's directory has a pyvenv.cfg", f->python);
  }
  if (exists(f->start, "pybuilddir.txt") || exists(f->start, "Modules/Setup.local"))
    return ts_error_set(err, TS_E_UNSUPPORTED, "%s runs from a CPython build tree", f->start);
  /* ._pth beside the venv's, the resolved and the home interpreter */
  const char *bins[] = {f->python, f->real, NULL, NULL, NULL};
  char name[32];
  snprintf(name, sizeof name, "python%d.%d", f->cfg.major, f->cfg.minor);
  char *h1 = ts_path_join(f->cfg.home, strrchr(f->python, '/') + 1);
  char *h2 = ts_path_join(f->cfg.home, name);
  char *h3 = ts_path_join(f->cfg.home, "python3");
  bins[2] = h1, bins[3] = h2, bins[4] = h3;
  enum ts_code rc = TS_OK;
  for (size_t i = 0; i < 5 && rc == TS_OK; i++) {
    if (!bins[i])
      continue;
    char *pth = ts_xasprintf("%s._pth", bins[i]);
    struct stat st;
    if (lstat(pth, &st) == 0 || errno != ENOENT)
      rc = ts_error_set(err, TS_E_UNSUPPORTED, "%s exists: its sys.path is its own", pth);
    free(pth);
  }
  free(h1);
  free(h2);
  free(h3);
  return rc;
}

/* getpath's search up from start for lib/pythonX.Y/os.py; a
 * lib/pythonXY.zip on the way (3.11+ search it first; all put it first on
 * sys.path) is not followed. */
static enum ts_code find_base_prefix(struct venv_facts *f, struct ts_error *err)
{
  char zip[32], os_py[48], os_pyc[48];
  snprintf(zip, sizeof zip, "lib/python%d%d.zip", f->cfg.major, f->cfg.minor);
  snprintf(os_py, sizeof os_py, "%s/os.py", f->lib);
  snprintf(os_pyc, sizeof os_pyc, "%s/os.pyc", f->lib);
  char *d = ts_xstrdup(f->start);
  for (;;) {
    if (exists(d, zip)) {
      enum ts_code rc = ts_error_set(err, TS_E_UNSUPPORTED, "%s has a zipped standard library", d);
      free(d);
      return rc;
    }
    if (is_regular(d, os_py) || is_regular(d, os_pyc))
      break;
    if (strcmp(d, "/") == 0) {
      free(d);
      return ts_error_set(err, TS_E_UNSUPPORTED, "no standard library above %s", f->start);
    }
    char *up = dir_of(d);
    free(d);
    d = up;
  }
  if (strcmp(d, "/") == 0) {
    free(d);
    return ts_error_set(err, TS_E_UNSUPPORTED, "%s: the base prefix would be /", f->python);
  }
  f->base = d;
  return TS_OK;
}

/* Every _sysconfigdata_*.py of the stdlib is one file (Debian has two
 * names for it); that file's path into *path. */
static enum ts_code find_sysconfigdata(const char *stdlib, char **path, struct ts_error *err)
{
  *path = NULL;
  DIR *dir = opendir(stdlib);
  if (!dir)
    return ts_error_set(err, TS_E_UNSUPPORTED, "cannot list %s", stdlib);
  struct stat first = {0};
  enum ts_code rc = TS_OK;
  struct dirent *e;
  while (rc == TS_OK && (e = readdir(dir))) {
    size_t n = strlen(e->d_name);
    if (strncmp(e->d_name, "_sysconfigdata_", 15) != 0 || n < 4 ||
        strcmp(e->d_name + n - 3, ".py") != 0)
      continue;
    char *p = ts_path_join(stdlib, e->d_name);
    struct stat st;
    if (stat(p, &st) != 0 || !S_ISREG(st.st_mode) ||
        (*path && (st.st_dev != first.st_dev || st.st_ino != first.st_ino))) {
      rc = ts_error_set(err, TS_E_UNSUPPORTED, "%s holds more than one _sysconfigdata", stdlib);
      free(p);
    } else if (*path) {
      /* the names are links to one file: keep the lexically first */
      if (strcmp(p, *path) < 0) {
        free(*path);
        *path = p;
      } else {
        free(p);
      }
    } else {
      *path = p;
      first = st;
    }
  }
  closedir(dir);
  if (rc == TS_OK && !*path)
    rc = ts_error_set(err, TS_E_UNSUPPORTED, "%s has no _sysconfigdata", stdlib);
  if (rc != TS_OK) {
    free(*path);
    *path = NULL;
  }
  return rc;
}

/* The build's configuration, checked to be an ordinary CPython of the
 * venv's version; its ABI tag ("cp312", as the probe derives it from
 * EXT_SUFFIX) into abi. */
static enum ts_code read_build(const struct venv_facts *f, char abi[16], struct ts_error *err)
{
  char *stdlib = ts_path_join(f->base, f->lib);
  char *path = NULL;
  enum ts_code rc = find_sysconfigdata(stdlib, &path, err);
  free(stdlib);
  if (rc != TS_OK)
    return rc;
  struct ts_buf text;
  rc = read_small(path, &text, err);
  struct ts_sysconfigdata d = {0};
  if (rc == TS_OK)
    rc = ts_sysconfigdata_scan(text.data, text.len, &d, err);
  ts_buf_clear(&text);
  if (rc != TS_OK) {
    free(path);
    return rc;
  }
  const char *name = strrchr(path, '/') + 1;
  char *upstream = ts_xasprintf("_sysconfigdata_%s_linux_%s.py", d.abiflags, d.multiarch);
  char *debian = ts_xasprintf("_sysconfigdata_%s_%s.py", d.abiflags, d.multiarch);
  char version[16], ext[160];
  snprintf(version, sizeof version, "%d.%d", f->cfg.major, f->cfg.minor);
  snprintf(ext, sizeof ext, ".cpython-%d%d-%s.so", f->cfg.major, f->cfg.minor, d.multiarch);
  snprintf(abi, 16, "cp%d%d", f->cfg.major, f->cfg.minor);
  const char *bad = NULL;
  if (strcmp(name, upstream) != 0 && strcmp(name, debian) != 0)
    bad = "is not named after its ABIFLAGS and MULTIARCH";
  else if (d.abiflags[0] || d.gil_disabled || d.debug)
    bad = "is of a debug or free-threaded build";
  else if (strcmp(d.version, version) != 0)
    bad = "is of another Python version than pyvenv.cfg";
  else if (strcmp(d.ext_suffix, ext) != 0 || strchr(d.multiarch, '/'))
    bad = "has an unexpected EXT_SUFFIX";
  else if (f->cfg.minor >= 9 ? !d.platlibdir || strcmp(d.platlibdir, "lib") != 0
                             : d.platlibdir != NULL)
    bad = "has a PLATLIBDIR other than lib";
  char *why = bad ? ts_xasprintf("%s %s", path, bad) : NULL;
  free(upstream);
  free(debian);
  free(path);
  ts_sysconfigdata_clear(&d);
  if (why) {
    rc = ts_error_set(err, TS_E_UNSUPPORTED, "%s", why);
    free(why);
  }
  return rc;
}

/* python_full_version from patchlevel.h, which must agree with pyvenv.cfg. */
static enum ts_code read_patchlevel(struct venv_facts *f, struct ts_error *err)
{
  char *path = ts_xasprintf("%s/include/python%d.%d/patchlevel.h", f->base, f->cfg.major,
                            f->cfg.minor);
  struct ts_buf text;
  enum ts_code rc = read_small(path, &text, err);
  if (rc == TS_OK)
    rc = ts_patchlevel_version(text.data, text.len, f->full_version, err);
  ts_buf_clear(&text);
  char want[32];
  snprintf(want, sizeof want, "%d.%d.%d", f->cfg.major, f->cfg.minor, f->cfg.micro);
  size_t n = strlen(want);
  if (rc == TS_OK && (strncmp(f->full_version, want, n) != 0 ||
                      (f->full_version[n] >= '0' && f->full_version[n] <= '9')))
    rc = ts_error_set(err, TS_E_UNSUPPORTED, "%s disagrees with pyvenv.cfg's version", path);
  free(path);
  return rc;
}

/* The venv's own files: where it is, its pyvenv.cfg, its interpreter. */
static enum ts_code read_venv(struct venv_facts *f, struct ts_error *err)
{
  if (!clean_path(f->python))
    return ts_error_set(err, TS_E_UNSUPPORTED, "'%s' is not a clean absolute path", f->python);
  char *bin = dir_of(f->python);
  bool in_bin = strcmp(bin, "/bin") != 0 && strlen(bin) > 4 &&
                strcmp(bin + strlen(bin) - 4, "/bin") == 0;
  f->venv = in_bin ? dir_of(bin) : NULL;
  bool stray = in_bin && exists(bin, "pyvenv.cfg");
  free(bin);
  if (!in_bin || stray)
    return ts_error_set(err, TS_E_UNSUPPORTED, "%s is not VENV/bin/NAME of a venv", f->python);
  char *cfg_path = ts_path_join(f->venv, "pyvenv.cfg");
  struct ts_buf text;
  enum ts_code rc = read_small(cfg_path, &text, err);
  if (rc == TS_OK)
    rc = ts_pyvenv_cfg_parse(text.data ? text.data : "", text.len, &f->cfg, err);
  ts_buf_clear(&text);
  free(cfg_path);
  if (rc != TS_OK)
    return rc;
  if (f->cfg.major != 3 || f->cfg.minor < MIN_MINOR || f->cfg.minor > MAX_MINOR)
    return ts_error_set(err, TS_E_UNSUPPORTED, "%s: a Python version whose startup this reader does not know", f->python);
  if (!clean_path(f->cfg.home))
    return ts_error_set(err, TS_E_UNSUPPORTED, "%s: pyvenv.cfg's home is not a clean absolute path", f->python);
  snprintf(f->lib, sizeof f->lib, "lib/python%d.%d", f->cfg.major, f->cfg.minor);
  rc = check_elf(f->python, err);
  if (rc == TS_OK)
    rc = check_identity(f, err);
  return rc;
}

/* The probe's norm(): packaging's tag normalisation of the arch. */
static void norm(char *s)
{
  for (; *s; s++)
    if (*s >= 'A' && *s <= 'Z')
      *s = (char)(*s - 'A' + 'a');
    else if (*s == '-' || *s == '.' || *s == ' ')
      *s = '_';
}

/* "3.13.0rc1" -> "3.13.0c1": fv(sys.implementation.version). */
static void implementation_version(const char *full, char out[32])
{
  snprintf(out, 32, "%s", full);
  char *rc = strstr(out, "rc");
  if (rc)
    memmove(rc, rc + 1, strlen(rc));
}

static cJSON *add_object(cJSON *o, const char *key)
{
  cJSON *c = cJSON_AddObjectToObject(o, key);
  if (!c)
    abort();
  return c;
}

static void add(cJSON *o, const char *key, const char *value)
{
  if (!cJSON_AddStringToObject(o, key, value))
    abort();
}

static char *probe_json(const struct venv_facts *f, const struct utsname *u, const char *libc,
                        const char *abi)
{
  char machine[sizeof u->machine], impl[32], short_v[16], path[PATH_MAX + 64];
  snprintf(machine, sizeof machine, "%s", u->machine);
  for (char *s = machine; *s; s++)
    *s = *s == ' ' ? '_' : *s == '/' ? '-' : *s; /* sysconfig.get_platform() */
  norm(machine);
  implementation_version(f->full_version, impl);
  snprintf(short_v, sizeof short_v, "%d.%d", f->cfg.major, f->cfg.minor);
  cJSON *o = cJSON_CreateObject();
  if (!o)
    abort();
  cJSON_AddNumberToObject(o, "probe", 1);
  cJSON *m = add_object(o, "markers");
  const char *names[] = {"implementation_name", "implementation_version", "os_name",
                         "platform_machine", "platform_python_implementation",
                         "platform_release", "platform_system", "platform_version",
                         "python_full_version", "python_version", "sys_platform"};
  const char *values[] = {"cpython", impl, "posix", u->machine, "CPython", u->release,
                          u->sysname, u->version, f->full_version, short_v, "linux"};
  for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
    add(m, names[i], values[i]);
  const int vi[] = {f->cfg.major, f->cfg.minor, f->cfg.micro};
  cJSON_AddItemToObject(o, "version_info", cJSON_CreateIntArray(vi, 3));
  add(o, "implementation", "cp");
  add(o, "abiflags", "");
  cJSON_AddFalseToObject(o, "gil_disabled");
  add(o, "abi_tag", abi);
  const char *lc[] = {"glibc", libc};
  cJSON_AddItemToObject(o, "libc", cJSON_CreateStringArray(lc, 2));
  add(o, "tag_arch", machine);
  cJSON *p = add_object(o, "paths");
  snprintf(path, sizeof path, "%s/%s/site-packages", f->venv, f->lib);
  add(p, "purelib", path);
  add(p, "platlib", path);
  snprintf(path, sizeof path, "%s/bin", f->venv);
  add(p, "scripts", path);
  add(p, "data", f->venv);
  snprintf(path, sizeof path, "%s/include/python%s", f->base, short_v);
  add(p, "include", path);
  add(o, "prefix", f->venv);
  add(o, "base_prefix", f->base);
  add(o, "executable", f->python);
  return ts_json_print_and_delete(o);
}

/* This process's machine and glibc (the interpreter's, check_elf made sure). */
static enum ts_code host_facts(struct utsname *u, char libc[32], struct ts_error *err)
{
  static const char *const env[] = {"_PYTHON_SYSCONFIGDATA_NAME", "_PYTHON_HOST_PLATFORM",
                                    "_PYTHON_PROJECT_BASE"};
  for (size_t i = 0; i < 3; i++)
    if (getenv(env[i]))
      return ts_error_set(err, TS_E_UNSUPPORTED, "%s is set", env[i]);
  char buf[24];
  size_t n = confstr(_CS_GNU_LIBC_VERSION, buf, sizeof buf);
  if (uname(u) != 0 || strcmp(u->sysname, "Linux") != 0 || n == 0 || n > sizeof buf ||
      strncmp(buf, "glibc ", 6) != 0 || strchr(buf + 6, ' '))
    return ts_error_set(err, TS_E_UNSUPPORTED, "%s", "this system is not Linux with glibc");
  snprintf(libc, 32, "%s", buf + 6);
  return TS_OK;
}

enum ts_code ts_venv_read_probe_json(const char *python_path, char **json,
                                     struct ts_error *err)
{
  *json = NULL;
  struct venv_facts f = {.python = python_path};
  struct utsname u;
  char libc[32], abi[16];
  enum ts_code rc = host_facts(&u, libc, err);
  if (rc == TS_OK)
    rc = read_venv(&f, err);
  if (rc == TS_OK)
    rc = find_start(&f, err);
  if (rc == TS_OK)
    rc = find_base_prefix(&f, err);
  if (rc == TS_OK && f.cfg.minor == 13 && exists(f.base, "lib/python3.13t"))
    rc = ts_error_set(err, TS_E_UNSUPPORTED, "%s also holds a free-threaded 3.13t", f.base);
  if (rc == TS_OK)
    rc = read_build(&f, abi, err);
  if (rc == TS_OK)
    rc = read_patchlevel(&f, err);
  if (rc == TS_OK)
    *json = probe_json(&f, &u, libc, abi);
  venv_facts_clear(&f);
  return rc;
}
