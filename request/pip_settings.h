/*
 * request/pip_settings.h — pip's configuration as `torchsolve pip` reads
 * it: pip.conf files in pip's order (configuration.py), lowest priority
 * first, then PIP_<KEY> variables, the last source of a key winning.  In
 * each file [global], then the command's own section over it.  Keys are
 * kept as pip normalises them (lower case, '-' for '_'); which keys mean
 * something is the caller's option table.
 *
 * Files, in this order: $XDG_CONFIG_DIRS/pip/pip.conf (default /etc/xdg),
 * /etc/pip.conf, ~/.pip/pip.conf and the XDG user file (skipped when
 * isolated or when $PIP_CONFIG_FILE exists), the environment's own
 * <prefix>/pip.conf, then $PIP_CONFIG_FILE (/dev/null: no file at all).
 * An absent or unreadable file is passed over, as pip does.
 */
#pragma once

#include <stdbool.h>
#include <stddef.h>

#include "core/error.h"

struct ts_pip_setting {
  char *key;
  char *value;
  char *where; /* "PIP_FOO" or "FILE [section]", for messages */
};

struct ts_pip_settings {
  struct ts_pip_setting *s; /* first-set order */
  size_t n;
};

/* The files above for `command` ("install"...), env_prefix being the
 * environment's prefix (NULL: none).  TS_E_PARSE for a file pip refuses
 * too, err naming file and line. */
enum ts_code ts_pip_settings_read_files(const char *command, const char *env_prefix,
                                        bool isolated, struct ts_pip_settings *st,
                                        struct ts_error *err);

/* Every non-empty PIP_<KEY>=value of env (an environ-style NULL-ended
 * array) but PIP_CONFIG_FILE, over what st holds. */
void ts_pip_settings_read_environment(struct ts_pip_settings *st, const char *const *env);

/* The value of key, NULL when no source set it. */
const struct ts_pip_setting *ts_pip_settings_get(const struct ts_pip_settings *st,
                                                 const char *key);

void ts_pip_settings_free(struct ts_pip_settings *st);

/* A flag's value as pip's strtobool reads it: 1 (1/true/yes/on/y/t),
 * 0 (0/false/no/off/n/f), -1 neither; case-insensitive. */
int ts_pip_truth(const char *value);
