/* Argument helpers shared by every command's option loop. */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <unistd.h>

#include "core/fs.h"
#include "lock/output.h"
#include "cli/cli.h"
#include "inventory/env.h"

int ts_cli_link_mode(const char *command, const char *v,
                     enum ts_wheel_link_mode *out) {
  const char *what = "--link-mode";
  if (!v) {
    v = getenv("TORCHSOLVE_LINK_MODE");
    what = "TORCHSOLVE_LINK_MODE";
    if (!v || !*v)
      return 0;
  }
  static const struct {
    const char *name;
    enum ts_wheel_link_mode mode;
  } modes[] = {{"hardlink", TS_WHEEL_LINK_HARDLINK},
               {"copy", TS_WHEEL_LINK_COPY},
               {"clone", TS_WHEEL_LINK_CLONE},
               {"auto", TS_WHEEL_LINK_AUTO}};
  for (size_t k = 0; k < sizeof modes / sizeof modes[0]; k++)
    if (strcmp(v, modes[k].name) == 0) {
      *out = modes[k].mode;
      return 0;
    }
  return ts_cli_usage_error(command, "unknown %s '%s' (hardlink, copy, clone or auto)",
                            what, v), -1;
}

static void on_waiting(void *ctx, const char *env) {
  (void)ctx;
  ts_cli_info("waiting for another torchsolve on %s… (--no-wait: fail instead)", env);
}

static void on_repaired(void *ctx, const char *what) {
  (void)ctx;
  ts_cli_warn("%s", what);
}

static void on_cache_damaged(void *ctx, const char *wheel, const char *why) {
  (void)ctx;
  ts_cli_warn("the cache's unpacked copy of %s was damaged (%s); unpacking it again",
              strrchr(wheel, '/') ? strrchr(wheel, '/') + 1 : wheel, why);
}

static void on_notice(void *ctx, const char *wheel, const char *what) {
  (void)ctx;
  ts_cli_warn("%s: %s", strrchr(wheel, '/') ? strrchr(wheel, '/') + 1 : wheel, what);
}

struct ts_wheel_callbacks ts_cli_env_callbacks(void) {
  return (struct ts_wheel_callbacks){.waiting_for_lock = on_waiting,
                                     .repaired = on_repaired,
                                     .cache_damaged = on_cache_damaged,
                                     .notice = on_notice};
}

int ts_cli_write_output(const char *dest, const void *data, size_t len) {
  struct ts_error err = {0};
  if (dest && strcmp(dest, "-") != 0) {
    if (ts_output_write_file(dest, data ? data : "", len, &err) != TS_OK)
      return ts_cli_report(&err);
  } else if (len && (fwrite(data, 1, len, stdout) != len || fflush(stdout) != 0)) {
    ts_error_set(&err, TS_E_IO, "cannot write to standard output");
    return ts_cli_report(&err);
  }
  return 0;
}

int ts_cli_parse_long(const char *s, long lo, long hi, long *out) {
  char *end;
  errno = 0;
  long v = strtol(s, &end, 10);
  if (errno || *end || end == s || v < lo || v > hi)
    return -1;
  *out = v;
  return 0;
}

int ts_cli_flag_value(const char *name, int argc, char **argv, int *i,
                      const char **v) {
  size_t n = strlen(name);
  const char *a = argv[*i];
  if (strncmp(a, name, n) != 0)
    return 0;
  /* "--name=VALUE" for long options only: "-r=x" is not pip syntax. */
  if (a[n] == '=' && name[1] == '-') {
    *v = a + n + 1;
    return 1;
  }
  if (a[n] != '\0')
    return 0;
  if (*i + 1 >= argc)
    return -1;
  *v = argv[++*i];
  return 1;
}

const char *ts_cli_plural(size_t n) { return n == 1 ? "" : "s"; }

const char *ts_cli_elapsed(double ms, char out[32]) {
  /* "0.0s" for a 4 ms install says nothing: milliseconds below a second,
   * as uv prints them, tenths of a second above. */
  if (ms < 999.5)
    snprintf(out, 32, "%.0fms", ms < 0 ? 0 : ms);
  else
    snprintf(out, 32, "%.1fs", ms / 1e3);
  return out;
}

int ts_cli_env_option(const char *command, struct ts_cli_env_choice *c, int argc,
                      char **argv, int *i) {
  if (strcmp(argv[*i], "--system") == 0) {
    c->system = true;
    return 1;
  }
  int m = ts_cli_flag_value("--python", argc, argv, i, &c->python);
  if (m < 0)
    ts_cli_usage_error(command, "--python needs a value");
  return m;
}

int ts_cli_open_env(const char *command, const struct ts_cli_env_choice *c,
                    struct ts_plan_env *env) {
  memset(env, 0, sizeof *env);
  if (c->system && c->python)
    return ts_cli_usage_error(command,
                              "--system and --python name two interpreters: give one");
  struct ts_error err = {0};
  char *cache = ts_cache_root_dir();
  /* --system: the interpreter a bare "python3" finds on PATH */
  enum ts_code rc = ts_plan_env_open(c->system ? "python3" : c->python, cache, env, &err);
  free(cache);
  if (rc == TS_OK)
    return 0;
  ts_plan_env_close(env);
  int status = ts_cli_report(&err);
  return status ? status : 1;
}

const char *ts_cli_data_file(const char *name, const char *env_var, const char *installed,
                             const char *source, char *buf, size_t cap) {
  const char *v = getenv(env_var);
  if (v && *v)
    return v;
  /* A relocated install (make install PREFIX=...) finds its data beside
   * the binary: PREFIX/bin/torchsolve -> PREFIX/share/torchsolve. */
  char exe[PATH_MAX];
  ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
  if (n > 0) {
    exe[n] = '\0';
    char *slash = strrchr(exe, '/');
    if (slash) {
      *slash = '\0';
      snprintf(buf, cap, "%s/../share/torchsolve/%s", exe, name);
      if (access(buf, R_OK) == 0)
        return buf;
    }
  }
  if (access(installed, R_OK) == 0)
    return installed;
  return source;
}

int ts_cli_uv_platform(const char *uv, char *out, size_t cap) {
  if (strcmp(uv, "linux") == 0)
    uv = "x86_64-unknown-linux-gnu";
  size_t arch = strcspn(uv, "-");
  if (arch == 0 || !uv[arch] || strspn(uv, "abcdefghijklmnopqrstuvwxyz0123456789_") != arch)
    return -1;
  const char *rest = uv + arch + 1;
  int n;
  /* uv: a -gnu target is manylinux_2_28, a -musl one musllinux_1_2 */
  if (strcmp(rest, "unknown-linux-gnu") == 0)
    n = snprintf(out, cap, "manylinux_2_28_%.*s", (int)arch, uv);
  else if (strcmp(rest, "unknown-linux-musl") == 0)
    n = snprintf(out, cap, "musllinux_1_2_%.*s", (int)arch, uv);
  else if ((strncmp(rest, "manylinux_", 10) == 0 || strncmp(rest, "musllinux_", 10) == 0 ||
            strncmp(rest, "manylinux20", 11) == 0) &&
           strspn(rest + 9, "_0123456789") == strlen(rest + 9))
    n = snprintf(out, cap, "%s_%.*s", rest, (int)arch, uv);
  else
    return -1;
  return n > 0 && (size_t)n < cap ? 0 : -1;
}

int ts_cli_set_color(const char *mode) {
  if (strcmp(mode, "always") == 0)
    ts_cli.color = true;
  else if (strcmp(mode, "never") == 0)
    ts_cli.color = false;
  else if (strcmp(mode, "auto") == 0) {
    /* no-color.org: NO_COLOR set to a non-empty value disables colour. */
    const char *nc = getenv("NO_COLOR");
    ts_cli.color = isatty(STDERR_FILENO) && !(nc && nc[0]);
  } else
    return -1;
  return 0;
}

/* "-v", "-vv", "-vvv"... (or "-q", "-qq"): the letter repeated; returns
 * the count, 0 when a is not such a flag. */
static int repeated(const char *a, char letter) {
  if (a[0] != '-' || a[1] != letter)
    return 0;
  int n = 0;
  for (a++; *a == letter; a++)
    n++;
  return *a ? 0 : n;
}

int ts_cli_parse_global(const char *command, int argc, char **argv, int *i) {
  const char *a = argv[*i];
  if (repeated(a, 'q') || strcmp(a, "--quiet") == 0) {
    ts_cli.verbosity = -1;
    return 1;
  }
  int v = repeated(a, 'v');
  if (v || strcmp(a, "--verbose") == 0) {
    ts_cli.verbosity += v ? v : 1;
    return 1;
  }
  const char *mode = NULL;
  if (ts_cli_flag_value("--color", argc, argv, i, &mode) == 0)
    return 0;
  if (!mode)
    return ts_cli_usage_error(command, "--color needs a value: auto, always or never"),
           -1;
  if (ts_cli_set_color(mode) != 0)
    return ts_cli_usage_error(command, "--color must be auto, always or never, not '%s'",
                              mode),
           -1;
  return 1;
}
