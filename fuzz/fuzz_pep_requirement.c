/* libFuzzer target: PEP 508 requirement strings. */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "pep/requirement.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  struct ts_requirement *r = NULL;
  struct ts_error err = {0};
  if (ts_requirement_parse((const char *)data, size, &r, &err) != TS_OK) {
    if (err.detail[0] == '\0')
      abort(); /* every failure says why */
    return 0;
  }
  /* The canonical text parses back to an equal requirement, and printing
   * is then stable. */
  char *s = ts_requirement_str(r);
  if (!s)
    abort();
  struct ts_requirement *again = NULL;
  if (ts_requirement_parse(s, strlen(s), &again, &err) != TS_OK)
    abort();
  if (!ts_requirement_equal(r, again))
    abort();
  char *s2 = ts_requirement_str(again);
  if (!s2 || strcmp(s, s2))
    abort();
  struct ts_requirement *d = ts_requirement_dup(r);
  if (!d || !ts_requirement_equal(r, d))
    abort();
  if (r->marker) {
    struct ts_marker_env env = {0};
    (void)ts_marker_eval(r->marker, &env, "test");
  }
  ts_requirement_free(d);
  free(s2);
  ts_requirement_free(again);
  free(s);
  ts_requirement_free(r);
  return 0;
}
