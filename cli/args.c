/* Argument helpers shared by every command's option loop. */
#include <string.h>

#include "cli/cli.h"

int ts_cli_flag_value(const char *name, int argc, char **argv, int *i,
                      const char **v) {
  size_t n = strlen(name);
  const char *a = argv[*i];
  if (strncmp(a, name, n) != 0)
    return 0;
  /* "--name=VALUE" for long options only: "-r=x" is not pip syntax. */
  if (a[n] == '=' && name[1] == '-') {
    *v = a + n + 1;
    return 1;
  }
  if (a[n] != '\0')
    return 0;
  if (*i + 1 >= argc)
    return -1;
  *v = argv[++*i];
  return 1;
}
