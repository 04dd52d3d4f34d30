/* The bundled rules compiled into the binary: see builtin.h. */
#include "rules/builtin.h"

#include <string.h>

#include "rules/rules_codec.h"

struct ts_rules *ts_rules_builtin_parse(const struct ts_rules_builtin *b, const void *data,
                                        size_t len, const char *path) {
  if (len != b->source_len || memcmp(data, b->source, len) != 0)
    return NULL;
  return ts_rules_decode(b->parsed, b->parsed_len, path);
}
