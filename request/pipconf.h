/*
 * request/pipconf.h — pip's configuration files (pip.conf) as pip reads them
 * through configparser.RawConfigParser: "[section]" headers, "key = value"
 * or "key: value" lines, indented lines continuing the previous value
 * (joined with "\n": find-links lists are written so), lines starting
 * with '#' or ';' are comments.  Keys are normalised as pip's
 * _normalize_name: lower case, '_' as '-', a leading "--" dropped.  A key
 * given twice in one section, a line outside any section or without a
 * delimiter is TS_E_PARSE naming file and line (pip refuses such a file
 * too).  Pure: the caller reads the file.
 */
#pragma once

#include <stddef.h>

#include "core/error.h"

struct ts_pipconf_entry {
  char *section;   /* as written */
  char *key;       /* normalised */
  char *value;     /* stripped; continuation lines joined with "\n" */
  unsigned line;
};

struct ts_pipconf {
  struct ts_pipconf_entry *entries; /* file order */
  size_t n;
};

enum ts_code ts_pipconf_parse(const char *text, size_t len, const char *file,
                              struct ts_pipconf *out, struct ts_error *err);
void ts_pipconf_clear(struct ts_pipconf *c);

/* The value of key in section, NULL when absent. */
const char *ts_pipconf_get(const struct ts_pipconf *c, const char *section,
                           const char *key);
