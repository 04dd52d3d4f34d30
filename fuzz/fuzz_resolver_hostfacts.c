/* libFuzzer target: host facts → rules → resolver, the path every install
 * and lock takes.  The input describes a machine as the GPU options would
 * (any number of GPUs with any compute capabilities, gfx lists, drivers,
 * CUDA and ROCm versions, --cpu, --xpu, --ignore-host, another platform);
 * the bundled rules.yaml is compiled against it and torch (with
 * torchvision, or pinned) is resolved from a fixed in-memory index that has
 * a torch build of every variant rules.yaml lists, with the variant
 * preferences the plan derives from the backend list.  What is installed is
 * then checked against the same set.  Four GPUs once overflowed the
 * resolver's job list (issue 28). */
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "host/host.h"
#include "rules/rules.h"
#include "tests/conformance/resolver_mem.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

struct reader {
  const uint8_t *p;
  size_t n;
};

static unsigned take(struct reader *r) {
  if (!r->n)
    return 0;
  r->n--;
  return *r->p++;
}

static const char *const drivers[] = {
    "390.157", "450.80.02", "470.256.02", "525.60.13", "535.247.01", "550.144.03",
    "560.35.05", "570.124.06", "575.57.08", "580.65.06", "580.95.05", "595.45.04"};
static const char *const gfx_names[] = {
    "gfx900", "gfx906", "gfx908", "gfx90a", "gfx942", "gfx950", "gfx1030", "gfx1100",
    "gfx1101", "gfx1102", "gfx1150", "gfx1151", "gfx1200", "gfx1201", "gfx803", "gfx1036"};
static const char *const roots[][2] = {
    {"torch", NULL},          {"torch", "torchvision"}, {"torch==2.9.1", NULL},
    {"torch>=2.10", NULL},    {"torch<2.6", NULL},      {"torch==2.13.0+cpu", NULL},
    {"torchvision", NULL},    {"torch==2.5.1", "torchvision"}};

#define NAMES(a) (sizeof(a) / sizeof((a)[0]))

/* A version "MAJ.MIN" or "MAJ.MIN.PATCH" from the input, near real ones. */
static void version(struct reader *r, unsigned base, unsigned span, bool patch,
                    char *out, size_t cap) {
  unsigned maj = base + take(r) % span, min = take(r) % 10;
  if (patch)
    snprintf(out, cap, "%u.%u.%u", maj, min, take(r) % 5);
  else
    snprintf(out, cap, "%u.%u", maj, min);
}

/* A comma list of n items, each from the input. */
static void gpu_list(struct reader *r, bool cuda, char *out, size_t cap) {
  unsigned n = 1 + take(r) % 24;
  size_t len = 0;
  out[0] = '\0';
  for (unsigned i = 0; i < n && len + 16 < cap; i++) {
    unsigned b = take(r);
    int w = cuda ? snprintf(out + len, cap - len, "%s%u.%u", i ? "," : "",
                            3 + b % 10, (b >> 4) % 10)
                 : snprintf(out + len, cap - len, "%s%s", i ? "," : "",
                            gfx_names[b % NAMES(gfx_names)]);
    len += (size_t)w;
  }
}

struct machine {
  char cuda[16], driver[32], cc[512], rocm[16], gfx[512];
  struct ts_host_overrides ov;
  bool ignore_host;
};

static void describe(struct reader *r, struct machine *m) {
  memset(m, 0, sizeof *m);
  unsigned f = take(r), g = take(r);
  m->ov.cuda = (enum ts_host_mode)(f % 3);
  if (m->ov.cuda == TS_HOST_SET) {
    version(r, 10, 4, false, m->cuda, sizeof m->cuda);
    m->ov.cuda_version = m->cuda;
  }
  if (f & 4) {
    unsigned d = take(r);
    if (d & 0x80)
      snprintf(m->driver, sizeof m->driver, "%u.%u.%02u", 380 + d % 230, take(r), take(r) % 100);
    else
      snprintf(m->driver, sizeof m->driver, "%s", drivers[d % NAMES(drivers)]);
    m->ov.cuda_driver = m->driver;
  }
  if (f & 8) {
    gpu_list(r, true, m->cc, sizeof m->cc);
    m->ov.compute_capabilities = m->cc;
  }
  m->ov.rocm = (enum ts_host_mode)((f >> 4) % 3);
  if (m->ov.rocm == TS_HOST_SET) {
    version(r, 5, 3, take(r) & 1, m->rocm, sizeof m->rocm);
    m->ov.rocm_version = m->rocm;
  }
  if (f & 0x40) {
    gpu_list(r, false, m->gfx, sizeof m->gfx);
    m->ov.gfx = m->gfx;
  }
  m->ov.cpu = g & 1;
  m->ov.xpu = g & 2;
  m->ignore_host = m->ov.ignore_host = g & 4;
  m->ov.platform = g & 8 ? "manylinux_2_28_aarch64" : "manylinux_2_28_x86_64";
}

/* The index: a torch wheel per release version and variant, torchvision
 * for the pairs, all on both machines. */
static struct mem_index index_;
static struct ts_rules *rules;

static void add_wheel(const char *name, const char *version, const char *req) {
  struct mem_proj *p = mem_project(&index_, name);
  for (int arch = 0; arch < 2; arch++) {
    char fname[256];
    snprintf(fname, sizeof fname, "%s-%s-cp312-cp312-linux_%s.whl", name, version,
             arch ? "aarch64" : "x86_64");
    mem_add_file(p, fname, ">=3.9", false);
  }
  const char *reqs[] = {req};
  mem_add_meta(p, version, mem_metadata(name, version, ">=3.9", reqs, req ? 1 : 0,
                                        NULL, NULL, 0));
}

/* Small on purpose (a run is a resolve): the newest three releases and
 * 2.5 (older variants: cu118, cu124, rocm6.2), their last version each. */
static bool indexed(const struct ts_rules_release *rel, size_t i) {
  return i + 3 >= rules->nreleases || strcmp(rel->series, "2.5") == 0;
}

static void build_index(void) {
  for (size_t i = 0; i < rules->nreleases; i++) {
    const struct ts_rules_release *rel = &rules->releases[i];
    if (!indexed(rel, i) || !rel->nversions)
      continue;
    for (size_t v = rel->nversions - 1; v < rel->nversions; v++)
      for (size_t k = 0; k < rel->nvariants; k++) {
        char ver[96], req[128];
        snprintf(ver, sizeof ver, "%s+%s", rel->versions[v], rel->variants[k].backend);
        add_wheel("torch", ver, NULL);
        for (size_t p = 0; p < rel->npairs; p++)
          if (strcmp(rel->pairs[p].torch, rel->versions[v]) == 0) {
            snprintf(req, sizeof req, "torch==%s", rel->versions[v]);
            snprintf(ver, sizeof ver, "%s+%s", rel->pairs[p].torchvision,
                     rel->variants[k].backend);
            add_wheel("torchvision", ver, req);
          }
      }
  }
}

static bool setup(void) {
  if (rules)
    return true;
  struct ts_error err = {0};
  if (ts_rules_load_file(TS_RULES_SOURCE, &rules, NULL, &err) != TS_OK) {
    fprintf(stderr, "fuzz_resolver_hostfacts: %s\n", err.detail);
    abort();
  }
  build_index();
  return true;
}

/* The plan's preferences: usable backends best first, CPU as fallback;
 * returns how many patterns the fallback tier has. */
static size_t preferences(const struct ts_constraint_set *set, const char **pats,
                          size_t cap, size_t *npats) {
  size_t n = 0, cpu = 0;
  for (int want_cpu = 0; want_cpu < 2; want_cpu++)
    for (size_t i = 0; i < set->nbackends && n < cap; i++)
      if (set->backends[i].usable &&
          (strcmp(set->backends[i].kind, "cpu") == 0) == want_cpu) {
        pats[n++] = set->backends[i].name;
        cpu += (size_t)want_cpu;
      }
  *npats = n;
  return n > cpu ? cpu : 0;
}

static void resolve(const struct ts_constraint_set *set, const struct machine *m,
                    unsigned root, bool arm) {
  struct mem_target tg;
  if (!mem_target_init(&tg, "3.12.3", 2, 28, arm ? "aarch64" : "x86_64"))
    abort();
  struct ts_requirement *reqs[2] = {NULL, NULL};
  const struct ts_requirement *list[2];
  size_t nreqs = 0;
  for (int i = 0; i < 2 && roots[root][i]; i++)
    if (ts_requirement_parse(roots[root][i], strlen(roots[root][i]), &reqs[i], NULL) ==
        TS_OK)
      list[nreqs++] = reqs[i];
  const char *pats[64];
  size_t npats = 0;
  size_t nfallback = preferences(set, pats, 64, &npats);
  struct ts_resolver_variant_pref vp[2] = {{"torch", pats, npats, nfallback},
                                           {"torchvision", pats, npats, nfallback}};
  const char *priority[] = {"torch", "torchvision"};
  struct ts_resolver_request req = {.requirements = list, .nrequirements = nreqs,
                                    .rules = set, .variants = vp, .nvariants = 2,
                                    .priority = priority, .npriority = 2,
                                    .ignore_host = m->ignore_host,
                                    .refuse_pinned_fallback = true};
  struct ts_resolver_provider prov = {.ctx = &index_, .get_pages = mem_get_pages,
                                      .get_metadata = mem_get_metadata};
  struct ts_resolution *res = NULL;
  struct ts_error err = {0};
  if (ts_resolver_resolve(&req, &tg.target, &prov, &res, &err) == TS_OK && res) {
    struct ts_installed pk[8];
    size_t n = 0;
    for (size_t i = 0; i < res->nitems && n < 8; i++)
      pk[n++] = (struct ts_installed){res->items[i].name, res->items[i].version};
    struct ts_rules_finding *f = NULL;
    size_t nf = 0;
    if (ts_rules_check_installed(set, pk, n, &f, &nf, &err) == TS_OK)
      ts_rules_findings_free(f, nf);
  }
  ts_resolution_free(res);
  for (size_t i = 0; i < 2; i++)
    ts_requirement_free(reqs[i]);
  mem_target_free(&tg);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  setup();
  struct reader r = {data, size};
  struct machine m;
  describe(&r, &m);
  unsigned root = take(&r) % NAMES(roots);
  struct ts_host h;
  memset(&h, 0, sizeof h);
  struct ts_error err = {0};
  if (ts_host_apply_overrides(&h, &m.ov, &err) == TS_OK) {
    char kmd[32], basis[256];
    ts_rules_kmd_release(rules, &h, kmd, sizeof kmd, basis, sizeof basis);
    struct ts_rules_options ro = {.ignore_host = m.ignore_host};
    struct ts_constraint_set set;
    if (ts_rules_compile(rules, &h, &ro, &set, &err) == TS_OK) {
      /* the backend list of a release chosen by the input, as the plan
       * asks for every release */
      if (rules->nreleases) {
        struct ts_constraint_set one;
        ro.release = rules->releases[take(&r) % rules->nreleases].series;
        if (ts_rules_release_backends(rules, &h, &ro, &set, &one, &err) == TS_OK)
          ts_constraint_set_clear(&one);
      }
      resolve(&set, &m, root, strstr(m.ov.platform, "aarch64") != NULL);
      ts_constraint_set_clear(&set);
    }
  }
  ts_host_clear(&h);
  return 0;
}
