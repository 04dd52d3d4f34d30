#include "core/sha256.h"

#include "core/alloc.h"
#include "core/text.h"

/* libcrypto stays, by the project's rule that a well-kept library does
 * hashing better than hand-written code.  Measured: loading it costs a
 * warm resolve ~7 ms of CPU (its relocations); a SHA-256 of our own
 * removed that, and was reverted for this rule.  Dlopen'ing it as
 * index/curl_lib does for libcurl would not help while every warm run
 * hashes its cache keys.
 *
 * The low-level SHA256_* functions, not EVP: EVP costs every process 5.9 M
 * instructions at its first digest (reading openssl.cnf, starting the
 * default provider, building the method store), a fifth of a warm
 * resolve that hashes only a few cache keys, for the same SHA-NI block
 * code that SHA256_Update calls directly.  Deprecated since OpenSSL 3.0,
 * present in every 3.x. */
#define OPENSSL_SUPPRESS_DEPRECATED
#include <openssl/sha.h>
#include <stdlib.h>

struct ts_sha256 {
  SHA256_CTX ctx;
};

struct ts_sha256 *ts_sha256_new(void) {
  struct ts_sha256 *h = ts_xmalloc(sizeof *h);
  if (SHA256_Init(&h->ctx) != 1)
    abort(); /* only fails on a NULL context */
  return h;
}

void ts_sha256_update(struct ts_sha256 *h, const void *data, size_t len) {
  SHA256_Update(&h->ctx, data, len);
}

void ts_sha256_final(struct ts_sha256 *h, uint8_t out[TS_SHA256_LEN]) {
  SHA256_Final(out, &h->ctx);
}

void ts_sha256_reset(struct ts_sha256 *h) { SHA256_Init(&h->ctx); }

void ts_sha256_free(struct ts_sha256 *h) { free(h); }

void ts_sha256(const void *data, size_t len, uint8_t out[TS_SHA256_LEN]) {
  SHA256_CTX c;
  SHA256_Init(&c);
  SHA256_Update(&c, data, len);
  SHA256_Final(out, &c);
}

void ts_sha256_hex(const uint8_t digest[TS_SHA256_LEN],
                   char out[TS_SHA256_HEX_LEN + 1]) {
  static const char digits[] = "0123456789abcdef";
  for (int i = 0; i < TS_SHA256_LEN; i++) {
    out[2 * i] = digits[digest[i] >> 4];
    out[2 * i + 1] = digits[digest[i] & 15];
  }
  out[TS_SHA256_HEX_LEN] = '\0';
}

void ts_sha256_b64url(const uint8_t digest[TS_SHA256_LEN], char out[44]) {
  static const char alphabet[] =
      "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";
  size_t o = 0;
  int i = 0;
  for (; i + 2 < TS_SHA256_LEN; i += 3) {
    uint32_t v = (uint32_t)digest[i] << 16 | (uint32_t)digest[i + 1] << 8 |
                 digest[i + 2];
    out[o++] = alphabet[v >> 18 & 63];
    out[o++] = alphabet[v >> 12 & 63];
    out[o++] = alphabet[v >> 6 & 63];
    out[o++] = alphabet[v & 63];
  }
  /* 32 = 30 + 2 remaining bytes -> 3 characters, no padding */
  uint32_t v = (uint32_t)digest[i] << 16 | (uint32_t)digest[i + 1] << 8;
  out[o++] = alphabet[v >> 18 & 63];
  out[o++] = alphabet[v >> 12 & 63];
  out[o++] = alphabet[v >> 6 & 63];
  out[o] = '\0';
}

enum ts_code ts_sha256_from_hex(const char *hex, size_t len,
                                uint8_t out[TS_SHA256_LEN]) {
  if (len != TS_SHA256_HEX_LEN)
    return TS_E_PARSE;
  return ts_hex_decode(hex, TS_SHA256_LEN, out) ? TS_OK : TS_E_PARSE;
}
