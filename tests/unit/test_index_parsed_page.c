/* The binary form of a parsed page: it gives back exactly what the parser
 * gave, and anything damaged, of another version or for another page is
 * refused (the cache then parses the body again). */
#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>

#include "core/fs.h"
#include "index/parsed_page.h"
#include "index/simple.h"

#define FIX TS_FIXTURES_DIR "/index"
#define PAGE "https://h.example/simple/pkg/"

static void parse_fixture(const char *file, struct ts_index_project *p) {
  struct ts_buf b;
  ts_buf_init(&b, TS_CAP_INDEX_PAGE);
  struct ts_error err = {0};
  cr_assert_eq(ts_fs_read_file(file, &b, &err), TS_OK, "%s", err.detail);
  enum ts_code c = strstr(file, ".json") ? ts_index_parse_json(b.data, b.len, PAGE, "Pkg", p, &err)
                                         : ts_index_parse_html(b.data, b.len, PAGE, "Pkg", p, &err);
  cr_assert_eq(c, TS_OK, "%s", err.detail);
  ts_buf_clear(&b);
}

static void expect_same_str(const char *a, const char *b, const char *what, size_t i) {
  if (!a || !b)
    cr_expect(a == b, "file %zu: %s is %s / %s", i, what, a ? a : "(none)", b ? b : "(none)");
  else
    cr_expect_str_eq(a, b, "file %zu: %s", i, what);
}

static void expect_same(const struct ts_index_project *a, const struct ts_index_project *b) {
  cr_expect_str_eq(a->name, b->name);
  cr_expect_str_eq(a->index_url, b->index_url);
  cr_assert_eq(a->nfiles, b->nfiles);
  for (size_t i = 0; i < a->nfiles; i++) {
    const struct ts_index_file *x = &a->files[i], *y = &b->files[i];
    expect_same_str(x->filename, y->filename, "filename", i);
    expect_same_str(x->url, y->url, "url", i);
    expect_same_str(x->sha256, y->sha256, "sha256", i);
    expect_same_str(x->requires_python, y->requires_python, "requires_python", i);
    expect_same_str(x->yanked_reason, y->yanked_reason, "yanked_reason", i);
    expect_same_str(x->metadata_sha256, y->metadata_sha256, "metadata_sha256", i);
    expect_same_str(x->upload_time, y->upload_time, "upload_time", i);
    cr_expect_eq(x->yanked, y->yanked, "file %zu: yanked", i);
    cr_expect_eq(x->has_metadata, y->has_metadata, "file %zu: has_metadata", i);
    cr_expect_eq(x->size, y->size, "file %zu: size", i);
    cr_expect_null(y->index_url);
    cr_expect_not(y->from_find_links);
  }
}

static void encode(const struct ts_index_project *p, struct ts_buf *out) {
  ts_buf_init(out, 0);
  cr_assert_eq(ts_parsed_page_encode(p, PAGE, out), TS_OK);
}

Test(index_parsed_page, gives_back_what_the_parsers_gave) {
  const char *pages[] = {FIX "/good.json", FIX "/hostile.html", FIX "/base.html"};
  for (size_t k = 0; k < sizeof pages / sizeof pages[0]; k++) {
    struct ts_index_project parsed, back;
    parse_fixture(pages[k], &parsed);
    struct ts_buf form;
    encode(&parsed, &form);
    cr_assert_eq(ts_parsed_page_decode(form.data, form.len, PAGE, "pkg", &back), TS_OK, "%s",
                 pages[k]);
    expect_same(&parsed, &back);
    ts_index_project_clear(&back);
    ts_index_project_clear(&parsed);
    ts_buf_clear(&form);
  }
}

Test(index_parsed_page, an_empty_page) {
  struct ts_index_project p = {.name = "pkg", .index_url = PAGE}, back;
  struct ts_buf form;
  encode(&p, &form);
  cr_assert_eq(ts_parsed_page_decode(form.data, form.len, PAGE, "Pkg", &back), TS_OK);
  cr_expect_eq(back.nfiles, 0);
  cr_expect_str_eq(back.name, "pkg");
  ts_index_project_clear(&back);
  ts_buf_clear(&form);
}

static void expect_refused(const char *data, size_t len, const char *page, const char *name,
                           const char *why) {
  struct ts_index_project out;
  cr_expect_eq(ts_parsed_page_decode(data, len, page, name, &out), TS_E_PARSE, "%s", why);
  cr_expect_eq(out.nfiles, 0, "%s", why);
  cr_expect_null(out.files, "%s", why);
  cr_expect_null(out.name, "%s", why);
  cr_expect_null(out.index_url, "%s", why);
}

Test(index_parsed_page, damage_is_refused) {
  struct ts_index_project parsed;
  parse_fixture(FIX "/good.json", &parsed);
  struct ts_buf form;
  encode(&parsed, &form);
  /* every truncation, and anything after the end */
  for (size_t n = 0; n < form.len; n++)
    expect_refused(form.data, n, PAGE, "pkg", "truncated");
  char *longer = malloc(form.len + 1);
  memcpy(longer, form.data, form.len);
  longer[form.len] = 'x';
  expect_refused(longer, form.len + 1, PAGE, "pkg", "trailing byte");
  free(longer);
  expect_refused(NULL, 0, PAGE, "pkg", "no form at all");

  char *copy = malloc(form.len);
  /* another version: written by a torchsolve whose parsers differ */
  memcpy(copy, form.data, form.len);
  copy[4] ^= 0x40;
  expect_refused(copy, form.len, PAGE, "pkg", "other version");
  memcpy(copy, form.data, form.len);
  copy[0] = 'X';
  expect_refused(copy, form.len, PAGE, "pkg", "bad magic");
  /* a NUL inside a string: no parser makes one */
  memcpy(copy, form.data, form.len);
  char *fn = memmem(copy, form.len, "pkg-1.0-py3", 11);
  cr_assert_not_null(fn);
  fn[3] = '\0';
  expect_refused(copy, form.len, PAGE, "pkg", "NUL in a string");
  /* a string length past the end */
  memcpy(copy, form.data, form.len);
  fn = memmem(copy, form.len, "pkg-1.0-py3", 11);
  fn[-1] = 0x7f;
  expect_refused(copy, form.len, PAGE, "pkg", "length past the end");
  free(copy);

  /* another page or project: the form is for the page it was made from */
  expect_refused(form.data, form.len, "https://h.example/simple/other/", "pkg", "other page");
  expect_refused(form.data, form.len, PAGE, "other", "other project");
  ts_index_project_clear(&parsed);
  ts_buf_clear(&form);
}
