/*
 * rules/rules_codec.h — a parsed rules file (`struct ts_rules`) as bytes
 * and back: the body of a cache entry (rules_cache.h) and the bundled
 * rules compiled into the binary (builtin.h).  One walk of the structure
 * serves both directions, so what is written and what is read cannot
 * drift apart.  Private to rules/ and tools/rules_embed.c.
 */
#pragma once

#include <stddef.h>

#include "core/buf.h"
#include "core/error.h"
#include "rules/rules.h"

/* Raise with every change to what the bytes hold. */
#define TS_RULES_CODEC_FORMAT 1u

/* Appends the bytes of r (all but its provenance, which is not the
 * file's) to out; TS_E_TOO_BIG past out's cap. */
enum ts_code ts_rules_encode(const struct ts_rules *r, struct ts_buf *out);

/* The rules that `len` bytes of ts_rules_encode hold, every rule's `file`
 * set to `file` (the path they stand for now); NULL when the bytes do not
 * decode whole.  The caller frees with ts_rules_free. */
struct ts_rules *ts_rules_decode(const void *data, size_t len, const char *file);
