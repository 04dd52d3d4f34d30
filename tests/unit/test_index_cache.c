/* The on-disk cache: entry round trip, freshness, corruption, paths, clean. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/cacheroot.h"
#include "core/fs.h"
#include "index/cache.h"

static char *tmpdir(void) {
  char t[] = "/tmp/ts-cache-test.XXXXXX";
  char *d = mkdtemp(t);
  cr_assert_not_null(d);
  return strdup(d);
}

/* The folder of a flat entry (the layout before packs, still read). */
static void make_parent(const char *path) {
  char *dir = strdup(path);
  *strrchr(dir, '/') = '\0';
  cr_assert_eq(ts_fs_mkdirs(dir, NULL), TS_OK);
  free(dir);
}

static struct ts_cache_entry page_entry(const char *url) {
  struct ts_cache_entry e = {0};
  e.url = (char *)url;
  e.final_url = (char *)url;
  e.content_type = "text/html";
  e.stored_at = 5;
  e.max_age = 600;
  ts_buf_init(&e.body, 0);
  ts_buf_init(&e.parsed, 0);
  return e;
}

Test(index_cache, roundtrip_and_freshness) {
  char *root = tmpdir();
  struct ts_cache *c = ts_cache_open(root);
  char key[TS_SHA256_HEX_LEN + 1];
  ts_cache_page_key("https://h/simple/torchaudio/", "a", key);
  char *path = ts_cache_page_path(c, key);
  char want[128];
  snprintf(want, sizeof want, "/pages-v2/%c/%s", key[0], key);
  cr_expect(strstr(path, want) != NULL, "%s", path);
  struct ts_cache_entry e = {0};
  e.url = "https://h/simple/torchaudio/";
  e.final_url = "https://h/simple/torchaudio/";
  e.content_type = "text/html";
  e.etag = "\"abc\"";
  e.stored_at = 1000;
  e.max_age = 600;
  ts_buf_init(&e.body, 0);
  cr_assert_eq(ts_buf_append(&e.body, "<a>\0binary", 10), TS_OK);
  struct ts_error err = {0};
  cr_assert_eq(ts_cache_put_page(c, key, "torch-audio", &e, &err), TS_OK, "%s", err.detail);
  struct ts_cache_entry r;
  cr_assert_eq(ts_cache_get_page(c, key, 1024, &r, &err), TS_OK, "%s", err.detail);
  cr_expect_str_eq(r.etag, "\"abc\"");
  cr_expect_str_eq(r.project, "torch-audio");
  cr_expect_null(r.last_modified);
  cr_expect_eq(r.body.len, 10);
  cr_expect_eq(memcmp(r.body.data, "<a>\0binary", 10), 0);
  cr_expect(ts_cache_fresh(&r, 1599));
  cr_expect_not(ts_cache_fresh(&r, 1600));
  cr_expect_not(ts_cache_fresh(&r, 999)); /* clock went backwards */
  r.max_age = -1;
  cr_expect_not(ts_cache_fresh(&r, 1000));
  ts_cache_entry_clear(&r);
  /* the body cap applies on read */
  cr_expect_eq(ts_cache_get_page(c, key, 5, &r, &err), TS_E_PARSE);
  ts_buf_clear(&e.body);

  /* a later run reads it from the pack this one publishes on close */
  ts_cache_close(c);
  c = ts_cache_open(root);
  cr_assert_eq(ts_cache_get_page(c, key, 1024, &r, &err), TS_OK, "%s", err.detail);
  cr_expect_str_eq(r.etag, "\"abc\"");
  cr_expect_eq(memcmp(r.body.data, "<a>\0binary", 10), 0);
  ts_cache_entry_clear(&r);
  cr_expect_eq(ts_cache_get_page(c, key, 5, &r, &err), TS_E_PARSE);
  ts_buf_clear(&e.body);

  /* corrupt flat entries (an earlier version's layout, still read) are
   * reported, not trusted */
  make_parent(path);
  cr_assert_eq(ts_fs_write_atomic(path, "TSCACHE1 999\n{}", 15, &err), TS_OK);
  cr_expect_eq(ts_cache_read(path, 1024, &r, &err), TS_E_PARSE);
  cr_assert_eq(ts_fs_write_atomic(path, "garbage", 7, &err), TS_OK);
  cr_expect_eq(ts_cache_read(path, 1024, &r, &err), TS_E_PARSE);
  char *missing = ts_path_join(root, "nope");
  cr_expect_eq(ts_cache_read(missing, 1024, &r, &err), TS_E_NOT_FOUND);
  free(missing);
  char *flat = ts_path_join(root, "pages-v2");
  ts_fs_remove_tree(flat, NULL);
  free(flat);

  uint64_t bytes, files;
  cr_assert_eq(ts_cache_size(root, &bytes, &files, &err), TS_OK);
  cr_expect_eq(files, 1); /* the pack */
  size_t removed = 0;
  cr_assert_eq(ts_cache_clean(root, "torch.audio", &removed, &err), TS_OK, "%s", err.detail);
  cr_expect_eq(removed, 1);
  /* the root held only our folders: an earlier version's cache, now
   * marked; the marker is all that is left (a pack left empty goes) */
  cr_assert_eq(ts_cache_size(root, &bytes, &files, &err), TS_OK);
  cr_expect_eq(files, 1);
  free(path);
  cr_assert_eq(ts_cache_clean(root, NULL, &removed, &err), TS_OK, "%s", err.detail);
  cr_expect_eq(removed, 1);
  char *packs = ts_path_join(root, "packs-v1");
  cr_expect_neq(access(packs, F_OK), 0);
  cr_expect_eq(access(root, F_OK), 0);
  free(packs);
  ts_cache_close(c);
  ts_fs_remove_tree(root, NULL);
  free(root);
}

/* A run that found a kind's folder missing knows every entry of it is
 * absent unless it wrote it: nothing is looked for.  A run opened later
 * finds what was written. */
Test(index_cache, known_absent_until_written) {
  char *root = tmpdir();
  struct ts_cache *c = ts_cache_open(root);
  char k1[TS_SHA256_HEX_LEN + 1], k2[TS_SHA256_HEX_LEN + 1];
  ts_cache_page_key("https://h/simple/a/", "x", k1);
  ts_cache_page_key("https://h/simple/b/", "x", k2);
  struct ts_cache_entry e = page_entry("https://h/simple/a/");
  struct ts_error err = {0};
  cr_assert_eq(ts_cache_put_page(c, k1, "a", &e, &err), TS_OK, "%s", err.detail);
  /* b written behind this run's back is not looked for... */
  struct ts_cache *other = ts_cache_open(root);
  cr_assert_eq(ts_cache_put_page(other, k2, "b", &e, &err), TS_OK, "%s", err.detail);
  struct ts_cache_entry r;
  cr_expect_eq(ts_cache_get_page(c, k2, 1024, &r, &err), TS_E_NOT_FOUND);
  cr_assert_eq(ts_cache_get_page(c, k1, 1024, &r, &err), TS_OK, "%s", err.detail);
  ts_cache_entry_clear(&r);
  ts_cache_close(other);
  /* ...by the run that began before the folder existed; a new run finds it */
  struct ts_cache *later = ts_cache_open(root);
  cr_assert_eq(ts_cache_get_page(later, k2, 1024, &r, &err), TS_OK, "%s", err.detail);
  ts_cache_entry_clear(&r);
  /* METADATA: the same, and whole wheels until a download */
  char mk[TS_SHA256_HEX_LEN + 1];
  ts_cache_file_key("ABCDEF0123456789abcdef0123456789abcdef0123456789abcdef0123456789", NULL, mk);
  cr_expect_str_eq(mk, "abcdef0123456789abcdef0123456789abcdef0123456789abcdef0123456789");
  const char md[] = "Metadata-Version: 2.1\nName: Torch_Audio\nVersion: 1\n\nbody\n";
  struct ts_buf b;
  ts_buf_init(&b, 4096);
  cr_expect_eq(ts_cache_get_metadata(c, mk, &b, &err), TS_E_NOT_FOUND);
  cr_assert_eq(ts_cache_put_metadata(c, mk, md, sizeof md - 1, &err), TS_OK, "%s", err.detail);
  cr_assert_eq(ts_cache_get_metadata(c, mk, &b, &err), TS_OK, "%s", err.detail);
  cr_expect_eq(b.len, sizeof md - 1);
  ts_buf_clear(&b);
  cr_expect_not(ts_cache_may_hold_wheels(c));
  ts_cache_note_download(c);
  cr_expect(ts_cache_may_hold_wheels(c));
  /* `cache clean NAME` finds METADATA by its Name, in published packs */
  ts_cache_close(c);
  size_t removed = 0;
  cr_assert_eq(ts_cache_clean(root, "torch-audio", &removed, &err), TS_OK, "%s", err.detail);
  cr_expect_eq(removed, 1);
  struct ts_cache *after = ts_cache_open(root);
  ts_buf_init(&b, 4096);
  cr_expect_eq(ts_cache_get_metadata(after, mk, &b, &err), TS_E_NOT_FOUND);
  cr_assert_eq(ts_cache_get_page(after, k1, 1024, &r, &err), TS_OK, "%s", err.detail);
  ts_cache_entry_clear(&r);
  ts_buf_clear(&b);
  /* a key that is not a sha256 never names an entry */
  cr_expect_eq(ts_cache_put_metadata(after, "../x", md, 1, &err), TS_E_INVALID);
  ts_cache_close(after);
  ts_cache_close(later);
  ts_buf_clear(&e.body);
  ts_buf_clear(&e.parsed);
  ts_fs_remove_tree(root, NULL);
  free(root);
}

/* The parsed form is stored with the body, in the same file; entries of
 * the first format (no parsed form) are still read; a header whose
 * lengths do not fit the file is damage. */
Test(index_cache, parsed_form_beside_the_body) {
  char *root = tmpdir();
  struct ts_cache *c = ts_cache_open(root);
  char key[TS_SHA256_HEX_LEN + 1];
  ts_cache_page_key("https://h/simple/p/", "a", key);
  char *path = ts_cache_page_path(c, key);
  struct ts_cache_entry e = page_entry("https://h/simple/p/");
  cr_assert_eq(ts_buf_append(&e.body, "<a>body</a>", 11), TS_OK);
  cr_assert_eq(ts_buf_append(&e.parsed, "TSPF\0form", 9), TS_OK);
  struct ts_error err = {0};
  cr_assert_eq(ts_cache_put_page(c, key, "p", &e, &err), TS_OK, "%s", err.detail);
  /* written again: one pack, never a leftover temporary */
  cr_assert_eq(ts_cache_put_page(c, key, "p", &e, &err), TS_OK, "%s", err.detail);
  ts_cache_close(c);
  uint64_t bytes, files;
  char *pages = ts_path_join(root, "packs-v1");
  cr_assert_eq(ts_cache_size(pages, &bytes, &files, &err), TS_OK);
  cr_expect_eq(files, 1);
  c = ts_cache_open(root);
  struct ts_cache_entry r;
  cr_assert_eq(ts_cache_get_page(c, key, 1024, &r, &err), TS_OK, "%s", err.detail);
  cr_expect_eq(r.body.len, 11);
  cr_expect_str_eq(r.body.data, "<a>body</a>");
  cr_expect_eq(r.parsed.len, 9);
  cr_expect_eq(memcmp(r.parsed.data, "TSPF\0form", 9), 0);
  cr_expect_str_eq(r.content_type, "text/html");
  cr_expect_eq(r.max_age, 600);
  ts_cache_entry_clear(&r);
  /* the cap applies to the form too */
  cr_expect_eq(ts_cache_get_page(c, key, 10, &r, &err), TS_E_PARSE);
  make_parent(path);

  /* an entry of the first format: no form, the body after the metadata */
  static const char v1[] = "TSCACHE1 49\n{\"url\":\"https://h/x/\",\"final_url\":\"https://h/x/\"}"
                           "<a>old</a>";
  cr_assert_eq(ts_fs_write_atomic(path, v1, sizeof v1 - 1, &err), TS_OK);
  cr_assert_eq(ts_cache_read(path, 1024, &r, &err), TS_OK, "%s", err.detail);
  cr_expect_eq(r.parsed.len, 0);
  cr_expect_str_eq(r.body.data, "<a>old</a>");
  cr_expect_str_eq(r.final_url, "https://h/x/");
  ts_cache_entry_clear(&r);

  /* damaged headers: a form longer than the file, a missing length, a
   * length that is not a number, an unknown format */
  static const char *const bad[] = {
      "TSCACHE2 49 999\n{\"url\":\"https://h/x/\",\"final_url\":\"https://h/x/\"}",
      "TSCACHE2 49\n{\"url\":\"https://h/x/\",\"final_url\":\"https://h/x/\"}",
      "TSCACHE2 49 x\n{\"url\":\"https://h/x/\",\"final_url\":\"https://h/x/\"}",
      "TSCACHE9 49 0\n{\"url\":\"https://h/x/\",\"final_url\":\"https://h/x/\"}",
  };
  for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
    cr_assert_eq(ts_fs_write_atomic(path, bad[i], strlen(bad[i]), &err), TS_OK);
    cr_expect_eq(ts_cache_read(path, 1024, &r, &err), TS_E_PARSE, "%s", bad[i]);
  }
  ts_buf_clear(&e.body);
  ts_buf_clear(&e.parsed);
  ts_cache_close(c);
  ts_fs_remove_tree(root, NULL);
  free(pages);
  free(path);
  free(root);
}

/* Cleaning deletes only what torchsolve created. */
Test(index_cache, clean_only_what_is_ours) {
  char *root = tmpdir();
  struct ts_error err = {0};
  char *mine = ts_path_join(root, "notes.txt");
  char *pages = ts_path_join(root, "pages-v1/p");
  cr_assert_eq(ts_fs_write_atomic(mine, "x", 1, &err), TS_OK);
  cr_assert_eq(ts_fs_mkdirs(pages, &err), TS_OK);
  /* not marked, and not only ours: refused, nothing deleted, never marked */
  cr_expect_eq(ts_cache_clean(root, NULL, NULL, &err), TS_E_INVALID);
  cr_expect(strstr(err.detail, "is not a torchsolve cache"), "%s", err.detail);
  cr_expect_eq(ts_cache_clean(root, "p", NULL, &err), TS_E_INVALID);
  cr_expect_eq(access(pages, F_OK), 0);
  cr_expect_not(ts_cache_root_prepare(root));
  /* another tool's CACHEDIR.TAG does not make it ours */
  char *tag = ts_path_join(root, TS_CACHE_MARKER);
  const char other[] = "Signature: 8a477f597d28d172789f06886806bc55\n# by cargo\n";
  cr_assert_eq(ts_fs_write_atomic(tag, other, sizeof other - 1, &err), TS_OK);
  unlink(mine);
  cr_expect_eq(ts_cache_clean(root, NULL, NULL, &err), TS_E_INVALID);
  /* a root torchsolve creates is marked; then a stranger's file inside
   * is left alone by clean */
  unlink(tag);
  ts_fs_remove_tree(root, NULL);
  cr_assert(ts_cache_root_prepare(root));
  cr_assert_eq(ts_fs_mkdirs(pages, &err), TS_OK);
  cr_assert_eq(ts_fs_write_atomic(mine, "x", 1, &err), TS_OK);
  size_t removed = 9;
  cr_expect_eq(ts_cache_clean(root, "q", &removed, &err), TS_OK, "%s", err.detail);
  cr_expect_eq(removed, 0);
  cr_expect_eq(ts_cache_clean(root, NULL, &removed, &err), TS_OK, "%s", err.detail);
  cr_expect_eq(removed, 1);
  cr_expect_neq(access(pages, F_OK), 0);
  cr_expect_eq(access(mine, F_OK), 0);
  cr_expect_eq(access(tag, F_OK), 0);
  ts_fs_remove_tree(root, NULL);
  cr_expect_eq(ts_cache_clean(root, NULL, NULL, &err), TS_E_NOT_FOUND);
  free(tag);
  free(mine);
  free(pages);
  free(root);
}

/* An entry whose URL carries user:password@ is readable by its owner only. */
Test(index_cache, entries_with_credentials_are_private) {
  char *root = tmpdir();
  const char *urls[] = {"https://h/simple/a/", "https://u:s3cret@h/simple/b/",
                        "https://h/simple/c/"};
  const char *finals[] = {NULL, NULL, "https://u:s3cret@mirror/simple/c/"};
  for (size_t i = 0; i < 3; i++) {
    struct ts_cache *c = ts_cache_open(root);
    char key[TS_SHA256_HEX_LEN + 1];
    ts_cache_page_key(urls[i], "a", key);
    struct ts_cache_entry e = {.url = (char *)urls[i], .final_url = (char *)finals[i],
                               .stored_at = 1, .max_age = 1};
    ts_buf_init(&e.body, 0);
    struct ts_error err = {0};
    cr_assert_eq(ts_cache_put_page(c, key, "p", &e, &err), TS_OK, "%s", err.detail);
    ts_cache_close(c);
    /* the run's pack holds it */
    char *packs = ts_path_join(root, "packs-v1");
    uint64_t bytes, files;
    cr_assert_eq(ts_cache_size(packs, &bytes, &files, &err), TS_OK);
    cr_assert_eq(files, 1);
    char cmd[512];
    snprintf(cmd, sizeof cmd, "stat -c %%a %s/*.pack", packs);
    FILE *f = popen(cmd, "r");
    unsigned mode = 0;
    cr_assert_eq(fscanf(f, "%o", &mode), 1);
    pclose(f);
    if (i == 0)
      cr_expect_eq(mode & 044, 044 & ~umask(umask(0)), "mode %o", mode);
    else
      cr_expect_eq(mode & 077, 0, "%s: mode %o", urls[i], mode);
    ts_fs_remove_tree(packs, NULL);
    free(packs);
  }
  ts_fs_remove_tree(root, NULL);
  free(root);
}

static void put_body(const char *root, const char *key, const char *body) {
  struct ts_cache *c = ts_cache_open(root);
  struct ts_cache_entry e = page_entry("https://h/simple/m/");
  cr_assert_eq(ts_buf_append(&e.body, body, strlen(body)), TS_OK);
  struct ts_error err = {0};
  cr_assert_eq(ts_cache_put_page(c, key, "m", &e, &err), TS_OK, "%s", err.detail);
  ts_cache_close(c);
  ts_buf_clear(&e.body);
}

static char *get_body(const char *root, const char *key) {
  struct ts_cache *c = ts_cache_open(root);
  struct ts_cache_entry r;
  char *body = ts_cache_get_page(c, key, 1024, &r, NULL) == TS_OK ? strdup(r.body.data) : NULL;
  if (body)
    ts_cache_entry_clear(&r);
  ts_cache_close(c);
  return body;
}

static uint64_t files_in(const char *root, const char *sub) {
  char *d = ts_path_join(root, sub);
  uint64_t bytes = 0, files = 0;
  cr_assert_eq(ts_cache_size(d, &bytes, &files, NULL), TS_OK);
  free(d);
  return files;
}

/* One pack per run that stores something; the newest entry of a key
 * wins; the run that finds 8 packs merges them into its own; a pack
 * whose index does not check out is ignored whole; flat entries of the
 * earlier layout are still read. */
Test(index_cache, packs_merge_and_newest_wins) {
  char *root = tmpdir();
  char key[TS_SHA256_HEX_LEN + 1], other[TS_SHA256_HEX_LEN + 1];
  ts_cache_page_key("https://h/simple/m/", "a", key);
  ts_cache_page_key("https://h/simple/n/", "a", other);
  put_body(root, other, "kept");
  char body[32];
  for (int i = 1; i < 8; i++) {
    snprintf(body, sizeof body, "v%d", i);
    put_body(root, key, body);
  }
  cr_expect_eq(files_in(root, "packs-v1"), 8);
  char *got = get_body(root, key);
  cr_expect_str_eq(got, "v7");
  free(got);
  put_body(root, key, "v8"); /* found 8: merges them */
  cr_expect_eq(files_in(root, "packs-v1"), 1);
  got = get_body(root, key);
  cr_expect_str_eq(got, "v8");
  free(got);
  got = get_body(root, other);
  cr_expect_str_eq(got, "kept");
  free(got);
  /* a damaged index: the pack is ignored, nothing read from it */
  char cmd[512];
  snprintf(cmd, sizeof cmd, "printf X | dd of=$(ls %s/packs-v1/*.pack) bs=1 seek=100 "
           "conv=notrunc 2>/dev/null; f=$(ls %s/packs-v1/*.pack); "
           "printf X | dd of=$f bs=1 seek=$(($(stat -c %%s $f) - 40)) conv=notrunc 2>/dev/null",
           root, root);
  cr_assert_eq(system(cmd), 0);
  got = get_body(root, key);
  cr_expect_null(got);
  /* an entry of the flat layout is read when no pack has it */
  struct ts_cache *c = ts_cache_open(root);
  char *flat = ts_cache_page_path(c, key);
  ts_cache_close(c);
  make_parent(flat);
  static const char v1[] = "TSCACHE1 63\n{\"url\":\"https://h/simple/m/\",\"final_url\":\"https://h/simple/m/\"}"
                           "flat";
  cr_assert_eq(ts_fs_write_atomic(flat, v1, sizeof v1 - 1, NULL), TS_OK);
  got = get_body(root, key);
  cr_expect_str_eq(got, "flat");
  free(got);
  free(flat);
  ts_fs_remove_tree(root, NULL);
  free(root);
}

Test(index_cache, hostile_names_stay_inside) {
  char *p = ts_cache_wheel_path("/c", "../../etc", NULL, "https://h/x.whl", "../passwd");
  cr_expect(strncmp(p, "/c/wheels-v1/-_-_etc/", 21) == 0, "%s", p); /* PEP 503, then made safe */
  cr_expect(strcmp(strrchr(p, '/'), "/wheel.whl") == 0, "%s", p);
  cr_expect(strstr(p, "/../") == NULL, "%s", p);
  free(p);
}

Test(index_cache, default_dir) {
  setenv("TORCHSOLVE_CACHE_DIR", "/x/ts", 1);
  char *d = ts_cache_root_dir();
  cr_expect_str_eq(d, "/x/ts");
  free(d);
  unsetenv("TORCHSOLVE_CACHE_DIR");
  setenv("XDG_CACHE_HOME", "/xdg", 1);
  d = ts_cache_root_dir();
  cr_expect_str_eq(d, "/xdg/torchsolve");
  free(d);
  unsetenv("XDG_CACHE_HOME");
  setenv("HOME", "/home/u", 1);
  d = ts_cache_root_dir();
  cr_expect_str_eq(d, "/home/u/.cache/torchsolve");
  free(d);
}

Test(index_cache, lock) {
  char *root = tmpdir();
  char *p = ts_path_join(root, "sub/file");
  int fd = -1;
  struct ts_error err = {0};
  cr_assert_eq(ts_cache_lock(p, &fd, &err), TS_OK, "%s", err.detail);
  cr_expect_geq(fd, 0);
  ts_cache_unlock(fd);
  free(p);
  ts_fs_remove_tree(root, NULL);
  free(root);
}
