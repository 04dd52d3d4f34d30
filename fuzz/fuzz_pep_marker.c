/* libFuzzer target: PEP 508 environment markers (parse, print, evaluate). */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "pep/requirement.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static const struct ts_marker_env env = {
    .implementation_name = "cpython",
    .implementation_version = "3.12.3",
    .os_name = "posix",
    .platform_machine = "x86_64",
    .platform_python_implementation = "CPython",
    .platform_release = "6.1.0",
    .platform_system = "Linux",
    .platform_version = "#1 SMP",
    .python_full_version = "3.12.3+",
    .python_version = "3.12",
    .sys_platform = "linux",
};

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  struct ts_marker *m = NULL;
  if (ts_marker_parse((const char *)data, size, &m, NULL) != TS_OK)
    return 0;
  /* Printing is a fixed point and keeps the meaning. */
  const char *s = ts_marker_str(m);
  struct ts_marker *again = NULL;
  if (ts_marker_parse(s, strlen(s), &again, NULL) != TS_OK)
    abort();
  if (strcmp(ts_marker_str(again), s))
    abort();
  static const char *const extras[] = {"a", "Foo_Bar"};
  for (int ctx = 0; ctx < 3; ctx++) {
    struct ts_marker_eval_opts o = {(enum ts_marker_context)ctx, ctx ? "x" : NULL,
                                    extras, 2, NULL, 0};
    bool r1 = false, r2 = false;
    enum ts_code c1 = ts_marker_evaluate(m, &env, &o, &r1, NULL);
    enum ts_code c2 = ts_marker_evaluate(again, &env, &o, &r2, NULL);
    if (c1 != c2 || (c1 == TS_OK && r1 != r2))
      abort();
  }
  struct ts_marker *d = ts_marker_dup(m);
  if (!d || strcmp(ts_marker_str(d), s))
    abort();
  ts_marker_free(d);
  ts_marker_free(again);
  ts_marker_free(m);
  return 0;
}
