/* torchsolve version: our version and the versions of the libraries we run
 * with, read at run time from each library through the module that owns it
 * (only resolver/ links libsolv, only index/ links libcurl). */
#include <stdio.h>
#include <string.h>

#include "cli/cli.h"
#include "index/http.h"
#include "resolver/resolver.h"
#include "rules/rules.h"
#include "zip/zip.h"

int ts_cmd_version(int argc, char **argv) {
  if (argc > 1 && (strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0)) {
    printf("usage: torchsolve version   (or torchsolve --version)\n\n"
           "Print torchsolve's version and the versions of libsolv, libcurl,\n"
           "zlib and libyaml it runs with.\n");
    return 0;
  }
  if (argc > 1)
    return ts_cli_usage_error("version", "unexpected argument '%s'", argv[1]);
  printf("torchsolve %s\n", TS_VERSION);
  printf("libsolv %s\n", ts_resolver_libsolv_version());
  printf("libcurl %s\n", ts_http_libcurl_version());
  printf("zlib %s\n", ts_zip_zlib_version());
  printf("libyaml %s\n", ts_rules_libyaml_version());
  return 0;
}
