/*
 * ts_plan_resolve without an interpreter or a network: a spec target, a
 * captured host (fixtures/sysroot) with the real rules.yaml, and file://
 * indexes written here (a general one and a PyTorch-like one with variant
 * folders).  --no-deps keeps METADATA out of it: the pages decide.
 */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/fs.h"
#include "core/sha256.h"
#include "lockgen/lock.h"
#include "plan/plan.h"

static char root[256];

static void page(const char *index, const char *project, const char *const *files,
                 size_t n) {
  char dir[512], path[600];
  snprintf(dir, sizeof dir, "%s/%s/%s", root, index, project);
  struct ts_error err = {0};
  cr_assert_eq(ts_fs_mkdirs(dir, &err), TS_OK, "%s", err.detail);
  snprintf(path, sizeof path, "%s/index.html", dir);
  FILE *f = fopen(path, "w");
  cr_assert(f);
  fputs("<html><body>\n", f);
  /* each file's sha256 is that of its name: the lock records it as given */
  for (size_t i = 0; i < n; i++) {
    uint8_t d[TS_SHA256_LEN];
    char hex[TS_SHA256_HEX_LEN + 1];
    ts_sha256(files[i], strlen(files[i]), d);
    ts_sha256_hex(d, hex);
    fprintf(f, "<a href=\"../%s#sha256=%s\">%s</a>\n", files[i], hex, files[i]);
  }
  fputs("</body></html>\n", f);
  fclose(f);
}

static void setup(void) {
  snprintf(root, sizeof root, "/tmp/ts-plan-test.%ld", (long)getpid());
  const char *cpu[] = {"torch-2.10.0+cpu-cp312-cp312-manylinux_2_28_x86_64.whl",
                       "torch-2.4.1+cpu-cp312-cp312-manylinux_2_28_x86_64.whl"};
  const char *r61[] = {"torch-2.4.1+rocm6.1-cp312-cp312-manylinux_2_28_x86_64.whl"};
  const char *r62[] = {"torch-2.5.1+rocm6.2-cp312-cp312-manylinux_2_28_x86_64.whl"};
  const char *cu130[] = {"torch-2.10.0+cu130-cp312-cp312-manylinux_2_28_x86_64.whl"};
  const char *gen[] = {"torch-2.10.0-cp312-cp312-manylinux_2_28_x86_64.whl"};
  const char *six[] = {"six-1.17.0-py2.py3-none-any.whl"};
  page("whl/cpu", "torch", cpu, 2);
  page("whl/rocm6.1", "torch", r61, 1);
  page("whl/rocm6.2", "torch", r62, 1);
  page("whl/cu130", "torch", cu130, 1);
  page("simple", "torch", gen, 1);
  page("simple", "six", six, 1);
}

static void teardown(void) {
  struct ts_error err = {0};
  ts_fs_remove_tree(root, &err);
}

TestSuite(plan, .init = setup, .fini = teardown);

static enum ts_code plan_for(const char *machine, const char *req,
                             struct ts_plan_result **out, struct ts_host *host,
                             struct ts_rules **rules, struct ts_reqfile_entry *e) {
  char sysroot[512], general[512], torch[512], cache[512];
  snprintf(sysroot, sizeof sysroot, "%s/sysroot/%s", TS_FIXTURES_DIR, machine);
  snprintf(general, sizeof general, "file://%s/simple", root);
  snprintf(torch, sizeof torch, "file://%s/whl", root);
  snprintf(cache, sizeof cache, "%s/cache", root);
  struct ts_error err = {0};
  struct ts_host_options ho = {.sysroot = sysroot};
  cr_assert_eq(ts_host_detect(&ho, host, &err), TS_OK, "%s", err.detail);
  cr_assert_eq(ts_rules_load_file(TS_RULES_SOURCE, rules, NULL, &err), TS_OK, "%s",
               err.detail);
  cr_assert_eq(ts_reqfile_parse_requirement(req, strlen(req), NULL, e, &err), TS_OK);
  static struct ts_index_options io;
  memset(&io, 0, sizeof io);
  io.index_url = general;
  io.torch_index_url = torch;
  io.cache_mode = TS_CACHE_DISABLED;
  io.cache_dir = cache;
  static struct ts_target_spec spec = {.python_version = "3.12",
                                       .platform = "manylinux_2_28_x86_64"};
  static const struct ts_reqfile_entry *ents[1];
  ents[0] = e;
  struct ts_plan_options o = {.spec = &spec, .host = host, .rules = *rules,
                              .index = &io, .entries = ents, .nentries = 1,
                              .no_deps = true};
  enum ts_code rc = ts_plan_resolve(&o, out, &err);
  if (rc != TS_OK)
    fprintf(stderr, "%s: %s\n", machine, err.detail);
  return rc;
}

static void done(struct ts_plan_result *r, struct ts_host *h, struct ts_rules *rules,
                 struct ts_reqfile_entry *e) {
  ts_plan_result_free(r);
  ts_host_clear(h);
  ts_rules_free(rules);
  ts_reqfile_entry_clear(e);
}

static const char *torch_version(const struct ts_plan_result *r) {
  for (size_t i = 0; i < r->res->nitems; i++)
    if (strcmp(r->res->items[i].name, "torch") == 0)
      return r->res->items[i].version;
  return "";
}

Test(plan, rx7900xt_gets_rocm61_not_rocm62) {
  struct ts_plan_result *r = NULL;
  struct ts_host h;
  struct ts_rules *rules = NULL;
  struct ts_reqfile_entry e = {0};
  cr_assert_eq(plan_for("rx7900xt-rocm62", "torch", &r, &h, &rules, &e), TS_OK);
  cr_assert_str_eq(torch_version(r), "2.4.1+rocm6.1");
  cr_assert(strstr(r->items[0].index, "/whl/rocm6.1"), "%s", r->items[0].index);
  done(r, &h, rules, &e);
}

Test(plan, pinned_label_is_refused_by_rule) {
  struct ts_plan_result *r = NULL;
  struct ts_host h;
  struct ts_rules *rules = NULL;
  struct ts_reqfile_entry e = {0};
  cr_assert_eq(plan_for("rx7900xt-rocm62", "torch==2.5.1+rocm6.2", &r, &h, &rules, &e),
               TS_E_RESOLVE);
  bool named = false;
  for (size_t i = 0; r->res && i < r->res->why.nlines; i++)
    named |= strstr(r->res->why.lines[i], "hipblaslt-gfx1100") != NULL;
  cr_assert(named);
  done(r, &h, rules, &e);
}

Test(plan, h100_gets_cu130_never_the_general_index) {
  struct ts_plan_result *r = NULL;
  struct ts_host h;
  struct ts_rules *rules = NULL;
  struct ts_reqfile_entry e = {0};
  cr_assert_eq(plan_for("h100-cu130", "torch", &r, &h, &rules, &e), TS_OK);
  cr_assert_str_eq(torch_version(r), "2.10.0+cu130");
  done(r, &h, rules, &e);
}

Test(plan, cpu_only_gets_cpu) {
  struct ts_plan_result *r = NULL;
  struct ts_host h;
  struct ts_rules *rules = NULL;
  struct ts_reqfile_entry e = {0};
  cr_assert_eq(plan_for("cpu-only", "torch", &r, &h, &rules, &e), TS_OK);
  cr_assert_str_eq(torch_version(r), "2.10.0+cpu");
  done(r, &h, rules, &e);
}

Test(plan, unrouted_projects_come_from_the_general_index) {
  struct ts_plan_result *r = NULL;
  struct ts_host h;
  struct ts_rules *rules = NULL;
  struct ts_reqfile_entry e = {0};
  cr_assert_eq(plan_for("cpu-only", "six", &r, &h, &rules, &e), TS_OK);
  cr_assert_eq(r->res->nitems, 1);
  cr_assert_str_eq(r->res->items[0].version, "1.17.0");
  cr_assert(strstr(r->items[0].index, "/simple"));
  done(r, &h, rules, &e);
}


/* ts_plan_to_pylock without a server: the lock of a resolution is the same
 * bytes every time, and records what was chosen and from where. */
static char *lock_text(struct ts_plan_result *r) {
  struct ts_pylock *lock = NULL;
  struct ts_error err = {0};
  cr_assert_eq(ts_plan_to_pylock(r, "-", &lock, &err), TS_OK, "%s", err.detail);
  struct ts_buf b;
  ts_buf_init(&b, TS_CAP_LOCKFILE);
  cr_assert_eq(ts_pylock_write(lock, &b, &err), TS_OK, "%s", err.detail);
  ts_pylock_free(lock);
  return ts_buf_take(&b, NULL);
}

Test(plan, lock_is_byte_identical_and_complete) {
  struct ts_plan_result *r = NULL;
  struct ts_host h;
  struct ts_rules *rules = NULL;
  struct ts_reqfile_entry e = {0};
  cr_assert_eq(plan_for("rx7900xt-rocm62", "torch", &r, &h, &rules, &e), TS_OK);
  char *a = lock_text(r), *b = lock_text(r);
  cr_assert_str_eq(a, b);
  uint8_t d[TS_SHA256_LEN];
  char hex[TS_SHA256_HEX_LEN + 1];
  const char *whl = "torch-2.4.1+rocm6.1-cp312-cp312-manylinux_2_28_x86_64.whl";
  ts_sha256(whl, strlen(whl), d);
  ts_sha256_hex(d, hex);
  /* everything before the tool section, byte for byte (the rule ids under
   * it follow rules.yaml) */
  char want[4096];
  snprintf(want, sizeof want,
           "lock-version = \"1.0\"\n"
           "environments = [\"sys_platform == \\\"linux\\\" and platform_machine == "
           "\\\"x86_64\\\" and implementation_name == \\\"cpython\\\" and "
           "python_version == \\\"3.12\\\"\"]\n"
           "requires-python = \"==3.12.*\"\n"
           "created-by = \"torchsolve\"\n"
           "\n"
           "[[packages]]\n"
           "name = \"torch\"\n"
           "version = \"2.4.1+rocm6.1\"\n"
           "\n"
           "[[packages.wheels]]\n"
           "name = \"%s\"\n"
           "url = \"file://%s/whl/rocm6.1/%s\"\n"
           "hashes = { sha256 = \"%s\" }\n"
           "\n"
           "[tool.torchsolve]\n",
           whl, root, whl, hex);
  cr_expect_eq(strncmp(a, want, strlen(want)), 0, "lock:\n%s\nwanted:\n%s", a, want);
  cr_expect(strstr(a, "[tool.torchsolve.host]\n"), "%s", a);
  cr_expect(strstr(a, "\n__rocm = \"6.2.0\"\n"), "%s", a);
  cr_expect(strstr(a, "\"rocm-gfx-2.4-rocm6.1\""), "%s", a);
  free(a);
  free(b);
  done(r, &h, rules, &e);
}
