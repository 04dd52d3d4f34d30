/* Unit tests for the profiles of a fleet lock in lock/pylock.h:
 * [tool.torchsolve.profiles.NAME] and default-profile, written and read. */
#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>

#include "lock/pylock.h"

static char *text(const struct ts_pylock *l) {
  struct ts_buf b;
  ts_buf_init(&b, 0);
  struct ts_error err = {0};
  cr_assert_eq(ts_pylock_write(l, &b, &err), TS_OK, "%s", err.detail);
  return ts_buf_take(&b, NULL);
}

static struct ts_pylock *with_profiles(const char *const *names, size_t n) {
  struct ts_pylock *l = ts_pylock_new();
  cr_assert_not_null(ts_pylock_add_package(l, "numpy", "2.1.0"));
  cr_assert_not_null(ts_pylock_add_wheel(&l->packages[0], "numpy-2.1.0-py3-none-any.whl",
                                         "https://example.org/numpy-2.1.0-py3-none-any.whl",
                                         NULL, 1, NULL,
                                         "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"));
  for (size_t i = 0; i < n; i++) {
    struct ts_pylock_profile *p = ts_pylock_add_profile(l, names[i]);
    cr_assert_not_null(p);
    cr_assert_eq(ts_pylock_profile_set_fact(p, "__glibc", "2.36"), TS_OK);
    cr_assert_eq(ts_pylock_profile_add_rule_id(p, "torchvision-pairing"), TS_OK);
  }
  return l;
}

Test(profiles, default_first_others_by_name_and_read_back) {
  static const char *const a[] = {"cu126", "rocm6-4", "cpu"};
  static const char *const b[] = {"cu126", "cpu", "rocm6-4"};
  struct ts_pylock *la = with_profiles(a, 3), *lb = with_profiles(b, 3);
  cr_assert_null(ts_pylock_add_profile(la, "cpu"), "a profile name twice");
  char *ta = text(la), *tb = text(lb);
  cr_assert_str_eq(ta, tb);
  cr_assert(strstr(ta, "default-profile = \"cu126\""), "%s", ta);
  char *cpu = strstr(ta, "[tool.torchsolve.profiles.cpu]");
  char *rocm = strstr(ta, "[tool.torchsolve.profiles.rocm6-4]");
  cr_assert(cpu && rocm && cpu < rocm, "%s", ta);
  struct ts_pylock *r = NULL;
  struct ts_error err = {0};
  cr_assert_eq(ts_pylock_parse(ta, strlen(ta), "t", &r, &err), TS_OK, "%s", err.detail);
  cr_assert_eq(r->nprofiles, 3);
  cr_assert_str_eq(r->profiles[0].name, "cu126");
  cr_assert_str_eq(r->profiles[1].name, "cpu");
  cr_assert_str_eq(r->profiles[2].name, "rocm6-4");
  cr_assert_eq(r->profiles[2].nhost_facts, 1);
  cr_assert_str_eq(r->profiles[2].rule_ids[0], "torchvision-pairing");
  cr_assert_not_null(ts_pylock_find_profile(r, "cpu"));
  cr_assert_null(ts_pylock_find_profile(r, "cu130"));
  char *tr = text(r);
  cr_assert_str_eq(tr, ta);
  free(tr);
  free(ta);
  free(tb);
  ts_pylock_free(r);
  ts_pylock_free(la);
  ts_pylock_free(lb);
}

Test(profiles, default_profile_must_name_one) {
  static const char *const a[] = {"cpu", "cu126"};
  struct ts_pylock *l = with_profiles(a, 2);
  char *t = text(l);
  char *d = strstr(t, "default-profile = \"cpu\"");
  cr_assert_not_null(d);
  memcpy(d + strlen("default-profile = \""), "xyz", 3);
  struct ts_pylock *r = NULL;
  struct ts_error err = {0};
  cr_assert_eq(ts_pylock_parse(t, strlen(t), "t", &r, &err), TS_E_PARSE);
  cr_assert(strstr(err.detail, "'xyz' names none of the profiles"), "%s", err.detail);
  free(t);
  ts_pylock_free(l);
}
