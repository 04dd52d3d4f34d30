/*
 * core/buf.h — a growable byte buffer with a hard size cap.
 *
 * Every buffer that holds untrusted input (index pages, METADATA, RECORD,
 * HTTP bodies) is created with a named cap, so a hostile server cannot make
 * us allocate without bound (curl's dynbuf `toobig`).
 * The data is always NUL-terminated for convenience, but parsers must use
 * `len`: network data may contain NUL bytes.
 */
#pragma once

#include <stddef.h>

#include "core/error.h"

/* Named caps for untrusted inputs. */
#define TS_CAP_INDEX_PAGE   (64u * 1024 * 1024)  /* a project page (torch's is ~1 MB) */
#define TS_CAP_METADATA     (16u * 1024 * 1024)  /* a METADATA file */
#define TS_CAP_RECORD       (64u * 1024 * 1024)  /* a RECORD file (torch: ~1.5 MB) */
#define TS_CAP_SMALL_FILE   (1u * 1024 * 1024)   /* WHEEL, entry_points.txt, config */
#define TS_CAP_LOCKFILE     (64u * 1024 * 1024)
#define TS_CAP_TINY_FILE    4096u                /* a marker or one-line file read back (a commit id) */
/* Text we assemble ourselves (a line, a key, a list of names): far above
 * any real one, so reaching it means a loop gone wrong, not a big input. */
#define TS_CAP_TEXT         (1u * 1024 * 1024)
/* A command's whole output held before it is written (freeze, inspect). */
#define TS_CAP_OUTPUT       (1024u * 1024 * 1024)

struct ts_buf {
  char *data;     /* owned; NULL until the first append */
  size_t len;
  size_t alloc;
  size_t max;     /* appends that would exceed this fail with TS_E_TOO_BIG */
};

/* Initialises an empty buffer with cap `max` (0 means no cap). */
void ts_buf_init(struct ts_buf *b, size_t max);
/* Releases the storage and resets to empty, keeping the cap (members only:
 * a buffer is embedded, never allocated on its own, so it has `_clear`, not
 * `_free`). */
void ts_buf_clear(struct ts_buf *b);
void ts_buf_reset(struct ts_buf *b); /* len = 0, keeps storage */

enum ts_code ts_buf_append(struct ts_buf *b, const void *data, size_t len)
    __attribute__((warn_unused_result));
/* Room for `extra` more bytes (and the NUL) without another allocation, so
 * a reader of known size can write into data + len directly; TS_E_TOO_BIG
 * past the cap, the buffer unchanged. */
enum ts_code ts_buf_reserve(struct ts_buf *b, size_t extra)
    __attribute__((warn_unused_result));
enum ts_code ts_buf_append_str(struct ts_buf *b, const char *s)
    __attribute__((warn_unused_result));
enum ts_code ts_buf_printf(struct ts_buf *b, const char *fmt, ...)
    __attribute__((format(printf, 2, 3), warn_unused_result));
/* The same for text we write ourselves into a buffer whose cap it cannot
 * reach (messages, keys, lists): any failure aborts, as core/alloc.h's
 * out-of-memory policy does. */
void ts_buf_xappend(struct ts_buf *b, const void *data, size_t len);
void ts_buf_xappend_str(struct ts_buf *b, const char *s);
void ts_buf_xprintf(struct ts_buf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* Transfers ownership of the NUL-terminated data to the caller ("you now own
 * the storage") and leaves the buffer empty.  Never returns NULL. */
char *ts_buf_take(struct ts_buf *b, size_t *len_out);
