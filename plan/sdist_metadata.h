/*
 * plan/sdist_metadata.h — an index sdist's metadata without running its
 * build backend, for a target that has no interpreter (a universal lock's
 * environments, --python-version).
 *
 * Two sources, in this order, before a build is the only way left:
 *   - the wheels of the same version, when every one of them declares the
 *     same Requires-Python, Requires-Dist and Provides-Extra (the
 *     distributions of one release share their dependency metadata; uv
 *     assumes the same, and the caller notes the assumption);
 *   - the sdist's PKG-INFO when it is static (PEP 643): Metadata-Version
 *     2.2 or later and none of those three fields is Dynamic.
 * PEP 658 metadata published for the sdist itself is the caller's first
 * choice and not looked at here.
 */
#pragma once

#include <stddef.h>

#include "core/error.h"
#include "index/client.h"

enum ts_sdist_metadata_from {
  TS_SDIST_METADATA_NONE, /* neither: build it */
  TS_SDIST_METADATA_WHEELS,
  TS_SDIST_METADATA_PKG_INFO,
};

struct ts_sdist_metadata {
  enum ts_sdist_metadata_from from;
  char *data; /* METADATA bytes (NUL-terminated), NULL with NONE */
  size_t len;
  size_t nwheels; /* WHEELS: how many agreed */
};

/* Fills *out from `project`'s wheels of the sdist's version, else from the
 * sdist's own PKG-INFO (downloaded and verified against its sha256).
 * TS_OK with from NONE when neither tells; errors only for what stopped
 * the question (interrupted, out of disk).  Clear with
 * ts_sdist_metadata_clear. */
enum ts_code ts_plan_sdist_metadata(struct ts_index *idx,
                                    const struct ts_index_project *project,
                                    const struct ts_index_file *sdist,
                                    struct ts_sdist_metadata *out, struct ts_error *err);
void ts_sdist_metadata_clear(struct ts_sdist_metadata *m);

/* The note a lock prints when it took the metadata from `m`:
 * "a 1.0.0: its sdist's dependencies are taken from its 3 wheels, which
 * agree (no build needed)".  malloc'd; NULL for NONE. */
char *ts_sdist_metadata_note(const struct ts_sdist_metadata *m, const char *name,
                             const char *version);
