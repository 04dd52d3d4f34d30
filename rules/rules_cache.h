/*
 * rules/rules_cache.h — rules files kept parsed in the cache, so that a
 * warm run does not parse and validate rules.yaml again (its YAML parse was
 * about a tenth of a small warm resolve).
 *
 *   <cache root>/rules-v1/<key>    key = sha256 of the binary's version,
 *                                  this entry format's number and the
 *                                  file's bytes (hex)
 *
 * An entry is the parsed `struct ts_rules` of one file, written only after
 * that file parsed and validated, to a temporary name and renamed (so
 * concurrent runs never read half of one), behind a header with the
 * sha256 of its body: an entry that does not check, or does not decode
 * whole, is ignored and replaced.  The key holds the file's bytes, so an
 * edited --rules file, or the newer file `torchsolve rules update` kept, is
 * a different key, never served stale; and the binary's version, so a
 * torchsolve whose structures differ never reads another's entries.
 */
#pragma once

#include "core/error.h"
#include "rules/builtin.h"
#include "rules/rules.h"

/* The entries' folder under a cache root. */
#define TS_RULES_CACHE_DIR "rules-v1"

/* ts_rules_load_file, answered from `builtin` (builtin.h) when the file's
 * bytes are its source, else from the parsed entry under cache_root when
 * there is a good one, else parsed and then stored (best effort: a cache
 * that cannot be written only costs the parse next time).  cache_root NULL:
 * no cache; builtin NULL: none compiled in.  Errors are
 * ts_rules_load_file's. */
enum ts_code ts_rules_load_file_cached(const char *path, const char *cache_root,
                                       const struct ts_rules_builtin *builtin,
                                       struct ts_rules **out, struct ts_error *err);
