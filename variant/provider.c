/*
 * variant/provider.c — the nvidia, amd, x86_64 and aarch64 providers from
 * host facts (provider.h).  The value lists follow the providers' plugins
 * (wheelnext nvidia-variant-provider, amd-variant-provider,
 * provider-variant-x86-64, provider-variant-aarch64), except that sm_arch
 * covers every GPU and the Arm version comes from HWCAPs, not a CPU model
 * table.
 */
#include "variant/provider.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/alloc.h"
#include "core/str.h"

/* The CUDA versions the nvidia provider knows: 11.0 to 15.20. */
#define CUDA_MAJOR_MIN 11
#define CUDA_MAJOR_MAX 15
#define CUDA_MINOR_MAX 20

static struct ts_variant_feature *add_feature(struct ts_variant_supported *s, const char *ns,
                                              const char *feature)
{
  s->features = ts_xreallocarray(s->features, s->nfeatures + 1, sizeof *s->features);
  struct ts_variant_feature *f = &s->features[s->nfeatures++];
  memset(f, 0, sizeof *f);
  f->ns = ts_xstrdup(ns);
  f->feature = ts_xstrdup(feature);
  return f;
}

static void add_value(struct ts_variant_feature *f, char *owned)
{
  for (size_t i = 0; i < f->nvalues; i++)
    if (strcmp(f->values[i], owned) == 0) {
      free(owned);
      return;
    }
  f->values = ts_xreallocarray(f->values, f->nvalues + 1, sizeof *f->values);
  f->values[f->nvalues++] = owned;
}

static void add_basis(struct ts_variant_supported *s, const char *ns, char *owned_words)
{
  s->basis = ts_xreallocarray(s->basis, s->nbasis + 1, sizeof *s->basis);
  s->basis[s->nbasis].ns = ts_xstrdup(ns);
  s->basis[s->nbasis++].words = owned_words;
}

/* "12.8" / "12.8.1" / "12" → major, minor; false when malformed. */
static bool major_minor(const char *v, int *major, int *minor)
{
  char tail;
  *minor = 0;
  int n = sscanf(v, "%d.%d%c", major, minor, &tail);
  if (n == 3 && tail != '.')
    return false;
  if (n < 1 || *major < 0 || *minor < 0)
    return false;
  return n > 1 || strspn(v, "0123456789") == strlen(v);
}

static void nvidia_cuda(struct ts_variant_supported *s, int major, int minor)
{
  struct ts_variant_feature *lo = add_feature(s, "nvidia", "cuda_version_lower_bound");
  for (int M = major < CUDA_MAJOR_MAX ? major : CUDA_MAJOR_MAX; M >= CUDA_MAJOR_MIN; M--) {
    for (int m = M == major ? minor : CUDA_MINOR_MAX; m >= 0; m--)
      add_value(lo, ts_xasprintf("%d.%d", M, m));
    add_value(lo, ts_xasprintf("%d", M));
  }
  struct ts_variant_feature *hi = add_feature(s, "nvidia", "cuda_version_upper_bound");
  for (int M = CUDA_MAJOR_MAX; M >= major && M >= CUDA_MAJOR_MIN; M--) {
    for (int m = CUDA_MINOR_MAX; m > (M == major ? minor : -1); m--)
      add_value(hi, ts_xasprintf("%d.%d", M, m));
    if (M > major)
      add_value(hi, ts_xasprintf("%d", M));
  }
}

static int cc_desc(const void *a, const void *b)
{
  const int *x = a, *y = b;
  return x[0] != y[0] ? y[0] - x[0] : y[1] - x[1];
}

static enum ts_code nvidia_sm(struct ts_variant_supported *s, const struct ts_host *h,
                              const char *forced, struct ts_error *err)
{
  size_t n = forced ? 1 : h->ncuda_gpus;
  int(*cc)[2] = ts_xcalloc(n ? n : 1, sizeof *cc);
  size_t k = 0;
  for (size_t i = 0; i < n; i++) {
    const char *v = forced ? forced : h->cuda_gpus[i].compute_capability;
    if (!v)
      continue;
    if (!major_minor(v, &cc[k][0], &cc[k][1]) || cc[k][1] > 9) {
      free(cc);
      if (forced)
        return ts_error_set(err, TS_E_INVALID,
                            "NV_VARIANT_PROVIDER_FORCE_SM_ARCH '%s' is no compute capability "
                            "such as 8.9", forced);
      continue;
    }
    k++;
  }
  qsort(cc, k, sizeof *cc, cc_desc);
  if (k) {
    struct ts_variant_feature *sm = add_feature(s, "nvidia", "sm_arch");
    for (size_t i = 0; i < k; i++)
      for (int m = cc[i][1]; m >= 0; m--)
        add_value(sm, ts_xasprintf("%d%d_real", cc[i][0], m));
    for (size_t i = 0; i < k; i++)
      add_value(sm, ts_xasprintf("%d0_virtual", cc[i][0]));
  }
  free(cc);
  return TS_OK;
}

static enum ts_code nvidia(struct ts_variant_supported *s, const struct ts_host *h,
                           const struct ts_variant_force *force, struct ts_error *err)
{
  int major, minor;
  if (force && force->sm_arch &&
      (!major_minor(force->sm_arch, &major, &minor) || minor > 9))
    return ts_error_set(err, TS_E_INVALID,
                        "NV_VARIANT_PROVIDER_FORCE_SM_ARCH '%s' is no compute capability such "
                        "as 8.9", force->sm_arch);
  const char *drv = force && force->cuda_driver_version ? force->cuda_driver_version
                                                        : h->cuda_version;
  if (!drv || (h->force_cpu && !(force && force->cuda_driver_version)))
    return TS_OK;
  if (!major_minor(drv, &major, &minor))
    return force && force->cuda_driver_version
               ? ts_error_set(err, TS_E_INVALID,
                              "NV_VARIANT_PROVIDER_FORCE_CUDA_DRIVER_VERSION '%s' is no CUDA "
                              "version such as 12.8", drv)
               : TS_OK;
  nvidia_cuda(s, major, minor);
  enum ts_code rc = nvidia_sm(s, h, force ? force->sm_arch : NULL, err);
  if (rc != TS_OK)
    return rc;
  const struct ts_variant_feature *sm = ts_variant_supported_find(s, "nvidia", "sm_arch");
  add_basis(s, "nvidia",
            ts_xasprintf("driver CUDA %d.%d (%s)%s%s", major, minor,
                         force && force->cuda_driver_version
                             ? "NV_VARIANT_PROVIDER_FORCE_CUDA_DRIVER_VERSION"
                             : ts_host_source_of(h, "cuda.driver_version")
                                   ? ts_host_source_of(h, "cuda.driver_version")
                                   : "detected",
                         sm ? ", newest GPU sm_arch " : "", sm ? sm->values[0] : ""));
  return TS_OK;
}

static enum ts_code amd(struct ts_variant_supported *s, const struct ts_host *h,
                        const struct ts_variant_force *force, struct ts_error *err)
{
  const char *fgfx = force ? force->gfx_arch : NULL, *frocm = force ? force->rocm_version : NULL;
  if (h->force_cpu && !fgfx && !frocm)
    return TS_OK;
  struct ts_variant_feature *gfx = NULL;
  if (fgfx) {
    char *copy = ts_xstrdup(fgfx), *save = NULL;
    for (char *t = strtok_r(copy, ", ;\t", &save); t; t = strtok_r(NULL, ", ;\t", &save)) {
      if (!gfx)
        gfx = add_feature(s, "amd", "gfx_arch");
      add_value(gfx, ts_xstrdup(t));
    }
    free(copy);
  } else {
    for (size_t i = 0; i < h->nrocm_gpus; i++)
      if (h->rocm_gpus[i].gfx) {
        if (!gfx)
          gfx = add_feature(s, "amd", "gfx_arch");
        add_value(gfx, ts_xstrdup(h->rocm_gpus[i].gfx));
      }
  }
  const char *rocm = frocm ? frocm : h->rocm_version;
  int major = 0, minor = 0;
  bool have_rocm = rocm && major_minor(rocm, &major, &minor);
  if (rocm && !have_rocm && frocm)
    return ts_error_set(err, TS_E_INVALID,
                        "AMD_VARIANT_PROVIDER_FORCE_ROCM_VERSION '%s' is no ROCm version such "
                        "as 7.1.0", frocm);
  /* words first: adding a feature moves the features (and gfx) */
  if (gfx || have_rocm)
    add_basis(s, "amd",
              ts_xasprintf("%s%s%s%s", gfx ? "GPU targets " : "", gfx ? gfx->values[0] : "",
                           have_rocm ? (gfx ? ", ROCm " : "ROCm ") : "",
                           have_rocm ? rocm : ""));
  if (have_rocm)
    add_value(add_feature(s, "amd", "rocm_version"), ts_xasprintf("%d.%d", major, minor));
  return TS_OK;
}

static bool has_flag(const char *flags, const char *flag)
{
  size_t n = strlen(flag);
  for (const char *p = flags; (p = strstr(p, flag)) != NULL; p += n)
    if ((p == flags || p[-1] == ' ') && (p[n] == ' ' || p[n] == '\0' || p[n] == '\n'))
      return true;
  return false;
}

static bool has_all(const char *flags, const char *const *list)
{
  for (; *list; list++)
    if (!has_flag(flags, *list))
      return false;
  return true;
}

int ts_variant_x86_64_level(const char *flags)
{
  if (!flags)
    return 0;
  /* the psABI levels, by the names Linux gives the flags */
  static const char *const v2[] = {"cx16", "lahf_lm", "popcnt", "sse4_1", "sse4_2", "ssse3",
                                   NULL};
  static const char *const v3[] = {"avx", "avx2", "bmi1", "bmi2", "f16c", "fma", "abm",
                                   "movbe", "xsave", NULL};
  static const char *const v4[] = {"avx512f", "avx512bw", "avx512cd", "avx512dq", "avx512vl",
                                   NULL};
  if (!has_all(flags, v2))
    return 1;
  if (!has_all(flags, v3))
    return 2;
  return has_all(flags, v4) ? 4 : 3;
}

static void x86_64(struct ts_variant_supported *s, const struct ts_host *h)
{
  if (!h->machine || strcmp(h->machine, "x86_64") != 0 || !h->cpu_flags)
    return;
  int level = ts_variant_x86_64_level(h->cpu_flags);
  struct ts_variant_feature *f = add_feature(s, "x86_64", "level");
  for (int l = level; l >= 1; l--)
    add_value(f, ts_xasprintf("v%d", l));
  add_basis(s, "x86_64", ts_xasprintf("CPU level v%d (/proc/cpuinfo flags)", level));
}

/* The Arm architecture versions, newest first, each with the HWCAPs
 * (/proc/cpuinfo "Features") it makes mandatory beyond the one below it;
 * a CPU is the newest version whose HWCAPs it has together with all
 * older ones'.  9.0a is the newest the aarch64 provider knows. */
static const struct {
  const char *version;
  const char *const hwcaps[6];
} arm_versions[] = {
    {"8.1a", {"atomics", "asimdrdm", "crc32", NULL}},
    {"8.2a", {"fphp", "asimdhp", "dcpop", NULL}},
    {"8.3a", {"jscvt", "fcma", "lrcpc", "paca", "pacg", NULL}},
    {"8.4a", {"dit", "uscat", "ilrcpc", "flagm", NULL}},
    {"8.5a", {"sb", "frint", "flagm2", NULL}},
    {"9.0a", {"sve2", NULL}},
};
#define N_ARM_VERSIONS (sizeof arm_versions / sizeof arm_versions[0])

size_t ts_variant_aarch64_version(const char *hwcaps)
{
  size_t n = 0;
  while (hwcaps && n < N_ARM_VERSIONS && has_all(hwcaps, arm_versions[n].hwcaps))
    n++;
  return n;
}

/* The features the aarch64 provider reports as "on", in its preference
 * order (newest architecture's first). */
static const char *const arm_features[] = {
    "sve2", "flagm2", "frint", "sb", "btiecv", "paca", "pacg", "ssbs", "asimdfhm", "bf16",
    "dcpodp", "dgh", "dit", "flagm", "i8mm", "ilrcpc", "jscvt", "rng", "sha3", "sha512",
    "svebf16", "svei8mm", "uscat", "asimddp", "lrcpc", "asimdhp", "dcpop", "fcma", "fphp",
    "sve", "asimdrdm", "atomics", "aes", "asimd", "cpuid", "crc32", "evtstrm", "fp", "pmull",
    "sha1", "sha2", NULL};

static void aarch64(struct ts_variant_supported *s, const struct ts_host *h)
{
  if (!h->machine || strcmp(h->machine, "aarch64") != 0 || !h->cpu_flags)
    return;
  size_t v = ts_variant_aarch64_version(h->cpu_flags);
  struct ts_variant_feature *f = add_feature(s, "aarch64", "version");
  for (size_t k = v; k > 0; k--)
    add_value(f, ts_xstrdup(arm_versions[k - 1].version));
  add_value(f, ts_xstrdup("8a"));
  for (const char *const *name = arm_features; *name; name++)
    if (has_flag(h->cpu_flags, *name))
      add_value(add_feature(s, "aarch64", *name), ts_xstrdup("on"));
  add_basis(s, "aarch64",
            ts_xasprintf("CPU armv%s (/proc/cpuinfo Features)",
                         v ? arm_versions[v - 1].version : "8a"));
}

enum ts_code ts_variant_supported_from_host(const struct ts_host *h,
                                            const struct ts_variant_force *force,
                                            struct ts_variant_supported *out,
                                            struct ts_error *err)
{
  memset(out, 0, sizeof *out);
  enum ts_code rc = nvidia(out, h, force, err);
  if (rc == TS_OK)
    rc = amd(out, h, force, err);
  if (rc == TS_OK) {
    x86_64(out, h);
    aarch64(out, h);
  }
  return rc;
}

void ts_variant_supported_clear(struct ts_variant_supported *s)
{
  for (size_t i = 0; i < s->nfeatures; i++) {
    free(s->features[i].ns);
    free(s->features[i].feature);
    for (size_t j = 0; j < s->features[i].nvalues; j++)
      free(s->features[i].values[j]);
    free(s->features[i].values);
  }
  free(s->features);
  for (size_t i = 0; i < s->nbasis; i++) {
    free(s->basis[i].ns);
    free(s->basis[i].words);
  }
  free(s->basis);
  memset(s, 0, sizeof *s);
}

const struct ts_variant_feature *ts_variant_supported_find(const struct ts_variant_supported *s,
                                                           const char *ns,
                                                           const char *feature)
{
  for (size_t i = 0; i < s->nfeatures; i++)
    if (strcmp(s->features[i].ns, ns) == 0 && strcmp(s->features[i].feature, feature) == 0)
      return &s->features[i];
  return NULL;
}

const char *ts_variant_supported_basis(const struct ts_variant_supported *s, const char *ns)
{
  for (size_t i = 0; i < s->nbasis; i++)
    if (strcmp(s->basis[i].ns, ns) == 0)
      return s->basis[i].words;
  return NULL;
}
