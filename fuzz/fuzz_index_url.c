/* libFuzzer target: link resolution.  Input "BASE\nREF": ts_url_resolve
 * (whose fast path is our own RFC 3986 code) must agree with libcurl's
 * resolver whenever both succeed, and never crash. */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "index/curl_lib.h"
#include "index/url.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  const char *s = (const char *)data;
  const char *nl = memchr(s, '\n', size);
  if (!nl || memchr(s, '\0', size))
    return 0;
  size_t bl = (size_t)(nl - s);
  char *base = strndup(s, bl);
  const char *ref = nl + 1;
  size_t rl = size - bl - 1;
  char *got = NULL;
  enum ts_code c = ts_url_resolve(base, ref, rl, &got, NULL);
  const struct ts_curl *curl = ts_curl_load(NULL);
  if (!curl)
    abort();
  if (c == TS_OK) {
    char *r = strndup(ref, rl);
    r[strcspn(r, "#")] = '\0';
    CURLU *u = curl->url();
    char *want = NULL;
    (void)curl->url_set(u, CURLUPART_URL, base, CURLU_NON_SUPPORT_SCHEME);
    if (curl->url_set(u, CURLUPART_URL, r, CURLU_NON_SUPPORT_SCHEME) == CURLUE_OK)
      curl->url_get(u, CURLUPART_URL, &want, 0);
    curl->url_cleanup(u);
    if (!want || strcmp(want, got) != 0)
      abort();
    curl->free(want);
    free(r);
  }
  free(got);
  free(base);
  return 0;
}
