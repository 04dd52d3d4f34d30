/*
 * rules/builtin.h — the bundled rules.yaml compiled into the binary.
 *
 * A first run (empty cache) parsed and validated rules.yaml's YAML, about
 * 15 M instructions, and a warm run read its parsed entry from the cache
 * (rules_cache.h) after hashing the file's 56 kB twice, about 3 M.  At
 * build time tools/rules_embed.c parses the source tree's rules.yaml with
 * the same parser (ts_rules_parse) and writes its bytes and their parse
 * (rules_codec.h) into a C file, the ts_rules_bundled library.  At run
 * time the file in force is still read: when its bytes are exactly those
 * (a memcmp, cheaper than a hash and exact), its parse comes from the
 * binary and the cache is not touched.  Any other bytes (the newer facts
 * `torchsolve rules update` kept, the user's file, --rules, a bundled
 * file edited or installed from another version) are parsed, or read
 * from the cache, as before: facts still update without a new binary.
 */
#pragma once

#include <stddef.h>

#include "rules/rules.h"

struct ts_rules_builtin {
  const unsigned char *source; /* the rules.yaml bytes it was made from */
  size_t source_len;
  const unsigned char *parsed; /* ts_rules_encode of their parse */
  size_t parsed_len;
};

/* The one the build made from the source tree's rules.yaml; defined by the
 * generated ts_rules_bundled library (rules/CMakeLists.txt), which only
 * the executables that want it link. */
extern const struct ts_rules_builtin ts_rules_bundled;

/* The parse of `len` bytes of `data` read from `path` when they are the
 * builtin's source, every rule's `file` being `path`; NULL otherwise (the
 * caller parses them).  The caller frees it with ts_rules_free. */
struct ts_rules *ts_rules_builtin_parse(const struct ts_rules_builtin *b, const void *data,
                                        size_t len, const char *path);
