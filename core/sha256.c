#include "core/sha256.h"

#include "core/alloc.h"
#include "core/text.h"

/* SHA-256 (FIPS 180-4) written here rather than taken from libcrypto:
 * linking libcrypto costs every process ~7 ms of CPU at start-up (21,000
 * relocations) on this kind of machine, a seventh of a warm resolve that
 * hashes only a few cache keys.  The blocks go through the SHA-NI
 * instructions where the CPU has them (the same instructions libcrypto
 * uses: ~1.7 GB/s here), else through the portable loop below. */
#include <pthread.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#if defined(__x86_64__) || defined(__i386__)
#include <cpuid.h>
#include <immintrin.h>
#define TS_SHA256_X86 1
#endif

struct ts_sha256 {
  uint32_t state[8];
  uint64_t total;     /* bytes hashed so far */
  uint8_t block[64];  /* a partial block, `pending` bytes of it */
  size_t pending;
};

static const uint32_t round_k[64] = {
    0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4,
    0xab1c5ed5, 0xd807aa98, 0x12835b01, 0x243185be, 0x550c7dc3, 0x72be5d74, 0x80deb1fe,
    0x9bdc06a7, 0xc19bf174, 0xe49b69c1, 0xefbe4786, 0x0fc19dc6, 0x240ca1cc, 0x2de92c6f,
    0x4a7484aa, 0x5cb0a9dc, 0x76f988da, 0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7,
    0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967, 0x27b70a85, 0x2e1b2138, 0x4d2c6dfc,
    0x53380d13, 0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85, 0xa2bfe8a1, 0xa81a664b,
    0xc24b8b70, 0xc76c51a3, 0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070, 0x19a4c116,
    0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a, 0x5b9cca4f, 0x682e6ff3,
    0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208, 0x90befffa, 0xa4506ceb, 0xbef9a3f7,
    0xc67178f2};

static const uint32_t initial_state[8] = {0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a,
                                          0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19};

static uint32_t ror(uint32_t x, int n) { return x >> n | x << (32 - n); }

static uint32_t load_be32(const uint8_t *p) {
  return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

static void blocks_portable(uint32_t s[8], const uint8_t *p, size_t n) {
  for (; n; n--, p += 64) {
    uint32_t w[64];
    for (int i = 0; i < 16; i++)
      w[i] = load_be32(p + 4 * i);
    for (int i = 16; i < 64; i++) {
      uint32_t s0 = ror(w[i - 15], 7) ^ ror(w[i - 15], 18) ^ w[i - 15] >> 3;
      uint32_t s1 = ror(w[i - 2], 17) ^ ror(w[i - 2], 19) ^ w[i - 2] >> 10;
      w[i] = w[i - 16] + s0 + w[i - 7] + s1;
    }
    uint32_t a = s[0], b = s[1], c = s[2], d = s[3], e = s[4], f = s[5], g = s[6], h = s[7];
    for (int i = 0; i < 64; i++) {
      uint32_t t1 = h + (ror(e, 6) ^ ror(e, 11) ^ ror(e, 25)) + ((e & f) ^ (~e & g)) +
                    round_k[i] + w[i];
      uint32_t t2 = (ror(a, 2) ^ ror(a, 13) ^ ror(a, 22)) + ((a & b) ^ (a & c) ^ (b & c));
      h = g;
      g = f;
      f = e;
      e = d + t1;
      d = c;
      c = b;
      b = a;
      a = t1 + t2;
    }
    s[0] += a;
    s[1] += b;
    s[2] += c;
    s[3] += d;
    s[4] += e;
    s[5] += f;
    s[6] += g;
    s[7] += h;
  }
}

#ifdef TS_SHA256_X86
/* The SHA-NI form: the state as the (A,B,E,F) and (C,D,G,H) pairs the
 * instructions take; each group of four rounds takes four message words,
 * the later ones scheduled from the four groups before. */
__attribute__((target("sha,sse4.1,ssse3"))) static void blocks_shani(uint32_t s[8],
                                                                    const uint8_t *p,
                                                                    size_t n) {
  const __m128i swap = _mm_set_epi64x(0x0c0d0e0f08090a0bLL, 0x0405060700010203LL);
  __m128i dcba = _mm_shuffle_epi32(_mm_loadu_si128((const __m128i *)&s[0]), 0xB1);
  __m128i hgfe = _mm_shuffle_epi32(_mm_loadu_si128((const __m128i *)&s[4]), 0x1B);
  __m128i abef = _mm_alignr_epi8(dcba, hgfe, 8);
  __m128i cdgh = _mm_blend_epi16(hgfe, dcba, 0xF0);
  for (; n; n--, p += 64) {
    __m128i abef0 = abef, cdgh0 = cdgh, w[4];
#pragma GCC unroll 16
    for (int g = 0; g < 16; g++) {
      __m128i *slot = &w[g & 3];
      if (g < 4) {
        *slot = _mm_shuffle_epi8(_mm_loadu_si128((const __m128i *)(p + 16 * g)), swap);
      } else {
        __m128i prev = w[(g - 1) & 3], prev2 = w[(g - 2) & 3];
        __m128i x = _mm_sha256msg1_epu32(*slot, w[(g - 3) & 3]);
        x = _mm_add_epi32(x, _mm_alignr_epi8(prev, prev2, 4));
        *slot = _mm_sha256msg2_epu32(x, prev);
      }
      __m128i wk = _mm_add_epi32(*slot, _mm_loadu_si128((const __m128i *)&round_k[4 * g]));
      cdgh = _mm_sha256rnds2_epu32(cdgh, abef, wk);
      abef = _mm_sha256rnds2_epu32(abef, cdgh, _mm_shuffle_epi32(wk, 0x0E));
    }
    abef = _mm_add_epi32(abef, abef0);
    cdgh = _mm_add_epi32(cdgh, cdgh0);
  }
  __m128i feba = _mm_shuffle_epi32(abef, 0x1B);
  __m128i dchg = _mm_shuffle_epi32(cdgh, 0xB1);
  _mm_storeu_si128((__m128i *)&s[0], _mm_blend_epi16(feba, dchg, 0xF0));
  _mm_storeu_si128((__m128i *)&s[4], _mm_alignr_epi8(dchg, feba, 8));
}

/* Written once under `detect_once`, read-only after. */
static pthread_once_t detect_once = PTHREAD_ONCE_INIT;
static bool use_shani;

static void detect(void) {
  unsigned a, b, c, d;
  const char *force = getenv("TORCHSOLVE_SHA256_PORTABLE");
  if (force && *force && strcmp(force, "0") != 0)
    return;
  if (!__get_cpuid(1, &a, &b, &c, &d) || !(c & bit_SSSE3) || !(c & bit_SSE4_1))
    return;
  use_shani = __get_cpuid_count(7, 0, &a, &b, &c, &d) && (b & bit_SHA);
}
#endif

static void blocks(uint32_t s[8], const uint8_t *p, size_t n) {
#ifdef TS_SHA256_X86
  pthread_once(&detect_once, detect);
  if (use_shani) {
    blocks_shani(s, p, n);
    return;
  }
#endif
  blocks_portable(s, p, n);
}

static void init(struct ts_sha256 *h) {
  memcpy(h->state, initial_state, sizeof h->state);
  h->total = 0;
  h->pending = 0;
}

struct ts_sha256 *ts_sha256_new(void) {
  struct ts_sha256 *h = ts_xmalloc(sizeof *h);
  init(h);
  return h;
}

void ts_sha256_update(struct ts_sha256 *h, const void *data, size_t len) {
  const uint8_t *p = data;
  h->total += len;
  if (h->pending) {
    size_t take = 64 - h->pending < len ? 64 - h->pending : len;
    memcpy(h->block + h->pending, p, take);
    h->pending += take;
    p += take;
    len -= take;
    if (h->pending < 64)
      return;
    blocks(h->state, h->block, 1);
    h->pending = 0;
  }
  if (len >= 64) {
    blocks(h->state, p, len / 64);
    p += len & ~(size_t)63;
    len &= 63;
  }
  memcpy(h->block, p, len);
  h->pending = len;
}

void ts_sha256_final(struct ts_sha256 *h, uint8_t out[TS_SHA256_LEN]) {
  uint64_t bits = h->total * 8;
  h->block[h->pending++] = 0x80;
  if (h->pending > 56) {
    memset(h->block + h->pending, 0, 64 - h->pending);
    blocks(h->state, h->block, 1);
    h->pending = 0;
  }
  memset(h->block + h->pending, 0, 56 - h->pending);
  for (int i = 0; i < 8; i++)
    h->block[56 + i] = (uint8_t)(bits >> (56 - 8 * i));
  blocks(h->state, h->block, 1);
  for (int i = 0; i < 8; i++) {
    out[4 * i] = (uint8_t)(h->state[i] >> 24);
    out[4 * i + 1] = (uint8_t)(h->state[i] >> 16);
    out[4 * i + 2] = (uint8_t)(h->state[i] >> 8);
    out[4 * i + 3] = (uint8_t)h->state[i];
  }
  h->pending = 0;
}

void ts_sha256_reset(struct ts_sha256 *h) { init(h); }

void ts_sha256_free(struct ts_sha256 *h) { free(h); }

void ts_sha256(const void *data, size_t len, uint8_t out[TS_SHA256_LEN]) {
  struct ts_sha256 h;
  init(&h);
  ts_sha256_update(&h, data, len);
  ts_sha256_final(&h, out);
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
