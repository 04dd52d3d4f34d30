/*
 * plan/variant_wheels.h — a release's variant metadata from its wheels
 * when its index page lists no `{name}-{version}-variants.json`: each
 * variant wheel's `*.dist-info/variant.json`, read as METADATA is read
 * from a wheel without PEP 658 metadata (range requests into the remote
 * wheel, cached by the wheel's sha256; index/client.h).
 */
#pragma once

#include <stdbool.h>
#include <stddef.h>

#include "index/client.h"
#include "variant/metadata.h"

/* The metadata of release `version` of page `pr` from its variant
 * wheels' variant.json, each wheel vouching for its own label (*out, to
 * clear with ts_variant_metadata_clear, also when false is returned).  A
 * wheel whose file cannot be read, is malformed, is of a schema torchsolve
 * does not read or has no entry for its label is left out with a note
 * naming it (*notes grows; the caller prints and frees them).  false when
 * no wheel's file could be used. */
bool ts_plan_variant_wheels_metadata(struct ts_index *idx, const struct ts_index_project *pr,
                                     const char *version, struct ts_variant_metadata *out,
                                     char ***notes, size_t *nnotes);
