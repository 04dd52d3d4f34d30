/*
 * torchsolve mirror LOCK DIR [index options]
 *
 * Every file a lock references, downloaded and verified, with a static
 * index of them (plan/mirror.h) for air-gapped clusters.
 */
#include <stdio.h>
#include <string.h>

#include "cli/cli.h"
#include "cli/index_options.h"
#include "plan/mirror.h"

static void usage(FILE *out) {
  fprintf(out,
          "usage: torchsolve mirror LOCKFILE DIR [--cache-dir DIR] [--cert FILE] ...\n"
          "\n"
          "Downloads every wheel and sdist a PEP 751 lock references (all its GPU\n"
          "profiles and environments) into DIR/files/, each checked against the\n"
          "lock's sha256, and writes a static index of exactly those files that any\n"
          "web server or a plain folder serves:\n"
          "  DIR/simple/index.html, index.json       the root page (PEP 503 and 691)\n"
          "  DIR/simple/NAME/index.html, index.json  each project's files\n"
          "  DIR/whl/VARIANT/NAME/                   PyTorch builds (cu126, rocm6.4,\n"
          "                                          cpu...) for --torch-index-url\n"
          "  DIR/files/WHEEL.metadata                each wheel's METADATA (PEP 658)\n"
          "  DIR/files/NAME-VER-variants.json        PEP 825 variant metadata of a\n"
          "                                          release with variant wheels\n"
          "  DIR/pylock.toml                         the lock, its files in DIR/files\n"
          "  DIR/README.md                           how to serve and use it\n"
          "A file already in DIR with the lock's hash is not fetched again, and an\n"
          "interrupted download is resumed: running mirror again with a new lock\n"
          "fetches only what is new.\n"
          "\n"
          "On the air-gapped side: 'torchsolve sync DIR/pylock.toml', or serve DIR\n"
          "and 'torchsolve install --index-url http://mirror/simple --torch-index-url\n"
          "http://mirror/whl ...' (pip: --index-url http://mirror/simple).\n"
          "\n"
          "Index options (--cert, --client-cert, --trusted-host, --timeout,\n"
          "--cache-dir, --no-cache, --offline...) apply to the downloads.\n"
          "\n"
          "Exit status: 0 mirrored, 1 the lock cannot be read or a file cannot be\n"
          "written, 3 a download failed, 4 a file differs from the lock's hash.\n"
          "\nExample:\n"
          "  torchsolve lock --universal --profile cpu --profile cu126 torch -o pylock.toml\n"
          "  torchsolve mirror pylock.toml /srv/mirror\n"
          "  torchsolve sync /srv/mirror/pylock.toml --python /opt/venv\n");
}

int ts_cmd_mirror(int argc, char **argv) {
  struct ts_index_cli ic;
  ts_index_cli_init(&ic);
  const char *args[2] = {NULL, NULL};
  int nargs = 0;
  for (int i = 1; i < argc; i++) {
    if (strcmp(argv[i], "--help") == 0 || strcmp(argv[i], "-h") == 0) {
      usage(stdout);
      return 0;
    }
    int used = ts_cli_parse_global("mirror", argc, argv, &i);
    if (used == 0)
      used = ts_index_cli_parse(&ic, "mirror", argc, argv, &i);
    if (used < 0)
      return 2;
    if (used)
      continue;
    if (argv[i][0] == '-' && argv[i][1])
      return ts_cli_usage_error("mirror", "unknown option '%s'", argv[i]);
    if (nargs == 2)
      return ts_cli_usage_error("mirror", "unexpected argument '%s' (LOCKFILE DIR)", argv[i]);
    args[nargs++] = argv[i];
  }
  if (nargs < 2)
    return ts_cli_usage_error("mirror", "needs LOCKFILE and DIR");
  if (ts_index_cli_finish(&ic, "mirror") < 0)
    return 2;
  struct ts_error err = {0};
  struct ts_index *idx = ts_index_new(&ic.opts, &err);
  if (!idx)
    return ts_cli_report(&err);
  struct ts_mirror_result r;
  enum ts_code rc = ts_plan_mirror(args[0], args[1], idx, &r, &err);
  ts_index_free(idx);
  if (rc != TS_OK)
    return ts_cli_report(&err);
  ts_cli_info("Mirrored %zu file%s of %zu project%s into %s (%zu fetched, %zu already there)",
              r.nfiles, ts_cli_plural(r.nfiles), r.nprojects, ts_cli_plural(r.nprojects),
              args[1], r.nfetched, r.nfiles - r.nfetched);
  if (r.nskipped)
    ts_cli_warn("%zu package%s of the lock %s no wheel or sdist (a directory, VCS or "
                "archive source): not mirrored", r.nskipped, ts_cli_plural(r.nskipped),
                r.nskipped == 1 ? "has" : "have");
  return 0;
}
