/* core/filehash: digests read in chunks match the one-shot digest; the stat
 * memo answers for an unchanged file and misses once the file is rewritten,
 * even when its size and mtime are put back (the ctime moves). */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "core/filehash.h"
#include "core/fs.h"

static char dir[64];

static void setup(void) {
  snprintf(dir, sizeof dir, "/tmp/ts-filehash-XXXXXX");
  cr_assert(mkdtemp(dir));
}
static void teardown(void) { ts_fs_remove_tree(dir, NULL); }

TestSuite(filehash, .init = setup, .fini = teardown);

static char *write_bytes(const char *name, size_t n, unsigned char seed) {
  char *p = ts_path_join(dir, name);
  unsigned char *b = malloc(n);
  for (size_t i = 0; i < n; i++)
    b[i] = (unsigned char)(i * 31u + seed);
  cr_assert_eq(ts_fs_write_atomic(p, b, n, NULL), TS_OK);
  free(b);
  return p;
}

static void one_shot(const char *p, uint8_t out[TS_SHA256_LEN]) {
  struct ts_buf b;
  ts_buf_init(&b, 0);
  cr_assert_eq(ts_fs_read_file(p, &b, NULL), TS_OK);
  ts_sha256(b.data, b.len, out);
  ts_buf_clear(&b);
}

Test(filehash, chunked_digest_matches_and_sizes) {
  /* 1 MiB chunks: below, at and across the boundary */
  size_t sizes[] = {0, 1, (1u << 20) - 1, 1u << 20, (3u << 20) + 17};
  for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; i++) {
    char *p = write_bytes("f", sizes[i], (unsigned char)i);
    uint8_t want[TS_SHA256_LEN], got[TS_SHA256_LEN];
    uint64_t size = 99;
    one_shot(p, want);
    cr_assert_eq(ts_filehash_path(p, NULL, got, &size, NULL), TS_OK);
    cr_assert_eq(memcmp(want, got, sizeof want), 0, "size %zu", sizes[i]);
    cr_assert_eq(size, sizes[i]);
    free(p);
  }
}

Test(filehash, missing_file_is_not_found) {
  char *p = ts_path_join(dir, "absent.whl");
  uint8_t d[TS_SHA256_LEN];
  struct ts_error err = {0};
  cr_assert_eq(ts_filehash_path(p, NULL, d, NULL, &err), TS_E_NOT_FOUND);
  cr_assert(strstr(err.detail, "absent.whl"), "%s", err.detail);
  free(p);
}

Test(filehash, memo_hits_until_the_file_changes) {
  char *memo = ts_path_join(dir, "memo");
  char *p = write_bytes("w.whl", 5000, 1);
  uint8_t first[TS_SHA256_LEN], again[TS_SHA256_LEN];
  cr_assert_eq(ts_filehash_path(p, memo, first, NULL, NULL), TS_OK);
  struct stat st;
  cr_assert_eq(stat(p, &st), 0);
  char *key = ts_filehash_memo_key(memo, p, &st);
  uint8_t remembered[TS_SHA256_LEN];
  cr_assert(ts_filehash_memo_read(key, remembered), "no memo entry written");
  cr_assert_eq(memcmp(remembered, first, sizeof first), 0);

  /* a planted entry proves the memo is what answers for an unchanged file */
  uint8_t planted[TS_SHA256_LEN];
  memset(planted, 0xab, sizeof planted);
  ts_filehash_memo_write(memo, key, planted);
  cr_assert_eq(ts_filehash_path(p, memo, again, NULL, NULL), TS_OK);
  cr_assert_eq(memcmp(again, planted, sizeof again), 0);
  free(key);

  /* same size, mtime put back: the ctime still moves, the memo misses */
  struct timespec ts[2] = {st.st_atim, st.st_mtim};
  char *q = ts_path_join(dir, "w.whl");
  int fd = open(q, O_WRONLY | O_TRUNC); /* in place: same inode */
  cr_assert(fd >= 0);
  char other[5000];
  memset(other, 'x', sizeof other);
  cr_assert_eq(write(fd, other, sizeof other), (ssize_t)sizeof other);
  close(fd);
  cr_assert_eq(utimensat(AT_FDCWD, q, ts, 0), 0);
  struct stat st2;
  cr_assert_eq(stat(q, &st2), 0);
  cr_assert(st2.st_ino == st.st_ino && st2.st_size == st.st_size &&
            st2.st_mtim.tv_nsec == st.st_mtim.tv_nsec && st2.st_mtim.tv_sec == st.st_mtim.tv_sec);
  uint8_t changed[TS_SHA256_LEN], want[TS_SHA256_LEN];
  cr_assert_eq(ts_filehash_path(q, memo, changed, NULL, NULL), TS_OK);
  one_shot(q, want);
  cr_assert_eq(memcmp(changed, want, sizeof want), 0, "a rewritten file was answered from the memo");
  free(q);
  free(p);
  free(memo);
}
