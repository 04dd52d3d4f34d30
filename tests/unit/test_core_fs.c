/* core/fs.h's ts_fs_read_file: sized from fstat and read straight into the
 * buffer, so the edges are the cap (a file of exactly the cap, one byte
 * over), files whose size fstat does not tell (/proc), empty files, and
 * appending to a buffer that already holds data. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/buf.h"
#include "core/fs.h"

static char *file_of(size_t n, char fill) {
  char *path = strdup("/tmp/ts_fs_read_XXXXXX");
  int fd = mkstemp(path);
  cr_assert(fd >= 0);
  char *data = malloc(n + 1);
  memset(data, fill, n);
  cr_assert_eq(write(fd, data, n), (ssize_t)n);
  close(fd);
  free(data);
  return path;
}

Test(fs_read_file, sizes_around_the_cap) {
  size_t sizes[] = {2, 4095, 4096, 65536, 65537, 300000};
  for (size_t i = 0; i < sizeof sizes / sizeof *sizes; i++) {
    char *path = file_of(sizes[i], 'x');
    struct ts_buf b;
    ts_buf_init(&b, sizes[i]);
    cr_expect_eq(ts_fs_read_file(path, &b, NULL), TS_OK, "size %zu at its cap", sizes[i]);
    cr_expect_eq(b.len, sizes[i]);
    cr_expect(b.data && b.data[b.len] == '\0' && b.data[b.len - 1] == 'x');
    ts_buf_clear(&b);
    ts_buf_init(&b, sizes[i] - 1);
    struct ts_error err = {0};
    cr_expect_eq(ts_fs_read_file(path, &b, &err), TS_E_TOO_BIG, "size %zu over its cap", sizes[i]);
    cr_expect(strstr(err.detail, "limit") != NULL, "%s", err.detail);
    ts_buf_clear(&b);
    unlink(path);
    free(path);
  }
}

Test(fs_read_file, appends_and_unsized_files) {
  char *path = file_of(10, 'y');
  struct ts_buf b;
  ts_buf_init(&b, 0);
  cr_assert_eq(ts_buf_append(&b, "head", 4), TS_OK);
  cr_expect_eq(ts_fs_read_file(path, &b, NULL), TS_OK);
  cr_expect_eq(b.len, 14);
  cr_expect_str_eq(b.data, "headyyyyyyyyyy");
  ts_buf_clear(&b);
  unlink(path);
  free(path);
  /* /proc files report size 0: read to their end */
  ts_buf_init(&b, 1u << 20);
  cr_expect_eq(ts_fs_read_file("/proc/self/status", &b, NULL), TS_OK);
  cr_expect(b.len > 0 && strstr(b.data, "Name:") != NULL);
  ts_buf_clear(&b);
  path = file_of(0, 'z');
  ts_buf_init(&b, 16);
  cr_expect_eq(ts_fs_read_file(path, &b, NULL), TS_OK);
  cr_expect(b.data && b.len == 0 && b.data[0] == '\0');
  ts_buf_clear(&b);
  unlink(path);
  free(path);
}
