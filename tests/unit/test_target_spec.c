/* Unit tests for target/target.h: cross-target specs (no interpreter). */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "target/target.h"

static struct ts_target *S(const char *version, const char *platform)
{
  struct ts_target_spec spec = {.python_version = version,
                                .platform = platform};
  struct ts_target *t = NULL;
  struct ts_error err = {0};
  cr_assert_eq(ts_target_from_spec(&spec, &t, &err), TS_OK, "%s", err.detail);
  cr_assert(t->from_spec);
  cr_assert_null(t->python);
  cr_assert_null(t->paths.purelib);
  return t;
}

static void first_tag(const struct ts_target *t, const char *exp)
{
  char *s = ts_tag_str(ts_tagset_at(t->tags, 0));
  cr_assert_str_eq(s, exp);
  free(s);
}

static long prio(const struct ts_target *t, const char *py, const char *abi,
                 const char *plat)
{
  return ts_tagset_priority(t->tags, py, abi, plat);
}

/* macOS: packaging's mac_platforms (majors from 11 on, 10.x universal2
 * for arm64), Darwin markers. */
Test(spec, macos_arm64_and_x86_64)
{
  struct ts_target *t = S("3.12", "macosx_14_0_arm64");
  cr_assert_str_eq(t->markers.sys_platform, "darwin");
  cr_assert_str_eq(t->markers.platform_system, "Darwin");
  cr_assert_str_eq(t->markers.platform_machine, "arm64");
  cr_assert_str_eq(t->markers.os_name, "posix");
  first_tag(t, "cp312-cp312-macosx_14_0_arm64");
  cr_assert_geq(prio(t, "cp312", "cp312", "macosx_11_0_arm64"), 0);
  cr_assert_geq(prio(t, "cp312", "cp312", "macosx_10_9_universal2"), 0);
  cr_assert_eq(prio(t, "cp312", "cp312", "macosx_10_9_arm64"), -1);
  cr_assert_eq(prio(t, "cp312", "cp312", "macosx_15_0_arm64"), -1);
  cr_assert_eq(prio(t, "cp312", "cp312", "macosx_11_0_x86_64"), -1);
  cr_assert_geq(prio(t, "py3", "none", "any"), 0);
  ts_target_free(t);
  t = S("3.11", "macosx_13_0_x86_64");
  cr_assert_str_eq(t->markers.platform_machine, "x86_64");
  cr_assert_geq(prio(t, "cp311", "cp311", "macosx_10_9_x86_64"), 0);
  cr_assert_geq(prio(t, "cp311", "abi3", "macosx_10_16_intel"), 0);
  cr_assert_eq(prio(t, "cp311", "cp311", "macosx_14_0_x86_64"), -1);
  ts_target_free(t);
}

/* Windows: win_<arch> tags, nt markers with Windows' machine spellings. */
Test(spec, windows)
{
  struct ts_target *t = S("3.13", "win_amd64");
  cr_assert_str_eq(t->markers.sys_platform, "win32");
  cr_assert_str_eq(t->markers.platform_system, "Windows");
  cr_assert_str_eq(t->markers.platform_machine, "AMD64");
  cr_assert_str_eq(t->markers.os_name, "nt");
  first_tag(t, "cp313-cp313-win_amd64");
  cr_assert_eq(prio(t, "cp313", "cp313", "win_arm64"), -1);
  ts_target_free(t);
  t = S("3.13", "win_arm64");
  cr_assert_str_eq(t->markers.platform_machine, "ARM64");
  first_tag(t, "cp313-cp313-win_arm64");
  ts_target_free(t);
}

/* PyPy: its markers and ABI tag; another system: only "any" wheels. */
Test(spec, pypy_and_other_system)
{
  struct ts_target_spec spec = {.python_version = "3.11", .platform = "manylinux_2_28_x86_64",
                                .implementation = "pp"};
  struct ts_target *t = NULL;
  struct ts_error err = {0};
  cr_assert_eq(ts_target_from_spec(&spec, &t, &err), TS_OK, "%s", err.detail);
  cr_assert_str_eq(t->markers.implementation_name, "pypy");
  cr_assert_str_eq(t->markers.platform_python_implementation, "PyPy");
  first_tag(t, "pp311-pypy311_pp73-manylinux_2_28_x86_64");
  cr_assert_eq(prio(t, "cp311", "cp311", "manylinux_2_28_x86_64"), -1);
  ts_target_free(t);
  spec = (struct ts_target_spec){.python_version = "3.12", .platform = "manylinux_2_28_x86_64",
                                 .sys_platform = "freebsd14"};
  cr_assert_eq(ts_target_from_spec(&spec, &t, &err), TS_OK, "%s", err.detail);
  cr_assert_str_eq(t->markers.sys_platform, "freebsd14");
  cr_assert_str_eq(t->markers.platform_system, "");
  cr_assert_eq(prio(t, "cp312", "cp312", "manylinux_2_28_x86_64"), -1);
  cr_assert_geq(prio(t, "py3", "none", "any"), 0);
  ts_target_free(t);
}

Test(spec, manylinux_2_28_x86_64)
{
  struct ts_target *t = S("3.12", "manylinux_2_28_x86_64");
  const struct ts_marker_env *m = &t->markers;
  cr_assert_str_eq(m->python_version, "3.12");
  cr_assert_str_eq(m->python_full_version, "3.12.0");
  cr_assert_str_eq(m->implementation_version, "3.12.0");
  cr_assert_str_eq(m->implementation_name, "cpython");
  cr_assert_str_eq(m->platform_python_implementation, "CPython");
  cr_assert_str_eq(m->platform_machine, "x86_64");
  cr_assert_str_eq(m->platform_system, "Linux");
  cr_assert_str_eq(m->sys_platform, "linux");
  cr_assert_str_eq(m->os_name, "posix");
  cr_assert_str_eq(m->platform_release, "");
  cr_assert_eq(t->libc, TS_LIBC_GLIBC);
  cr_assert_eq(t->libc_major, 2);
  cr_assert_eq(t->libc_minor, 28);
  first_tag(t, "cp312-cp312-manylinux_2_28_x86_64");
  cr_assert_geq(prio(t, "cp312", "cp312", "manylinux2014_x86_64"), 0);
  cr_assert_geq(prio(t, "cp39", "abi3", "manylinux1_x86_64"), 0);
  cr_assert_eq(prio(t, "cp312", "cp312", "manylinux_2_29_x86_64"), -1);
  cr_assert_eq(prio(t, "cp311", "cp311", "manylinux_2_28_x86_64"), -1);
  cr_assert_eq(prio(t, "cp312", "cp312", "manylinux_2_28_aarch64"), -1);
  /* 2_28..2_5 (24) + 3 legacy + linux = 28 platforms. */
  cr_assert_eq(ts_tagset_count(t->tags), 13 * 28 + 14 * 28 + 1 + 14);
  ts_target_free(t);
}

Test(spec, full_version_and_other_platforms)
{
  struct ts_target *t = S("3.12.4", "manylinux2014_aarch64");
  cr_assert_str_eq(t->markers.python_full_version, "3.12.4");
  cr_assert_eq(t->python_micro, 4);
  cr_assert_str_eq(t->markers.platform_machine, "aarch64");
  cr_assert_eq(t->libc_minor, 17);
  first_tag(t, "cp312-cp312-manylinux_2_17_aarch64");
  ts_target_free(t);

  t = S("3.11", "musllinux_1_2_x86_64");
  cr_assert_eq(t->libc, TS_LIBC_MUSL);
  first_tag(t, "cp311-cp311-musllinux_1_2_x86_64");
  cr_assert_eq(prio(t, "cp311", "cp311", "manylinux1_x86_64"), -1);
  ts_target_free(t);

  t = S("3.10", "linux_x86_64");
  cr_assert_eq(t->libc, TS_LIBC_NONE);
  first_tag(t, "cp310-cp310-linux_x86_64");
  ts_target_free(t);

  t = S("3.9", "manylinux1_x86_64");
  cr_assert_eq(t->libc_minor, 5);
  first_tag(t, "cp39-cp39-manylinux_2_5_x86_64");
  ts_target_free(t);
}

Test(spec, free_threaded)
{
  struct ts_target_spec spec = {.python_version = "3.13",
                                .platform = "manylinux_2_17_x86_64",
                                .abi_flags = "t"};
  struct ts_target *t = NULL;
  cr_assert_eq(ts_target_from_spec(&spec, &t, NULL), TS_OK);
  first_tag(t, "cp313-cp313t-manylinux_2_17_x86_64");
  cr_assert_eq(prio(t, "cp313", "abi3", "manylinux_2_17_x86_64"), -1);
  ts_target_free(t);
}

Test(spec, host_like)
{
  struct ts_target *t = S("3.12", NULL);
  char buf[64];
  size_t n = confstr(_CS_GNU_LIBC_VERSION, buf, sizeof buf);
  if (n > 6 && strncmp(buf, "glibc ", 6) == 0) {
    int maj = 0, min = 0;
    cr_assert_eq(sscanf(buf + 6, "%d.%d", &maj, &min), 2);
    cr_assert_eq(t->libc, TS_LIBC_GLIBC);
    cr_assert_eq(t->libc_major, maj);
    cr_assert_eq(t->libc_minor, min);
  }
  cr_assert_str_neq(t->tag_arch, "");
  ts_target_free(t);
}

Test(spec, invalid)
{
  static const char *const versions[] = {"3", "3.x", "", "3.12.", "3.12.1.1",
                                         "x3.12", "3.12 ", "1.0", "3.1234567890"};
  for (size_t i = 0; i < sizeof versions / sizeof *versions; i++) {
    struct ts_target_spec spec = {.python_version = versions[i],
                                  .platform = "linux_x86_64"};
    struct ts_target *t = (struct ts_target *)1;
    struct ts_error err = {0};
    cr_assert_eq(ts_target_from_spec(&spec, &t, &err), TS_E_INVALID, "'%s'",
                 versions[i]);
    cr_assert_null(t);
    cr_assert(strstr(err.detail, "Python version"), "%s", err.detail);
  }
  struct ts_target_spec none = {0};
  struct ts_target *t = NULL;
  cr_assert_eq(ts_target_from_spec(&none, &t, NULL), TS_E_INVALID);

  static const struct {
    const char *platform;
    enum ts_code code;
  } plats[] = {
      {"ios_13_0_arm64_iphoneos", TS_E_UNSUPPORTED}, {"android_21_arm64_v8a", TS_E_UNSUPPORTED},
      {"macosx_11_arm64", TS_E_INVALID},        {"macosx_14_0_ppc", TS_E_INVALID},
      {"win32", TS_E_INVALID},
      {"manylinux_2_x86_64", TS_E_INVALID},     {"foo", TS_E_INVALID},
      {"linux_X86-64", TS_E_INVALID},           {"linux_", TS_E_INVALID},
      {"manylinux_2_28_", TS_E_INVALID},        {"", TS_E_INVALID},
      {"musllinux_1_x_x86_64", TS_E_INVALID},
  };
  for (size_t i = 0; i < sizeof plats / sizeof *plats; i++) {
    struct ts_target_spec spec = {.python_version = "3.12",
                                  .platform = plats[i].platform};
    struct ts_error err = {0};
    cr_assert_eq(ts_target_from_spec(&spec, &t, &err), plats[i].code, "'%s': %s",
                 plats[i].platform, err.detail);
    cr_assert_null(t);
  }
}

static bool eval(const struct ts_target *t, const char *marker)
{
  struct ts_marker *m = NULL;
  struct ts_error err = {0};
  cr_assert_eq(ts_marker_parse(marker, strlen(marker), &m, &err), TS_OK, "%s",
               err.detail);
  bool r = ts_marker_eval(m, &t->markers, NULL);
  ts_marker_free(m);
  return r;
}

/* The spec's markers are what Requires-Dist lines get evaluated against
 * when locking for another machine. */
Test(spec, markers_evaluate)
{
  struct ts_target *t = S("3.12", "manylinux_2_28_x86_64");
  cr_assert(eval(t, "python_version >= '3.12' and sys_platform == 'linux'"));
  cr_assert(eval(t, "platform_machine == 'x86_64' and os_name == 'posix'"));
  cr_assert(eval(t, "platform_system == 'Linux' and implementation_name == 'cpython'"));
  cr_assert_not(eval(t, "python_version < '3.12'"));
  cr_assert_not(eval(t, "python_full_version >= '3.12.1'"));
  cr_assert_not(eval(t, "sys_platform == 'win32' or platform_machine == 'aarch64'"));
  cr_assert(eval(t, "platform_python_implementation == 'CPython'"));
  ts_target_free(t);
  t = S("3.10.2", "manylinux2014_aarch64");
  cr_assert(eval(t, "platform_machine == 'aarch64' and python_full_version > '3.10.1'"));
  cr_assert_not(eval(t, "python_version >= '3.11'"));
  ts_target_free(t);
}
