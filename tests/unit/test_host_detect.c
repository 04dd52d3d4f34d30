/* host/: version arithmetic, decoders, sysroot detection, overrides. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/fs.h"
#include "host/host.h"

#define SYSROOT(name) TS_FIXTURES_DIR "/sysroot/" name

Test(host_util, vercmp) {
  cr_expect_gt(ts_host_vercmp("580.159.04", "580.65.06"), 0);
  cr_expect_lt(ts_host_vercmp("550.144.03", "580"), 0);
  cr_expect_eq(ts_host_vercmp("6.2", "6.2.0"), 0);
  cr_expect_eq(ts_host_vercmp("6.4.0-47", "6.4"), 0);
  cr_expect_gt(ts_host_vercmp("2.10", "2.9"), 0);
  cr_expect_lt(ts_host_vercmp("12.8", "13.0"), 0);
  cr_expect_eq(ts_host_vercmp("", ""), 0);
  cr_expect_lt(ts_host_vercmp(NULL, "1"), 0);
}

Test(host_util, driver_table) {
  cr_expect_str_eq(ts_host_driver_max_cuda("580.159.04"), "13.0");
  cr_expect_str_eq(ts_host_driver_max_cuda("580.65.06"), "13.0");
  cr_expect_str_eq(ts_host_driver_max_cuda("580.65.05"), "12.9");
  cr_expect_str_eq(ts_host_driver_max_cuda("550.144.03"), "12.4");
  cr_expect_str_eq(ts_host_driver_max_cuda("570.133.07"), "12.8");
  cr_expect_str_eq(ts_host_driver_max_cuda("595.45.04"), "13.2");
  /* 11.1-11.6 rows: a 470 driver runs CUDA 11.4 */
  cr_expect_str_eq(ts_host_driver_max_cuda("470.256.02"), "11.4");
  cr_expect_str_eq(ts_host_driver_max_cuda("455.23"), "11.1");
  cr_expect_str_eq(ts_host_driver_max_cuda("510.108.03"), "11.6");
  cr_expect_str_eq(ts_host_driver_max_cuda("452.39"), "11.0");
  /* Windows drivers (WSL) have their own column */
  cr_expect_str_eq(ts_host_driver_max_cuda("570.30"), "12.8");
  cr_expect_str_eq(ts_host_windows_driver_max_cuda("570.30"), "12.6");
  cr_expect_str_eq(ts_host_windows_driver_max_cuda("566.36"), "12.6");
  cr_expect_str_eq(ts_host_windows_driver_max_cuda("576.57"), "12.9");
  cr_expect_str_eq(ts_host_windows_driver_max_cuda("581.42"), "13.0");
  cr_expect_str_eq(ts_host_windows_driver_max_cuda("471.11"), "11.4");
  cr_expect_null(ts_host_driver_max_cuda("440.33"));
  cr_expect_str_eq(ts_host_cuda_min_driver("13.0"), "580.65.06");
  cr_expect_str_eq(ts_host_cuda_min_driver("12.7"), "560.28.03");
  cr_expect_null(ts_host_cuda_min_driver("10.2"));
}

Test(host_util, gfx_decoders) {
  char b[32];
  struct {
    unsigned long v;
    const char *gfx;
  } cases[] = {{110000, "gfx1100"}, {90010, "gfx90a"}, {90402, "gfx942"},
               {90000, "gfx900"},   {100300, "gfx1030"}, {120001, "gfx1201"},
               {110501, "gfx1151"}, {90500, "gfx950"}};
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    cr_assert(ts_host_gfx_from_target_version(cases[i].v, b, sizeof b));
    cr_expect_str_eq(b, cases[i].gfx);
  }
  cr_expect_not(ts_host_gfx_from_target_version(0, b, sizeof b));
  cr_expect_not(ts_host_gfx_from_target_version(110000, b, 4));
  cr_assert(ts_host_gfx_from_hsa_override("11.0.0", b, sizeof b));
  cr_expect_str_eq(b, "gfx1100");
  cr_assert(ts_host_gfx_from_hsa_override("9.0.10", b, sizeof b));
  cr_expect_str_eq(b, "gfx90a");
  cr_assert(ts_host_gfx_from_hsa_override("10.3.0\n", b, sizeof b));
  cr_expect_str_eq(b, "gfx1030");
  cr_expect_not(ts_host_gfx_from_hsa_override("11.0", b, sizeof b));
  cr_expect_not(ts_host_gfx_from_hsa_override("gfx1100", b, sizeof b));
  cr_expect_not(ts_host_gfx_from_hsa_override("11.0.0.1", b, sizeof b));
  cr_expect_not(ts_host_gfx_from_hsa_override("", b, sizeof b));
}

static void detect(const char *root, struct ts_host *h) {
  struct ts_host_options o = {.sysroot = root};
  struct ts_error e = {0};
  cr_assert_eq(ts_host_detect(&o, h, &e), TS_OK, "%s", e.detail);
}

Test(host_detect, h100_replay) {
  struct ts_host h;
  detect(SYSROOT("h100-cu130"), &h);
  cr_expect_str_eq(h.machine, "x86_64");
  cr_expect_str_eq(h.glibc, "2.39");
  cr_expect_str_eq(h.os_pretty, "Ubuntu 24.04.3 LTS");
  cr_expect_str_eq(h.kernel, "6.18.44-fc-v657-gpu");
  cr_expect(h.has_cuda);
  cr_expect_str_eq(h.cuda_driver, "580.159.04");
  cr_expect_str_eq(h.cuda_version, "13.0");
  cr_assert_eq(h.ncuda_gpus, 1);
  cr_expect_str_eq(h.cuda_gpus[0].name, "NVIDIA H100 80GB HBM3");
  cr_expect_str_eq(h.cuda_gpus[0].compute_capability, "9.0");
  cr_expect_not(h.has_rocm);
  cr_expect_not(h.xpu);
  cr_expect_not(h.wsl);
  cr_expect_str_eq(ts_host_source_of(&h, "cuda.driver_version"),
                   "/sys/module/nvidia/version");
  ts_host_clear(&h);
}

Test(host_detect, amd_and_wsl) {
  struct ts_host h;
  detect(SYSROOT("mi300x-rocm64"), &h);
  cr_expect(h.has_rocm);
  cr_expect_not(h.has_cuda);
  cr_expect_str_eq(h.rocm_version, "6.4.0");
  cr_assert_eq(h.nrocm_gpus, 2); /* the two CPU nodes are skipped */
  cr_expect_str_eq(h.rocm_gpus[1].gfx, "gfx942");
  ts_host_clear(&h);
  detect(SYSROOT("wsl"), &h);
  cr_expect(h.wsl);
  cr_expect_str_eq(h.cuda_driver, "566.36");
  ts_host_clear(&h);
}

/* Builds a small sysroot under a temporary directory. */
static void put(const char *root, const char *rel, const char *text) {
  char *path = ts_path_join(root, rel);
  char *dir = strdup(path);
  *strrchr(dir, '/') = '\0';
  struct ts_error e = {0};
  cr_assert_eq(ts_fs_mkdirs(dir, &e), TS_OK, "%s", e.detail);
  cr_assert_eq(ts_fs_write_atomic(path, text, strlen(text), &e), TS_OK);
  free(dir);
  free(path);
}

static char *tmp_root(void) {
  char tmpl[] = "/tmp/ts-host-XXXXXX";
  cr_assert_not_null(mkdtemp(tmpl));
  return strdup(tmpl);
}

Test(host_detect, empty_and_malformed) {
  char *root = tmp_root();
  struct ts_host h;
  detect(root, &h);
  cr_expect_not(h.has_cuda);
  cr_expect_not(h.has_rocm);
  cr_expect_null(h.glibc);
  cr_expect_null(h.machine);
  ts_host_clear(&h);

  put(root, "sys/class/kfd/kfd/topology/nodes/1/properties",
      "gfx_target_version banana\n");
  put(root, "sys/class/kfd/kfd/topology/nodes/2/properties",
      "simd_count 0\n");
  put(root, "sys/class/kfd/kfd/topology/nodes/10/properties",
      "gfx_target_version 110001\n");
  put(root, "proc/driver/nvidia/version", "NVRM version: nothing here\n");
  put(root, "opt/rocm/.info/version", "\n");
  put(root, "custom-rocm/.info/version", "7.1.1-38\n");
  put(root, "lib/x86_64-linux-gnu/libc.so.6", "no banner here");
  struct ts_host_options o = {.sysroot = root, .rocm_path = "/custom-rocm"};
  struct ts_error e = {0};
  cr_assert_eq(ts_host_detect(&o, &h, &e), TS_OK);
  cr_expect_null(h.cuda_driver);
  cr_assert_eq(h.nrocm_gpus, 1);
  cr_expect_str_eq(h.rocm_gpus[0].gfx, "gfx1101");
  cr_expect_str_eq(h.rocm_version, "7.1.1");
  cr_expect_str_eq(ts_host_source_of(&h, "rocm.version"), "/custom-rocm/.info/version");
  cr_expect_str_eq(h.machine, "x86_64"); /* from the multiarch directory */
  cr_expect_null(h.glibc);
  ts_host_clear(&h);

  o.hsa_override = "11.0";
  cr_expect_eq(ts_host_detect(&o, &h, &e), TS_E_INVALID);
  o.hsa_override = "11.0.0";
  cr_assert_eq(ts_host_detect(&o, &h, &e), TS_OK);
  cr_expect_str_eq(h.rocm_gpus[0].gfx, "gfx1100");
  cr_expect_str_eq(h.rocm_gpus[0].real_gfx, "gfx1101");
  ts_host_clear(&h);

  struct ts_error e2 = {0};
  struct ts_host_options missing = {.sysroot = "/nonexistent/sysroot"};
  cr_expect_eq(ts_host_detect(&missing, &h, &e2), TS_E_NOT_FOUND);
  char *cmd = NULL;
  cr_assert(asprintf(&cmd, "rm -rf '%s'", root) > 0);
  cr_expect_eq(system(cmd), 0);
  free(cmd);
  free(root);
}

Test(host_override, replace_and_refuse) {
  struct ts_host h;
  detect(SYSROOT("rtx4090-drv550"), &h);
  struct ts_error e = {0};
  struct ts_host_overrides ov = {.cuda = TS_HOST_SET, .cuda_version = "13.0",
                                 .cuda_source = "TORCHSOLVE_CUDA"};
  cr_expect_eq(ts_host_apply_overrides(&h, &ov, &e), TS_E_REFUSED);
  cr_expect(strstr(e.detail, "TORCHSOLVE_CUDA 13.0 needs NVIDIA driver >= 580.65.06") != NULL, "%s", e.detail);
  cr_expect(strstr(e.detail, "--cuda 12.4") != NULL, "%s", e.detail);
  cr_expect(strstr(e.detail, "12.9 or lower through minor-version") != NULL, "%s", e.detail);
  cr_expect_str_eq(h.cuda_version, "12.4"); /* unchanged */
  /* 12.8 on 550 is below the 12.8 toolkit driver but above the 12.x
   * minor-version floor: cu128 builds run there, so it is honoured. */
  struct ts_host h2;
  detect(SYSROOT("rtx4090-drv550"), &h2);
  ov.cuda_version = "12.8";
  cr_expect_eq(ts_host_apply_overrides(&h2, &ov, &e), TS_OK, "%s", e.detail);
  cr_expect_str_eq(h2.cuda_version, "12.8");
  ts_host_clear(&h2);
  struct ts_host_overrides old = {.cuda = TS_HOST_SET, .cuda_version = "11.8",
                                  .cuda_driver = "440.10"};
  detect(SYSROOT("cpu-only"), &h2);
  cr_expect_eq(ts_host_apply_overrides(&h2, &old, &e), TS_E_REFUSED);
  cr_expect(strstr(e.detail, "ask for --cuda none,") != NULL, "%s", e.detail);
  ts_host_clear(&h2);
  cr_expect_str_eq(ts_host_cuda_compat_driver("13.2"), "580");
  cr_expect_str_eq(ts_host_driver_max_cuda_compat("550.144.03"), "12.9");
  cr_expect_null(ts_host_driver_max_cuda_compat("440.10"));
  ov.cuda_version = "12.1";
  cr_assert_eq(ts_host_apply_overrides(&h, &ov, &e), TS_OK);
  cr_expect_str_eq(h.cuda_version, "12.1");
  cr_expect_str_eq(ts_host_source_of(&h, "cuda.cuda_version"), "TORCHSOLVE_CUDA");
  struct ts_host_overrides cc = {.compute_capabilities = "8.6,9.0"};
  cr_assert_eq(ts_host_apply_overrides(&h, &cc, &e), TS_OK);
  cr_assert_eq(h.ncuda_gpus, 2);
  cr_expect_str_eq(h.cuda_gpus[1].compute_capability, "9.0");
  struct ts_host_overrides none = {.cuda = TS_HOST_NONE, .rocm = TS_HOST_SET,
                                   .rocm_version = "6.3", .gfx = "gfx1100,gfx90a",
                                   .xpu = true, .cpu = true};
  cr_assert_eq(ts_host_apply_overrides(&h, &none, &e), TS_OK);
  cr_expect_not(h.has_cuda);
  cr_expect_null(h.cuda_driver);
  cr_expect_eq(h.ncuda_gpus, 0);
  cr_expect(h.has_rocm);
  cr_expect_str_eq(h.rocm_version, "6.3");
  cr_assert_eq(h.nrocm_gpus, 2);
  cr_expect_str_eq(h.rocm_gpus[1].gfx, "gfx90a");
  cr_expect(h.xpu);
  cr_expect(h.force_cpu);
  ts_host_clear(&h);

  detect(SYSROOT("rtx4090-drv550"), &h);
  struct ts_host_overrides ign = {.cuda = TS_HOST_SET, .cuda_version = "13.0",
                                  .ignore_host = true};
  cr_expect_eq(ts_host_apply_overrides(&h, &ign, &e), TS_OK);
  const char *bad[] = {"13", "13.0.1", "x", "", "1..2"};
  for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
    struct ts_host_overrides b = {.cuda = TS_HOST_SET, .cuda_version = bad[i]};
    cr_expect_eq(ts_host_apply_overrides(&h, &b, &e), TS_E_INVALID, "%s", bad[i]);
  }
  struct ts_host_overrides g = {.gfx = "gfx1100,"};
  cr_expect_eq(ts_host_apply_overrides(&h, &g, &e), TS_E_INVALID);
  struct ts_host_overrides g2 = {.gfx = "sm_90"};
  cr_expect_eq(ts_host_apply_overrides(&h, &g2, &e), TS_E_INVALID);
  struct ts_host_overrides c2 = {.compute_capabilities = "8.6,,9.0"};
  cr_expect_eq(ts_host_apply_overrides(&h, &c2, &e), TS_E_INVALID);
  struct ts_host_overrides d = {.cuda_driver = "570.133.07"};
  cr_assert_eq(ts_host_apply_overrides(&h, &d, &e), TS_OK);
  cr_expect_str_eq(h.cuda_version, "12.8");
  ts_host_clear(&h);
}

Test(host_detect, live_does_not_crash) {
  /* The live machine: whatever it has, detection completes and facts that
   * are present carry a source. */
  struct ts_host_options o = {.run_programs = false, .use_nvml = true};
  struct ts_host h;
  struct ts_error e = {0};
  cr_assert_eq(ts_host_detect(&o, &h, &e), TS_OK);
  cr_expect_not_null(h.machine);
  cr_expect_not_null(h.glibc);
  cr_expect_str_eq(ts_host_source_of(&h, "glibc"), "gnu_get_libc_version()");
  if (h.cuda_driver)
    cr_expect_not_null(ts_host_source_of(&h, "cuda.driver_version"));
  ts_host_clear(&h);
}
