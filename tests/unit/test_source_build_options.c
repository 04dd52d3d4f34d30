/*
 * source/build.h: the order -C settings take in a build's cache key and a
 * lock's config-settings.
 */
#include <criterion/criterion.h>
#include <stdlib.h>

#include "source/build.h"

static void expect(const char *const *given, size_t n, const char *const *want) {
  const char **got = ts_source_config_settings_sorted(given, n);
  for (size_t i = 0; i < n; i++)
    cr_assert_str_eq(got[i], want[i], "setting %zu", i);
  free(got);
}

Test(plan_build, settings_by_key_values_in_given_order) {
  /* the command line's order of keys does not matter... */
  const char *a[] = {"mode=fast", "flag=a", "flag=b"};
  const char *b[] = {"flag=a", "mode=fast", "flag=b"};
  const char *want[] = {"flag=a", "flag=b", "mode=fast"};
  expect(a, 3, want);
  expect(b, 3, want);
  /* ...but a repeated key's values are a list the backend sees in order */
  const char *c[] = {"flag=b", "mode=fast", "flag=a"};
  const char *want_c[] = {"flag=b", "flag=a", "mode=fast"};
  expect(c, 3, want_c);
  /* a key that prefixes another sorts first; no '=' is a key alone */
  const char *d[] = {"ab=1", "a=2", "a"};
  const char *want_d[] = {"a=2", "a", "ab=1"};
  expect(d, 3, want_d);
}

Test(plan_build, no_settings) {
  const char **got = ts_source_config_settings_sorted(NULL, 0);
  cr_assert_not_null(got);
  free(got);
}
