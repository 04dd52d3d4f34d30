/*
 * cli/gpu_options.h — the GPU-stack options shared by detect, install,
 * lock, sync and rules: overrides of detected facts, the sysroot, and the
 * rules files.  Flags win over environment variables, which win over
 * detection.
 *
 *   --cuda auto|none|X.Y      TORCHSOLVE_CUDA     CUDA the driver supports
 *   --cuda-driver VERSION     TORCHSOLVE_CUDA_DRIVER
 *   --compute-capability 8.6[,9.0]  TORCHSOLVE_COMPUTE_CAPABILITY
 *   --rocm auto|none|X.Y      TORCHSOLVE_ROCM     installed ROCm
 *   --gfx gfx1100[,gfx90a]    TORCHSOLVE_GFX      AMD targets
 *   --cpu, --xpu              CPU only / assume an Intel XPU
 *   --torch-backend B         uv's spelling: auto (detection), cpu, xpu,
 *                             cuXYZ (cu126 = --cuda 12.6), rocmX.Y (= --rocm X.Y)
 *   --sysroot DIR             TORCHSOLVE_SYSROOT  read /sys, /proc... under DIR
 *   --ignore-host             plan for another machine: no detection; the
 *                             facts given with it (--cuda, --rocm, --gfx,
 *                             --torch-backend, TORCHSOLVE_CUDA...) describe
 *                             it, and without any no rule judges a host
 *   --rules FILE (repeatable) TORCHSOLVE_RULES    extends/overrides rules.yaml
 *   --without-rule ID (repeatable, fnmatch)  TORCHSOLVE_WITHOUT_RULES (comma-
 *                             separated)  drops `rules:` entries by id
 *
 * Usage from a command:
 *   struct ts_gpu_options g;
 *   ts_gpu_options_init(&g);
 *   for (...) { int used = ts_gpu_options_parse(&g, "install", argc, argv, &i);
 *               if (used < 0) return 2; if (used) continue; ... }
 *   ts_gpu_options_env(&g);
 *   ts_gpu_load(&g, &host, &rules, &err);  (or ts_gpu_host, ts_gpu_rules)
 */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "core/error.h"
#include "host/host.h"
#include "rules/rules.h"
#include "variant/provider.h"

#define TS_GPU_MAX_RULES_FILES 8

struct ts_gpu_options {
  struct ts_host_overrides ov;   /* strings borrowed from argv / environ */
  const char *sysroot;
  const char *sysroot_source;    /* "--sysroot" or "TORCHSOLVE_SYSROOT" */
  /* --ignore-host and no fact given: no host is judged (ov.ignore_host:
   * --ignore-host at all, so nothing is detected) */
  bool ignore_host;
  bool no_programs;              /* --no-probe-programs: never run nvidia-smi... */
  const char *rules_files[TS_GPU_MAX_RULES_FILES];
  size_t nrules_files;
  /* --without-rule patterns, or TORCHSOLVE_WITHOUT_RULES (one string,
   * comma-separated) when no flag was given. */
  const char *without[TS_GPU_MAX_RULES_FILES];
  size_t nwithout;
  /* Which overrides came from flags, so that the environment fills only
   * the others. */
  bool set_cuda, set_rocm, set_gfx, set_cc, set_driver, set_sysroot;
  char backend_version[16];      /* "12.6" of --torch-backend cu126 */
  const char *torch_backend;     /* --torch-backend B but auto, or NULL */
  /* The variant providers' own variables (variant/provider.h), read by
   * ts_gpu_options_env: NV_VARIANT_PROVIDER_FORCE_CUDA_DRIVER_VERSION,
   * NV_VARIANT_PROVIDER_FORCE_SM_ARCH, AMD_VARIANT_PROVIDER_FORCE_GFX_ARCH,
   * AMD_VARIANT_PROVIDER_FORCE_ROCM_VERSION. */
  struct ts_variant_force variant_force;
  /* The cache root whose rules-v1/ keeps rules files parsed
   * (rules/rules_cache.h): install and lock (ts_gpu_load_named) set it
   * from their cache options; NULL (--no-cache, other commands): every
   * file is parsed. */
  const char *rules_cache_root;
};

void ts_gpu_options_init(struct ts_gpu_options *o);

/* Tries argv[*i] as one of the options above ("--cuda X" or "--cuda=X").
 * Returns 1 when consumed (advancing *i past a separate value), 0 when it
 * is not ours, -1 after printing a usage error for `command`. */
int ts_gpu_options_parse(struct ts_gpu_options *o, const char *command,
                         int argc, char **argv, int *i);

/* The variant providers' own variables (ts_gpu_options.variant_force). */
void ts_gpu_variant_force(struct ts_variant_force *f);

/* The host's supported PEP 825 properties, {namespace: {feature:
 * [values best first]}} (variant/provider.h) with the providers'
 * variables applied, for detect --json; cJSON null when a variable is
 * malformed (*err says which).  variant_json.c. */
struct cJSON *ts_gpu_variant_properties_json(const struct ts_host *h, struct ts_error *err);

/* Fills options not given as flags from TORCHSOLVE_* variables.  Returns -1
 * after printing an error for a malformed value, else 0. */
int ts_gpu_options_env(struct ts_gpu_options *o);

/* Detects the host (live or under the sysroot; nothing with --ignore-host)
 * and applies the overrides.  The caller frees *h with ts_host_clear. */
enum ts_code ts_gpu_host(const struct ts_gpu_options *o, struct ts_host *h,
                         struct ts_error *err);

/* The rules in force as rules/layers.h layers them, from the bundled
 * rules.yaml (installed copy, else the source tree's), the --rules files
 * and the --without-rule patterns.  Caller frees with ts_rules_free. */
enum ts_code ts_gpu_rules(const struct ts_gpu_options *o,
                          struct ts_rules **out, struct ts_error *err);

/* ts_gpu_host, then ts_gpu_rules: both or neither (the host is cleared
 * when the rules fail).  The caller frees both. */
enum ts_code ts_gpu_load(const struct ts_gpu_options *o, struct ts_host *h,
                         struct ts_rules **rules, struct ts_error *err);

/* Path of the bundled rules file that ts_gpu_rules starts from. */
const char *ts_gpu_bundled_rules_path(void);

/* The option lines for a command's --help. */
void ts_gpu_options_help(FILE *out);
