/* Unit tests for pep/metadata.h: core metadata 1.0 - 2.x. */
#include <criterion/criterion.h>
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/buf.h"
#include "core/fs.h"
#include "pep/metadata.h"
#include "pep/requirement.h"

static struct ts_metadata *M(const char *s)
{
  struct ts_metadata *md = NULL;
  struct ts_error err = {0};
  enum ts_code rc = ts_metadata_parse(s, strlen(s), &md, &err);
  cr_assert_eq(rc, TS_OK, "should parse: %s", err.detail);
  return md;
}

static enum ts_code Mfail(const char *s, size_t len, struct ts_error *err)
{
  struct ts_metadata *md = (struct ts_metadata *)1;
  enum ts_code rc = ts_metadata_parse(s, len, &md, err);
  cr_assert_neq(rc, TS_OK);
  cr_assert_null(md);
  cr_assert(err->detail[0]);
  return rc;
}

Test(metadata, minimal_and_typed_fields)
{
  struct ts_metadata *md = M("Metadata-Version: 2.1\n"
                             "Name: Torch_Vision\n"
                             "Version: 0.26.0+cu130\n"
                             "Summary:   image models  \n"
                             "Requires-Python: >=3.10\n"
                             "Requires-Dist: numpy\n"
                             "Requires-Dist: torch==2.11.0\n"
                             "Requires-Dist: scipy ; extra == \"scipy\"\n"
                             "Provides-Extra: SciPy\n"
                             "Dynamic: License\n");
  cr_assert_str_eq(md->metadata_version, "2.1");
  cr_assert_str_eq(md->name, "Torch_Vision");
  cr_assert_str_eq(md->normalized_name, "torch-vision");
  cr_assert_str_eq(ts_version_str(md->version), "0.26.0+cu130");
  cr_assert_str_eq(md->summary, "image models");
  cr_assert_str_eq(md->requires_python, ">=3.10");
  cr_assert_eq(md->nrequires_dist, 3);
  cr_assert_str_eq(md->requires_dist[2], "scipy ; extra == \"scipy\"");
  cr_assert_eq(md->nprovides_extra, 1);
  cr_assert(ts_metadata_has_extra(md, "scipy"));
  cr_assert_not(ts_metadata_has_extra(md, "numpy"));
  cr_assert_eq(md->ndynamic, 1);
  cr_assert_null(md->description);
  cr_assert_null(md->license_expression);
  cr_assert_eq(md->nfields, 10);
  cr_assert_str_eq(ts_metadata_get(md, "requires-dist"), "numpy");
  const char *all[4];
  cr_assert_eq(ts_metadata_get_all(md, "REQUIRES-DIST", all, 2), 3);
  cr_assert_str_eq(all[1], "torch==2.11.0");
  cr_assert_null(ts_metadata_get(md, "Author"));
  ts_metadata_free(md);
}

Test(metadata, continuations_crlf_and_body)
{
  struct ts_metadata *md = M("Metadata-Version: 1.2\r\n"
                             "Name: foo\r\n"
                             "Version: 1.0\r\n"
                             "Author: A,\r\n"
                             "        B\r\n"
                             "Requires-Dist: bar\r\n"
                             "\t(>=1.0)\r\n"
                             "\r\n"
                             "Body line 1\r\n"
                             "\r\n"
                             "Not-A-Header: body\r\n");
  cr_assert_str_eq(ts_metadata_get(md, "Author"), "A,\n        B");
  cr_assert_str_eq(md->requires_dist[0], "bar (>=1.0)");
  cr_assert_str_eq(md->description,
                   "Body line 1\r\n\r\nNot-A-Header: body\r\n");
  cr_assert_eq(md->nfields, 5);
  ts_metadata_free(md);
}

Test(metadata, description_header_1x_styles)
{
  struct ts_metadata *md = M("Metadata-Version: 1.1\n"
                             "Name: foo\n"
                             "Version: 1.0\n"
                             "Description: Title\n"
                             "        |=====\n"
                             "        |\n"
                             "        |  indented\n"
                             "Platform: UNKNOWN\n");
  cr_assert_str_eq(md->description, "Title\n=====\n\n  indented");
  ts_metadata_free(md);
  md = M("Metadata-Version: 1.0\n"
         "Name: foo\n"
         "Version: 1.0\n"
         "Description: Title\n"
         "        more\n"
         "       |pipe\n");
  cr_assert_str_eq(md->description, "Title\nmore\npipe");
  ts_metadata_free(md);
  /* The body wins over the header. */
  md = M("Metadata-Version: 2.1\nName: foo\nVersion: 1.0\n"
         "Description: old\n\nnew\n");
  cr_assert_str_eq(md->description, "new\n");
  ts_metadata_free(md);
}

Test(metadata, lenient_like_email)
{
  /* No blank line before the body: a non-header line starts it. */
  struct ts_metadata *md = M("\xef\xbb\xbfMetadata-Version: 2.1\nName: foo\n"
                             "Version: 1\nthis is the body\nKey: v\n");
  cr_assert_str_eq(md->description, "this is the body\nKey: v\n");
  cr_assert_eq(md->nfields, 3);
  ts_metadata_free(md);
  /* No trailing newline; duplicate single fields keep the first. */
  md = M("Metadata-Version: 2.1\nName: foo\nName: bar\nVersion: 1");
  cr_assert_str_eq(md->name, "foo");
  cr_assert_eq(md->nfields, 4);
  cr_assert_null(md->description);
  ts_metadata_free(md);
  /* Metadata 2.6 (newer minor) is read. */
  md = M("Metadata-Version: 2.6\nName: foo\nVersion: 1\n");
  ts_metadata_free(md);
}

Test(metadata, rejects)
{
  struct ts_error err = {0};
  static const char *const bad[] = {
      "Name: foo\nVersion: 1\n",                               /* no M-V */
      "Metadata-Version: 2.1\nVersion: 1\n",                  /* no Name */
      "Metadata-Version: 2.1\nName: foo\n",                   /* no Version */
      "Metadata-Version: 2.1\nName: -foo\nVersion: 1\n",
      "Metadata-Version: 2.1\nName: foo\nVersion: 1.x\n",
      "Metadata-Version: x\nName: foo\nVersion: 1\n",
      "Metadata-Version: 2.2\nName: foo\nVersion: 1\nDynamic: Version\n",
      " Metadata-Version: 2.1\nName: foo\nVersion: 1\n",      /* leading fold */
      "",
  };
  for (size_t i = 0; i < sizeof bad / sizeof *bad; i++)
    cr_assert_eq(Mfail(bad[i], strlen(bad[i]), &err), TS_E_PARSE, "case %zu",
                 i);
  const char *v3 = "Metadata-Version: 3.0\nName: foo\nVersion: 1\n";
  cr_assert_eq(Mfail(v3, strlen(v3), &err), TS_E_UNSUPPORTED);
  static const char nul[] = "Metadata-Version: 2.1\nName: f\0o\nVersion: 1\n";
  cr_assert_eq(Mfail(nul, sizeof nul - 1, &err), TS_E_PARSE);
  cr_assert(strstr(err.detail, "line 2"), "%s", err.detail);
}

Test(metadata, size_cap)
{
  size_t n = TS_CAP_METADATA + 1;
  char *big = malloc(n);
  memset(big, 'x', n);
  struct ts_error err = {0};
  cr_assert_eq(Mfail(big, n, &err), TS_E_TOO_BIG);
  /* Just under the cap, a huge body is fine. */
  const char *head = "Metadata-Version: 2.1\nName: foo\nVersion: 1\n\n";
  memcpy(big, head, strlen(head));
  struct ts_metadata *md = NULL;
  cr_assert_eq(ts_metadata_parse(big, n - 1, &md, &err), TS_OK, "%s",
               err.detail);
  cr_assert_eq(strlen(md->description), n - 1 - strlen(head));
  ts_metadata_free(md);
  free(big);
}

Test(metadata, many_headers_and_long_folds)
{
  struct ts_buf b;
  ts_buf_init(&b, 0);
  cr_assert_eq(ts_buf_append_str(&b, "Metadata-Version: 2.1\nName: x\nVersion: 1\n"), TS_OK);
  for (int i = 0; i < 20000; i++)
    cr_assert_eq(ts_buf_printf(&b, "Requires-Dist: p%d\n  ; extra == 'e'\n", i),
                 TS_OK);
  struct ts_metadata *md = NULL;
  cr_assert_eq(ts_metadata_parse(b.data, b.len, &md, NULL), TS_OK);
  cr_assert_eq(md->nrequires_dist, 20000);
  cr_assert_str_eq(md->requires_dist[19999], "p19999 ; extra == 'e'");
  ts_metadata_free(md);
  ts_buf_clear(&b);
}

static struct ts_metadata *load(const char *path)
{
  struct ts_buf b;
  ts_buf_init(&b, TS_CAP_METADATA);
  struct ts_error err = {0};
  cr_assert_eq(ts_fs_read_file(path, &b, &err), TS_OK, "%s", err.detail);
  struct ts_metadata *md = NULL;
  cr_assert_eq(ts_metadata_parse(b.data, b.len, &md, &err), TS_OK, "%s: %s",
               path, err.detail);
  ts_buf_clear(&b);
  return md;
}

static const char *shared_dir(void)
{
  const char *d = getenv("TS_SHARED_DIR");
  return d && *d ? d : TS_SHARED_DIR;
}

Test(metadata, packaging_everything)
{
  char path[4096];
  snprintf(path, sizeof path,
           "%s/conformance/packaging/tests/metadata/everything.metadata",
           shared_dir());
  FILE *f = fopen(path, "rb");
  if (!f)
    cr_skip_test("%s absent", path);
  fclose(f);
  struct ts_metadata *md = load(path);
  cr_assert_str_eq(md->metadata_version, "2.6");
  cr_assert_str_eq(md->name, "BeagleVote");
  cr_assert_str_eq(md->normalized_name, "beaglevote");
  cr_assert_str_eq(ts_version_str(md->version), "1.0a2");
  cr_assert_str_eq(md->summary, "A module for collecting votes from beagles.");
  cr_assert_str_eq(md->requires_python, ">=3");
  cr_assert_str_eq(md->license_expression, "Apache-2.0 OR BSD-2-Clause");
  cr_assert_str_eq(md->description_content_type,
                   "text/markdown; charset=UTF-8; variant=GFM");
  cr_assert_eq(md->nrequires_dist, 5);
  cr_assert_str_eq(md->requires_dist[0], "reportlab; extra == 'pdf'");
  cr_assert_str_eq(md->requires_dist[3], "zope.interface (>3.5.0)");
  cr_assert_str_eq(md->requires_dist[4], "pywin32 >1.0; sys_platform == 'win32'");
  cr_assert_eq(md->nprovides_extra, 1);
  cr_assert_str_eq(md->provides_extra[0], "pdf");
  cr_assert_eq(md->ndynamic, 1);
  cr_assert_str_eq(md->dynamic[0], "Obsoletes-Dist");
  cr_assert_str_eq(md->description, "This description intentionally left blank.\n");
  const char *v[8];
  cr_assert_eq(ts_metadata_get_all(md, "Classifier", v, 8), 2);
  cr_assert_eq(ts_metadata_get_all(md, "Import-Name", v, 8), 2);
  cr_assert_str_eq(v[1], "_beaglevote ; private");
  cr_assert_str_eq(ts_metadata_get(md, "thisisnotreal"), "Hello!");
  cr_assert_str_eq(ts_metadata_get(md, "License"),
                   "This software may only be obtained by sending the\n"
                   "        author a postcard, and then the user promises not\n"
                   "        to redistribute it.");
  ts_metadata_free(md);
}

/* Every METADATA of a real environment parses, agrees with Python's email
 * parser (header count, Requires-Dist, body length in bytes) and its
 * Requires-Dist entries parse as PEP 508. */
Test(metadata, real_environment, .timeout = 120)
{
  char dir[4096];
  snprintf(dir, sizeof dir, "%s/real-env/h100-cu130-py312/dist-info",
           shared_dir());
  DIR *d = opendir(dir);
  if (!d)
    cr_skip_test("%s absent", dir);
  char cmd[8192];
  snprintf(cmd, sizeof cmd,
           "python3 -c 'import sys, glob, email.parser, email.policy\n"
           "for p in sorted(glob.glob(sys.argv[1] + \"/*/METADATA\")):\n"
           "  data = open(p, \"rb\").read()\n"
           "  m = email.parser.BytesParser(policy=email.policy.compat32).parsebytes(data)\n"
           "  rd = m.get_all(\"Requires-Dist\") or []\n"
           "  body = m.get_payload(decode=True) or b\"\"\n"
           "  print(p, len(m.items()), len(rd), len(body))\n"
           "  [print(\" \".join(x.strip() for x in r.splitlines()).strip()) for r in rd]' %s",
           dir);
  closedir(d);
  FILE *py = popen(cmd, "r");
  cr_assert_not_null(py);
  char line[8192];
  int files = 0, reqs = 0;
  while (fgets(line, sizeof line, py)) {
    char path[4096];
    size_t nfields, nreq, bodylen;
    if (sscanf(line, "%4095s %zu %zu %zu", path, &nfields, &nreq, &bodylen) != 4)
      cr_assert_fail("unexpected line from python: %s", line);
    struct ts_metadata *md = load(path);
    cr_assert_eq(md->nfields, nfields, "%s: header count", path);
    cr_assert_eq(md->nrequires_dist, nreq, "%s: Requires-Dist count", path);
    cr_assert_eq(md->description ? strlen(md->description) : 0, bodylen,
                 "%s: body length", path);
    for (size_t i = 0; i < nreq; i++) {
      cr_assert_not_null(fgets(line, sizeof line, py));
      line[strcspn(line, "\n")] = '\0';
      cr_assert_str_eq(md->requires_dist[i], line, "%s", path);
      struct ts_requirement *r = NULL;
      struct ts_error err = {0};
      cr_assert_eq(ts_requirement_parse(line, strlen(line), &r, &err), TS_OK,
                   "%s: '%s': %s", path, line, err.detail);
      ts_requirement_free(r);
      reqs++;
    }
    ts_metadata_free(md);
    files++;
  }
  cr_assert_eq(pclose(py), 0, "python3 failed");
  cr_assert_geq(files, 197, "only %d METADATA files", files);
  cr_log_info("%d METADATA files, %d Requires-Dist", files, reqs);
}

Test(metadata, installed_legacy_version)
{
  /* pip's invalid_version-2010i: refused from an index, but an installed
   * one is listed, shown and uninstalled with its version as written */
  const char *s = "Metadata-Version: 2.1\nName: invalid-version\nVersion: 2010i\n";
  struct ts_error err = {0};
  Mfail(s, strlen(s), &err);
  struct ts_metadata *md = NULL;
  cr_assert_eq(ts_metadata_parse_installed(s, strlen(s), &md, &err), TS_OK, "%s", err.detail);
  cr_assert_null(md->version);
  cr_assert_str_eq(md->legacy_version, "2010i");
  ts_metadata_free(md);
  const char *ok = "Metadata-Version: 2.1\nName: fine\nVersion: 1.0\n";
  cr_assert_eq(ts_metadata_parse_installed(ok, strlen(ok), &md, &err), TS_OK);
  cr_assert_not_null(md->version);
  cr_assert_null(md->legacy_version);
  ts_metadata_free(md);
}
