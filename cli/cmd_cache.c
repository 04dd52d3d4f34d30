/* torchsolve cache dir|size|clean [PROJECT] — the on-disk cache. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "index/cache.h"

static const char usage_text[] =
    "usage: torchsolve cache dir|size|clean [PROJECT]\n"
    "\n"
    "  dir             print the cache directory: $TORCHSOLVE_CACHE_DIR, else\n"
    "                  $XDG_CACHE_HOME/torchsolve, else ~/.cache/torchsolve\n"
    "  size            print its size in bytes and number of files\n"
    "  clean           remove everything in it\n"
    "  clean PROJECT   remove one project's pages, metadata and wheels\n";

int ts_cmd_cache(int argc, char **argv) {
  if (argc < 2 || strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0) {
    fputs(usage_text, argc < 2 ? stderr : stdout);
    return argc < 2 ? 2 : 0;
  }
  char *dir = ts_cache_default_dir();
  if (!dir) {
    struct ts_error e = {0};
    ts_error_set(&e, TS_E_IO, "no cache directory: set TORCHSOLVE_CACHE_DIR or HOME");
    return ts_cli_report(&e);
  }
  struct ts_error err = {0};
  int status = 0;
  if (strcmp(argv[1], "dir") == 0 && argc == 2) {
    printf("%s\n", dir);
  } else if (strcmp(argv[1], "size") == 0 && argc == 2) {
    uint64_t bytes, files;
    if (ts_cache_size(dir, &bytes, &files, &err))
      status = ts_cli_report(&err);
    else
      printf("%llu bytes in %llu files (%s)\n", (unsigned long long)bytes,
             (unsigned long long)files, dir);
  } else if (strcmp(argv[1], "clean") == 0 && argc <= 3) {
    if (ts_cache_clean(dir, argc == 3 ? argv[2] : NULL, &err))
      status = ts_cli_report(&err);
    else
      ts_cli_info("removed %s%s%s", argc == 3 ? argv[2] : "everything",
                  argc == 3 ? " from " : " in ", dir);
  } else {
    status = ts_cli_usage_error("cache", "unknown or incomplete subcommand '%s'", argv[1]);
  }
  free(dir);
  return status;
}
