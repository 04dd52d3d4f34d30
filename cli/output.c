/* What every command prints through: errors (once, with the code's hint
 * and exit status), usage errors, information and warnings on stderr, and
 * the options that steer them (ts_cli). */
#include <stdarg.h>
#include <stdio.h>

#include "cli/cli.h"

struct ts_cli_globals ts_cli;

int ts_cli_report(const struct ts_error *err) {
  return ts_cli_report_explained(err, NULL, 0);
}

/* Error text can quote what a server or a file said: control characters
 * are shown as '?' so that none reaches the terminal as an escape. */
static void put_safe(const char *s) {
  for (; *s; s++) {
    unsigned char c = (unsigned char)*s;
    fputc(c < 0x20 || c == 0x7f ? '?' : c, stderr);
  }
}

int ts_cli_report_explained(const struct ts_error *err, char *const *lines, size_t n) {
  const char *red = ts_cli.color ? "\033[1;31m" : "";
  const char *reset = ts_cli.color ? "\033[0m" : "";
  fprintf(stderr, "%serror%s: ", red, reset);
  put_safe(err->detail[0] ? err->detail : ts_code_name(err->code));
  fputc('\n', stderr);
  for (size_t i = 0; i < n; i++) {
    fputs("  ", stderr);
    put_safe(lines[i]);
    fputc('\n', stderr);
  }
  const char *hint = ts_code_hint(err->code);
  if (hint[0])
    fprintf(stderr, "  hint: %s\n", hint);
  return ts_code_exit_status(err->code);
}

int ts_cli_usage_error(const char *command, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  fprintf(stderr, "error: ");
  vfprintf(stderr, fmt, ap);
  if (command)
    fprintf(stderr, "\n  see 'torchsolve %s --help'\n", command);
  else
    fprintf(stderr, "\n  see 'torchsolve --help'\n");
  va_end(ap);
  return 2;
}

void ts_cli_info(const char *fmt, ...) {
  if (ts_cli.verbosity < 0)
    return;
  va_list ap;
  va_start(ap, fmt);
  vfprintf(stderr, fmt, ap);
  fputc('\n', stderr);
  va_end(ap);
}

void ts_cli_warn(const char *fmt, ...) {
  const char *yellow = ts_cli.color ? "\033[1;33m" : "";
  const char *reset = ts_cli.color ? "\033[0m" : "";
  va_list ap;
  va_start(ap, fmt);
  fprintf(stderr, "%swarning%s: ", yellow, reset);
  vfprintf(stderr, fmt, ap);
  fputc('\n', stderr);
  va_end(ap);
}
