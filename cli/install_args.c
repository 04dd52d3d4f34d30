/* install's and download's command line: see install_args.h. */
#include "cli/install_args.h"

#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "cli/usage.h"
#include "core/alloc.h"

void ts_install_args_init(struct ts_install_args *a, int argc, bool download) {
  memset(a, 0, sizeof *a);
  a->cmd = download ? "download" : "install";
  a->q = (struct ts_plan_request){.download = download, .resolution = TS_RESOLUTION_HIGHEST,
                                  .link_mode = TS_WHEEL_LINK_HARDLINK};
  ts_gpu_options_init(&a->g);
  ts_index_cli_init(&a->ic);
  ts_cli_reqs_init(&a->reqs, argc);
  a->upgrade_pkgs = ts_xcalloc((size_t)argc, sizeof *a->upgrade_pkgs);
  ts_build_cli_init(&a->build, argc);
}

void ts_install_args_free(struct ts_install_args *a) {
  ts_cli_reqs_free(&a->reqs);
  free(a->upgrade_pkgs);
  ts_build_cli_free(&a->build);
}

/* The options that only switch something on: the request's field, and
 * whether only install has it (download refuses it). */
static const struct {
  const char *name, *alias;
  size_t field;
  bool install_only;
} switches[] = {
    {"--dry-run", NULL, offsetof(struct ts_plan_request, dry_run), false},
    {"--upgrade", "-U", offsetof(struct ts_plan_request, upgrade), false},
    {"--force-reinstall", NULL, offsetof(struct ts_plan_request, force_reinstall), false},
    {"--no-deps", NULL, offsetof(struct ts_plan_request, no_deps), false},
    {"--pre", NULL, offsetof(struct ts_plan_request, pre), false},
    {"--require-hashes", NULL, offsetof(struct ts_plan_request, require_hashes), false},
    {"--system", NULL, offsetof(struct ts_plan_request, system), false},
    {"--no-wait", NULL, offsetof(struct ts_plan_request, no_wait), false},
    {"--prefer-binary", NULL, offsetof(struct ts_plan_request, prefer_binary), false},
    {"--ignore-installed", "-I", offsetof(struct ts_plan_request, ignore_installed), true},
    {"--compile", "--compile-bytecode", offsetof(struct ts_plan_request, compile), true},
    {"--allow-overwrite", NULL, offsetof(struct ts_plan_request, allow_overwrite), true},
    {"--verify", NULL, offsetof(struct ts_plan_request, verify_cache), true},
    {"--user", NULL, offsetof(struct ts_plan_request, user), true},
    {"--break-system-packages", NULL,
     offsetof(struct ts_plan_request, break_system_packages), true},
};

/* A switch sets its field: 1, or 0 when s is none. */
static int parse_switch(struct ts_plan_request *q, const char *s) {
  for (size_t k = 0; k < sizeof switches / sizeof switches[0]; k++)
    if (!strcmp(s, switches[k].name) || (switches[k].alias && !strcmp(s, switches[k].alias))) {
      *(bool *)((char *)q + switches[k].field) = true;
      if (switches[k].install_only)
        q->install_only = s;
      return 1;
    }
  return 0;
}

/* An option with a value (f, its value v) into the request or the args:
 * 0, or the usage error's exit status. */
static int parse_valued(struct ts_install_args *a, const char *f, const char *v) {
  struct ts_plan_request *q = &a->q;
  const char *cmd = a->cmd;
  if (!strcmp(f, "--python")) q->python = v;
  else if (!strcmp(f, "--python-version")) q->python_version = v;
  else if (!strcmp(f, "--platform")) q->platform = v;
  else if (!strcmp(f, "--report")) a->report = q->install_only = v;
  else if (!strcmp(f, "--target") || !strcmp(f, "-t")) q->target_dir = q->install_only = v;
  else if (!strcmp(f, "--prefix")) q->prefix_dir = q->install_only = v;
  else if (!strcmp(f, "--link-mode")) a->link_mode = q->install_only = v;
  else if (!strcmp(f, "--debug-solver")) a->debug_dir = v;
  else if (!strcmp(f, "--upgrade-package")) a->upgrade_pkgs[a->nupgrade++] = v;
  else if (!strcmp(f, "--dest") || !strcmp(f, "-d")) {
    q->dest = v;
    if (!q->download)
      return ts_cli_usage_error(cmd, "%s is download's option", f);
  } else if (!strcmp(f, "--python-platform")) {
    q->platform = a->uv_platform;
    if (ts_cli_uv_platform(v, a->uv_platform, sizeof a->uv_platform) != 0)
      return ts_cli_usage_error(cmd, "--python-platform '%s': torchsolve knows linux, "
                                "ARCH-unknown-linux-gnu, ARCH-unknown-linux-musl, "
                                "ARCH-manylinux_X_Y, ARCH-manylinux2014, ARCH-musllinux_X_Y", v);
  } else if (!strcmp(f, "--upgrade-strategy")) {
    if (strcmp(v, "eager") != 0 && strcmp(v, "only-if-needed") != 0)
      return ts_cli_usage_error(cmd, "--upgrade-strategy must be only-if-needed or "
                                "eager, not '%s'", v);
    q->eager = !strcmp(v, "eager");
  } else if (!strcmp(f, "--no-binary") || !strcmp(f, "--only-binary")) {
    return ts_cli_reqs_add_binary(&a->reqs, cmd, v, !strcmp(f, "--no-binary"));
  } else if (!strcmp(f, "--editable") || !strcmp(f, "-e")) {
    return ts_cli_reqs_add_editable(&a->reqs, cmd, v);
  } else if (!strcmp(f, "--resolution")) {
    if (!strcmp(v, "highest")) q->resolution = TS_RESOLUTION_HIGHEST;
    else if (!strcmp(v, "lowest")) q->resolution = TS_RESOLUTION_LOWEST;
    else if (!strcmp(v, "lowest-direct")) q->resolution = TS_RESOLUTION_LOWEST_DIRECT;
    else return ts_cli_usage_error(cmd, "unknown --resolution '%s'", v);
  } else { /* -r, --requirement, -c, --constraint */
    return ts_cli_reqs_add_file(&a->reqs, v, f[1] == 'c' || f[2] == 'c');
  }
  return 0;
}

/* argv[*i], an option: 0 when taken, else the exit status. */
static int parse_option(struct ts_install_args *a, int argc, char **argv, int *i) {
  const char *s = argv[*i], *v = NULL, *cmd = a->cmd;
  if (!strcmp(s, "--help") || !strcmp(s, "-h")) {
    ts_cli_install_help(stdout, a->q.download);
    a->help = true;
    return 0;
  }
  int used = ts_cli_parse_global(cmd, argc, argv, i);
  if (used == 0)
    used = ts_gpu_options_parse(&a->g, cmd, argc, argv, i);
  if (used == 0)
    used = ts_index_cli_parse(&a->ic, cmd, argc, argv, i);
  if (used == 0)
    used = ts_build_cli_parse(&a->build, cmd, argc, argv, i);
  if (used == 0)
    used = parse_switch(&a->q, s);
  if (used == 0 && !strcmp(s, "--no-build")) /* uv's --only-binary :all: */
    used = ts_cli_reqs_add_binary(&a->reqs, cmd, ":all:", false) ? -1 : 1;
  if (used)
    return used < 0 ? 2 : 0;
  static const char *const valued[] = {
      "--python", "--python-version", "--platform", "--report", "--requirement",
      "-r", "--constraint", "-c", "--upgrade-package", "--resolution",
      "--link-mode", "--debug-solver", "--no-binary", "--only-binary", "--editable",
      "-e", "--target", "-t", "--prefix", "--python-platform", "--upgrade-strategy",
      "--dest", "-d"};
  for (size_t k = 0; k < sizeof valued / sizeof valued[0]; k++) {
    int m = ts_cli_flag_value(valued[k], argc, argv, i, &v);
    if (m)
      return m < 0 ? ts_cli_usage_error(cmd, "%s needs a value", valued[k])
                   : parse_valued(a, valued[k], v);
  }
  return ts_cli_usage_error(cmd, "unknown option '%s'", s);
}

int ts_install_args_parse(struct ts_install_args *a, int argc, char **argv) {
  int status = 0;
  bool opts_done = false;
  for (int i = 1; i < argc && status == 0 && !a->help; i++) {
    const char *s = argv[i];
    if (opts_done || s[0] != '-' || !s[1])
      status = ts_cli_reqs_add_arg(&a->reqs, a->cmd, s);
    else if (!strcmp(s, "--"))
      opts_done = true;
    else
      status = parse_option(a, argc, argv, &i);
  }
  return status;
}
