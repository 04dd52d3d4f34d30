/* request/formatctl.h: pip's --no-binary / --only-binary sets. */
#include <criterion/criterion.h>
#include <string.h>

#include "request/formatctl.h"

static bool has(char *const *v, size_t n, const char *s) {
  for (size_t i = 0; i < n; i++)
    if (strcmp(v[i], s) == 0)
      return true;
  return false;
}

Test(formatctl, names_move_between_sets) {
  struct ts_formatctl fc = {0};
  struct ts_error err = {0};
  cr_assert_eq(ts_formatctl_add(&fc, "Foo_Bar,baz", true, &err), TS_OK);
  cr_assert_eq(fc.nno_binary, 2);
  cr_assert(has(fc.no_binary, fc.nno_binary, "foo-bar"));
  cr_assert_eq(ts_formatctl_add(&fc, "baz", false, &err), TS_OK);
  cr_assert_eq(fc.nno_binary, 1);
  cr_assert(has(fc.only_binary, fc.nonly_binary, "baz"));
  ts_formatctl_clear(&fc);
}

Test(formatctl, all_and_none) {
  struct ts_formatctl fc = {0};
  struct ts_error err = {0};
  cr_assert_eq(ts_formatctl_add(&fc, "a", false, &err), TS_OK);
  cr_assert_eq(ts_formatctl_add(&fc, ":all:", true, &err), TS_OK);
  cr_assert_eq(fc.nonly_binary, 0); /* :all: empties both */
  cr_assert_eq(fc.nno_binary, 1);
  cr_assert_str_eq(fc.no_binary[0], TS_FORMATCTL_ALL);
  cr_assert_eq(ts_formatctl_add(&fc, ":none:,b", true, &err), TS_OK);
  cr_assert_eq(fc.nno_binary, 1);
  cr_assert_str_eq(fc.no_binary[0], "b");
  ts_formatctl_clear(&fc);
}

Test(formatctl, bad_items_change_nothing) {
  struct ts_formatctl fc = {0};
  struct ts_error err = {0};
  cr_assert_eq(ts_formatctl_add(&fc, "a,-x", true, &err), TS_E_INVALID);
  cr_assert(strstr(err.detail, "'-x' is no project name"), "%s", err.detail);
  cr_assert_eq(fc.nno_binary, 0);
  cr_assert_eq(ts_formatctl_add(&fc, "a,,b", true, &err), TS_E_INVALID);
  cr_assert_eq(ts_formatctl_add(&fc, "", false, &err), TS_E_INVALID);
  cr_assert_eq(fc.nno_binary + fc.nonly_binary, 0);
  ts_formatctl_clear(&fc);
}

Test(formatctl, requirements_file_values) {
  struct ts_reqfile rf;
  ts_reqfile_init(&rf);
  struct ts_error err = {0};
  const char text[] = "--no-binary :all:\n--only-binary six\nsix\n";
  cr_assert_eq(ts_reqfile_add_buffer(&rf, "r.txt", text, sizeof text - 1, false, NULL, &err),
               TS_OK, "%s", err.detail);
  struct ts_formatctl fc = {0};
  cr_assert_eq(ts_formatctl_add(&fc, "numpy", false, &err), TS_OK);
  cr_assert_eq(ts_formatctl_add_reqfile(&fc, &rf, &err), TS_OK);
  /* the file's :all: came after the command line's numpy: it is gone */
  cr_assert_eq(fc.nno_binary, 1);
  cr_assert_str_eq(fc.no_binary[0], ":all:");
  cr_assert_eq(fc.nonly_binary, 1);
  cr_assert_str_eq(fc.only_binary[0], "six");
  ts_formatctl_clear(&fc);
  ts_reqfile_clear(&rf);
}
