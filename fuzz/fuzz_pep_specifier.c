/* libFuzzer target: PEP 440 specifier sets (parse, text, contains, filter). */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "pep/specifier.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  /* Input: "<specifier set>\n<version>\n<version>...". */
  const char *s = (const char *)data;
  const char *nl = memchr(s, '\n', size);
  size_t slen = nl ? (size_t)(nl - s) : size;
  struct ts_specset *set = NULL;
  if (ts_specset_parse(s, slen, &set, NULL) != TS_OK)
    return 0;
  /* The canonical text re-parses to an equal set with the same text. */
  const char *str = ts_specset_str(set);
  struct ts_specset *again = NULL;
  if (ts_specset_parse(str, strlen(str), &again, NULL) != TS_OK)
    abort();
  if (!ts_specset_equal(set, again) || strcmp(ts_specset_str(again), str))
    abort();
  ts_specset_free(again);

  struct ts_version *vs[16];
  size_t n = 0, keep[16];
  size_t p = nl ? slen + 1 : size;
  while (p < size && n < 16) {
    const char *e = memchr(s + p, '\n', size - p);
    size_t l = e ? (size_t)(e - (s + p)) : size - p;
    struct ts_version *v = NULL;
    if (ts_version_parse(s + p, l, &v, NULL) == TS_OK) {
      vs[n++] = v;
      bool a = ts_specset_contains(set, v, TS_PRE_INCLUDE);
      bool b = ts_specset_contains_ex(set, v, NULL, 0, TS_PRE_INCLUDE, false);
      if (a != b)
        abort();
      /* Excluding pre-releases can only shrink the answer. */
      if (ts_specset_contains(set, v, TS_PRE_EXCLUDE) && !a)
        abort();
    } else {
      (void)ts_specset_contains_ex(set, NULL, s + p, l, TS_PRE_DEFAULT, false);
    }
    p += l + 1;
  }
  size_t k = ts_specset_filter(set, (const struct ts_version *const *)vs, n,
                               TS_PRE_DEFAULT, keep);
  for (size_t i = 1; i < k; i++)
    if (keep[i] <= keep[i - 1] || keep[i] >= n)
      abort();
  struct ts_specset *both = ts_specset_and(set, set);
  if (both && !ts_specset_equal(both, set))
    abort();
  ts_specset_free(both);
  for (size_t i = 0; i < n; i++)
    ts_version_free(vs[i]);
  ts_specset_free(set);
  return 0;
}
