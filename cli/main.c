/*
 * torchsolve — entry point: global flags, then dispatch by command name.
 * Each command lives in cli/cmd_<verb>.c; logic lives in the libraries.
 */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli/cli.h"
#include "cli/lock_from.h"
#include "core/heap.h"
#include "core/json_doc.h"

static int cmd_help(int argc, char **argv);

static const struct ts_cli_command commands[] = {
    {"version", ts_cmd_version, "print versions of torchsolve and its libraries"},
    {"install", ts_cmd_install, "resolve and install packages: REQ... [-r FILE] [--dry-run]"},
    {"index", ts_cmd_index, "diagnose index access: fetch PROJECT..., metadata WHEEL_URL"},
    {"cache", ts_cmd_cache, "show or clean the cache: dir, size, clean [PROJECT]"},
    {"detect", ts_cmd_detect, "show the GPU stack and the torch variants this host can use"},
    {"rules", ts_cmd_rules, "check, list, compile or audit rules.yaml"},
    {"venv", ts_cmd_venv, "create a virtual environment: [DIR] [--python PATH] [--seed]"},
    {"download", ts_cmd_download, "download the files of a resolution into a directory: -d DIR REQ..."},
    {"uninstall", ts_cmd_uninstall, "remove distributions through their RECORD: NAME... [-r FILE]"},
    {"freeze", ts_cmd_freeze, "print the installed set as requirements (pip freeze)"},
    {"list", ts_cmd_list, "list installed packages: [--outdated] [--format json] (pip list)"},
    {"show", ts_cmd_show, "show installed packages' metadata: NAME... [-f] (pip show)"},
    {"inspect", ts_cmd_inspect, "pip inspect's JSON report of an environment"},
    {"wheel", ts_cmd_wheel, "install wheel files, uninstall or repair: install|uninstall|repair"},
    {"check", ts_cmd_check, "check an environment: missing/conflicting deps and broken rules"},
    {"export", ts_cmd_export, "export pylock.toml as requirements.txt with --hash lines"},
    {"lock", ts_cli_lock_command, "resolve requirements into a PEP 751 pylock.toml"},
    {"sync", ts_cmd_sync, "make an environment exactly a pylock.toml, verifying hashes"},
    {"mirror", ts_cmd_mirror, "download a lock's files into a static index: LOCKFILE DIR"},
    {"pip", ts_cmd_pip, "pip's commands and options: install, download, uninstall, freeze..."},
    {"help", cmd_help, "show help for a command or topic"},
};

static void print_usage(FILE *out) {
  fprintf(out,
          "usage: torchsolve [--version] [--color auto|always|never] [-q|-v] "
          "<command> [args]\n\ncommands:\n");
  for (size_t i = 0; i < sizeof commands / sizeof commands[0]; i++)
    fprintf(out, "  %-10s %s\n", commands[i].name, commands[i].summary);
  ts_cli_help_topics_list(out);
  fprintf(out, "\nRun 'torchsolve <command> --help' for a command's options.\n");
}

static const struct ts_cli_command *find_command(const char *name) {
  for (size_t i = 0; i < sizeof commands / sizeof commands[0]; i++)
    if (strcmp(commands[i].name, name) == 0)
      return &commands[i];
  return NULL;
}

static int cmd_help(int argc, char **argv) {
  if (argc < 2 || strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0) {
    print_usage(stdout);
    return 0;
  }
  if (ts_cli_help_topic(argv[1]))
    return 0;
  const struct ts_cli_command *c = find_command(argv[1]);
  if (!c)
    return ts_cli_usage_error("help", "no command or topic '%s'", argv[1]);
  char *sub[] = {argv[1], (char *)"--help", NULL};
  return c->run(2, sub);
}

static void on_interrupt(int sig) {
  (void)sig;
  ts_cli.interrupted = 1;
}

/* SA_RESTART keeps file and pipe I/O free of EINTR handling; the long
 * loops (transfers, extraction, staging) poll the flag instead. */
static void catch_interrupts(void) {
  struct sigaction sa;
  memset(&sa, 0, sizeof sa);
  sa.sa_handler = on_interrupt;
  sa.sa_flags = SA_RESTART | SA_RESETHAND;
  sigemptyset(&sa.sa_mask);
  sigaction(SIGINT, &sa, NULL);
  sigaction(SIGTERM, &sa, NULL);
}

int main(int argc, char **argv) {
  ts_heap_setup();
  ts_json_setup();
  ts_cli.argv0 = argv[0];
  catch_interrupts();
  ts_cli_set_color("auto");
  int i = 1;
  for (; i < argc && argv[i][0] == '-'; i++) {
    if (strcmp(argv[i], "--version") == 0 || strcmp(argv[i], "-V") == 0)
      return ts_cmd_version(1, (char *[]){(char *)"version", NULL});
    if (strcmp(argv[i], "--help") == 0 || strcmp(argv[i], "-h") == 0) {
      print_usage(stdout);
      return 0;
    }
    int used = ts_cli_parse_global(NULL, argc, argv, &i);
    if (used < 0)
      return 2;
    if (used == 0)
      return ts_cli_usage_error(NULL, "unknown option '%s'", argv[i]);
  }
  if (i >= argc) {
    print_usage(stderr);
    return 2;
  }
  const struct ts_cli_command *c = find_command(argv[i]);
  if (!c)
    return ts_cli_usage_error(NULL, "unknown command '%s'", argv[i]);
  return c->run(argc - i, argv + i);
}
