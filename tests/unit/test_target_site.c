/* target/site: the installed set, read once for install, sync, check and
 * the wheel installer — including distributions whose METADATA is broken
 * or missing, which are known by their directory name instead of being
 * left out. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/fs.h"
#include "target/site.h"

static char dir[64], dir2[80];

static void put(const char *base, const char *distinfo, const char *file,
                const char *text) {
  char p[512];
  snprintf(p, sizeof p, "%s/%s", base, distinfo);
  struct ts_error err = {0};
  cr_assert_eq(ts_fs_mkdirs(p, &err), TS_OK, "%s", err.detail);
  if (!file)
    return;
  snprintf(p, sizeof p, "%s/%s/%s", base, distinfo, file);
  FILE *f = fopen(p, "w");
  cr_assert(f);
  fputs(text, f);
  fclose(f);
}

static void setup(void) {
  snprintf(dir, sizeof dir, "/tmp/ts-site-XXXXXX");
  cr_assert(mkdtemp(dir));
  snprintf(dir2, sizeof dir2, "%s/platlib", dir);
  put(dir, "Zeta_Pkg-2.0.dist-info", "METADATA",
      "Metadata-Version: 2.1\nName: Zeta_Pkg\nVersion: 2.0\n\nbody\n");
  put(dir, "Zeta_Pkg-2.0.dist-info", "REQUESTED", "");
  put(dir, "alpha-1.0.dist-info", "METADATA",
      "Metadata-Version: 2.1\r\nName: alpha\r\nVersion: 1.0\r\nRequires-Dist: zeta-pkg\r\n");
  put(dir, "broken-3.1.dist-info", "METADATA", "Metadata-Version: 2.1\nSummary: no name\n");
  put(dir, "gone-0.5.dist-info", NULL, NULL); /* no METADATA at all */
  put(dir, "not-a-dist", "METADATA", "Name: x\nVersion: 1\n");
  put(dir2, "beta-1.0.dist-info", "METADATA", "Name: beta\nVersion: 1.0\n");
}

static void teardown(void) {
  struct ts_error err = {0};
  ts_fs_remove_tree(dir, &err);
}

TestSuite(site, .init = setup, .fini = teardown);

Test(site, reads_every_dist_info_sorted) {
  const char *dirs[3] = {dir, dir2, dir}; /* a directory named twice is read once */
  struct ts_site s;
  struct ts_error err = {0};
  cr_assert_eq(ts_site_read(dirs, 3, &s, &err), TS_OK, "%s", err.detail);
  cr_assert_eq(s.n, 5);
  const char *order[] = {"alpha", "beta", "broken", "gone", "zeta-pkg"};
  for (size_t i = 0; i < 5; i++)
    cr_expect_str_eq(s.dists[i].normalized, order[i]);
  const struct ts_site_dist *z = ts_site_find(&s, "ZETA.pkg");
  cr_assert(z);
  cr_expect_str_eq(z->name, "Zeta_Pkg");
  cr_expect_str_eq(z->version, "2.0");
  cr_expect(z->metadata_ok && z->requested && !z->problem);
  cr_expect(strstr(z->metadata, "body"));
  const struct ts_site_dist *a = ts_site_find(&s, "alpha");
  cr_expect_str_eq(a->version, "1.0"); /* CRLF headers */
  cr_expect(!a->requested);
  cr_expect_str_eq(ts_site_find(&s, "beta")->site, dir2);
  ts_site_clear(&s);
}

Test(site, broken_metadata_is_seen_by_directory_name) {
  const char *dirs[1] = {dir};
  struct ts_site s;
  struct ts_error err = {0};
  cr_assert_eq(ts_site_read(dirs, 1, &s, &err), TS_OK, "%s", err.detail);
  const struct ts_site_dist *b = ts_site_find(&s, "broken");
  cr_assert(b);
  cr_expect(!b->metadata_ok);
  cr_expect_str_eq(b->version, "3.1");
  cr_expect(b->metadata && strstr(b->problem, "no Name"), "%s", b->problem);
  const struct ts_site_dist *g = ts_site_find(&s, "gone");
  cr_assert(g);
  cr_expect(!g->metadata_ok && !g->metadata);
  cr_expect_str_eq(g->version, "0.5");
  cr_expect(strstr(g->problem, "METADATA"), "%s", g->problem);
  ts_site_clear(&s);
}

Test(site, missing_directory_is_empty) {
  const char *dirs[1] = {"/nonexistent/site-packages"};
  struct ts_site s;
  struct ts_error err = {0};
  cr_assert_eq(ts_site_read(dirs, 1, &s, &err), TS_OK);
  cr_expect_eq(s.n, 0);
  ts_site_clear(&s);
}

Test(site, torch_built_with) {
  put(dir, "torch", "version.py",
      "__version__ = '2.9.1a0+gitd38164a'\ncuda: Optional[str] = '12.8'\nhip = None\n");
  char *cuda = ts_site_torch_built_with(dir, "cuda");
  cr_expect_str_eq(cuda, "12.8");
  free(cuda);
  cr_expect_null(ts_site_torch_built_with(dir, "hip"));
  cr_expect_null(ts_site_torch_built_with(dir2, "cuda"));
}
