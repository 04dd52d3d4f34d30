/* pip's target rules for `torchsolve pip`: see pip_target.h. */
#include "cli/pip_target.h"

#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "core/alloc.h"
#include "core/proc.h"
#include "target/target.h"

char *ts_pip_default_python(const char *named_python, bool system) {
  if (named_python || system)
    return NULL;
  char *located = NULL;
  struct ts_error err = {0};
  if (ts_target_locate(NULL, &located, &err) == TS_OK) {
    free(located); /* a venv (or $TORCHSOLVE_PYTHON) decides */
    return NULL;
  }
  /* `pip` runs under the python the shell finds, as `python -m pip` */
  char *path = ts_proc_find_program("python");
  return path ? path : ts_proc_find_program("python3");
}

/* The value of option `name` in argv (its last one), or NULL. */
static const char *value_of(char *const *argv, size_t n, const char *name) {
  const char *v = NULL;
  size_t len = strlen(name);
  for (size_t i = 1; i < n; i++) {
    if (!strcmp(argv[i], "--"))
      break;
    if (!strcmp(argv[i], name) && i + 1 < n)
      v = argv[++i];
    else if (!strncmp(argv[i], name, len) && argv[i][len] == '=')
      v = argv[i] + len + 1;
  }
  return v;
}

static bool has_flag(char *const *argv, size_t n, const char *name) {
  for (size_t i = 1; i < n && strcmp(argv[i], "--") != 0; i++)
    if (!strcmp(argv[i], name))
      return true;
  return false;
}

/* Whether any value of option `name` in argv contains `part` (want) or
 * is other than `part` (!want). */
static bool any_value(char *const *argv, size_t n, const char *name, const char *part,
                      bool want) {
  size_t len = strlen(name);
  for (size_t i = 1; i < n && strcmp(argv[i], "--") != 0; i++) {
    const char *v = NULL;
    if (!strcmp(argv[i], name) && i + 1 < n)
      v = argv[++i];
    else if (!strncmp(argv[i], name, len) && argv[i][len] == '=')
      v = argv[i] + len + 1;
    if (v && (want ? strstr(v, part) != NULL : strcmp(v, part) != 0))
      return true;
  }
  return false;
}

static int check_abi(const char *value, const char *python_version);

int ts_pip_check_target(char *const *argv, size_t n, bool install, const char *abi,
                        bool implementation) {
  const char *cmd = install ? "install" : "download";
  if (abi && check_abi(abi, value_of(argv, n, "--python-version")) != 0)
    return 2;
  if (!abi && !implementation && !value_of(argv, n, "--python-version") &&
      !value_of(argv, n, "--platform"))
    return 0;
  bool binary_only = (any_value(argv, n, "--only-binary", ":all:", true) ||
                      has_flag(argv, n, "--no-build")) &&
                     !any_value(argv, n, "--no-binary", ":none:", false);
  if (!binary_only && !has_flag(argv, n, "--no-deps"))
    return ts_cli_usage_error(cmd, "When restricting platform and interpreter constraints "
                              "using --python-version, --platform, --abi, or "
                              "--implementation, either --no-deps must be set, or "
                              "--only-binary=:all: must be set and --no-binary must not "
                              "be set (or must be set to :none:).");
  if (install && !has_flag(argv, n, "--dry-run") && !value_of(argv, n, "--target") &&
      !value_of(argv, n, "-t"))
    return ts_cli_usage_error(cmd, "Can not use any platform or abi specific options "
                              "unless installing via '--target' or using '--dry-run'");
  return 0;
}

static int check_abi(const char *value, const char *python_version) {
  if (!strcmp(value, "abi3") || !strcmp(value, "none"))
    return 0;
  char digits[16] = "";
  for (size_t i = 0, k = 0; python_version && python_version[i] && k + 1 < sizeof digits; i++)
    if (python_version[i] != '.')
      digits[k++] = python_version[i];
    else if (k > 1)
      break; /* "3.12.4": the major and minor only */
  if (!strncmp(value, "cp", 2) && strspn(value + 2, "0123456789") == strlen(value + 2) &&
      value[2] && (!digits[0] || !strcmp(value + 2, digits)))
    return 0;
  return ts_cli_usage_error("pip", "--abi '%s': torchsolve resolves for the ABI of "
                            "--python-version (cp%s, abi3 and none): give one of those or "
                            "drop --abi", value, digits[0] ? digits : "XY");
}
