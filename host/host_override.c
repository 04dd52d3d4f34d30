/*
 * host_override.c — --cuda/--rocm/--gfx/... replace detected facts.
 */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/str.h"
#include "host/host.h"
#include "host/host_internal.h"

/* "12.4", "9.0", "6.2.4": digits with 1..max_dots dots. */
static bool dotted(const char *s, int min_dots, int max_dots) {
  int dots = 0;
  if (!s || !isdigit((unsigned char)*s))
    return false;
  for (const char *p = s; *p; p++) {
    if (*p == '.') {
      if (!isdigit((unsigned char)p[1]))
        return false;
      dots++;
    } else if (!isdigit((unsigned char)*p))
      return false;
  }
  return dots >= min_dots && dots <= max_dots;
}

static bool gfx_name(const char *s, size_t n) {
  if (n < 6 || n > 12 || strncmp(s, "gfx", 3) != 0)
    return false;
  for (size_t i = 3; i < n; i++)
    if (!isxdigit((unsigned char)s[i]))
      return false;
  return true;
}

static void clear_cuda(struct ts_host *h) {
  ts_host_set_string(&h->cuda_driver, NULL);
  ts_host_set_string(&h->cuda_version, NULL);
  for (size_t i = 0; i < h->ncuda_gpus; i++) {
    free(h->cuda_gpus[i].name);
    free(h->cuda_gpus[i].compute_capability);
  }
  free(h->cuda_gpus);
  h->cuda_gpus = NULL;
  h->ncuda_gpus = 0;
  h->has_cuda = false;
}

static void clear_rocm_gpus(struct ts_host *h) {
  for (size_t i = 0; i < h->nrocm_gpus; i++) {
    free(h->rocm_gpus[i].gfx);
    free(h->rocm_gpus[i].real_gfx);
  }
  free(h->rocm_gpus);
  h->rocm_gpus = NULL;
  h->nrocm_gpus = 0;
}

/* The glibc and machine a platform tag stands for.  A tag we cannot read
 * changes nothing: the target layer refuses it with the full message. */
static void apply_platform(struct ts_host *h, const char *p) {
  static const struct {
    const char *prefix, *glibc;
  } legacy[] = {{"manylinux2014_", "2.17"}, {"manylinux2010_", "2.12"}, {"manylinux1_", "2.5"}};
  const char *arch = NULL;
  char glibc[32] = "";
  for (size_t i = 0; i < sizeof legacy / sizeof legacy[0] && !arch; i++)
    if (strncmp(p, legacy[i].prefix, strlen(legacy[i].prefix)) == 0) {
      arch = p + strlen(legacy[i].prefix);
      snprintf(glibc, sizeof glibc, "%s", legacy[i].glibc);
    }
  unsigned maj, min;
  int used = 0;
  if (!arch && strncmp(p, "manylinux_", 10) == 0 &&
      sscanf(p + 10, "%u_%u_%n", &maj, &min, &used) == 2 && used > 0) {
    arch = p + 10 + used;
    snprintf(glibc, sizeof glibc, "%u.%u", maj, min);
  } else if (!arch && strncmp(p, "musllinux_", 10) == 0 &&
             sscanf(p + 10, "%u_%u_%n", &maj, &min, &used) == 2 && used > 0) {
    arch = p + 10 + used;
  } else if (!arch && strncmp(p, "linux_", 6) == 0) {
    arch = p + 6;
  }
  if (!arch || !*arch)
    return;
  free(h->glibc);
  h->glibc = glibc[0] ? ts_xstrndup(glibc, strlen(glibc)) : NULL;
  ts_host_add_source(h, "glibc", "--platform");
  ts_host_set_string(&h->machine, arch);
  ts_host_add_source(h, "machine", "--platform");
}

static const char *src_or(const char *s, const char *dflt) {
  return s && *s ? s : dflt;
}

/* Every override well-formed (a version, capabilities, gfx targets), so
 * that a bad value changes nothing. */
static enum ts_code check_overrides(const struct ts_host_overrides *ov, struct ts_error *err) {
  if (ov->cuda == TS_HOST_SET && !dotted(ov->cuda_version, 1, 1))
    return ts_error_set(err, TS_E_INVALID,
                        "%s '%s' is not a CUDA version like 12.4 (or auto, none)",
                        src_or(ov->cuda_source, "--cuda"),
                        ov->cuda_version ? ov->cuda_version : "");
  if (ov->cuda_driver && !dotted(ov->cuda_driver, 1, 2))
    return ts_error_set(err, TS_E_INVALID,
                        "%s '%s' is not a driver version like 550.144.03",
                        src_or(ov->cuda_driver_source, "--cuda-driver"),
                        ov->cuda_driver);
  if (ov->rocm == TS_HOST_SET && !dotted(ov->rocm_version, 1, 2))
    return ts_error_set(err, TS_E_INVALID,
                        "%s '%s' is not a ROCm version like 6.2 (or auto, none)",
                        src_or(ov->rocm_source, "--rocm"),
                        ov->rocm_version ? ov->rocm_version : "");
  if (ov->compute_capabilities) {
    const char *p = ov->compute_capabilities;
    do {
      const char *e = strchr(p, ',');
      size_t n = e ? (size_t)(e - p) : strlen(p);
      char tmp[16];
      if (n == 0 || n >= sizeof tmp)
        return ts_error_set(err, TS_E_INVALID,
                            "%s '%s': expected capabilities like 8.6,9.0",
                            src_or(ov->compute_capabilities_source,
                                   "--compute-capability"),
                            ov->compute_capabilities);
      memcpy(tmp, p, n);
      tmp[n] = '\0';
      if (!dotted(tmp, 1, 1))
        return ts_error_set(err, TS_E_INVALID,
                            "%s: '%s' is not a compute capability like 8.6",
                            src_or(ov->compute_capabilities_source,
                                   "--compute-capability"),
                            tmp);
      p = e ? e + 1 : NULL;
    } while (p);
  }
  if (ov->gfx) {
    const char *p = ov->gfx;
    do {
      const char *e = strchr(p, ',');
      size_t n = e ? (size_t)(e - p) : strlen(p);
      if (!gfx_name(p, n))
        return ts_error_set(err, TS_E_INVALID,
                            "%s '%s': expected targets like gfx1100,gfx90a",
                            src_or(ov->gfx_source, "--gfx"), ov->gfx);
      p = e ? e + 1 : NULL;
    } while (p);
  }
  return TS_OK;
}

/* --cuda-driver, --cuda and --compute-capability; TS_E_REFUSED when
 * --cuda asks for more than the host's driver runs (without
 * --ignore-host). */
static enum ts_code apply_cuda(struct ts_host *h, const struct ts_host_overrides *ov,
                               struct ts_error *err) {
  /* The driver a --cuda-driver names, or the one detected. */
  if (ov->cuda_driver) {
    ts_host_set_string(&h->cuda_driver, ov->cuda_driver);
    ts_host_add_source(h, "cuda.driver_version",
                src_or(ov->cuda_driver_source, "--cuda-driver"));
    const char *cv = h->wsl ? ts_host_windows_driver_max_cuda(ov->cuda_driver)
                            : ts_host_driver_max_cuda(ov->cuda_driver);
    ts_host_set_string(&h->cuda_version, cv);
    if (cv)
      ts_host_add_source(h, "cuda.cuda_version", "driver table (from --cuda-driver)");
    h->has_cuda = true;
  }
  if (ov->cuda == TS_HOST_NONE) {
    clear_cuda(h);
    ts_host_add_source(h, "cuda", src_or(ov->cuda_source, "--cuda"));
  } else if (ov->cuda == TS_HOST_SET) {
    /* Refused only below the minor-version-compatibility floor: the
     * variant gates call a cu126 build runnable on a 550 driver, so
     * --cuda 12.6 there asks for nothing the host cannot run. */
    const char *native = ts_host_cuda_min_driver(ov->cuda_version);
    const char *compat = ts_host_cuda_compat_driver(ov->cuda_version);
    const char *need = compat ? compat : native;
    if (!ov->ignore_host && h->cuda_driver && need &&
        ts_host_vercmp(h->cuda_driver, need) < 0) {
      const char *max = ts_host_driver_max_cuda(h->cuda_driver);
      const char *cmax = ts_host_driver_max_cuda_compat(h->cuda_driver);
      char also[96] = "";
      if (max && cmax && strcmp(max, cmax) != 0)
        snprintf(also, sizeof also,
                 " (%s or lower through minor-version compatibility)", cmax);
      char floor[96] = "";
      if (compat && native && strcmp(compat, native) != 0)
        snprintf(floor, sizeof floor,
                 " (>= %s through CUDA minor-version compatibility)", compat);
      char ask[160] = "--cuda none";
      if (max || cmax)
        snprintf(ask, sizeof ask, "--cuda %s or lower%s", max ? max : cmax, also);
      /* The same exit status (1) as a rule that refuses a build: either
       * way the request cannot be met on this host. */
      return ts_error_set(
          err, TS_E_REFUSED,
          "%s %s needs NVIDIA driver >= %s%s, but this host has %s (from %s); "
          "fix: upgrade the driver, ask for %s, or pass --ignore-host to plan "
          "for another machine",
          src_or(ov->cuda_source, "--cuda"), ov->cuda_version,
          native ? native : need, floor, h->cuda_driver,
          src_or(ts_host_source_of(h, "cuda.driver_version"), "detection"), ask);
    }
    ts_host_set_string(&h->cuda_version, ov->cuda_version);
    ts_host_add_source(h, "cuda.cuda_version", src_or(ov->cuda_source, "--cuda"));
    h->has_cuda = true;
  }
  if (ov->compute_capabilities && ov->cuda != TS_HOST_NONE) {
    const char *p = ov->compute_capabilities;
    for (size_t i = 0; i < h->ncuda_gpus; i++) {
      free(h->cuda_gpus[i].name);
      free(h->cuda_gpus[i].compute_capability);
    }
    h->ncuda_gpus = 0;
    do {
      const char *e = strchr(p, ',');
      size_t n = e ? (size_t)(e - p) : strlen(p);
      h->cuda_gpus = ts_xrealloc(h->cuda_gpus,
                                   (h->ncuda_gpus + 1) * sizeof *h->cuda_gpus);
      h->cuda_gpus[h->ncuda_gpus].name = NULL;
      h->cuda_gpus[h->ncuda_gpus].compute_capability = ts_xstrndup(p, n);
      h->ncuda_gpus++;
      p = e ? e + 1 : NULL;
    } while (p);
    ts_host_add_source(h, "cuda.gpus",
                src_or(ov->compute_capabilities_source, "--compute-capability"));
    h->has_cuda = true;
  }
  return TS_OK;
}

/* --rocm and --gfx. */
static void apply_rocm(struct ts_host *h, const struct ts_host_overrides *ov) {
  if (ov->rocm == TS_HOST_NONE) {
    ts_host_set_string(&h->rocm_version, NULL);
    ts_host_set_string(&h->amdgpu_version, NULL);
    ts_host_set_string(&h->hsa_override, NULL);
    clear_rocm_gpus(h);
    h->has_rocm = false;
    ts_host_add_source(h, "rocm", src_or(ov->rocm_source, "--rocm"));
  } else if (ov->rocm == TS_HOST_SET) {
    /* --rocm X.Y stands for the whole stack, kernel driver included: the
     * compatibility window is then reckoned from X.Y. */
    ts_host_set_string(&h->rocm_version, ov->rocm_version);
    ts_host_set_string(&h->amdgpu_version, NULL);
    ts_host_add_source(h, "rocm.version", src_or(ov->rocm_source, "--rocm"));
    h->has_rocm = true;
  }
  if (ov->gfx && ov->rocm != TS_HOST_NONE) {
    clear_rocm_gpus(h);
    const char *p = ov->gfx;
    do {
      const char *e = strchr(p, ',');
      size_t n = e ? (size_t)(e - p) : strlen(p);
      h->rocm_gpus =
          ts_xrealloc(h->rocm_gpus, (h->nrocm_gpus + 1) * sizeof *h->rocm_gpus);
      h->rocm_gpus[h->nrocm_gpus].gfx = ts_xstrndup(p, n);
      h->rocm_gpus[h->nrocm_gpus].real_gfx = NULL;
      h->nrocm_gpus++;
      p = e ? e + 1 : NULL;
    } while (p);
    ts_host_add_source(h, "rocm.gpus", src_or(ov->gfx_source, "--gfx"));
    h->has_rocm = true;
  }
}

enum ts_code ts_host_apply_overrides(struct ts_host *h,
                                     const struct ts_host_overrides *ov,
                                     struct ts_error *err) {
  enum ts_code rc = check_overrides(ov, err);
  if (rc == TS_OK)
    rc = apply_cuda(h, ov, err);
  if (rc != TS_OK)
    return rc;
  apply_rocm(h, ov);
  if (ov->platform)
    apply_platform(h, ov->platform);
  if (ov->xpu) {
    h->xpu = true;
    ts_host_add_source(h, "xpu", "--xpu");
  }
  if (ov->cpu) {
    h->force_cpu = true;
    ts_host_add_source(h, "backend", "--cpu");
  }
  return TS_OK;
}
