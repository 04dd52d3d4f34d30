/* rules/: a (release, variant) pair no rules file lists is judged on
 * assumed facts (the nearest release listing the variant, else what every
 * build of its CUDA major carries), with confidence low and a warning. */
#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>

#include "host/host.h"
#include "rules/rules.h"

#define BUNDLED TS_FIXTURES_DIR "/../rules.yaml"

static void nv_host(struct ts_host *h, const char *driver, const char *cc) {
  memset(h, 0, sizeof *h);
  struct ts_host_overrides ov = {.cuda_driver = driver, .compute_capabilities = cc};
  struct ts_error e = {0};
  cr_assert_eq(ts_host_apply_overrides(h, &ov, &e), TS_OK, "%s", e.detail);
}

static void compile(const struct ts_rules *r, const struct ts_host *h,
                    const char *release, struct ts_constraint_set *s) {
  struct ts_rules_options o = {.release = release};
  struct ts_error e = {0};
  cr_assert_eq(ts_rules_compile(r, h, &o, s, &e), TS_OK, "%s", e.detail);
}

static const struct ts_constraint *find(const struct ts_constraint_set *s, const char *id) {
  for (size_t i = 0; i < s->nconstraints; i++)
    if (strcmp(s->constraints[i].id, id) == 0)
      return &s->constraints[i];
  return NULL;
}

static bool usable(const struct ts_constraint_set *s, const char *name) {
  for (size_t i = 0; i < s->nbackends; i++)
    if (strcmp(s->backends[i].name, name) == 0)
      return s->backends[i].usable;
  return false;
}

static void expect_warning(const struct ts_constraint_set *s, const char *version,
                           const char *want) {
  char *got = ts_rules_assumed_warning(s, version);
  if (!want)
    cr_expect_null(got, "%s: %s", version, got);
  else
    cr_expect_str_eq(got ? got : "(none)", want, "%s", version);
  free(got);
}

Test(rules_assume, newer_release_takes_the_newest_facts) {
  struct ts_rules *r = NULL;
  struct ts_error e = {0};
  cr_assert_eq(ts_rules_load_file(BUNDLED, &r, NULL, &e), TS_OK, "%s", e.detail);
  struct ts_host h;
  struct ts_constraint_set s;
  nv_host(&h, "580.95.05", "7.0"); /* a V100 */
  compile(r, &h, NULL, &s);
  const struct ts_constraint *c = find(&s, "cuda-arch-after-2.14-cu130");
  cr_assert_not_null(c, "no gate for torch >2.14 +cu130 on a V100");
  cr_expect_str_eq(c->confidence, "low");
  cr_expect(strstr(c->message, "assumed the kernels of 2.14.0+cu130") != NULL, "%s", c->message);
  /* cu126 of 2.14 has sm_70: no gate for a newer release's cu126 */
  cr_expect_null(find(&s, "cuda-arch-after-2.14-cu126"));
  expect_warning(&s, "2.15.0+cu130",
                 "torch 2.15.0+cu130 is newer than these rules (2.14); assumed the "
                 "kernels of 2.14.0+cu130 (confidence low); 'torchsolve rules "
                 "update' may know it");
  expect_warning(&s, "2.15.0",
                 "torch 2.15.0 is newer than these rules (2.14); assumed the cu132 "
                 "build of 2.14.0 (confidence low); 'torchsolve rules update' may "
                 "know it");
  expect_warning(&s, "2.16.0rc1+rocm7.14",
                 "torch 2.16.0rc1+rocm7.14 is newer than these rules (2.14); assumed "
                 "the GPU targets of 2.14.0+rocm7.14 (confidence low); 'torchsolve "
                 "rules update' may know it");
  expect_warning(&s, "2.14.0+cu130", NULL);
  expect_warning(&s, "2.13.0+cu129", NULL); /* listed since the audit */
  /* 2.13 lists no cu128: the nearest release that does is 2.11 */
  expect_warning(&s, "2.13.0+cu128",
                 "torch 2.13.0+cu128 is not in these rules (their 2.13 lists no cu128 "
                 "build); assumed the kernels of 2.11.0+cu128 (confidence low); "
                 "'torchsolve rules update' may know it");
  ts_constraint_set_clear(&s);
  /* detect --release 2.15: judged on those gates, and said so */
  compile(r, &h, "2.15", &s);
  cr_expect_str_eq(s.release, "2.15");
  cr_assert_not_null(s.release_assumed);
  cr_expect(strstr(s.release_assumed, "torch 2.15 is newer than these rules (2.14)") != NULL,
            "%s", s.release_assumed);
  cr_expect(usable(&s, "cu126"));
  cr_expect(!usable(&s, "cu130"));
  cr_expect(!usable(&s, "cu132"));
  ts_constraint_set_clear(&s);
  ts_host_clear(&h);
  ts_rules_free(r);
}

Test(rules_assume, new_variant_takes_what_its_family_shares) {
  static const char doc[] =
      "schema: 1\n"
      "backends:\n"
      "  - {id: cpu, kind: cpu, index: cpu, source: https://e/}\n"
      "  - {id: cu126, kind: cuda, cuda: \"12.6\", index: cu126, driver_min: \"525.60.13\",\n"
      "     driver_toolkit: \"560.35.05\", source: https://e/}\n"
      "  - {id: cu129, kind: cuda, cuda: \"12.9\", index: cu129, driver_min: \"525.60.13\",\n"
      "     driver_toolkit: \"575.57.08\", source: https://e/}\n"
      "  - {id: cu140, kind: cuda, cuda: \"14.0\", index: cu140, driver_min: \"600\",\n"
      "     driver_toolkit: \"600.1\", source: https://e/}\n"
      "releases:\n"
      "  - series: \"2.0\"\n"
      "    versions: [\"2.0.0\"]\n"
      "    source: https://e/\n"
      "    variants: {cpu: {}, cu126: {archs: \"5.0;7.0;8.0\"}}\n"
      "  - series: \"2.1\"\n"
      "    versions: [\"2.1.0\"]\n"
      "    source: https://e/\n"
      "    variants: {cpu: {}, cu126: {archs: \"7.0;8.0;9.0\"}}\n";
  struct ts_rules *r = NULL;
  struct ts_error e = {0};
  cr_assert_eq(ts_rules_parse(doc, strlen(doc), "t.yaml", &r, NULL, &e), TS_OK, "%s", e.detail);
  struct ts_host h;
  struct ts_constraint_set s;
  /* cu129 is listed nowhere: only 7.0 and 8.0 are in every CUDA 12 list */
  nv_host(&h, "610.1", "9.0");
  compile(r, &h, "2.1", &s);
  cr_expect(usable(&s, "cu126"), "2.1's own cu126 has sm_90");
  const struct ts_constraint *c = find(&s, "cuda-arch-2.1-cu129");
  cr_assert_not_null(c, "no family gate for 2.1+cu129 on a 9.0 GPU");
  cr_expect_str_eq(c->confidence, "low");
  expect_warning(&s, "2.1.0+cu129",
                 "torch 2.1.0+cu129 is not in these rules (their 2.1 lists no cu129 "
                 "build); assumed the kernels every CUDA 12 build in these rules carries "
                 "(7.0 8.0) (confidence low); 'torchsolve rules update' may know it");
  /* cu140 has no relative: no GPU passes, so it is excluded */
  cr_expect_not_null(find(&s, "cuda-arch-after-2.1-cu140"));
  cr_expect_not_null(find(&s, "cuda-arch-2.0-cu140"));
  ts_constraint_set_clear(&s);
  ts_host_clear(&h);
  nv_host(&h, "610.1", "8.6");
  compile(r, &h, NULL, &s);
  cr_expect_null(find(&s, "cuda-arch-2.1-cu129"), "8.6 runs sm_80 kernels");
  ts_constraint_set_clear(&s);
  ts_host_clear(&h);
  ts_rules_free(r);
}
