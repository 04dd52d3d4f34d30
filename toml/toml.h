/*
 * toml/toml.h — a small, strict TOML 1.0 reader and a deterministic writer,
 * enough for pylock.toml files (PEP 751) as written by torchsolve, `pip lock`
 * and `uv export --format pylock.toml`.
 *
 * Reading: the whole document is checked (UTF-8, control characters, key
 * redefinition, table/array-of-tables rules, escapes, integer range, date
 * and float syntax) and turned into a tree of ts_toml_value nodes.  Errors
 * carry "LINE:COLUMN: what is wrong" (1-based, columns in characters).
 * Dates, times and floats are kept as their text: lock files only compare
 * and copy them.
 *
 * Writing: ts_toml_write emits a tree in the order its keys were added,
 * scalars first, then sub-tables as [headers], then arrays of tables as
 * [[headers]]; tables flagged `inline_form` and arrays of tables flagged
 * `inline_form` are written inline.  The same tree always gives the same
 * bytes.
 */
#pragma once

#include <stdbool.h>
#include <stddef.h>

#include "core/buf.h"
#include "core/error.h"

/* Nesting of arrays, inline tables and header/dotted key components.  Real
 * lock files need < 8; the cap bounds recursion for hostile input. */
#define TS_TOML_MAX_DEPTH 64
/* Longest key or string value (bytes); a wheel URL is < 1 KiB. */
#define TS_TOML_MAX_STRING (1u * 1024 * 1024)

enum ts_toml_type {
  TS_TOML_STRING,
  TS_TOML_INTEGER,
  TS_TOML_FLOAT,    /* text kept in .str */
  TS_TOML_BOOL,
  TS_TOML_DATETIME, /* text kept in .str; see datetime_kind */
  TS_TOML_ARRAY,
  TS_TOML_TABLE,
};

enum ts_toml_datetime_kind {
  TS_TOML_OFFSET_DATETIME, /* 1979-05-27T07:32:00Z, ...+00:00 */
  TS_TOML_LOCAL_DATETIME,  /* 1979-05-27T07:32:00 */
  TS_TOML_LOCAL_DATE,      /* 1979-05-27 */
  TS_TOML_LOCAL_TIME,      /* 07:32:00 */
};

struct ts_toml_value;

struct ts_toml_kv {
  char *key;     /* owned, NUL-terminated (keys cannot hold NUL: see below) */
  size_t key_len;
  struct ts_toml_value *value; /* owned */
};

/* A node.  Read it freely; build trees with the ts_toml_new_* and
 * ts_toml_table_set / ts_toml_array_push functions so that the lookup index
 * stays right. */
struct ts_toml_value {
  enum ts_toml_type type;
  unsigned line, col; /* where the value started (0 for built nodes) */
  /* String (may contain NUL from \u0000: use len), float or date text. */
  char *str;
  size_t len;
  long long integer;
  bool boolean;
  enum ts_toml_datetime_kind datetime_kind;
  /* TS_TOML_ARRAY */
  struct ts_toml_value **items;
  size_t nitems, items_cap;
  /* TS_TOML_TABLE, in insertion order */
  struct ts_toml_kv *kvs;
  size_t nkvs, kvs_cap;
  size_t *index;      /* open-addressing lookup over kvs, built past 8 keys */
  size_t index_cap;
  /* Writer hint: write this table (or this array of tables) inline. */
  bool inline_form;
  /* Parser bookkeeping (TOML's "defined" rules); writers ignore it. */
  unsigned flags;
  unsigned section;
};

/* Parses a TOML document (data need not be NUL-terminated).  Input longer
 * than TS_CAP_LOCKFILE fails with TS_E_TOO_BIG.  On success *root is a
 * table the caller frees with ts_toml_free; on failure *root is NULL and
 * err->detail reads "LINE:COL: ...". */
enum ts_code ts_toml_parse(const char *data, size_t len,
                           struct ts_toml_value **root, struct ts_error *err);

void ts_toml_free(struct ts_toml_value *v);
/* Deep copy (positions kept).  NULL for NULL. */
struct ts_toml_value *ts_toml_dup(const struct ts_toml_value *v);
/* Structural equality: same types, same keys in any order, same array
 * order, same scalar values and texts. */
bool ts_toml_equal(const struct ts_toml_value *a, const struct ts_toml_value *b);

/* Lookup of a key in a table (NULL when absent or when t is not a table). */
const struct ts_toml_value *ts_toml_get(const struct ts_toml_value *t,
                                        const char *key);

/* Builders.  Every function returning a node returns NULL only on an
 * invalid argument (out of memory aborts, core/alloc.h); the caller owns
 * the node until it hands it to a table or an array. */
struct ts_toml_value *ts_toml_new_table(void);
struct ts_toml_value *ts_toml_new_array(void);
struct ts_toml_value *ts_toml_new_string(const char *s, size_t len);
struct ts_toml_value *ts_toml_new_integer(long long v);
struct ts_toml_value *ts_toml_new_bool(bool v);
/* text must be a valid TOML date/time (checked); NULL otherwise. */
struct ts_toml_value *ts_toml_new_datetime(const char *text, size_t len);
/* Takes ownership of value in every case (frees it on failure).  Replaces
 * an existing key's value.  TS_E_NOMEM for a NULL value (a builder's
 * failure passed on), TS_E_INVALID when t is not a table. */
enum ts_code ts_toml_table_set(struct ts_toml_value *t, const char *key,
                               struct ts_toml_value *value);
/* Convenience: sets a string value (skips when s is NULL). */
enum ts_code ts_toml_table_set_str(struct ts_toml_value *t, const char *key,
                                   const char *s);
/* Takes ownership of value in every case. */
enum ts_code ts_toml_array_push(struct ts_toml_value *a,
                                struct ts_toml_value *value);

/* Classifies text as a TOML date/time literal; true when valid. */
bool ts_toml_datetime_check(const char *s, size_t len,
                            enum ts_toml_datetime_kind *kind);

/* Appends the document for the root table to out.  TS_E_INVALID when the
 * tree cannot be written as TOML (a non-table root, a NUL in a key). */
enum ts_code ts_toml_write(const struct ts_toml_value *root, struct ts_buf *out,
                           struct ts_error *err);
/* Appends one key as TOML (bare when possible, else a basic string). */
enum ts_code ts_toml_write_key(struct ts_buf *out, const char *key, size_t len);
/* Appends a basic string literal with escapes. */
enum ts_code ts_toml_write_string(struct ts_buf *out, const char *s, size_t len);
