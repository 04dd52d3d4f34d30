/*
 * target/target.c — probing an interpreter, cross-target specs, locating
 * the venv.
 */
#include "target/target.h"

#include <cjson/cJSON.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>

#include "core/alloc.h"
#include "core/buf.h"
#include "core/cacheroot.h"
#include "core/fs.h"
#include "core/json_doc.h"
#include "core/sha256.h"
#include "core/proc.h"
#include "core/str.h"
#include "target/venvread.h"


#define PROBE_TIMEOUT_MS 30000
#define PROBE_STDERR_MAX 4096
/* Bumped whenever the script's output changes, so old cache entries are
 * never read with new expectations. */
#define PROBE_FORMAT 1

/* Runs under `python -I` (no PYTHON* variables, no user site, no cwd on
 * sys.path) so the answer describes the interpreter, not the shell.  It
 * mirrors what packaging.markers.default_environment and packaging.tags
 * compute, and prints one JSON object.  It imports neither json nor (on
 * CPython) platform, which with the re they import were a third of the
 * probe's CPU time, and the probe is a third of a first run's: on CPython
 * os.uname() and sys.version are what platform reads, and `enc` writes what
 * json.dumps would (ASCII, the same separators). */
static const char probe_script[] =
    "import os, sys, sysconfig\n"
    "def fv(i):\n"
    "    v = '%d.%d.%d' % (i.major, i.minor, i.micro)\n"
    "    if i.releaselevel != 'final':\n"
    "        v += i.releaselevel[0] + str(i.serial)\n"
    "    return v\n"
    "def libc():\n"
    "    try:\n"
    "        s = os.confstr('CS_GNU_LIBC_VERSION')\n"
    "        if s:\n"
    "            return ['glibc', s.split()[1]]\n"
    "    except (AttributeError, OSError, ValueError, IndexError):\n"
    "        pass\n"
    "    try:\n"
    "        import glob, subprocess\n"
    "        for ld in glob.glob('/lib/ld-musl-*.so.1'):\n"
    "            p = subprocess.run([ld], stdout=subprocess.DEVNULL,\n"
    "                               stderr=subprocess.PIPE)\n"
    "            for line in p.stderr.decode('utf-8', 'replace').splitlines():\n"
    "                if line.startswith('Version '):\n"
    "                    return ['musl', line.split()[1]]\n"
    "    except Exception:\n"
    "        pass\n"
    "    return ['', '']\n"
    "def norm(s):\n"
    "    return s.lower().replace('-', '_').replace('.', '_').replace(' ', '_')\n"
    "def enc(v):\n"
    "    if v is None or v is True or v is False:\n"
    "        return {None: 'null', True: 'true', False: 'false'}[v]\n"
    "    if isinstance(v, int):\n"
    "        return str(v)\n"
    "    if isinstance(v, dict):\n"
    "        return '{' + ', '.join(enc(k) + ': ' + enc(x) for k, x in v.items()) + '}'\n"
    "    if isinstance(v, (list, tuple)):\n"
    "        return '[' + ', '.join(enc(x) for x in v) + ']'\n"
    "    out = []\n"
    "    for c in v:\n"
    "        o = ord(c)\n"
    "        if c == '\"' or c == '\\\\':\n"
    "            out.append('\\\\' + c)\n"
    "        elif 32 <= o < 127:\n"
    "            out.append(c)\n"
    "        elif o > 0xffff:\n"
    "            o -= 0x10000\n"
    "            out.append('\\\\u%04x\\\\u%04x' % (0xd800 + (o >> 10), 0xdc00 + (o & 0x3ff)))\n"
    "        else:\n"
    "            out.append('\\\\u%04x' % o)\n"
    "    return '\"' + ''.join(out) + '\"'\n"
    "impl = sys.implementation.name\n"
    "if impl == 'cpython' and hasattr(os, 'uname'):\n"
    "    u = os.uname()\n"
    "    un = (u.sysname, u.release, u.version, u.machine)\n"
    "    pyimpl, full = 'CPython', sys.version.split()[0]\n"
    "else:\n"
    "    import platform\n"
    "    un = (platform.system(), platform.release(), platform.version(), platform.machine())\n"
    "    pyimpl, full = platform.python_implementation(), platform.python_version()\n"
    "short = {'python': 'py', 'cpython': 'cp', 'pypy': 'pp',\n"
    "         'ironpython': 'ip', 'jython': 'jy'}.get(impl, impl)\n"
    "plat = sysconfig.get_platform()\n"
    "arch = norm(plat.split('-', 1)[1] if '-' in plat else un[3])\n"
    "if sys.maxsize <= 2 ** 32:\n"
    "    arch = {'x86_64': 'i686', 'aarch64': 'armv8l'}.get(arch, arch)\n"
    "ext = sysconfig.get_config_var('EXT_SUFFIX') or ''\n"
    "soabi = ext.split('.')[1] if ext.count('.') >= 2 else ''\n"
    "if soabi.startswith('cpython'):\n"
    "    abi = 'cp' + soabi.split('-')[1]\n"
    "elif soabi.startswith('pypy'):\n"
    "    abi = '-'.join(soabi.split('-')[:2])\n"
    "elif soabi.startswith('graalpy'):\n"
    "    abi = '-'.join(soabi.split('-')[:3])\n"
    "else:\n"
    "    abi = soabi\n"
    "paths = sysconfig.get_paths()\n"
    "print(enc({\n"
    "    'probe': 1,\n"
    "    'markers': {\n"
    "        'implementation_name': impl,\n"
    "        'implementation_version': fv(sys.implementation.version),\n"
    "        'os_name': os.name,\n"
    "        'platform_machine': un[3],\n"
    "        'platform_python_implementation': pyimpl,\n"
    "        'platform_release': un[1],\n"
    "        'platform_system': un[0],\n"
    "        'platform_version': un[2],\n"
    "        'python_full_version': full,\n"
    "        'python_version': '.'.join(full.split('.')[:2]),\n"
    "        'sys_platform': sys.platform,\n"
    "    },\n"
    "    'version_info': list(sys.version_info[:3]),\n"
    "    'implementation': short,\n"
    "    'abiflags': getattr(sys, 'abiflags', ''),\n"
    "    'gil_disabled': bool(sysconfig.get_config_var('Py_GIL_DISABLED')),\n"
    "    'abi_tag': norm(abi),\n"
    "    'libc': libc(),\n"
    "    'tag_arch': arch,\n"
    "    'paths': {k: paths.get(k) for k in\n"
    "              ('purelib', 'platlib', 'scripts', 'data', 'include')},\n"
    "    'prefix': sys.prefix,\n"
    "    'base_prefix': getattr(sys, 'base_prefix', sys.prefix),\n"
    "    'executable': sys.executable,\n"
    "}))\n";

const char *ts_target_probe_script(void) { return probe_script; }

/* Order of struct ts_marker_env's members, for filling it generically. */
static const char *const marker_names[11] = {
    "implementation_name", "implementation_version", "os_name",
    "platform_machine", "platform_python_implementation", "platform_release",
    "platform_system", "platform_version", "python_full_version",
    "python_version", "sys_platform"};

static const char **marker_slot(struct ts_marker_env *env, size_t i)
{
  const char **slots[11] = {
      &env->implementation_name, &env->implementation_version,
      &env->os_name, &env->platform_machine,
      &env->platform_python_implementation, &env->platform_release,
      &env->platform_system, &env->platform_version,
      &env->python_full_version, &env->python_version, &env->sys_platform};
  return slots[i];
}

static void set_marker(struct ts_target *t, size_t i, const char *value)
{
  free(t->owned_markers[i]);
  t->owned_markers[i] = ts_xstrdup(value);
  *marker_slot(&t->markers, i) = t->owned_markers[i];
}

void ts_target_free(struct ts_target *t)
{
  if (!t)
    return;
  for (size_t i = 0; i < 11; i++)
    free(t->owned_markers[i]);
  free(t->implementation);
  free(t->abi_flags);
  free(t->tag_arch);
  ts_tagset_free(t->tags);
  free(t->paths.purelib);
  free(t->paths.platlib);
  free(t->paths.scripts);
  free(t->paths.data);
  free(t->paths.include);
  free(t->paths.prefix);
  free(t->paths.base_prefix);
  free(t->python);
  free(t->executable);
  free(t);
}

static struct ts_target *target_new(void)
{
  struct ts_target *t = ts_xcalloc(1, sizeof *t);
  return t;
}

/* Parses "N" at *s (at most 9 digits) and advances; false if no digit. */
static bool parse_uint(const char **s, int *out)
{
  int v = 0, n = 0;
  while (**s >= '0' && **s <= '9') {
    if (++n > 9)
      return false;
    v = v * 10 + (**s - '0');
    (*s)++;
  }
  *out = v;
  return n > 0;
}

/* "2.36" -> 2, 36; trailing ".N" parts are ignored (glibc "2.36.1"). */
static bool parse_major_minor(const char *s, int *major, int *minor)
{
  if (!parse_uint(&s, major) || *s++ != '.' || !parse_uint(&s, minor))
    return false;
  return *s == '\0' || *s == '.';
}

static enum ts_code build_tags(struct ts_target *t, const char *abi_tag,
                               struct ts_error *err)
{
  struct ts_tag_target tt = {
      .python_major = t->python_major,
      .python_minor = t->python_minor,
      .implementation = t->implementation,
      .abi_flags = t->abi_flags,
      .abi_tag = abi_tag,
      .libc = t->libc,
      .libc_major = t->libc_major,
      .libc_minor = t->libc_minor,
      .arch = t->tag_arch,
      .os = t->os,
      .macos_major = t->macos_major,
      .macos_minor = t->macos_minor,
  };
  return ts_tagset_build(&tt, &t->tags, err);
}

/* ---- JSON from the probe ---------------------------------------------- */

static const char *jstr(const cJSON *o, const char *key)
{
  const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);
  return cJSON_IsString(v) ? v->valuestring : NULL;
}

static char *json_string_copy(const cJSON *o, const char *key)
{
  const char *s = jstr(o, key);
  return s ? ts_xstrdup(s) : NULL;
}

enum ts_code ts_target_from_json(const char *json, size_t len,
                                 const char *python_path,
                                 struct ts_target **out, struct ts_error *err)
{
  *out = NULL;
  if (len > TS_CAP_SMALL_FILE)
    return ts_error_set(err, TS_E_TOO_BIG, "interpreter probe output is too big");
  cJSON *root = cJSON_ParseWithLength(json, len);
  if (!root || !cJSON_IsObject(root)) {
    cJSON_Delete(root);
    return ts_error_set(err, TS_E_PYTHON,
                        "the interpreter probe printed no JSON object");
  }
  struct ts_target *t = target_new();
  enum ts_code rc = TS_E_PYTHON;
  const char *what = NULL;
  const cJSON *markers = cJSON_GetObjectItemCaseSensitive(root, "markers");
  const cJSON *vi = cJSON_GetObjectItemCaseSensitive(root, "version_info");
  const cJSON *libc = cJSON_GetObjectItemCaseSensitive(root, "libc");
  const cJSON *paths = cJSON_GetObjectItemCaseSensitive(root, "paths");
  const cJSON *probe = cJSON_GetObjectItemCaseSensitive(root, "probe");

  if (!cJSON_IsNumber(probe) || probe->valueint != PROBE_FORMAT) {
    what = "probe format";
    goto fail;
  }
  for (size_t i = 0; i < 11; i++) {
    const char *v = jstr(markers, marker_names[i]);
    if (!v) {
      what = marker_names[i];
      goto fail;
    }
    set_marker(t, i, v);
  }
  if (cJSON_GetArraySize(vi) < 2 ||
      !cJSON_IsNumber(cJSON_GetArrayItem(vi, 0)) ||
      !cJSON_IsNumber(cJSON_GetArrayItem(vi, 1))) {
    what = "version_info";
    goto fail;
  }
  t->python_major = cJSON_GetArrayItem(vi, 0)->valueint;
  t->python_minor = cJSON_GetArrayItem(vi, 1)->valueint;
  if (cJSON_IsNumber(cJSON_GetArrayItem(vi, 2)))
    t->python_micro = cJSON_GetArrayItem(vi, 2)->valueint;
  t->implementation = json_string_copy(root, "implementation");
  t->abi_flags = json_string_copy(root, "abiflags");
  t->tag_arch = json_string_copy(root, "tag_arch");
  if (!t->implementation || !t->abi_flags || !t->tag_arch) {
    what = "implementation, abiflags or tag_arch";
    goto fail;
  }
  /* Free-threaded builds report "t" in abiflags; keep it if an older
   * interpreter only said so through Py_GIL_DISABLED. */
  if (cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(root, "gil_disabled")) &&
      !strchr(t->abi_flags, 't')) {
    size_t n = strlen(t->abi_flags);
    char *f = ts_xmalloc(n + 2);
    f[0] = 't';
    memcpy(f + 1, t->abi_flags, n + 1);
    free(t->abi_flags);
    t->abi_flags = f;
  }
  const char *libc_name = cJSON_IsString(cJSON_GetArrayItem(libc, 0))
                              ? cJSON_GetArrayItem(libc, 0)->valuestring : "";
  const char *libc_ver = cJSON_IsString(cJSON_GetArrayItem(libc, 1))
                             ? cJSON_GetArrayItem(libc, 1)->valuestring : "";
  t->libc = TS_LIBC_NONE;
  if (strcmp(libc_name, "glibc") == 0 || strcmp(libc_name, "musl") == 0) {
    if (!parse_major_minor(libc_ver, &t->libc_major, &t->libc_minor)) {
      what = "libc version";
      goto fail;
    }
    t->libc = libc_name[0] == 'g' ? TS_LIBC_GLIBC : TS_LIBC_MUSL;
  }
  t->paths.purelib = json_string_copy(paths, "purelib");
  t->paths.platlib = json_string_copy(paths, "platlib");
  t->paths.scripts = json_string_copy(paths, "scripts");
  t->paths.data = json_string_copy(paths, "data");
  t->paths.include = json_string_copy(paths, "include");
  t->paths.prefix = json_string_copy(root, "prefix");
  t->paths.base_prefix = json_string_copy(root, "base_prefix");
  t->executable = json_string_copy(root, "executable");
  if (!t->paths.purelib || !t->paths.platlib || !t->paths.scripts ||
      !t->paths.data || !t->paths.prefix || !t->paths.base_prefix) {
    what = "sysconfig paths";
    goto fail;
  }
  t->is_venv = strcmp(t->paths.prefix, t->paths.base_prefix) != 0;
  if (python_path)
    t->python = ts_xstrdup(python_path);
  rc = build_tags(t, jstr(root, "abi_tag"), err);
  if (rc != TS_OK) {
    ts_error_wrap(err, "interpreter %s", python_path ? python_path : "");
    goto out;
  }
  cJSON_Delete(root);
  *out = t;
  return TS_OK;
fail:
  rc = ts_error_set(err, TS_E_PYTHON,
                    "the interpreter probe of %s gave no valid %s",
                    python_path ? python_path : "(json)", what);
out:
  cJSON_Delete(root);
  ts_target_free(t);
  return rc;
}

/* ---- running the interpreter ------------------------------------------ */

/* Runs `python ARGS...` (argv[0] is the path), collecting stdout into
 * out; a non-zero exit or a signal is an error naming the last line of
 * stderr.  A child killed by SIGINT (Ctrl-C reaches the whole process
 * group), or a Python that died of an unhandled KeyboardInterrupt, is
 * TS_E_INTERRUPTED: the user stopped us, the interpreter is fine. */
static enum ts_code run_python(const char *python, char *const argv[],
                               struct ts_buf *out, struct ts_error *err)
{
  struct ts_proc_options po = {.stderr_mode = TS_PROC_STDERR_CAPTURE,
                               .timeout_ms = PROBE_TIMEOUT_MS,
                               .stdout_cap = out->max,
                               .stderr_cap = PROBE_STDERR_MAX};
  struct ts_proc_result pr;
  enum ts_code rc = ts_proc_run(argv, &po, &pr, err);
  if (rc != TS_OK) {
    ts_proc_result_clear(&pr);
    return ts_error_set(err, TS_E_PYTHON, "%s", err->detail);
  }
  if (pr.timed_out) {
    rc = ts_error_set(err, TS_E_PYTHON, "%s did not answer within %d s",
                      python, PROBE_TIMEOUT_MS / 1000);
  } else if (pr.too_big) {
    rc = ts_error_set(err, TS_E_PYTHON, "%s printed too much", python);
  } else if (!ts_proc_succeeded(&pr)) {
    /* The last line of stderr is usually the Python exception. */
    const char *msg = pr.err.data ? pr.err.data : "";
    size_t n = pr.err.len;
    while (n > 0 && (msg[n - 1] == '\n' || msg[n - 1] == '\r'))
      n--;
    size_t start = n;
    while (start > 0 && msg[start - 1] != '\n')
      start--;
    bool keyboard = n - start == 17 && memcmp(msg + start, "KeyboardInterrupt", 17) == 0;
    if ((!pr.exited && pr.signal == SIGINT) || keyboard)
      rc = ts_error_set(err, TS_E_INTERRUPTED,
                        "interrupted while probing the interpreter %s", python);
    else if (pr.exited)
      rc = ts_error_set(err, TS_E_PYTHON, "%s exited with status %d%s%.*s",
                        python, pr.exit_code, n ? ": " : "",
                        (int)(n - start > TS_ERROR_QUOTE_MAX ? TS_ERROR_QUOTE_MAX : n - start), msg + start);
    else
      rc = ts_error_set(err, TS_E_PYTHON, "%s was killed by signal %d",
                        python, pr.signal);
  } else {
    ts_buf_clear(out);
    *out = pr.out;
    pr.out = (struct ts_buf){0};
  }
  ts_proc_result_clear(&pr);
  return rc;
}

static enum ts_code run_probe(const char *python, struct ts_buf *out,
                              struct ts_error *err)
{
  char *argv[] = {(char *)python, "-I", "-c", (char *)probe_script, NULL};
  return run_python(python, argv, out, err);
}

/* After a failed probe: whether the program is a Python 3 at all, so that
 * `--python /bin/ls` or a Python 2 is named as such instead of quoting
 * what it printed about the probe's arguments.  The question is one every
 * Python (2 included, which has no -I) answers; anything else, an error
 * included, is "not Python".  Writes "X.Y" into version (or "") and
 * returns whether X is 3. */
static bool is_python3(const char *python, char version[16])
{
  static const char ask[] =
      "import sys; sys.stdout.write('%d.%d' % tuple(sys.version_info[:2]))";
  char *argv[] = {(char *)python, "-E", "-s", "-c", (char *)ask, NULL};
  struct ts_buf out;
  ts_buf_init(&out, 64);
  struct ts_error ignore = {0};
  enum ts_code rc = run_python(python, argv, &out, &ignore);
  version[0] = '\0';
  size_t n = out.len;
  bool shaped = rc == TS_OK && n >= 3 && n < 16;
  for (size_t i = 0; shaped && i < n; i++)
    shaped = (out.data[i] >= '0' && out.data[i] <= '9') || (out.data[i] == '.' && i > 0);
  if (shaped)
    snprintf(version, 16, "%.*s", (int)n, out.data);
  ts_buf_clear(&out);
  return shaped && version[0] == '3' && version[1] == '.';
}

/* ---- cache -------------------------------------------------------------- */

static char *absolute_path(const char *p)
{
  if (p[0] == '/')
    return ts_xstrdup(p);
  char cwd[PATH_MAX];
  if (!getcwd(cwd, sizeof cwd))
    return ts_xstrdup(p);
  return ts_path_join(cwd, p);
}

static void hash_stat(struct ts_buf *key, const char *path)
{
  struct stat st;
  if (stat(path, &st) == 0) {
    ts_buf_xprintf(key, "%s\n%lld.%09ld\n%lld\n", path,
                   (long long)st.st_mtim.tv_sec, (long)st.st_mtim.tv_nsec,
                   (long long)st.st_size);
  }
}

/* Returns the malloc'd cache file path for this interpreter, or NULL. */
static char *cache_path(const char *python, const char *cache_dir)
{
  char *abs = absolute_path(python);
  char real[PATH_MAX];
  if (!realpath(abs, real)) {
    free(abs);
    return NULL;
  }
  struct ts_buf key;
  ts_buf_init(&key, 0);
  ts_buf_xprintf(&key, "probe %d\n%s\n", PROBE_FORMAT, abs);
  hash_stat(&key, real);
  /* bin/python -> ../pyvenv.cfg: a venv recreated with another base. */
  char *slash = strrchr(abs, '/');
  if (slash) {
    *slash = '\0';
    char *bin = strrchr(abs, '/');
    if (bin) {
      *bin = '\0';
      char *cfg = ts_path_join(abs[0] ? abs : "/", "pyvenv.cfg");
      hash_stat(&key, cfg);
      free(cfg);
    }
  }
  free(abs);
  uint8_t digest[TS_SHA256_LEN];
  ts_sha256(key.data, key.len, digest);
  ts_buf_clear(&key);
  char hex[TS_SHA256_HEX_LEN + 1 + 5];
  ts_sha256_hex(digest, hex);
  memcpy(hex + TS_SHA256_HEX_LEN, ".json", 6);
  char *dir = ts_path_join(cache_dir, "python");
  char *path = ts_path_join(dir, hex);
  free(dir);
  return path;
}

/* The venv directory of python (…/VENV/bin/python with VENV/pyvenv.cfg),
 * absolute but not symlink-resolved, as Python computes sys.prefix; NULL
 * when python is not in a venv. */
static char *venv_of(const char *python)
{
  char *abs = absolute_path(python);
  char *slash = strrchr(abs, '/');
  char *bin = NULL;
  if (slash) {
    *slash = '\0';
    bin = strrchr(abs, '/');
  }
  if (!bin || bin == abs || strcmp(bin, "/bin") != 0) {
    free(abs);
    return NULL;
  }
  *bin = '\0';
  char *cfg = ts_path_join(abs, "pyvenv.cfg");
  bool venv = access(cfg, R_OK) == 0;
  free(cfg);
  if (!venv) {
    free(abs);
    return NULL;
  }
  return abs;
}

/* A second entry for venv interpreters, keyed by the base binary they link
 * to: every venv made from one interpreter probes the same but for the
 * paths under its own prefix, so a new venv (one per CI job or container
 * build layer) reuses it with the prefix replaced instead of starting
 * Python (~20 ms).  A venv whose bin/python is a copy has its own binary
 * and gets its own entry. */
static char *base_cache_path(const char *python, const char *cache_dir)
{
  char real[PATH_MAX];
  if (!realpath(python, real))
    return NULL;
  struct ts_buf key;
  ts_buf_init(&key, 0);
  ts_buf_xprintf(&key, "venv-base %d\n", PROBE_FORMAT);
  hash_stat(&key, real);
  uint8_t digest[TS_SHA256_LEN];
  ts_sha256(key.data, key.len, digest);
  ts_buf_clear(&key);
  char hex[TS_SHA256_HEX_LEN + 1];
  ts_sha256_hex(digest, hex);
  char *name = ts_xasprintf("venv-base-%s.json", hex);
  char *dir = ts_path_join(cache_dir, "python");
  char *path = ts_path_join(dir, name);
  free(dir);
  free(name);
  return path;
}

/* *slot under old_prefix moves under new_prefix. */
static void reroot(char **slot, const char *old_prefix, const char *new_prefix)
{
  size_t n = strlen(old_prefix);
  if (!*slot || strncmp(*slot, old_prefix, n) != 0 || ((*slot)[n] && (*slot)[n] != '/'))
    return;
  char *moved = ts_xasprintf("%s%s", new_prefix, *slot + n);
  free(*slot);
  *slot = moved;
}

/* The target of the venv at `venv` from the probe of another venv of the
 * same base interpreter. */
static enum ts_code from_sibling_venv(const char *entry, const char *python, const char *venv,
                                      struct ts_target **out)
{
  struct ts_buf cached;
  ts_buf_init(&cached, TS_CAP_SMALL_FILE);
  enum ts_code rc = ts_fs_read_file(entry, &cached, NULL);
  if (rc == TS_OK)
    rc = ts_target_from_json(cached.data, cached.len, python, out, NULL);
  ts_buf_clear(&cached);
  if (rc != TS_OK)
    return rc;
  struct ts_target *t = *out;
  if (!t->is_venv) {
    ts_target_free(t);
    *out = NULL;
    return TS_E_PARSE;
  }
  char *old = ts_xstrdup(t->paths.prefix);
  char **slots[] = {&t->paths.purelib, &t->paths.platlib, &t->paths.scripts, &t->paths.data,
                    &t->paths.include, &t->paths.prefix, &t->executable};
  for (size_t i = 0; i < sizeof slots / sizeof slots[0]; i++)
    reroot(slots[i], old, venv);
  free(old);
  t->from_cache = true;
  return TS_OK;
}

/* Only real binaries are cached: a wrapper script (a pyenv shim) may run a
 * different interpreter tomorrow without changing itself. */
static bool is_elf(const char *path)
{
  char magic[4];
  int fd = open(path, O_RDONLY | O_CLOEXEC);
  if (fd < 0)
    return false;
  bool elf = read(fd, magic, 4) == 4 && memcmp(magic, "\x7f" "ELF", 4) == 0;
  close(fd);
  return elf;
}

enum ts_code ts_target_probe(const char *python_path, const char *cache_dir,
                             struct ts_target **out, struct ts_error *err)
{
  char *json = NULL;
  if (ts_venv_read_probe_json(python_path, &json, NULL) == TS_OK) {
    enum ts_code rc = ts_target_from_json(json, strlen(json), python_path, out, NULL);
    free(json);
    if (rc == TS_OK) {
      (*out)->from_files = true;
      return TS_OK;
    }
    /* whatever the files gave that a target cannot be made of, the
     * interpreter answers (or names) itself */
  }
  return ts_target_probe_python(python_path, cache_dir, out, err);
}

enum ts_code ts_target_probe_python(const char *python_path, const char *cache_dir,
                                    struct ts_target **out, struct ts_error *err)
{
  *out = NULL;
  struct stat st;
  if (stat(python_path, &st) != 0)
    return ts_error_set(err, TS_E_NOT_FOUND, "interpreter '%s': %s",
                        python_path, strerror(errno));
  if (!S_ISREG(st.st_mode) || access(python_path, X_OK) != 0)
    return ts_error_set(err, TS_E_PYTHON, "'%s' is not an executable file",
                        python_path);

  char *cpath = cache_dir && is_elf(python_path)
                    ? cache_path(python_path, cache_dir) : NULL;
  if (cpath) {
    struct ts_buf cached;
    ts_buf_init(&cached, TS_CAP_SMALL_FILE);
    if (ts_fs_read_file(cpath, &cached, NULL) == TS_OK &&
        ts_target_from_json(cached.data, cached.len, python_path, out,
                            NULL) == TS_OK) {
      (*out)->from_cache = true;
      ts_buf_clear(&cached);
      free(cpath);
      return TS_OK;
    }
    /* A missing or stale entry is simply probed again. */
    ts_buf_clear(&cached);
  }

  char *venv = cpath ? venv_of(python_path) : NULL;
  char *bpath = venv ? base_cache_path(python_path, cache_dir) : NULL;
  if (bpath && from_sibling_venv(bpath, python_path, venv, out) == TS_OK) {
    free(bpath);
    free(venv);
    free(cpath);
    return TS_OK;
  }

  struct ts_buf json;
  ts_buf_init(&json, TS_CAP_SMALL_FILE);
  enum ts_code rc = run_probe(python_path, &json, err);
  if (rc == TS_OK)
    rc = ts_target_from_json(json.data ? json.data : "", json.len,
                             python_path, out, err);
  char version[16];
  if (rc != TS_OK && rc != TS_E_INTERRUPTED && !is_python3(python_path, version))
    rc = version[0]
             ? ts_error_set(err, TS_E_PYTHON,
                            "'%s' is Python %s, not a Python 3 interpreter",
                            python_path, version)
             : ts_error_set(err, TS_E_PYTHON, "'%s' is not a Python 3 interpreter",
                            python_path);
  if (rc == TS_OK && cpath) {
    /* The cache is an optimisation: failing to write it is not an error. */
    char *dir = ts_path_join(cache_dir, "python");
    ts_cache_root_prepare(cache_dir); /* marks a root we create */
    if (ts_fs_mkdirs(dir, NULL) == TS_OK) {
      (void)ts_fs_write_atomic(cpath, json.data, json.len, NULL);
      /* only when Python agrees on where the venv is */
      if (bpath && (*out)->is_venv && strcmp((*out)->paths.prefix, venv) == 0)
        (void)ts_fs_write_atomic(bpath, json.data, json.len, NULL);
    }
    free(dir);
  }
  ts_buf_clear(&json);
  free(bpath);
  free(venv);
  free(cpath);
  return rc;
}

/* ---- cross-target specs ---------------------------------------------- */

static bool arch_ok(const char *s)
{
  if (!*s || strlen(s) > 32)
    return false;
  for (; *s; s++)
    if (!((*s >= 'a' && *s <= 'z') || (*s >= '0' && *s <= '9') || *s == '_'))
      return false;
  return true;
}

/* Reads a Linux platform tag into libc facts and the arch. */
static enum ts_code parse_platform(const char *p, struct ts_target *t,
                                   struct ts_error *err)
{
  static const struct {
    const char *prefix;
    int major, minor;
  } legacy[] = {{"manylinux2014_", 2, 17},
                {"manylinux2010_", 2, 12},
                {"manylinux1_", 2, 5}};
  const char *arch = NULL;
  for (size_t i = 0; i < 3 && !arch; i++) {
    size_t n = strlen(legacy[i].prefix);
    if (strncmp(p, legacy[i].prefix, n) == 0) {
      arch = p + n;
      t->libc = TS_LIBC_GLIBC;
      t->libc_major = legacy[i].major;
      t->libc_minor = legacy[i].minor;
    }
  }
  if (!arch && (strncmp(p, "manylinux_", 10) == 0 ||
                strncmp(p, "musllinux_", 10) == 0)) {
    const char *s = p + 10;
    if (!parse_uint(&s, &t->libc_major) || *s++ != '_' ||
        !parse_uint(&s, &t->libc_minor) || *s++ != '_')
      return ts_error_set(err, TS_E_INVALID,
                          "invalid platform '%.100s': expected e.g. "
                          "manylinux_2_28_x86_64", p);
    t->libc = p[0] == 'm' && p[1] == 'a' ? TS_LIBC_GLIBC : TS_LIBC_MUSL;
    arch = s;
  }
  if (!arch && strncmp(p, "linux_", 6) == 0) {
    t->libc = TS_LIBC_NONE;
    arch = p + 6;
  }
  if (!arch && strncmp(p, "macosx_", 7) == 0) {
    const char *s = p + 7;
    if (!parse_uint(&s, &t->macos_major) || *s++ != '_' ||
        !parse_uint(&s, &t->macos_minor) || *s++ != '_' ||
        (strcmp(s, "x86_64") != 0 && strcmp(s, "arm64") != 0))
      return ts_error_set(err, TS_E_INVALID,
                          "invalid platform '%.100s': expected e.g. "
                          "macosx_14_0_arm64 or macosx_13_0_x86_64", p);
    t->os = TS_OS_MACOS;
    t->libc = TS_LIBC_NONE;
    arch = s;
  }
  if (!arch && (strcmp(p, "win_amd64") == 0 || strcmp(p, "win_arm64") == 0)) {
    t->os = TS_OS_WINDOWS;
    t->libc = TS_LIBC_NONE;
    arch = p + 4;
  }
  if (!arch) {
    if (!strncmp(p, "ios_", 4) || !strncmp(p, "android_", 8))
      return ts_error_set(err, TS_E_UNSUPPORTED,
                          "platform '%.100s': only Linux, macOS and Windows "
                          "targets are supported", p);
    return ts_error_set(err, TS_E_INVALID,
                        "unknown platform '%.100s': expected manylinux_X_Y_ARCH, "
                        "musllinux_X_Y_ARCH, linux_ARCH, macosx_X_Y_ARCH or "
                        "win_amd64/win_arm64", p);
  }
  if (!arch_ok(arch))
    return ts_error_set(err, TS_E_INVALID,
                        "invalid architecture in platform '%.100s'", p);
  t->tag_arch = ts_xstrdup(arch);
  return TS_OK;
}

/* This machine, for a spec with no --platform. */
static void host_platform(struct ts_target *t)
{
  struct utsname u;
  t->tag_arch = ts_xstrdup(uname(&u) == 0 && arch_ok(u.machine) ? u.machine
                                                              : "x86_64");
  char buf[64];
  size_t n = confstr(_CS_GNU_LIBC_VERSION, buf, sizeof buf);
  const char *v = n > 0 && n <= sizeof buf && strncmp(buf, "glibc ", 6) == 0
                      ? buf + 6 : NULL;
  if (v && parse_major_minor(v, &t->libc_major, &t->libc_minor))
    t->libc = TS_LIBC_GLIBC;
  else
    t->libc = TS_LIBC_NONE;
}

enum ts_code ts_target_from_spec(const struct ts_target_spec *spec,
                                 struct ts_target **out, struct ts_error *err)
{
  *out = NULL;
  const char *pv = spec->python_version;
  const char *s = pv ? pv : "";
  int major, minor, micro = 0;
  bool has_micro = false;
  if (!parse_uint(&s, &major) || *s++ != '.' || !parse_uint(&s, &minor))
    goto bad_version;
  if (*s == '.') {
    s++;
    if (!parse_uint(&s, &micro))
      goto bad_version;
    has_micro = true;
  }
  if (*s || major < 2 || major > 9 || minor > 99 || micro > 999)
    goto bad_version;
  (void)has_micro;

  struct ts_target *t = target_new();
  t->from_spec = true;
  t->python_major = major;
  t->python_minor = minor;
  t->python_micro = micro;
  const char *impl = spec->implementation ? spec->implementation : "cp";
  t->implementation = ts_xstrdup(impl);
  t->abi_flags = ts_xstrdup(spec->abi_flags ? spec->abi_flags : "");
  enum ts_code rc;
  if (spec->platform) {
    rc = parse_platform(spec->platform, t, err);
    if (rc != TS_OK) {
      ts_target_free(t);
      return rc;
    }
  } else {
    host_platform(t);
  }
  if (spec->sys_platform) {
    t->os = TS_OS_OTHER;
    t->libc = TS_LIBC_NONE;
  }

  char full[48], short_v[32];
  snprintf(full, sizeof full, "%d.%d.%d", major, minor, micro);
  snprintf(short_v, sizeof short_v, "%d.%d", major, minor);
  bool cp = strcmp(impl, "cp") == 0, pp = strcmp(impl, "pp") == 0;
  bool mac = t->os == TS_OS_MACOS, win = t->os == TS_OS_WINDOWS;
  const char *machine = !win ? t->tag_arch
                        : strcmp(t->tag_arch, "amd64") == 0 ? "AMD64" : "ARM64";
  const char *values[11] = {
      cp ? "cpython" : pp ? "pypy" : impl, /* implementation_name */
      full,                                /* implementation_version */
      win ? "nt" : "posix",
      machine,                             /* platform_machine */
      cp ? "CPython" : pp ? "PyPy" : impl,
      "",                                  /* platform_release: unknown */
      spec->sys_platform ? "" : mac ? "Darwin" : win ? "Windows" : "Linux",
      "",                                  /* platform_version: unknown */
      full,
      short_v,
      spec->sys_platform ? spec->sys_platform : mac ? "darwin" : win ? "win32" : "linux"};
  for (size_t i = 0; i < 11; i++)
    set_marker(t, i, values[i]);
  /* PyPy 7.3's ABI tag (pypy310_pp73), which its binary wheels carry */
  char pypy_abi[32];
  snprintf(pypy_abi, sizeof pypy_abi, "pypy%d%d_pp73", major, minor);
  rc = build_tags(t, pp ? pypy_abi : NULL, err);
  if (rc != TS_OK) {
    ts_target_free(t);
    return rc;
  }
  *out = t;
  return TS_OK;
bad_version:
  return ts_error_set(err, TS_E_INVALID,
                      "invalid Python version '%.40s': expected e.g. 3.12 or "
                      "3.12.4", pv ? pv : "");
}

char *ts_target_environment_json(const struct ts_target *t)
{
  /* packaging.markers.default_environment's insertion order. */
  static const size_t order[11] = {0, 1, 2, 3, 5, 6, 7, 8, 4, 9, 10};
  cJSON *o = cJSON_CreateObject();
  if (!o)
    abort();
  for (size_t k = 0; k < 11; k++) {
    size_t i = order[k];
    const char *v = *marker_slot((struct ts_marker_env *)&t->markers, i);
    if (!cJSON_AddStringToObject(o, marker_names[i], v ? v : ""))
      abort();
  }
  return ts_json_print_and_delete(o);
}

/* ---- locating ------------------------------------------------------------ */

static bool is_file(const char *p)
{
  struct stat st;
  return stat(p, &st) == 0 && S_ISREG(st.st_mode);
}

static bool is_dir(const char *p)
{
  struct stat st;
  return stat(p, &st) == 0 && S_ISDIR(st.st_mode);
}

/* dir/bin/python, else dir/bin/python3. */
static char *venv_python(const char *dir)
{
  static const char *const names[] = {"bin/python", "bin/python3"};
  for (size_t i = 0; i < 2; i++) {
    char *p = ts_path_join(dir, names[i]);
    if (is_file(p))
      return p;
    free(p);
  }
  return NULL;
}


enum ts_code ts_target_locate(const char *explicit_python, char **out,
                              struct ts_error *err)
{
  *out = NULL;
  if (!explicit_python) {
    /* uv's UV_PYTHON: a default interpreter for every command, below the
     * flag and above an activated venv. */
    const char *env = getenv("TORCHSOLVE_PYTHON");
    if (env && *env)
      explicit_python = env;
  }
  if (explicit_python) {
    if (is_dir(explicit_python)) {
      *out = venv_python(explicit_python);
      if (!*out)
        return ts_error_set(err, TS_E_PYTHON,
                            "'%s' is a directory without bin/python: pass an "
                            "interpreter or a virtual environment",
                            explicit_python);
      return TS_OK;
    }
    if (!strchr(explicit_python, '/')) {
      *out = ts_proc_find_program(explicit_python); /* as a shell would */
      if (*out)
        return TS_OK;
    }
    if (!is_file(explicit_python))
      return ts_error_set(err, TS_E_NOT_FOUND, "interpreter '%s' does not exist",
                          explicit_python);
    *out = ts_xstrdup(explicit_python);
    return TS_OK;
  }
  const char *venv = getenv("VIRTUAL_ENV");
  if (venv && *venv) {
    *out = venv_python(venv);
    if (!*out)
      return ts_error_set(err, TS_E_PYTHON,
                          "VIRTUAL_ENV is '%s' but it has no bin/python", venv);
    return TS_OK;
  }
  *out = venv_python(".venv");
  if (*out)
    return TS_OK;
  return ts_error_set(err, TS_E_PYTHON,
                      "no virtual environment found: pass --python PATH, "
                      "activate one, or create ./.venv with 'torchsolve venv'");
}

enum ts_code ts_target_check_externally_managed(const struct ts_target *t,
                                                struct ts_error *err) {
  if (!t || t->from_spec || t->is_venv || !t->paths.base_prefix)
    return TS_OK;
  /* sysconfig's stdlib on POSIX is <base_prefix>/lib/pythonX.Y (Debian's
   * /usr/lib/python3.11 included); the probe does not report it. */
  char marker[4200];
  snprintf(marker, sizeof marker, "%s/lib/python%d.%d/EXTERNALLY-MANAGED",
           t->paths.base_prefix, t->python_major, t->python_minor);
  FILE *f = fopen(marker, "r");
  if (!f)
    return TS_OK;
  /* The [externally-managed] Error= line, for the distributor's advice
   * (its first line only: the error stays one line). */
  char line[512], why[512] = "";
  while (fgets(line, sizeof line, f))
    if (strncmp(line, "Error", 5) == 0) {
      const char *v = strchr(line, '=');
      if (v) {
        v++;
        while (*v == ' ' || *v == '\t')
          v++;
        snprintf(why, sizeof why, " (\"%.*s\")", (int)strcspn(v, "\r\n"), v);
      }
      break;
    }
  fclose(f);
  return ts_error_set(err, TS_E_PYTHON,
                      "'%s' is externally managed%s (PEP 668, %s): create a venv "
                      "with 'torchsolve venv' and install there, or pass "
                      "--break-system-packages",
                      t->python ? t->python : "python", why, marker);
}
