/* Unit tests for pep/tags.h: supported tags in packaging's order. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pep/filename.h"
#include "pep/tags.h"

static struct ts_tagset *build(struct ts_tag_target t)
{
  struct ts_tagset *set = NULL;
  struct ts_error err = {0};
  cr_assert_eq(ts_tagset_build(&t, &set, &err), TS_OK, "%s", err.detail);
  return set;
}

static void tag_at(const struct ts_tagset *set, size_t i, const char *exp)
{
  char *s = ts_tag_str(ts_tagset_at(set, i));
  cr_assert_str_eq(s, exp, "tag %zu", i);
  free(s);
}

static long prio(const struct ts_tagset *set, const char *tag)
{
  char buf[256];
  snprintf(buf, sizeof buf, "%s", tag);
  char *a = buf, *b = strchr(a, '-'), *c = strchr(b + 1, '-');
  *b++ = '\0';
  *c++ = '\0';
  return ts_tagset_priority(set, a, b, c);
}

static const struct ts_tag_target cp312_glibc236 = {
    3, 12, "cp", "", NULL, TS_LIBC_GLIBC, 2, 36, "x86_64", TS_OS_LINUX, 0, 0};

Test(tags, cpython_x86_64_shape)
{
  struct ts_tagset *set = build(cp312_glibc236);
  /* 36 platforms (2_36..2_5, 3 legacy, linux); 13 cp blocks, 14 py blocks,
   * cp312-none-any and 14 py*-none-any. */
  cr_assert_eq(ts_tagset_count(set), 13 * 36 + 14 * 36 + 1 + 14);
  tag_at(set, 0, "cp312-cp312-manylinux_2_36_x86_64");
  tag_at(set, 19, "cp312-cp312-manylinux_2_17_x86_64");
  tag_at(set, 20, "cp312-cp312-manylinux2014_x86_64");
  tag_at(set, 26, "cp312-cp312-manylinux2010_x86_64");
  tag_at(set, 34, "cp312-cp312-manylinux1_x86_64");
  tag_at(set, 35, "cp312-cp312-linux_x86_64");
  tag_at(set, 36, "cp312-abi3-manylinux_2_36_x86_64");
  tag_at(set, 72, "cp312-none-manylinux_2_36_x86_64");
  tag_at(set, 108, "cp311-abi3-manylinux_2_36_x86_64");
  tag_at(set, 13 * 36 - 1, "cp32-abi3-linux_x86_64");
  tag_at(set, 13 * 36, "py312-none-manylinux_2_36_x86_64");
  tag_at(set, 14 * 36, "py3-none-manylinux_2_36_x86_64");
  size_t n = ts_tagset_count(set);
  tag_at(set, n - 15, "cp312-none-any");
  tag_at(set, n - 14, "py312-none-any");
  tag_at(set, n - 13, "py3-none-any");
  tag_at(set, n - 12, "py311-none-any");
  tag_at(set, n - 1, "py30-none-any");
  ts_tagset_free(set);
}

Test(tags, priority_lookup)
{
  struct ts_tagset *set = build(cp312_glibc236);
  cr_assert_eq(prio(set, "cp312-cp312-manylinux_2_36_x86_64"), 0);
  cr_assert_eq(prio(set, "CP312-CP312-MANYLINUX_2_36_X86_64"), 0);
  long torch = prio(set, "cp312-cp312-manylinux_2_28_x86_64");
  long abi3 = prio(set, "cp39-abi3-manylinux2014_x86_64");
  long pure = prio(set, "py3-none-any");
  cr_assert(torch > 0 && abi3 > torch && pure > abi3);
  cr_assert_eq(prio(set, "cp312-cp312-manylinux_2_37_x86_64"), -1);
  cr_assert_eq(prio(set, "cp313-cp313-manylinux_2_28_x86_64"), -1);
  cr_assert_eq(prio(set, "cp312-cp312-manylinux_2_28_aarch64"), -1);
  cr_assert_eq(prio(set, "cp312-cp312-win_amd64"), -1);
  cr_assert_eq(prio(set, "cp312-cp312-manylinux_2_4_x86_64"), -1);
  cr_assert_eq(prio(set, "py2-none-any"), -1);

  /* A wheel's priority is its best tag. */
  const char *fn =
      "numpy-2.0.0-cp312-cp312-manylinux_2_17_x86_64.manylinux2014_x86_64.whl";
  struct ts_wheel_filename *w = NULL;
  cr_assert_eq(ts_wheel_filename_parse(fn, strlen(fn), &w, NULL), TS_OK);
  cr_assert_eq(ts_tagset_best_priority(set, w->tags, w->ntags),
               prio(set, "cp312-cp312-manylinux_2_17_x86_64"));
  ts_wheel_filename_free(w);
  fn = "torch-2.11.0+cu130-cp313-cp313-manylinux_2_28_x86_64.whl";
  cr_assert_eq(ts_wheel_filename_parse(fn, strlen(fn), &w, NULL), TS_OK);
  cr_assert_eq(ts_tagset_best_priority(set, w->tags, w->ntags), -1);
  ts_wheel_filename_free(w);
  ts_tagset_free(set);
}

Test(tags, aarch64_starts_at_2_17)
{
  struct ts_tag_target t = {3, 12, "cp", "", NULL, TS_LIBC_GLIBC, 2, 28,
                            "aarch64", TS_OS_LINUX, 0, 0};
  struct ts_tagset *set = build(t);
  /* 2_28..2_17 (12), manylinux2014, linux = 14 platforms. */
  tag_at(set, 0, "cp312-cp312-manylinux_2_28_aarch64");
  tag_at(set, 11, "cp312-cp312-manylinux_2_17_aarch64");
  tag_at(set, 12, "cp312-cp312-manylinux2014_aarch64");
  tag_at(set, 13, "cp312-cp312-linux_aarch64");
  tag_at(set, 14, "cp312-abi3-manylinux_2_28_aarch64");
  cr_assert_eq(prio(set, "cp312-cp312-manylinux2010_aarch64"), -1);
  cr_assert_eq(prio(set, "cp312-cp312-manylinux_2_16_aarch64"), -1);
  cr_assert_eq(ts_tagset_count(set), 27 * 14 + 15);
  ts_tagset_free(set);
}

Test(tags, musllinux)
{
  struct ts_tag_target t = {3, 12, "cp", "", NULL, TS_LIBC_MUSL, 1, 2,
                            "x86_64", TS_OS_LINUX, 0, 0};
  struct ts_tagset *set = build(t);
  tag_at(set, 0, "cp312-cp312-musllinux_1_2_x86_64");
  tag_at(set, 1, "cp312-cp312-musllinux_1_1_x86_64");
  tag_at(set, 2, "cp312-cp312-musllinux_1_0_x86_64");
  tag_at(set, 3, "cp312-cp312-linux_x86_64");
  cr_assert_eq(prio(set, "cp312-cp312-manylinux1_x86_64"), -1);
  ts_tagset_free(set);
}

Test(tags, no_libc_means_linux_only)
{
  struct ts_tag_target t = {3, 11, "cp", NULL, NULL, TS_LIBC_NONE, 0, 0,
                            "x86_64", TS_OS_LINUX, 0, 0};
  struct ts_tagset *set = build(t);
  tag_at(set, 0, "cp311-cp311-linux_x86_64");
  tag_at(set, 1, "cp311-abi3-linux_x86_64");
  cr_assert_eq(ts_tagset_count(set), 12 + 13 + 1 + 13);
  ts_tagset_free(set);
}

Test(tags, free_threaded_has_no_abi3)
{
  struct ts_tag_target t = {3, 13, "cp", "t", NULL, TS_LIBC_GLIBC, 2, 17,
                            "x86_64", TS_OS_LINUX, 0, 0};
  struct ts_tagset *set = build(t);
  tag_at(set, 0, "cp313-cp313t-manylinux_2_17_x86_64");
  cr_assert_eq(prio(set, "cp313-abi3-manylinux_2_17_x86_64"), -1);
  cr_assert_eq(prio(set, "cp312-abi3-manylinux_2_17_x86_64"), -1);
  cr_assert_eq(prio(set, "cp313-cp313-manylinux_2_17_x86_64"), -1);
  cr_assert_geq(prio(set, "cp313-none-manylinux_2_17_x86_64"), 0);
  ts_tagset_free(set);
}

Test(tags, debug_build_also_loads_release_abi)
{
  struct ts_tag_target t = {3, 12, "cp", "d", NULL, TS_LIBC_GLIBC, 2, 17,
                            "x86_64", TS_OS_LINUX, 0, 0};
  struct ts_tagset *set = build(t);
  /* 2_17..2_5 (13) + 3 legacy + linux = 17 platforms */
  tag_at(set, 0, "cp312-cp312d-manylinux_2_17_x86_64");
  tag_at(set, 17, "cp312-cp312-manylinux_2_17_x86_64");
  tag_at(set, 34, "cp312-abi3-manylinux_2_17_x86_64");
  ts_tagset_free(set);
}

Test(tags, armv8l_also_runs_armv7l)
{
  struct ts_tag_target t = {3, 12, "cp", "", NULL, TS_LIBC_GLIBC, 2, 17,
                            "armv8l", TS_OS_LINUX, 0, 0};
  struct ts_tagset *set = build(t);
  cr_assert_geq(prio(set, "cp312-cp312-manylinux_2_17_armv7l"), 0);
  cr_assert_geq(prio(set, "cp312-cp312-linux_armv8l"), 0);
  /* armv8l itself has no manylinux tags (packaging's allowed arch list). */
  cr_assert_eq(prio(set, "cp312-cp312-manylinux_2_17_armv8l"), -1);
  ts_tagset_free(set);
}

Test(tags, pypy_generic)
{
  struct ts_tag_target t = {3, 10, "pp", NULL, "pypy310_pp73", TS_LIBC_GLIBC,
                            2, 17, "x86_64", TS_OS_LINUX, 0, 0};
  struct ts_tagset *set = build(t);
  tag_at(set, 0, "pp310-pypy310_pp73-manylinux_2_17_x86_64");
  cr_assert_geq(prio(set, "pp3-none-any"), 0);
  cr_assert_eq(prio(set, "cp310-abi3-manylinux_2_17_x86_64"), -1);
  ts_tagset_free(set);
}

Test(tags, invalid_targets)
{
  struct ts_tagset *set = (struct ts_tagset *)1;
  struct ts_error err = {0};
  struct ts_tag_target t = cp312_glibc236;
  t.arch = "x86-64";
  cr_assert_eq(ts_tagset_build(&t, &set, &err), TS_E_INVALID);
  cr_assert_null(set);
  t.arch = "";
  cr_assert_eq(ts_tagset_build(&t, &set, &err), TS_E_INVALID);
  t.arch = NULL;
  cr_assert_eq(ts_tagset_build(&t, &set, &err), TS_E_INVALID);
  t = cp312_glibc236;
  t.python_minor = -1;
  cr_assert_eq(ts_tagset_build(&t, &set, &err), TS_E_INVALID);
  t = cp312_glibc236;
  t.abi_flags = "x";
  cr_assert_eq(ts_tagset_build(&t, &set, &err), TS_E_INVALID);
  t = cp312_glibc236;
  t.libc_minor = 100000;
  cr_assert_eq(ts_tagset_build(&t, &set, &err), TS_E_INVALID);
}

Test(tags, from_strings)
{
  const char *list[] = {"cp312-cp312-manylinux_2_28_x86_64",
                        "py2.py3-none-any", "CP312-CP312-MANYLINUX_2_28_X86_64"};
  struct ts_tagset *set = NULL;
  cr_assert_eq(ts_tagset_from_strings(list, 3, &set, NULL), TS_OK);
  cr_assert_eq(ts_tagset_count(set), 3);
  cr_assert_eq(prio(set, "py3-none-any"), 2);
  cr_assert_eq(prio(set, "py2-none-any"), 1);
  ts_tagset_free(set);
  const char *bad[] = {"cp312-cp312"};
  struct ts_error err = {0};
  cr_assert_eq(ts_tagset_from_strings(bad, 1, &set, &err), TS_E_PARSE);
  const char *bad2[] = {"cp312-cp312-linux-x86"};
  cr_assert_eq(ts_tagset_from_strings(bad2, 1, &set, &err), TS_E_PARSE);
  const char *bad3[] = {"a..b-c-d"};
  cr_assert_eq(ts_tagset_from_strings(bad3, 1, &set, &err), TS_E_PARSE);
}

Test(tags, linux_platforms_list)
{
  size_t n = ts_tags_linux_platforms(&cp312_glibc236, NULL, 0);
  cr_assert_eq(n, 36);
  char *p[36];
  cr_assert_eq(ts_tags_linux_platforms(&cp312_glibc236, p, 36), 36);
  cr_assert_str_eq(p[0], "manylinux_2_36_x86_64");
  cr_assert_str_eq(p[35], "linux_x86_64");
  for (size_t i = 0; i < 36; i++)
    free(p[i]);
}

/* Compares with the real interpreter's pip: the facts (version, glibc,
 * arch) come from the interpreter, the expected list from pip's vendored
 * packaging.  Old vendored packaging (< 22) lacks cpXY-none-any; that one
 * tag is then dropped from ours before comparing. */
static void compare_with_pip(const char *python)
{
  char cmd[512];
  snprintf(cmd, sizeof cmd,
           "%s -c 'import sys,platform,sysconfig\n"
           "from pip._vendor.packaging import tags\n"
           "g=platform.libc_ver()\n"
           "print(sys.version_info[0], sys.version_info[1], g[1] or \"0.0\", "
           "sysconfig.get_platform().split(\"-\",1)[1], "
           "\"t\" if sysconfig.get_config_var(\"Py_GIL_DISABLED\") else \"-\")\n"
           "[print(t) for t in tags.sys_tags()]' 2>/dev/null",
           python);
  FILE *f = popen(cmd, "r");
  cr_assert_not_null(f);
  int major, minor, gmaj, gmin;
  char arch[64], flags[8];
  if (fscanf(f, "%d %d %d.%d %63s %7s\n", &major, &minor, &gmaj, &gmin, arch,
             flags) != 6) {
    pclose(f);
    cr_skip_test("%s with pip is not available", python);
  }
  struct ts_tag_target t = {major, minor, "cp", flags[0] == 't' ? "t" : "",
                            NULL, TS_LIBC_GLIBC, gmaj, gmin, arch, TS_OS_LINUX, 0, 0};
  struct ts_tagset *set = build(t);
  char line[256];
  size_t n = 0;
  char cp_none_any[32];
  snprintf(cp_none_any, sizeof cp_none_any, "cp%d%d-none-any", major, minor);
  bool pip_has_cp_none_any = false;
  char **pip = NULL;
  while (fgets(line, sizeof line, f)) {
    line[strcspn(line, "\n")] = '\0';
    pip = realloc(pip, (n + 1) * sizeof *pip);
    pip[n++] = strdup(line);
    if (strcmp(line, cp_none_any) == 0)
      pip_has_cp_none_any = true;
  }
  cr_assert_eq(pclose(f), 0);
  size_t j = 0;
  for (size_t i = 0; i < ts_tagset_count(set); i++) {
    char *s = ts_tag_str(ts_tagset_at(set, i));
    if (!pip_has_cp_none_any && strcmp(s, cp_none_any) == 0) {
      free(s);
      continue;
    }
    cr_assert_lt(j, n, "%s: extra tag %s", python, s);
    cr_assert_str_eq(s, pip[j], "%s: tag %zu", python, j);
    free(s);
    j++;
  }
  cr_assert_eq(j, n, "%s: pip has %zu tags, we have %zu", python, n, j);
  for (size_t i = 0; i < n; i++)
    free(pip[i]);
  free(pip);
  ts_tagset_free(set);
}

Test(tags, same_order_as_pip_python3) { compare_with_pip("python3"); }
Test(tags, same_order_as_pip_usr_bin_python3) { compare_with_pip("/usr/bin/python3"); }

Test(tags, hostile_strings)
{
  size_t n = 1 << 20;
  char *big = malloc(n + 1);
  memset(big, 'a', n);
  big[10] = '-';
  big[20] = '-';
  big[n] = '\0';
  const char *list[] = {big};
  struct ts_tagset *set = (struct ts_tagset *)1;
  struct ts_error err = {0};
  cr_assert_eq(ts_tagset_from_strings(list, 1, &set, &err), TS_E_PARSE);
  cr_assert_null(set);
  /* Many pieces in a compressed set. */
  memset(big, 0, n);
  strcpy(big, "py3-none-");
  for (int i = 0; i < 100; i++)
    strcat(big, i ? ".any" : "any");
  cr_assert_eq(ts_tagset_from_strings(list, 1, &set, &err), TS_E_PARSE);
  free(big);
  /* Lookups of unknown or odd strings simply miss. */
  struct ts_tagset *host = build(cp312_glibc236);
  cr_assert_eq(ts_tagset_priority(host, "", "", ""), -1);
  cr_assert_eq(ts_tagset_priority(host, "\xff", "abi3", "any"), -1);
  cr_assert_eq(ts_tagset_best_priority(host, NULL, 0), -1);
  ts_tagset_free(host);
}
