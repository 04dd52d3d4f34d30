/*
 * index/http.h — the HTTP client of torchsolve: libcurl's multi interface,
 * many transfers at once (HTTP/2 multiplexing where offered, keep-alive
 * across batches: up to `concurrency` idle connections are kept for the
 * next batch), compressed pages, timeouts, bounded redirects, retries
 * with exponential backoff and jitter on connection errors, stalls, 429 and
 * 5xx — never on other 4xx.  Proxies come from the usual environment
 * variables (libcurl reads http_proxy, https_proxy, no_proxy), credentials
 * from URL userinfo or ~/.netrc.  TLS verification is always on except for
 * hosts listed as trusted.  Every URL in an error detail is redacted.
 *
 * Only http:// and https:// are fetched here; file:// is read by the index
 * client itself.
 */
#pragma once

#include <signal.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/buf.h"
#include "core/error.h"

struct ts_sha256;

/* The defaults of struct ts_http_options: 16 transfers at once fill a
 * fast link without tripping an index's rate limit; a transfer silent for
 * 30 s is a stall, retried. */
#define TS_HTTP_DEFAULT_CONCURRENCY 16
#define TS_HTTP_DEFAULT_CONNECT_TIMEOUT_S 15
#define TS_HTTP_DEFAULT_READ_TIMEOUT_S 30
#define TS_HTTP_DEFAULT_RETRIES 3
#define TS_HTTP_DEFAULT_MAX_REDIRECTS 10
#define TS_HTTP_DEFAULT_BACKOFF_MS 250
/* A server's Retry-After longer than this is not waited for (the usual
 * backoff applies): a stalled install is worse than a refused request. */
#define TS_HTTP_RETRY_AFTER_MAX_MS 30000

struct ts_http_options {
  int concurrency;            /* transfers at once; 0 → TS_HTTP_DEFAULT_CONCURRENCY */
  long connect_timeout_s;     /* 0 → TS_HTTP_DEFAULT_CONNECT_TIMEOUT_S */
  long read_timeout_s;        /* a transfer receiving nothing this long is a
                                 stall (then retried); 0 → TS_HTTP_DEFAULT_READ_TIMEOUT_S */
  int retries;                /* extra attempts; < 0 → TS_HTTP_DEFAULT_RETRIES */
  long max_redirects;         /* 0 → TS_HTTP_DEFAULT_MAX_REDIRECTS */
  unsigned backoff_ms;        /* first retry delay, doubled each time, plus up
                                 to as much random jitter; 0 → TS_HTTP_DEFAULT_BACKOFF_MS */
  const char *ca_file;        /* PEM bundle used instead of the system store
                                 (--cert, SSL_CERT_FILE), or NULL */
  const char *client_cert;    /* PEM file holding the client certificate and
                                 its private key (pip's --client-cert), or NULL */
  const char *proxy;          /* "[scheme://][user:pass@]host:port" for every
                                 request (pip's --proxy), or NULL: the
                                 *_proxy variables */
  const char *const *trusted_hosts; /* "host" or "host:port": no TLS checks */
  size_t ntrusted_hosts;
  const volatile sig_atomic_t *cancel; /* when set (by a signal handler, say),
                                          a batch stops within a second with
                                          TS_E_INTERRUPTED; may be NULL */
};

/* Called during transfers: bytes of the body done so far (including a
 * resumed prefix) and the expected total (0 when unknown). */
typedef void ts_http_progress_fn(void *ctx, uint64_t done, uint64_t total);

struct ts_http_request {
  /* ---- set by the caller (zero-initialise the struct first) ---- */
  const char *url;                /* http:// or https:// */
  const char *accept;             /* Accept header, or NULL */
  const char *if_none_match;      /* conditional request: ETag to revalidate */
  const char *if_modified_since;  /* or Last-Modified to revalidate */
  const char *range;              /* "START-END" or "-SUFFIX", or NULL */
  bool compressed;                /* offer gzip/br/zstd (pages only) */
  size_t max_body;                /* body cap (TS_CAP_*); 0 → no cap */
  /* Body sink: when fd >= 0 the body is appended to that file (opened by the
   * caller, O_RDWR); a non-empty file is resumed with a Range request, and
   * retries resume too.  Otherwise the body goes to `body`.  fd must be set
   * to -1 explicitly for buffer sinks. */
  int fd;
  /* With a file sink: updated with every byte of the file, including the
   * prefix already there (the client hashes it first) — so at the end it
   * holds the digest of the whole file.  Owned by the caller. */
  struct ts_sha256 *hash;
  ts_http_progress_fn *progress;
  void *progress_ctx;

  /* ---- results, owned by the request; free with ts_http_request_clear ---- */
  enum ts_code code;              /* TS_OK for 2xx and 304 */
  struct ts_error err;            /* detail when code != TS_OK */
  long status;                    /* last HTTP status (0 when none) */
  struct ts_buf body;             /* buffer sink: the body of a 2xx */
  char *effective_url;            /* after redirects */
  char *content_type, *etag, *last_modified, *content_range;
  long max_age;                   /* Cache-Control max-age; -1 when absent */
  bool no_store;                  /* Cache-Control no-store */
  int64_t total_size;             /* whole-resource size from Content-Range,
                                     or the body size for a 200; -1 unknown */
  int attempts;
};

struct ts_http_stats {
  uint64_t requests;   /* attempts sent, retries included */
  uint64_t bytes;      /* body bytes received */
  uint64_t retries;
  uint64_t not_modified;
};

struct ts_http; /* opaque: options + a curl multi handle kept across calls */

/* Never NULL (libcurl starts at the first transfer).  Options are copied
 * (strings too).  Free with ts_http_free. */
struct ts_http *ts_http_new(const struct ts_http_options *opts);

void ts_http_free(struct ts_http *h);

/* Runs all n requests, up to `concurrency` at once, retrying as described
 * above; each request gets its own code and detail.  Returns TS_OK when
 * the batch ran (look at each request), or an error for the batch itself
 * (out of memory).  Request structs must stay put until it returns. */
enum ts_code ts_http_perform(struct ts_http *h, struct ts_http_request **reqs,
                             size_t n, struct ts_error *err);

/* Frees the results of a request (not the caller-owned inputs). */
void ts_http_request_clear(struct ts_http_request *r);

/* Counters since ts_http_new. */
struct ts_http_stats ts_http_get_stats(const struct ts_http *h);

/* Version of the libcurl we run with, and its TLS backend
 * ("8.14.1 (OpenSSL/3.0.17)"), loading it (curl_lib.h); "(not loaded:
 * why)" when it cannot be.  Static storage. */
const char *ts_http_libcurl_version(void);
