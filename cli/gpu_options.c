/*
 * cli/gpu_options.c — parsing of the GPU-stack options (see gpu_options.h).
 */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "cli/gpu_options.h"
#include "rules/layers.h"

void ts_gpu_options_init(struct ts_gpu_options *o) {
  memset(o, 0, sizeof *o);
}

/* ts_cli_flag_value that reports a missing value itself. */
static int take_value(const char *name, int argc, char **argv, int *i,
                      const char **val, const char *command) {
  int r = ts_cli_flag_value(name, argc, argv, i, val);
  if (r < 0)
    ts_cli_usage_error(command, "%s needs a value", name);
  return r;
}

/* auto|none|X.Y */
static int set_mode(const char *flag, const char *val, enum ts_host_mode *mode,
                    const char **version, const char *command) {
  if (strcmp(val, "auto") == 0)
    *mode = TS_HOST_AUTO;
  else if (strcmp(val, "none") == 0)
    *mode = TS_HOST_NONE;
  else if (val[0] >= '0' && val[0] <= '9') {
    *mode = TS_HOST_SET;
    *version = val;
  } else {
    ts_cli_usage_error(command, "%s takes auto, none or a version, not '%s'",
                       flag, val);
    return -1;
  }
  return 1;
}

/* uv's --torch-backend: a variant name forces that backend as --cpu,
 * --xpu, --cuda X.Y or --rocm X.Y would ("cu126" is CUDA 12.6: the last
 * digit is the minor version). */
static int torch_backend(struct ts_gpu_options *o, const char *v, const char *command) {
  size_t n = strlen(v);
  if (strcmp(v, "auto") == 0) {
    o->torch_backend = NULL;
    return 1;
  }
  o->torch_backend = v;
  if (strcmp(v, "cpu") == 0) {
    o->ov.cpu = true;
    return 1;
  }
  if (strcmp(v, "xpu") == 0) {
    o->ov.xpu = true;
    return 1;
  }
  if (strncmp(v, "cu", 2) == 0 && n >= 5 && n <= 6 && strspn(v + 2, "0123456789") == n - 2) {
    snprintf(o->backend_version, sizeof o->backend_version, "%.*s.%c", (int)(n - 3),
             v + 2, v[n - 1]);
    o->ov.cuda = TS_HOST_SET;
    o->ov.cuda_version = o->backend_version;
    o->ov.cuda_source = "--torch-backend";
    o->set_cuda = true;
    return 1;
  }
  if (strncmp(v, "rocm", 4) == 0 && v[4] >= '0' && v[4] <= '9' && strchr(v + 4, '.') &&
      strspn(v + 4, "0123456789.") == n - 4 && n - 4 < sizeof o->backend_version) {
    snprintf(o->backend_version, sizeof o->backend_version, "%s", v + 4);
    o->ov.rocm = TS_HOST_SET;
    o->ov.rocm_version = o->backend_version;
    o->ov.rocm_source = "--torch-backend";
    o->set_rocm = true;
    return 1;
  }
  ts_cli_usage_error(command,
                     "--torch-backend takes auto, cpu, xpu, cuXYZ (cu126) or rocmX.Y "
                     "(rocm6.4), not '%s'",
                     v);
  return -1;
}

int ts_gpu_options_parse(struct ts_gpu_options *o, const char *command,
                         int argc, char **argv, int *i) {
  const char *a = argv[*i], *v = NULL;
  int r;
  if (strcmp(a, "--cpu") == 0) {
    o->ov.cpu = true;
    return 1;
  }
  if (strcmp(a, "--xpu") == 0) {
    o->ov.xpu = true;
    return 1;
  }
  if (strcmp(a, "--ignore-host") == 0) {
    o->ignore_host = o->ov.ignore_host = true;
    return 1;
  }
  if (strcmp(a, "--no-probe-programs") == 0) {
    o->no_programs = true;
    return 1;
  }
  if ((r = take_value("--torch-backend", argc, argv, i, &v, command)) != 0)
    return r < 0 ? r : torch_backend(o, v, command);
  if ((r = take_value("--cuda-driver", argc, argv, i, &v, command)) != 0) {
    if (r > 0) {
      o->ov.cuda_driver = v;
      o->ov.cuda_driver_source = "--cuda-driver";
      o->set_driver = true;
    }
    return r;
  }
  if ((r = take_value("--cuda", argc, argv, i, &v, command)) != 0) {
    if (r < 0)
      return r;
    o->ov.cuda_source = "--cuda";
    o->set_cuda = true;
    return set_mode("--cuda", v, &o->ov.cuda, &o->ov.cuda_version, command);
  }
  if ((r = take_value("--compute-capability", argc, argv, i, &v, command)) != 0) {
    if (r > 0) {
      o->ov.compute_capabilities = v;
      o->ov.compute_capabilities_source = "--compute-capability";
      o->set_cc = true;
    }
    return r;
  }
  if ((r = take_value("--rocm", argc, argv, i, &v, command)) != 0) {
    if (r < 0)
      return r;
    o->ov.rocm_source = "--rocm";
    o->set_rocm = true;
    return set_mode("--rocm", v, &o->ov.rocm, &o->ov.rocm_version, command);
  }
  if ((r = take_value("--gfx", argc, argv, i, &v, command)) != 0) {
    if (r > 0) {
      o->ov.gfx = v;
      o->ov.gfx_source = "--gfx";
      o->set_gfx = true;
    }
    return r;
  }
  if ((r = take_value("--sysroot", argc, argv, i, &v, command)) != 0) {
    if (r > 0) {
      o->sysroot = v;
      o->sysroot_source = "--sysroot";
      o->set_sysroot = true;
    }
    return r;
  }
  if ((r = take_value("--rules", argc, argv, i, &v, command)) != 0) {
    if (r < 0)
      return r;
    if (o->nrules_files >= TS_GPU_MAX_RULES_FILES) {
      ts_cli_usage_error(command, "at most %d --rules files",
                         TS_GPU_MAX_RULES_FILES);
      return -1;
    }
    o->rules_files[o->nrules_files++] = v;
    return 1;
  }
  if ((r = take_value("--without-rule", argc, argv, i, &v, command)) != 0) {
    if (r < 0)
      return r;
    if (o->nwithout >= TS_GPU_MAX_RULES_FILES) {
      ts_cli_usage_error(command, "at most %d --without-rule options",
                         TS_GPU_MAX_RULES_FILES);
      return -1;
    }
    o->without[o->nwithout++] = v;
    return 1;
  }
  return 0;
}

static const char *env(const char *name) {
  const char *v = getenv(name);
  return v && *v ? v : NULL;
}

void ts_gpu_variant_force(struct ts_variant_force *f) {
  *f = (struct ts_variant_force){
      .cuda_driver_version = env("NV_VARIANT_PROVIDER_FORCE_CUDA_DRIVER_VERSION"),
      .sm_arch = env("NV_VARIANT_PROVIDER_FORCE_SM_ARCH"),
      .gfx_arch = env("AMD_VARIANT_PROVIDER_FORCE_GFX_ARCH"),
      .rocm_version = env("AMD_VARIANT_PROVIDER_FORCE_ROCM_VERSION")};
}

int ts_gpu_options_env(struct ts_gpu_options *o) {
  const char *v;
  if (!o->set_cuda && (v = env("TORCHSOLVE_CUDA"))) {
    o->ov.cuda_source = "TORCHSOLVE_CUDA";
    if (set_mode("TORCHSOLVE_CUDA", v, &o->ov.cuda, &o->ov.cuda_version, NULL) < 0)
      return -1;
  }
  if (!o->set_driver && (v = env("TORCHSOLVE_CUDA_DRIVER"))) {
    o->ov.cuda_driver = v;
    o->ov.cuda_driver_source = "TORCHSOLVE_CUDA_DRIVER";
  }
  if (!o->set_cc && (v = env("TORCHSOLVE_COMPUTE_CAPABILITY"))) {
    o->ov.compute_capabilities = v;
    o->ov.compute_capabilities_source = "TORCHSOLVE_COMPUTE_CAPABILITY";
  }
  if (!o->set_rocm && (v = env("TORCHSOLVE_ROCM"))) {
    o->ov.rocm_source = "TORCHSOLVE_ROCM";
    if (set_mode("TORCHSOLVE_ROCM", v, &o->ov.rocm, &o->ov.rocm_version, NULL) < 0)
      return -1;
  }
  if (!o->set_gfx && (v = env("TORCHSOLVE_GFX"))) {
    o->ov.gfx = v;
    o->ov.gfx_source = "TORCHSOLVE_GFX";
  }
  if (!o->set_sysroot && (v = env("TORCHSOLVE_SYSROOT"))) {
    o->sysroot = v;
    o->sysroot_source = "TORCHSOLVE_SYSROOT";
  }
  if (o->nrules_files == 0 && (v = env("TORCHSOLVE_RULES")))
    o->rules_files[o->nrules_files++] = v;
  if (o->nwithout == 0 && (v = env("TORCHSOLVE_WITHOUT_RULES")))
    o->without[o->nwithout++] = v;
  ts_gpu_variant_force(&o->variant_force);
  /* --ignore-host means "do not look at this machine", never "forget what
   * I asked for": facts given with it describe the target machine, and the
   * rules judge those alone (ov.ignore_host still skips detection). */
  const struct ts_host_overrides *ov = &o->ov;
  if (ov->cuda == TS_HOST_SET || ov->rocm == TS_HOST_SET || ov->cuda_driver ||
      ov->compute_capabilities || ov->gfx || ov->cpu || ov->xpu)
    o->ignore_host = false;
  return 0;
}

enum ts_code ts_gpu_host(const struct ts_gpu_options *o, struct ts_host *h,
                         struct ts_error *err) {
  memset(h, 0, sizeof *h);
  if (!o->ov.ignore_host) {
    struct ts_host_options ho = {
        .sysroot = o->sysroot,
        .run_programs = !o->no_programs,
        .use_nvml = true,
        .rocm_path = getenv("ROCM_PATH"),
        .hsa_override = getenv("HSA_OVERRIDE_GFX_VERSION"),
    };
    enum ts_code rc = ts_host_detect(&ho, h, err);
    if (rc != TS_OK)
      return rc;
  }
  enum ts_code rc = ts_host_apply_overrides(h, &o->ov, err);
  if (rc != TS_OK) {
    ts_host_clear(h);
    return rc;
  }
  /* Without NVML or nvidia-smi a GPU is known by name only: no build can
   * be checked for its kernels, which is what refuses a cu130 torch on a
   * Pascal card. */
  for (size_t i = 0; h->has_cuda && !h->force_cpu && i < h->ncuda_gpus; i++)
    if (!h->cuda_gpus[i].compute_capability)
      ts_cli_warn("GPU %zu (%s): compute capability unknown, so CUDA builds are not checked "
                  "for its kernels; pass --compute-capability X.Y (nvidia-smi "
                  "--query-gpu=compute_cap)", i,
                  h->cuda_gpus[i].name ? h->cuda_gpus[i].name : "unnamed");
  return TS_OK;
}

const char *ts_gpu_bundled_rules_path(void) {
  static char beside_exe[PATH_MAX + 64];
  return ts_cli_data_file("rules.yaml", "TORCHSOLVE_BUNDLED_RULES", TS_RULES_INSTALLED,
                          TS_RULES_SOURCE, beside_exe, sizeof beside_exe);
}

enum ts_code ts_gpu_rules(const struct ts_gpu_options *o, struct ts_rules **out,
                          struct ts_error *err) {
  struct ts_rules_layers layers = {.bundled = ts_gpu_bundled_rules_path(),
                                   .files = o->rules_files, .nfiles = o->nrules_files,
                                   .without = o->without, .nwithout = o->nwithout,
                                   .cache_root = o->rules_cache_root,
                                   .builtin = &ts_rules_bundled};
  return ts_rules_load_layers(&layers, out, err);
}

void ts_gpu_options_help(FILE *out) {
  fputs("GPU stack (flags win over TORCHSOLVE_* variables, which win over detection):\n"
        "  --cuda auto|none|X.Y         CUDA version the driver supports (TORCHSOLVE_CUDA)\n"
        "  --cuda-driver VERSION        NVIDIA driver version (TORCHSOLVE_CUDA_DRIVER)\n"
        "  --compute-capability 8.6[,9.0]  GPUs' compute capabilities\n"
        "  --rocm auto|none|X.Y         installed ROCm version (TORCHSOLVE_ROCM)\n"
        "  --gfx gfx1100[,gfx90a]       AMD GPU targets (TORCHSOLVE_GFX)\n"
        "  --cpu                        use CPU builds only\n"
        "  --xpu                        assume an Intel XPU\n"
        "  --torch-backend B            that build only (uv's flag): cpu, xpu, cu126 (with\n"
        "                               --cuda 12.6), rocm6.4 (with --rocm 6.4); without a GPU\n"
        "                               of its kind here it is taken unchecked; auto: detection\n"
        "  --sysroot DIR                read /sys, /proc, /opt/rocm... under DIR and run\n"
        "                               no program (TORCHSOLVE_SYSROOT)\n"
        "  --ignore-host                plan for another machine: no detection; only the\n"
        "                               facts given (--cuda, --rocm, --gfx...) are checked\n"
        "  --no-probe-programs          never run nvidia-smi, rocm_agent_enumerator, hipconfig\n"
        "  --rules FILE                 rules extending rules.yaml, by id (TORCHSOLVE_RULES)\n"
        "  --without-rule ID            drop a rule by id or pattern, e.g. 'hf-stack-*' (the\n"
        "                               seed-000 policy floors); repeatable\n"
        "                               (TORCHSOLVE_WITHOUT_RULES=ID,ID)\n",
        out);
}

enum ts_code ts_gpu_load(const struct ts_gpu_options *o, struct ts_host *h,
                         struct ts_rules **rules, struct ts_error *err) {
  *rules = NULL;
  enum ts_code rc = ts_gpu_host(o, h, err);
  if (rc == TS_OK && (rc = ts_gpu_rules(o, rules, err)) != TS_OK)
    ts_host_clear(h);
  return rc;
}
