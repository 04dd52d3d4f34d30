/*
 * pep/pep508_internal.h — the PEP 508 tokenizer pieces shared by marker.c
 * and requirement.c.  Private: not a contract for other folders.
 */
#pragma once

#include <stdbool.h>
#include <stddef.h>

#include "core/error.h"
#include "pep/requirement.h"

/* packaging's WS token: spaces and tabs only. */
size_t ts_pep508_ws(const char *s, size_t len, size_t p);

/* Python's \b at position p, with bytes >= 0x80 counted as word
 * characters (Unicode letters are; callers reject invalid UTF-8 first). */
bool ts_pep508_word_boundary(const char *s, size_t len, size_t p);

/* Position of the first byte that is not valid UTF-8 (or a NUL), or len
 * when the whole slice is valid. */
size_t ts_pep508_check_utf8(const char *s, size_t len);

/* Parses a marker expression starting at *pos (packaging's _parse_marker:
 * no end-of-input check) and advances *pos past it. */
enum ts_code ts_marker_parse_at(const char *s, size_t len, size_t *pos,
                                struct ts_marker **out, struct ts_error *err);

/* Error helper: "<what> at position N in '<excerpt>'". */
enum ts_code ts_pep508_error(struct ts_error *err, enum ts_code code,
                             const char *s, size_t len, size_t pos,
                             const char *what);
