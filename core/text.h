/*
 * core/text.h — byte-level text helpers every parser needs: hex digits,
 * UTF-8 validation and encoding, percent-decoding.  Pure functions; the
 * one allocating function follows core/alloc.h (aborts on OOM).
 */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* The value of one hex digit (either case), -1 for any other byte. */
int ts_hex_digit(char c);

/* Decodes 2*n hex digits into out[n]; false (out undefined) when any byte
 * is not a hex digit. */
bool ts_hex_decode(const char *hex, size_t n, uint8_t *out);

/* Length of the well-formed UTF-8 sequence starting at s (at most n bytes
 * available): 1..4, or 0 when it is invalid (a stray continuation byte,
 * an overlong form, a surrogate, above U+10FFFF, or truncated). */
size_t ts_utf8_seq_len(const unsigned char *s, size_t n);

/* Offset of the first invalid UTF-8 sequence in s[0..len), len when all of
 * it is well-formed.  NUL bytes are valid UTF-8 here; callers that refuse
 * them check separately. */
size_t ts_utf8_check(const char *s, size_t len);

/* Writes the UTF-8 form of the Unicode scalar value cp (< 0x110000, not a
 * surrogate: callers check) into out[0..4); returns its length. */
size_t ts_utf8_put(char out[4], uint32_t cp);

/* Writes v in decimal into out (NUL-terminated); returns its length.  For
 * the hot paths that format a number per file (RECORD sizes, stage paths),
 * where snprintf's format parsing was ~700 instructions a call. */
size_t ts_u64_decimal(char out[21], uint64_t v);

/* s[0..n) with every "%XX" (two hex digits) replaced by its byte; a '%'
 * not followed by two hex digits stays as it is.  malloc'd, NUL-terminated. */
char *ts_percent_decode(const char *s, size_t n);
