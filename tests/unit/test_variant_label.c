/* Unit tests for variant/label.h: labels in wheel file names. */
#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>

#include "variant/label.h"

static void split_ok(const char *name, const char *plain, const char *label)
{
  char *p = NULL, *l = NULL;
  struct ts_error err = {0};
  cr_assert_eq(ts_variant_split_filename(name, strlen(name), &p, &l, &err), TS_OK, "%s: %s",
               name, err.detail);
  cr_assert_str_eq(p, plain);
  if (label)
    cr_assert_str_eq(l, label);
  else
    cr_assert_null(l, "%s has no label, got %s", name, l);
  free(p);
  free(l);
}

Test(variant_label, six_parts_label_or_build_tag)
{
  split_ok("torch-2.10.0-cp314-cp314t-manylinux_2_28_x86_64-cuda12.8.whl",
           "torch-2.10.0-cp314-cp314t-manylinux_2_28_x86_64.whl", "cuda12.8");
  /* a third part starting with a digit is a build tag */
  split_ok("pkg-1.0-1-py3-none-any.whl", "pkg-1.0-1-py3-none-any.whl", NULL);
  split_ok("nvlib-1.0-py3-none-any-cu13.whl", "nvlib-1.0-py3-none-any.whl", "cu13");
  split_ok("pkg-1.0-py3-none-any.whl", "pkg-1.0-py3-none-any.whl", NULL);
}

Test(variant_label, seven_parts_and_null)
{
  split_ok("pkg-1.0-2-py3-none-any-null.whl", "pkg-1.0-2-py3-none-any.whl", "null");
  /* no length cap */
  split_ok("pkg-1.0-py3-none-any-a_very_long_label.v2.whl", "pkg-1.0-py3-none-any.whl",
           "a_very_long_label.v2");
}

Test(variant_label, refusals)
{
  const char *bad[] = {"pkg-1.0-py3-none-any-CU13.whl", "pkg-1.0-py3-none-any-c+u.whl",
                       "pkg-1.0-1-py3-none-any-x-y.whl", "pkg-1.0-none-any.whl",
                       "pkg-1.0-py3-none-any.tar.gz", "pkg-1.0-py3-none-any-.whl"};
  for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
    char *p = (char *)1, *l = (char *)1;
    struct ts_error err = {0};
    cr_assert_eq(ts_variant_split_filename(bad[i], strlen(bad[i]), &p, &l, &err), TS_E_PARSE,
                 "%s should be refused", bad[i]);
    cr_assert_null(p);
    cr_assert_null(l);
    cr_assert(err.detail[0]);
  }
  cr_assert(ts_variant_label_valid("cuda12.8", 8));
  cr_assert_not(ts_variant_label_valid("", 0));
  cr_assert_not(ts_variant_label_valid("Cu", 2));
}

Test(variant_label, metadata_file_of_a_release)
{
  cr_assert(ts_variant_is_metadata_file("torch-2.10.0-variants.json", "torch", "2.10.0"));
  /* the project's name compared as PEP 503 normalizes it, both sides */
  cr_assert(ts_variant_is_metadata_file("My_Pkg-1.0-variants.json", "my-pkg", "1.0"));
  cr_assert(ts_variant_is_metadata_file("my-pkg-1.0-variants.json", "My.Pkg", "1.0"));
  cr_assert_not(ts_variant_is_metadata_file("torch-2.10.0-variants.json", "torch", "2.10"));
  cr_assert_not(ts_variant_is_metadata_file("torch-2.1.0-variants.json", "torch", "1.0"));
  cr_assert_not(ts_variant_is_metadata_file("torchvision-2.10.0-variants.json", "torch", "2.10.0"));
  cr_assert_not(ts_variant_is_metadata_file("torch-2.10.0-variants.jsonx", "torch", "2.10.0"));
  cr_assert_not(ts_variant_is_metadata_file("2.10.0-variants.json", "torch", "2.10.0"));
}
