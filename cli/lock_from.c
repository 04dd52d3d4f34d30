/* lock --from FILE: see lock_from.h.  Parses its options and prints. */
#include "cli/lock_from.h"

#include <stdio.h>
#include <string.h>

#include "cli/cli.h"
#include "core/buf.h"
#include "lock/pylock.h"
#include "lockgen/import.h"

static bool wants_from(int argc, char **argv) {
  for (int i = 1; i < argc; i++)
    if (strcmp(argv[i], "--from") == 0 || strncmp(argv[i], "--from=", 7) == 0)
      return true;
  return false;
}

static int lock_from(int argc, char **argv) {
  const char *from = NULL, *output = "pylock.toml";
  for (int i = 1; i < argc; i++) {
    const char *v = NULL;
    int used = ts_cli_parse_global("lock", argc, argv, &i);
    if (used < 0)
      return 2;
    if (used)
      continue;
    if ((used = ts_cli_flag_value("--from", argc, argv, &i, &v)) != 0) {
      if (used < 0)
        return ts_cli_usage_error("lock", "--from needs a file (uv.lock or pylock.toml)");
      from = v;
    } else if ((used = ts_cli_flag_value("--output", argc, argv, &i, &v)) != 0 ||
               (used = ts_cli_flag_value("-o", argc, argv, &i, &v)) != 0) {
      if (used < 0)
        return ts_cli_usage_error("lock", "-o needs a value");
      output = v;
    } else {
      return ts_cli_usage_error("lock", "--from takes only -o FILE ('%s': the versions come "
                                "from the lock, nothing is resolved)", argv[i]);
    }
  }
  struct ts_error err = {0};
  struct ts_pylock *lock = NULL;
  if (ts_lock_import(from, &lock, &err) != TS_OK)
    return ts_cli_report(&err);
  struct ts_buf out;
  ts_buf_init(&out, TS_CAP_LOCKFILE);
  int status = ts_pylock_write(lock, &out, &err) == TS_OK
                   ? ts_cli_write_output(output, out.data, out.len)
                   : ts_cli_report(&err);
  if (!status && strcmp(output, "-") != 0)
    ts_cli_info("Imported %zu package%s from %s into %s (nothing resolved)", lock->npackages,
                ts_cli_plural(lock->npackages), from, output);
  ts_buf_clear(&out);
  ts_pylock_free(lock);
  return status;
}

int ts_cli_lock_command(int argc, char **argv) {
  return wants_from(argc, argv) ? lock_from(argc, argv) : ts_cmd_lock(argc, argv);
}
