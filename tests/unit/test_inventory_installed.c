/* Unit tests for inventory/installed.h: the installed set of site-packages
 * directories written here, as pip's importlib backend reads it. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/fs.h"
#include "inventory/installed.h"

static const struct ts_marker_env env312 = {
    .implementation_name = "cpython", .implementation_version = "3.12.0",
    .os_name = "posix", .platform_machine = "x86_64",
    .platform_python_implementation = "CPython", .platform_system = "Linux",
    .python_full_version = "3.12.0", .python_version = "3.12",
    .sys_platform = "linux"};

static char dir[64], dir2[80];

static void put(const char *base, const char *distinfo, const char *file,
                const char *text) {
  char p[512];
  snprintf(p, sizeof p, "%s/%s", base, distinfo);
  mkdir(p, 0755);
  snprintf(p, sizeof p, "%s/%s/%s", base, distinfo, file);
  FILE *f = fopen(p, "w");
  cr_assert(f);
  fputs(text, f);
  fclose(f);
}

static void setup(void) {
  snprintf(dir, sizeof dir, "/tmp/ts-installed-XXXXXX");
  cr_assert(mkdtemp(dir));
  snprintf(dir2, sizeof dir2, "%s/plat", dir);
  cr_assert_eq(mkdir(dir2, 0755), 0);
}

static void teardown(void) {
  struct ts_error err = {0};
  ts_fs_remove_tree(dir, &err);
}

TestSuite(installed, .init = setup, .fini = teardown);

#define META(name, version, extra) \
  "Metadata-Version: 2.1\nName: " name "\nVersion: " version "\n" extra

Test(installed, reads_sorted_with_pep376_files) {
  put(dir, "Zeta-1.0.dist-info", "METADATA", META("Zeta", "1.0", ""));
  put(dir, "Zeta-1.0.dist-info", "INSTALLER", "pip\r\n");
  put(dir, "zeta-2.0.dist-info", "METADATA", META("zeta", "2.0", ""));
  put(dir, "alpha_b-01.0.dist-info", "METADATA", META("Alpha_B", "01.0", ""));
  put(dir, "alpha_b-01.0.dist-info", "REQUESTED", "");
  put(dir, "broken-1.dist-info", "METADATA", "Name: broken\n");
  struct ts_installed_set s;
  struct ts_error err = {0};
  const char *dirs[] = {dir, dir};
  cr_assert_eq(ts_installed_read(dirs, 2, &s, &err), TS_OK, "%s", err.detail);
  /* two copies of zeta: the first in byte order wins, whatever readdir says */
  cr_assert_eq(s.ndists, 2);
  cr_assert_str_eq(s.dists[0].site->name, "Alpha_B");
  cr_assert_str_eq(s.dists[0].site->normalized, "alpha-b");
  cr_assert_str_eq(s.dists[0].version, "1.0");
  cr_assert(s.dists[0].site->requested);
  cr_assert_null(s.dists[0].installer);
  cr_assert_str_eq(s.dists[1].site->name, "Zeta");
  cr_assert_str_eq(s.dists[1].installer, "pip");
  cr_assert_eq(s.nskipped, 1);
  cr_assert(strstr(s.skipped[0], "broken-1.dist-info"));
  /* the one read install and sync see: every copy, the broken one too,
   * and each distribution here is a view of its entry */
  cr_assert_eq(s.site.n, 4);
  const struct ts_site_dist *broken = ts_site_find(&s.site, "broken");
  cr_assert(broken && !broken->metadata_ok);
  cr_assert_eq(s.dists[1].site, ts_site_find(&s.site, "zeta"));
  cr_assert_eq(ts_installed_find(&s, "ALPHA.b"), &s.dists[0]);
  cr_assert_null(ts_installed_find(&s, "beta"));
  ts_installed_clear(&s);
}

Test(installed, first_directory_wins_and_missing_directory_is_empty) {
  put(dir, "x-1.dist-info", "METADATA", META("x", "1", ""));
  put(dir2, "x-2.dist-info", "METADATA", META("x", "2", ""));
  put(dir2, "y-2.dist-info", "METADATA", META("y", "2", ""));
  struct ts_installed_set s;
  struct ts_error err = {0};
  const char *dirs[] = {dir, "/nonexistent/ts-installed", dir2};
  cr_assert_eq(ts_installed_read(dirs, 3, &s, &err), TS_OK, "%s", err.detail);
  cr_assert_eq(s.ndists, 2);
  cr_assert_str_eq(s.dists[0].version, "1");
  cr_assert_str_eq(s.dists[0].site->site, dir);
  cr_assert_str_eq(s.dists[1].site->site, dir2);
  ts_installed_clear(&s);
}

Test(installed, direct_url_references_as_pip_freeze) {
  put(dir, "a-1.dist-info", "METADATA", META("a", "1", ""));
  put(dir, "a-1.dist-info", "direct_url.json",
      "{\"url\": \"file:///w/a-1-py3-none-any.whl\", \"archive_info\": "
      "{\"hash\": \"sha256=ab\"}}");
  put(dir, "b-1.dist-info", "METADATA", META("b", "1", ""));
  put(dir, "b-1.dist-info", "direct_url.json",
      "{\"url\": \"https://g/x\", \"vcs_info\": {\"vcs\": \"git\", "
      "\"commit_id\": \"c0ffee\"}, \"subdirectory\": \"sub\"}");
  put(dir, "c-1.dist-info", "METADATA", META("c", "1", ""));
  put(dir, "c-1.dist-info", "direct_url.json",
      "{\"url\": \"file:///src/c\", \"dir_info\": {\"editable\": true}}");
  put(dir, "d-1.dist-info", "METADATA", META("d", "1", ""));
  put(dir, "d-1.dist-info", "direct_url.json", "{not json");
  struct ts_installed_set s;
  struct ts_error err = {0};
  const char *dirs[] = {dir};
  cr_assert_eq(ts_installed_read(dirs, 1, &s, &err), TS_OK, "%s", err.detail);
  cr_assert_eq(s.ndists, 4);
  cr_assert_str_eq(s.dists[0].direct_reference, "file:///w/a-1-py3-none-any.whl#sha256=ab");
  cr_assert_not(s.dists[0].editable);
  cr_assert_str_eq(s.dists[1].direct_reference, "git+https://g/x@c0ffee#subdirectory=sub");
  cr_assert(s.dists[2].editable);
  cr_assert_str_eq(s.dists[2].editable_location, "/src/c");
  cr_assert_null(s.dists[3].direct_reference);
  cr_assert_not_null(s.dists[3].direct_url_json);
  ts_installed_clear(&s);
}

Test(installed, requires_apply_markers_without_extras) {
  put(dir, "a-1.dist-info", "METADATA",
      META("a", "1", "Requires-Dist: Beta>=1\nRequires-Dist: gamma; extra == 'x'\n"
                     "Requires-Dist: delta; python_version < '3'\n"
                     "Requires-Dist: eps; python_version >= '3.12'\n"
                     "Requires-Dist: (bad\n"));
  struct ts_installed_set s;
  struct ts_error err = {0};
  const char *dirs[] = {dir};
  cr_assert_eq(ts_installed_read(dirs, 1, &s, &err), TS_OK, "%s", err.detail);
  char **names = NULL;
  size_t n = 0;
  ts_installed_requires(&s.dists[0], &env312, &names, &n);
  cr_assert_eq(n, 2);
  cr_assert_str_eq(names[0], "Beta");
  cr_assert_str_eq(names[1], "eps");
  ts_installed_files_free(names, n);
  ts_installed_requires(&s.dists[0], NULL, &names, &n);
  cr_assert_eq(n, 1);
  ts_installed_files_free(names, n);
  ts_installed_clear(&s);
}

Test(installed, files_from_record) {
  put(dir, "a-1.dist-info", "METADATA", META("a", "1", ""));
  put(dir, "a-1.dist-info", "RECORD", "a/__init__.py,sha256=x,1\n\"a/b,c.py\",,\n");
  put(dir, "b-1.dist-info", "METADATA", META("b", "1", ""));
  struct ts_installed_set s;
  struct ts_error err = {0};
  const char *dirs[] = {dir};
  cr_assert_eq(ts_installed_read(dirs, 1, &s, &err), TS_OK, "%s", err.detail);
  char **files = NULL;
  size_t n = 0;
  cr_assert_eq(ts_installed_files(&s.dists[0], &files, &n, &err), TS_OK, "%s", err.detail);
  cr_assert_eq(n, 2);
  cr_assert_str_eq(files[1], "a/b,c.py");
  ts_installed_files_free(files, n);
  cr_assert_eq(ts_installed_files(&s.dists[1], &files, &n, &err), TS_E_NOT_FOUND);
  ts_installed_clear(&s);
}
