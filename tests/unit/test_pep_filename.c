/* Unit tests for pep/filename.h: wheel and sdist file names. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pep/filename.h"

static struct ts_wheel_filename *W(const char *s)
{
  struct ts_wheel_filename *w = NULL;
  struct ts_error err = {0};
  enum ts_code rc = ts_wheel_filename_parse(s, strlen(s), &w, &err);
  cr_assert_eq(rc, TS_OK, "'%s' should parse: %s", s, err.detail);
  cr_assert_not_null(w);
  return w;
}

static enum ts_code Wfail(const char *s, size_t len, struct ts_error *err)
{
  struct ts_wheel_filename *w = (struct ts_wheel_filename *)1;
  enum ts_code rc = ts_wheel_filename_parse(s, len, &w, err);
  cr_assert_neq(rc, TS_OK, "'%.*s' should be rejected", (int)len, s);
  cr_assert_null(w);
  cr_assert(err->detail[0]);
  return rc;
}

static void has_tag(const struct ts_wheel_filename *w, size_t i,
                    const char *exp)
{
  cr_assert_lt(i, w->ntags);
  char *t = ts_tag_str(&w->tags[i]);
  cr_assert_str_eq(t, exp);
  free(t);
}

Test(wheel, torch_local_versions)
{
  struct ts_wheel_filename *w =
      W("torch-2.9.1a0+gitd38164a-cp311-cp311-linux_x86_64.whl");
  cr_assert_str_eq(w->normalized_name, "torch");
  cr_assert_str_eq(ts_version_str(w->version), "2.9.1a0+gitd38164a");
  cr_assert_str_eq(ts_version_local(w->version), "gitd38164a");
  cr_assert_null(w->build);
  cr_assert_eq(w->ntags, 1);
  has_tag(w, 0, "cp311-cp311-linux_x86_64");
  ts_wheel_filename_free(w);

  w = W("torch-2.11.0+cu130-cp312-cp312-manylinux_2_28_x86_64.whl");
  cr_assert_str_eq(ts_version_str(w->version), "2.11.0+cu130");
  has_tag(w, 0, "cp312-cp312-manylinux_2_28_x86_64");
  cr_assert_str_eq(w->platform_tags, "manylinux_2_28_x86_64");
  ts_wheel_filename_free(w);
}

Test(wheel, compressed_sets_expand_in_order)
{
  struct ts_wheel_filename *w = W(
      "Foo.Bar-2.0-py2.py3-none-manylinux_2_17_x86_64.manylinux2014_x86_64.whl");
  cr_assert_str_eq(w->name, "Foo.Bar");
  cr_assert_str_eq(w->normalized_name, "foo-bar");
  cr_assert_eq(w->ntags, 4);
  has_tag(w, 0, "py2-none-manylinux_2_17_x86_64");
  has_tag(w, 1, "py2-none-manylinux2014_x86_64");
  has_tag(w, 2, "py3-none-manylinux_2_17_x86_64");
  has_tag(w, 3, "py3-none-manylinux2014_x86_64");
  ts_wheel_filename_free(w);

  /* Duplicates collapse, tags are lowercased as packaging's Tag does. */
  w = W("foo-1.0-PY3.py3-NONE-Any.whl");
  cr_assert_eq(w->ntags, 1);
  has_tag(w, 0, "py3-none-any");
  ts_wheel_filename_free(w);
}

Test(wheel, build_tags)
{
  struct ts_wheel_filename *a = W("foo-1.0-1000abc-py3-none-any.whl");
  cr_assert_str_eq(a->build, "1000abc");
  cr_assert_eq(a->build_number, 1000);
  cr_assert_str_eq(a->build_suffix, "abc");
  struct ts_wheel_filename *b = W("foo-1.0-999-py3-none-any.whl");
  struct ts_wheel_filename *c = W("foo-1.0-py3-none-any.whl");
  struct ts_wheel_filename *d = W("foo-1.0-01000-py3-none-any.whl");
  struct ts_wheel_filename *huge =
      W("foo-1.0-99999999999999999999999999-py3-none-any.whl");
  cr_assert_gt(ts_wheel_build_cmp(a, b), 0);
  cr_assert_lt(ts_wheel_build_cmp(c, b), 0);
  cr_assert_eq(ts_wheel_build_cmp(c, c), 0);
  cr_assert_lt(ts_wheel_build_cmp(d, a), 0); /* 1000 "" < 1000 "abc" */
  cr_assert_eq(d->build_number, 1000);
  cr_assert_eq(huge->build_number, ~0ull);
  cr_assert_gt(ts_wheel_build_cmp(huge, a), 0);
  ts_wheel_filename_free(a);
  ts_wheel_filename_free(b);
  ts_wheel_filename_free(c);
  ts_wheel_filename_free(d);
  ts_wheel_filename_free(huge);
}

Test(wheel, variants_are_refused_not_misparsed)
{
  struct ts_error err = {0};
  const char *v = "torch-2.9.0-cp313-cp313-manylinux_2_28_x86_64-cu128.whl";
  cr_assert_eq(Wfail(v, strlen(v), &err), TS_E_UNSUPPORTED);
  cr_assert(strstr(err.detail, "variant"), "%s", err.detail);
  cr_assert(strstr(err.detail, "cu128"), "%s", err.detail);
  size_t off, len;
  cr_assert(ts_wheel_filename_is_variant(v, strlen(v), &off, &len));
  cr_assert_eq(len, 5);
  cr_assert_eq(memcmp(v + off, "cu128", 5), 0);

  /* With a build tag too. */
  v = "torch-2.9.0-1-cp313-cp313-manylinux_2_28_x86_64-null.whl";
  cr_assert_eq(Wfail(v, strlen(v), &err), TS_E_UNSUPPORTED);
  /* A label longer than 8 or with capitals is no label: plain parse error. */
  v = "torch-2.9.0-cp313-cp313-manylinux_2_28_x86_64-cuda12800.whl";
  cr_assert_eq(Wfail(v, strlen(v), &err), TS_E_PARSE);
  cr_assert_not(ts_wheel_filename_is_variant(v, strlen(v), NULL, NULL));
  v = "torch-2.9.0-cp313-cp313-linux_x86_64-CU.whl";
  cr_assert_eq(Wfail(v, strlen(v), &err), TS_E_PARSE);
  /* A real build tag is not a variant. */
  v = "foo-1.0-1-py3-none-any.whl";
  cr_assert_not(ts_wheel_filename_is_variant(v, strlen(v), NULL, NULL));
}

Test(wheel, rejects)
{
  static const char *const bad[] = {
      "foo-1.0.whl", "foo-1.0-py3-none-any.wheel", "foo__bar-1.0-py3-none-any.whl",
      "foo#bar-1.0-py3-none-any.whl", "-1.0-py3-none-any.whl",
      "foobar-1.x-py3-none-any.whl", "foo-1.0-abc-py3-none-any.whl",
      "foo-1.0--none-any.whl", "foo-1.0-py3-none-.whl", "foo-1.0-py3.-none-any.whl",
      "playlyfe-0.1.1-2.7.6-none-any.whl", "foo-1.0-py+3-none-any.whl",
      "foo-1.0-py3-none-any.whl/", "dir/foo-1.0-py3-none-any.whl",
      "foo-1.0-py3-none-any .whl", ".whl", "", "foo-1.0-a-b-c-d-e-f-g.whl",
      "foo-1.0-py3-no.ne-a..ny.whl", "foo-1.0-py3-none-linux_x86-64.whl",
  };
  for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
    struct ts_error err = {0};
    Wfail(bad[i], strlen(bad[i]), &err);
  }
}

Test(wheel, hostile_bytes)
{
  struct ts_error err = {0};
  /* Embedded NUL: the slice is longer than strlen. */
  static const char nul[] = "foo\0-1.0-py3-none-any.whl";
  Wfail(nul, sizeof nul - 1, &err);
  /* Invalid UTF-8 in the name (overlong '/', lone continuation, surrogate). */
  static const char *const utf[] = {"f\xc0\xafo-1.0-py3-none-any.whl",
                                    "f\x80o-1.0-py3-none-any.whl",
                                    "f\xed\xa0\x80o-1.0-py3-none-any.whl",
                                    "f\xe2\x82-1.0-py3-none-any.whl"};
  for (size_t i = 0; i < 4; i++)
    Wfail(utf[i], strlen(utf[i]), &err);
  /* Valid non-ASCII letters are \w, as in packaging. */
  struct ts_wheel_filename *w = W("foo_b\xc3\xa1r-1.0-py3-none-any.whl");
  cr_assert_str_eq(w->normalized_name, "foo-b\xc3\xa1r");
  ts_wheel_filename_free(w);
  /* Overlong names. */
  size_t n = 5000;
  char *s = malloc(n + 1);
  memset(s, 'a', n);
  memcpy(s + n - 22, "-1.0-py3-none-any.whl", 21);
  s[n - 1] = 'l';
  Wfail(s, n, &err);
  free(s);
  /* A huge tag product (40 x 16 x 10 > the cap) is refused, not expanded. */
  char big[1024];
  size_t o = (size_t)snprintf(big, sizeof big, "foo-1.0-");
  for (int i = 0; i < 40; i++)
    o += (size_t)snprintf(big + o, sizeof big - o, "%sp%c%c", i ? "." : "",
                          'a' + i % 26, 'a' + i / 26);
  snprintf(big + o, sizeof big - o,
           "-a.b.c.d.e.f.g.h.i.j.k.l.m.n.o.p-x.y.z.w.v.u.t.s.r.q.whl");
  cr_assert_eq(Wfail(big, strlen(big), &err), TS_E_TOO_BIG);
}

Test(wheel, slice_not_nul_terminated)
{
  const char *s = "foo-1.0-py3-none-any.whlXXXX";
  struct ts_wheel_filename *w = NULL;
  cr_assert_eq(ts_wheel_filename_parse(s, 24, &w, NULL), TS_OK);
  cr_assert_str_eq(w->platform_tags, "any");
  ts_wheel_filename_free(w);
}

Test(sdist, parses)
{
  struct ts_sdist_filename *sd = NULL;
  struct ts_error err = {0};
  const char *s = "Foo_Bar-2.0rc1.tar.gz";
  cr_assert_eq(ts_sdist_filename_parse(s, strlen(s), &sd, &err), TS_OK);
  cr_assert_str_eq(sd->name, "Foo_Bar");
  cr_assert_str_eq(sd->normalized_name, "foo-bar");
  cr_assert_str_eq(ts_version_str(sd->version), "2.0rc1");
  cr_assert_str_eq(sd->extension, ".tar.gz");
  ts_sdist_filename_free(sd);
  /* Dashes in the name: the version starts after the last one. */
  s = "zope-interface-5.4.0.zip";
  cr_assert_eq(ts_sdist_filename_parse(s, strlen(s), &sd, &err), TS_OK);
  cr_assert_str_eq(sd->normalized_name, "zope-interface");
  cr_assert_str_eq(sd->extension, ".zip");
  ts_sdist_filename_free(sd);
}

Test(sdist, rejects)
{
  static const char *const bad[] = {"foo-1.0.xz", "foo1.0.tar.gz",
                                    "foo-1.x.tar.gz", "-1.0.tar.gz", "-1.0.zip",
                                    "foo-.tar.gz", ".tar.gz", "foo 1-1.0.zip",
                                    "a/b-1.0.zip"};
  for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
    struct ts_sdist_filename *sd = (struct ts_sdist_filename *)1;
    struct ts_error err = {0};
    cr_assert_neq(ts_sdist_filename_parse(bad[i], strlen(bad[i]), &sd, &err),
                  TS_OK, "'%s'", bad[i]);
    cr_assert_null(sd);
  }
}

Test(dist, kind)
{
  cr_assert_eq(ts_dist_kind_of("a-1-py3-none-any.whl", 20), TS_DIST_WHEEL);
  cr_assert_eq(ts_dist_kind_of("a-1.tar.gz", 10), TS_DIST_SDIST);
  cr_assert_eq(ts_dist_kind_of("a-1.zip", 7), TS_DIST_SDIST);
  cr_assert_eq(ts_dist_kind_of("a-1.tar.bz2", 11), TS_DIST_UNKNOWN);
  cr_assert_eq(ts_dist_kind_of("", 0), TS_DIST_UNKNOWN);
}

Test(dist, archive_kind)
{
  cr_assert_eq(ts_archive_kind_of("a-1-py3-none-any.WHL", 20), TS_DIST_WHEEL);
  cr_assert_eq(ts_archive_kind_of("a-1.tar.bz2", 11), TS_DIST_SDIST);
  cr_assert_eq(ts_archive_kind_of("A-1.TGZ", 7), TS_DIST_SDIST);
  cr_assert_eq(ts_archive_kind_of("a-1.tar.lzma", 12), TS_DIST_SDIST);
  cr_assert_eq(ts_archive_kind_of("a-1.tar", 7), TS_DIST_SDIST);
  cr_assert_eq(ts_archive_kind_of("a-1.tar.gz.sig", 14), TS_DIST_UNKNOWN);
  cr_assert_eq(ts_archive_kind_of("src", 3), TS_DIST_UNKNOWN);
  cr_assert_eq(ts_archive_kind_of("", 0), TS_DIST_UNKNOWN);
}

/* A hint whose text is the version field stands in for its parse; any
 * other hint is not used, and a name that is no wheel fails as without. */
Test(wheel, version_hint)
{
  struct ts_version *hint = NULL;
  cr_assert_eq(ts_version_parse("2.13.0+cu126", 12, &hint, NULL), TS_OK);
  struct ts_wheel_filename *w = NULL, *plain = NULL;
  const char *a = "torch-2.13.0+cu126-cp312-cp312-manylinux_2_28_x86_64.whl";
  cr_assert_eq(ts_wheel_filename_parse_hinted(a, strlen(a), hint, &w, NULL), TS_OK);
  cr_assert_eq(ts_wheel_filename_parse(a, strlen(a), &plain, NULL), TS_OK);
  cr_expect_eq(ts_version_cmp(w->version, plain->version), 0);
  cr_expect_str_eq(ts_version_original(w->version), "2.13.0+cu126");
  cr_expect_str_eq(ts_version_str(w->version), ts_version_str(plain->version));
  ts_wheel_filename_free(w);
  ts_wheel_filename_free(plain);
  /* "2.13" is not "2.13.0+cu126": parsed, not copied */
  const char *b = "torch-2.13-cp312-cp312-manylinux_2_28_x86_64.whl";
  cr_assert_eq(ts_wheel_filename_parse_hinted(b, strlen(b), hint, &w, NULL), TS_OK);
  cr_expect_str_eq(ts_version_original(w->version), "2.13");
  cr_expect_neq(ts_version_cmp(w->version, hint), 0);
  ts_wheel_filename_free(w);
  const char *c = "torch-2.13.0+cu126-cp312.whl";
  cr_expect_neq(ts_wheel_filename_parse_hinted(c, strlen(c), hint, &w, NULL), TS_OK);
  cr_expect_null(w);
  ts_version_free(hint);
}
