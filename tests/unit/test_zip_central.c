/* ts_zip: end records from a tail (and "need more"), ZIP64, members from a
 * range buffer and from an fd (whole and streamed), and every strictness
 * rule: duplicates, overlaps, lying sizes, bad CRCs, encryption, NUL names,
 * truncation, data appended after the end record. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <zlib.h>

#include "zip/zip.h"

struct zent {
  const char *name;
  size_t name_len;   /* 0: strlen(name) */
  const char *data;
  size_t len;
  int deflate;
  uint16_t flags;
  uint32_t crc_xor;  /* corrupts the recorded CRC */
  int64_t usize_delta;
  int64_t offset_override; /* >= 0: local header offset written in the CD */
};

struct zbuf {
  unsigned char *p;
  size_t len, cap;
};

static void put(struct zbuf *b, const void *d, size_t n) {
  if (b->len + n > b->cap) {
    b->cap = (b->len + n) * 2 + 64;
    b->p = realloc(b->p, b->cap);
    cr_assert(b->p);
  }
  memcpy(b->p + b->len, d, n);
  b->len += n;
}
static void u16(struct zbuf *b, uint32_t v) {
  unsigned char x[2] = {v & 0xff, (v >> 8) & 0xff};
  put(b, x, 2);
}
static void u32(struct zbuf *b, uint32_t v) {
  u16(b, v & 0xffff);
  u16(b, v >> 16);
}
static void u64(struct zbuf *b, uint64_t v) {
  u32(b, (uint32_t)v);
  u32(b, (uint32_t)(v >> 32));
}

/* Builds an archive; zip64 != 0 writes ZIP64 end records too. */
static struct zbuf build(const struct zent *e, size_t n, int zip64) {
  struct zbuf b = {0}, cd = {0};
  for (size_t i = 0; i < n; i++) {
    size_t nl = e[i].name_len ? e[i].name_len : strlen(e[i].name);
    unsigned char *comp = NULL;
    uLongf clen = e[i].len;
    if (e[i].deflate) {
      z_stream z = {0};
      deflateInit2(&z, 6, Z_DEFLATED, -15, 8, Z_DEFAULT_STRATEGY);
      clen = deflateBound(&z, e[i].len);
      comp = malloc(clen + 1);
      z.next_in = (unsigned char *)e[i].data;
      z.avail_in = (uInt)e[i].len;
      z.next_out = comp;
      z.avail_out = (uInt)clen;
      cr_assert_eq(deflate(&z, Z_FINISH), Z_STREAM_END);
      clen = z.total_out;
      deflateEnd(&z);
    }
    uint32_t crc = (uint32_t)crc32(0, (const Bytef *)e[i].data, (uInt)e[i].len) ^ e[i].crc_xor;
    uint32_t us = (uint32_t)((int64_t)e[i].len + e[i].usize_delta);
    size_t off = b.len;
    u32(&b, 0x04034b50); u16(&b, 20); u16(&b, e[i].flags); u16(&b, e[i].deflate ? 8 : 0);
    u16(&b, 0); u16(&b, 0); u32(&b, crc); u32(&b, (uint32_t)clen); u32(&b, us);
    u16(&b, (uint32_t)nl); u16(&b, 0);
    put(&b, e[i].name, nl);
    put(&b, e[i].deflate ? (const void *)comp : (const void *)e[i].data, clen);
    free(comp);
    u32(&cd, 0x02014b50); u16(&cd, 0x0314); u16(&cd, 20); u16(&cd, e[i].flags);
    u16(&cd, e[i].deflate ? 8 : 0); u16(&cd, 0); u16(&cd, 0); u32(&cd, crc);
    u32(&cd, (uint32_t)clen); u32(&cd, us); u16(&cd, (uint32_t)nl); u16(&cd, 0);
    u16(&cd, 0); u16(&cd, 0); u16(&cd, 0); u32(&cd, 0100644u << 16);
    u32(&cd, e[i].offset_override >= 0 && e[i].offset_override != 0
                 ? (uint32_t)e[i].offset_override : (uint32_t)off);
    put(&cd, e[i].name, nl);
  }
  size_t cd_off = b.len;
  put(&b, cd.p, cd.len);
  if (zip64) {
    size_t rec = b.len;
    u32(&b, 0x06064b50); u64(&b, 44); u16(&b, 45); u16(&b, 45); u32(&b, 0); u32(&b, 0);
    u64(&b, n); u64(&b, n); u64(&b, cd.len); u64(&b, cd_off);
    u32(&b, 0x07064b50); u32(&b, 0); u64(&b, rec); u32(&b, 1);
    u32(&b, 0x06054b50); u16(&b, 0); u16(&b, 0); u16(&b, 0xffff); u16(&b, 0xffff);
    u32(&b, 0xffffffffu); u32(&b, 0xffffffffu); u16(&b, 0);
  } else {
    u32(&b, 0x06054b50); u16(&b, 0); u16(&b, 0); u16(&b, (uint32_t)n); u16(&b, (uint32_t)n);
    u32(&b, (uint32_t)cd.len); u32(&b, (uint32_t)cd_off); u16(&b, 0);
  }
  free(cd.p);
  return b;
}

static enum ts_code open_buf(const struct zbuf *b, struct ts_zip_archive **a,
                             struct ts_error *err) {
  return ts_zip_open_tail(b->p, b->len, b->len, a, err);
}

static char big_text[300000];

static void init_big(void) {
  for (size_t i = 0; i < sizeof big_text; i++)
    big_text[i] = (char)('a' + (i * 7 + i / 13) % 26);
}

Test(zip, locate_and_read_from_a_tail) {
  init_big();
  struct zent e[] = {
      {.name = "pkg/__init__.py", .data = "x = 1\n", .len = 6},
      {.name = "pkg-1.0.dist-info/METADATA", .data = big_text, .len = sizeof big_text, .deflate = 1},
      {.name = "empty", .data = "", .len = 0, .deflate = 1},
  };
  struct zbuf b = build(e, 3, 0);
  struct ts_error err = {0};
  struct ts_zip_location loc;
  /* a 10-byte tail cannot hold the end record: ask for the maximum window */
  cr_assert_eq(ts_zip_locate(b.p + b.len - 10, 10, b.len, &loc, &err), TS_OK);
  cr_assert(!loc.complete);
  cr_assert_eq(loc.need_from, 0); /* archive shorter than the max window */
  /* a tail holding the EOCD but not the whole directory */
  size_t t = 30;
  cr_assert_eq(ts_zip_locate(b.p + b.len - t, t, b.len, &loc, &err), TS_OK, "%s", err.detail);
  cr_assert(!loc.complete);
  cr_assert_lt(loc.need_from, b.len - t);
  /* the window grows until the directory is in it (at most: locator, CD) */
  size_t need = t;
  int rounds = 0;
  while (!loc.complete) {
    cr_assert_lt(++rounds, 4);
    need = b.len - (size_t)loc.need_from;
    cr_assert_eq(ts_zip_locate(b.p + b.len - need, need, b.len, &loc, &err), TS_OK);
  }
  cr_assert_eq(need, b.len - loc.cd_offset);
  cr_assert_eq(loc.entries, 3);
  struct ts_zip_archive *a = NULL;
  cr_assert_eq(ts_zip_open_tail(b.p + b.len - need, need, b.len, &a, &err), TS_OK, "%s", err.detail);
  cr_assert_eq(a->count, 3);
  /* short tail to open_tail: a clear error, not a crash */
  struct ts_zip_archive *a2 = NULL;
  cr_assert_eq(ts_zip_open_tail(b.p + b.len - 30, 30, b.len, &a2, &err), TS_E_INVALID);
  const struct ts_zip_entry *m = ts_zip_find(a, "pkg-1.0.dist-info/METADATA", 26);
  cr_assert(m);
  cr_assert_null(ts_zip_find(a, "pkg-1.0.dist-info/META", 22));
  uint64_t s, end;
  ts_zip_entry_span(m, &s, &end);
  /* the range response: exactly the span */
  struct ts_buf out;
  ts_buf_init(&out, 1u << 20);
  cr_assert_eq(ts_zip_read_member_buf(m, b.p + s, (size_t)(end - s), s, &out, &err), TS_OK, "%s", err.detail);
  cr_assert_eq(out.len, sizeof big_text);
  cr_assert(memcmp(out.data, big_text, out.len) == 0);
  /* a range that misses the end of the data */
  ts_buf_reset(&out);
  cr_assert_eq(ts_zip_read_member_buf(m, b.p + s, (size_t)(end - s) - 1, s, &out, &err), TS_E_INVALID);
  /* the output cap applies */
  struct ts_buf small;
  ts_buf_init(&small, 1000);
  cr_assert_eq(ts_zip_read_member_buf(m, b.p + s, (size_t)(end - s), s, &small, &err), TS_E_TOO_BIG);
  const struct ts_zip_entry *em = ts_zip_find(a, "empty", 5);
  ts_buf_reset(&out);
  ts_zip_entry_span(em, &s, &end);
  cr_assert_eq(ts_zip_read_member_buf(em, b.p + s, (size_t)(end - s), s, &out, &err), TS_OK);
  cr_assert_eq(out.len, 0);
  ts_buf_clear(&out);
  ts_buf_clear(&small);
  ts_zip_close(a);
  free(b.p);
}

Test(zip, zip64_end_records) {
  struct zent e[] = {{.name = "a", .data = "hello", .len = 5},
                     {.name = "b", .data = "world", .len = 5, .deflate = 1}};
  struct zbuf b = build(e, 2, 1);
  struct ts_error err = {0};
  struct ts_zip_location loc;
  /* tail with the EOCD and locator but not the ZIP64 record */
  cr_assert_eq(ts_zip_locate(b.p + b.len - 42, 42, b.len, &loc, &err), TS_OK, "%s", err.detail);
  cr_assert(!loc.complete);
  struct ts_zip_archive *a = NULL;
  cr_assert_eq(open_buf(&b, &a, &err), TS_OK, "%s", err.detail);
  cr_assert_eq(a->count, 2);
  cr_assert_eq(a->total_usize, 10);
  ts_zip_close(a);
  free(b.p);
}

static enum ts_code collect(void *ctx, const void *d, size_t n, struct ts_error *err) {
  (void)err;
  struct ts_buf *b = ctx;
  return ts_buf_append(b, d, n);
}

Test(zip, extract_from_fd_whole_and_streamed) {
  init_big();
  struct zent e[] = {{.name = "big.txt", .data = big_text, .len = sizeof big_text, .deflate = 1},
                     {.name = "big.raw", .data = big_text, .len = sizeof big_text}};
  struct zbuf b = build(e, 2, 0);
  char path[] = "/tmp/ts-zip-test-XXXXXX";
  int fd = mkstemp(path);
  cr_assert_geq(fd, 0);
  cr_assert_eq(write(fd, b.p, b.len), (ssize_t)b.len);
  unlink(path);
  struct ts_error err = {0};
  struct ts_zip_archive *a = NULL;
  cr_assert_eq(ts_zip_open_fd(fd, &a, &err), TS_OK, "%s", err.detail);
  close(fd); /* the archive keeps its own descriptor */
  for (int whole = 0; whole < 2; whole++) {
    struct ts_zip_scratch sc = {.whole_max = whole ? 0 : 1000};
    for (size_t i = 0; i < a->count; i++) {
      struct ts_buf out;
      ts_buf_init(&out, 0);
      cr_assert_eq(ts_zip_extract(a, &a->entries[i], &sc, collect, &out, &err), TS_OK, "%s", err.detail);
      cr_assert_eq(out.len, sizeof big_text);
      cr_assert(memcmp(out.data, big_text, out.len) == 0);
      ts_buf_clear(&out);
    }
    ts_zip_scratch_clear(&sc);
  }
  ts_zip_close(a);
  free(b.p);
}

/* Opens from a file and extracts everything; returns the first failure. */
static enum ts_code open_and_extract(const struct zbuf *b, size_t whole_max, struct ts_error *err) {
  char path[] = "/tmp/ts-zip-test-XXXXXX";
  int fd = mkstemp(path);
  cr_assert_geq(fd, 0);
  cr_assert_eq(write(fd, b->p, b->len), (ssize_t)b->len);
  unlink(path);
  struct ts_zip_archive *a = NULL;
  enum ts_code rc = ts_zip_open_fd(fd, &a, err);
  close(fd);
  struct ts_zip_scratch sc = {.whole_max = whole_max};
  for (size_t i = 0; rc == TS_OK && i < a->count; i++) {
    struct ts_buf out;
    ts_buf_init(&out, 0);
    rc = ts_zip_extract(a, &a->entries[i], &sc, collect, &out, err);
    ts_buf_clear(&out);
  }
  ts_zip_scratch_clear(&sc);
  ts_zip_close(a);
  return rc;
}

Test(zip, hostile_archives) {
  init_big();
  struct ts_error err = {0};
  struct ts_zip_archive *a = NULL;
  struct {
    const char *what;
    struct zent e[2];
    size_t n;
    enum ts_code want;
    const char *msg;
  } cases[] = {
      {"duplicate", {{.name = "a", .data = "1", .len = 1}, {.name = "a", .data = "2", .len = 1}}, 2, TS_E_BAD_WHEEL, "two entries"},
      {"encrypted", {{.name = "a", .data = "1", .len = 1, .flags = 1}}, 1, TS_E_BAD_WHEEL, "encrypted"},
      {"nul in name", {{.name = "a\0b", .name_len = 3, .data = "1", .len = 1}}, 1, TS_E_BAD_WHEEL, "NUL"},
      {"overlap", {{.name = "a", .data = "11111", .len = 5}, {.name = "b", .data = "2", .len = 1, .offset_override = 1}}, 2, TS_E_BAD_WHEEL, "overlaps"},
  };
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    struct zbuf b = build(cases[i].e, cases[i].n, 0);
    memset(&err, 0, sizeof err);
    cr_assert_eq(open_buf(&b, &a, &err), cases[i].want, "%s: %s", cases[i].what, err.detail);
    cr_assert(strstr(err.detail, cases[i].msg), "%s: %s", cases[i].what, err.detail);
    cr_assert_null(a);
    free(b.p);
  }
  /* member-level lies, for the whole-member and the streamed paths */
  struct {
    const char *what;
    struct zent e;
    const char *msg;
  } lies[] = {
      {"bad crc", {.name = "a", .data = big_text, .len = 5000, .deflate = 1, .crc_xor = 1}, "CRC"},
      {"bad crc stored", {.name = "a", .data = big_text, .len = 5000, .crc_xor = 4}, "CRC"},
      {"usize too small", {.name = "a", .data = big_text, .len = 5000, .deflate = 1, .usize_delta = -1}, "more than"},
      {"usize too large", {.name = "a", .data = big_text, .len = 5000, .deflate = 1, .usize_delta = 7}, "lie"},
  };
  for (size_t i = 0; i < sizeof lies / sizeof lies[0]; i++) {
    struct zbuf b = build(&lies[i].e, 1, 0);
    for (int whole = 0; whole < 2; whole++) {
      memset(&err, 0, sizeof err);
      cr_assert_eq(open_and_extract(&b, whole ? 0 : 100, &err), TS_E_BAD_WHEEL, "%s: %s", lies[i].what, err.detail);
      cr_assert(strstr(err.detail, lies[i].msg), "%s (whole=%d): %s", lies[i].what, whole, err.detail);
    }
    free(b.p);
  }
  /* truncation and appended data */
  struct zent ok[] = {{.name = "a", .data = big_text, .len = 4000, .deflate = 1}};
  struct zbuf b = build(ok, 1, 0);
  cr_assert_eq(open_buf(&b, &a, &err), TS_OK);
  ts_zip_close(a);
  a = NULL;
  cr_assert_eq(ts_zip_open_tail(b.p, b.len - 5, b.len - 5, &a, &err), TS_E_BAD_WHEEL);
  struct zbuf cut = {.p = b.p + 100, .len = b.len - 100}; /* front cut: offsets now lie */
  cr_assert_neq(open_buf(&cut, &a, &err), TS_OK);
  unsigned char *more = malloc(b.len + 4);
  memcpy(more, b.p, b.len);
  memcpy(more + b.len, "junk", 4);
  cr_assert_eq(ts_zip_open_tail(more, b.len + 4, b.len + 4, &a, &err), TS_E_BAD_WHEEL, "%s", err.detail);
  free(more);
  /* not a zip at all */
  cr_assert_eq(ts_zip_open_tail("hello", 5, 5, &a, &err), TS_E_BAD_WHEEL);
  free(b.p);
}

Test(zip, crc32_matches_zlib) {
  init_big();
  cr_assert_eq(ts_zip_crc32(0, big_text, sizeof big_text),
               (uint32_t)crc32(0, (const Bytef *)big_text, sizeof big_text));
  uint32_t c = ts_zip_crc32(0, big_text, 1000);
  c = ts_zip_crc32(c, big_text + 1000, sizeof big_text - 1000);
  cr_assert_eq(c, (uint32_t)crc32(0, (const Bytef *)big_text, sizeof big_text));
}

Test(zip, real_wheels_if_present) {
  const char *w = "/usr/share/python-wheels";
  char path[512];
  snprintf(path, sizeof path, "%s/wheel-0.38.4-py3-none-any.whl", w);
  FILE *f = fopen(path, "rb");
  if (!f)
    cr_skip_test("no Debian wheel at %s", path);
  fclose(f);
  struct zbuf b = {0};
  f = fopen(path, "rb");
  char chunk[65536];
  size_t k;
  while ((k = fread(chunk, 1, sizeof chunk, f)) > 0)
    put(&b, chunk, k);
  fclose(f);
  struct ts_error err = {0};
  struct ts_zip_archive *a = NULL;
  cr_assert_eq(open_buf(&b, &a, &err), TS_OK, "%s", err.detail);
  cr_assert_gt(a->count, 10);
  const struct ts_zip_entry *m = ts_zip_find(a, "wheel-0.38.4.dist-info/METADATA", 31);
  cr_assert(m);
  uint64_t s, e;
  ts_zip_entry_span(m, &s, &e);
  struct ts_buf out;
  ts_buf_init(&out, 1u << 20);
  cr_assert_eq(ts_zip_read_member_buf(m, b.p + s, (size_t)(e - s), s, &out, &err), TS_OK, "%s", err.detail);
  cr_assert(strstr(out.data, "Name: wheel"));
  ts_buf_clear(&out);
  ts_zip_close(a);
  free(b.p);
}
