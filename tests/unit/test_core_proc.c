/* core/proc: the one process runner — output captured, stderr modes, exit
 * status and signals told apart, a deadline that kills, a cap that kills. */
#include <criterion/criterion.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>

#include "core/proc.h"

static struct ts_proc_result run(char *const argv[], enum ts_proc_stderr mode,
                                 int timeout_ms, size_t cap) {
  struct ts_proc_options o = {.search_path = true, .stderr_mode = mode,
                              .timeout_ms = timeout_ms, .stdout_cap = cap};
  struct ts_proc_result r;
  struct ts_error err = {0};
  cr_assert_eq(ts_proc_run(argv, &o, &r, &err), TS_OK, "%s", err.detail);
  return r;
}

Test(proc, captures_both_streams) {
  char *argv[] = {"sh", "-c", "echo out; echo err >&2; exit 3", NULL};
  struct ts_proc_result r = run(argv, TS_PROC_STDERR_CAPTURE, 0, 0);
  cr_expect(r.exited);
  cr_expect_eq(r.exit_code, 3);
  cr_expect(!ts_proc_succeeded(&r));
  cr_expect_str_eq(r.out.data, "out\n");
  cr_expect_str_eq(r.err.data, "err\n");
  ts_proc_result_clear(&r);
}

Test(proc, stdin_is_empty_and_stderr_discarded) {
  char *argv[] = {"sh", "-c", "cat; echo done; echo noise >&2", NULL};
  struct ts_proc_result r = run(argv, TS_PROC_STDERR_DISCARD, 5000, 0);
  cr_expect(ts_proc_succeeded(&r));
  cr_expect_str_eq(r.out.data, "done\n");
  cr_expect_null(r.err.data);
  ts_proc_result_clear(&r);
}

Test(proc, deadline_kills) {
  char *argv[] = {"sleep", "30", NULL};
  struct ts_proc_result r = run(argv, TS_PROC_STDERR_INHERIT, 200, 0);
  cr_expect(r.timed_out);
  cr_expect(!r.exited);
  cr_expect_eq(r.signal, SIGKILL);
  cr_expect(!ts_proc_succeeded(&r));
  ts_proc_result_clear(&r);
}

Test(proc, cap_kills) {
  char *argv[] = {"sh", "-c", "yes", NULL};
  struct ts_proc_result r = run(argv, TS_PROC_STDERR_INHERIT, 10000, 4096);
  cr_expect(r.too_big);
  cr_expect(!ts_proc_succeeded(&r));
  ts_proc_result_clear(&r);
}

Test(proc, cannot_start) {
  char *argv[] = {"/nonexistent/program", NULL};
  struct ts_proc_options o = {0};
  struct ts_proc_result r;
  struct ts_error err = {0};
  cr_expect_eq(ts_proc_run(argv, &o, &r, &err), TS_E_IO);
  cr_expect(strstr(err.detail, "/nonexistent/program"), "%s", err.detail);
  ts_proc_result_clear(&r);
}

/* A program is found on PATH as posix_spawnp would find it, a directory or
 * a missing name is not (host detection spawns nothing for them). */
Test(proc, find_program) {
  const char *saved = getenv("PATH");
  char *keep = saved ? strdup(saved) : NULL;
  setenv("PATH", "/nonexistent:/usr/bin:/bin", 1);
  char *sh = ts_proc_find_program("sh");
  cr_assert_not_null(sh);
  cr_assert(strcmp(sh, "/usr/bin/sh") == 0 || strcmp(sh, "/bin/sh") == 0, "%s", sh);
  free(sh);
  cr_assert_null(ts_proc_find_program("torchsolve-no-such-program"));
  setenv("PATH", "/", 1);
  cr_assert_null(ts_proc_find_program("usr")); /* a directory */
  if (keep)
    setenv("PATH", keep, 1);
  free(keep);
}
