/*
 * index/client.h — the multi-index client: which index a project comes
 * from, project pages through the cache, metadata on demand and verified
 * downloads.  Built on http.h (transfers), cache.h (disk) and simple.h
 * (parsing).
 *
 * Index selection.  General indexes are --index-url (default
 * https://pypi.org/simple) then each --extra-index-url.  With the default
 * strategy, first-index, a project comes from the FIRST general index that
 * has it and is never merged with later ones: a later index cannot shadow
 * an earlier one (the dependency-confusion guard).  unsafe-best-match
 * merges the files of every index that has the project.
 * The PyTorch server (--torch-index-url, default
 * https://download.pytorch.org/whl) holds one index per variant at
 * <base>/<variant>/.  A routing callback decides, per project, which variant
 * indexes to use instead of the general ones (the GPU rules provide it);
 * the files of all routed indexes are merged, since they are one publisher's
 * builds of the same release.  --find-links sources (flat pages, local
 * directories) are always merged in.
 */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/error.h"
#include "core/fs.h"
#include "index/cache.h"
#include "index/http.h"
#include "index/project.h"

#define TS_INDEX_DEFAULT_URL "https://pypi.org/simple"
#define TS_INDEX_DEFAULT_TORCH_URL "https://download.pytorch.org/whl"
/* Tried first for pages: JSON when offered, HTML otherwise. */
#define TS_INDEX_ACCEPT                                                        \
  "application/vnd.pypi.simple.v1+json, "                                    \
  "application/vnd.pypi.simple.v1+html;q=0.2, text/html;q=0.01"

enum ts_index_strategy {
  TS_INDEX_FIRST_INDEX,       /* default */
  TS_INDEX_UNSAFE_BEST_MATCH, /* pip's semantics */
};

/* Writes up to `max` index base URLs (e.g. "<torch base>/cu126") for
 * project `name` (normalised) into urls and returns how many; 0 means "use
 * the general indexes".  The strings must live until the fetch returns. */
typedef size_t ts_index_route_fn(void *ctx, const char *name, const char **urls,
                                 size_t max);

struct ts_index_options {
  const char *index_url;              /* NULL → TS_INDEX_DEFAULT_URL */
  const char *const *extra_index_urls;
  size_t nextra_index_urls;
  bool no_index;                      /* only find-links and routed indexes */
  const char *const *find_links;      /* URLs, file:// URLs or local paths */
  size_t nfind_links;
  const char *torch_index_url;        /* NULL → TS_INDEX_DEFAULT_TORCH_URL */
  ts_index_route_fn *route;           /* NULL: nothing is routed */
  void *route_ctx;
  enum ts_index_strategy strategy;
  enum ts_cache_mode cache_mode;
  const char *cache_dir;              /* NULL → ts_cache_root_dir() */
  struct ts_http_options http;
};

struct ts_index; /* opaque */

/* What the client worked around on a broken index or mirror, said once
 * per key (an index's origin): "http://mirror advertises PEP 658 metadata
 * it does not serve ...".  The caller prints them (ts_index_warnings). */
void ts_index_warn_once(struct ts_index *idx, const char *key, const char *line);
size_t ts_index_warnings(const struct ts_index *idx, const char *const **out);

/* Copies the options.  NULL on error (detail in err). */
struct ts_index *ts_index_new(const struct ts_index_options *opts, struct ts_error *err);
void ts_index_free(struct ts_index *idx);

/* "<torch base>/<variant>", malloc'd: what a routing callback returns. */
char *ts_index_torch_url(const struct ts_index *idx, const char *variant);
const char *ts_index_cache_dir(const struct ts_index *idx); /* NULL if none */
/* The client's handle on that cache (index/cache.h); NULL if none. */
struct ts_cache *ts_index_cache(struct ts_index *idx);
struct ts_http_stats ts_index_http_stats(const struct ts_index *idx);

struct ts_index_result {
  struct ts_index_project project; /* owned; ts_index_project_clear */
  enum ts_code code;               /* TS_E_NOT_FOUND when no index has it */
  struct ts_error err;
};

/* Fetches the pages of n projects in parallel (names need not be
 * normalised) and fills out[0..n), which the caller owns (free each
 * out[i].project).  Returns TS_OK when the batch ran — then look at each
 * result: TS_E_NOT_FOUND when no index has the project, other codes for
 * failures; *err then also holds the first failure other than not-found.
 * A non-OK return is a failure of the batch itself (out of memory). */
enum ts_code ts_index_fetch_projects(struct ts_index *idx, const char *const *names,
                                     size_t n, struct ts_index_result *out,
                                     struct ts_error *err);

/* One project from an explicit list of index base URLs, with the configured
 * strategy (find-links are not added). */
enum ts_code ts_index_fetch_project_from(struct ts_index *idx, const char *name,
                                         const char *const *index_urls, size_t nurls,
                                         struct ts_index_result *out,
                                         struct ts_error *err);

enum ts_index_metadata_source {
  TS_METADATA_NONE,
  TS_METADATA_CACHE,  /* verified earlier */
  TS_METADATA_PEP658, /* "<url>.metadata", hash checked when published */
  TS_METADATA_RANGE,  /* range requests into the remote wheel */
  TS_METADATA_WHEEL,  /* whole wheel downloaded (verified, kept in cache) */
  TS_METADATA_LOCAL,  /* a file:// wheel */
};
const char *ts_index_metadata_source_name(enum ts_index_metadata_source s);

struct ts_index_metadata {
  const struct ts_index_file *file; /* in: borrowed */
  /* in: the dist-info member to read ("variant.json": PEP 825's per-wheel
   * variant metadata), read as METADATA is but never from a PEP 658 file,
   * cached under its own key; NULL: METADATA */
  const char *member;
  char *data;                       /* out: the member's bytes (NUL-terminated) */
  size_t len;
  enum ts_index_metadata_source source;
  enum ts_code code;
  struct ts_error err;
};
void ts_index_metadata_clear(struct ts_index_metadata *m);

/* Metadata of n wheels at once: PEP 658 file (verified against its hash;
 * one advertised but answered 404 or 5xx or with another hash is passed
 * over for the wheel itself, with a warning once per index origin), else
 * range requests (EOCD tail, central directory, the METADATA member),
 * else the whole wheel (verified against the index's sha256 and kept in
 * the cache for the install).  Only wheels (.whl) are supported.  Metadata
 * read through ranges cannot be verified (the hash covers the whole wheel),
 * so it is kept in memory only, never cached. */
enum ts_code ts_index_fetch_metadata(struct ts_index *idx, struct ts_index_metadata *reqs,
                                     size_t n, struct ts_error *err);

struct ts_index_download {
  const char *url;            /* in: http(s) or file:// */
  const char *sha256;         /* in: expected hex digest, or NULL */
  const char *sha256_from;    /* in: who gave it, for a mismatch ("the
                                 lock"); NULL: "the index" */
  const char *dest;           /* in: final path; "<dest>.part" while running;
                                 ignored for file:// URLs, which are hashed
                                 and verified where they are, not copied */
  ts_http_progress_fn *progress;
  void *progress_ctx;
  enum ts_code code;          /* out */
  struct ts_error err;
  char sha256_out[65];        /* out: digest of what was written */
  uint64_t bytes;             /* out: size of dest */
};

/* Downloads n files in parallel, hashing while streaming; a leftover
 * "<dest>.part" is resumed with a Range request.  A file whose digest
 * differs from `sha256` is deleted (TS_E_HASH); only verified files are
 * renamed to dest. */
enum ts_code ts_index_download(struct ts_index *idx, struct ts_index_download *d, size_t n,
                               struct ts_error *err);

/* The cached whole wheel for a file (downloading and verifying it when not
 * cached yet): *path malloc'd, caller frees.  Without a cache (--no-cache)
 * the wheel goes to the scratch directory below, so the path is valid only
 * until ts_index_free. */
enum ts_code ts_index_fetch_wheel(struct ts_index *idx, const struct ts_index_file *f,
                                  char **path, struct ts_error *err);

/* A private temporary directory for this client's downloads when there is
 * no cache (--no-cache), created on first use and removed with everything
 * in it by ts_index_free.  NULL on error (detail in err). */
const char *ts_index_scratch_dir(struct ts_index *idx, struct ts_error *err);

/* The client's HTTP handle (borrowed) and cache mode, for callers that
 * issue their own requests through the same connections. */
struct ts_http *ts_index_http(struct ts_index *idx);
enum ts_cache_mode ts_index_cache_mode(const struct ts_index *idx);
