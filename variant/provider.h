/*
 * variant/provider.h — the variant providers, in C, from host facts: what
 * this machine supports, per namespace and feature, each feature's values
 * best first, as the providers' own plugins would report them:
 *
 *  - nvidia: `cuda_version_lower_bound` every CUDA version up to the one
 *    the driver runs ("12.8", ..., "12.0", "12", "11.20", ..., "11"),
 *    `cuda_version_upper_bound` every version above it (up to 15.20),
 *    `sm_arch` for EVERY GPU (the plugin takes the newest only; the rules
 *    refuse a build an older GPU cannot run) `NN_real` down to `N0_real`,
 *    then `N0_virtual`;
 *  - amd: `gfx_arch` every GPU target, `rocm_version` the installed ROCm
 *    as "major.minor";
 *  - x86_64: `level` v4 … v1 from the CPU's flags;
 *  - aarch64: `version` the CPU's Arm architecture version down to "8a"
 *    ("9.0a", "8.5a", ..., "8.1a", "8a"; 9.0a at most), and each feature
 *    of the provider's list the CPU has (/proc/cpuinfo "Features":
 *    `sve2`, `bf16`, `i8mm`, ...) with the value "on".
 *
 * Namespaces without a provider here get their values from a project's
 * `static-properties` (variant/select.h), else they support nothing.  The
 * providers' own variables win over detected facts, as in their plugins:
 * NV_VARIANT_PROVIDER_FORCE_CUDA_DRIVER_VERSION ("12.8"),
 * NV_VARIANT_PROVIDER_FORCE_SM_ARCH ("8.9"),
 * AMD_VARIANT_PROVIDER_FORCE_GFX_ARCH ("gfx1100,gfx90a"),
 * AMD_VARIANT_PROVIDER_FORCE_ROCM_VERSION ("7.1.0"); cli/ reads them.
 */
#pragma once

#include <stddef.h>

#include "core/error.h"
#include "host/host.h"
#include "variant/metadata.h"

/* The providers' variables, as read from the environment (NULL: unset). */
struct ts_variant_force {
  const char *cuda_driver_version;
  const char *sm_arch;
  const char *gfx_arch;
  const char *rocm_version;
};

/* One namespace's facts in words, for explanations and detect. */
struct ts_variant_basis {
  char *ns;
  char *words; /* "driver CUDA 12.8 (from /sys/...), GPUs 8.9" */
};

struct ts_variant_supported {
  struct ts_variant_feature *features; /* namespace, then feature, as the providers order them */
  size_t nfeatures;
  struct ts_variant_basis *basis;
  size_t nbasis;
};

/* Fills *out (zeroed first) from `h` and `force` (NULL: none).
 * TS_E_INVALID for a malformed forced value, naming its variable.  Caller
 * clears *out with ts_variant_supported_clear, also after a failure. */
enum ts_code ts_variant_supported_from_host(const struct ts_host *h,
                                            const struct ts_variant_force *force,
                                            struct ts_variant_supported *out,
                                            struct ts_error *err);
void ts_variant_supported_clear(struct ts_variant_supported *s);

/* The supported values of ns::feature, or NULL when none. */
const struct ts_variant_feature *ts_variant_supported_find(const struct ts_variant_supported *s,
                                                           const char *ns,
                                                           const char *feature);
/* The words of a namespace's facts ("driver CUDA 12.8 (--cuda-driver),
 * newest GPU sm_arch 89_real"), which explanations quote; NULL when the
 * host has nothing of that namespace. */
const char *ts_variant_supported_basis(const struct ts_variant_supported *s, const char *ns);

/* How many Arm versions above 8.0 (0 for 8a, 1 for 8.1a ... 6 for 9.0a)
 * a CPU with these HWCAPs (/proc/cpuinfo "Features", space-separated)
 * has every mandatory feature of; 0 when hwcaps is NULL. */
size_t ts_variant_aarch64_version(const char *hwcaps);

/* The x86-64 micro-architecture level (1-4) a CPU with these
 * /proc/cpuinfo flags (space-separated) reaches; 0 when flags is NULL. */
int ts_variant_x86_64_level(const char *flags);
