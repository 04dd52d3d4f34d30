/* libFuzzer target: PEP 440 version parsing, ordering and accessors. */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "pep/version.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* The canonical text must re-parse to an equal version with the same text. */
static void roundtrip(const struct ts_version *v) {
  const char *str = ts_version_str(v);
  struct ts_version *r = NULL;
  if (ts_version_parse(str, strlen(str), &r, NULL) != TS_OK)
    abort();
  if (ts_version_cmp(v, r) != 0 || strcmp(ts_version_str(r), str) != 0)
    abort();
  ts_version_free(r);
  (void)ts_version_public(v);
  (void)ts_version_base(v);
  (void)ts_version_local(v);
  for (size_t i = 0; i < ts_version_release_count(v); i++)
    (void)ts_version_release_at(v, i);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  if (size == 0)
    return 0;
  /* The first byte splits the rest into two versions to compare. */
  size_t cut = data[0] % size;
  const char *s = (const char *)data + 1;
  size--;
  struct ts_version *a = NULL, *b = NULL;
  ts_version_parse(s, cut, &a, NULL);
  ts_version_parse(s + cut, size - cut, &b, NULL);
  if (a)
    roundtrip(a);
  if (b)
    roundtrip(b);
  if (a && b) {
    int c1 = ts_version_cmp(a, b), c2 = ts_version_cmp(b, a);
    if ((c1 < 0) != (c2 > 0) || (c1 == 0) != (c2 == 0))
      abort();
  }
  free(ts_version_canonicalize(s, size, true));
  ts_version_free(a);
  ts_version_free(b);
  return 0;
}
