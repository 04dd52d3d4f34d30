/*
 * host_util.c — version arithmetic and decoders shared by detection,
 * overrides and rules/.
 */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "host/host.h"

static unsigned long long take_num(const char **p) {
  unsigned long long v = 0;
  while (isdigit((unsigned char)**p)) {
    if (v < 100000000000ULL)
      v = v * 10 + (unsigned long long)(**p - '0');
    (*p)++;
  }
  return v;
}

int ts_host_vercmp(const char *a, const char *b) {
  if (!a || !b)
    return a ? 1 : (b ? -1 : 0);
  for (;;) {
    bool ha = isdigit((unsigned char)*a), hb = isdigit((unsigned char)*b);
    if (!ha && !hb)
      return 0;
    unsigned long long x = ha ? take_num(&a) : 0;
    unsigned long long y = hb ? take_num(&b) : 0;
    if (x != y)
      return x < y ? -1 : 1;
    /* Past a number: continue after ".<digit>", else the numeric part ended
     * and the remaining parts count as 0. */
    if (ha)
      a = (*a == '.' && isdigit((unsigned char)a[1])) ? a + 1 : "";
    if (hb)
      b = (*b == '.' && isdigit((unsigned char)b[1])) ? b + 1 : "";
  }
}

/* NVIDIA CUDA Toolkit release notes, Table 3 (toolkit driver of each
 * release's GA, Linux x86_64 and Windows x86_64), as copied into
 * ../shared/reference/pytorch-matrix.yaml (11.7 on) and read from the
 * release notes' table (11.1-11.6).  The 11.0 row is the
 * minor-version-compatibility floor of 11.x (Table 2), so drivers below
 * 11.1's report "11.0".  Table 3 has no Windows value for 13.x (the
 * toolkit stopped bundling the Windows driver): Table 2's 13.x floor
 * stands in.  NULL: no such row for that OS. */
static const struct {
  const char *cuda;
  const char *linux_driver;
  const char *windows_driver;
} toolkit_drivers[] = {
    {"11.0", "450.80.02", "452.39"},   {"11.1", "455.23", "456.38"},
    {"11.2", "460.27.03", "460.82"},   {"11.3", "465.19.01", "465.89"},
    {"11.4", "470.42.01", "471.11"},   {"11.5", "495.29.05", "496.04"},
    {"11.6", "510.39.01", "511.23"},   {"11.7", "515.43.04", "516.01"},
    {"11.8", "520.61.05", "520.06"},   {"12.0", "525.60.13", "527.41"},
    {"12.1", "530.30.02", "531.14"},   {"12.2", "535.54.03", "536.25"},
    {"12.3", "545.23.06", "545.84"},   {"12.4", "550.54.14", "551.61"},
    {"12.5", "555.42.02", "555.85"},   {"12.6", "560.28.03", "560.76"},
    {"12.8", "570.26", "570.65"},      {"12.9", "575.51.03", "576.02"},
    {"13.0", "580.65.06", "580"},      {"13.1", "590.44.01", NULL},
    {"13.2", "595.45.04", NULL},
};
#define NTOOLKIT (sizeof toolkit_drivers / sizeof toolkit_drivers[0])

static const char *max_cuda_of(const char *driver, bool windows) {
  const char *best = NULL;
  if (!driver)
    return NULL;
  for (size_t i = 0; i < NTOOLKIT; i++) {
    const char *d = windows ? toolkit_drivers[i].windows_driver
                            : toolkit_drivers[i].linux_driver;
    if (d && ts_host_vercmp(driver, d) >= 0)
      best = toolkit_drivers[i].cuda;
  }
  return best;
}

const char *ts_host_driver_max_cuda(const char *driver) {
  return max_cuda_of(driver, false);
}

const char *ts_host_windows_driver_max_cuda(const char *driver) {
  return max_cuda_of(driver, true);
}

const char *ts_host_cuda_min_driver(const char *cuda) {
  if (!cuda)
    return NULL;
  const char *found = NULL;
  /* "12.7" is not a release: take the newest row at or below it, so that
   * "--cuda 12.7" still asks for at least the 12.6 driver. */
  for (size_t i = 0; i < NTOOLKIT; i++)
    if (ts_host_vercmp(toolkit_drivers[i].cuda, cuda) <= 0)
      found = toolkit_drivers[i].linux_driver;
  return found;
}

/* Table 2 of the CUDA release notes (minor-version compatibility): a
 * driver at or above the floor of a CUDA major runs every CUDA of that
 * major, newer minors included (PTX JIT and new GPUs aside). */
const char *ts_host_cuda_compat_driver(const char *cuda) {
  if (!cuda)
    return NULL;
  switch (strtoul(cuda, NULL, 10)) {
  case 11: return "450.80.02";
  case 12: return "525.60.13";
  case 13: return "580";
  default: return NULL;
  }
}

const char *ts_host_driver_max_cuda_compat(const char *driver) {
  const char *best = NULL;
  if (!driver)
    return NULL;
  for (size_t i = 0; i < NTOOLKIT; i++) {
    const char *floor = ts_host_cuda_compat_driver(toolkit_drivers[i].cuda);
    if (!floor)
      floor = toolkit_drivers[i].linux_driver;
    if (ts_host_vercmp(driver, floor) >= 0)
      best = toolkit_drivers[i].cuda;
  }
  return best;
}

bool ts_host_gfx_from_target_version(unsigned long v, char *buf, size_t cap) {
  if (v == 0 || v > 999999)
    return false;
  unsigned major = (unsigned)(v / 10000 % 100), minor = (unsigned)(v / 100 % 100),
           step = (unsigned)(v % 100);
  if (major == 0 || minor > 9 || step > 15)
    return false;
  int n = snprintf(buf, cap, "gfx%u%u%x", major, minor, step);
  return n > 0 && (size_t)n < cap;
}

bool ts_host_gfx_from_hsa_override(const char *s, char *buf, size_t cap) {
  unsigned long part[3];
  const char *p = s;
  if (!s)
    return false;
  for (int i = 0; i < 3; i++) {
    if (!isdigit((unsigned char)*p))
      return false;
    char *end;
    part[i] = strtoul(p, &end, 10);
    p = end;
    if (i < 2) {
      if (*p != '.')
        return false;
      p++;
    }
  }
  while (*p == ' ' || *p == '\n')
    p++;
  if (*p || part[0] == 0 || part[0] > 99 || part[1] > 9 || part[2] > 15)
    return false;
  int n = snprintf(buf, cap, "gfx%lu%lu%lx", part[0], part[1], part[2]);
  return n > 0 && (size_t)n < cap;
}

const char *ts_host_source_of(const struct ts_host *h, const char *fact) {
  const char *found = NULL;
  for (size_t i = 0; i < h->nsources; i++)
    if (strcmp(h->sources[i].fact, fact) == 0)
      found = h->sources[i].source; /* the latest (an override) wins */
  return found;
}
