/* Unit tests for lockgen/fleet.h: several resolutions merged into one lock,
 * identical entries once, the others under their inputs' conditions. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lockgen/fleet.h"

static const char hex_a[] = "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa";
static const char hex_b[] = "bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb";

static void add(struct ts_pylock *l, const char *name, const char *version, const char *sha) {
  struct ts_pylock_package *p = ts_pylock_add_package(l, name, version);
  cr_assert_not_null(p);
  char fn[128], url[160];
  snprintf(fn, sizeof fn, "%s-%s-py3-none-any.whl", name, version);
  snprintf(url, sizeof url, "https://example.org/%s", fn);
  cr_assert_not_null(ts_pylock_add_wheel(p, fn, url, NULL, 10, NULL, sha));
}

static char *text(const struct ts_pylock *l) {
  struct ts_buf b;
  ts_buf_init(&b, 0);
  struct ts_error err = {0};
  cr_assert_eq(ts_pylock_write(l, &b, &err), TS_OK, "%s", err.detail);
  return ts_buf_take(&b, NULL);
}

static const struct ts_pylock_package *find(const struct ts_pylock *l, const char *name,
                                            const char *version) {
  for (size_t i = 0; i < l->npackages; i++)
    if (!strcmp(l->packages[i].name, name) && !strcmp(l->packages[i].version, version))
      return &l->packages[i];
  return NULL;
}

/* cpu, cu126, rocm: numpy the same everywhere, torch per input, triton
 * only in cu126, filelock in cpu and rocm only. */
struct three {
  struct ts_pylock *l[3];
  struct ts_fleet_input in[3];
};

static void three_init(struct three *t) {
  static const char *cond[3] = {
      "'cu126' not in extras and 'rocm6-4' not in extras",
      "'cu126' in extras and 'rocm6-4' not in extras",
      "'rocm6-4' in extras and 'cu126' not in extras"};
  static const char *torch[3] = {"2.9.1+cpu", "2.9.1+cu126", "2.9.1+rocm6.4"};
  for (int i = 0; i < 3; i++) {
    t->l[i] = ts_pylock_new();
    add(t->l[i], "numpy", "2.1.0", hex_a);
    add(t->l[i], "torch", torch[i], hex_b);
    if (i == 1)
      add(t->l[i], "triton", "3.5.0", hex_a);
    else
      add(t->l[i], "filelock", "3.0", hex_a);
    t->in[i] = (struct ts_fleet_input){t->l[i], cond[i]};
  }
}

static void three_free(struct three *t) {
  for (int i = 0; i < 3; i++)
    ts_pylock_free(t->l[i]);
}

Test(fleet, identical_entries_once_the_others_under_conditions) {
  struct three t;
  three_init(&t);
  struct ts_pylock *m = NULL;
  struct ts_error err = {0};
  cr_assert_eq(ts_fleet_merge(t.in, 3, &m, &err), TS_OK, "%s", err.detail);
  cr_assert_eq(m->npackages, 6, "%zu", m->npackages);
  cr_assert_null(find(m, "numpy", "2.1.0")->marker);
  cr_assert_str_eq(find(m, "torch", "2.9.1+cu126")->marker,
                   "'cu126' in extras and 'rocm6-4' not in extras");
  cr_assert_str_eq(find(m, "triton", "3.5.0")->marker,
                   "'cu126' in extras and 'rocm6-4' not in extras");
  cr_assert_str_eq(find(m, "filelock", "3.0")->marker,
                   "('cu126' not in extras and 'rocm6-4' not in extras) or "
                   "('rocm6-4' in extras and 'cu126' not in extras)");
  ts_pylock_free(m);
  three_free(&t);
}

Test(fleet, same_bytes_whatever_the_input_order) {
  struct three t;
  three_init(&t);
  struct ts_pylock *m = NULL;
  struct ts_error err = {0};
  cr_assert_eq(ts_fleet_merge(t.in, 3, &m, &err), TS_OK, "%s", err.detail);
  char *a = text(m);
  ts_pylock_free(m);
  struct ts_fleet_input rev[3] = {t.in[2], t.in[0], t.in[1]};
  cr_assert_eq(ts_fleet_merge(rev, 3, &m, &err), TS_OK, "%s", err.detail);
  char *b = text(m);
  cr_assert_str_eq(a, b);
  free(a);
  free(b);
  ts_pylock_free(m);
  three_free(&t);
}

Test(fleet, an_entry_marker_is_anded_with_parentheses_for_or) {
  struct ts_pylock *a = ts_pylock_new(), *b = ts_pylock_new();
  add(a, "colorama", "0.4.6", hex_a);
  a->packages[0].marker = strdup("sys_platform == \"win32\" or sys_platform == \"cygwin\"");
  add(b, "numpy", "2.1.0", hex_a);
  struct ts_fleet_input in[2] = {{a, "'x' in extras"}, {b, "'x' not in extras"}};
  struct ts_pylock *m = NULL;
  struct ts_error err = {0};
  cr_assert_eq(ts_fleet_merge(in, 2, &m, &err), TS_OK, "%s", err.detail);
  cr_assert_str_eq(find(m, "colorama", "0.4.6")->marker,
                   "(sys_platform == \"win32\" or sys_platform == \"cygwin\") and "
                   "'x' in extras");
  cr_assert_str_eq(find(m, "numpy", "2.1.0")->marker, "'x' not in extras");
  ts_pylock_free(m);
  ts_pylock_free(a);
  ts_pylock_free(b);
}

Test(fleet, entries_of_one_version_that_differ_are_both_kept) {
  struct ts_pylock *a = ts_pylock_new(), *b = ts_pylock_new();
  add(a, "numpy", "2.1.0", hex_a);
  add(b, "numpy", "2.1.0", hex_b); /* another file */
  struct ts_fleet_input in[2] = {{a, "python_version < \"3.12\""},
                                 {b, "python_version >= \"3.12\""}};
  struct ts_pylock *m = NULL;
  struct ts_error err = {0};
  cr_assert_eq(ts_fleet_merge(in, 2, &m, &err), TS_OK, "%s", err.detail);
  cr_assert_eq(m->npackages, 2);
  cr_assert_str_neq(m->packages[0].marker, m->packages[1].marker);
  ts_pylock_free(m);
  ts_pylock_free(a);
  ts_pylock_free(b);
}

Test(fleet, refuses_missing_and_malformed_conditions) {
  struct ts_pylock *a = ts_pylock_new();
  add(a, "numpy", "2.1.0", hex_a);
  struct ts_pylock *m = NULL;
  struct ts_error err = {0};
  struct ts_fleet_input one = {a, NULL};
  cr_assert_eq(ts_fleet_merge(&one, 1, &m, &err), TS_OK, "%s", err.detail);
  cr_assert_null(m->packages[0].marker);
  ts_pylock_free(m);
  struct ts_fleet_input two[2] = {{a, NULL}, {a, "'x' in extras"}};
  cr_assert_eq(ts_fleet_merge(two, 2, &m, &err), TS_E_INVALID);
  cr_assert_null(m);
  cr_assert(strstr(err.detail, "no marker condition"), "%s", err.detail);
  two[0].condition = "'x' in";
  cr_assert_eq(ts_fleet_merge(two, 2, &m, &err), TS_E_INVALID);
  cr_assert(strstr(err.detail, "is not a marker"), "%s", err.detail);
  ts_pylock_free(a);
}

Test(fleet, marker_and_parenthesises_or_only) {
  char *s = ts_fleet_marker_and("a == \"1\" or b == \"2\"", "'x' in extras and c == \"3\"");
  cr_assert_str_eq(s, "(a == \"1\" or b == \"2\") and 'x' in extras and c == \"3\"");
  free(s);
  s = ts_fleet_marker_and(NULL, "'x' in extras");
  cr_assert_str_eq(s, "'x' in extras");
  free(s);
  cr_assert_null(ts_fleet_marker_and(NULL, NULL));
}
