/* rules/: loading with positions, merging, compiling against hand-made
 * hosts, and checking installed sets. */
#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>

#include "host/host.h"
#include "pep/specifier.h"
#include "rules/rules.h"

#define BUNDLED TS_FIXTURES_DIR "/../rules.yaml"
#define SYSROOT(name) TS_FIXTURES_DIR "/sysroot/" name

static struct ts_rules *bundled(void) {
  struct ts_rules *r = NULL;
  struct ts_error e = {0};
  cr_assert_eq(ts_rules_load_file(BUNDLED, &r, NULL, &e), TS_OK, "%s", e.detail);
  return r;
}

static struct ts_rules *parse_ok(const char *text) {
  struct ts_rules *r = NULL;
  struct ts_error e = {0};
  cr_assert_eq(ts_rules_parse(text, strlen(text), "t.yaml", &r, NULL, &e), TS_OK,
               "%s", e.detail);
  return r;
}

/* Parses text expecting failure; returns the first error. */
static void parse_bad(const char *text, const char *want) {
  struct ts_rules *r = NULL;
  struct ts_error e = {0};
  struct ts_rules_diags d = {0};
  cr_assert_eq(ts_rules_parse(text, strlen(text), "t.yaml", &r, &d, &e),
               TS_E_RULES, "accepted: %s", text);
  cr_expect_null(r);
  cr_expect_gt(d.n, 0);
  cr_expect(strstr(e.detail, want) != NULL, "'%s' not in '%s'", want, e.detail);
  ts_rules_diags_clear(&d);
}

Test(rules_load, bundled_file) {
  struct ts_rules *r = bundled();
  cr_expect_eq(r->nbackends, 25);
  cr_expect_eq(r->nreleases, 15);
  cr_expect_str_eq(r->releases[0].series, "2.0");
  cr_expect_str_eq(ts_rules_newest(r)->series, "2.14");
  cr_expect_str_eq(r->releases[10].series, "2.10"); /* numeric, not text order */
  const struct ts_rules_backend *b = ts_rules_find_backend(r, "cu130");
  cr_assert_not_null(b);
  cr_expect_eq(b->kind, TS_BACKEND_CUDA);
  cr_expect_str_eq(b->driver_min, "580");
  b = ts_rules_find_backend(r, "rocm7.2");
  cr_assert_not_null(b);
  cr_expect_eq(b->ngfx, 12); /* no gfx900/gfx906 from ROCm 6.4 on */
  for (size_t i = 0; i < b->ngfx; i++)
    cr_expect_str_neq(b->gfx[i], "gfx906");
  const struct ts_rules_release *rel = ts_rules_find_release(r, "2.13");
  cr_assert_not_null(rel);
  cr_expect_eq(rel->nvariants, 8); /* cpu cu126 cu129 cu130 cu132 rocm7.1 rocm7.2 xpu */
  /* Every rule has an id, a source URL and a message; refusals a fix. */
  for (size_t i = 0; i < r->nrules; i++) {
    cr_expect_not_null(r->rules[i].id);
    cr_expect_eq(strncmp(r->rules[i].source, "http", 4), 0);
    cr_expect_not_null(r->rules[i].message);
    if (r->rules[i].kind != TS_RULES_CUSTOM_BUILD)
      cr_expect_not_null(r->rules[i].fix, "%s", r->rules[i].id);
  }
  ts_rules_free(r);
}

Test(rules_load, errors_have_positions) {
  parse_bad("schema: 1\nbackends:\n  - id: x\n    kind: gpu\n    source: https://e/\n",
            "t.yaml:4:11: backend 'x': kind must be cpu, cuda, rocm or xpu");
  parse_bad("schema: 1\nrules:\n  - id: r\n    kind: requires\n    subject: torch\n"
            "    terms: [\"torch>=\"]\n    message: m\n    fix: f\n    source: https://e/\n",
            "t.yaml:6:13:");
  parse_bad("backends: []\n", "t.yaml:1:1: missing 'schema'");
  parse_bad("schema: 1\nschema: 1\n", "duplicate key 'schema'");
  parse_bad("schema: 1\nrules:\n  - id: r\n    kind: requires\n    subject: __gfx1100\n"
            "    terms: [torch]\n    message: m\n    fix: f\n    source: https://e/\n",
            "the subject must be a project");
  parse_bad("schema: 1\nrules:\n  - id: r\n    kind: requires\n    subject: torch\n"
            "    when: [torch]\n    terms: [numpy]\n    message: m\n    fix: f\n"
            "    source: https://e/\n",
            "'torch' is not a host fact");
  parse_bad("schema: 1\nreleases:\n  - series: \"2.1\"\n    versions: [\"2.2.0\"]\n"
            "    variants: {cpu: {}}\n    source: https://e/\n",
            "version '2.2.0' is not in the series");
  parse_bad("schema: 1\n---\nschema: 1\n", "more than one YAML document");
  parse_bad("[1, 2", "YAML:");
  parse_bad("", "the document is empty");
  parse_bad("schema: 1\nbackends:\n  - {id: cpu, kind: cpu, source: https://e/}\n"
            "releases:\n  - {series: \"2.0\", versions: [\"2.0.0\"], source: https://e/,"
            " variants: {cu118: {}}}\n",
            "variant 'cu118' is not a backend");
  /* A platform's table is checked like the release's own. */
  parse_bad("schema: 1\nbackends:\n  - {id: cpu, kind: cpu, source: https://e/}\n"
            "releases:\n  - {series: \"2.0\", versions: [\"2.0.0\"], source: https://e/,"
            " variants: {cpu: {}}, platforms: {aarch64: {source: https://e/,"
            " variants: {cu126: {}}}}}\n",
            "release '2.0' platform aarch64: variant 'cu126' is not a backend");
  parse_bad("schema: 1\nbackends:\n  - {id: cpu, kind: cpu, source: https://e/}\n"
            "releases:\n  - {series: \"2.0\", versions: [\"2.0.0\"], source: https://e/,"
            " variants: {cpu: {}}, platforms: {x86_64: {source: https://e/, variants: {cpu: {}}}}}\n",
            "x86_64 is the release's own 'variants'");
  /* Every ROCm backend has a place in the kernel-driver window. */
  parse_bad("schema: 1\nrocm_kmd: {window: 2, releases: [\"6.0\", \"6.1\"], source: https://e/}\n"
            "backends:\n  - {id: rocm6.2, kind: rocm, rocm: \"6.2\", gfx: [gfx1100], source: https://e/}\n",
            "backend 'rocm6.2': ROCm 6.2 is not in rocm_kmd.releases");
  parse_bad("schema: 1\nrocm_kmd: {window: 0, releases: [\"6.1\", \"6.0\"], source: https://e/}\n",
            "window must be a number of releases");
  parse_bad("schema: 1\nrocm_kmd: {window: 2, releases: [\"6.1\", \"6.0\"], source: https://e/}\n",
            "releases must be ROCm versions, oldest first");
  parse_bad("schema: 1\nbackends:\n  - {id: cpu, kind: cpu, source: https://e/, evidence: [ftp://x]}\n",
            "evidence 'ftp://x' must be an http(s) URL");
}

Test(rules_load, merge_by_id) {
  struct ts_rules *r = bundled();
  size_t nrules = r->nrules, nrel = r->nreleases;
  struct ts_rules *u = parse_ok(
      "schema: 1\n"
      "rules:\n"
      "  - {id: pymomentum-gpu-abi, kind: requires, subject: \"pymomentum-gpu<0.2\",\n"
      "     terms: [\"torch>=2.8,<2.11\"], message: m, fix: f, source: https://e/}\n"
      "  - {id: mine, kind: conflicts, subject: torch, terms: [\"numpy<1\"],\n"
      "     message: m, fix: f, source: https://e/}\n"
      "releases:\n"
      "  - {series: \"2.15\", versions: [\"2.15.0\"], source: https://e/,\n"
      "     variants: {cpu: {}, cu130: {archs: \"8.0;9.0\"}}}\n"
      "routes: {source: https://e/, projects: [my_Torch.Ext, torch]}\n");
  struct ts_error e = {0};
  cr_assert_eq(ts_rules_merge(r, u, &e), TS_OK, "%s", e.detail);
  ts_rules_free(u);
  cr_expect_eq(r->nrules, nrules + 1);
  cr_expect_eq(r->nreleases, nrel + 1);
  cr_expect_str_eq(ts_rules_newest(r)->series, "2.15");
  bool found = false;
  for (size_t i = 0; i < r->nrules; i++)
    if (strcmp(r->rules[i].id, "pymomentum-gpu-abi") == 0) {
      cr_expect_str_eq(r->rules[i].terms[0].spec, ">=2.8,<2.11");
      found = true;
    }
  cr_expect(found);
  cr_expect_str_eq(r->routes[r->nroutes - 1], "my-torch-ext");
  ts_rules_free(r);
}

Test(rules_load, torch_builds) {
  struct ts_rules *r = bundled();
  const struct ts_rules_torch_build *fa = ts_rules_find_torch_build(r, "flash-attn");
  cr_assert_not_null(fa);
  cr_expect(fa->nvcc);
  const struct ts_rules_torch_build *ds = ts_rules_find_torch_build(r, "deepspeed");
  cr_assert_not_null(ds);
  cr_expect_not(ds->nvcc);
  cr_expect_null(ts_rules_find_torch_build(r, "numpy"));
  /* a user file adds projects (names normalised) and replaces by project */
  size_t n = r->ntorch_builds;
  struct ts_rules *u = parse_ok(
      "schema: 1\n"
      "torch_builds:\n"
      "  - {project: My_Ext, nvcc: true, source: https://e/}\n"
      "  - {project: deepspeed, nvcc: true, source: https://e/}\n");
  struct ts_error e = {0};
  cr_assert_eq(ts_rules_merge(r, u, &e), TS_OK, "%s", e.detail);
  ts_rules_free(u);
  cr_expect_eq(r->ntorch_builds, n + 1);
  cr_expect_not_null(ts_rules_find_torch_build(r, "my-ext"));
  cr_expect(ts_rules_find_torch_build(r, "deepspeed")->nvcc);
  ts_rules_free(r);
  parse_bad("schema: 1\ntorch_builds:\n  - {project: x, nvcc: yes, source: https://e/}\n",
            "nvcc must be true or false");
  parse_bad("schema: 1\ntorch_builds:\n  - {project: x, source: https://e/}\n"
            "  - {project: X, source: https://e/}\n",
            "'x' is listed twice");
  parse_bad("schema: 1\ntorch_builds:\n  - {project: x}\n", "missing 'source'");
}

/* A hand-made host: cuda driver + one GPU, or AMD. */
static void nv_host(struct ts_host *h, const char *driver, const char *cc) {
  memset(h, 0, sizeof *h);
  struct ts_host_overrides ov = {.cuda_driver = driver,
                                 .compute_capabilities = cc};
  struct ts_error e = {0};
  cr_assert_eq(ts_host_apply_overrides(h, &ov, &e), TS_OK, "%s", e.detail);
}

static void amd_host(struct ts_host *h, const char *rocm, const char *gfx) {
  memset(h, 0, sizeof *h);
  struct ts_host_overrides ov = {.rocm = rocm ? TS_HOST_SET : TS_HOST_AUTO,
                                 .rocm_version = rocm, .gfx = gfx};
  struct ts_error e = {0};
  cr_assert_eq(ts_host_apply_overrides(h, &ov, &e), TS_OK, "%s", e.detail);
}

static char *usable(const struct ts_constraint_set *s) {
  static char buf[256];
  buf[0] = '\0';
  for (size_t i = 0; i < s->nbackends; i++)
    if (s->backends[i].usable) {
      strcat(buf, buf[0] ? " " : "");
      strcat(buf, s->backends[i].name);
    }
  return buf;
}

static void compile(const struct ts_rules *r, const struct ts_host *h,
                    const char *release, struct ts_constraint_set *s) {
  struct ts_rules_options o = {.release = release};
  struct ts_error e = {0};
  cr_assert_eq(ts_rules_compile(r, h, &o, s, &e), TS_OK, "%s", e.detail);
}

Test(rules_compile, backend_lists) {
  struct ts_rules *r = bundled();
  struct ts_host h;
  struct ts_constraint_set s;
  struct {
    const char *driver, *cc, *release, *want;
    const char *machine; /* NULL: x86_64 */
  } nv[] = {
      {"580.159.04", "9.0", NULL, "cu130 cu126 cu132 cpu", NULL},
      {"550.144.03", "8.9", NULL, "cu126 cpu", NULL},
      {"580.95.05", "6.1", NULL, "cu126 cpu", NULL},
      {"570.133.07", "12.0", NULL, "cpu", NULL},
      {"570.133.07", "12.0", "2.11", "cu128 cu129 cpu", NULL}, /* cu129 through minor-version compatibility */
      {"570.133.07", "12.0", "2.7", "cu128 cpu", NULL},
      {"595.45.04", "12.0", NULL, "cu132 cu130 cpu", NULL},
      /* cu130 lacks sm_70; cu129 wheels of 2.10.0 exist (pytorch#187834) */
      {"580.65.06", "7.0,9.0", "2.10", "cu129 cu128 cu126 cpu", NULL},
      {"575.57.08", "12.0", "2.9", "cu129 cu128 cpu", NULL},
      {"580.65.06", "6.1,9.0", "2.10", "cu126 cpu", NULL},
      /* native CUDA first, then minor-version compatibility, newest first */
      {"525.60.13", "8.6", "2.5", "cu118 cu124 cu121 cpu", NULL},
      {"450.80.02", "8.6", "2.5", "cu118 cpu", NULL},
      /* 2.9's cu130 keeps compute_120 PTX for a newer GPU; from 2.11 the
       * release builds strip it (pytorch#175567) */
      {"580.95.05", "13.0", "2.9", "cu130 cu129 cpu", NULL},
      {"580.95.05", "13.0", "2.11", "cpu", NULL},
      {"580.95.05", "13.0", NULL, "cpu", NULL},
      /* aarch64 wheels have their own variants and arch lists: a T4 (sm_75)
       * has kernels in none of them, on x86_64 it has cu126's */
      {"580.95.05", "7.5", NULL, "cpu", "aarch64"},
      {"580.95.05", "7.5", "2.9", "cpu", "aarch64"},
      {"580.95.05", "7.5", NULL, "cu130 cu126 cu132 cpu", NULL},
      {"580.95.05", "9.0", NULL, "cu130 cu126 cu132 cpu", "aarch64"}, /* GH200 */
      {"580.95.05", "9.0", "2.8", "cu129 cpu", "aarch64"},
      {"580.95.05", "9.0", "2.7", "cu128 cpu", "aarch64"},
      {"580.95.05", "9.0", "2.6", "cpu", "aarch64"}, /* no aarch64 CUDA wheels listed */
      {"580.95.05", "8.6", NULL, "cu130 cu126 cu132 cpu", "aarch64"}, /* sm_80 SASS runs on 8.6 */
  };
  for (size_t i = 0; i < sizeof nv / sizeof nv[0]; i++) {
    nv_host(&h, nv[i].driver, nv[i].cc);
    if (nv[i].machine) {
      free(h.machine);
      h.machine = strdup(nv[i].machine);
    }
    compile(r, &h, nv[i].release, &s);
    cr_expect_str_eq(usable(&s), nv[i].want, "%s driver %s cc %s torch %s",
                     nv[i].machine ? nv[i].machine : "x86_64", nv[i].driver, nv[i].cc,
                     nv[i].release ? nv[i].release : "newest");
    ts_constraint_set_clear(&s);
    ts_host_clear(&h);
  }
  struct {
    const char *rocm, *gfx, *release, *want;
  } amd[] = {
      {"6.2", "gfx1100", "2.4", "rocm6.1 rocm6.0 cpu"},
      {"6.2", "gfx1100", "2.5", "cpu"},        /* hipBLASLt rule */
      {"6.2", "gfx90a", "2.5", "rocm6.2 rocm6.1 cpu"},
      /* 2.4 wheels predate gfx1101 (pytorch#141667); 2.6's rocm6.2.4 has it,
       * and no gfx1200 (pytorch#147761) */
      {"6.2", "gfx1101", "2.4", "cpu"},
      {"6.2", "gfx1101", "2.6", "rocm6.2.4 rocm6.1 cpu"},
      {"6.2", "gfx1200", "2.6", "cpu"},
      {"6.2", "gfx1200", "2.7", "rocm6.3 rocm6.2.4 cpu"},
      /* the hipBLASLt rule is 2.5 only now */
      {"6.2", "gfx1100", "2.6", "rocm6.2.4 rocm6.1 cpu"},
      /* the kernel driver's window: ROCm 6.2 runs rocm6.0 ... rocm6.4 */
      {"6.2", "gfx1100", "2.9", "rocm6.4 rocm6.3 cpu"},
      {"6.2", "gfx1100", "2.10", "cpu"},
      {"6.4", "gfx942", "2.13", "rocm7.1 cpu"},
      {"6.4", "gfx942", NULL, "cpu"}, /* 2.14: rocm7.2 and rocm7.14 only */
      {"6.4", "gfx942", "2.4", "cpu"}, /* rocm6.1 is three releases older */
      /* gfx906: no Tensile library in the rocBLAS of ROCm >= 6.4 wheels */
      {"6.4", "gfx906", "2.9", "rocm6.3 cpu"},
      {"6.4", "gfx906", "2.10", "cpu"},
      /* amdgpu 30.30 (ROCm 7.2's kernel driver) runs 6.3-7.2 user space */
      {"7.2", "gfx906", "2.9", "rocm6.3 cpu"},
      {"7.2", "gfx1100", "2.7", "rocm6.3 cpu"}, /* rocm6.2.4 is older than 6.3 */
      /* 30.10 (7.0's) runs 6.2-7.0: not rocm7.1, though within ±2 */
      {"7.0", "gfx1100", "2.10", "rocm7.0 cpu"},
      {"7.0", "gfx1100", "2.7", "rocm6.3 rocm6.2.4 cpu"},
      {"6.4", "gfx1100", "2.9", "rocm6.4 rocm6.3 cpu"},
      {NULL, "gfx1151", NULL, "rocm7.14 rocm7.2 cpu"}, /* no ROCm installed: no gate */
      {"7.2", "gfx1100,gfx1031", NULL, "cpu"},   /* every GPU must be covered */
      {"7.2", "gfx942", NULL, "rocm7.14 rocm7.2 cpu"},
  };
  for (size_t i = 0; i < sizeof amd / sizeof amd[0]; i++) {
    amd_host(&h, amd[i].rocm, amd[i].gfx);
    compile(r, &h, amd[i].release, &s);
    cr_expect_str_eq(usable(&s), amd[i].want, "rocm %s gfx %s torch %s",
                     amd[i].rocm ? amd[i].rocm : "-", amd[i].gfx,
                     amd[i].release ? amd[i].release : "newest");
    ts_constraint_set_clear(&s);
    ts_host_clear(&h);
  }
  /* --ignore-host: every variant, no facts. */
  struct ts_rules_options ig = {.ignore_host = true};
  struct ts_error e = {0};
  memset(&h, 0, sizeof h);
  cr_assert_eq(ts_rules_compile(r, &h, &ig, &s, &e), TS_OK);
  cr_expect_str_eq(usable(&s), "cu132 cu130 cu126 rocm7.14 rocm7.2 xpu cpu");
  cr_expect_eq(s.nfacts, 0);
  for (size_t i = 0; i < s.nconstraints; i++)
    cr_expect_str_neq(s.constraints[i].id, "hipblaslt-gfx1100");
  ts_constraint_set_clear(&s);
  h.force_cpu = true; /* --cpu holds even with --ignore-host */
  cr_assert_eq(ts_rules_compile(r, &h, &ig, &s, &e), TS_OK);
  cr_expect_str_eq(usable(&s), "cpu");
  ts_constraint_set_clear(&s);
  h.force_cpu = false;
  struct ts_rules_options missing = {.release = "1.9"};
  cr_expect_eq(ts_rules_compile(r, &h, &missing, &s, &e), TS_E_NOT_FOUND);
  ts_rules_free(r);
}

/* --without-rule drops rules by id pattern, never variant facts. */
Test(rules_compile, drop_rules) {
  struct ts_rules *r = bundled();
  size_t before = r->nrules;
  cr_expect_eq(ts_rules_drop(r, "hf-stack-*"), 4);
  cr_expect_eq(r->nrules, before - 4);
  for (size_t i = 0; i < r->nrules; i++)
    cr_expect_neq(strncmp(r->rules[i].id, "hf-stack-", 9), 0);
  cr_expect_eq(ts_rules_drop(r, "no-such-rule"), 0);
  cr_expect_eq(ts_rules_drop(r, "hipblaslt-gfx1100"), 1);
  ts_rules_free(r);
}

Test(rules_compile, facts_and_constraints) {
  struct ts_rules *r = bundled();
  struct ts_host h;
  struct ts_host_options o = {.sysroot = SYSROOT("rx7900xt-rocm62")};
  struct ts_error e = {0};
  cr_assert_eq(ts_host_detect(&o, &h, &e), TS_OK);
  struct ts_constraint_set s;
  compile(r, &h, NULL, &s);
  /* No versioned amdgpu module: the kernel's own amdgpu, which no
   * installed ROCm stands for (no __rocm_kmd); the installed ROCm bounds
   * how new a bundled user space may be (__rocm_intree). */
  const char *want[][2] = {{"__glibc", "2.35"}, {"__rocm", "6.2.0"}, {"__gfx1100", NULL},
                           {"__rocm_intree", "6.2"}};
  for (size_t k = 0; k < s.nfacts; k++)
    cr_expect_str_neq(s.facts[k].name, "__rocm_kmd");
  for (size_t i = 0; i < 4; i++) {
    bool found = false;
    for (size_t k = 0; k < s.nfacts; k++)
      if (strcmp(s.facts[k].name, want[i][0]) == 0) {
        found = true;
        if (want[i][1])
          cr_expect_str_eq(s.facts[k].version, want[i][1]);
        else
          cr_expect_null(s.facts[k].version);
        cr_expect_not_null(s.facts[k].source);
      }
    cr_expect(found, "%s", want[i][0]);
  }
  size_t hb = 0, pairs = 0;
  for (size_t i = 0; i < s.nconstraints; i++) {
    const struct ts_constraint *c = &s.constraints[i];
    cr_expect_not_null(c->message);
    cr_expect_not_null(c->source);
    if (strcmp(c->id, "hipblaslt-gfx1100") == 0) {
      hb++;
      cr_expect_eq(c->kind, TS_CONSTRAINT_CONFLICTS);
      cr_expect_str_eq(c->subject.name, "torch");
      cr_expect_str_eq(ts_specset_str(c->subject.spec), "==2.5.*");
      cr_expect_eq(c->nterms, 4);
    }
    if (strcmp(c->id, "torchvision-pairing") == 0 && c->subject.local_pattern &&
        strcmp(c->subject.local_pattern, "rocm6.2") == 0 &&
        strcmp(ts_specset_str(c->subject.spec), "==0.20.1") == 0) {
      pairs++;
      cr_assert_eq(c->nterms, 1);
      cr_expect_str_eq(ts_specset_str(c->terms[0].spec), "==2.5.1");
      cr_expect_str_eq(c->terms[0].local_pattern, "rocm6.2");
    }
    /* The blackwell rules' `when` does not hold here: dropped. */
    cr_expect_str_neq(c->id, "blackwell-driver-sm120");
  }
  cr_expect_eq(hb, 4);
  cr_expect_eq(pairs, 1);
  cr_expect_str_eq(s.release, "2.14");
  cr_expect_str_eq(s.index_base, "https://download.pytorch.org/whl/");
  bool routed = false;
  for (size_t i = 0; i < s.nrouted; i++)
    routed |= strcmp(s.routed[i], "pytorch-triton-rocm") == 0;
  cr_expect(routed);
  ts_constraint_set_clear(&s);
  ts_constraint_set_clear(&s); /* clearing twice is harmless */
  ts_host_clear(&h);
  ts_rules_free(r);
}

static size_t audit(const struct ts_constraint_set *s,
                    const struct ts_installed *p, size_t n, const char *want_id) {
  struct ts_rules_finding *f = NULL;
  size_t nf = 0;
  struct ts_error e = {0};
  cr_assert_eq(ts_rules_check_installed(s, p, n, &f, &nf, &e), TS_OK);
  size_t hits = 0;
  for (size_t i = 0; i < nf; i++)
    if (want_id && strcmp(f[i].id, want_id) == 0)
      hits++;
  ts_rules_findings_free(f, nf);
  return want_id ? hits : nf;
}

Test(rules_check, installed_sets) {
  struct ts_rules *r = bundled();
  struct ts_host h;
  struct ts_constraint_set s;

  amd_host(&h, "6.2", "gfx1100");
  compile(r, &h, NULL, &s);
  struct ts_installed bad[] = {{"torch", "2.5.1+rocm6.2"}, {"torchvision", "0.20.1+rocm6.2"}};
  cr_expect_eq(audit(&s, bad, 2, "hipblaslt-gfx1100"), 1);
  struct ts_installed good[] = {{"torch", "2.4.1+rocm6.1"}, {"torchvision", "0.19.1+rocm6.1"}};
  cr_expect_eq(audit(&s, good, 2, NULL), 0);
  struct ts_installed mixed[] = {{"torch", "2.4.1+rocm6.1"}, {"torchvision", "0.19.1+rocm6.0"}};
  cr_expect_eq(audit(&s, mixed, 2, "torchvision-pairing"), 1);
  struct ts_installed custom[] = {{"torch", "2.9.1a0+gitd38164a"}};
  cr_expect_eq(audit(&s, custom, 1, NULL), 0);
  ts_constraint_set_clear(&s);
  ts_host_clear(&h);

  nv_host(&h, "550.144.03", "8.9");
  compile(r, &h, NULL, &s);
  struct ts_installed cu130[] = {{"torch", "2.11.0+cu130"}};
  cr_expect_eq(audit(&s, cu130, 1, "backend-cu130-driver"), 1);
  struct ts_installed pym[] = {{"pymomentum_gpu", "0.1.2"}, {"Torch", "2.10.0+cu126"}};
  cr_expect_eq(audit(&s, pym, 2, "pymomentum-gpu-abi"), 1);
  struct ts_installed pym_ok[] = {{"pymomentum-gpu", "0.1.2"}, {"torch", "2.9.1+cu126"}};
  cr_expect_eq(audit(&s, pym_ok, 2, NULL), 0);
  struct ts_installed hf[] = {{"torch", "2.10.0"}, {"transformers", "4.44.0"},
                              {"huggingface_hub", "0.25.0"}, {"diffusers", "0.30.0"}};
  cr_expect_eq(audit(&s, hf, 4, "hf-stack-torch-2.10"), 1);
  struct ts_installed audio[] = {{"torch", "2.12.1+cu126"}, {"torchaudio", "2.11.0+cu126"}};
  cr_expect_eq(audit(&s, audio, 2, NULL), 0);
  struct ts_installed audio_bad[] = {{"torch", "2.10.0+cu126"}, {"torchaudio", "2.11.0+cu126"}};
  cr_expect_eq(audit(&s, audio_bad, 2, "torchaudio-pairing"), 1);
  struct ts_installed xf[] = {{"torch", "2.5.0"}, {"xformers", "0.0.29.post1"}};
  cr_expect_eq(audit(&s, xf, 2, "xformers-0.0.29.post1"), 1);
  struct ts_installed fa[] = {{"torch", "2.5.1"}, {"flash-attn", "2.8.3+cu12torch2.4cxx11abiFALSE"}};
  cr_expect_eq(audit(&s, fa, 2, "flash-attn-torch-2.4"), 1);
  struct ts_installed junk[] = {{"torch", "not a version"}, {"", "1.0"}};
  cr_expect_eq(audit(&s, junk, 2, NULL), 0);
  ts_constraint_set_clear(&s);
  ts_host_clear(&h);

  nv_host(&h, "580.95.05", "6.1");
  compile(r, &h, NULL, &s);
  struct ts_installed sm61[] = {{"torch", "2.13.0+cu130"}};
  cr_expect_eq(audit(&s, sm61, 1, "cuda-arch-2.13-cu130"), 1);
  struct ts_installed sm61_ok[] = {{"torch", "2.13.0+cu126"}};
  cr_expect_eq(audit(&s, sm61_ok, 1, NULL), 0);
  ts_constraint_set_clear(&s);
  ts_host_clear(&h);
  ts_rules_free(r);
}

Test(rules_check, term_matches) {
  struct ts_term t = {.name = (char *)"torch", .local_pattern = (char *)"rocm6.*"};
  struct ts_error e = {0};
  cr_assert_eq(ts_specset_parse(">=2.5", 5, &t.spec, &e), TS_OK);
  cr_expect(ts_rules_term_matches(&t, "Torch", "2.5.1+rocm6.2"));
  cr_expect_not(ts_rules_term_matches(&t, "torch", "2.5.1+rocm5.7"));
  cr_expect_not(ts_rules_term_matches(&t, "torch", "2.4.1+rocm6.1"));
  cr_expect_not(ts_rules_term_matches(&t, "torchvision", "2.5.1+rocm6.2"));
  cr_expect_not(ts_rules_term_matches(&t, "torch", "garbage"));
  t.local_pattern = (char *)"";
  cr_expect(ts_rules_term_matches(&t, "torch", "2.6.0"));
  cr_expect_not(ts_rules_term_matches(&t, "torch", "2.6.0+cpu"));
  ts_specset_free(t.spec);
}

Test(rules_check, custom_builds) {
  struct ts_rules *r = bundled();
  struct ts_host h;
  struct ts_constraint_set s;
  amd_host(&h, "6.2", "gfx1100");
  compile(r, &h, NULL, &s);
  struct ts_rules_finding *f = NULL;
  size_t nf = 0;
  struct ts_error e = {0};
  cr_assert_eq(ts_rules_check_build(&s, "torch", "2.9.1a0+gitd38164a", NULL,
                                    "7.1.52802", &f, &nf, &e), TS_OK);
  cr_assert_eq(nf, 1);
  cr_expect_str_eq(f[0].id, "backend-rocm7.1-rocm");
  ts_rules_findings_free(f, nf);
  f = NULL;
  nf = 0;
  /* Built for 6.2: on gfx1100 that is the hipBLASLt rule. */
  cr_assert_eq(ts_rules_check_build(&s, "torch", "2.5.1a0+git1234", NULL,
                                    "6.2.4", &f, &nf, &e), TS_OK);
  cr_assert_eq(nf, 1);
  cr_expect_str_eq(f[0].id, "hipblaslt-gfx1100");
  ts_rules_findings_free(f, nf);
  f = NULL;
  nf = 0;
  /* Newer than any variant: the generic ROCm check. */
  cr_assert_eq(ts_rules_check_build(&s, "torch", "2.9.1a0+git1234", NULL,
                                    "9.9", &f, &nf, &e), TS_OK);
  cr_assert_eq(nf, 1);
  cr_expect_str_eq(f[0].id, "custom-build-rocm");
  ts_rules_findings_free(f, nf);
  f = NULL;
  nf = 0;
  cr_assert_eq(ts_rules_check_build(&s, "torch", "2.9.1a0+git1234", NULL, NULL,
                                    &f, &nf, &e), TS_OK);
  cr_expect_eq(nf, 0);
  cr_expect_eq(ts_rules_check_build(&s, "torch", "bad version", NULL, "7.1",
                                    &f, &nf, &e), TS_E_PARSE);
  ts_constraint_set_clear(&s);
  ts_host_clear(&h);
  ts_rules_free(r);
}
