/*
 * core/json.h — JSON written as Python's json.dump(indent=2,
 * ensure_ascii=False) writes it, byte for byte: what pip's reports look
 * like, so a reader comparing ours with pip's sees the same text.
 *
 * A writer appends to one caller-owned buffer as it goes (no tree, no
 * copies of the strings).  Errors are sticky: the first failure (a string
 * that is not UTF-8, the buffer's cap) stops every later write, and
 * ts_json_finish returns it.
 */
#pragma once

#include <stdbool.h>
#include <stddef.h>

#include "core/buf.h"
#include "core/error.h"

/* Appends s[0..len) as a JSON string, quotes included: '"', '\\' and the
 * control characters escaped as json.dumps escapes them (\n, \r, \t, \b,
 * \f, else \u00XX), every other byte as it is.  TS_E_INVALID (out
 * unchanged) when s is not well-formed UTF-8; TS_E_TOO_BIG past out's cap. */
enum ts_code ts_json_string_append(struct ts_buf *out, const char *s, size_t len)
    __attribute__((warn_unused_result));

struct ts_json_writer {
  struct ts_buf *out;
  unsigned level;  /* open containers */
  bool first;      /* nothing written yet in the innermost container */
  bool after_key;  /* a key was written; its value comes next */
  enum ts_code rc; /* the first failure */
};

void ts_json_writer_init(struct ts_json_writer *w, struct ts_buf *out);
/* '{' or '[' as the next value; ts_json_close with the matching bracket.
 * An empty container is written "{}" / "[]". */
void ts_json_open(struct ts_json_writer *w, char bracket);
void ts_json_close(struct ts_json_writer *w, char bracket);
/* The next member's key, in an object; its value follows. */
void ts_json_key(struct ts_json_writer *w, const char *key);
/* Values: a member's after ts_json_key, else the next item of an array. */
void ts_json_str(struct ts_json_writer *w, const char *s);
void ts_json_str_or_null(struct ts_json_writer *w, const char *s); /* NULL: null */
void ts_json_bool(struct ts_json_writer *w, bool v);
void ts_json_null(struct ts_json_writer *w);
void ts_json_int(struct ts_json_writer *w, long long v);
/* TS_OK, or the first failure. */
enum ts_code ts_json_finish(const struct ts_json_writer *w);
