/* source/: [build-system] as pip reads it (absent → the legacy backend,
 * backend-path kept inside the tree), the environment a build gets (no
 * TORCHSOLVE_*, no credentials), git URL parsing, the log tail, and the
 * tree hash (changes with a source edit, not with build output). */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/fs.h"
#include "source/process.h"
#include "source/source.h"

static char dir[64];

static void setup(void) {
  snprintf(dir, sizeof dir, "/tmp/ts-source-XXXXXX");
  cr_assert(mkdtemp(dir));
}
static void teardown(void) { ts_fs_remove_tree(dir, NULL); }

TestSuite(source, .init = setup, .fini = teardown);

static void put(const char *rel, const char *text) {
  char *p = ts_path_join(dir, rel);
  char *slash = strrchr(p, '/');
  *slash = '\0';
  ts_fs_mkdirs(p, NULL);
  *slash = '/';
  FILE *f = fopen(p, "w");
  cr_assert(f);
  fputs(text, f);
  fclose(f);
  free(p);
}

Test(source, no_pyproject_is_the_legacy_backend) {
  struct ts_build_system bs;
  struct ts_error err = {0};
  cr_assert_eq(ts_build_system_read(dir, &bs, &err), TS_OK, "%s", err.detail);
  cr_assert_str_eq(bs.backend, TS_LEGACY_BACKEND);
  cr_assert_eq(bs.nrequires, 1);
  cr_assert_str_eq(bs.requires[0], "setuptools>=40.8.0");
  cr_assert_not(bs.declared);
  ts_build_system_clear(&bs);
}

Test(source, table_without_backend_keeps_its_requires) {
  put("pyproject.toml", "[build-system]\nrequires = [\"setuptools\", \"cython<3\"]\n");
  struct ts_build_system bs;
  struct ts_error err = {0};
  cr_assert_eq(ts_build_system_read(dir, &bs, &err), TS_OK, "%s", err.detail);
  cr_assert_str_eq(bs.backend, TS_LEGACY_BACKEND);
  cr_assert_eq(bs.nrequires, 2);
  cr_assert_str_eq(bs.requires[1], "cython<3");
  ts_build_system_clear(&bs);
}

Test(source, pyproject_without_build_system_table) {
  put("pyproject.toml", "[tool.black]\nline-length = 99\n");
  struct ts_build_system bs;
  struct ts_error err = {0};
  cr_assert_eq(ts_build_system_read(dir, &bs, &err), TS_OK, "%s", err.detail);
  cr_assert_str_eq(bs.backend, TS_LEGACY_BACKEND);
  cr_assert_eq(bs.nrequires, 1);
  ts_build_system_clear(&bs);
}

Test(source, backend_path_inside_and_outside) {
  put("_b/x.py", "");
  put("pyproject.toml", "[build-system]\nrequires = []\nbuild-backend = \"x\"\n"
                        "backend-path = [\"_b\"]\n");
  struct ts_build_system bs;
  struct ts_error err = {0};
  cr_assert_eq(ts_build_system_read(dir, &bs, &err), TS_OK, "%s", err.detail);
  cr_assert_str_eq(bs.backend, "x");
  cr_assert_eq(bs.nbackend_path, 1);
  cr_assert(strstr(bs.backend_path[0], "/_b") && bs.backend_path[0][0] == '/');
  ts_build_system_clear(&bs);
  put("pyproject.toml", "[build-system]\nrequires = []\nbuild-backend = \"x\"\n"
                        "backend-path = [\"..\"]\n");
  cr_assert_eq(ts_build_system_read(dir, &bs, &err), TS_E_PARSE);
  cr_assert(strstr(err.detail, "not a directory inside"), "%s", err.detail);
}

Test(source, bad_tables_are_parse_errors) {
  struct ts_build_system bs;
  struct ts_error err = {0};
  put("pyproject.toml", "[build-system]\nbuild-backend = \"x\"\n");
  cr_assert_eq(ts_build_system_read(dir, &bs, &err), TS_E_PARSE);
  cr_assert(strstr(err.detail, "requires"), "%s", err.detail);
  put("pyproject.toml", "[build-system]\nrequires = \"setuptools\"\n");
  cr_assert_eq(ts_build_system_read(dir, &bs, &err), TS_E_PARSE);
  put("pyproject.toml", "[build-system\n");
  cr_assert_eq(ts_build_system_read(dir, &bs, &err), TS_E_PARSE);
  cr_assert(strstr(err.detail, "pyproject.toml"), "%s", err.detail);
}

Test(source, environment_is_cleaned) {
  cr_assert(ts_process_env_kept("PATH=/usr/bin"));
  cr_assert(ts_process_env_kept("CUDA_HOME=/usr/local/cuda"));
  cr_assert(ts_process_env_kept("TORCH_CUDA_ARCH_LIST=8.0"));
  cr_assert(ts_process_env_kept("http_proxy=http://proxy:3128"));
  cr_assert_not(ts_process_env_kept("TORCHSOLVE_INDEX_URL=https://u:p@x/simple"));
  cr_assert_not(ts_process_env_kept("PIP_INDEX_URL=x"));
  cr_assert_not(ts_process_env_kept("PYTHONPATH=/x"));
  cr_assert_not(ts_process_env_kept("GITHUB_TOKEN=x"));
  cr_assert_not(ts_process_env_kept("AWS_SECRET_ACCESS_KEY=x"));
  cr_assert_not(ts_process_env_kept("HF_TOKEN=x"));
  cr_assert_not(ts_process_env_kept("https_proxy=http://user:pw@proxy:3128"));
  cr_assert_not(ts_process_env_kept("noequals"));
}

Test(source, git_urls) {
  struct ts_vcs_ref r;
  struct ts_error err = {0};
  cr_assert_eq(ts_vcs_parse("git+https://u@host/org/r.git@v1.0#subdirectory=pkg&egg=x",
                            &r, &err), TS_OK, "%s", err.detail);
  cr_assert_str_eq(r.repo, "https://u@host/org/r.git");
  cr_assert_str_eq(r.revision, "v1.0");
  cr_assert_str_eq(r.subdirectory, "pkg");
  ts_vcs_ref_clear(&r);
  cr_assert_eq(ts_vcs_parse("git+file:///srv/repo", &r, &err), TS_OK);
  cr_assert_str_eq(r.repo, "file:///srv/repo");
  cr_assert_null(r.revision);
  cr_assert_null(r.subdirectory);
  ts_vcs_ref_clear(&r);
  cr_assert_eq(ts_vcs_parse("hg+https://host/r", &r, &err), TS_E_UNSUPPORTED);
  cr_assert_eq(ts_vcs_parse("git+https://host/r@--upload-pack=x", &r, &err), TS_E_PARSE);
  cr_assert_eq(ts_vcs_parse("git+https://host/r#subdirectory=../x", &r, &err), TS_E_PARSE);
  cr_assert_eq(ts_vcs_parse("git+ftp://host/r", &r, &err), TS_E_UNSUPPORTED);
}

Test(source, log_tail) {
  put("log", "one\ntwo\nthree\nfour\n");
  char *p = ts_path_join(dir, "log");
  char *t = ts_source_log_tail(p, 2);
  cr_assert_str_eq(t, "three\nfour");
  free(t);
  t = ts_source_log_tail(p, 10);
  cr_assert_str_eq(t, "one\ntwo\nthree\nfour");
  free(t);
  free(p);
  t = ts_source_log_tail("/nonexistent/log", 5);
  cr_assert_str_eq(t, "");
  free(t);
}

Test(source, tree_hash_follows_sources_only) {
  put("pkg/a.py", "A = 1\n");
  put("setup.py", "x\n");
  char h1[65], h2[65], h3[65];
  struct ts_error err = {0};
  cr_assert_eq(ts_source_tree_hash(dir, h1, &err), TS_OK, "%s", err.detail);
  put("build/lib/pkg/a.py", "A = 1\n");
  put("pkg.egg-info/PKG-INFO", "x");
  put("pkg/__pycache__/a.cpython-311.pyc", "x");
  cr_assert_eq(ts_source_tree_hash(dir, h2, &err), TS_OK);
  cr_assert_str_eq(h1, h2, "build output changed the hash");
  put("pkg/a.py", "A = 2\n");
  cr_assert_eq(ts_source_tree_hash(dir, h3, &err), TS_OK);
  cr_assert_str_neq(h1, h3, "a source edit kept the hash");
  /* the executable bit is part of the source */
  put("pkg/a.py", "A = 1\n");
  char *p = ts_path_join(dir, "pkg/a.py");
  chmod(p, 0755);
  free(p);
  cr_assert_eq(ts_source_tree_hash(dir, h3, &err), TS_OK);
  cr_assert_str_neq(h1, h3);
}
