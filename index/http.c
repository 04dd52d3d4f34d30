/* HTTP over libcurl's multi interface; see http.h for the contract. */
#include "index/http.h"

#include <errno.h>
#include <pwd.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "core/alloc.h"
#include "core/clock.h"
#include "core/fs.h"
#include "core/sha256.h"
#include "core/str.h"
#include "index/curl_lib.h"
#include "index/url.h"

#define TS_HTTP_HEADER_MAX 8192 /* one header line we keep */
#define TS_HTTP_BACKOFF_CAP_MS 10000 /* the longest wait between two attempts */
/* The loop wakes at least this often, so that an interrupt or a due retry
 * is seen within it. */
#define HTTP_POLL_MAX_MS 1000

struct ts_http {
  struct ts_http_options o;
  char *ca_file;
  char *client_cert;
  char *proxy;
  char **trusted;
  size_t ntrusted;
  const struct ts_curl *curl; /* with multi and share: set by the first transfer */
  CURLM *multi;
  CURLSH *share;
  char *netrc; /* ~/.netrc when it existed as the client started, else NULL */
  unsigned seed; /* jitter; per client, not global */
  struct ts_http_stats stats;
};

/* Per-request transfer state, private to one ts_http_perform call. */
struct xfer {
  struct ts_http_request *r;
  struct ts_http *h;
  CURL *easy;
  struct curl_slist *headers;
  char errbuf[CURL_ERROR_SIZE];
  char range[64];
  int64_t base;         /* file sink: bytes already in the file */
  int64_t received;     /* body bytes of this attempt kept */
  long status;          /* status of the response being received */
  bool too_big, write_failed, started, done;
  int64_t retry_after_ms;
  uint64_t not_before;  /* monotonic ms */
};

static uint64_t now_ms(void) {
  return (uint64_t)ts_now_ms();
}

struct ts_http *ts_http_new(const struct ts_http_options *opts) {

  static const struct ts_http_options defaults = {0};
  if (!opts)
    opts = &defaults;
  struct ts_http *h = ts_xcalloc(1, sizeof *h);
  h->o = *opts;
  if (h->o.concurrency <= 0)
    h->o.concurrency = TS_HTTP_DEFAULT_CONCURRENCY;
  if (h->o.connect_timeout_s <= 0)
    h->o.connect_timeout_s = TS_HTTP_DEFAULT_CONNECT_TIMEOUT_S;
  if (h->o.read_timeout_s <= 0)
    h->o.read_timeout_s = TS_HTTP_DEFAULT_READ_TIMEOUT_S;
  if (h->o.retries < 0)
    h->o.retries = TS_HTTP_DEFAULT_RETRIES;
  if (h->o.max_redirects <= 0)
    h->o.max_redirects = TS_HTTP_DEFAULT_MAX_REDIRECTS;
  if (h->o.backoff_ms == 0)
    h->o.backoff_ms = TS_HTTP_DEFAULT_BACKOFF_MS;
  h->ca_file = ts_xstrdup(opts->ca_file);
  h->o.ca_file = h->ca_file;
  h->client_cert = ts_xstrdup(opts->client_cert);
  h->o.client_cert = h->client_cert;
  h->proxy = ts_xstrdup(opts->proxy);
  h->o.proxy = h->proxy;
  if (opts->ntrusted_hosts) {
    h->trusted = ts_xcalloc(opts->ntrusted_hosts, sizeof *h->trusted);
    for (size_t i = 0; i < opts->ntrusted_hosts; i++)
      h->trusted[i] = ts_xstrdup(opts->trusted_hosts[i]);
    h->ntrusted = opts->ntrusted_hosts;
  }
  h->o.trusted_hosts = NULL;
  h->seed = (unsigned)now_ms() ^ (unsigned)getpid();
  return h;
}

void ts_http_free(struct ts_http *h) {
  if (!h)
    return;
  if (h->multi)
    h->curl->multi_cleanup(h->multi);
  if (h->share)
    h->curl->share_cleanup(h->share);
  free(h->ca_file);
  free(h->netrc);
  free(h->client_cert);
  free(h->proxy);
  ts_strv_free(h->trusted, h->ntrusted);
  free(h);
}

struct ts_http_stats ts_http_get_stats(const struct ts_http *h) { return h->stats; }

void ts_http_request_clear(struct ts_http_request *r) {
  ts_buf_clear(&r->body);
  free(r->effective_url);
  free(r->content_type);
  free(r->etag);
  free(r->last_modified);
  free(r->content_range);
  r->effective_url = r->content_type = r->etag = r->last_modified = r->content_range = NULL;
}

static void reset_response(struct ts_http_request *r) {
  free(r->content_type);
  free(r->etag);
  free(r->last_modified);
  free(r->content_range);
  r->content_type = r->etag = r->last_modified = r->content_range = NULL;
  r->max_age = -1;
  r->no_store = false;
  r->total_size = -1;
}

static bool host_trusted(const struct ts_http *h, const char *url) {
  if (!h->ntrusted)
    return false;
  const char *p = strstr(url, "://");
  if (!p)
    return false;
  p += 3;
  size_t alen = strcspn(p, "/?#");
  const char *at = memchr(p, '@', alen);
  if (at) {
    alen -= (size_t)(at + 1 - p);
    p = at + 1;
  }
  size_t hlen = alen;
  const char *colon = NULL;
  if (p[0] == '[') {
    const char *rb = memchr(p, ']', alen);
    if (rb && (size_t)(rb - p) + 1 < alen && rb[1] == ':')
      colon = rb + 1;
  } else {
    colon = memchr(p, ':', alen);
  }
  if (colon)
    hlen = (size_t)(colon - p);
  for (size_t i = 0; i < h->ntrusted; i++) {
    const char *t = h->trusted[i];
    size_t tl = strlen(t);
    if ((tl == alen && strncasecmp(t, p, alen) == 0) ||
        (tl == hlen && strncasecmp(t, p, hlen) == 0))
      return true;
  }
  return false;
}

/* ---- callbacks ------------------------------------------------------ */

/* A header value without its surrounding blanks and line end, malloc'd. */
static char *trimmed_value(const char *v, size_t n) {
  while (n && (*v == ' ' || *v == '\t')) {
    v++;
    n--;
  }
  while (n && (v[n - 1] == '\r' || v[n - 1] == '\n' || v[n - 1] == ' ' || v[n - 1] == '\t'))
    n--;
  return ts_xstrndup(v, n);
}

static bool header_is(const char *line, size_t n, const char *name, const char **val,
                      size_t *vlen) {
  size_t l = strlen(name);
  if (n <= l || line[l] != ':' || strncasecmp(line, name, l) != 0)
    return false;
  *val = line + l + 1;
  *vlen = n - l - 1;
  return true;
}

static int64_t parse_i64(const char *s, size_t n, size_t *used) {
  int64_t v = 0;
  size_t i = 0;
  while (i < n && s[i] >= '0' && s[i] <= '9' && v < (INT64_MAX - 9) / 10)
    v = v * 10 + (s[i++] - '0');
  *used = i;
  return i ? v : -1;
}

static void parse_cache_control(struct ts_http_request *r, const char *v, size_t n) {
  for (size_t i = 0; i < n;) {
    while (i < n && (v[i] == ' ' || v[i] == ',' || v[i] == '\t'))
      i++;
    size_t s = i;
    while (i < n && v[i] != ',')
      i++;
    const char *d = v + s;
    size_t dl = i - s;
    while (dl && (d[dl - 1] == ' ' || d[dl - 1] == '\r' || d[dl - 1] == '\n'))
      dl--;
    if (dl > 8 && strncasecmp(d, "max-age=", 8) == 0) {
      size_t used;
      int64_t a = parse_i64(d + 8, dl - 8, &used);
      if (a >= 0)
        r->max_age = a > 0x7fffffff ? 0x7fffffff : (long)a;
    } else if ((dl == 8 && strncasecmp(d, "no-store", 8) == 0)) {
      r->no_store = true;
    } else if (dl == 8 && strncasecmp(d, "no-cache", 8) == 0) {
      r->max_age = 0;
    }
  }
}

static size_t on_header(char *data, size_t size, size_t nmemb, void *ud) {
  struct xfer *x = ud;
  struct ts_http_request *r = x->r;
  size_t n = size * nmemb;
  if (n >= 5 && memcmp(data, "HTTP/", 5) == 0) {
    reset_response(r); /* a new response (redirect, 100-continue) */
    x->status = 0;
    x->retry_after_ms = -1;
    return n;
  }
  if (n > TS_HTTP_HEADER_MAX)
    return n;
  const char *v;
  size_t vl;
  if (header_is(data, n, "content-type", &v, &vl)) {
    free(r->content_type);
    r->content_type = trimmed_value(v, vl);
  } else if (header_is(data, n, "etag", &v, &vl)) {
    free(r->etag);
    r->etag = trimmed_value(v, vl);
  } else if (header_is(data, n, "last-modified", &v, &vl)) {
    free(r->last_modified);
    r->last_modified = trimmed_value(v, vl);
  } else if (header_is(data, n, "cache-control", &v, &vl)) {
    parse_cache_control(r, v, vl);
  } else if (header_is(data, n, "content-range", &v, &vl)) {
    free(r->content_range);
    r->content_range = trimmed_value(v, vl);
    const char *slash = memchr(r->content_range, '/', strlen(r->content_range));
    size_t used;
    if (slash)
      r->total_size = parse_i64(slash + 1, strlen(slash + 1), &used);
  } else if (header_is(data, n, "retry-after", &v, &vl)) {
    while (vl && *v == ' ') {
      v++;
      vl--;
    }
    size_t used;
    int64_t s = parse_i64(v, vl, &used);
    if (s >= 0)
      x->retry_after_ms = s * 1000;
  }
  return n;
}

static size_t on_body(char *data, size_t size, size_t nmemb, void *ud) {
  struct xfer *x = ud;
  struct ts_http_request *r = x->r;
  size_t n = size * nmemb;
  if (!x->status)
    x->h->curl->easy_getinfo(x->easy, CURLINFO_RESPONSE_CODE, &x->status);
  if (x->status < 200 || x->status >= 300)
    return n; /* error pages are not kept */
  if (x->received == 0 && r->fd >= 0 && x->base > 0 && x->status == 200) {
    /* Asked to resume, got the whole file: start over. */
    if (ftruncate(r->fd, 0) != 0 || lseek(r->fd, 0, SEEK_SET) != 0) {
      x->write_failed = true;
      return 0;
    }
    if (r->hash)
      ts_sha256_reset(r->hash);
    x->base = 0;
  }
  if (r->max_body && (uint64_t)(x->base + x->received) + n > r->max_body) {
    x->too_big = true;
    return 0;
  }
  if (r->fd >= 0) {
    for (size_t off = 0; off < n;) {
      ssize_t w = write(r->fd, data + off, n - off);
      if (w < 0 && errno == EINTR)
        continue;
      if (w <= 0) {
        x->write_failed = true;
        return 0;
      }
      off += (size_t)w;
    }
    if (r->hash)
      ts_sha256_update(r->hash, data, n);
  } else if (ts_buf_append(&r->body, data, n) != TS_OK) {
    x->too_big = true;
    return 0;
  }
  x->received += (int64_t)n;
  x->h->stats.bytes += n;
  return n;
}

static int on_progress(void *ud, curl_off_t dltotal, curl_off_t dlnow, curl_off_t ultotal,
                       curl_off_t ulnow) {
  (void)ultotal;
  (void)ulnow;
  struct xfer *x = ud;
  if (x->r->progress)
    x->r->progress(x->r->progress_ctx, (uint64_t)(x->base + dlnow),
                   dltotal > 0 ? (uint64_t)(x->base + dltotal) : 0);
  return 0;
}

/* ---- one attempt ----------------------------------------------------- */

static enum ts_code prepare_file_sink(struct xfer *x, struct ts_error *err) {
  struct ts_http_request *r = x->r;
  struct stat st;
  if (fstat(r->fd, &st) != 0)
    return ts_error_set(err, TS_E_IO, "cannot stat download file: %s", strerror(errno));
  x->base = (int64_t)st.st_size;
  if (lseek(r->fd, 0, SEEK_END) < 0)
    return ts_error_set(err, TS_E_IO, "cannot seek download file: %s", strerror(errno));
  if (r->hash && !x->started) {
    /* Hash the prefix once; later attempts continue from the same state. */
    ts_sha256_reset(r->hash);
    char buf[65536];
    for (int64_t off = 0; off < x->base;) {
      ssize_t got = pread(r->fd, buf, sizeof buf, off);
      if (got <= 0)
        return ts_error_set(err, TS_E_IO, "cannot read partial download: %s",
                            got < 0 ? strerror(errno) : "short file");
      ts_sha256_update(r->hash, buf, (size_t)got);
      off += got;
    }
  }
  return TS_OK;
}

static enum ts_code start_attempt(struct ts_http *h, struct xfer *x, struct ts_error *err) {
  struct ts_http_request *r = x->r;
  x->received = 0;
  x->status = 0;
  x->too_big = x->write_failed = false;
  x->retry_after_ms = -1;
  x->errbuf[0] = '\0';
  reset_response(r);
  if (r->fd < 0)
    ts_buf_reset(&r->body);
  else if (prepare_file_sink(x, err))
    return err->code;
  x->started = true;
  CURL *e = x->easy ? x->easy : h->curl->easy_init();
  if (!e)
    return ts_error_set(err, TS_E_NOMEM, "cannot create a libcurl handle");
  h->curl->easy_reset(e);
  x->easy = e;
  h->curl->easy_setopt(e, CURLOPT_URL, r->url);
  h->curl->easy_setopt(e, CURLOPT_PRIVATE, x);
  h->curl->easy_setopt(e, CURLOPT_SHARE, h->share);
  h->curl->easy_setopt(e, CURLOPT_PROTOCOLS_STR, "http,https");
  h->curl->easy_setopt(e, CURLOPT_REDIR_PROTOCOLS_STR, "http,https");
  h->curl->easy_setopt(e, CURLOPT_FOLLOWLOCATION, 1L);
  h->curl->easy_setopt(e, CURLOPT_MAXREDIRS, h->o.max_redirects);
  if (h->netrc) {
    h->curl->easy_setopt(e, CURLOPT_NETRC_FILE, h->netrc);
    h->curl->easy_setopt(e, CURLOPT_NETRC, (long)CURL_NETRC_OPTIONAL);
  }
  h->curl->easy_setopt(e, CURLOPT_HTTP_VERSION, (long)CURL_HTTP_VERSION_2TLS);
  h->curl->easy_setopt(e, CURLOPT_PIPEWAIT, 1L);
  h->curl->easy_setopt(e, CURLOPT_NOSIGNAL, 1L);
  h->curl->easy_setopt(e, CURLOPT_TCP_KEEPALIVE, 1L);
  h->curl->easy_setopt(e, CURLOPT_CONNECTTIMEOUT, h->o.connect_timeout_s);
  h->curl->easy_setopt(e, CURLOPT_LOW_SPEED_LIMIT, 1L);
  h->curl->easy_setopt(e, CURLOPT_LOW_SPEED_TIME, h->o.read_timeout_s);
  h->curl->easy_setopt(e, CURLOPT_USERAGENT, "torchsolve/" TS_VERSION);
  h->curl->easy_setopt(e, CURLOPT_ERRORBUFFER, x->errbuf);
  h->curl->easy_setopt(e, CURLOPT_HEADERFUNCTION, on_header);
  h->curl->easy_setopt(e, CURLOPT_HEADERDATA, x);
  h->curl->easy_setopt(e, CURLOPT_WRITEFUNCTION, on_body);
  h->curl->easy_setopt(e, CURLOPT_WRITEDATA, x);
  h->curl->easy_setopt(e, CURLOPT_XFERINFOFUNCTION, on_progress);
  h->curl->easy_setopt(e, CURLOPT_XFERINFODATA, x);
  h->curl->easy_setopt(e, CURLOPT_NOPROGRESS, r->progress ? 0L : 1L);
  if (r->max_body)
    h->curl->easy_setopt(e, CURLOPT_MAXFILESIZE_LARGE, (curl_off_t)r->max_body);
  if (r->compressed)
    h->curl->easy_setopt(e, CURLOPT_ACCEPT_ENCODING, "");
  /* libcurl reads https_proxy, HTTPS_PROXY, all_proxy and no_proxy, but of
   * http's only the lower-case name (a CGI guard); pip, uv and Docker's
   * build args use HTTP_PROXY too.  no_proxy still applies. */
  const char *hp = getenv("HTTP_PROXY");
  if (hp && hp[0] && !getenv("http_proxy") && strncasecmp(r->url, "http://", 7) == 0)
    h->curl->easy_setopt(e, CURLOPT_PROXY, hp);
  /* --proxy wins over the variables, as pip's does */
  if (h->proxy)
    h->curl->easy_setopt(e, CURLOPT_PROXY, h->proxy);
  if (h->ca_file)
    h->curl->easy_setopt(e, CURLOPT_CAINFO, h->ca_file);
  /* pip's --client-cert: one PEM file with the certificate and its key */
  if (h->client_cert) {
    h->curl->easy_setopt(e, CURLOPT_SSLCERT, h->client_cert);
    h->curl->easy_setopt(e, CURLOPT_SSLKEY, h->client_cert);
  }
  if (host_trusted(h, r->url)) {
    h->curl->easy_setopt(e, CURLOPT_SSL_VERIFYPEER, 0L);
    h->curl->easy_setopt(e, CURLOPT_SSL_VERIFYHOST, 0L);
  }
  if (r->fd >= 0 && x->base > 0) {
    snprintf(x->range, sizeof x->range, "%lld-", (long long)x->base);
    h->curl->easy_setopt(e, CURLOPT_RANGE, x->range);
  } else if (r->range) {
    snprintf(x->range, sizeof x->range, "%s", r->range);
    h->curl->easy_setopt(e, CURLOPT_RANGE, x->range);
  }
  h->curl->slist_free_all(x->headers);
  x->headers = NULL;
  char line[512];
  if (r->accept) {
    snprintf(line, sizeof line, "Accept: %s", r->accept);
    x->headers = h->curl->slist_append(x->headers, line);
  }
  if (r->if_none_match) {
    snprintf(line, sizeof line, "If-None-Match: %s", r->if_none_match);
    x->headers = h->curl->slist_append(x->headers, line);
  }
  if (r->if_modified_since) {
    snprintf(line, sizeof line, "If-Modified-Since: %s", r->if_modified_since);
    x->headers = h->curl->slist_append(x->headers, line);
  }
  if (x->headers)
    h->curl->easy_setopt(e, CURLOPT_HTTPHEADER, x->headers);
  r->attempts++;
  h->stats.requests++;
  if (h->curl->multi_add_handle(h->multi, e) != CURLM_OK)
    return ts_error_set(err, TS_E_INTERNAL, "cannot add a transfer to libcurl");
  return TS_OK;
}

/* Classifies a finished attempt.  Returns true when it should be retried. */
static bool finish_attempt(struct ts_http *h, struct xfer *x, CURLcode cc) {
  struct ts_http_request *r = x->r;
  char url[300];
  ts_url_redact_buf(r->url, url, sizeof url);
  long status = 0;
  h->curl->easy_getinfo(x->easy, CURLINFO_RESPONSE_CODE, &status);
  r->status = status;
  char *eff = NULL;
  h->curl->easy_getinfo(x->easy, CURLINFO_EFFECTIVE_URL, &eff);
  free(r->effective_url);
  r->effective_url = ts_xstrdup(eff ? eff : r->url);
  const char *detail = x->errbuf[0] ? x->errbuf : h->curl->easy_strerror(cc);
  bool retry = false;
  r->err.detail[0] = '\0';
  if (cc == CURLE_OK) {
    if ((status >= 200 && status < 300) || status == 304) {
      r->code = TS_OK;
      if (status == 304)
        h->stats.not_modified++;
      if (status == 200 && r->total_size < 0)
        r->total_size = x->base + x->received;
      return false;
    }
    if (status == 404 || status == 410)
      ts_error_set(&r->err, TS_E_NOT_FOUND, "%s: HTTP %ld (not found)", url, status);
    else if (status == 401 || status == 403)
      ts_error_set(&r->err, TS_E_HTTP,
                   "%s: HTTP %ld; check the credentials in the URL or ~/.netrc", url, status);
    else
      ts_error_set(&r->err, TS_E_HTTP, "%s: HTTP %ld", url, status);
    retry = status == 429 || status >= 500;
  } else if (x->too_big || cc == CURLE_FILESIZE_EXCEEDED) {
    ts_error_set(&r->err, TS_E_TOO_BIG, "%s: response larger than the %zu MiB limit", url,
                 r->max_body >> 20);
  } else if (x->write_failed) {
    ts_error_set(&r->err, TS_E_IO, "%s: cannot write the download: %s", url, strerror(errno));
  } else {
    switch (cc) {
    case CURLE_OPERATION_TIMEDOUT:
      ts_error_set(&r->err, TS_E_TIMEOUT, "%s: no data for %lds (server stalled): %s", url,
                   h->o.read_timeout_s, detail);
      retry = true;
      break;
    case CURLE_TOO_MANY_REDIRECTS:
      ts_error_set(&r->err, TS_E_HTTP, "%s: redirect loop or more than %ld redirects", url,
                   h->o.max_redirects);
      break;
    case CURLE_PEER_FAILED_VERIFICATION:
    case CURLE_SSL_CACERT_BADFILE:
    case CURLE_SSL_CERTPROBLEM:
    case CURLE_SSL_CONNECT_ERROR:
    case CURLE_SSL_ISSUER_ERROR:
    case CURLE_SSL_CIPHER:
      ts_error_set(&r->err, TS_E_TLS, "%s: TLS: %s", url, detail);
      break;
    case CURLE_UNSUPPORTED_PROTOCOL:
    case CURLE_URL_MALFORMAT:
      ts_error_set(&r->err, TS_E_INVALID, "%s: invalid URL: %s", url, detail);
      break;
    case CURLE_PARTIAL_FILE:
      ts_error_set(&r->err, TS_E_NETWORK,
                   "%s: truncated response (connection closed before Content-Length): %s",
                   url, detail);
      retry = true;
      break;
    case CURLE_COULDNT_RESOLVE_PROXY:
    case CURLE_COULDNT_RESOLVE_HOST:
    case CURLE_COULDNT_CONNECT:
    case CURLE_SEND_ERROR:
    case CURLE_RECV_ERROR:
    case CURLE_GOT_NOTHING:
    case CURLE_HTTP2:
    case CURLE_HTTP2_STREAM:
    case CURLE_BAD_CONTENT_ENCODING:
      ts_error_set(&r->err, TS_E_NETWORK, "%s: %s", url, detail);
      retry = true;
      break;
    default:
      ts_error_set(&r->err, TS_E_NETWORK, "%s: %s", url, detail);
      break;
    }
  }
  r->code = r->err.code;
  bool again = retry && r->attempts <= h->o.retries;
  if (!again && r->code == TS_E_TIMEOUT && r->attempts > 1) {
    /* --timeout bounds one attempt, as pip's: say why it took longer */
    char said[TS_ERROR_DETAIL_MAX];
    snprintf(said, sizeof said, "%s", r->err.detail);
    ts_error_set(&r->err, TS_E_TIMEOUT, "%s (on each of %d attempts: --timeout bounds one "
                 "attempt, --retries how many)", said, r->attempts);
  }
  return again;
}

static uint64_t backoff(struct ts_http *h, struct xfer *x) {
  uint64_t d = h->o.backoff_ms;
  for (int i = 1; i < x->r->attempts && d < TS_HTTP_BACKOFF_CAP_MS; i++)
    d *= 2;
  d += (uint64_t)rand_r(&h->seed) % (d + 1);
  if (d > TS_HTTP_BACKOFF_CAP_MS)
    d = TS_HTTP_BACKOFF_CAP_MS;
  /* A server's Retry-After is honoured when it is reasonable. */
  if (x->retry_after_ms > 0 && (uint64_t)x->retry_after_ms <= TS_HTTP_RETRY_AFTER_MAX_MS &&
      (uint64_t)x->retry_after_ms > d)
    d = (uint64_t)x->retry_after_ms;
  return d;
}

/* The netrc file libcurl would read ($HOME/.netrc, else the home
 * directory of the user), when it exists.  Looked for once: libcurl opens
 * it for every transfer otherwise, a failing open per request when there
 * is none (400 in a 200-project resolve). */
static char *netrc_path(void) {
  const char *home = getenv("HOME");
  if (!home || !*home) {
    struct passwd *pw = getpwuid(getuid());
    home = pw ? pw->pw_dir : NULL;
  }
  if (!home)
    return NULL;
  char *p = ts_path_join(home, ".netrc");
  if (access(p, F_OK) != 0) {
    free(p);
    return NULL;
  }
  return p;
}

/* libcurl and the client's multi and share handles, made by the first
 * transfer: a run that only reads the cache never loads libcurl
 * (curl_lib.h). */
static enum ts_code start_client(struct ts_http *h, struct ts_error *err) {
  if (h->multi)
    return TS_OK;
  if (!h->curl && !(h->curl = ts_curl_load(err)))
    return TS_E_NETWORK;
  const struct ts_curl *c = h->curl;
  h->netrc = netrc_path();
  h->multi = c->multi_init();
  h->share = c->share_init();
  if (!h->multi || !h->share)
    return ts_error_set(err, TS_E_NOMEM, "cannot create a libcurl multi handle");
  c->share_setopt(h->share, CURLSHOPT_SHARE, CURL_LOCK_DATA_DNS);
  c->share_setopt(h->share, CURLSHOPT_SHARE, CURL_LOCK_DATA_SSL_SESSION);
  c->multi_setopt(h->multi, CURLMOPT_PIPELINING, (long)CURLPIPE_MULTIPLEX);
  c->multi_setopt(h->multi, CURLMOPT_MAX_TOTAL_CONNECTIONS, (long)h->o.concurrency);
  c->multi_setopt(h->multi, CURLMOPT_MAX_HOST_CONNECTIONS, (long)h->o.concurrency);
  /* Idle connections are kept for the next batch: by default libcurl
   * keeps four per transfer still in the multi handle, so the tail of
   * each batch closed connections the next batch opened again. */
  c->multi_setopt(h->multi, CURLMOPT_MAXCONNECTS, (long)h->o.concurrency);
  return TS_OK;
}

enum ts_code ts_http_perform(struct ts_http *h, struct ts_http_request **reqs, size_t n,
                             struct ts_error *err) {
  if (!n)
    return TS_OK;
  enum ts_code started = start_client(h, err);
  if (started != TS_OK)
    return started;
  struct xfer *xs = ts_xcalloc(n, sizeof *xs);

  for (size_t i = 0; i < n; i++) {
    xs[i].r = reqs[i];
    xs[i].h = h;
    reqs[i]->code = TS_OK;
    reqs[i]->attempts = 0;
    reqs[i]->status = 0;
    reqs[i]->max_age = -1;
    reqs[i]->total_size = -1;
    if (reqs[i]->fd < 0)
      ts_buf_init(&reqs[i]->body, reqs[i]->max_body);
  }
  size_t done = 0, next = 0;
  int active = 0;
  enum ts_code rc = TS_OK;
  while (done < n && !rc) {
    if (h->o.cancel && *h->o.cancel) {
      rc = ts_error_set(err, TS_E_INTERRUPTED, "interrupted during downloads");
      break;
    }
    uint64_t t = now_ms(), wait = HTTP_POLL_MAX_MS;
    /* Start what may start: first new requests in order, then due retries. */
    for (size_t i = 0; i < n && active < h->o.concurrency; i++) {
      struct xfer *x = &xs[i];
      if (x->done || (x->started && x->easy && x->not_before == 0))
        continue; /* finished or in flight */
      if (!x->started && i >= next + (size_t)h->o.concurrency)
        break;
      if (x->not_before > t) {
        if (x->not_before - t < wait)
          wait = x->not_before - t;
        continue;
      }
      x->not_before = 0;
      if (start_attempt(h, x, &x->r->err)) {
        x->r->code = x->r->err.code;
        x->done = true;
        done++;
        continue;
      }
      active++;
    }
    while (next < n && xs[next].started)
      next++;
    int running = 0;
    if (h->curl->multi_perform(h->multi, &running) != CURLM_OK) {
      rc = ts_error_set(err, TS_E_INTERNAL, "libcurl multi interface failed");
      break;
    }
    CURLMsg *m;
    int left;
    while ((m = h->curl->multi_info_read(h->multi, &left))) {
      if (m->msg != CURLMSG_DONE)
        continue;
      struct xfer *x = NULL;
      h->curl->easy_getinfo(m->easy_handle, CURLINFO_PRIVATE, (char **)&x);
      CURLcode cc = m->data.result;
      h->curl->multi_remove_handle(h->multi, m->easy_handle);
      active--;
      if (finish_attempt(h, x, cc)) {
        h->stats.retries++;
        x->not_before = now_ms() + backoff(h, x);
        continue;
      }
      x->done = true;
      done++;
    }
    if (done < n && active > 0) {
      int numfds;
      h->curl->multi_poll(h->multi, NULL, 0, (int)(wait < HTTP_POLL_MAX_MS ? wait : HTTP_POLL_MAX_MS), &numfds);
    } else if (done < n && wait > 0 && wait < HTTP_POLL_MAX_MS) {
      struct timespec ts = {0, (long)wait * 1000000L};
      nanosleep(&ts, NULL);
    }
  }
  for (size_t i = 0; i < n; i++) {
    if (xs[i].easy) {
      h->curl->multi_remove_handle(h->multi, xs[i].easy);
      h->curl->easy_cleanup(xs[i].easy);
    }
    h->curl->slist_free_all(xs[i].headers);
  }
  free(xs);
  return rc;
}
