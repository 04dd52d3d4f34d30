/*
 * wheel/record.h — RECORD files (PEP 376 / wheel spec): CSV rows of
 * path, hash ("sha256=<urlsafe-b64-nopad>" or empty), size (or empty).
 * Parsed as Python's csv module writes them (quotes when a field holds a
 * comma, a quote or a newline; "" inside quotes), CRLF or LF.
 */
#pragma once

#include <stddef.h>
#include <stdint.h>

#include "core/buf.h"
#include "core/error.h"

struct ts_record_row {
  char *path;   /* decoded, NUL-terminated; owned by the record */
  char *hash;   /* "" when absent */
  char *size;   /* "" when absent */
};

struct ts_record {
  struct ts_record_row *rows;
  size_t count;
  size_t alloc_;
};

/* Parses data[0..len).  Rows with a wrong number of fields or an empty path
 * are TS_E_PARSE.  Clear with ts_record_clear (also after an error). */
enum ts_code ts_record_parse(const char *data, size_t len,
                             struct ts_record *out, struct ts_error *err);
void ts_record_clear(struct ts_record *r);

/* Reads and parses <distinfo>/RECORD (at most TS_CAP_RECORD bytes):
 * TS_E_NOT_FOUND when there is none, else as ts_fs_read_file and
 * ts_record_parse.  Free with ts_record_clear (also after an error). */
enum ts_code ts_record_read_distinfo(const char *distinfo, struct ts_record *out,
                                     struct ts_error *err);

/* Appends one CSV row (quoting as csv.writer does) terminated by "\n". */
enum ts_code ts_record_write_row(struct ts_buf *b, const char *path,
                                 const char *hash, const char *size)
    __attribute__((warn_unused_result));

/* Decodes a "sha256=<b64url>" hash; TS_E_UNSUPPORTED for other algorithms,
 * TS_E_PARSE for bad encodings. */
enum ts_code ts_record_hash_sha256(const char *hash, uint8_t out[32],
                                   struct ts_error *err);
