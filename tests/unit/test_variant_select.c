/* Unit tests for variant/provider.h and variant/select.h: the labels the
 * issue's hosts must get from a torch-like and a PEP 825 file. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "host/host.h"
#include "variant/provider.h"
#include "variant/select.h"

static void load(const char *name, struct ts_variant_metadata *m)
{
  char path[512];
  snprintf(path, sizeof path, "%s/variant/%s", TS_FIXTURES_DIR, name);
  FILE *f = fopen(path, "rb");
  cr_assert_not_null(f, "%s", path);
  static char buf[65536];
  size_t len = fread(buf, 1, sizeof buf, f);
  fclose(f);
  struct ts_error err = {0};
  cr_assert_eq(ts_variant_metadata_parse(buf, len, name, m, &err), TS_OK, "%s", err.detail);
}

/* The first compatible label for a host with this driver CUDA and these
 * compute capabilities (or gfx/ROCm). */
static char *best(const char *file, const char *cuda, const char *cc, const char *gfx,
                  const char *rocm)
{
  struct ts_host_cuda_gpu gpu = {.compute_capability = (char *)cc};
  struct ts_host_rocm_gpu agpu = {.gfx = (char *)gfx};
  struct ts_host h = {.machine = "x86_64", .cuda_version = (char *)cuda,
                      .cuda_gpus = cc ? &gpu : NULL, .ncuda_gpus = cc ? 1 : 0,
                      .rocm_version = (char *)rocm, .rocm_gpus = gfx ? &agpu : NULL,
                      .nrocm_gpus = gfx ? 1 : 0};
  struct ts_variant_supported sup;
  struct ts_error err = {0};
  cr_assert_eq(ts_variant_supported_from_host(&h, NULL, &sup, &err), TS_OK, "%s", err.detail);
  struct ts_variant_metadata m;
  load(file, &m);
  struct ts_variant_selection sel;
  ts_variant_select(&m, &sup, NULL, &sel);
  char *label = sel.ncompatible ? strdup(sel.choices[0].label) : strdup("(none)");
  ts_variant_selection_clear(&sel);
  ts_variant_metadata_clear(&m);
  ts_variant_supported_clear(&sup);
  return label;
}

static void expect(const char *file, const char *cuda, const char *cc, const char *gfx,
                   const char *rocm, const char *want)
{
  char *got = best(file, cuda, cc, gfx, rocm);
  cr_assert_str_eq(got, want, "%s cuda=%s cc=%s gfx=%s rocm=%s", file, cuda, cc, gfx, rocm);
  free(got);
}

Test(variant_select, issue_hosts)
{
  const char *t = "torchlike-2.10.0-variants.json";
  expect(t, "13.0", "9.0", NULL, NULL, "cuda13.0");  /* H100, driver 580 */
  expect(t, "12.8", "6.1", NULL, NULL, "cuda12.6");  /* GTX 1080 Ti */
  expect(t, NULL, NULL, "gfx1100", "7.1.0", "rocm7.1");
  expect(t, NULL, NULL, NULL, NULL, "null");
  expect(t, NULL, NULL, "gfx1100", "6.4.1", "null"); /* no rocm6.4 variant */
  expect("nvlib-1.0-variants.json", "12.8", "8.9", NULL, NULL, "cu12");
  expect("nvlib-1.0-variants.json", "13.0", "8.9", NULL, NULL, "cu13");
  expect("nvlib-1.0-variants.json", NULL, NULL, NULL, NULL, "(none)");
}

/* cuda12.6 and cuda12.8 tie on every property for an RTX 4090: the
 * policy's tiebreak decides, never label order alone. */
static int newest_cuda_first(void *ctx, const char *a, const char *b)
{
  (void)ctx;
  return -strcmp(a, b);
}

static bool no_cuda13(void *ctx, const char *label, char **why)
{
  (void)ctx;
  if (strcmp(label, "cuda13.0") != 0)
    return true;
  *why = strdup("rule test: refused");
  return false;
}

Test(variant_select, ties_and_rules)
{
  struct ts_host_cuda_gpu gpu = {.compute_capability = "8.9"};
  struct ts_host h = {.machine = "x86_64", .cuda_version = "12.8", .cuda_gpus = &gpu,
                      .ncuda_gpus = 1};
  struct ts_variant_supported sup;
  struct ts_error err = {0};
  cr_assert_eq(ts_variant_supported_from_host(&h, NULL, &sup, &err), TS_OK);
  struct ts_variant_metadata m;
  load("torchlike-2.10.0-variants.json", &m);
  struct ts_variant_selection sel;
  ts_variant_select(&m, &sup, NULL, &sel);
  cr_assert_str_eq(sel.choices[0].label, "cuda12.6"); /* label order without a policy */
  ts_variant_selection_clear(&sel);
  struct ts_variant_policy pol = {NULL, newest_cuda_first, no_cuda13};
  ts_variant_select(&m, &sup, &pol, &sel);
  cr_assert_str_eq(sel.choices[0].label, "cuda12.8");
  cr_assert(strstr(sel.choices[0].why, "nvidia::sm_arch 86_real"), "%s", sel.choices[0].why);
  cr_assert(strstr(sel.choices[0].why, "cuda_version_lower_bound 12.0 ≤ driver 12.8"), "%s",
            sel.choices[0].why);
  const struct ts_variant_choice *c13 = ts_variant_selection_find(&sel, "cuda13.0");
  cr_assert(!c13->compatible);
  cr_assert(strstr(c13->why, "cuda_version_lower_bound 13.0 > driver 12.8"), "%s", c13->why);
  cr_assert_eq(ts_variant_selection_rank(&sel, "cuda13.0"), -1);
  cr_assert_eq(ts_variant_selection_rank(&sel, "null"), (long)sel.ncompatible - 1);
  ts_variant_selection_clear(&sel);
  ts_variant_metadata_clear(&m);
  ts_variant_supported_clear(&sup);
}

Test(variant_provider, values_and_forces)
{
  struct ts_host_cuda_gpu gpus[] = {{.compute_capability = "8.6"}, {.compute_capability = "9.0"}};
  struct ts_host h = {.machine = "x86_64", .cuda_version = "12.7", .cuda_gpus = gpus,
                      .ncuda_gpus = 2,
                      .cpu_flags = "fpu cx16 lahf_lm popcnt sse4_1 sse4_2 ssse3 avx avx2 bmi1 "
                                   "bmi2 f16c fma abm movbe xsave"};
  struct ts_variant_supported s;
  struct ts_error err = {0};
  cr_assert_eq(ts_variant_supported_from_host(&h, NULL, &s, &err), TS_OK);
  const struct ts_variant_feature *lo = ts_variant_supported_find(&s, "nvidia", "cuda_version_lower_bound");
  cr_assert_str_eq(lo->values[0], "12.7");
  cr_assert_str_eq(lo->values[8], "12");
  cr_assert_str_eq(lo->values[lo->nvalues - 1], "11");
  const struct ts_variant_feature *hi = ts_variant_supported_find(&s, "nvidia", "cuda_version_upper_bound");
  cr_assert_str_eq(hi->values[0], "15.20");
  cr_assert_str_eq(hi->values[hi->nvalues - 1], "12.8");
  const struct ts_variant_feature *sm = ts_variant_supported_find(&s, "nvidia", "sm_arch");
  cr_assert_str_eq(sm->values[0], "90_real");
  cr_assert_str_eq(sm->values[1], "86_real"); /* every GPU, not only the newest */
  cr_assert_str_eq(sm->values[sm->nvalues - 1], "80_virtual");
  const struct ts_variant_feature *lv = ts_variant_supported_find(&s, "x86_64", "level");
  cr_assert_str_eq(lv->values[0], "v3");
  ts_variant_supported_clear(&s);

  struct ts_variant_force f = {.cuda_driver_version = "13.0", .sm_arch = "12.0",
                               .gfx_arch = "gfx1100,gfx90a", .rocm_version = "7.1.0"};
  cr_assert_eq(ts_variant_supported_from_host(&h, &f, &s, &err), TS_OK);
  cr_assert_str_eq(ts_variant_supported_find(&s, "nvidia", "sm_arch")->values[0], "120_real");
  cr_assert_eq(ts_variant_supported_find(&s, "amd", "gfx_arch")->nvalues, 2);
  cr_assert_str_eq(ts_variant_supported_find(&s, "amd", "rocm_version")->values[0], "7.1");
  ts_variant_supported_clear(&s);
  struct ts_variant_force bad = {.sm_arch = "eight"};
  cr_assert_eq(ts_variant_supported_from_host(&h, &bad, &s, &err), TS_E_INVALID);
  ts_variant_supported_clear(&s);
  cr_assert_eq(ts_variant_x86_64_level("sse2"), 1);
  cr_assert_eq(ts_variant_x86_64_level(NULL), 0);
}
