#include "core/sha256.h"

#include "core/text.h"

#include <openssl/evp.h>
#include <stdlib.h>

struct ts_sha256 {
  EVP_MD_CTX *ctx;
};

struct ts_sha256 *ts_sha256_new(void) {
  struct ts_sha256 *h = malloc(sizeof *h);
  if (!h)
    return NULL;
  h->ctx = EVP_MD_CTX_new();
  if (!h->ctx || EVP_DigestInit_ex(h->ctx, EVP_sha256(), NULL) != 1) {
    EVP_MD_CTX_free(h->ctx);
    free(h);
    return NULL;
  }
  return h;
}

void ts_sha256_update(struct ts_sha256 *h, const void *data, size_t len) {
  EVP_DigestUpdate(h->ctx, data, len);
}

void ts_sha256_final(struct ts_sha256 *h, uint8_t out[TS_SHA256_LEN]) {
  unsigned int n = 0;
  EVP_DigestFinal_ex(h->ctx, out, &n);
}

void ts_sha256_reset(struct ts_sha256 *h) {
  EVP_DigestInit_ex(h->ctx, EVP_sha256(), NULL);
}

void ts_sha256_free(struct ts_sha256 *h) {
  if (!h)
    return;
  EVP_MD_CTX_free(h->ctx);
  free(h);
}

void ts_sha256(const void *data, size_t len, uint8_t out[TS_SHA256_LEN]) {
  unsigned int n = 0;
  EVP_Digest(data, len, out, &n, EVP_sha256(), NULL);
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
