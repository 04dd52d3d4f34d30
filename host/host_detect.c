/*
 * host_detect.c — reads the GPU stack off the machine (or a sysroot).
 *
 * Order per fact (first hit wins; each hit records its source):
 *   NVIDIA driver   /sys/module/nvidia/version, /proc/driver/nvidia/version,
 *                   NVML (where a driver shows: the module, /dev/nvidiactl
 *                   or WSL), nvidia-smi
 *   NVIDIA GPUs     NVML, nvidia-smi, /proc/driver/nvidia/gpus/N (names),
 *                   PCI vendor 0x10de display devices (count only)
 *   CUDA version    NVML's cudaDriverVersion, else the driver table
 *   AMD gfx         KFD topology gfx_target_version, rocm_agent_enumerator
 *   ROCm version    $ROCM_PATH/.info/version, /opt/rocm/.info/version,
 *                   hipconfig --version (major.minor only)
 *   Intel XPU       PCI display device, vendor 0x8086, bound to i915 or xe
 */
#include <ctype.h>
#include <dirent.h>
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <gnu/libc-version.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>

#include "core/buf.h"
#include "core/fs.h"
#include "core/proc.h"
#include "core/str.h"
#include "host/host.h"
#include "host/host_internal.h"


/* A captured program output or a /proc file is small; libc.so.6 is not
 * (~2 MB), so it gets its own cap. */
#define HOST_CAP_TEXT (256u * 1024)
/* /proc/cpuinfo repeats every processor: 4 MiB holds a few hundred */
#define HOST_CAP_CPUINFO (4u * 1024 * 1024)
#define HOST_CAP_LIBC (16u * 1024 * 1024)
#define HOST_MAX_GPUS 64
/* Entries read from one /sys or /dev directory (a PCI bus, a DRM class):
 * thousands would mean a pseudo-filesystem we misread. */
#define HOST_MAX_DIR_ENTRIES 4096
#define HOST_PROGRAM_TIMEOUT_MS 10000

struct ctx {
  const struct ts_host_options *opt;
  struct ts_host *h;
};

static char *rooted(const struct ctx *c, const char *path) {
  if (!c->opt->sysroot)
    return ts_xstrdup(path);
  return ts_path_join(c->opt->sysroot, path[0] == '/' ? path + 1 : path);
}

/* Reads a file under the root; NULL when absent or unreadable. */
static char *read_text(const struct ctx *c, const char *path, size_t cap) {
  char *full = rooted(c, path);
  struct ts_buf b;
  ts_buf_init(&b, cap);
  enum ts_code rc = ts_fs_read_file(full, &b, NULL);
  free(full);
  if (rc != TS_OK) {
    ts_buf_clear(&b);
    return NULL;
  }
  return ts_buf_take(&b, NULL);
}

static bool exists(const struct ctx *c, const char *path) {
  char *full = rooted(c, path);
  struct stat st;
  bool ok = lstat(full, &st) == 0;
  free(full);
  return ok;
}

static void trim(char *s) {
  size_t n = strlen(s);
  while (n && isspace((unsigned char)s[n - 1]))
    s[--n] = '\0';
  size_t i = 0;
  while (s[i] && isspace((unsigned char)s[i]))
    i++;
  memmove(s, s + i, n - i + 1);
}

/* Runs argv[0] from PATH without a shell, stdout captured (capped), stderr
 * discarded, killed after a deadline (a wedged driver can hang
 * nvidia-smi).  NULL when it cannot run or exits non-zero. */
static char *run_program(char *const argv[]) {
  /* absent is the common case (no ROCm on an NVIDIA host, no driver in a
   * container): a stat per PATH entry, not a child that fails to exec */
  char *exe = ts_proc_find_program(argv[0]);
  if (!exe)
    return NULL;
  free(exe);
  struct ts_proc_options po = {.search_path = true,
                               .stderr_mode = TS_PROC_STDERR_DISCARD,
                               .timeout_ms = HOST_PROGRAM_TIMEOUT_MS,
                               .stdout_cap = HOST_CAP_TEXT};
  struct ts_proc_result pr;
  struct ts_error ignore = {0};
  char *text = NULL;
  if (ts_proc_run(argv, &po, &pr, &ignore) == TS_OK && ts_proc_succeeded(&pr))
    text = ts_buf_take(&pr.out, NULL);
  ts_proc_result_clear(&pr);
  return text;
}

/* A program's output: the captured file in sysroot mode, the program
 * itself when live and allowed.  *source gets a static description. */
static char *program_output(const struct ctx *c, const char *capture,
                            char *const argv[], const char **source) {
  if (c->opt->sysroot) {
    *source = capture;
    return read_text(c, capture, HOST_CAP_TEXT);
  }
  if (!c->opt->run_programs)
    return NULL;
  *source = argv[0];
  return run_program(argv);
}

/* ---- generic facts ---------------------------------------------------- */

static void detect_machine(struct ctx *c) {
  struct ts_host *h = c->h;
  if (!c->opt->sysroot) {
    struct utsname u;
    if (uname(&u) == 0) {
      ts_host_set_string(&h->machine, u.machine);
      ts_host_set_string(&h->kernel, u.release);
      ts_host_add_source(h, "machine", "uname");
    }
    return;
  }
  char *arch = read_text(c, "/proc/sys/kernel/arch", HOST_CAP_TEXT);
  if (arch) {
    trim(arch);
    if (arch[0]) {
      ts_host_set_string(&h->machine, arch);
      ts_host_add_source(h, "machine", "/proc/sys/kernel/arch");
    }
    free(arch);
  }
  static const char *const triplets[][2] = {
      {"x86_64", "/lib/x86_64-linux-gnu"},
      {"aarch64", "/lib/aarch64-linux-gnu"},
      {"ppc64le", "/lib/powerpc64le-linux-gnu"},
      {"s390x", "/lib/s390x-linux-gnu"},
  };
  for (size_t i = 0; !h->machine && i < sizeof triplets / sizeof triplets[0];
       i++)
    if (exists(c, triplets[i][1])) {
      ts_host_set_string(&h->machine, triplets[i][0]);
      ts_host_add_source(h, "machine", triplets[i][1]);
    }
  char *rel = read_text(c, "/proc/sys/kernel/osrelease", HOST_CAP_TEXT);
  if (rel) {
    trim(rel);
    if (rel[0])
      ts_host_set_string(&h->kernel, rel);
    free(rel);
  }
}

/* os-release values may be quoted; escapes are rare enough to keep. */
static void os_release_value(const char *text, const char *key, char **out) {
  size_t klen = strlen(key);
  for (const char *line = text; line && *line;) {
    const char *eol = strchr(line, '\n');
    size_t len = eol ? (size_t)(eol - line) : strlen(line);
    if (len > klen && strncmp(line, key, klen) == 0 && line[klen] == '=') {
      const char *v = line + klen + 1;
      size_t vlen = len - klen - 1;
      if (vlen >= 2 && (v[0] == '"' || v[0] == '\'') && v[vlen - 1] == v[0]) {
        v++;
        vlen -= 2;
      }
      free(*out);
      *out = ts_xstrndup(v, vlen);
      return;
    }
    line = eol ? eol + 1 : NULL;
  }
}

static void detect_os(struct ctx *c) {
  struct ts_host *h = c->h;
  ts_host_set_string(&h->os, "linux");
  const char *path = "/etc/os-release";
  char *text = read_text(c, path, HOST_CAP_TEXT);
  if (!text) {
    path = "/usr/lib/os-release";
    text = read_text(c, path, HOST_CAP_TEXT);
  }
  if (text) {
    os_release_value(text, "PRETTY_NAME", &h->os_pretty);
    os_release_value(text, "ID", &h->os_id);
    os_release_value(text, "VERSION_ID", &h->os_version);
    ts_host_add_source(h, "os", path);
    free(text);
  }
  char *ver = read_text(c, "/proc/version", HOST_CAP_TEXT);
  if (ver && (strstr(ver, "microsoft") || strstr(ver, "Microsoft"))) {
    h->wsl = true;
    ts_host_add_source(h, "wsl", "/proc/version");
  } else if (exists(c, "/dev/dxg")) {
    h->wsl = true;
    ts_host_add_source(h, "wsl", "/dev/dxg");
  }
  free(ver);
}

/* "... release version 2.36." inside libc.so.6, or the last word of the
 * first line of `ldd --version`. */
static char *glibc_from_text(const char *text, size_t len, bool ldd) {
  if (ldd) {
    const char *eol = memchr(text, '\n', len);
    size_t n = eol ? (size_t)(eol - text) : len;
    while (n && isspace((unsigned char)text[n - 1]))
      n--;
    size_t s = n;
    while (s && !isspace((unsigned char)text[s - 1]))
      s--;
    if (s < n && isdigit((unsigned char)text[s]))
      return ts_xstrndup(text + s, n - s);
    return NULL;
  }
  static const char needle[] = "release version ";
  const char *p = memmem(text, len, needle, sizeof needle - 1);
  if (!p)
    return NULL;
  p += sizeof needle - 1;
  size_t n = 0;
  while (p + n < text + len && (isdigit((unsigned char)p[n]) || p[n] == '.'))
    n++;
  while (n && p[n - 1] == '.')
    n--;
  return n ? ts_xstrndup(p, n) : NULL;
}

static void detect_glibc(struct ctx *c) {
  struct ts_host *h = c->h;
  if (!c->opt->sysroot) {
    ts_host_set_string(&h->glibc, gnu_get_libc_version());
    ts_host_add_source(h, "glibc", "gnu_get_libc_version()");
    return;
  }
  char *text = read_text(c, TS_HOST_CAPTURE_LDD, HOST_CAP_TEXT);
  if (text) {
    h->glibc = glibc_from_text(text, strlen(text), true);
    free(text);
    if (h->glibc) {
      ts_host_add_source(h, "glibc", TS_HOST_CAPTURE_LDD);
      return;
    }
  }
  static const char *const libcs[] = {
      "/lib/x86_64-linux-gnu/libc.so.6",  "/lib/aarch64-linux-gnu/libc.so.6",
      "/lib/powerpc64le-linux-gnu/libc.so.6", "/lib64/libc.so.6",
      "/usr/lib64/libc.so.6",             "/lib/libc.so.6",
  };
  for (size_t i = 0; i < sizeof libcs / sizeof libcs[0]; i++) {
    char *full = rooted(c, libcs[i]);
    struct ts_buf b;
    ts_buf_init(&b, HOST_CAP_LIBC);
    if (ts_fs_read_file(full, &b, NULL) == TS_OK) {
      h->glibc = glibc_from_text(b.data, b.len, false);
      if (h->glibc)
        ts_host_add_source(h, "glibc", libcs[i]);
    }
    ts_buf_clear(&b);
    free(full);
    if (h->glibc)
      return;
  }
}

/* ---- NVIDIA ----------------------------------------------------------- */

/* First whitespace-separated token shaped like N.N[.N] ("580.159.04"). */
static char *driver_token(const char *text) {
  const char *p = text;
  while (*p) {
    while (*p && isspace((unsigned char)*p))
      p++;
    const char *s = p;
    while (*p && !isspace((unsigned char)*p))
      p++;
    size_t n = (size_t)(p - s), dots = 0;
    bool ok = n > 0 && isdigit((unsigned char)s[0]);
    for (size_t i = 0; ok && i < n; i++) {
      if (s[i] == '.')
        dots++;
      else if (!isdigit((unsigned char)s[i]))
        ok = false;
    }
    if (ok && dots >= 1 && s[n - 1] != '.')
      return ts_xstrndup(s, n);
  }
  return NULL;
}

static void add_cuda_gpu(struct ts_host *h, const char *name, const char *cc) {
  if (h->ncuda_gpus >= HOST_MAX_GPUS)
    return;
  h->cuda_gpus = ts_xrealloc(h->cuda_gpus,
                               (h->ncuda_gpus + 1) * sizeof *h->cuda_gpus);
  struct ts_host_cuda_gpu *g = &h->cuda_gpus[h->ncuda_gpus++];
  g->name = name && *name ? ts_xstrdup(name) : NULL;
  g->compute_capability = cc && *cc ? ts_xstrdup(cc) : NULL;
}

/* NVML through dlopen: the few prototypes we call, declared here so that no
 * NVIDIA header is needed.  0 is NVML_SUCCESS. */
typedef int nvml_init_fn(void);
typedef int nvml_shutdown_fn(void);
typedef int nvml_driver_fn(char *, unsigned);
typedef int nvml_cuda_fn(int *);
typedef int nvml_count_fn(unsigned *);
typedef int nvml_handle_fn(unsigned, void **);
typedef int nvml_name_fn(void *, char *, unsigned);
typedef int nvml_cc_fn(void *, int *, int *);

static bool detect_nvml(struct ctx *c, bool want_driver) {
  struct ts_host *h = c->h;
  void *lib = dlopen("libnvidia-ml.so.1", RTLD_NOW | RTLD_LOCAL);
  if (!lib)
    return false;
  nvml_init_fn *init = (nvml_init_fn *)dlsym(lib, "nvmlInit_v2");
  nvml_shutdown_fn *shutdown = (nvml_shutdown_fn *)dlsym(lib, "nvmlShutdown");
  nvml_driver_fn *drv =
      (nvml_driver_fn *)dlsym(lib, "nvmlSystemGetDriverVersion");
  nvml_cuda_fn *cuda =
      (nvml_cuda_fn *)dlsym(lib, "nvmlSystemGetCudaDriverVersion_v2");
  nvml_count_fn *count = (nvml_count_fn *)dlsym(lib, "nvmlDeviceGetCount_v2");
  nvml_handle_fn *handle =
      (nvml_handle_fn *)dlsym(lib, "nvmlDeviceGetHandleByIndex_v2");
  nvml_name_fn *name = (nvml_name_fn *)dlsym(lib, "nvmlDeviceGetName");
  nvml_cc_fn *cc = (nvml_cc_fn *)dlsym(lib, "nvmlDeviceGetCudaComputeCapability");
  if (!init || !shutdown || init() != 0) {
    dlclose(lib);
    return false;
  }
  char buf[96];
  if (want_driver && drv && drv(buf, sizeof buf) == 0) {
    buf[sizeof buf - 1] = '\0';
    ts_host_set_string(&h->cuda_driver, buf);
    ts_host_add_source(h, "cuda.driver_version", "NVML");
  }
  int cv = 0;
  if (cuda && cuda(&cv) == 0 && cv > 0) {
    snprintf(buf, sizeof buf, "%d.%d", cv / 1000, cv % 1000 / 10);
    ts_host_set_string(&h->cuda_version, buf);
    ts_host_add_source(h, "cuda.cuda_version", "NVML");
  }
  unsigned n = 0;
  if (count && handle && count(&n) == 0) {
    for (unsigned i = 0; i < n && i < HOST_MAX_GPUS; i++) {
      void *dev = NULL;
      if (handle(i, &dev) != 0)
        continue;
      char nm[96] = "", ccs[16] = "";
      if (name && name(dev, nm, sizeof nm) == 0)
        nm[sizeof nm - 1] = '\0';
      int maj = 0, min = 0;
      if (cc && cc(dev, &maj, &min) == 0)
        snprintf(ccs, sizeof ccs, "%d.%d", maj, min);
      add_cuda_gpu(h, nm, ccs);
    }
    if (h->ncuda_gpus)
      ts_host_add_source(h, "cuda.gpus", "NVML");
  }
  shutdown();
  dlclose(lib);
  return true;
}

/* NVML answers only through a loaded driver: its kernel module (whose
 * version was read above), the /dev/nvidiactl node it opens, or WSL's
 * /dev/dxg.  Where none shows, dlopen would only fail, after searching
 * every library folder for libnvidia-ml.so.1 (60 failing system calls,
 * half a millisecond of a run's time on a machine without NVIDIA). */
static bool nvml_may_answer(const struct ctx *c) {
  return c->h->cuda_driver || c->h->wsl || exists(c, "/dev/nvidiactl");
}

/* "NVIDIA H100 80GB HBM3, 9.0[, 580.159.04]" per line. */
static void parse_smi(struct ts_host *h, const char *text, bool want_driver,
                      const char *source) {
  for (const char *line = text; line && *line;) {
    const char *eol = strchr(line, '\n');
    size_t len = eol ? (size_t)(eol - line) : strlen(line);
    char *l = ts_xstrndup(line, len);
    char *f[3] = {NULL, NULL, NULL};
    size_t nf = 0;
    char *p = l;
    while (nf < 3) {
      f[nf++] = p;
      char *comma = strchr(p, ',');
      if (!comma)
        break;
      *comma = '\0';
      p = comma + 1;
    }
    for (size_t i = 0; i < nf; i++)
      trim(f[i]);
    if (nf >= 2 && f[0][0]) {
      const char *ccv = isdigit((unsigned char)f[1][0]) ? f[1] : NULL;
      add_cuda_gpu(h, f[0], ccv);
      if (want_driver && nf == 3 && !h->cuda_driver &&
          isdigit((unsigned char)f[2][0])) {
        ts_host_set_string(&h->cuda_driver, f[2]);
        ts_host_add_source(h, "cuda.driver_version", source);
      }
    }
    free(l);
    line = eol ? eol + 1 : NULL;
  }
  if (h->ncuda_gpus)
    ts_host_add_source(h, "cuda.gpus", source);
}

/* Sorted entry names of a directory under the root (caller frees). */
static char **list_dir(const struct ctx *c, const char *path, size_t *n) {
  *n = 0;
  char *full = rooted(c, path);
  DIR *d = opendir(full);
  free(full);
  if (!d)
    return NULL;
  char **names = NULL;
  struct dirent *e;
  while ((e = readdir(d)) && *n < HOST_MAX_DIR_ENTRIES) {
    if (e->d_name[0] == '.')
      continue;
    ts_strv_push(&names, n, e->d_name, strlen(e->d_name));
  }
  closedir(d);
  if (*n)
    qsort(names, *n, sizeof *names, ts_strv_cmp);
  return names;
}

struct pci_dev {
  unsigned long vendor, cls;
  char driver[64];
};

static bool read_pci(const struct ctx *c, const char *dev, struct pci_dev *out) {
  char path[512];
  snprintf(path, sizeof path, "/sys/bus/pci/devices/%s/vendor", dev);
  char *v = read_text(c, path, HOST_CAP_TEXT);
  snprintf(path, sizeof path, "/sys/bus/pci/devices/%s/class", dev);
  char *k = read_text(c, path, HOST_CAP_TEXT);
  bool ok = v && k;
  if (ok) {
    out->vendor = strtoul(v, NULL, 16);
    out->cls = strtoul(k, NULL, 16);
    out->driver[0] = '\0';
    snprintf(path, sizeof path, "/sys/bus/pci/devices/%s/driver", dev);
    char *full = rooted(c, path);
    char target[512];
    ssize_t n = readlink(full, target, sizeof target - 1);
    free(full);
    if (n > 0) {
      target[n] = '\0';
      const char *base = strrchr(target, '/');
      base = base ? base + 1 : target;
      size_t bl = strlen(base);
      if (bl >= sizeof out->driver)
        bl = sizeof out->driver - 1;
      memcpy(out->driver, base, bl);
      out->driver[bl] = '\0';
    }
  }
  free(v);
  free(k);
  return ok;
}

static void detect_nvidia(struct ctx *c) {
  struct ts_host *h = c->h;
  char *text = read_text(c, "/sys/module/nvidia/version", HOST_CAP_TEXT);
  if (text) {
    trim(text);
    if (text[0]) {
      ts_host_set_string(&h->cuda_driver, text);
      ts_host_add_source(h, "cuda.driver_version", "/sys/module/nvidia/version");
    }
    free(text);
  }
  if (!h->cuda_driver) {
    text = read_text(c, "/proc/driver/nvidia/version", HOST_CAP_TEXT);
    if (text) {
      const char *p = strstr(text, "Kernel Module");
      char *tok = driver_token(p ? p + strlen("Kernel Module") : text);
      if (tok) {
        h->cuda_driver = tok;
        ts_host_add_source(h, "cuda.driver_version", "/proc/driver/nvidia/version");
      }
      free(text);
    }
  }
  bool nvml = false;
  if (!c->opt->sysroot && c->opt->use_nvml && nvml_may_answer(c))
    nvml = detect_nvml(c, h->cuda_driver == NULL);
  if (!h->ncuda_gpus) {
    char *const argv[] = {(char *)"nvidia-smi",
                          (char *)"--query-gpu=name,compute_cap,driver_version",
                          (char *)"--format=csv,noheader", NULL};
    const char *src = NULL;
    /* Under a sysroot the capture stands in for the program; live, the
     * program runs only when a driver hints that it will answer. */
    if (c->opt->sysroot || h->cuda_driver || h->wsl || !nvml) {
      text = program_output(c, TS_HOST_CAPTURE_NVIDIA_SMI, argv, &src);
      if (text) {
        parse_smi(h, text, h->cuda_driver == NULL, src);
        free(text);
      }
    }
  }
  if (!h->ncuda_gpus) {
    size_t n;
    char **dirs = list_dir(c, "/proc/driver/nvidia/gpus", &n);
    for (size_t i = 0; i < n; i++) {
      char path[512];
      snprintf(path, sizeof path, "/proc/driver/nvidia/gpus/%s/information",
               dirs[i]);
      char *info = read_text(c, path, HOST_CAP_TEXT);
      char *model = NULL;
      if (info)
        for (char *line = info; line && *line;) {
          char *eol = strchr(line, '\n');
          if (eol)
            *eol = '\0';
          if (strncmp(line, "Model:", 6) == 0) {
            model = line + 6;
            trim(model);
            break;
          }
          line = eol ? eol + 1 : NULL;
        }
      add_cuda_gpu(h, model, NULL);
      free(info);
    }
    if (h->ncuda_gpus)
      ts_host_add_source(h, "cuda.gpus", "/proc/driver/nvidia/gpus");
    ts_strv_free(dirs, n);
  }
  if (!h->ncuda_gpus && h->cuda_driver) {
    size_t n;
    char **devs = list_dir(c, "/sys/bus/pci/devices", &n);
    for (size_t i = 0; i < n; i++) {
      struct pci_dev d;
      if (read_pci(c, devs[i], &d) && d.vendor == 0x10de &&
          (d.cls >> 16) == 0x03)
        add_cuda_gpu(h, NULL, NULL);
    }
    if (h->ncuda_gpus)
      ts_host_add_source(h, "cuda.gpus", "/sys/bus/pci/devices (vendor 0x10de)");
    ts_strv_free(devs, n);
  }
  if (h->cuda_driver && !h->cuda_version) {
    /* Under WSL the driver is the Windows one, numbered differently. */
    const char *cv = h->wsl ? ts_host_windows_driver_max_cuda(h->cuda_driver)
                            : ts_host_driver_max_cuda(h->cuda_driver);
    if (cv) {
      ts_host_set_string(&h->cuda_version, cv);
      ts_host_add_source(h, "cuda.cuda_version",
                  h->wsl ? "Windows driver table (CUDA toolkit release notes, Table 3; WSL)"
                         : "driver table (CUDA toolkit release notes, Table 3)");
    }
  }
  h->has_cuda = h->cuda_driver || h->ncuda_gpus;
}

/* ---- AMD -------------------------------------------------------------- */

static void add_rocm_gpu(struct ts_host *h, const char *gfx) {
  if (h->nrocm_gpus >= HOST_MAX_GPUS)
    return;
  h->rocm_gpus =
      ts_xrealloc(h->rocm_gpus, (h->nrocm_gpus + 1) * sizeof *h->rocm_gpus);
  h->rocm_gpus[h->nrocm_gpus].gfx = ts_xstrdup(gfx);
  h->rocm_gpus[h->nrocm_gpus].real_gfx = NULL;
  h->nrocm_gpus++;
}

static int cmp_numeric(const void *a, const void *b) {
  unsigned long x = strtoul(*(char *const *)a, NULL, 10);
  unsigned long y = strtoul(*(char *const *)b, NULL, 10);
  return x < y ? -1 : x > y;
}

static enum ts_code detect_amd(struct ctx *c, struct ts_error *err) {
  struct ts_host *h = c->h;
  size_t n;
  char **nodes = list_dir(c, "/sys/class/kfd/kfd/topology/nodes", &n);
  if (n)
    qsort(nodes, n, sizeof *nodes, cmp_numeric);
  for (size_t i = 0; i < n; i++) {
    char path[512];
    snprintf(path, sizeof path, "/sys/class/kfd/kfd/topology/nodes/%s/properties",
             nodes[i]);
    char *props = read_text(c, path, HOST_CAP_TEXT);
    const char *p = props ? strstr(props, "gfx_target_version ") : NULL;
    if (p) {
      char gfx[32];
      unsigned long v = strtoul(p + strlen("gfx_target_version "), NULL, 10);
      if (ts_host_gfx_from_target_version(v, gfx, sizeof gfx))
        add_rocm_gpu(h, gfx);
    }
    free(props);
  }
  ts_strv_free(nodes, n);
  if (h->nrocm_gpus)
    ts_host_add_source(h, "rocm.gpus", "/sys/class/kfd/kfd/topology/nodes/*/properties");
  else {
    char *const argv[] = {(char *)"rocm_agent_enumerator", NULL};
    const char *src = NULL;
    char *text = program_output(c, TS_HOST_CAPTURE_ROCM_AGENTS, argv, &src);
    for (char *line = text; line && *line;) {
      char *eol = strchr(line, '\n');
      if (eol)
        *eol = '\0';
      trim(line);
      if (strncmp(line, "gfx", 3) == 0 && strcmp(line, "gfx000") != 0 &&
          strlen(line) < 16)
        add_rocm_gpu(h, line);
      line = eol ? eol + 1 : NULL;
    }
    free(text);
    if (h->nrocm_gpus)
      ts_host_add_source(h, "rocm.gpus", src);
  }

  /* The DKMS kernel driver says its version; the kernel's own amdgpu has
   * no version file, and then the installed ROCm stands in for it. */
  char *kmd = read_text(c, "/sys/module/amdgpu/version", HOST_CAP_TEXT);
  if (kmd) {
    trim(kmd);
    if (isdigit((unsigned char)kmd[0])) {
      ts_host_set_string(&h->amdgpu_version, kmd);
      ts_host_add_source(h, "rocm.amdgpu_version", "/sys/module/amdgpu/version");
    }
    free(kmd);
  }

  /* The installed user-space ROCm. */
  char *candidates[2] = {NULL, NULL};
  if (c->opt->rocm_path && c->opt->rocm_path[0])
    candidates[0] = ts_path_join(c->opt->rocm_path, ".info/version");
  candidates[1] = ts_xstrdup("/opt/rocm/.info/version");
  for (size_t i = 0; i < 2 && !h->rocm_version; i++) {
    if (!candidates[i])
      continue;
    char *text = read_text(c, candidates[i], HOST_CAP_TEXT);
    if (text) {
      trim(text);
      size_t k = 0;
      while (isdigit((unsigned char)text[k]) || text[k] == '.')
        k++;
      while (k && text[k - 1] == '.')
        k--;
      if (k) {
        h->rocm_version = ts_xstrndup(text, k);
        ts_host_add_source(h, "rocm.version", candidates[i]);
      }
      free(text);
    }
  }
  free(candidates[0]);
  free(candidates[1]);
  if (!h->rocm_version) {
    char *const argv[] = {(char *)"hipconfig", (char *)"--version", NULL};
    const char *src = NULL;
    char *text = program_output(c, TS_HOST_CAPTURE_HIPCONFIG, argv, &src);
    if (text) {
      /* HIP "6.2.41133-dd7f95766": its major.minor is the ROCm release;
       * the patch number is not, so it is dropped. */
      unsigned long maj = 0, min = 0;
      char *end;
      maj = strtoul(text, &end, 10);
      if (end != text && *end == '.') {
        min = strtoul(end + 1, NULL, 10);
        char buf[32];
        snprintf(buf, sizeof buf, "%lu.%lu", maj, min);
        ts_host_set_string(&h->rocm_version, buf);
        ts_host_add_source(h, "rocm.version", src);
      }
      free(text);
    }
  }

  if (c->opt->hsa_override && c->opt->hsa_override[0]) {
    char gfx[32];
    if (!ts_host_gfx_from_hsa_override(c->opt->hsa_override, gfx, sizeof gfx))
      return ts_error_set(err, TS_E_INVALID,
                          "HSA_OVERRIDE_GFX_VERSION='%s' is not major.minor.step "
                          "(e.g. 11.0.0 for gfx1100)",
                          c->opt->hsa_override);
    ts_host_set_string(&h->hsa_override, c->opt->hsa_override);
    for (size_t i = 0; i < h->nrocm_gpus; i++) {
      struct ts_host_rocm_gpu *g = &h->rocm_gpus[i];
      if (strcmp(g->gfx, gfx) != 0) {
        g->real_gfx = g->gfx;
        g->gfx = ts_xstrdup(gfx);
      }
    }
    /* rocm.gpus keeps where the GPUs were read (KFD or the enumerator):
     * the override changes their target, not where they came from. */
    ts_host_add_source(h, "rocm.hsa_override", "HSA_OVERRIDE_GFX_VERSION");
  }
  h->has_rocm = h->nrocm_gpus || h->rocm_version;
  return TS_OK;
}

/* ---- Intel ------------------------------------------------------------ */

/* Heuristic (documented in doc/rules.md): a PCI display-class device of
 * vendor 0x8086 bound to a kernel driver that exposes compute to Level
 * Zero (i915 or xe).  An Intel display device with no such driver bound is
 * not counted: the XPU wheels could not reach it.  The user-space compute
 * runtime is not probed; --cpu turns XPU off where it is missing. */
static void detect_intel(struct ctx *c) {
  struct ts_host *h = c->h;
  size_t n;
  char **devs = list_dir(c, "/sys/bus/pci/devices", &n);
  for (size_t i = 0; i < n && !h->xpu; i++) {
    struct pci_dev d;
    if (read_pci(c, devs[i], &d) && d.vendor == 0x8086 &&
        (d.cls >> 16) == 0x03 &&
        (strcmp(d.driver, "i915") == 0 || strcmp(d.driver, "xe") == 0)) {
      h->xpu = true;
      char src[160];
      snprintf(src, sizeof src,
               "/sys/bus/pci/devices/%s (vendor 0x8086, class 0x%06lx, driver %s)",
               devs[i], d.cls, d.driver);
      ts_host_add_source(h, "xpu", src);
    }
  }
  ts_strv_free(devs, n);
}

/* "# R36 (release), REVISION: 4.3, ..." -> "L4T R36.4.3". */
static char *l4t_release(const char *text) {
  const char *r = strstr(text, "# R");
  const char *rev = strstr(text, "REVISION: ");
  if (!r || !rev)
    return NULL;
  r += 2;
  rev += 10;
  return ts_xasprintf("L4T %.*s.%.*s", (int)strspn(r, "R0123456789"), r,
                      (int)strspn(rev, "0123456789."), rev);
}

/* NVIDIA Jetson (L4T): see host.h.  The device tree's compatible is a
 * list of NUL-separated strings. */
static void detect_jetson(struct ctx *c) {
  struct ts_host *h = c->h;
  if (!h->machine || strcmp(h->machine, "aarch64") != 0)
    return;
  char *text = read_text(c, "/etc/nv_tegra_release", HOST_CAP_TEXT);
  char *rel = text ? l4t_release(text) : NULL;
  free(text);
  if (rel) {
    h->jetson = rel;
    ts_host_add_source(h, "jetson", "/etc/nv_tegra_release");
    return;
  }
  char *full = rooted(c, "/proc/device-tree/compatible");
  struct ts_buf b;
  ts_buf_init(&b, HOST_CAP_TEXT);
  if (ts_fs_read_file(full, &b, NULL) == TS_OK)
    for (size_t i = 0; i < b.len && !h->jetson; i += strnlen(b.data + i, b.len - i) + 1)
      if (strncmp(b.data + i, "nvidia,tegra", 12) == 0) {
        h->jetson = ts_xstrndup(b.data + i, strnlen(b.data + i, b.len - i));
        ts_host_add_source(h, "jetson", "/proc/device-tree/compatible");
      }
  ts_buf_clear(&b);
  free(full);
}

/* The first processor's feature flags in /proc/cpuinfo: its "flags" line
 * on x86, its "Features" line (the kernel's HWCAP names) on aarch64. */
static void detect_cpu_flags(struct ctx *c) {
  char *text = read_text(c, "/proc/cpuinfo", HOST_CAP_CPUINFO);
  if (!text)
    return;
  for (char *line = text; line && *line;) {
    char *nl = strchr(line, '\n');
    if (nl)
      *nl = '\0';
    if ((strncmp(line, "flags", 5) == 0 || strncmp(line, "Features", 8) == 0) &&
        strchr(line, ':')) {
      char *v = strchr(line, ':') + 1;
      v += strspn(v, " \t");
      ts_host_set_string(&c->h->cpu_flags, v);
      ts_host_add_source(c->h, "cpu.flags", "/proc/cpuinfo");
      break;
    }
    line = nl ? nl + 1 : NULL;
  }
  free(text);
}

enum ts_code ts_host_detect(const struct ts_host_options *opt,
                            struct ts_host *out, struct ts_error *err) {
  memset(out, 0, sizeof *out);
  if (opt->sysroot) {
    struct stat st;
    if (stat(opt->sysroot, &st) != 0 || !S_ISDIR(st.st_mode))
      return ts_error_set(err, TS_E_NOT_FOUND, "sysroot '%s' is not a directory",
                          opt->sysroot);
  }
  struct ctx c = {opt, out};
  detect_machine(&c);
  detect_os(&c);
  detect_jetson(&c);
  detect_cpu_flags(&c);
  detect_glibc(&c);
  detect_nvidia(&c);
  enum ts_code rc = detect_amd(&c, err);
  if (rc != TS_OK) {
    ts_host_clear(out);
    return rc;
  }
  detect_intel(&c);
  return TS_OK;
}

void ts_host_clear(struct ts_host *h) {
  free(h->machine);
  free(h->os);
  free(h->os_pretty);
  free(h->os_id);
  free(h->os_version);
  free(h->kernel);
  free(h->glibc);
  free(h->cuda_driver);
  free(h->cuda_version);
  for (size_t i = 0; i < h->ncuda_gpus; i++) {
    free(h->cuda_gpus[i].name);
    free(h->cuda_gpus[i].compute_capability);
  }
  free(h->cuda_gpus);
  free(h->rocm_version);
  free(h->amdgpu_version);
  for (size_t i = 0; i < h->nrocm_gpus; i++) {
    free(h->rocm_gpus[i].gfx);
    free(h->rocm_gpus[i].real_gfx);
  }
  free(h->rocm_gpus);
  free(h->hsa_override);
  free(h->jetson);
  free(h->cpu_flags);
  for (size_t i = 0; i < h->nsources; i++) {
    free(h->sources[i].fact);
    free(h->sources[i].source);
  }
  free(h->sources);
  memset(h, 0, sizeof *h);
}
