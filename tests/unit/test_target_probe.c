/* Unit tests for target/target.h: probing real interpreters on this
 * machine, the probe cache, venv location, and failure modes.  Expected
 * values come from the interpreters themselves at test time. */
#include <criterion/criterion.h>
#include <glob.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/fs.h"
#include "target/target.h"

static char tmp[256];

static void setup(void)
{
  snprintf(tmp, sizeof tmp, "/tmp/ts-target-test-XXXXXX");
  cr_assert_not_null(mkdtemp(tmp));
}

static void teardown(void) { ts_fs_remove_tree(tmp, NULL); }

TestSuite(probe, .init = setup, .fini = teardown, .timeout = 120);

/* Finds an interpreter: on $PATH first (pyenv shims may refuse versions
 * that are not selected), then in pyenv's versions. */
static char *find_python(const char *name, const char *pyenv_glob)
{
  char *p = NULL;
  char cmd[512];
  snprintf(cmd, sizeof cmd, "%s -c 'import sys; print(sys.executable)' 2>/dev/null",
           name);
  FILE *f = popen(cmd, "r");
  char line[1024] = "";
  if (f && fgets(line, sizeof line, f)) {
    line[strcspn(line, "\n")] = '\0';
    if (line[0] == '/')
      p = strdup(line);
  }
  if (f)
    pclose(f);
  if (p || !pyenv_glob)
    return p;
  glob_t g;
  const char *home = getenv("HOME");
  snprintf(cmd, sizeof cmd, "%s/.pyenv/versions/%s", home ? home : "/root",
           pyenv_glob);
  if (glob(cmd, 0, NULL, &g) == 0 && g.gl_pathc > 0)
    p = strdup(g.gl_pathv[0]);
  globfree(&g);
  return p;
}

static struct ts_target *probe(const char *python, const char *cache)
{
  struct ts_target *t = NULL;
  struct ts_error err = {0};
  cr_assert_eq(ts_target_probe(python, cache, &t, &err), TS_OK, "%s: %s",
               python, err.detail);
  return t;
}

/* The interpreter run (or its cached answer), never its venv's files. */
static struct ts_target *run_probe(const char *python, const char *cache)
{
  struct ts_target *t = NULL;
  struct ts_error err = {0};
  cr_assert_eq(ts_target_probe_python(python, cache, &t, &err), TS_OK, "%s: %s", python,
               err.detail);
  cr_assert_not(t->from_files);
  return t;
}

/* Runs python with a script and returns its stdout's first line. */
static void ask(const char *python, const char *script, char *out, size_t n)
{
  char cmd[2048];
  snprintf(cmd, sizeof cmd, "%s -I -c '%s'", python, script);
  FILE *f = popen(cmd, "r");
  cr_assert_not_null(f);
  cr_assert_not_null(fgets(out, (int)n, f), "%s", cmd);
  out[strcspn(out, "\n")] = '\0';
  cr_assert_eq(pclose(f), 0);
}

/* The probed values agree with what the interpreter says directly. */
static void check_against_interpreter(const struct ts_target *t,
                                      const char *python)
{
  char buf[4096];
  ask(python, "import sys; print(\"%d.%d.%d\" % sys.version_info[:3])", buf,
      sizeof buf);
  char v[64];
  snprintf(v, sizeof v, "%d.%d.%d", t->python_major, t->python_minor,
           t->python_micro);
  cr_assert_str_eq(v, buf);
  ask(python, "import platform; print(platform.python_version())", buf, sizeof buf);
  cr_assert_str_eq(t->markers.python_full_version, buf);
  ask(python, "import platform; print(platform.machine())", buf, sizeof buf);
  cr_assert_str_eq(t->markers.platform_machine, buf);
  ask(python, "import sysconfig; print(sysconfig.get_paths()[\"purelib\"])", buf,
      sizeof buf);
  cr_assert_str_eq(t->paths.purelib, buf);
  ask(python, "import sysconfig; print(sysconfig.get_paths()[\"scripts\"])", buf,
      sizeof buf);
  cr_assert_str_eq(t->paths.scripts, buf);
  ask(python, "import os; print(os.confstr(\"CS_GNU_LIBC_VERSION\"))", buf,
      sizeof buf);
  char libc[64];
  snprintf(libc, sizeof libc, "glibc %d.%d", t->libc_major, t->libc_minor);
  cr_assert_str_eq(libc, buf);
  cr_assert_eq(t->libc, TS_LIBC_GLIBC);
  cr_assert_str_eq(t->implementation, "cp");
  cr_assert_str_eq(t->markers.sys_platform, "linux");
  cr_assert_str_eq(t->markers.implementation_name, "cpython");
  char pv[16];
  snprintf(pv, sizeof pv, "%d.%d", t->python_major, t->python_minor);
  cr_assert_str_eq(t->markers.python_version, pv);
}

/* Our tags, in order, equal pip's vendored packaging sys_tags() run by
 * `pip_python` (the venv's base interpreter when t is a venv).  Vendored
 * packaging < 22 lacks cpXY-none-any; that tag is then skipped in ours. */
static void check_tags_against_pip(const struct ts_target *t,
                                   const char *pip_python)
{
  char cmd[1024];
  snprintf(cmd, sizeof cmd,
           "%s -I -c 'from pip._vendor.packaging import tags\n"
           "[print(t) for t in tags.sys_tags()]' 2>/dev/null",
           pip_python);
  FILE *f = popen(cmd, "r");
  cr_assert_not_null(f);
  char **pip = NULL;
  size_t n = 0;
  char line[256], cp_none_any[32];
  snprintf(cp_none_any, sizeof cp_none_any, "cp%d%d-none-any",
           t->python_major, t->python_minor);
  bool has_cp_none_any = false;
  while (fgets(line, sizeof line, f)) {
    line[strcspn(line, "\n")] = '\0';
    pip = realloc(pip, (n + 1) * sizeof *pip);
    pip[n++] = strdup(line);
    has_cp_none_any |= strcmp(line, cp_none_any) == 0;
  }
  if (pclose(f) != 0 || n == 0)
    cr_skip_test("%s has no pip to compare with", pip_python);
  size_t j = 0;
  for (size_t i = 0; i < ts_tagset_count(t->tags); i++) {
    char *s = ts_tag_str(ts_tagset_at(t->tags, i));
    if (!has_cp_none_any && strcmp(s, cp_none_any) == 0) {
      free(s);
      continue;
    }
    cr_assert_lt(j, n, "extra tag %s", s);
    cr_assert_str_eq(s, pip[j], "tag %zu", j);
    free(s);
    j++;
  }
  cr_assert_eq(j, n, "pip lists %zu tags, we have %zu", n, j);
  for (size_t i = 0; i < n; i++)
    free(pip[i]);
  free(pip);
}

Test(probe, python3)
{
  char *py = find_python("python3", NULL);
  if (!py)
    cr_skip_test("no python3");
  struct ts_target *t = probe(py, NULL);
  cr_assert_str_eq(t->python, py);
  cr_assert_not(t->from_spec);
  cr_assert_not(t->from_cache);
  check_against_interpreter(t, py);
  check_tags_against_pip(t, py);
  ts_target_free(t);
  free(py);
}

Test(probe, python3_12)
{
  char *py = find_python("python3.12", "3.12*/bin/python3.12");
  if (!py)
    cr_skip_test("no python3.12");
  struct ts_target *t = probe(py, NULL);
  cr_assert_eq(t->python_major, 3);
  cr_assert_eq(t->python_minor, 12);
  check_against_interpreter(t, py);
  check_tags_against_pip(t, py);

  /* A spec naming this host's platform gives the same tags. */
  char plat[64];
  snprintf(plat, sizeof plat, "manylinux_%d_%d_%s", t->libc_major,
           t->libc_minor, t->tag_arch);
  struct ts_target_spec spec = {.python_version = "3.12", .platform = plat};
  struct ts_target *s = NULL;
  cr_assert_eq(ts_target_from_spec(&spec, &s, NULL), TS_OK);
  cr_assert_eq(ts_tagset_count(s->tags), ts_tagset_count(t->tags));
  for (size_t i = 0; i < ts_tagset_count(t->tags); i++) {
    char *a = ts_tag_str(ts_tagset_at(t->tags, i));
    char *b = ts_tag_str(ts_tagset_at(s->tags, i));
    cr_assert_str_eq(a, b);
    free(a);
    free(b);
  }
  ts_target_free(s);
  ts_target_free(t);
  free(py);
}

Test(probe, venv_and_locate)
{
  char *py = find_python("python3", NULL);
  if (!py)
    cr_skip_test("no python3");
  char venv[512], cmd[1024];
  snprintf(venv, sizeof venv, "%s/venv", tmp);
  snprintf(cmd, sizeof cmd, "%s -m venv --without-pip %s", py, venv);
  if (system(cmd) != 0)
    cr_skip_test("cannot create a venv with %s", py);

  /* --python DIR finds DIR/bin/python. */
  char *located = NULL;
  struct ts_error err = {0};
  cr_assert_eq(ts_target_locate(venv, &located, &err), TS_OK, "%s", err.detail);
  char exp[600];
  snprintf(exp, sizeof exp, "%s/bin/python", venv);
  cr_assert_str_eq(located, exp);

  struct ts_target *t = probe(located, NULL);
  cr_assert(t->is_venv);
  cr_assert_str_eq(t->paths.prefix, venv);
  cr_assert_str_neq(t->paths.base_prefix, venv);
  char sp[700];
  snprintf(sp, sizeof sp, "%s/lib/python%d.%d/site-packages", venv,
           t->python_major, t->python_minor);
  cr_assert_str_eq(t->paths.purelib, sp);
  snprintf(sp, sizeof sp, "%s/bin", venv);
  cr_assert_str_eq(t->paths.scripts, sp);
  check_against_interpreter(t, located);
  /* The venv's tags are its base interpreter's, in pip's order. */
  check_tags_against_pip(t, py);
  ts_target_free(t);
  free(located);

  /* $VIRTUAL_ENV, then ./.venv, then a clear error. */
  setenv("VIRTUAL_ENV", venv, 1);
  cr_assert_eq(ts_target_locate(NULL, &located, &err), TS_OK);
  cr_assert_str_eq(located, exp);
  free(located);
  setenv("VIRTUAL_ENV", tmp, 1);
  cr_assert_eq(ts_target_locate(NULL, &located, &err), TS_E_PYTHON);
  cr_assert_null(located);
  unsetenv("VIRTUAL_ENV");

  char cwd[4096];
  cr_assert_not_null(getcwd(cwd, sizeof cwd));
  cr_assert_eq(chdir(tmp), 0);
  cr_assert_eq(ts_target_locate(NULL, &located, &err), TS_E_PYTHON);
  cr_assert_str_eq(err.detail,
                   "no virtual environment found: pass --python PATH, activate "
                   "one, or create ./.venv with 'torchsolve venv'");
  cr_assert_eq(rename("venv", ".venv"), 0);
  cr_assert_eq(ts_target_locate(NULL, &located, &err), TS_OK);
  cr_assert_str_eq(located, ".venv/bin/python");
  free(located);
  cr_assert_eq(chdir(cwd), 0);

  /* Bare names are looked up on $PATH; missing paths are NOT_FOUND. */
  cr_assert_eq(ts_target_locate("python3", &located, &err), TS_OK);
  cr_assert_eq(located[0], '/');
  free(located);
  cr_assert_eq(ts_target_locate("/nonexistent/python", &located, &err),
               TS_E_NOT_FOUND);
  cr_assert_eq(ts_target_locate("/tmp", &located, &err), TS_E_PYTHON);
  free(py);
}

Test(probe, cache)
{
  char *py = find_python("python3", NULL);
  if (!py)
    cr_skip_test("no python3");
  char cache[512];
  snprintf(cache, sizeof cache, "%s/cache", tmp);
  struct ts_target *a = probe(py, cache);
  cr_assert_not(a->from_cache);
  struct ts_target *b = probe(py, cache);
  cr_assert(b->from_cache, "second probe should come from the cache");
  cr_assert_str_eq(a->paths.purelib, b->paths.purelib);
  cr_assert_str_eq(a->markers.platform_version, b->markers.platform_version);
  cr_assert_eq(ts_tagset_count(a->tags), ts_tagset_count(b->tags));
  ts_target_free(b);

  /* A corrupt entry is probed again and rewritten. */
  char cmd[1024];
  snprintf(cmd, sizeof cmd, "for f in %s/python/*.json; do echo garbage > $f; done",
           cache);
  cr_assert_eq(system(cmd), 0);
  b = probe(py, cache);
  cr_assert_not(b->from_cache);
  ts_target_free(b);
  b = probe(py, cache);
  cr_assert(b->from_cache);
  ts_target_free(b);
  ts_target_free(a);
  free(py);
}

/* A new venv of an interpreter already probed through another venv starts
 * no Python, and gets exactly what probing it would give. */
Test(probe, sibling_venv_from_the_cache)
{
  char *py = find_python("python3", NULL);
  if (!py)
    cr_skip_test("no python3");
  char cache[512], va[512], vb[512], cmd[2048];
  snprintf(cache, sizeof cache, "%s/cache", tmp);
  snprintf(va, sizeof va, "%s/venv-a", tmp);
  snprintf(vb, sizeof vb, "%s/other dir/venv-b", tmp);
  snprintf(cmd, sizeof cmd, "%s -m venv --without-pip %s && %s -m venv --without-pip '%s'", py,
           va, py, vb);
  if (system(cmd) != 0)
    cr_skip_test("cannot create venvs with %s", py);
  char pa[600], pb[600];
  snprintf(pa, sizeof pa, "%s/bin/python", va);
  snprintf(pb, sizeof pb, "%s/bin/python", vb);
  struct ts_target *a = run_probe(pa, cache);
  cr_assert_not(a->from_cache);
  struct ts_target *b = run_probe(pb, cache);
  cr_assert(b->from_cache, "the sibling venv was probed again");
  struct ts_target *want = run_probe(pb, NULL); /* what Python says */
  cr_assert_not(want->from_cache);
  cr_expect_str_eq(b->paths.purelib, want->paths.purelib);
  cr_expect_str_eq(b->paths.platlib, want->paths.platlib);
  cr_expect_str_eq(b->paths.scripts, want->paths.scripts);
  cr_expect_str_eq(b->paths.data, want->paths.data);
  cr_expect_str_eq(b->paths.include, want->paths.include);
  cr_expect_str_eq(b->paths.prefix, want->paths.prefix);
  cr_expect_str_eq(b->paths.base_prefix, want->paths.base_prefix);
  cr_expect_str_eq(b->executable, want->executable);
  cr_expect_str_eq(b->markers.python_full_version, want->markers.python_full_version);
  cr_expect(b->is_venv);
  cr_expect_eq(ts_tagset_count(b->tags), ts_tagset_count(want->tags));
  ts_target_free(want);
  ts_target_free(b);
  ts_target_free(a);
  free(py);
}

static char *fake_program(const char *name, const char *body)
{
  char *p = ts_path_join(tmp, name);
  FILE *f = fopen(p, "w");
  cr_assert_not_null(f);
  fprintf(f, "#!/bin/sh\n%s\n", body);
  fclose(f);
  chmod(p, 0755);
  return p;
}

/* A broken Python 3: it fails the probe as `body` says, but answers the
 * version question (`python -E -s -c ...`) as a Python 3.12 does. */
static char *fake_python(const char *name, const char *body)
{
  char line[512];
  snprintf(line, sizeof line, "[ \"$1\" = -E ] && { printf 3.12; exit 0; }\n%s", body);
  return fake_program(name, line);
}

Test(probe, failures)
{
  struct ts_target *t = (struct ts_target *)1;
  struct ts_error err = {0};
  cr_assert_eq(ts_target_probe("/nonexistent/python3", NULL, &t, &err),
               TS_E_NOT_FOUND);
  cr_assert_null(t);
  char *plain = fake_python("not-executable", "exit 0");
  chmod(plain, 0644);
  cr_assert_eq(ts_target_probe(plain, NULL, &t, &err), TS_E_PYTHON);
  cr_assert(strstr(err.detail, "not an executable"), "%s", err.detail);
  free(plain);
  cr_assert_eq(ts_target_probe(tmp, NULL, &t, &err), TS_E_PYTHON);

  char *p = fake_python("crash", "echo 'Traceback' >&2; echo 'SyntaxError: nope' >&2; exit 3");
  cr_assert_eq(ts_target_probe(p, NULL, &t, &err), TS_E_PYTHON);
  cr_assert(strstr(err.detail, "status 3: SyntaxError: nope"), "%s", err.detail);
  free(p);

  p = fake_python("garbage", "echo 'this is not json'");
  cr_assert_eq(ts_target_probe(p, NULL, &t, &err), TS_E_PYTHON);
  cr_assert(strstr(err.detail, "JSON"), "%s", err.detail);
  free(p);

  p = fake_python("partial", "echo '{\"probe\": 1, \"markers\": {}}'");
  cr_assert_eq(ts_target_probe(p, NULL, &t, &err), TS_E_PYTHON);
  cr_assert(strstr(err.detail, "implementation_name"), "%s", err.detail);
  free(p);

  p = fake_python("killed", "kill -9 $$");
  cr_assert_eq(ts_target_probe(p, NULL, &t, &err), TS_E_PYTHON);
  cr_assert(strstr(err.detail, "signal 9"), "%s", err.detail);
  free(p);

  p = fake_python("flood", "yes '{}{}{}{}{}{}{}{}{}{}{}{}{}{}'");
  cr_assert_eq(ts_target_probe(p, NULL, &t, &err), TS_E_PYTHON);
  cr_assert(strstr(err.detail, "too much"), "%s", err.detail);
  free(p);
  cr_assert_null(t);
}

/* What is not a Python 3 is named so, whatever it printed about the probe
 * script; Ctrl-C (SIGINT to the process group) while probing is an
 * interruption, not a failure of the interpreter. */
Test(probe, not_python3_and_interrupt)
{
  struct ts_target *t = NULL;
  struct ts_error err = {0};
  char *p = fake_program("ls-like", "echo \"ls: cannot access '$3'\" >&2; exit 2");
  cr_assert_eq(ts_target_probe(p, NULL, &t, &err), TS_E_PYTHON);
  cr_assert(strstr(err.detail, "is not a Python 3 interpreter"), "%s", err.detail);
  cr_assert_null(strstr(err.detail, "cannot access"), "%s", err.detail);
  free(p);

  p = fake_program("true-like", "exit 0");
  cr_assert_eq(ts_target_probe(p, NULL, &t, &err), TS_E_PYTHON);
  cr_assert(strstr(err.detail, "is not a Python 3 interpreter"), "%s", err.detail);
  free(p);

  p = fake_program("python2.7", "[ \"$1\" = -I ] && { echo 'Unknown option: -I' >&2; exit 2; }\n"
                                "printf 2.7");
  cr_assert_eq(ts_target_probe(p, NULL, &t, &err), TS_E_PYTHON);
  cr_assert(strstr(err.detail, "is Python 2.7, not a Python 3 interpreter"), "%s", err.detail);
  free(p);

  p = fake_python("interrupted", "kill -INT $$");
  cr_assert_eq(ts_target_probe(p, NULL, &t, &err), TS_E_INTERRUPTED);
  cr_assert(strstr(err.detail, "interrupted while probing"), "%s", err.detail);
  free(p);

  p = fake_python("keyboard", "echo 'Traceback' >&2; echo KeyboardInterrupt >&2; exit 1");
  cr_assert_eq(ts_target_probe(p, NULL, &t, &err), TS_E_INTERRUPTED);
  free(p);
  cr_assert_null(t);
}

/* A musl interpreter, as the probe would describe it. */
Test(probe, musl_json)
{
  const char *json =
      "{\"probe\": 1, \"markers\": {\"implementation_name\": \"cpython\","
      "\"implementation_version\": \"3.12.3\", \"os_name\": \"posix\","
      "\"platform_machine\": \"aarch64\", \"platform_python_implementation\":"
      "\"CPython\", \"platform_release\": \"6.1\", \"platform_system\": \"Linux\","
      "\"platform_version\": \"#1\", \"python_full_version\": \"3.12.3\","
      "\"python_version\": \"3.12\", \"sys_platform\": \"linux\"},"
      "\"version_info\": [3, 12, 3], \"implementation\": \"cp\", \"abiflags\": \"\","
      "\"gil_disabled\": false, \"abi_tag\": \"cp312\", \"libc\": [\"musl\", \"1.2.4\"],"
      "\"tag_arch\": \"aarch64\", \"paths\": {\"purelib\": \"/v/lib\", \"platlib\":"
      "\"/v/lib\", \"scripts\": \"/v/bin\", \"data\": \"/v\", \"include\": \"/v/inc\"},"
      "\"prefix\": \"/v\", \"base_prefix\": \"/usr\", \"executable\": \"/v/bin/python\"}";
  struct ts_target *t = NULL;
  struct ts_error err = {0};
  cr_assert_eq(ts_target_from_json(json, strlen(json), "/v/bin/python", &t, &err),
               TS_OK, "%s", err.detail);
  cr_assert_eq(t->libc, TS_LIBC_MUSL);
  cr_assert_eq(t->libc_major, 1);
  cr_assert_eq(t->libc_minor, 2);
  cr_assert(t->is_venv);
  char *s = ts_tag_str(ts_tagset_at(t->tags, 0));
  cr_assert_str_eq(s, "cp312-cp312-musllinux_1_2_aarch64");
  free(s);
  ts_target_free(t);

  /* Free-threaded through Py_GIL_DISABLED only. */
  char *ft = strdup(json);
  char *g = strstr(ft, "\"gil_disabled\": false");
  memcpy(g, "\"gil_disabled\": 1    ", 21);
  cr_assert_eq(ts_target_from_json(ft, strlen(ft), NULL, &t, &err), TS_OK);
  cr_assert_str_eq(t->abi_flags, "");
  ts_target_free(t);
  memcpy(g, "\"gil_disabled\": true ", 21);
  cr_assert_eq(ts_target_from_json(ft, strlen(ft), NULL, &t, &err), TS_OK);
  cr_assert_str_eq(t->abi_flags, "t");
  ts_target_free(t);
  free(ft);

  /* Hostile values. */
  char *bad = strdup(json);
  char *a = strstr(bad, "\"aarch64\", \"paths\"");
  memcpy(a, "\"aarch-64\"", 10);
  cr_assert_neq(ts_target_from_json(bad, strlen(bad), NULL, &t, &err), TS_OK);
  cr_assert_null(t);
  free(bad);
  bad = strdup(json);
  a = strstr(bad, "1.2.4");
  memcpy(a, "x.2.4", 5);
  cr_assert_eq(ts_target_from_json(bad, strlen(bad), NULL, &t, &err), TS_E_PYTHON);
  free(bad);
  cr_assert_eq(ts_target_from_json("[]", 2, NULL, &t, &err), TS_E_PYTHON);
  cr_assert_eq(ts_target_from_json("{\"probe\": 2}", 12, NULL, &t, &err),
               TS_E_PYTHON);
}

/* Markers evaluate on the probed environment as pip's packaging evaluates
 * them inside the interpreter. */
Test(probe, markers_agree_with_packaging)
{
  char *py = find_python("python3", NULL);
  if (!py)
    cr_skip_test("no python3");
  struct ts_target *t = probe(py, NULL);
  static const char *const markers[] = {
      "python_version >= \"3.8\"",
      "python_version < \"3.11\"",
      "python_full_version >= \"3.11.5\"",
      "platform_machine == \"x86_64\"",
      "platform_machine == \"aarch64\" or sys_platform == \"darwin\"",
      "sys_platform == \"linux\" and implementation_name == \"cpython\"",
      "platform_system == \"Linux\" and os_name == \"posix\"",
      "platform_python_implementation != \"PyPy\"",
      "implementation_version >= \"3.12\"",
      "platform_release >= \"5\"",
  };
  for (size_t i = 0; i < sizeof markers / sizeof *markers; i++) {
    char script[512], out[64];
    /* The marker goes through the environment to avoid quoting trouble. */
    setenv("TS_MARKER", markers[i], 1);
    snprintf(script, sizeof script,
             "import os; from pip._vendor.packaging.markers import Marker; "
             "print(Marker(os.environ[\"TS_MARKER\"]).evaluate())");
    char cmd[1024];
    snprintf(cmd, sizeof cmd, "%s -c '%s' 2>/dev/null", py, script);
    FILE *f = popen(cmd, "r");
    cr_assert_not_null(f);
    if (!fgets(out, sizeof out, f)) {
      pclose(f);
      cr_skip_test("%s has no pip", py);
    }
    pclose(f);
    struct ts_marker *m = NULL;
    cr_assert_eq(ts_marker_parse(markers[i], strlen(markers[i]), &m, NULL), TS_OK);
    bool ours = ts_marker_eval(m, &t->markers, NULL);
    ts_marker_free(m);
    cr_assert_eq(ours, strncmp(out, "True", 4) == 0, "%s: pip says %s",
                 markers[i], out);
  }
  unsetenv("TS_MARKER");
  ts_target_free(t);
  free(py);
}

/* The "environment" JSON equals packaging's default_environment(), key
 * order included, as pip's --report writes it. */
Test(probe, environment_json)
{
  char *py = find_python("python3", NULL);
  if (!py)
    cr_skip_test("no python3");
  struct ts_target *t = probe(py, NULL);
  char *ours = ts_target_environment_json(t);
  char cmd[1024], theirs[4096] = "";
  snprintf(cmd, sizeof cmd,
           "%s -I -c 'import json; from pip._vendor.packaging.markers import "
           "default_environment as d; print(json.dumps(d(), separators=(\",\", "
           "\":\")))' 2>/dev/null", py);
  FILE *f = popen(cmd, "r");
  cr_assert_not_null(f);
  bool got = fgets(theirs, sizeof theirs, f) != NULL;
  pclose(f);
  if (!got)
    cr_skip_test("%s has no pip", py);
  theirs[strcspn(theirs, "\n")] = '\0';
  cr_assert_str_eq(ours, theirs);
  free(ours);
  ts_target_free(t);
  free(py);
}
