/* Unit tests for the aarch64 provider (variant/provider.h): a fake
 * machine's /proc/cpuinfo "Features" line read by host detection from a
 * sysroot, turned into the provider's `version` and feature values, and
 * a PEP 825 file's variants chosen by them. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "host/host.h"
#include "variant/provider.h"
#include "variant/select.h"

/* Neoverse N1 (Graviton2): Armv8.2-A, no SVE. */
#define N1_FEATURES                                                                        \
  "fp asimd evtstrm aes pmull sha1 sha2 crc32 atomics fphp asimdhp cpuid asimdrdm lrcpc "  \
  "dcpop asimddp ssbs"
/* Neoverse V2 (Grace): Armv9.0-A with SVE2. */
#define V2_FEATURES                                                                        \
  "fp asimd evtstrm aes pmull sha1 sha2 crc32 atomics fphp asimdhp cpuid asimdrdm jscvt "  \
  "fcma lrcpc dcpop sha3 sm3 sm4 asimddp sha512 sve asimdfhm dit uscat ilrcpc flagm ssbs " \
  "sb paca pacg dcpodp sve2 sveaes svepmull svebitperm svesha3 svesm4 flagm2 frint "       \
  "svei8mm svebf16 i8mm bf16 dgh rng bti"

static void put(const char *root, const char *rel, const char *text)
{
  char path[512];
  snprintf(path, sizeof path, "%s/%s", root, rel);
  for (char *s = strchr(path + strlen(root) + 1, '/'); s; s = strchr(s + 1, '/')) {
    *s = '\0';
    mkdir(path, 0755);
    *s = '/';
  }
  FILE *f = fopen(path, "w");
  cr_assert_not_null(f, "%s", path);
  fputs(text, f);
  fclose(f);
}

/* Detects a sysroot whose /proc/cpuinfo has two processors with these
 * Features (the first one's are read) on an aarch64 kernel. */
static void detect(const char *features, struct ts_host *h, char *root)
{
  strcpy(root, "/tmp/ts-aarch64-XXXXXX");
  cr_assert_not_null(mkdtemp(root));
  char cpuinfo[2048];
  snprintf(cpuinfo, sizeof cpuinfo,
           "processor\t: 0\nBogoMIPS\t: 2000.00\nFeatures\t: %s\nCPU implementer\t: 0x41\n"
           "CPU part\t: 0xd0c\n\nprocessor\t: 1\nFeatures\t: fp asimd\n",
           features);
  put(root, "proc/cpuinfo", cpuinfo);
  put(root, "proc/sys/kernel/arch", "aarch64\n");
  struct ts_host_options o = {.sysroot = root};
  struct ts_error err = {0};
  cr_assert_eq(ts_host_detect(&o, h, &err), TS_OK, "%s", err.detail);
}

static void rmroot(const char *root)
{
  char cmd[600];
  snprintf(cmd, sizeof cmd, "rm -rf '%s'", root);
  cr_assert_eq(system(cmd), 0);
}

static const char *value(const struct ts_variant_supported *s, const char *feature, size_t i)
{
  const struct ts_variant_feature *f = ts_variant_supported_find(s, "aarch64", feature);
  return f && i < f->nvalues ? f->values[i] : "(none)";
}

Test(variant_aarch64, neoverse_n1_from_a_sysroot)
{
  struct ts_host h;
  char root[64];
  detect(N1_FEATURES, &h, root);
  cr_assert_str_eq(h.machine, "aarch64");
  struct ts_variant_supported s;
  struct ts_error err = {0};
  cr_assert_eq(ts_variant_supported_from_host(&h, NULL, &s, &err), TS_OK, "%s", err.detail);
  const struct ts_variant_feature *v = ts_variant_supported_find(&s, "aarch64", "version");
  cr_assert_not_null(v);
  cr_assert_eq(v->nvalues, 3);
  cr_assert_str_eq(v->values[0], "8.2a");
  cr_assert_str_eq(v->values[1], "8.1a");
  cr_assert_str_eq(v->values[2], "8a");
  cr_assert_str_eq(value(&s, "asimddp", 0), "on");
  cr_assert_str_eq(value(&s, "sve", 0), "(none)");
  cr_assert_null(ts_variant_supported_find(&s, "x86_64", "level"));
  cr_assert_not_null(strstr(ts_variant_supported_basis(&s, "aarch64"), "armv8.2a"));
  ts_variant_supported_clear(&s);
  ts_host_clear(&h);
  rmroot(root);
}

Test(variant_aarch64, neoverse_v2_and_the_cpu_flag)
{
  struct ts_host h;
  char root[64];
  detect(V2_FEATURES, &h, root);
  /* --cpu switches GPU backends off, not the CPU's properties */
  h.force_cpu = true;
  struct ts_variant_supported s;
  struct ts_error err = {0};
  cr_assert_eq(ts_variant_supported_from_host(&h, NULL, &s, &err), TS_OK, "%s", err.detail);
  cr_assert_str_eq(value(&s, "version", 0), "9.0a");
  cr_assert_str_eq(value(&s, "version", 6), "8a");
  cr_assert_str_eq(value(&s, "sve2", 0), "on");
  cr_assert_str_eq(value(&s, "bf16", 0), "on");
  cr_assert_str_eq(s.features[0].feature, "version");
  ts_variant_supported_clear(&s);
  ts_host_clear(&h);
  rmroot(root);
}

Test(variant_aarch64, versions_from_hwcaps)
{
  cr_assert_eq(ts_variant_aarch64_version(NULL), 0);
  cr_assert_eq(ts_variant_aarch64_version("fp asimd"), 0);
  cr_assert_eq(ts_variant_aarch64_version("fp asimd atomics asimdrdm crc32"), 1);
  /* 8.3a's features without 8.2a's are still 8.1a */
  cr_assert_eq(ts_variant_aarch64_version("atomics asimdrdm crc32 jscvt fcma lrcpc paca pacg"),
               1);
  cr_assert_eq(ts_variant_aarch64_version(N1_FEATURES), 2);
  cr_assert_eq(ts_variant_aarch64_version(V2_FEATURES), 6);
}

/* A PEP 825 file with Arm builds: the best one the CPU runs. */
static const char arm_json[] =
    "{\"$schema\": \"https://variants-schema.wheelnext.dev/peps/825/v0.1.1.json\","
    " \"default-priorities\": {\"namespace\": [\"aarch64\"]},"
    " \"variants\": {"
    "  \"armv9\": {\"aarch64\": {\"version\": [\"9.0a\"], \"sve2\": [\"on\"]}},"
    "  \"armv82\": {\"aarch64\": {\"version\": [\"8.2a\"]}},"
    "  \"null\": {}}}";

static char *best(const char *features)
{
  struct ts_host h;
  char root[64];
  detect(features, &h, root);
  struct ts_variant_supported s;
  struct ts_error err = {0};
  cr_assert_eq(ts_variant_supported_from_host(&h, NULL, &s, &err), TS_OK);
  struct ts_variant_metadata m;
  cr_assert_eq(ts_variant_metadata_parse(arm_json, strlen(arm_json), "arm.json", &m, &err),
               TS_OK, "%s", err.detail);
  struct ts_variant_selection sel;
  ts_variant_select(&m, &s, NULL, &sel);
  char *label = strdup(sel.ncompatible ? sel.choices[0].label : "(none)");
  ts_variant_selection_clear(&sel);
  ts_variant_metadata_clear(&m);
  ts_variant_supported_clear(&s);
  ts_host_clear(&h);
  rmroot(root);
  return label;
}

Test(variant_aarch64, selection)
{
  char *n1 = best(N1_FEATURES), *v2 = best(V2_FEATURES), *old = best("fp asimd");
  cr_assert_str_eq(n1, "armv82");
  cr_assert_str_eq(v2, "armv9");
  cr_assert_str_eq(old, "null");
  free(n1);
  free(v2);
  free(old);
}
