/* `torchsolve lock`'s command line: see lock_args.h. */
#include "cli/lock_args.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "cli/usage.h"
#include "core/alloc.h"

void ts_lock_args_init(struct ts_lock_args *a, int argc) {
  memset(a, 0, sizeof *a);
  a->output = "pylock.toml";
  a->mode = TS_RESOLUTION_HIGHEST;
  /* argc slots each for --profile, --environment and --upgrade-package */
  a->slots = (size_t)argc;
  a->room = ts_xcalloc(3 * a->slots + 1, sizeof *a->room);
  a->ask.profile_args = a->room;
  a->ask.environments = a->room + argc;
  a->upgrade_pkgs = a->room + 2 * (size_t)argc;
  ts_gpu_options_init(&a->g);
  ts_index_cli_init(&a->ic);
  ts_cli_reqs_init(&a->reqs, argc);
  ts_build_cli_init(&a->bc, argc);
}

void ts_lock_args_free(struct ts_lock_args *a) {
  ts_cli_reqs_free(&a->reqs);
  ts_build_cli_free(&a->bc);
  free(a->room);
}

/* An option with a value (f, its value v): 0, or the usage error's exit
 * status. */
static int lock_valued(struct ts_lock_args *c, const char *f, const char *v) {
  struct ts_lock_ask *a = &c->ask;
  if (!strcmp(f, "--python")) c->python = v;
  else if (!strcmp(f, "--python-version")) c->pyver = v;
  else if (!strcmp(f, "--platform")) c->platform = v;
  else if (!strcmp(f, "--output") || !strcmp(f, "-o")) c->output = v;
  else if (!strcmp(f, "--profile")) c->room[a->nprofile_args++] = v;
  else if (!strcmp(f, "--requires-python")) a->requires_python = v;
  else if (!strcmp(f, "--environment")) c->room[c->slots + a->nenvironments++] = v;
  else if (!strcmp(f, "--upgrade-package")) c->upgrade_pkgs[c->nupgrade++] = v;
  else if (!strcmp(f, "--resolution")) {
    if (!strcmp(v, "highest")) c->mode = TS_RESOLUTION_HIGHEST;
    else if (!strcmp(v, "lowest")) c->mode = TS_RESOLUTION_LOWEST;
    else if (!strcmp(v, "lowest-direct")) c->mode = TS_RESOLUTION_LOWEST_DIRECT;
    else return ts_cli_usage_error("lock", "unknown --resolution '%s'", v);
  } else if (!strcmp(f, "--no-binary") || !strcmp(f, "--only-binary")) {
    return ts_cli_reqs_add_binary(&c->reqs, "lock", v, !strcmp(f, "--no-binary"));
  } else { /* -r, --requirement, -c, --constraint */
    return ts_cli_reqs_add_file(&c->reqs, v, f[1] == 'c' || f[2] == 'c');
  }
  return 0;
}

/* argv[*i], an option: 0 when taken, else the exit status. */
static int lock_option(struct ts_lock_args *c, int argc, char **argv, int *i) {
  const char *s = argv[*i], *v = NULL;
  if (!strcmp(s, "--help") || !strcmp(s, "-h")) {
    ts_cli_lock_help(stdout);
    c->help = true;
    return 0;
  }
  int used = ts_cli_parse_global("lock", argc, argv, i);
  if (used == 0)
    used = ts_gpu_options_parse(&c->g, "lock", argc, argv, i);
  if (used == 0)
    used = ts_index_cli_parse(&c->ic, "lock", argc, argv, i);
  if (used == 0)
    used = ts_build_cli_parse(&c->bc, "lock", argc, argv, i);
  if (used)
    return used < 0 ? 2 : 0;
  const struct {
    const char *flag;
    bool *set;
  } switches[] = {{"--pre", &c->pre}, {"--universal", &c->ask.universal},
                  {"--check", &c->ask.check}, {"--upgrade", &c->upgrade},
                  {"-U", &c->upgrade}};
  for (size_t k = 0; k < sizeof switches / sizeof *switches; k++)
    if (!strcmp(s, switches[k].flag))
      return *switches[k].set = true, 0;
  static const char *const valued[] = {
      "--python", "--python-version", "--platform", "--requirement", "-r", "--constraint",
      "-c", "--output", "-o", "--no-binary", "--only-binary", "--profile",
      "--requires-python", "--environment", "--resolution", "--upgrade-package"};
  for (size_t k = 0; k < sizeof valued / sizeof valued[0]; k++) {
    int m = ts_cli_flag_value(valued[k], argc, argv, i, &v);
    if (m)
      return m < 0 ? ts_cli_usage_error("lock", "%s needs a value", valued[k])
                   : lock_valued(c, valued[k], v);
  }
  return ts_cli_usage_error("lock", "unknown option '%s'", s);
}

/* The options that contradict one another: the exit status, or 0. */
int ts_lock_args_check(struct ts_lock_args *c) {
  const struct ts_lock_ask *a = &c->ask;
  const struct ts_gpu_options *g = &c->g;
  if (c->platform && !c->pyver)
    return ts_cli_usage_error("lock", "--platform needs --python-version");
  if (!a->universal && (a->requires_python || a->nenvironments))
    return ts_cli_usage_error("lock", "%s needs --universal",
                              a->requires_python ? "--requires-python" : "--environment");
  if (a->universal && (c->pyver || c->platform))
    return ts_cli_usage_error("lock", "--universal covers every platform: drop %s",
                              c->pyver ? "--python-version" : "--platform");
  if (a->check && strcmp(c->output, "-") == 0)
    return ts_cli_usage_error("lock", "--check compares with a file: give -o FILE");
  if (a->nprofile_args && (g->set_cuda || g->set_rocm || g->set_gfx || g->set_cc ||
                           g->set_driver || g->ov.cpu || g->ov.xpu))
    return ts_cli_usage_error("lock", "%s name%s each machine's GPU stack; drop "
                              "--cuda, --rocm, --gfx, --compute-capability, "
                              "--cuda-driver, --cpu, --xpu and --torch-backend",
                              a->profiles_from ? a->profiles_from : "--profile",
                              a->profiles_from ? "" : "s");
  return ts_gpu_options_env(&c->g) < 0 ? 2 : 0;
}

int ts_lock_args_parse(struct ts_lock_args *c, int argc, char **argv) {
  int status = 0;
  bool opts_done = false;
  for (int i = 1; i < argc && !status && !c->help; i++) {
    if (!opts_done && !strcmp(argv[i], "--"))
      opts_done = true;
    else if (!opts_done && argv[i][0] == '-' && argv[i][1])
      status = lock_option(c, argc, argv, &i);
    else
      status = ts_cli_reqs_add_arg(&c->reqs, "lock", argv[i]);
  }
  c->ask.python_version = c->pyver != NULL;
  return status;
}
