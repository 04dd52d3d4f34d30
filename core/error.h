/*
 * core/error.h — the one error vocabulary of torchsolve.
 *
 * Every fallible library function returns an `enum ts_code` (TS_OK == 0) and,
 * when given a non-NULL `struct ts_error *`, stores one line of detail there:
 * what failed and on what (a redacted URL, a file name, a position).  Only
 * cli/ turns the pair into a message, so the library never prints.
 *
 * The code list is an X-macro so the enum, the names and the generic
 * "what to do" hints can never drift apart (tdnf's hand-numbered codes
 * collided).  Add a code by adding one X() line.
 */
#pragma once

#include <stdarg.h>
#include <stddef.h>

/*      name               exit  hint (what the user can do) */
#define TS_ERROR_LIST(X) \
  X(TS_OK,               0, "") \
  X(TS_E_NOMEM,          1, "the machine is out of memory") \
  X(TS_E_USAGE,          2, "see 'torchsolve help'") \
  X(TS_E_IO,             1, "check that the path exists and is writable") \
  X(TS_E_PARSE,          1, "the input is malformed; fix it or report it to its publisher") \
  X(TS_E_INVALID,        2, "check the value given") \
  X(TS_E_NOT_FOUND,      1, "check the name, the index URL, or the path") \
  X(TS_E_TOO_BIG,        1, "the input exceeds a safety limit") \
  X(TS_E_UNSUPPORTED,    1, "this is not supported by torchsolve yet") \
  X(TS_E_NETWORK,        3, "check the network, the proxy settings or the index URL") \
  X(TS_E_HTTP,           3, "the server refused the request; check the URL and credentials") \
  X(TS_E_TLS,            3, "pass --cert FILE for a private CA, or --trusted-host HOST") \
  X(TS_E_TIMEOUT,        3, "the server is slow or stalled; retry or raise --timeout") \
  X(TS_E_OFFLINE,        3, "run once without --offline to fill the cache") \
  X(TS_E_HASH_MISSING,   1, "hash-checking is on: pin each requirement with == and --hash=sha256:..., or turn it off") \
  X(TS_E_HASH,           4, "the file differs from what was published or locked; do not trust it") \
  X(TS_E_BAD_WHEEL,      4, "the wheel is broken or hostile; nothing was installed") \
  X(TS_E_UNSAFE_PATH,    4, "the archive tries to write outside its target; nothing was installed") \
  X(TS_E_BUILD,          1, "the package's build failed (its log is named above); fix the build or install a wheel of it") \
  X(TS_E_RESOLVE,        1, "relax a requirement named above") \
  X(TS_E_HOST,           5, "pick a build this machine can run, or pass --ignore-host") \
  X(TS_E_REFUSED,        1, "this host cannot run what was asked: apply the fix above, or pass --ignore-host") \
  X(TS_E_RULES,          1, "fix the rules file (see 'torchsolve rules check')") \
  X(TS_E_PYTHON,         1, "pass --python PATH to a working interpreter or venv") \
  X(TS_E_BUSY,           6, "another torchsolve is using this environment; wait for it") \
  X(TS_E_CONFLICT,       1, "uninstall one of the two, or pass --allow-overwrite") \
  X(TS_E_INTERRUPTED,    8,   "interrupted; the environment was left as it was") \
  X(TS_E_INTERNAL,       70, "this is a bug in torchsolve; please report it")

enum ts_code {
#define TS_ERROR_ENUM(name, exit, hint) name,
  TS_ERROR_LIST(TS_ERROR_ENUM)
#undef TS_ERROR_ENUM
  TS_CODE_COUNT
};

#define TS_ERROR_DETAIL_MAX 1024
/* At most this many bytes of an offending input (a file name, a line)
 * are quoted in a detail, so that what was wrong with it still fits. */
#define TS_ERROR_QUOTE_MAX 300

/* Detail for the edge.  Plain value type; zero-initialise before use. */
struct ts_error {
  enum ts_code code;
  char detail[TS_ERROR_DETAIL_MAX];
};

/* Stores code and a printf-style detail in *err (if err is non-NULL) and
 * returns code, so callers write `return ts_error_set(err, TS_E_IO, ...)`.
 * A detail already set is replaced.  A detail longer than the buffer keeps
 * its beginning and its end (the reason) around " ... ". */
enum ts_code ts_error_set(struct ts_error *err, enum ts_code code,
                          const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
enum ts_code ts_error_vset(struct ts_error *err, enum ts_code code,
                           const char *fmt, va_list ap)
    __attribute__((format(printf, 3, 0)));

/* Prefixes the existing detail with more context ("fetching X: <old>"),
 * keeping the code.  Returns err->code (TS_OK when err is NULL). */
enum ts_code ts_error_wrap(struct ts_error *err, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

/* Static strings: the code's identifier ("TS_E_IO") and its hint. */
const char *ts_code_name(enum ts_code code);
const char *ts_code_hint(enum ts_code code);
/* Documented process exit status for a code (0..127). */
int ts_code_exit_status(enum ts_code code);
