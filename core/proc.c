#include "core/proc.h"

#include "core/clock.h"
#include "core/fs.h"
#include "core/str.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

/* With a cancel flag, a child is waited for in slices this long, so that
 * an interrupt is acted on within one. */
#define PROC_CANCEL_POLL_MS 200

extern char **environ;

static long long now_ms(void) {
  return (long long)ts_now_ms();
}

/* One read of what is available on fd: the bytes read (> 0), 0 when
 * there is nothing yet (EINTR, EAGAIN), -1 at EOF or on a read error. */
static ssize_t read_some(int fd, char *chunk, size_t cap) {
  ssize_t n = read(fd, chunk, cap);
  if (n < 0 && (errno == EINTR || errno == EAGAIN))
    return 0;
  return n > 0 ? n : -1;
}

/* Reads what is available on fd into b; false at EOF or a read error.
 * A full buffer sets *full and keeps draining (the child must not block). */
static bool drain(int fd, struct ts_buf *b, bool *full) {
  char chunk[16384];
  ssize_t n = read_some(fd, chunk, sizeof chunk);
  if (n <= 0)
    return n == 0;
  if (!*full && ts_buf_append(b, chunk, (size_t)n) != TS_OK)
    *full = true;
  return true;
}

/* Reads what is available on fd and writes it to sink (and stderr when
 * tee); false at EOF or a read error.  A failed write sets *failed and
 * keeps draining (the child must not block). */
static bool pass_on(int fd, int sink, bool tee, bool *failed) {
  char chunk[16384];
  ssize_t n = read_some(fd, chunk, sizeof chunk);
  if (n <= 0)
    return n == 0;
  if (!*failed && !ts_fs_write_all(sink, chunk, (size_t)n))
    *failed = true;
  if (tee)
    ts_fs_write_all(STDERR_FILENO, chunk, (size_t)n);
  return true;
}

char *ts_proc_find_program(const char *name) {
  const char *path = getenv("PATH");
  if (!path)
    path = "/bin:/usr/bin"; /* posix_spawnp's default (confstr _CS_PATH) */
  for (const char *d = path;;) {
    size_t n = strcspn(d, ":");
    /* an empty entry is the current directory, as for execvp */
    char *p = n ? ts_xasprintf("%.*s/%s", (int)n, d, name) : ts_xstrdup(name);
    struct stat st;
    if (stat(p, &st) == 0 && S_ISREG(st.st_mode) && access(p, X_OK) == 0)
      return p;
    free(p);
    if (!d[n])
      return NULL;
    d += n + 1;
  }
}

enum ts_code ts_proc_run(char *const argv[], const struct ts_proc_options *o,
                         struct ts_proc_result *r, struct ts_error *err) {
  memset(r, 0, sizeof *r);
  ts_buf_init(&r->out, o->stdout_cap ? o->stdout_cap : TS_CAP_SMALL_FILE);
  ts_buf_init(&r->err, o->stderr_cap ? o->stderr_cap : TS_CAP_SMALL_FILE);
  bool capture_err = o->sink_fd <= 2 && o->stderr_mode == TS_PROC_STDERR_CAPTURE;
  int op[2] = {-1, -1}, ep[2] = {-1, -1};
  if (pipe2(op, O_CLOEXEC) != 0 || (capture_err && pipe2(ep, O_CLOEXEC) != 0)) {
    int e = errno;
    for (int i = 0; i < 2; i++) {
      if (op[i] >= 0)
        close(op[i]);
    }
    return ts_error_set(err, TS_E_IO, "cannot run '%s': pipe: %s", argv[0], strerror(e));
  }
  bool sink = o->sink_fd > 2;
  posix_spawn_file_actions_t fa;
  posix_spawn_file_actions_init(&fa);
  posix_spawn_file_actions_addopen(&fa, STDIN_FILENO, "/dev/null", O_RDONLY, 0);
  posix_spawn_file_actions_adddup2(&fa, op[1], STDOUT_FILENO);
  if (sink)
    posix_spawn_file_actions_adddup2(&fa, op[1], STDERR_FILENO);
  else if (capture_err)
    posix_spawn_file_actions_adddup2(&fa, ep[1], STDERR_FILENO);
  else if (o->stderr_mode == TS_PROC_STDERR_DISCARD)
    posix_spawn_file_actions_addopen(&fa, STDERR_FILENO, "/dev/null", O_WRONLY, 0);
  if (o->cwd)
    posix_spawn_file_actions_addchdir_np(&fa, o->cwd);
  posix_spawnattr_t attr;
  posix_spawnattr_init(&attr);
  if (o->own_group) {
    posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETPGROUP);
    posix_spawnattr_setpgroup(&attr, 0);
  }
  char *const *env = o->envp ? o->envp : environ;
  pid_t pid;
  int sr = o->search_path ? posix_spawnp(&pid, argv[0], &fa, &attr, argv, env)
                          : posix_spawn(&pid, argv[0], &fa, &attr, argv, env);
  posix_spawnattr_destroy(&attr);
  posix_spawn_file_actions_destroy(&fa);
  close(op[1]);
  if (capture_err)
    close(ep[1]);
  if (sr != 0) {
    close(op[0]);
    if (capture_err)
      close(ep[0]);
    return ts_error_set(err, TS_E_IO, "cannot run '%s': %s", argv[0], strerror(sr));
  }

  struct pollfd pf[2] = {{op[0], POLLIN, 0}, {capture_err ? ep[0] : -1, POLLIN, 0}};
  int open_fds = capture_err ? 2 : 1;
  bool err_full = false;
  long long deadline = o->timeout_ms > 0 ? now_ms() + o->timeout_ms : 0;
  while (open_fds > 0 && !r->too_big) {
    int wait = -1;
    if (deadline) {
      long long left = deadline - now_ms();
      if (left <= 0) {
        r->timed_out = true;
        break;
      }
      wait = (int)left;
    }
    if (o->cancel) {
      if (*o->cancel) {
        r->cancelled = true;
        break;
      }
      if (wait < 0 || wait > PROC_CANCEL_POLL_MS)
        wait = PROC_CANCEL_POLL_MS;
    }
    int pr = poll(pf, 2, wait);
    if (pr < 0 && errno == EINTR)
      continue;
    if (pr < 0)
      break;
    for (int i = 0; i < 2; i++) {
      if (pf[i].fd < 0 || !(pf[i].revents & (POLLIN | POLLHUP | POLLERR)))
        continue;
      bool more = i == 0 && sink ? pass_on(pf[i].fd, o->sink_fd, o->tee_stderr,
                                           &r->sink_failed)
                  : i == 0        ? drain(pf[i].fd, &r->out, &r->too_big)
                                  : drain(pf[i].fd, &r->err, &err_full);
      if (!more) {
        close(pf[i].fd);
        pf[i].fd = -1;
        open_fds--;
      }
    }
  }
  for (int i = 0; i < 2; i++)
    if (pf[i].fd >= 0)
      close(pf[i].fd);
  if (r->timed_out || r->too_big || r->cancelled)
    kill(o->own_group ? -pid : pid, SIGKILL);
  int status = 0;
  while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
    ;
  r->exited = WIFEXITED(status);
  r->exit_code = r->exited ? WEXITSTATUS(status) : 0;
  r->signal = WIFSIGNALED(status) ? WTERMSIG(status) : 0;
  return TS_OK;
}

bool ts_proc_succeeded(const struct ts_proc_result *r) {
  return r->exited && r->exit_code == 0 && !r->timed_out && !r->too_big;
}

void ts_proc_result_clear(struct ts_proc_result *r) {
  ts_buf_clear(&r->out);
  ts_buf_clear(&r->err);
}
