/* Child processes for builds: see process.h. */
#include "source/process.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include "core/alloc.h"
#include "core/proc.h"
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

enum ts_code ts_process_run(const struct ts_process *p, int *status,
                            struct ts_error *err) {
  *status = -1;
  int log = open(p->log_path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
  if (log < 0)
    return ts_error_set(err, TS_E_IO, "cannot write the build log '%s': %s",
                        p->log_path, strerror(errno));
  char **env = child_env(p);
  struct ts_proc_options po = {.search_path = !strchr(p->argv[0], '/'), .cwd = p->cwd,
                               .envp = env, .sink_fd = log, .tee_stderr = p->stream,
                               .own_group = true, .cancel = p->cancel,
                               .timeout_ms = p->timeout_s > INT_MAX / 1000
                                                 ? INT_MAX
                                                 : (int)p->timeout_s * 1000};
  struct ts_proc_result r;
  enum ts_code rc = ts_proc_run((char *const *)p->argv, &po, &r, err);
  env_free(env);
  close(log);
  if (rc == TS_OK) {
    *status = r.exited ? r.exit_code : 128 + r.signal;
    if (r.cancelled)
      rc = ts_error_set(err, TS_E_INTERRUPTED, "'%s' interrupted", p->argv[0]);
    else if (r.timed_out)
      rc = ts_error_set(err, TS_E_TIMEOUT, "'%s' ran past its %u s timeout", p->argv[0],
                        p->timeout_s);
    else if (r.sink_failed)
      rc = ts_error_set(err, TS_E_IO, "cannot write the build log '%s'", p->log_path);
  }
  ts_proc_result_clear(&r);
  return rc;
}
