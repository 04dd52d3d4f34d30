/* Child processes for builds: see process.h. */
#include "source/process.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "core/alloc.h"
#include "core/str.h"

extern char **environ;

static bool has_prefix(const char *s, const char *p) {
  return strncmp(s, p, strlen(p)) == 0;
}

bool ts_process_env_kept(const char *entry) {
  const char *eq = strchr(entry, '=');
  if (!eq)
    return false;
  size_t n = (size_t)(eq - entry);
  char name[256];
  if (n == 0 || n >= sizeof name)
    return false;
  for (size_t i = 0; i < n; i++)
    name[i] = (char)(entry[i] >= 'a' && entry[i] <= 'z' ? entry[i] - 32 : entry[i]);
  name[n] = '\0';
  static const char *const prefixes[] = {"TORCHSOLVE_", "PIP_", "UV_", "PYTHON",
                                         "VIRTUAL_ENV", "CONDA_PREFIX"};
  for (size_t i = 0; i < sizeof prefixes / sizeof prefixes[0]; i++)
    if (has_prefix(name, prefixes[i]))
      return false;
  static const char *const secret[] = {"TOKEN", "PASSWORD", "PASSWD", "SECRET",
                                       "CREDENTIAL", "AUTH", "NETRC", "API_KEY",
                                       "ACCESS_KEY", "PRIVATE_KEY"};
  for (size_t i = 0; i < sizeof secret / sizeof secret[0]; i++)
    if (strstr(name, secret[i]))
      return false;
  /* a proxy URL may carry user:password@host */
  if (strstr(name, "PROXY") && strchr(eq + 1, '@'))
    return false;
  return true;
}

/* The child's environment: the kept entries, PATH with the prepended
 * directory, then the extra entries (which replace same-named ones). */
static char **child_env(const struct ts_process *p) {
  size_t n = 0;
  for (char **e = environ; e && *e; e++)
    n++;
  char **out = ts_xcalloc(n + p->nextra_env + 2, sizeof *out);
  size_t k = 0;
  bool have_path = false;
  for (char **e = environ; e && *e; e++) {
    if (!ts_process_env_kept(*e))
      continue;
    bool replaced = false;
    for (size_t j = 0; j < p->nextra_env && !replaced; j++) {
      size_t nl = strcspn(p->extra_env[j], "=");
      replaced = strncmp(*e, p->extra_env[j], nl + 1) == 0;
    }
    if (replaced)
      continue;
    if (has_prefix(*e, "PATH=")) {
      have_path = true;
      out[k++] = p->path_prepend ? ts_xasprintf("PATH=%s:%s", p->path_prepend, *e + 5)
                                 : ts_xstrdup(*e);
      continue;
    }
    out[k++] = ts_xstrdup(*e);
  }
  if (!have_path)
    out[k++] = ts_xasprintf("PATH=%s%s/usr/local/bin:/usr/bin:/bin",
                            p->path_prepend ? p->path_prepend : "",
                            p->path_prepend ? ":" : "");
  for (size_t j = 0; j < p->nextra_env; j++)
    out[k++] = ts_xstrdup(p->extra_env[j]);
  out[k] = NULL;
  return out;
}

static void env_free(char **env) {
  for (size_t i = 0; env[i]; i++)
    free(env[i]);
  free(env);
}

static double now_s(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static bool write_all(int fd, const char *b, size_t n) {
  while (n) {
    ssize_t w = write(fd, b, n);
    if (w < 0 && errno == EINTR)
      continue;
    if (w <= 0)
      return false;
    b += w;
    n -= (size_t)w;
  }
  return true;
}

enum ts_code ts_process_run(const struct ts_process *p, int *status,
                            struct ts_error *err) {
  *status = -1;
  int log = open(p->log_path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
  if (log < 0)
    return ts_error_set(err, TS_E_IO, "cannot write the build log '%s': %s",
                        p->log_path, strerror(errno));
  int fds[2];
  if (pipe2(fds, O_CLOEXEC) != 0) {
    close(log);
    return ts_error_set(err, TS_E_IO, "pipe: %s", strerror(errno));
  }
  char **env = child_env(p);
  /* resolved before fork: only async-signal-safe calls in the child */
  const char *prog = p->argv[0];
  char *found = NULL;
  if (!strchr(prog, '/')) {
    const char *path = NULL;
    for (size_t i = 0; env[i] && !path; i++)
      if (has_prefix(env[i], "PATH="))
        path = env[i] + 5;
    for (const char *s = path; s && *s && !found;) {
      size_t n = strcspn(s, ":");
      char *cand = ts_xasprintf("%.*s/%s", (int)n, s, prog);
      if (access(cand, X_OK) == 0)
        found = cand;
      else
        free(cand);
      s += n + (s[n] == ':');
    }
    if (found)
      prog = found;
  }
  int devnull = open("/dev/null", O_RDONLY | O_CLOEXEC);
  pid_t pid = fork();
  if (pid == 0) {
    setpgid(0, 0);
    if (devnull >= 0)
      dup2(devnull, 0);
    dup2(fds[1], 1);
    dup2(fds[1], 2);
    if (p->cwd && chdir(p->cwd) != 0)
      _exit(126);
    execve(prog, (char *const *)p->argv, env);
    _exit(127);
  }
  if (devnull >= 0)
    close(devnull);
  close(fds[1]);
  free(found);
  env_free(env);
  if (pid < 0) {
    close(fds[0]);
    close(log);
    return ts_error_set(err, TS_E_IO, "cannot start '%s': %s", p->argv[0], strerror(errno));
  }
  setpgid(pid, pid); /* also from here: no window where a kill misses it */
  enum ts_code rc = TS_OK;
  double deadline = p->timeout_s ? now_s() + p->timeout_s : 0;
  char buf[8192];
  for (;;) {
    if (p->cancel && *p->cancel) {
      rc = ts_error_set(err, TS_E_INTERRUPTED, "'%s' interrupted", p->argv[0]);
      break;
    }
    int wait_ms = 200;
    if (deadline) {
      double left = deadline - now_s();
      if (left <= 0) {
        rc = ts_error_set(err, TS_E_TIMEOUT, "'%s' ran past its %u s timeout",
                          p->argv[0], p->timeout_s);
        break;
      }
      if (left * 1000 < wait_ms)
        wait_ms = (int)(left * 1000) + 1;
    }
    struct pollfd pf = {.fd = fds[0], .events = POLLIN};
    int pr = poll(&pf, 1, wait_ms);
    if (pr < 0 && errno == EINTR)
      continue;
    if (pr <= 0)
      continue;
    ssize_t r = read(fds[0], buf, sizeof buf);
    if (r < 0 && errno == EINTR)
      continue;
    if (r <= 0)
      break; /* every writer closed: the child (and its children) are done */
    if (!write_all(log, buf, (size_t)r) && rc == TS_OK)
      rc = ts_error_set(err, TS_E_IO, "cannot write the build log '%s': %s",
                        p->log_path, strerror(errno));
    if (p->stream)
      write_all(2, buf, (size_t)r);
  }
  if (rc != TS_OK && err->code != TS_E_IO) {
    kill(-pid, SIGTERM);
    struct timespec ts = {0, 200 * 1000 * 1000};
    nanosleep(&ts, NULL);
    kill(-pid, SIGKILL);
  }
  close(fds[0]);
  int ws = 0;
  while (waitpid(pid, &ws, 0) < 0 && errno == EINTR)
    ;
  close(log);
  if (WIFEXITED(ws))
    *status = WEXITSTATUS(ws);
  else if (WIFSIGNALED(ws))
    *status = 128 + WTERMSIG(ws);
  if (rc == TS_OK && *status == 127)
    rc = ts_error_set(err, TS_E_IO, "cannot run '%s'", p->argv[0]);
  return rc;
}
