/* Unit tests for variant/metadata.h: both schemas, refusals, no crash. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "variant/metadata.h"

static char *slurp(const char *name, size_t *len)
{
  char path[512];
  snprintf(path, sizeof path, "%s/variant/%s", TS_FIXTURES_DIR, name);
  FILE *f = fopen(path, "rb");
  cr_assert_not_null(f, "%s", path);
  char *buf = malloc(65536);
  *len = fread(buf, 1, 65536, f);
  fclose(f);
  return buf;
}

Test(variant_metadata, variantlib_v003)
{
  size_t len;
  char *data = slurp("torchlike-2.10.0-variants.json", &len);
  struct ts_variant_metadata m;
  struct ts_error err = {0};
  cr_assert_eq(ts_variant_metadata_parse(data, len, "torchlike", &m, &err), TS_OK, "%s",
               err.detail);
  cr_assert_eq(m.schema, TS_VARIANT_SCHEMA_VARIANTLIB);
  cr_assert_eq(m.nnamespaces, 3);
  cr_assert_str_eq(m.namespaces[0], "nvidia");
  cr_assert_eq(m.nvariants, 6);
  cr_assert_str_eq(m.variants[0].label, "cuda12.6"); /* sorted by label */
  const struct ts_variant_entry *e = ts_variant_metadata_find(&m, "rocm7.1");
  cr_assert_not_null(e);
  cr_assert_eq(e->nfeatures, 2);
  cr_assert_str_eq(e->features[0].feature, "gfx_arch");
  cr_assert_eq(ts_variant_metadata_find(&m, "null")->nfeatures, 0);
  cr_assert_eq(m.nfeature_priority, 4);
  const struct ts_variant_provider_info *x = ts_variant_metadata_provider(&m, "x86_64");
  cr_assert(x && !x->install_time);
  cr_assert(ts_variant_metadata_provider(&m, "nvidia")->install_time);
  cr_assert_eq(m.nstatic_properties, 1);
  cr_assert_eq(m.static_properties[0].nvalues, 3);
  ts_variant_metadata_clear(&m);
  free(data);
}

Test(variant_metadata, pep825_v011)
{
  size_t len;
  char *data = slurp("nvlib-1.0-variants.json", &len);
  struct ts_variant_metadata m;
  struct ts_error err = {0};
  cr_assert_eq(ts_variant_metadata_parse(data, len, "nvlib", &m, &err), TS_OK, "%s",
               err.detail);
  cr_assert_eq(m.schema, TS_VARIANT_SCHEMA_PEP825);
  cr_assert_eq(m.nvariants, 2);
  cr_assert_eq(m.nproviders, 0);
  ts_variant_metadata_clear(&m);
  free(data);
}

Test(variant_metadata, unknown_major_schema_is_unsupported)
{
  size_t len;
  char *data = slurp("future-schema-variants.json", &len);
  struct ts_variant_metadata m;
  struct ts_error err = {0};
  cr_assert_eq(ts_variant_metadata_parse(data, len, "future", &m, &err), TS_E_UNSUPPORTED);
  cr_assert(strstr(err.detail, "v1.0.0"), "%s", err.detail);
  ts_variant_metadata_clear(&m);
  free(data);
}

Test(variant_metadata, malformed_is_a_parse_error)
{
  const char *bad[] = {
      "", "[]", "{", "{\"default-priorities\": 3}",
      "{\"default-priorities\": {\"namespace\": []}, \"variants\": []}",
      "{\"default-priorities\": {\"namespace\": [\"Nv\"]}, \"variants\": {}}",
      "{\"default-priorities\": {\"namespace\": [\"nv\", \"nv\"]}, \"variants\": {}}",
      "{\"default-priorities\": {\"namespace\": [\"nv\"]}, \"variants\": {\"A\": {}}}",
      "{\"default-priorities\": {\"namespace\": [\"nv\"]}, \"variants\": {\"a\": {\"nv\": {\"f\": []}}}}",
      "{\"default-priorities\": {\"namespace\": [\"nv\"]}, \"variants\": {\"a\": {\"nv\": {\"f\": [1]}}}}",
      "{\"$schema\": 7, \"default-priorities\": {\"namespace\": [\"nv\"]}, \"variants\": {}}",
      "{\"default-priorities\": {\"namespace\": [\"nv\"]}, \"providers\": {\"nv\": {\"install-time\": \"no\"}}, \"variants\": {}}",
  };
  for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
    struct ts_variant_metadata m;
    struct ts_error err = {0};
    cr_assert_eq(ts_variant_metadata_parse(bad[i], strlen(bad[i]), "x", &m, &err), TS_E_PARSE,
                 "case %zu should fail", i);
    cr_assert(err.detail[0]);
    ts_variant_metadata_clear(&m);
  }
}
