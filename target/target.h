/*
 * target/target.h — everything about the environment we install for.
 *
 * A target comes from one of two places:
 *  - ts_target_probe: a real interpreter.  An ordinary CPython venv is read
 *    from its files (target/venvread.h); any other is run once with a
 *    `python -I -c` script that prints JSON (markers, sysconfig paths,
 *    libc, prefixes), cached per interpreter so later runs start no Python;
 *  - ts_target_from_spec: "--python-version 3.12 --platform
 *    manylinux_2_28_x86_64", for locking on a build machine that has no
 *    such interpreter.  There are no paths then (nothing can be installed).
 *
 * Both give marker values (pep/requirement.h) and the supported tags in
 * pip's priority order (pep/tags.h).
 */
#pragma once

#include <stdbool.h>

#include "core/error.h"
#include "pep/requirement.h"
#include "pep/tags.h"

/* sysconfig.get_paths() of the target, plus its prefixes.  All NULL for a
 * spec target. */
struct ts_target_paths {
  char *purelib;
  char *platlib;
  char *scripts;
  char *data;
  char *include;
  char *prefix;      /* sys.prefix (the venv for a venv) */
  char *base_prefix; /* sys.base_prefix */
};

struct ts_target {
  /* Marker environment; its strings point into `owned_markers` storage
   * owned by this struct. */
  struct ts_marker_env markers;
  int python_major, python_minor, python_micro;
  char *implementation;  /* short interpreter name: "cp", "pp" */
  char *abi_flags;       /* sys.abiflags: "", "t", "d" */
  enum ts_libc libc;
  int libc_major, libc_minor;
  enum ts_os os;         /* a spec's platform: Linux unless macosx_/win_ */
  int macos_major, macos_minor;
  char *tag_arch;        /* arch used in platform tags ("x86_64", "i686") */
  struct ts_tagset *tags;
  struct ts_target_paths paths;
  char *python;          /* interpreter path as located; NULL for a spec */
  char *executable;      /* sys.executable as the interpreter reports it */
  bool is_venv;          /* sys.prefix != sys.base_prefix */
  bool from_spec;
  bool from_cache;       /* probe answered from the cache, no Python run */
  bool from_files;       /* a venv read from its files (venvread.h), no Python run */
  char *owned_markers[11];
};

/* Finds the interpreter to install into: `explicit_python` (an interpreter,
 * or a venv directory whose bin/python is used) if non-NULL, else the same
 * from $TORCHSOLVE_PYTHON, else $VIRTUAL_ENV/bin/python, else
 * ./.venv/bin/python.  *out is a malloc'd
 * path the caller frees.  TS_E_PYTHON with "no virtual environment found:
 * pass --python PATH, activate one, or create ./.venv with 'torchsolve
 * venv'" when none; TS_E_NOT_FOUND when the named one does not exist.
 * A bare name ("python3.12") is looked up on $PATH. */
enum ts_code ts_target_locate(const char *explicit_python, char **out,
                              struct ts_error *err);

/* The target of the interpreter at python_path (absolute): read from the
 * files of an ordinary CPython venv when every fact there is certain
 * (target/venvread.h: nothing is run or cached then, from_files is set),
 * otherwise ts_target_probe_python.  Errors as that. */
enum ts_code ts_target_probe(const char *python_path, const char *cache_dir,
                             struct ts_target **out, struct ts_error *err);

/* Runs `python_path -I -c <probe>` once (30 s limit, output capped) and
 * builds the target.  With cache_dir non-NULL, the JSON is cached in
 * cache_dir/python/<key>.json, key = SHA-256 of the path as given, its
 * realpath, and the realpath's mtime and size (and pyvenv.cfg's mtime), so
 * a replaced interpreter or venv is probed again.  A venv's probe is also
 * kept under its base binary (venv-base-<key>.json): another venv of the
 * same base is then answered from it with its own prefix, no Python run.
 * Caller frees with
 * ts_target_free.  Errors: TS_E_PYTHON (cannot run, non-zero exit, bad
 * output; when the program then fails to answer as a Python 3 would, the
 * detail says "'PATH' is not a Python 3 interpreter", or "is Python 2.7,
 * not ..."), TS_E_INTERRUPTED (the interpreter died of SIGINT or an
 * unhandled KeyboardInterrupt: Ctrl-C reached the process group),
 * TS_E_NOT_FOUND. */
enum ts_code ts_target_probe_python(const char *python_path, const char *cache_dir,
                                    struct ts_target **out, struct ts_error *err);

/* Builds a target from the probe's JSON text (what the cache holds).
 * Exposed for tests and for reading a cached probe. */
enum ts_code ts_target_from_json(const char *json, size_t len,
                                 const char *python_path,
                                 struct ts_target **out, struct ts_error *err);

struct ts_target_spec {
  /* "3.12" or "3.12.4".  With only major.minor, python_full_version and
   * implementation_version are "X.Y.0": the lowest release of the series,
   * so a lock never assumes a bug-fix release the target may lack. */
  const char *python_version;
  /* "manylinux_2_28_x86_64", "manylinux2014_aarch64", "musllinux_1_2_x86_64",
   * "linux_x86_64", "macosx_14_0_arm64", "macosx_13_0_x86_64", "win_amd64",
   * "win_arm64"; NULL = like this host (its glibc and machine). */
  const char *platform;
  const char *implementation; /* "cp" (default when NULL) */
  /* Another system than the platform's (a sys_platform value a marker
   * names, "freebsd13"): the markers say it (platform_system ""), the
   * machine is the platform's, and only platform-independent wheels fit.
   * NULL: the platform's own. */
  const char *sys_platform;
  const char *abi_flags;      /* "" (default), "t" for free-threaded */
};

/* Cross-target: markers and tags with no interpreter.  Markers:
 * os_name "posix", sys_platform "linux", platform_system "Linux" (macOS:
 * "posix", "darwin", "Darwin"; Windows: "nt", "win32", "Windows"),
 * platform_machine from the platform's arch (Windows spells them "AMD64",
 * "ARM64"), implementation_name "cpython" ("pypy" for implementation
 * "pp"), platform_python_implementation "CPython" ("PyPy"),
 * platform_release and platform_version "" (unknown).  TS_E_INVALID for a
 * malformed version or platform, TS_E_UNSUPPORTED for other systems (ios_,
 * android_). */
enum ts_code ts_target_from_spec(const struct ts_target_spec *spec,
                                 struct ts_target **out, struct ts_error *err);

/* The target install, lock and sync share: the spec's target when spec is
 * non-NULL, else the interpreter python names (ts_target_locate's rules),
 * made absolute (launchers must name the venv's python) and probed
 * through probe_cache_dir (may be NULL).  Errors as those two. */
enum ts_code ts_target_open(const char *python, const struct ts_target_spec *spec,
                            const char *probe_cache_dir, struct ts_target **t,
                            struct ts_error *err);

/* ts_target_open for an interpreter (no spec); run_python asks it even
 * when its venv's files would answer (ts_target_probe_python). */
enum ts_code ts_target_open_python(const char *python, bool run_python,
                                   const char *probe_cache_dir, struct ts_target **t,
                                   struct ts_error *err);

void ts_target_free(struct ts_target *t);

/* The marker environment as a JSON object, keys in the order of
 * packaging's default_environment() (what pip's --report writes under
 * "environment").  malloc'd, caller frees; aborts on OOM. */
char *ts_target_environment_json(const struct ts_target *t);

/* The target as a JSON object (cJSON, the caller deletes it): source
 * ("files", "cache", "probe" or "spec"), python, files_unusable (why the
 * venv's files could not answer, null when they could), executable, version,
 * implementation, abiflags, libc ("glibc 2.36" or null), tag_arch, markers,
 * paths, prefix, base_prefix, is_venv and every supported tag in priority
 * order.  What `torchsolve detect --python PATH --json` prints. */
struct cJSON;
struct cJSON *ts_target_to_json(const struct ts_target *t);

/* One line for people: "cpython 3.12.1 (cp312) at /venv, read from its
 * files" (or "cached probe", "run").  malloc'd. */
char *ts_target_summary(const struct ts_target *t);

/* The probe script itself (for `torchsolve debug` and tests). */
const char *ts_target_probe_script(void);

/* PEP 668: an interpreter outside a venv whose stdlib directory holds
 * EXTERNALLY-MANAGED belongs to the system's package manager (Debian's
 * /usr/bin/python3): TS_E_PYTHON naming the file, its Error= text, and the
 * ways out (a venv, or --break-system-packages).  TS_OK for venvs, spec
 * targets and unmanaged interpreters.  Checked before anything is
 * installed or removed (install, sync, wheel). */
enum ts_code ts_target_check_externally_managed(const struct ts_target *t,
                                                struct ts_error *err);
