/* Source-build options: see build_options.h. */
#include "cli/build_options.h"

#include <limits.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "cli/cli.h"
#include "core/alloc.h"
#include "pep/name.h"
#include "plan/build_env.h"
#include "source/source.h"

const char ts_build_cli_help[] =
    "Building from source (directories, sdists, git URLs):\n"
    "  -C, --config-settings K=V  passed to the build backend (repeatable; lock\n"
    "                             records them, sync builds with the lock's)\n"
    "  --build-constraint FILE  constraints for the build environments (repeatable)\n"
    "  --no-build-isolation     build with the target's interpreter and packages\n"
    "                           instead of a fresh build environment; a torch\n"
    "                           extension builds against the target's torch (the\n"
    "                           plan's torch build is installed into it first)\n"
    "  --no-build-isolation-package P\n"
    "                           the same for project P only (repeatable)\n"
    "  --build-timeout S        limit per backend call (default 7200, 0: none)\n";

void ts_build_cli_init(struct ts_build_cli *o, int argc) {
  memset(o, 0, sizeof *o);
  o->config_settings = ts_xcalloc((size_t)argc + 1, sizeof *o->config_settings);
  o->no_isolation_packages = ts_xcalloc((size_t)argc + 1, sizeof *o->no_isolation_packages);
  ts_reqfile_init(&o->constraints);
  o->timeout_s = 7200;
  o->tty = isatty(STDERR_FILENO);
  pthread_mutex_init(&o->tick_mu, NULL);
  pthread_cond_init(&o->tick_cv, NULL);
}

void ts_build_cli_free(struct ts_build_cli *o) {
  free(o->config_settings);
  free(o->no_isolation_packages);
  ts_reqfile_clear(&o->constraints);
  pthread_mutex_destroy(&o->tick_mu);
  pthread_cond_destroy(&o->tick_cv);
}

int ts_build_cli_parse(struct ts_build_cli *o, const char *command, int argc, char **argv,
                       int *i) {
  const char *v = NULL;
  int m;
  if (!strcmp(argv[*i], "--no-build-isolation")) {
    o->no_isolation = true;
    return 1;
  }
  if ((m = ts_cli_flag_value("--no-build-isolation-package", argc, argv, i, &v)) != 0) {
    if (m < 0 || !ts_name_is_valid(v, strlen(v)))
      return ts_cli_usage_error(command, "--no-build-isolation-package needs a project "
                                         "name"), -1;
    o->no_isolation_packages[o->nno_isolation_packages++] = v;
    return 1;
  }
  if ((m = ts_cli_flag_value("--config-settings", argc, argv, i, &v)) != 0 ||
      (m = ts_cli_flag_value("-C", argc, argv, i, &v)) != 0) {
    if (m < 0 || !strchr(v, '=') || v[0] == '=')
      return ts_cli_usage_error(command, "--config-settings needs KEY=VALUE"), -1;
    o->config_settings[o->nconfig_settings++] = v;
    return 1;
  }
  if ((m = ts_cli_flag_value("--build-constraint", argc, argv, i, &v)) != 0) {
    if (m < 0)
      return ts_cli_usage_error(command, "--build-constraint needs a FILE"), -1;
    struct ts_reqfile_reader reader = {.read = ts_reqfile_read_real,
                                       .is_dir = ts_reqfile_is_dir_real};
    struct ts_reqfile_opts ro = {.reader = &reader};
    struct ts_error err = {0};
    if (ts_reqfile_add_file(&o->constraints, v, true, &ro, &err) != TS_OK) {
      ts_cli_report(&err);
      return -1;
    }
    return 1;
  }
  if ((m = ts_cli_flag_value("--build-timeout", argc, argv, i, &v)) != 0) {
    char *end = NULL;
    long s = m > 0 ? strtol(v, &end, 10) : -1;
    if (m < 0 || !end || *end || s < 0 || s > 7 * 86400)
      return ts_cli_usage_error(command, "--build-timeout needs whole seconds "
                                         "(0 to 604800)"), -1;
    o->timeout_s = (unsigned)s;
    return 1;
  }
  return 0;
}

/* On a terminal the build under way is one line, "Building NAME (12s)",
 * redrawn every second by a ticker thread until the build ends and the
 * "Built" line replaces it.  With -v the backend's output follows a plain
 * "Building NAME" line instead; on a pipe only the "Built" line shows. */
static void *tick(void *arg) {
  struct ts_build_cli *o = arg;
  pthread_mutex_lock(&o->tick_mu);
  while (!o->tick_stop) {
    fprintf(stderr, "\r\033[KBuilding %s (%.0fs)", o->building,
            (ts_now_ms() - o->started) / 1000.0);
    fflush(stderr);
    struct timespec until;
    clock_gettime(CLOCK_REALTIME, &until);
    until.tv_sec += 1;
    pthread_cond_timedwait(&o->tick_cv, &o->tick_mu, &until);
  }
  fputs("\r\033[K", stderr);
  fflush(stderr);
  pthread_mutex_unlock(&o->tick_mu);
  return NULL;
}

static void on_build_begin(void *ctx, const char *what) {
  struct ts_build_cli *o = ctx;
  o->started = ts_now_ms();
  if (ts_cli.verbosity > 0) {
    fprintf(stderr, "Building %s\n", what);
  } else if (o->tty && ts_cli.verbosity == 0) {
    snprintf(o->building, sizeof o->building, "%s", what);
    o->tick_stop = false;
    o->ticking = pthread_create(&o->ticker, NULL, tick, o) == 0;
  }
}

static void on_build_end(void *ctx, const char *what, double ms, bool ok) {
  struct ts_build_cli *o = ctx;
  if (o->ticking) {
    pthread_mutex_lock(&o->tick_mu);
    o->tick_stop = true;
    pthread_cond_signal(&o->tick_cv);
    pthread_mutex_unlock(&o->tick_mu);
    pthread_join(o->ticker, NULL);
    o->ticking = false;
  }
  char el[32];
  if (ok)
    ts_cli_info("Built %s in %s", what, ts_cli_elapsed(ms, el));
}

static void on_installed_first(void *ctx, const char *version, const char *project,
                               double ms) {
  (void)ctx;
  char el[32];
  ts_cli_info("Installed torch %s first in %s: %s builds against it without isolation",
              version, ts_cli_elapsed(ms, el), project);
}

static void on_warning(void *ctx, const char *line) {
  (void)ctx;
  ts_cli_warn("%s", line);
}

const char *ts_build_cli_runner_path(void) {
  static char beside_exe[PATH_MAX + 64];
  return ts_cli_data_file("pep517_runner.py", "TORCHSOLVE_PEP517_RUNNER",
                          TS_RUNNER_INSTALLED, TS_RUNNER_SOURCE, beside_exe,
                          sizeof beside_exe);
}

void ts_build_cli_options(struct ts_build_cli *o, const struct ts_index_options *index,
                          const char *cache_root, struct ts_source_build_options *out,
                          const struct ts_reqfile_entry ***entries) {
  *entries = ts_xcalloc(o->constraints.nentries + 1, sizeof **entries);
  for (size_t i = 0; i < o->constraints.nentries; i++)
    (*entries)[i] = &o->constraints.entries[i];
  *out = (struct ts_source_build_options){
      .env = &ts_plan_env_provider, .index = index, .cache_root = cache_root, .probe_cache_dir = cache_root,
      .runner = ts_build_cli_runner_path(), .config_settings = o->config_settings,
      .nconfig_settings = o->nconfig_settings, .build_constraints = *entries,
      .nbuild_constraints = o->constraints.nentries, .no_isolation = o->no_isolation,
      .no_isolation_packages = o->no_isolation_packages,
      .nno_isolation_packages = o->nno_isolation_packages,
      .timeout_s = o->timeout_s, .stream = ts_cli.verbosity > 0,
      .cancel = &ts_cli.interrupted,
      .cb = {.ctx = o, .build_begin = on_build_begin, .build_end = on_build_end,
             .installed_first = on_installed_first, .warning = on_warning}};
}

void ts_build_cli_print_log_tail(const char *log_path) {
  if (!log_path)
    return;
  char *tail = ts_source_log_tail(log_path, 25);
  if (tail[0]) {
    fprintf(stderr, "--- last lines of the build log (%s) ---\n", log_path);
    for (const char *s = tail; *s;) {
      size_t n = strcspn(s, "\n");
      /* terminal escapes from the build's output are shown as '?' */
      for (size_t k = 0; k < n; k++)
        fputc((unsigned char)s[k] < 0x20 && s[k] != '\t' ? '?' : s[k], stderr);
      fputc('\n', stderr);
      s += n + (s[n] == '\n');
    }
    fprintf(stderr, "---\n");
  }
  free(tail);
}
