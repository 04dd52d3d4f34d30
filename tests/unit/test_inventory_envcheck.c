/* Unit tests for inventory/envcheck.h: pip check's findings and wording on a
 * site-packages directory written here. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/fs.h"
#include "inventory/envcheck.h"
#include "pep/requirement.h"
#include "pep/version.h"
#include "target/site.h"

static const struct ts_marker_env env312 = {
    .implementation_name = "cpython", .implementation_version = "3.12.0",
    .os_name = "posix", .platform_machine = "x86_64",
    .platform_python_implementation = "CPython", .platform_system = "Linux",
    .python_full_version = "3.12.0", .python_version = "3.12",
    .sys_platform = "linux"};

static char dir[64];

static void dist(const char *dirname, const char *metadata) {
  char p[512];
  snprintf(p, sizeof p, "%s/%s", dir, dirname);
  cr_assert_eq(mkdir(p, 0755), 0);
  snprintf(p, sizeof p, "%s/%s/METADATA", dir, dirname);
  FILE *f = fopen(p, "w");
  cr_assert(f);
  fputs(metadata, f);
  fclose(f);
}

static void setup(void) {
  snprintf(dir, sizeof dir, "/tmp/ts-envcheck-XXXXXX");
  cr_assert(mkdtemp(dir));
}

static void teardown(void) {
  struct ts_error err = {0};
  ts_fs_remove_tree(dir, &err);
}

Test(envcheck, missing_and_conflicting_in_pips_words, .init = setup, .fini = teardown) {
  dist("App-1.0.dist-info",
       "Metadata-Version: 2.1\nName: App\nVersion: 1.0\n"
       "Requires-Dist: Lib_One (>=2.0)\n"
       "Requires-Dist: gone\n"
       "Requires-Dist: winonly ; sys_platform == \"win32\"\n"
       "Requires-Dist: extra-dep ; extra == \"cli\"\n"
       "Requires-Dist: old-py ; python_version < \"3.8\"\n"
       "Requires-Dist: pre>=1.0\n");
  dist("lib_one-1.5.dist-info", "Metadata-Version: 2.1\nName: lib-one\nVersion: 1.5\n");
  dist("pre-1.1rc1.dist-info", "Metadata-Version: 2.1\nName: pre\nVersion: 1.1rc1\n");
  dist("broken-1.0.dist-info", "Metadata-Version: 2.1\nName: broken\n");
  struct ts_envcheck_result r;
  struct ts_error err = {0};
  cr_assert_eq(ts_envcheck_run(dir, &env312, &r, &err), TS_OK, "%s", err.detail);
  cr_assert_eq(r.ndists, 3);
  cr_assert_str_eq(r.dists[0].name, "app");
  cr_assert_eq(r.nskipped, 1);
  cr_assert_eq(r.nproblems, 2, "%zu", r.nproblems);
  cr_assert_str_eq(r.problems[0].message,
                   "app 1.0 has requirement Lib_One>=2.0, but you have lib-one 1.5.");
  cr_assert_eq(r.problems[0].kind, TS_ENVCHECK_CONFLICT);
  cr_assert_str_eq(r.problems[1].message, "app 1.0 requires gone, which is not installed.");
  ts_envcheck_result_clear(&r);
}

Test(envcheck, clean_and_absent, .init = setup, .fini = teardown) {
  dist("a-1.0.dist-info", "Metadata-Version: 2.1\nName: a\nVersion: 1.0\nRequires-Dist: b<2\n");
  dist("b-1.0.dist-info", "Metadata-Version: 2.1\nName: b\nVersion: 1.0\n");
  struct ts_envcheck_result r;
  struct ts_error err = {0};
  cr_assert_eq(ts_envcheck_run(dir, &env312, &r, &err), TS_OK);
  cr_assert_eq(r.nproblems, 0);
  ts_envcheck_result_clear(&r);
  cr_assert_eq(ts_envcheck_run("/nonexistent/x", &env312, &r, &err), TS_E_NOT_FOUND);
}

Test(envcheck, two_directories_last_copy_wins, .init = setup, .fini = teardown) {
  char sub[128];
  snprintf(sub, sizeof sub, "%s/plat", dir);
  cr_assert_eq(mkdir(sub, 0755), 0);
  dist("a-1.0.dist-info", "Metadata-Version: 2.1\nName: a\nVersion: 1.0\nRequires-Dist: b>=2\n");
  dist("b-1.0.dist-info", "Metadata-Version: 2.1\nName: b\nVersion: 1.0\n");
  dist("plat/b-2.0.dist-info", "Metadata-Version: 2.1\nName: B\nVersion: 2.0\n");
  const char *dirs[] = {dir, sub, dir};
  struct ts_envcheck_result r;
  struct ts_error err = {0};
  cr_assert_eq(ts_envcheck_run_dirs(dirs, 3, &env312, &r, &err), TS_OK, "%s", err.detail);
  cr_assert_eq(r.ndists, 2);
  cr_assert_str_eq(r.dists[1].name, "b");
  cr_assert_str_eq(r.dists[1].version, "2.0");
  cr_assert_eq(r.nproblems, 0);
  ts_envcheck_result_clear(&r);
}

/* The set an install leaves: installed distributions read here beside one
 * whose requirements the caller parsed (the resolver's), in read order:
 * the parsed copy of a project read last is the one that counts, and its
 * requirements are judged with its markers as an installed one's are. */
Test(envcheck, parsed_distributions_beside_installed_ones) {
  struct ts_site_dist lib = {
      .dist_info = (char *)"/x/lib-1.0.dist-info", .name = (char *)"lib",
      .normalized = (char *)"lib", .version = (char *)"1.0",
      .metadata = (char *)"Metadata-Version: 2.1\nName: lib\nVersion: 1.0\n",
      .metadata_ok = true};
  lib.metadata_len = strlen(lib.metadata);
  struct ts_site_dist old_app = {
      .dist_info = (char *)"/x/app-0.1.dist-info", .name = (char *)"app",
      .normalized = (char *)"app", .version = (char *)"0.1",
      .metadata = (char *)"Metadata-Version: 2.1\nName: app\nVersion: 0.1\nRequires-Dist: gone\n",
      .metadata_ok = true};
  old_app.metadata_len = strlen(old_app.metadata);
  const char *texts[] = {"lib>=2", "winonly; sys_platform == 'win32'", "other; extra == 'x'"};
  struct ts_requirement *reqs[3];
  for (size_t i = 0; i < 3; i++)
    cr_assert_eq(ts_requirement_parse(texts[i], strlen(texts[i]), &reqs[i], NULL), TS_OK);
  struct ts_version *v = NULL;
  cr_assert_eq(ts_version_parse("2.0", 3, &v, NULL), TS_OK);
  struct ts_envcheck_dist_in in[3] = {
      {.site = &lib},
      {.site = &old_app},
      {.name = "app", .version = v,
       .requires_dist = (const struct ts_requirement *const *)reqs, .nrequires_dist = 3},
  };
  struct ts_envcheck_result r;
  struct ts_error err = {0};
  cr_assert_eq(ts_envcheck_run_set(in, 3, &env312, &r, &err), TS_OK);
  cr_assert_eq(r.ndists, 2);
  cr_assert_str_eq(r.dists[0].name, "app");
  cr_assert_str_eq(r.dists[0].version, "2.0");
  cr_assert_eq(r.nproblems, 1, "%zu", r.nproblems);
  cr_assert_str_eq(r.problems[0].message,
                   "app 2.0 has requirement lib>=2, but you have lib 1.0.");
  ts_envcheck_result_clear(&r);
  for (size_t i = 0; i < 3; i++)
    ts_requirement_free(reqs[i]);
  ts_version_free(v);
}
