/* Unit tests for the profiles of a fleet lock in lock/pylock.h:
 * [tool.torchsolve.profiles.NAME] and default-profile, written and read. */
#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>

#include "core/str.h"
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

/* A universal lock's grid: [tool.torchsolve.universal], each dimension
 * in the order given, read back to the same bytes; a value that is no
 * string array is refused naming the key. */
Test(universal, grid_written_as_given_and_read_back) {
  static const char *const none[] = {NULL};
  struct ts_pylock *l = with_profiles(none, 0);
  char *systems[] = {"linux", "darwin", "win32"}, *machines[] = {"x86_64", "arm64"};
  char *impls[] = {"cpython"}, *pythons[] = {"3.10.1", "3.11"};
  struct ts_pylock_grid g = {.systems = systems, .nsystems = 3, .machines = machines,
                             .nmachines = 2, .implementations = impls,
                             .nimplementations = 1, .pythons = pythons, .npythons = 2};
  ts_pylock_set_grid(l, &g);
  ts_pylock_set_grid(l, &g); /* replaces */
  char *t = text(l);
  cr_assert(strstr(t, "[tool.torchsolve.universal]\n"
                      "systems = [\"linux\", \"darwin\", \"win32\"]\n"
                      "machines = [\"x86_64\", \"arm64\"]\n"
                      "implementations = [\"cpython\"]\n"
                      "pythons = [\"3.10.1\", \"3.11\"]\n"),
            "%s", t);
  cr_assert_null(strstr(t, "[tool.torchsolve.host]"), "%s", t);
  struct ts_pylock *r = NULL;
  struct ts_error err = {0};
  cr_assert_eq(ts_pylock_parse(t, strlen(t), "t", &r, &err), TS_OK, "%s", err.detail);
  cr_assert_not_null(r->grid);
  cr_assert_eq(r->grid->nsystems, 3);
  cr_assert_str_eq(r->grid->pythons[0], "3.10.1");
  char *tr = text(r);
  cr_assert_str_eq(tr, t);
  free(tr);
  ts_pylock_free(r);
  char *line = strstr(t, "pythons = [");
  *line = '\0';
  char *bad = ts_xasprintf("%spythons = \"3.11\"\n", t);
  cr_assert_eq(ts_pylock_parse(bad, strlen(bad), "t", &r, &err), TS_E_PARSE);
  cr_assert(strstr(err.detail, "pythons"), "%s", err.detail);
  free(bad);
  free(t);
  ts_pylock_free(l);
}
