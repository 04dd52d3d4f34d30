/* Unit tests for lock/selection.h: the extras and groups sync and export
 * take from a lock, and the part of a lock they select. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lock/selection.h"

#define H64(c) c c c c c c c c c c c c c c c c c c c c c c c c c c c c c c c c \
               c c c c c c c c c c c c c c c c c c c c c c c c c c c c c c c c
#define WHEEL(file, h) \
  "wheels = [{url = \"https://x/" file "\", hashes = {sha256 = \"" H64(h) "\"}}]\n"

/* A project's fleet lock: profiles cpu (the default) and cu126, extras
 * cli and viz, groups lint and test, a synthetic default group. */
static const char *LOCK =
    "lock-version = \"1.0\"\ncreated-by = \"t\"\nrequires-python = \">=3.10\"\n"
    "extras = [\"cli\", \"cpu\", \"cu126\", \"viz\"]\n"
    "dependency-groups = [\"lint\", \"test\"]\ndefault-groups = [\"base\"]\n"
    "[[packages]]\nname = \"numpy\"\nversion = \"2.1.0\"\n"
    WHEEL("numpy-2.1.0-py3-none-any.whl", "a")
    "[[packages]]\nname = \"torch\"\nversion = \"2.9.1+cpu\"\n"
    "marker = \"'cu126' not in extras\"\n"
    WHEEL("torch-2.9.1%2Bcpu-py3-none-any.whl", "b")
    "[[packages]]\nname = \"torch\"\nversion = \"2.9.1+cu126\"\n"
    "marker = \"'cu126' in extras\"\n"
    WHEEL("torch-2.9.1%2Bcu126-py3-none-any.whl", "c")
    "[[packages]]\nname = \"rich\"\nversion = \"13.0\"\n"
    "marker = \"'cli' in extras\"\n"
    WHEEL("rich-13.0-py3-none-any.whl", "d")
    "[[packages]]\nname = \"colorama\"\nversion = \"0.4.6\"\n"
    "marker = \"sys_platform == 'win32' and 'cli' in extras\"\n"
    WHEEL("colorama-0.4.6-py3-none-any.whl", "e")
    "[[packages]]\nname = \"pytest\"\nversion = \"8.0\"\n"
    "marker = \"'test' in dependency_groups\"\n"
    WHEEL("pytest-8.0-py3-none-any.whl", "f")
    "[[packages]]\nname = \"tomli\"\nversion = \"2.0\"\n"
    "marker = \"'base' in dependency_groups and python_version < '3.11'\"\n"
    WHEEL("tomli-2.0-py3-none-any.whl", "9")
    "[tool.torchsolve]\ndefault-profile = \"cpu\"\n"
    "[tool.torchsolve.profiles.cpu]\nbackend = \"cpu\"\n"
    "[tool.torchsolve.profiles.cu126]\nbackend = \"cu126\"\n";

static struct ts_pylock *lock(void) {
  struct ts_pylock *l = NULL;
  struct ts_error err = {0};
  cr_assert_eq(ts_pylock_parse(LOCK, strlen(LOCK), "t", &l, &err), TS_OK, "%s", err.detail);
  return l;
}

static const char *joined(char *const *v, size_t n) {
  static char buf[2][256];
  static int k;
  char *b = buf[k++ % 2];
  size_t used = 0;
  b[0] = '\0';
  for (size_t i = 0; i < n && used < sizeof buf[0]; i++)
    used += (size_t)snprintf(b + used, sizeof buf[0] - used, "%s%s", i ? "," : "", v[i]);
  return b;
}

Test(selection, defaults_names_all_and_the_profile) {
  struct ts_pylock *l = lock();
  struct ts_lock_selection s;
  struct ts_error err = {0};
  cr_assert_eq(ts_lock_select(l, NULL, NULL, &s, &err), TS_OK, "%s", err.detail);
  cr_expect_str_eq(joined(s.extras, s.nextras), "");
  cr_expect_str_eq(joined(s.groups, s.ngroups), "base");
  ts_lock_selection_clear(&s);

  /* any spelling, any order, twice: one sorted set */
  const char *extras[] = {"VIZ", "Cli", "viz"}, *groups[] = {"Test"};
  struct ts_lock_request rq = {.extras = extras, .nextras = 3, .groups = groups, .ngroups = 1};
  cr_assert_eq(ts_lock_select(l, &rq, "cu126", &s, &err), TS_OK, "%s", err.detail);
  cr_expect_str_eq(joined(s.extras, s.nextras), "cli,cu126,viz");
  cr_expect_str_eq(joined(s.groups, s.ngroups), "base,test");
  ts_lock_selection_clear(&s);

  struct ts_lock_request all = {.all_extras = true, .all_groups = true,
                                .no_default_groups = true};
  cr_assert_eq(ts_lock_select(l, &all, NULL, &s, &err), TS_OK, "%s", err.detail);
  cr_expect_str_eq(joined(s.extras, s.nextras), "cli,viz", "the profiles are no extras to take");
  cr_expect_str_eq(joined(s.groups, s.ngroups), "lint,test");
  ts_lock_selection_clear(&s);
  ts_pylock_free(l);
}

Test(selection, refuses_what_the_lock_does_not_declare) {
  struct ts_pylock *l = lock();
  struct ts_lock_selection s;
  static const struct {
    const char *extra, *group, *want;
  } cases[] = {
      {"gpu", NULL, "--extra gpu: the lock has no such extra (it has cli, viz)"},
      {"cu126", NULL, "--extra cu126: that is a GPU profile of the lock; choose it with "
                      "--profile cu126"},
      {NULL, "docs", "--group docs: the lock has no such dependency group (it has lint, test)"},
      {NULL, "base", "--group base: the lock has no such dependency group"},
  };
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    struct ts_error err = {0};
    struct ts_lock_request rq = {.extras = &cases[i].extra, .nextras = cases[i].extra != NULL,
                                 .groups = &cases[i].group, .ngroups = cases[i].group != NULL};
    cr_expect_eq(ts_lock_select(l, &rq, NULL, &s, &err), TS_E_INVALID);
    cr_expect(strstr(err.detail, cases[i].want), "%s", err.detail);
    ts_lock_selection_clear(&s);
  }
  ts_pylock_free(l);
  /* a lock without extras says so */
  struct ts_pylock *bare = NULL;
  struct ts_error err = {0};
  const char *text = "lock-version = \"1.0\"\ncreated-by = \"t\"\npackages = []\n";
  cr_assert_eq(ts_pylock_parse(text, strlen(text), "t", &bare, &err), TS_OK, "%s", err.detail);
  const char *x[] = {"x"};
  struct ts_lock_request rq = {.extras = x, .nextras = 1};
  cr_expect_eq(ts_lock_select(bare, &rq, NULL, &s, &err), TS_E_INVALID);
  cr_expect(strstr(err.detail, "--extra x: the lock declares no extras"), "%s", err.detail);
  ts_lock_selection_clear(&s);
  ts_pylock_free(bare);
}

static const char *entries(const struct ts_pylock *l) {
  static char buf[512];
  size_t n = 0;
  buf[0] = '\0';
  for (size_t i = 0; i < l->npackages && n < sizeof buf; i++)
    n += (size_t)snprintf(buf + n, sizeof buf - n, "%s%s=%s%s%s%s", i ? " " : "",
                          l->packages[i].name, l->packages[i].version,
                          l->packages[i].marker ? "[" : "",
                          l->packages[i].marker ? l->packages[i].marker : "",
                          l->packages[i].marker ? "]" : "");
  return buf;
}

Test(selection, apply_keeps_the_selected_part_and_the_environment_markers) {
  struct ts_pylock *l = lock();
  struct ts_lock_selection s;
  struct ts_error err = {0};
  const char *cli[] = {"cli"}, *test[] = {"test"};
  struct ts_lock_request rq = {.extras = cli, .nextras = 1, .groups = test, .ngroups = 1};
  cr_assert_eq(ts_lock_select(l, &rq, "cu126", &s, &err), TS_OK, "%s", err.detail);
  cr_assert_eq(ts_lock_selection_apply(l, &s, &err), TS_OK, "%s", err.detail);
  cr_expect_str_eq(entries(l), "numpy=2.1.0 torch=2.9.1+cu126 rich=13.0 "
                               "colorama=0.4.6[sys_platform == \"win32\"] pytest=8.0 "
                               "tomli=2.0[python_version < \"3.11\"]");
  ts_lock_selection_clear(&s);
  ts_pylock_free(l);

  l = lock();
  cr_assert_eq(ts_lock_select(l, NULL, "cpu", &s, &err), TS_OK, "%s", err.detail);
  cr_assert_eq(ts_lock_selection_apply(l, &s, &err), TS_OK, "%s", err.detail);
  cr_expect_str_eq(entries(l), "numpy=2.1.0 torch=2.9.1+cpu tomli=2.0[python_version < \"3.11\"]");
  ts_lock_selection_clear(&s);
  ts_pylock_free(l);
}
