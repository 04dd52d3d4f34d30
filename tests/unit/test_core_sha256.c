/* core/sha256: FIPS 180-4's test vectors, and every length from 0 to 299
 * (each padding case: 55, 56, 63, 64 bytes...) fed whole and in uneven
 * pieces, through the SHA-NI blocks where the CPU has them and through the
 * portable ones (TORCHSOLVE_SHA256_PORTABLE; criterion runs each test in a
 * process of its own, so the choice made at the first digest is the
 * test's).  The expected digest of digests was computed with Python's
 * hashlib. */
#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>

#include "core/sha256.h"

static void hex_of(const void *data, size_t len, char out[TS_SHA256_HEX_LEN + 1]) {
  uint8_t d[TS_SHA256_LEN];
  ts_sha256(data, len, d);
  ts_sha256_hex(d, out);
}

static void check_vectors(void) {
  char hex[TS_SHA256_HEX_LEN + 1];
  hex_of("", 0, hex);
  cr_assert_str_eq(hex, "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
  hex_of("abc", 3, hex);
  cr_assert_str_eq(hex, "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
  const char *two = "abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq";
  hex_of(two, strlen(two), hex);
  cr_assert_str_eq(hex, "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1");
  char *million = malloc(1000000);
  cr_assert(million);
  memset(million, 'a', 1000000);
  hex_of(million, 1000000, hex);
  free(million);
  cr_assert_str_eq(hex, "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0");
}

/* sha256 of the concatenated digests of pattern[:n], n = 0..299, each
 * digest computed both whole and from pieces of 1 to 70 bytes. */
static void check_every_length(void) {
  uint8_t pattern[300];
  for (int i = 0; i < 300; i++)
    pattern[i] = (uint8_t)(i * 7 + 3);
  struct ts_sha256 *outer = ts_sha256_new();
  struct ts_sha256 *piecewise = ts_sha256_new();
  cr_assert(outer && piecewise);
  for (size_t n = 0; n < 300; n++) {
    uint8_t whole[TS_SHA256_LEN], pieces[TS_SHA256_LEN];
    ts_sha256(pattern, n, whole);
    ts_sha256_reset(piecewise);
    for (size_t off = 0, step = 1 + n % 70; off < n; off += step)
      ts_sha256_update(piecewise, pattern + off, n - off < step ? n - off : step);
    ts_sha256_final(piecewise, pieces);
    cr_assert(memcmp(whole, pieces, sizeof whole) == 0, "length %zu: pieces differ", n);
    ts_sha256_update(outer, whole, sizeof whole);
  }
  uint8_t d[TS_SHA256_LEN];
  char hex[TS_SHA256_HEX_LEN + 1];
  ts_sha256_final(outer, d);
  ts_sha256_hex(d, hex);
  ts_sha256_free(outer);
  ts_sha256_free(piecewise);
  cr_assert_str_eq(hex, "7b074096cabb18dd0d1b468a173cb2f97f80e952525bca29542e606fd6d0753a");
}

static void portable(void) { setenv("TORCHSOLVE_SHA256_PORTABLE", "1", 1); }

Test(sha256, vectors) { check_vectors(); }

Test(sha256, every_length) { check_every_length(); }

Test(sha256, vectors_portable, .init = portable) { check_vectors(); }

Test(sha256, every_length_portable, .init = portable) { check_every_length(); }
