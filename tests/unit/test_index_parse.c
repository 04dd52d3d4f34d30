/* Simple API parsers: poetry's fixture pages (read at run time from the
 * shared conformance tree) and hand-written hostile pages. */
#include <criterion/criterion.h>
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/fs.h"
#include "index/simple.h"
#include "index/url.h"

#define POETRY TS_SHARED_DIR "/conformance/poetry/tests/repositories/fixtures"
#define FIX TS_FIXTURES_DIR "/index"

static struct ts_buf load(const char *path) {
  struct ts_buf b;
  ts_buf_init(&b, TS_CAP_INDEX_PAGE);
  struct ts_error err = {0};
  cr_assert_eq(ts_fs_read_file(path, &b, &err), TS_OK, "%s: %s", path, err.detail);
  return b;
}

static enum ts_code parse_file(const char *path, const char *url, const char *name,
                               struct ts_index_project *p, struct ts_error *err) {
  struct ts_buf b = load(path);
  enum ts_code c = strstr(path, ".json") ? ts_index_parse_json(b.data, b.len, url, name, p, err)
                                         : ts_index_parse_html(b.data, b.len, url, name, p, err);
  ts_buf_clear(&b);
  return c;
}

static bool have_poetry(void) {
  DIR *d = opendir(POETRY);
  if (d)
    closedir(d);
  return d != NULL;
}

static size_t count_anchors(const char *s, size_t n) {
  size_t c = 0;
  for (size_t i = 0; i + 3 < n; i++)
    if (s[i] == '<' && (s[i + 1] | 0x20) == 'a' && (s[i + 2] == ' ' || s[i + 2] == '\n'))
      c++;
  return c;
}

Test(index_parse, poetry_html_pages_all_parse) {
  if (!have_poetry())
    cr_skip_test("shared conformance data absent");
  DIR *d = opendir(POETRY "/legacy");
  struct dirent *e;
  int pages = 0;
  while ((e = readdir(d))) {
    if (!strstr(e->d_name, ".html"))
      continue;
    char path[512];
    snprintf(path, sizeof path, "%s/legacy/%s", POETRY, e->d_name);
    struct ts_buf b = load(path);
    struct ts_index_project p;
    struct ts_error err = {0};
    cr_assert_eq(ts_index_parse_html(b.data, b.len, "https://example.org/simple/x/", "x", &p, &err),
                 TS_OK, "%s: %s", e->d_name, err.detail);
    cr_expect_eq(p.nfiles, count_anchors(b.data, b.len), "%s: %zu files", e->d_name, p.nfiles);
    for (size_t i = 0; i < p.nfiles; i++) {
      cr_expect(p.files[i].filename && p.files[i].filename[0]);
      cr_expect(strncmp(p.files[i].url, "https://", 8) == 0, "%s", p.files[i].url);
      cr_expect(!strchr(p.files[i].url, '#'), "fragment kept: %s", p.files[i].url);
    }
    ts_index_project_clear(&p);
    ts_buf_clear(&b);
    pages++;
  }
  closedir(d);
  cr_expect_gt(pages, 10);
}

Test(index_parse, poetry_relative_links_and_escapes) {
  if (!have_poetry())
    cr_skip_test("shared conformance data absent");
  struct ts_index_project p;
  struct ts_error err = {0};
  cr_assert_eq(parse_file(POETRY "/legacy/relative.html", "https://example.org/simple/poetry/",
                          "Poetry", &p, &err), TS_OK, "%s", err.detail);
  cr_assert_eq(p.nfiles, 3);
  cr_expect_str_eq(p.name, "poetry");
  cr_expect_str_eq(p.files[0].url, "https://example.org/simple/poetry/poetry-0.1.0-py3-none-any.whl");
  cr_expect_str_eq(p.files[0].filename, "poetry-0.1.0-py3-none-any.whl");
  cr_expect_str_eq(p.files[0].sha256, "1d85132efab8ead3c6f69202843da40a03823992091c29f8d65a31af68940163");
  cr_expect_str_eq(p.files[0].requires_python, ">=3.6.0");
  cr_expect_not(p.files[0].yanked);
  cr_expect_not(p.files[0].has_metadata);
  /* the file name comes from the URL, not the (wrong) anchor text */
  cr_expect_str_eq(p.files[2].filename, "poetry-0.1.1.tar.bz2");
  ts_index_project_clear(&p);
}

Test(index_parse, poetry_yanked_and_metadata) {
  if (!have_poetry())
    cr_skip_test("shared conformance data absent");
  struct ts_index_project p;
  struct ts_error err = {0};
  cr_assert_eq(parse_file(POETRY "/legacy/futures-partial-yank.html", "https://e.org/simple/futures/",
                          "futures", &p, &err), TS_OK);
  cr_assert_eq(p.nfiles, 2);
  cr_expect(p.files[0].yanked);
  cr_expect_null(p.files[0].yanked_reason);
  cr_expect_str_eq(p.files[0].requires_python, ">=2.6, <3");
  cr_expect_not(p.files[1].yanked);
  ts_index_project_clear(&p);
  cr_assert_eq(parse_file(POETRY "/legacy/isort-metadata.html", "https://e.org/simple/isort/",
                          "isort", &p, &err), TS_OK);
  cr_assert_eq(p.nfiles, 1);
  cr_expect(p.files[0].has_metadata);
  cr_expect_str_eq(p.files[0].metadata_sha256,
                   "e360bf0ed8a06390513d50dd5b7e9d635c789853a93b84163f9de4ae0647580c");
  ts_index_project_clear(&p);
}

/* Every JSON page poetry ships has an HTML twin: both must say the same. */
Test(index_parse, poetry_json_matches_html) {
  if (!have_poetry())
    cr_skip_test("shared conformance data absent");
  DIR *d = opendir(POETRY "/legacy/json");
  struct dirent *e;
  int pairs = 0;
  while ((e = readdir(d))) {
    size_t l = strlen(e->d_name);
    if (l < 6 || strcmp(e->d_name + l - 5, ".json") != 0)
      continue;
    char jp[512], hp[512];
    snprintf(jp, sizeof jp, "%s/legacy/json/%s", POETRY, e->d_name);
    snprintf(hp, sizeof hp, "%s/legacy/%.*s.html", POETRY, (int)(l - 5), e->d_name);
    struct ts_index_project j, h;
    struct ts_error err = {0};
    const char *url = "https://example.org/simple/p/";
    cr_assert_eq(parse_file(jp, url, "p", &j, &err), TS_OK, "%s: %s", jp, err.detail);
    cr_assert_eq(parse_file(hp, url, "p", &h, &err), TS_OK, "%s: %s", hp, err.detail);
    cr_assert_eq(j.nfiles, h.nfiles, "%s", e->d_name);
    for (size_t i = 0; i < j.nfiles; i++) {
      cr_expect_str_eq(j.files[i].url, h.files[i].url, "%s", e->d_name);
      if (j.files[i].sha256 && h.files[i].sha256)
        cr_expect_str_eq(j.files[i].sha256, h.files[i].sha256);
      cr_expect_eq(j.files[i].yanked, h.files[i].yanked, "%s %s", e->d_name, j.files[i].filename);
      cr_expect_eq(!j.files[i].requires_python, !h.files[i].requires_python, "%s", e->d_name);
      if (j.files[i].requires_python && h.files[i].requires_python)
        cr_expect_str_eq(j.files[i].requires_python, h.files[i].requires_python);
      cr_expect_eq(j.files[i].has_metadata, h.files[i].has_metadata, "%s %s", e->d_name,
                   j.files[i].filename);
    }
    ts_index_project_clear(&j);
    ts_index_project_clear(&h);
    pairs++;
  }
  closedir(d);
  cr_expect_gt(pairs, 5);
}

Test(index_parse, hostile_html) {
  struct ts_index_project p;
  struct ts_error err = {0};
  cr_assert_eq(parse_file(FIX "/hostile.html", "https://h.example/simple/pkg/", "PKG", &p, &err),
               TS_OK, "%s", err.detail);
  cr_assert_eq(p.nfiles, 8, "got %zu", p.nfiles);
  struct ts_index_file *f = p.files;
  cr_expect_str_eq(f[0].url, "https://h.example/packages/ab/cd/pkg-1.0-py3-none-any.whl");
  cr_expect_str_eq(f[0].sha256, "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa");
  cr_expect_str_eq(f[0].requires_python, ">=3.8,<4<");
  cr_expect(f[1].yanked);
  cr_expect_null(f[1].yanked_reason);
  cr_expect_str_eq(f[1].url, "https://h.example/simple/pkg/pkg-1.1.tar.gz");
  cr_expect_str_eq(f[2].url, "https://h.example/simple/pkg/pkg-1.2.tar.gz?x=1&y=2");
  cr_expect_str_eq(f[2].filename, "pkg-1.2.tar.gz");
  cr_expect_str_eq(f[2].yanked_reason, "bad \"release\" \xF0\x9F\x98\x80");
  cr_expect_str_eq(f[3].filename, "pkg+-1.3.zip");
  cr_expect(f[3].has_metadata);
  cr_expect_null(f[3].metadata_sha256);
  /* data-core-metadata wins over data-dist-info-metadata (PEP 714) */
  cr_expect_str_eq(f[4].url, "https://h.example/abs/pkg-1.4-py3-none-any.whl");
  cr_expect(f[4].has_metadata);
  cr_expect_null(f[4].metadata_sha256);
  cr_expect_null(f[5].sha256); /* md5 fragments are ignored */
  cr_expect_str_eq(f[6].filename, "pkg-1.6.tar.gz");
  cr_expect_str_eq(f[6].requires_python, "&unknown; &amp");
  cr_expect_str_eq(f[7].filename, "pkg-1.7.tar.gz");
  cr_expect(f[7].yanked);
  ts_index_project_clear(&p);
}

Test(index_parse, base_href) {
  struct ts_index_project p;
  struct ts_error err = {0};
  cr_assert_eq(parse_file(FIX "/base.html", "https://h.example/simple/pkg/", "pkg", &p, &err), TS_OK);
  cr_assert_eq(p.nfiles, 2);
  cr_expect_str_eq(p.files[0].url, "https://mirror.example/files/pkg-2.0.tar.gz");
  cr_expect_str_eq(p.files[1].url, "https://mirror.example/other/pkg-2.1.tar.gz");
  ts_index_project_clear(&p);
}

static void expect_fail(const char *file, enum ts_code want, const char *needle) {
  struct ts_index_project p;
  struct ts_error err = {0};
  char path[512];
  snprintf(path, sizeof path, "%s/%s", FIX, file);
  enum ts_code c = parse_file(path, "https://user:pw@h.example/simple/p/", "p", &p, &err);
  cr_expect_eq(c, want, "%s: got %d (%s)", file, c, err.detail);
  cr_expect(strstr(err.detail, needle) != NULL, "%s: '%s' lacks '%s'", file, err.detail, needle);
  cr_expect(strstr(err.detail, "pw@") == NULL, "%s: credentials in '%s'", file, err.detail);
  cr_expect_eq(p.nfiles, 0);
  cr_expect_null(p.files);
}

Test(index_parse, hostile_pages_fail_cleanly) {
  expect_fail("badhash.html", TS_E_PARSE, "invalid sha256");
  expect_fail("badscheme.html", TS_E_PARSE, "unsupported scheme");
  expect_fail("badurl.html", TS_E_PARSE, "invalid link");
  expect_fail("space.html", TS_E_PARSE, "control character or space");
  expect_fail("nul.html", TS_E_PARSE, "NUL byte in href");
  expect_fail("v2.json", TS_E_UNSUPPORTED, "unsupported Simple API version '2.0'");
  expect_fail("filesobj.json", TS_E_PARSE, "no files[] array");
  expect_fail("evilname.json", TS_E_PARSE, "valid filename");
  expect_fail("badsha.json", TS_E_PARSE, "invalid sha256");
  expect_fail("truncated.json", TS_E_PARSE, "malformed JSON");
  expect_fail("deep.json", TS_E_PARSE, "https://***@h.example");
}

Test(index_parse, json_fields) {
  struct ts_index_project p;
  struct ts_error err = {0};
  cr_assert_eq(parse_file(FIX "/good.json", "https://h.example/simple/pkg/", "Pkg", &p, &err), TS_OK,
               "%s", err.detail);
  cr_assert_eq(p.nfiles, 3);
  cr_expect_str_eq(p.name, "pkg");
  cr_expect_str_eq(p.files[0].url, "https://h.example/files/pkg-1.0-py3-none-any.whl");
  cr_expect_str_eq(p.files[0].sha256, "cccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccc");
  cr_expect_str_eq(p.files[0].metadata_sha256,
                   "dddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddd");
  cr_expect_str_eq(p.files[0].yanked_reason, "reason <here>");
  cr_expect_eq(p.files[0].size, 1234);
  cr_expect_str_eq(p.files[0].upload_time, "2024-01-02T03:04:05.000000Z");
  cr_expect_null(p.files[1].requires_python);
  cr_expect(p.files[1].has_metadata);
  cr_expect(p.files[1].yanked);
  cr_expect_null(p.files[1].yanked_reason);
  cr_expect_eq(p.files[1].size, -1);
  cr_expect_str_eq(p.files[2].metadata_sha256,
                   "eeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeee");
  cr_expect_not(p.files[2].yanked);
  ts_index_project_clear(&p);
}

/* Free text from a page reaches the terminal: no control characters. */
Test(index_parse, control_characters_in_free_text) {
  static const char html[] =
      "<a href=\"x-1.0-py3-none-any.whl\" data-yanked=\"a&#27;[31mred&#10;b&#155;c\" "
      "data-requires-python=\"&gt;=3\x7f\">x-1.0-py3-none-any.whl</a>";
  static const char json[] =
      "{\"meta\":{\"api-version\":\"1.1\"},\"name\":\"x\",\"files\":[{\"filename\":"
      "\"x-1.0-py3-none-any.whl\",\"url\":\"x-1.0-py3-none-any.whl\",\"hashes\":{},"
      "\"yanked\":\"a\\u001b[31mred\\nb\\u009bc\",\"requires-python\":\">=3\\u007f\","
      "\"upload-time\":\"2024\\r\\n\"}]}";
  struct ts_index_project p;
  struct ts_error err = {0};
  cr_assert_eq(ts_index_parse_html(html, sizeof html - 1, "https://h.example/simple/x/", "x", &p, &err),
               TS_OK, "%s", err.detail);
  cr_assert_eq(p.nfiles, 1);
  cr_expect_str_eq(p.files[0].yanked_reason, "a [31mred b  c");
  cr_expect_str_eq(p.files[0].requires_python, ">=3 ");
  ts_index_project_clear(&p);
  cr_assert_eq(ts_index_parse_json(json, sizeof json - 1, "https://h.example/simple/x/", "x", &p, &err),
               TS_OK, "%s", err.detail);
  cr_assert_eq(p.nfiles, 1);
  cr_expect_str_eq(p.files[0].yanked_reason, "a [31mred b  c");
  cr_expect_str_eq(p.files[0].requires_python, ">=3 ");
  cr_expect_str_eq(p.files[0].upload_time, "2024  ");
  ts_index_project_clear(&p);
}

/* An invalid link is named in the error, but never with the credentials
 * of an absolute URL nor with the escape sequences a hostile page put in. */
Test(index_parse, bad_links_are_named_safely) {
  static const char *const pages[] = {
      "<a href=\"http://user:s3cret@[::1/x-1.0.tar.gz\">x</a>",
      "<a href=\"http://user:s3cret@h.example/x-1.0.tar.gz#sha256=zz\">x</a>",
      "<a href=\"x\x1b[31mRED y.whl\">x</a>",
      "<a href=\"x-1.0.tar.gz\" data-core-metadata=\"sha256=\x1b[2J\">x</a>",
  };
  for (size_t i = 0; i < sizeof pages / sizeof pages[0]; i++) {
    struct ts_index_project p;
    struct ts_error err = {0};
    cr_assert_eq(ts_index_parse_html(pages[i], strlen(pages[i]), "https://h.example/simple/x/",
                                     "x", &p, &err), TS_E_PARSE, "page %zu", i);
    cr_expect_null(strstr(err.detail, "s3cret"), "%s", err.detail);
    cr_expect_null(strchr(err.detail, '\x1b'), "%s", err.detail);
    cr_expect(strstr(err.detail, "'http://***@") || strstr(err.detail, "?["), "%s", err.detail);
  }
  static const char json[] =
      "{\"meta\":{\"api-version\":\"1.0\"},\"files\":[{\"filename\":\"x\\u001b[2J.whl\","
      "\"url\":\"x.whl\",\"hashes\":{\"sha256\":\"no\"}}]}";
  struct ts_index_project p;
  struct ts_error err = {0};
  cr_assert_eq(ts_index_parse_json(json, sizeof json - 1, "https://h.example/simple/x/", "x", &p,
                                   &err), TS_E_PARSE);
  cr_expect_null(strchr(err.detail, '\x1b'), "%s", err.detail);
  cr_expect_not_null(strstr(err.detail, "x?[2J.whl"), "%s", err.detail);
}

Test(index_parse, remote_pages_cannot_link_local_files) {
  static const char *const pages[] = {
      "<a href=\"file:///etc/x-1.0-py3-none-any.whl\">x</a>",
      "<a href=\"FILE:///etc/x-1.0-py3-none-any.whl\">x</a>",
      "<base href=\"file:///etc/\"><a href=\"x-1.0-py3-none-any.whl\">x</a>",
  };
  for (size_t i = 0; i < sizeof pages / sizeof pages[0]; i++) {
    struct ts_index_project p;
    struct ts_error err = {0};
    cr_assert_eq(ts_index_parse_html(pages[i], strlen(pages[i]), "http://h.example/simple/x/",
                                     "x", &p, &err), TS_E_PARSE, "page %zu", i);
    cr_expect_not_null(strstr(err.detail, "local files"), "%s", err.detail);
  }
  static const char json[] =
      "{\"meta\":{\"api-version\":\"1.0\"},\"files\":[{\"filename\":\"x-1.0-py3-none-any.whl\","
      "\"url\":\"file:///etc/x-1.0-py3-none-any.whl\",\"hashes\":{}}]}";
  struct ts_index_project p;
  struct ts_error err = {0};
  cr_assert_eq(ts_index_parse_json(json, sizeof json - 1, "https://h.example/simple/x/", "x", &p,
                                   &err), TS_E_PARSE);
  /* a local index may of course link its own files */
  const char *local = pages[0];
  cr_assert_eq(ts_index_parse_html(local, strlen(local), "file:///srv/simple/x/", "x", &p, &err),
               TS_OK, "%s", err.detail);
  cr_expect_eq(p.nfiles, 1);
  ts_index_project_clear(&p);
}

Test(index_parse, flat_pages_keep_one_project) {
  struct ts_buf b = load(FIX "/flat.html");
  struct ts_index_project p;
  struct ts_error err = {0};
  cr_assert_eq(ts_index_parse_flat(b.data, b.len, "https://d.example/whl/torch_stable.html", "torch",
                                   &p, &err), TS_OK);
  cr_assert_eq(p.nfiles, 2);
  cr_expect_str_eq(p.files[0].url, "https://d.example/whl/torch-2.0.0-cp311-cp311-linux_x86_64.whl");
  cr_expect_str_eq(p.files[1].filename, "Torch-1.0.0.tar.gz");
  ts_index_project_clear(&p);
  ts_buf_clear(&b);
  if (!have_poetry())
    return;
  b = load(POETRY "/find_links/torch_stable.html");
  cr_assert_eq(ts_index_parse_flat(b.data, b.len, "https://download.pytorch.org/whl/torch_stable.html",
                                   "torch", &p, &err), TS_OK);
  cr_expect_gt(p.nfiles, 100);
  for (size_t i = 0; i < p.nfiles; i++)
    cr_expect(ts_index_filename_matches(p.files[i].filename, "torch"), "%s", p.files[i].filename);
  ts_index_project_clear(&p);
  ts_buf_clear(&b);
}

Test(index_parse, garbage_never_crashes) {
  /* Truncations of a hostile page at every length: parse or fail, never leak. */
  struct ts_buf b = load(FIX "/hostile.html");
  for (size_t n = 0; n <= b.len; n += 7) {
    struct ts_index_project p;
    struct ts_error err = {0};
    if (ts_index_parse_html(b.data, n, "https://h.example/simple/pkg/", "pkg", &p, &err) == TS_OK)
      ts_index_project_clear(&p);
  }
  ts_buf_clear(&b);
}

Test(index_url, redact) {
  char out[128];
  ts_url_redact_buf("https://user:secret@host.example:8443/simple/?q=1", out, sizeof out);
  cr_expect_str_eq(out, "https://***@host.example:8443/simple/?q=1");
  ts_url_redact_buf("https://__token__@h/x", out, sizeof out);
  cr_expect_str_eq(out, "https://***@h/x");
  ts_url_redact_buf("https://h/path@with-at", out, sizeof out);
  cr_expect_str_eq(out, "https://h/path@with-at");
  ts_url_redact_buf("not a url", out, sizeof out);
  cr_expect_str_eq(out, "not a url");
  ts_url_redact_buf("https://a:b@c/", out, 6);
  cr_expect_str_eq(out, "https");
  char *w = ts_url_without_userinfo("https://user:pw@host.example/simple/");
  cr_expect_str_eq(w, "https://host.example/simple/");
  free(w);
  w = ts_url_without_userinfo("https://host.example/a@b/");
  cr_expect_str_eq(w, "https://host.example/a@b/");
  free(w);
  /* the authority ends at '?' too: an '@' in the query is no userinfo */
  w = ts_url_without_userinfo("https://host.example?to=a@b");
  cr_expect_str_eq(w, "https://host.example?to=a@b");
  free(w);
  char *r = ts_url_redact("http://u:p@[::1]:80/");
  cr_expect_str_eq(r, "http://***@[::1]:80/");
  free(r);
}

Test(index_url, resolve) {
  const char *base = "https://h.example/simple/torch/";
  struct {
    const char *ref, *want;
  } cases[] = {
      {"../../packages/a/b/x.whl#sha256=00", "https://h.example/packages/a/b/x.whl"},
      {"x%2Bcu126.whl", "https://h.example/simple/torch/x%2Bcu126.whl"},
      {"/abs.whl", "https://h.example/abs.whl"},
      {"//cdn.example/y.whl", "https://cdn.example/y.whl"},
      {"http://other/z.whl", "http://other/z.whl"},
      {"?q=1", "https://h.example/simple/torch/?q=1"},
  };
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    char *out = NULL;
    struct ts_error err = {0};
    cr_assert_eq(ts_url_resolve(base, cases[i].ref, strlen(cases[i].ref), &out, &err), TS_OK,
                 "%s: %s", cases[i].ref, err.detail);
    cr_expect_str_eq(out, cases[i].want);
    free(out);
  }
  char *b = ts_url_basename("https://h/a/torch-2.5.1%2Bcu126-cp312.whl?x#y");
  cr_expect_str_eq(b, "torch-2.5.1+cu126-cp312.whl");
  free(b);
  cr_expect_null(ts_url_basename("https://h/dir/"));
  char *p = ts_url_file_path("file:///tmp/a%20b/simple/");
  cr_expect_str_eq(p, "/tmp/a b/simple/");
  free(p);
  cr_expect_null(ts_url_file_path("file://remote/x"));
  char *pp = ts_url_project_page("https://h/simple///", "torch");
  cr_expect_str_eq(pp, "https://h/simple/torch/");
  free(pp);
}

Test(index_url, normalize_and_match) {
  cr_expect(ts_index_filename_matches("foo_bar-1.0-py3-none-any.whl", "Foo.Bar"));
  cr_expect(ts_index_filename_matches("foo-bar-2.0.tar.gz", "foo-bar"));
  cr_expect_not(ts_index_filename_matches("foo-bar-2.0.tar.gz", "foo"));
  cr_expect_not(ts_index_filename_matches("foobar", "foobar"));
}

Test(index_url, unescape) {
  char *s = ts_index_html_unescape("&lt;&#x3e;&#62;&amp;&quot;&apos;&#0;&#x110000;&bogus;&#;",
                                   strlen("&lt;&#x3e;&#62;&amp;&quot;&apos;&#0;&#x110000;&bogus;&#;"));
  cr_expect_str_eq(s, "<>>&\"'\xEF\xBF\xBD\xEF\xBF\xBD&bogus;&#;");
  free(s);
}

/* The fast resolver must agree with libcurl's RFC 3986 resolution. */
#include "index/curl_lib.h"
Test(index_url, resolve_matches_libcurl) {
  struct ts_error lerr = {0};
  const struct ts_curl *curl = ts_curl_load(&lerr);
  cr_assert_not_null(curl, "%s", lerr.detail);
  const char *bases[] = {"https://h.example/simple/torch/", "http://h:8080/a/b/c",
                         "https://h.example/", "file:///srv/simple/pkg/", "https://h/x/y/?q=1"};
  const char *refs[] = {"a.whl", "./a.whl", "../a.whl", "../../a.whl", "../../../../a.whl",
                        "/a.whl", "/x/../y/./z.whl", "a/./b/../c.whl", ".", "..", "./", "../",
                        "a.whl?x=1&y=../2", "sub/..", "sub/.", "a%2Bb.whl",
                        "https://Other.example:443/p/../q.whl", "https://o.example", "http://o/a?b",
                        "?q", "//cdn/x.whl", "a..b.whl", "..a/b", "x/..y/z", "/", "/.."};
  for (size_t b = 0; b < sizeof bases / sizeof bases[0]; b++) {
    for (size_t r = 0; r < sizeof refs / sizeof refs[0]; r++) {
      CURLU *u = curl->url();
      char *want = NULL;
      if (curl->url_set(u, CURLUPART_URL, bases[b], CURLU_NON_SUPPORT_SCHEME) == CURLUE_OK &&
          curl->url_set(u, CURLUPART_URL, refs[r], CURLU_NON_SUPPORT_SCHEME) == CURLUE_OK)
        curl->url_get(u, CURLUPART_URL, &want, 0);
      curl->url_cleanup(u);
      char *got = NULL;
      struct ts_error err = {0};
      enum ts_code c = ts_url_resolve(bases[b], refs[r], strlen(refs[r]), &got, &err);
      cr_expect_eq(c == TS_OK, want != NULL, "%s + %s", bases[b], refs[r]);
      if (c == TS_OK && want)
        cr_expect_str_eq(got, want, "%s + %s: %s vs %s", bases[b], refs[r], got, want);
      free(got);
      curl->free(want);
    }
  }
}

/* ts_url_resolve_at with one prepared base per page: the same answers as
 * libcurl over the link shapes of real pages and the odd ones around
 * them (climbing above the root, dot and empty segments, queries,
 * fragments, a ':' in the first segment, every byte value). */
static void expect_like_libcurl(const struct ts_curl *curl, const struct ts_url_base *pb,
                                const char *base, const char *ref) {
  size_t rl = strlen(ref), nofrag = strcspn(ref, "#");
  char *bare = strndup(ref, nofrag);
  CURLU *u = curl->url();
  char *want = NULL;
  if (curl->url_set(u, CURLUPART_URL, base, CURLU_NON_SUPPORT_SCHEME) == CURLUE_OK &&
      curl->url_set(u, CURLUPART_URL, bare, CURLU_NON_SUPPORT_SCHEME) == CURLUE_OK)
    curl->url_get(u, CURLUPART_URL, &want, 0);
  curl->url_cleanup(u);
  char *got = NULL, *got_plain = NULL;
  struct ts_error err = {0};
  enum ts_code c = ts_url_resolve_at(pb, ref, rl, &got, &err);
  enum ts_code c2 = ts_url_resolve(base, ref, rl, &got_plain, &err);
  cr_expect_eq(c, c2, "%s + %s", base, ref);
  if (c == TS_OK && c2 == TS_OK)
    cr_expect_str_eq(got, got_plain, "%s + %s", base, ref);
  if (c == TS_OK && want)
    cr_expect_str_eq(got, want, "%s + %s: %s vs %s", base, ref, got, want);
  if (c == TS_OK)
    cr_expect_not_null(want, "%s + %s: %s, libcurl refuses", base, ref, got);
  free(got);
  free(got_plain);
  free(bare);
  curl->free(want);
}

Test(index_url, prepared_base_matches_libcurl) {
  struct ts_error lerr = {0};
  const struct ts_curl *curl = ts_curl_load(&lerr);
  cr_assert_not_null(curl, "%s", lerr.detail);
  const char *bases[] = {"http://127.0.0.1:8765/pypi/simple/torch/", "https://h.example/a/",
                         "https://h.example/", "http://h:80/a/b/c?d", "https://h/a/b",
                         "https://h/a/./b/", "https://h/a//b/", "file:///srv/simple/pkg/"};
  const char *climbs[] = {"", "./", "../", "../../", "../../../", "./../", ".././",
                          "../../../../../"};
  const char *middles[] = {"", "files/", "a/b/", "a//b/", "x/./", "x/../", ".h/", "a%2Fb/",
                           "n:x/", "/", "/x/", "//x/"};
  const char *names[] = {"t.whl", "torch-2.6.0%2Bcu126-cp39-cp39-manylinux_2_28_x86_64.whl",
                         ".", "..", "", "t.whl?x=1", "t.whl#sha256=ab", "t.whl?", "n:x.whl",
                         "t.whl/", ".t.whl", "t..whl"};
  char ref[256];
  for (size_t b = 0; b < sizeof bases / sizeof bases[0]; b++) {
    struct ts_url_base pb;
    ts_url_base_init(&pb, bases[b]);
    for (size_t c = 0; c < sizeof climbs / sizeof climbs[0]; c++)
      for (size_t m = 0; m < sizeof middles / sizeof middles[0]; m++)
        for (size_t n = 0; n < sizeof names / sizeof names[0]; n++) {
          snprintf(ref, sizeof ref, "%s%s%s", climbs[c], middles[m], names[n]);
          if (ref[0])
            expect_like_libcurl(curl, &pb, bases[b], ref);
        }
    for (int byte = 1; byte < 256; byte++) {
      snprintf(ref, sizeof ref, "../../files/a%cb.whl", byte);
      expect_like_libcurl(curl, &pb, bases[b], ref);
    }
  }
}

static void free_names(char **names, size_t n) {
  for (size_t i = 0; i < n; i++)
    free(names[i]);
  free(names);
}

Test(index_parse, root_project_list_html_and_json) {
  const char html[] = "<!DOCTYPE html><html><body>\n"
                      "<a href=\"/simple/requests/\">requests</a>\n"
                      "<!-- <a href=\"x/\">hidden</a> -->\n"
                      "<a href='/simple/zope-interface/'> Zope.Interface </a><br/>\n"
                      "<a href=\"/simple/a-b/\">A&amp;B</a></body></html>";
  char **names = NULL;
  size_t n = 0;
  cr_assert_eq(ts_index_parse_project_list(html, strlen(html), false, &names, &n, NULL), TS_OK);
  cr_assert_eq(n, 3);
  cr_assert_str_eq(names[0], "requests");
  cr_assert_str_eq(names[1], "zope-interface");
  cr_assert_str_eq(names[2], "a&b");
  free_names(names, n);
  const char json[] = "{\"meta\": {\"api-version\": \"1.1\"}, \"projects\": "
                      "[{\"name\": \"Pillow\"}, {\"name\": 7}, {\"name\": \"numpy\"}]}";
  cr_assert_eq(ts_index_parse_project_list(json, strlen(json), true, &names, &n, NULL), TS_OK);
  cr_assert_eq(n, 2);
  cr_assert_str_eq(names[0], "pillow");
  cr_assert_str_eq(names[1], "numpy");
  free_names(names, n);
  cr_assert_eq(ts_index_parse_project_list("{}", 2, true, &names, &n, NULL), TS_E_PARSE);
  cr_assert_eq(n, 0);
}
