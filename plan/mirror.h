/*
 * plan/mirror.h — a lock's files as a static index (torchsolve mirror), for
 * air-gapped clusters and company mirrors.
 *
 * Every wheel and sdist a lock references (every profile and environment:
 * all [[packages]] entries, whatever their markers) is downloaded into
 * DIR/files/ and verified against the lock's sha256; a file already there
 * with that hash is not fetched again, and an interrupted download keeps
 * its .part, resumed by the next run.  Beside them:
 *   DIR/files/WHEEL.metadata       PEP 658, each wheel's METADATA
 *   DIR/files/NAME-VERSION-variants.json  PEP 825, for a package with
 *                                  variant wheels: read from the page of
 *                                  its index (the lock does not carry it)
 *                                  and linked from the mirror's pages
 *   DIR/simple/index.html|.json    the root page (PEP 503 HTML, PEP 691 JSON)
 *   DIR/simple/NAME/index.html|.json  each project's files, relative links
 *   DIR/pylock.toml                the lock, its files as paths into files/
 *   DIR/README.md                  how to serve and use it
 * Both page formats are written, so that a plain web server (nginx, python
 * -m http.server) or a folder (file://) serves the mirror with no content
 * negotiation.  The pages list only what the lock locks.
 */
#pragma once

#include <stddef.h>

#include "core/error.h"
#include "index/client.h"
#include "lock/pylock.h"

struct ts_mirror_result {
  size_t nfiles;    /* the lock's distinct files */
  size_t nfetched;  /* downloaded by this run (the others were there) */
  size_t nprojects;
  size_t nskipped;  /* directory, VCS and archive sources: nothing to mirror */
};

/* Mirrors the lock at lock_path (its relative paths are files beside it)
 * into dir through idx.  TS_E_HASH for a file that is not what the lock
 * says, network errors naming the URL, TS_E_IO for dir, the lock's own
 * errors for a lock that does not read. */
enum ts_code ts_plan_mirror(const char *lock_path, const char *dir, struct ts_index *idx,
                            struct ts_mirror_result *out, struct ts_error *err);
