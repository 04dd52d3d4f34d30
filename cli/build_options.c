/* Source-build options: see build_options.h. */
#include "cli/build_options.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "cli/cli.h"
#include "core/alloc.h"
#include "source/source.h"

const char ts_build_cli_help[] =
    "Building from source (directories, sdists, git URLs):\n"
    "  -C, --config-settings K=V  passed to the build backend (repeatable)\n"
    "  --build-constraint FILE  constraints for the build environments (repeatable)\n"
    "  --no-build-isolation     build with the target's interpreter and packages\n"
    "                           instead of a fresh build environment\n"
    "  --build-timeout S        limit per backend call (default 7200, 0: none)\n";

void ts_build_cli_init(struct ts_build_cli *o, int argc) {
  memset(o, 0, sizeof *o);
  o->config_settings = ts_xcalloc((size_t)argc + 1, sizeof *o->config_settings);
  ts_reqfile_init(&o->constraints);
  o->timeout_s = 7200;
  o->tty = isatty(STDERR_FILENO);
}

void ts_build_cli_free(struct ts_build_cli *o) {
  free(o->config_settings);
  ts_reqfile_clear(&o->constraints);
}

int ts_build_cli_parse(struct ts_build_cli *o, const char *command, int argc, char **argv,
                       int *i) {
  const char *v = NULL;
  int m;
  if (!strcmp(argv[*i], "--no-build-isolation")) {
    o->no_isolation = true;
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

static void on_build_begin(void *ctx, const char *what) {
  struct ts_build_cli *o = ctx;
  o->started = ts_cli_now_ms();
  if (o->tty && ts_cli.verbosity >= 0)
    fprintf(stderr, "Building %s\n", what);
}

static void on_build_end(void *ctx, const char *what, double ms, bool ok) {
  (void)ctx;
  char el[32];
  if (ok)
    ts_cli_info("Built %s in %s", what, ts_cli_elapsed(ms, el));
}

const char *ts_build_cli_runner_path(void) {
  static char beside_exe[4096 + 64];
  return ts_cli_data_file("pep517_runner.py", "TORCHSOLVE_PEP517_RUNNER",
                          TS_RUNNER_INSTALLED, TS_RUNNER_SOURCE, beside_exe,
                          sizeof beside_exe);
}

void ts_build_cli_options(struct ts_build_cli *o, const struct ts_index_options *index,
                          const char *cache_root, struct ts_plan_build_options *out,
                          const struct ts_reqfile_entry ***entries) {
  *entries = ts_xcalloc(o->constraints.nentries + 1, sizeof **entries);
  for (size_t i = 0; i < o->constraints.nentries; i++)
    (*entries)[i] = &o->constraints.entries[i];
  *out = (struct ts_plan_build_options){
      .index = index, .cache_root = cache_root, .probe_cache_dir = cache_root,
      .runner = ts_build_cli_runner_path(), .config_settings = o->config_settings,
      .nconfig_settings = o->nconfig_settings, .build_constraints = *entries,
      .nbuild_constraints = o->constraints.nentries, .no_isolation = o->no_isolation,
      .timeout_s = o->timeout_s, .stream = ts_cli.verbosity > 0,
      .cancel = &ts_cli.interrupted,
      .cb = {.ctx = o, .build_begin = on_build_begin, .build_end = on_build_end}};
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
