/*
 * core/sha256.h — streaming SHA-256 (its own code: the SHA-NI instructions
 * where the CPU has them, ~1.7 GB/s here, else a portable loop;
 * TORCHSOLVE_SHA256_PORTABLE=1 forces the portable one, for tests), plus
 * hex and urlsafe-base64 forms used by index hashes and wheel RECORD files
 * respectively.
 */
#pragma once

#include <stddef.h>
#include <stdint.h>

#include "core/error.h"

#define TS_SHA256_LEN 32
#define TS_SHA256_HEX_LEN 64

struct ts_sha256; /* opaque */

struct ts_sha256 *ts_sha256_new(void);  /* never NULL (core/alloc.h); free with _free */
void ts_sha256_update(struct ts_sha256 *h, const void *data, size_t len);
/* Writes the 32-byte digest; the context may then be freed or reused after
 * ts_sha256_reset. */
void ts_sha256_final(struct ts_sha256 *h, uint8_t out[TS_SHA256_LEN]);
void ts_sha256_reset(struct ts_sha256 *h);
void ts_sha256_free(struct ts_sha256 *h);

/* One-shot digest. */
void ts_sha256(const void *data, size_t len, uint8_t out[TS_SHA256_LEN]);

/* Lower-case hex, NUL-terminated (65 bytes). */
void ts_sha256_hex(const uint8_t digest[TS_SHA256_LEN],
                   char out[TS_SHA256_HEX_LEN + 1]);
/* RECORD form: urlsafe base64 without padding (44 bytes incl. NUL). */
void ts_sha256_b64url(const uint8_t digest[TS_SHA256_LEN], char out[44]);
/* Parses 64 hex digits (either case).  Returns TS_E_PARSE otherwise. */
enum ts_code ts_sha256_from_hex(const char *hex, size_t len,
                                uint8_t out[TS_SHA256_LEN]);
