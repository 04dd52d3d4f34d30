/*
 * host/host.h — what GPU stack this machine has, each fact with where it
 * was read: NVIDIA driver, the newest CUDA it runs, each GPU's compute
 * capability; AMD gfx targets and the installed ROCm; Intel XPU; CPU
 * architecture, glibc and OS.
 *
 * Two modes.  Live (options.sysroot == NULL) reads /sys and /proc, dlopens
 * NVML and, only where allowed, runs nvidia-smi / rocm_agent_enumerator /
 * hipconfig.  Sysroot mode reads the same paths under a directory and never
 * runs a program: what a program would print is read from a captured file
 * under DIR/torchsolve-capture/ instead (see TS_HOST_CAPTURE_*), so tests
 * replay real machines.
 *
 * Overrides (--cuda, TORCHSOLVE_CUDA, ...) replace detected facts after
 * detection and are reported with their own source, as conda's
 * CONDA_OVERRIDE_CUDA does.
 */
#pragma once

#include <stdbool.h>
#include <stddef.h>

#include "core/error.h"

/* Captured outputs replayed in sysroot mode, relative to the sysroot:
 * `nvidia-smi --query-gpu=name,compute_cap,driver_version
 *  --format=csv,noheader` (two columns are accepted too), `ldd --version`,
 * `rocm_agent_enumerator`, `hipconfig --version`. */
#define TS_HOST_CAPTURE_NVIDIA_SMI "torchsolve-capture/nvidia-smi-query-gpu"
#define TS_HOST_CAPTURE_LDD "torchsolve-capture/ldd-version"
#define TS_HOST_CAPTURE_ROCM_AGENTS "torchsolve-capture/rocm_agent_enumerator"
#define TS_HOST_CAPTURE_HIPCONFIG "torchsolve-capture/hipconfig-version"

struct ts_host_cuda_gpu {
  char *name;               /* "NVIDIA H100 80GB HBM3", or NULL if unknown */
  char *compute_capability; /* "9.0", or NULL if unknown */
};

struct ts_host_rocm_gpu {
  char *gfx;      /* effective target ("gfx1100"), after HSA_OVERRIDE */
  char *real_gfx; /* what KFD reported, when an override changed it; else NULL */
};

/* One "fact → where it was read" pair, in detection order. */
struct ts_host_source {
  char *fact;   /* "cuda.driver_version", "glibc", "rocm.gpus" */
  char *source; /* "/sys/module/nvidia/version", "--cuda", "NVML" */
};

struct ts_host {
  char *machine;     /* "x86_64", "aarch64" */
  char *os;          /* "linux" */
  char *os_pretty;   /* "Ubuntu 24.04.3 LTS" or NULL */
  char *os_id;       /* "ubuntu" or NULL */
  char *os_version;  /* "24.04" or NULL */
  char *kernel;      /* "6.18.44-..." or NULL */
  char *glibc;       /* "2.39"; NULL on musl or when unknown */
  bool wsl;

  /* NVIDIA: has_cuda when a driver or an override says so. */
  bool has_cuda;
  char *cuda_driver;  /* "580.159.04" or NULL */
  char *cuda_version; /* newest CUDA the driver runs, "13.0", or NULL */
  struct ts_host_cuda_gpu *cuda_gpus;
  size_t ncuda_gpus;

  /* AMD: has_rocm when a KFD GPU, an installed ROCm or an override exists. */
  bool has_rocm;
  char *rocm_version; /* installed user-space ROCm, "6.2.0", or NULL */
  /* /sys/module/amdgpu/version: the DKMS kernel driver's version ("6.8.5"),
   * NULL for the kernel's own amdgpu (it has no version file) or after a
   * --rocm override, which stands for the kernel driver too. */
  char *amdgpu_version;
  struct ts_host_rocm_gpu *rocm_gpus;
  size_t nrocm_gpus;
  char *hsa_override; /* HSA_OVERRIDE_GFX_VERSION as given, or NULL */

  bool xpu;           /* Intel GPU with a compute-capable kernel driver */
  /* An NVIDIA Jetson (Tegra SoC, L4T): "L4T R36.4.3" from
   * /etc/nv_tegra_release, else "nvidia,tegra234" from the device tree's
   * compatible list; NULL on anything else.  Its integrated GPU is no
   * server-class (SBSA) aarch64 GPU: the PyTorch server's CUDA wheels do
   * not run on it. */
  char *jetson;
  bool force_cpu;     /* --cpu: every GPU backend is switched off */
  /* The first CPU's feature flags from /proc/cpuinfo, space-separated:
   * x86's "flags" ("fpu vme ... avx2") or aarch64's "Features" (HWCAPs:
   * "fp asimd ... sve2"); NULL when absent.  What the x86_64 and aarch64
   * variant providers read. */
  char *cpu_flags;

  struct ts_host_source *sources;
  size_t nsources;
};

struct ts_host_options {
  const char *sysroot;       /* NULL: the live machine */
  /* Live mode only: allow running nvidia-smi, rocm_agent_enumerator and
   * hipconfig as fallbacks (never through a shell). */
  bool run_programs;
  /* Live mode only: try NVML through dlopen("libnvidia-ml.so.1"). */
  bool use_nvml;
  /* Environment, passed in so the library never reads getenv itself. */
  const char *rocm_path;     /* $ROCM_PATH or NULL */
  const char *hsa_override;  /* $HSA_OVERRIDE_GFX_VERSION or NULL */
};

/* Fills *out (zeroed by this call) with what the machine has.  Missing
 * hardware is not an error; an unreadable file is skipped.  Returns
 * TS_E_NOMEM on allocation failure, TS_E_INVALID for a malformed
 * HSA_OVERRIDE_GFX_VERSION, TS_E_NOT_FOUND when a sysroot does not exist.
 * Caller frees with ts_host_clear. */
enum ts_code ts_host_detect(const struct ts_host_options *opt,
                            struct ts_host *out, struct ts_error *err);
/* Frees what *h owns and zeroes it. */
void ts_host_clear(struct ts_host *h);

/* ---- overrides -------------------------------------------------------- */

enum ts_host_mode {
  TS_HOST_AUTO = 0, /* keep what was detected */
  TS_HOST_NONE,     /* pretend the stack is absent */
  TS_HOST_SET,      /* use the given value */
};

/* Every string is borrowed; `*_source` names the flag or variable that set
 * it ("--cuda", "TORCHSOLVE_CUDA"), reported as the fact's source. */
struct ts_host_overrides {
  enum ts_host_mode cuda;
  const char *cuda_version;        /* "12.4" when cuda == TS_HOST_SET */
  const char *cuda_source;
  const char *cuda_driver;         /* "550.144.03" or NULL */
  const char *cuda_driver_source;
  const char *compute_capabilities; /* "8.6,9.0" or NULL */
  const char *compute_capabilities_source;
  enum ts_host_mode rocm;
  const char *rocm_version;        /* "6.2" when rocm == TS_HOST_SET */
  const char *rocm_source;
  const char *gfx;                 /* "gfx1100,gfx90a" or NULL */
  const char *gfx_source;
  bool cpu;                        /* --cpu */
  bool xpu;                        /* --xpu */
  /* --platform of a described target (lock for another machine): its
   * glibc ("2.28" from manylinux_2_28_*, the legacy aliases' floors, none
   * for musllinux_* and linux_*) and machine replace this host's. */
  const char *platform;
  /* --ignore-host: detection is skipped by the caller; overrides never
   * get checked against detected facts. */
  bool ignore_host;
};

/* Replaces facts of *h by the overrides.  Unless ignore_host, refuses
 * (TS_E_REFUSED, exit 1 as a rule refusal, with the fix in the detail) an override the detected driver
 * cannot honour even through CUDA minor-version compatibility, e.g.
 * --cuda 13.0 on driver 550 (--cuda 12.8 there is honoured, as the cu128
 * builds run on it).  TS_E_INVALID for a
 * malformed value. */
enum ts_code ts_host_apply_overrides(struct ts_host *h,
                                     const struct ts_host_overrides *ov,
                                     struct ts_error *err);

/* ---- helpers shared with rules/ --------------------------------------- */

/* Compares dotted numeric versions ("580.159.04" > "580.65.06",
 * "6.2" == "6.2.0"); stops at the first character that is neither a digit
 * nor a dot, so "6.4.0-47" compares as 6.4.0.  Missing parts are 0. */
int ts_host_vercmp(const char *a, const char *b);
/* The newest CUDA a Linux driver version runs, from NVIDIA's toolkit
 * driver table ("580.159.04" → "13.0"); NULL below the oldest row. */
const char *ts_host_driver_max_cuda(const char *driver);
/* The same for a Windows driver, as WSL reports it ("566.36" → "12.6"):
 * Windows drivers are numbered apart from Linux ones. */
const char *ts_host_windows_driver_max_cuda(const char *driver);
/* The Linux driver a CUDA toolkit version needs ("13.0" → "580.65.06");
 * NULL when the version is not in the table. */
const char *ts_host_cuda_min_driver(const char *cuda);
/* The minor-version-compatibility floor of a CUDA version's major
 * ("12.8" → "525.60.13", "13.2" → "580"); NULL outside 11.x–13.x. */
const char *ts_host_cuda_compat_driver(const char *cuda);
/* The newest CUDA a Linux driver runs through minor-version compatibility
 * ("550.144.03" → "12.9"); NULL below every floor. */
const char *ts_host_driver_max_cuda_compat(const char *driver);
/* KFD gfx_target_version (110000) → "gfx1100" into buf; false for 0 (a
 * CPU node) or values that do not decode. */
bool ts_host_gfx_from_target_version(unsigned long v, char *buf, size_t cap);
/* HSA_OVERRIDE_GFX_VERSION "11.0.0" → "gfx1100"; false when malformed. */
bool ts_host_gfx_from_hsa_override(const char *s, char *buf, size_t cap);
/* The source recorded for a fact, or NULL. */
const char *ts_host_source_of(const struct ts_host *h, const char *fact);
