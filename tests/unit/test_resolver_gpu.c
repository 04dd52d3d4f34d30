/*
 * The resolver fed by the real rules: rules.yaml compiled against captured
 * hosts (fixtures/sysroot, the same the host and rules tests replay), then
 * torch resolved from an in-memory index shaped like download.pytorch.org.
 * This is the seed-004 case end to end: an RX 7900 XT (gfx1100) on
 * ROCm 6.2 must not get torch 2.5.1+rocm6.2.
 */
#include <criterion/criterion.h>

#include "core/buf.h"
#include "core/fs.h"
#include "host/host.h"
#include "pep/metadata.h"
#include "rules/rules.h"
#include "tests/conformance/resolver_mem.h"

static void compile_for(const char *sysroot, struct ts_constraint_set *set) {
  char root[1024];
  snprintf(root, sizeof root, "%s/sysroot/%s", TS_FIXTURES_DIR, sysroot);
  struct ts_host_options hopt = {.sysroot = root};
  struct ts_host host;
  struct ts_error err = {0};
  cr_assert_eq(ts_host_detect(&hopt, &host, &err), TS_OK, "%s", err.detail);
  struct ts_rules *rules = NULL;
  cr_assert_eq(ts_rules_load_file(TS_RULES_SOURCE, &rules, NULL, &err), TS_OK,
               "%s", err.detail);
  struct ts_rules_options ropt = {0};
  cr_assert_eq(ts_rules_compile(rules, &host, &ropt, set, &err), TS_OK, "%s",
               err.detail);
  ts_rules_free(rules);
  ts_host_clear(&host);
}

static void torch(struct mem_index *ix, const char *version) {
  struct mem_proj *p = mem_project(ix, "torch");
  char fname[256];
  snprintf(fname, sizeof fname, "torch-%s-cp312-cp312-linux_x86_64.whl",
           version);
  mem_add_file(p, fname, ">=3.9", false);
  mem_add_meta(p, version,
               mem_metadata("torch", version, ">=3.9", NULL, 0, NULL, NULL, 0));
}

static enum ts_code resolve(struct mem_index *ix, struct ts_constraint_set *set,
                            const char *root, struct ts_resolution **res) {
  struct mem_target tg;
  cr_assert(mem_target_init(&tg, "3.12.3", 2, 39, "x86_64"));
  struct ts_requirement *r = NULL;
  cr_assert_eq(ts_requirement_parse(root, strlen(root), &r, NULL), TS_OK);
  /* what the GPU backends give for an AMD host: ROCm builds, newest ROCm
   * first, CPU as the fallback tier; the rules exclude what the host
   * cannot run */
  const char *pats[] = {"rocm6.4*", "rocm6.3*", "rocm6.2*", "rocm6.1*",
                        "cpu"};
  struct ts_resolver_variant_pref vp = {"torch", pats, 5, 1};
  const struct ts_requirement *roots[] = {r};
  struct ts_resolver_request req = {.requirements = roots,
                                    .nrequirements = 1,
                                    .rules = set,
                                    .variants = &vp,
                                    .nvariants = 1};
  struct ts_resolver_provider prov = {.ctx = ix, .get_pages = mem_get_pages,
                                      .get_metadata = mem_get_metadata};
  struct ts_error err = {0};
  enum ts_code c = ts_resolver_resolve(&req, &tg.target, &prov, res, &err);
  for (size_t i = 0; *res && i < (*res)->why.nlines; i++)
    fprintf(stderr, "  | %s\n", (*res)->why.lines[i]);
  ts_requirement_free(r);
  mem_target_free(&tg);
  return c;
}

static bool why_has(const struct ts_resolution *res, const char *s) {
  for (size_t i = 0; res && i < res->why.nlines; i++)
    if (strstr(res->why.lines[i], s))
      return true;
  return false;
}

Test(resolver_gpu, seed004_rx7900xt_rocm62) {
  struct ts_constraint_set set = {0};
  compile_for("rx7900xt-rocm62", &set);
  struct mem_index ix = {0};
  torch(&ix, "2.4.1+rocm6.1");
  torch(&ix, "2.5.1+rocm6.2");
  torch(&ix, "2.5.1+cpu");
  struct ts_resolution *res = NULL;
  cr_assert_eq(resolve(&ix, &set, "torch", &res), TS_OK);
  cr_assert_str_eq(res->items[0].version, "2.4.1+rocm6.1");
  /* the chosen file's METADATA comes back parsed, with the bytes it was
   * read from, for the report and pip's check after resolving */
  const struct ts_resolved *x = &res->items[0];
  cr_assert(x->metadata && x->metadata_bytes && x->metadata_len);
  cr_assert_str_eq(x->metadata->normalized_name, "torch");
  cr_assert_str_eq(ts_version_str(x->metadata->version), "2.4.1+rocm6.1");
  char *bytes = strndup(x->metadata_bytes, x->metadata_len);
  cr_assert(strstr(bytes, "Version: 2.4.1+rocm6.1"));
  free(bytes);
  ts_resolution_free(res);
  res = NULL;
  cr_assert_eq(resolve(&ix, &set, "torch==2.5.1+rocm6.2", &res), TS_E_RESOLVE);
  cr_assert(why_has(res, "rule hipblaslt-gfx1100"));
  cr_assert(why_has(res, "this host's GPU is gfx1100"));
  cr_assert(why_has(res, "fix (rule hipblaslt-gfx1100)"));
  ts_resolution_free(res);
  mem_free(&ix);
  ts_constraint_set_clear(&set);
}

/* An RTX 4090 on driver 550 (CUDA 12.4): CUDA 13 builds need driver >= 580,
 * so the newest torch comes as a CUDA 12 build, never as cu130. */
Test(resolver_gpu, rtx4090_driver550) {
  struct ts_constraint_set set = {0};
  compile_for("rtx4090-drv550", &set);
  struct mem_index ix = {0};
  torch(&ix, "2.9.1+cu130");
  torch(&ix, "2.9.1+cu128");
  torch(&ix, "2.9.1+cu126");
  torch(&ix, "2.9.1+cpu");
  torch(&ix, "2.6.0+cu124");
  struct ts_resolution *res = NULL;
  const char *pats[] = {"cu130", "cu128", "cu126", "cu124", "cpu"};
  struct ts_resolver_variant_pref vp = {"torch", pats, 5, 1};
  struct mem_target tg;
  cr_assert(mem_target_init(&tg, "3.12.3", 2, 39, "x86_64"));
  struct ts_requirement *r = NULL;
  cr_assert_eq(ts_requirement_parse("torch", 5, &r, NULL), TS_OK);
  const struct ts_requirement *roots[] = {r};
  struct ts_resolver_request req = {.requirements = roots, .nrequirements = 1,
                                    .rules = &set, .variants = &vp,
                                    .nvariants = 1};
  struct ts_resolver_provider prov = {.ctx = &ix, .get_pages = mem_get_pages,
                                      .get_metadata = mem_get_metadata};
  struct ts_error err = {0};
  cr_assert_eq(ts_resolver_resolve(&req, &tg.target, &prov, &res, &err), TS_OK,
               "%s", err.detail);
  fprintf(stderr, "rtx4090/550 -> torch %s\n", res->items[0].version);
  cr_assert_str_neq(res->items[0].version, "2.9.1+cu130");
  cr_assert_str_neq(res->items[0].version, "2.9.1+cpu");
  ts_resolution_free(res);
  ts_requirement_free(r);
  mem_target_free(&tg);
  mem_free(&ix);
  ts_constraint_set_clear(&set);
}
