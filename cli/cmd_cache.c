/* torchsolve cache dir|size|clean [PROJECT]|verify — the on-disk cache. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "core/str.h"
#include "core/fs.h"
#include "index/cache.h"
#include "wheel/wheel.h"

static const char usage_text[] =
    "usage: torchsolve cache dir|size|clean [PROJECT]|verify [--cache-dir DIR]\n"
    "\n"
    "  dir             print the cache directory: --cache-dir DIR, else\n"
    "                  $TORCHSOLVE_CACHE_DIR, else $XDG_CACHE_HOME/torchsolve,\n"
    "                  else ~/.cache/torchsolve\n"
    "  size            print its size in bytes and number of files\n"
    "  clean           remove torchsolve's folders in it (packs-v1, wheels-v1,\n"
    "                  downloads-v1, python, rules-v1; earlier versions'\n"
    "                  pages-v2, metadata-v2, pages-v1, metadata-v1); nothing\n"
    "                  else is touched\n"
    "  clean PROJECT   remove one project's pages, metadata and wheels\n"
    "  verify          re-hash every file of every unpacked wheel (wheels-v1/)\n"
    "                  against its RECORD; print one line per wheel, 'ok' or\n"
    "                  'dropped' with the first bad file, and delete the\n"
    "                  damaged ones (the next install unpacks them again).\n"
    "                  Exit 0 when all were intact, 1 when some were dropped.\n"
    "                  Hardlinked installs share files with the cache: an\n"
    "                  installed file edited in place shows up here.\n"
    "\n"
    "torchsolve marks a cache directory it creates with CACHEDIR.TAG.  A\n"
    "directory without that marker that holds anything but torchsolve's own\n"
    "folders (TORCHSOLVE_CACHE_DIR=$HOME by mistake) is not cleaned: nothing\n"
    "is deleted and the exit status is 2.  A cache of an earlier torchsolve\n"
    "(only its folders, no marker) is marked and cleaned.\n";

static void print_verified(void *ctx, const char *tree, const char *dist, const char *why) {
  (void)ctx;
  const char *key = strrchr(tree, '/') ? strrchr(tree, '/') + 1 : tree;
  if (why)
    printf("dropped %s (%.12s): %s\n", dist ? dist : "an unreadable tree", key, why);
  else
    printf("ok      %s (%.12s)\n", dist, key);
}

/* cache verify: 0 all intact, 1 damaged trees dropped, else the error's. */
static int verify(const char *dir) {
  struct ts_error err = {0};
  size_t checked = 0, dropped = 0;
  enum ts_code rc = ts_wheel_cache_verify(dir, print_verified, NULL, &checked, &dropped, &err);
  if (rc == TS_E_NOT_FOUND) {
    ts_cli_info("nothing to verify: %s does not exist", dir);
    return 0;
  }
  if (rc != TS_OK)
    return ts_cli_report(&err);
  ts_cli_info("%zu unpacked wheel%s checked, %zu dropped (%s)", checked,
              checked == 1 ? "" : "s", dropped, dir);
  return dropped ? 1 : 0;
}

int ts_cmd_cache(int argc, char **argv) {
  const char *sub = NULL, *project = NULL, *cache_dir = NULL;
  for (int i = 1; i < argc; i++) {
    const char *a = argv[i], *v = NULL;
    int m;
    if (strcmp(a, "--help") == 0 || strcmp(a, "-h") == 0) {
      fputs(usage_text, stdout);
      return 0;
    } else if ((m = ts_cli_flag_value("--cache-dir", argc, argv, &i, &v)) != 0) {
      if (m < 0)
        return ts_cli_usage_error("cache", "--cache-dir needs a value");
      cache_dir = v;
    } else if (a[0] == '-' && a[1]) {
      int used = ts_cli_parse_global("cache", argc, argv, &i);
      if (used <= 0)
        return used < 0 ? 2 : ts_cli_usage_error("cache", "unknown option '%s'", a);
    } else if (!sub) {
      sub = a;
    } else if (!project && strcmp(sub, "clean") == 0) {
      project = a;
    } else {
      return ts_cli_usage_error("cache", "unexpected argument '%s'", a);
    }
  }
  if (!sub) {
    fputs(usage_text, stderr);
    return 2;
  }
  if (strcmp(sub, "dir") != 0 && strcmp(sub, "size") != 0 && strcmp(sub, "clean") != 0 &&
      strcmp(sub, "verify") != 0)
    return ts_cli_usage_error("cache", "unknown subcommand '%s'", sub);
  char *dir = cache_dir ? ts_path_absolute(cache_dir) : ts_cache_root_dir();
  struct ts_error err = {0};
  int status = 0;
  if (strcmp(sub, "dir") == 0) {
    printf("%s\n", dir);
  } else if (strcmp(sub, "size") == 0) {
    uint64_t bytes, files;
    if (ts_cache_size(dir, &bytes, &files, &err))
      status = ts_cli_report(&err);
    else
      printf("%llu bytes in %llu files (%s)\n", (unsigned long long)bytes,
             (unsigned long long)files, dir);
  } else if (strcmp(sub, "verify") == 0) {
    status = verify(dir);
  } else {
    size_t removed = 0;
    enum ts_code rc = ts_cache_clean(dir, project, &removed, &err);
    if (rc == TS_E_NOT_FOUND)
      ts_cli_info("nothing to clean: %s does not exist", dir);
    else if (rc != TS_OK)
      status = ts_cli_report(&err);
    else if (project && removed == 0)
      ts_cli_warn("nothing cached for '%s' in %s (names match after PEP 503 "
                  "normalisation)", project, dir);
    else
      ts_cli_info("removed %s%s%s", project ? project : "torchsolve's folders",
                  project ? " from " : " in ", dir);
  }
  free(dir);
  return status;
}
