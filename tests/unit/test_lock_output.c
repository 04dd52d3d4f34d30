/* Unit tests for lock/output.h: where -o/--report paths are written.  The
 * bug it guards: an atomic rename over /dev/stdout replaced the device
 * link with a regular file (as root) and printed nothing. */
#include <criterion/criterion.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/buf.h"
#include "core/fs.h"
#include "lock/output.h"

static char dir[] = "/tmp/ts-output-XXXXXX";

static void setup(void) { cr_assert_not_null(mkdtemp(dir)); }
static void teardown(void) {
  struct ts_error e = {0};
  ts_fs_remove_tree(dir, &e);
}
TestSuite(output, .init = setup, .fini = teardown);

static char *path_in(const char *name) {
  char *p = malloc(strlen(dir) + strlen(name) + 2);
  cr_assert_not_null(p);
  sprintf(p, "%s/%s", dir, name);
  return p;
}

static char *slurp(const char *p) {
  struct ts_buf b;
  ts_buf_init(&b, 1 << 20);
  struct ts_error e = {0};
  cr_assert_eq(ts_fs_read_file(p, &b, &e), TS_OK, "%s", e.detail);
  cr_assert_eq(ts_buf_append(&b, "", 1), TS_OK);
  return ts_buf_take(&b, NULL);
}

Test(output, new_and_existing_regular_files) {
  char *p = path_in("pylock.toml");
  struct ts_error e = {0};
  cr_assert_eq(ts_output_write_file(p, "one\n", 4, &e), TS_OK, "%s", e.detail);
  cr_assert_eq(ts_output_write_file(p, "two\n", 4, &e), TS_OK, "%s", e.detail);
  char *got = slurp(p);
  cr_assert_str_eq(got, "two\n");
  free(got);
  free(p);
}

Test(output, symlink_to_a_file_is_kept_and_its_target_written) {
  char *target = path_in("real.toml"), *link = path_in("link.toml");
  struct ts_error e = {0};
  cr_assert_eq(ts_fs_write_atomic(target, "old\n", 4, &e), TS_OK);
  cr_assert_eq(symlink("real.toml", link), 0);
  cr_assert_eq(ts_output_write_file(link, "new\n", 4, &e), TS_OK, "%s", e.detail);
  struct stat st;
  cr_assert_eq(lstat(link, &st), 0);
  cr_assert(S_ISLNK(st.st_mode), "the symlink was replaced by a file");
  char *got = slurp(target);
  cr_assert_str_eq(got, "new\n");
  free(got);
  free(target);
  free(link);
}

Test(output, fifo_is_written_in_place) {
  char *fifo = path_in("fifo");
  cr_assert_eq(mkfifo(fifo, 0600), 0);
  int rfd = open(fifo, O_RDONLY | O_NONBLOCK); /* a reader, so open(O_WRONLY) does not block */
  cr_assert_geq(rfd, 0);
  struct ts_error e = {0};
  cr_assert_eq(ts_output_write_file(fifo, "lock\n", 5, &e), TS_OK, "%s", e.detail);
  char buf[16] = {0};
  cr_assert_eq(read(rfd, buf, sizeof buf - 1), 5);
  cr_assert_str_eq(buf, "lock\n");
  close(rfd);
  struct stat st;
  cr_assert_eq(lstat(fifo, &st), 0);
  cr_assert(S_ISFIFO(st.st_mode), "the FIFO was renamed over");
  free(fifo);
}

Test(output, a_link_to_a_descriptor_is_written_through) {
  /* /dev/stdout is a link to /proc/self/fd/1; here fd 1 is a pipe. */
  int fds[2];
  cr_assert_eq(pipe(fds), 0);
  char *link = path_in("stdout");
  char fdpath[64];
  snprintf(fdpath, sizeof fdpath, "/proc/self/fd/%d", fds[1]);
  cr_assert_eq(symlink(fdpath, link), 0);
  struct ts_error e = {0};
  cr_assert_eq(ts_output_write_file(link, "out\n", 4, &e), TS_OK, "%s", e.detail);
  close(fds[1]);
  char buf[16] = {0};
  cr_assert_eq(read(fds[0], buf, sizeof buf - 1), 4);
  cr_assert_str_eq(buf, "out\n");
  close(fds[0]);
  struct stat st;
  cr_assert_eq(lstat(link, &st), 0);
  cr_assert(S_ISLNK(st.st_mode), "the link was replaced by a file");
  free(link);
}

Test(output, dev_null_stays_a_device) {
  struct ts_error e = {0};
  cr_assert_eq(ts_output_write_file("/dev/null", "x\n", 2, &e), TS_OK, "%s", e.detail);
  struct stat st;
  cr_assert_eq(lstat("/dev/null", &st), 0);
  cr_assert(S_ISCHR(st.st_mode));
}

Test(output, a_directory_is_an_error_naming_it) {
  struct ts_error e = {0};
  cr_assert_eq(ts_output_write_file(dir, "x", 1, &e), TS_E_IO);
  cr_assert_not_null(strstr(e.detail, "is a directory"), "%s", e.detail);
  cr_assert_not_null(strstr(e.detail, dir), "%s", e.detail);
}
