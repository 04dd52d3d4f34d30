/* The multi-index client: see client.h. */
#include "index/client.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "core/alloc.h"
#include "core/cacheroot.h"
#include "core/fs.h"
#include "core/sha256.h"
#include "core/str.h"
#include "index/alias.h"
#include "index/parsed_page.h"
#include "index/simple.h"
#include "index/url.h"
#include "pep/name.h"

#define TS_INDEX_MAX_ROUTES 64

struct find_link {
  char *loc;          /* as given */
  char *dir;          /* local directory, or NULL */
  char *page_url;     /* flat page URL (after redirects), or NULL */
  struct ts_buf page; /* its body, fetched once */
  bool fetched;
  enum ts_code code;
  struct ts_error err;
};

struct ts_index {
  char **general;
  size_t ngeneral;
  char *torch_url;
  struct find_link *links;
  size_t nlinks;
  ts_index_route_fn *route;
  void *route_ctx;
  enum ts_index_strategy strategy;
  enum ts_cache_mode mode;
  char *cache_dir;
  struct ts_cache *cache; /* NULL when cache_dir is */
  char *scratch_dir; /* --no-cache downloads; removed by ts_index_free */
  struct ts_http *http;
  char **warn_keys, **warnings; /* ts_index_warn_once's, in order */
  size_t nwarnings;
};

void ts_index_warn_once(struct ts_index *idx, const char *key, const char *line) {
  for (size_t i = 0; i < idx->nwarnings; i++)
    if (strcmp(idx->warn_keys[i], key) == 0)
      return;
  idx->warn_keys = ts_xreallocarray(idx->warn_keys, idx->nwarnings + 1, sizeof *idx->warn_keys);
  idx->warnings = ts_xreallocarray(idx->warnings, idx->nwarnings + 1, sizeof *idx->warnings);
  idx->warn_keys[idx->nwarnings] = ts_xstrdup(key);
  idx->warnings[idx->nwarnings++] = ts_xstrdup(line);
}

size_t ts_index_warnings(const struct ts_index *idx, const char *const **out) {
  *out = (const char *const *)idx->warnings;
  return idx->nwarnings;
}

/* An index URL as given, escaped (a literal space in a file:// index) and
 * without trailing slashes. */
static char *trim_slash(const char *s) {
  char *p = ts_url_escape(s ? s : "");
  size_t n = strlen(p);
  while (n > 1 && p[n - 1] == '/')
    p[--n] = '\0';
  return p;
}

struct ts_index *ts_index_new(const struct ts_index_options *o, struct ts_error *err) {
  struct ts_index *idx = ts_xcalloc(1, sizeof *idx);
  idx->general = ts_xcalloc(o->nextra_index_urls + 1, sizeof *idx->general);
  if (!o->no_index)
    idx->general[idx->ngeneral++] = trim_slash(o->index_url ? o->index_url : TS_INDEX_DEFAULT_URL);
  for (size_t i = 0; i < o->nextra_index_urls; i++)
    idx->general[idx->ngeneral++] = trim_slash(o->extra_index_urls[i]);
  idx->torch_url = trim_slash(o->torch_index_url ? o->torch_index_url : TS_INDEX_DEFAULT_TORCH_URL);
  if (o->nfind_links) {
    idx->links = ts_xcalloc(o->nfind_links, sizeof *idx->links);
    idx->nlinks = o->nfind_links;
    for (size_t i = 0; i < o->nfind_links; i++) {
      idx->links[i].loc = ts_xstrdup(o->find_links[i]);
      ts_buf_init(&idx->links[i].page, TS_CAP_INDEX_PAGE);
    }
  }
  idx->route = o->route;
  idx->route_ctx = o->route_ctx;
  idx->strategy = o->strategy;
  idx->mode = o->cache_mode;
  if (o->cache_mode != TS_CACHE_DISABLED) {
    idx->cache_dir = o->cache_dir ? ts_xstrdup(o->cache_dir) : ts_cache_root_dir();
    if (!idx->cache_dir && o->cache_mode == TS_CACHE_OFFLINE) {
      ts_index_free(idx);
      ts_error_set(err, TS_E_OFFLINE, "--offline needs a cache, but no cache directory is set");
      return NULL;
    }
    if (!idx->cache_dir)
      idx->mode = TS_CACHE_DISABLED;
    else if (o->cache_mode != TS_CACHE_OFFLINE)
      ts_cache_root_prepare(idx->cache_dir); /* marks a root we create */
    if (idx->cache_dir)
      idx->cache = ts_cache_open(idx->cache_dir);
  }
  for (size_t i = 0; i < idx->ngeneral; i++) {
    if (!ts_url_is_http(idx->general[i]) && strncmp(idx->general[i], "file://", 7) != 0) {
      char r[200];
      ts_url_redact_buf(idx->general[i], r, sizeof r);
      ts_error_set(err, TS_E_INVALID, "index URL '%s' must start with http://, https:// or file://", r);
      ts_index_free(idx);
      return NULL;
    }
  }
  if (!ts_url_is_http(idx->torch_url) && strncmp(idx->torch_url, "file://", 7) != 0) {
    char r[200];
    ts_url_redact_buf(idx->torch_url, r, sizeof r);
    ts_error_set(err, TS_E_INVALID,
                 "--torch-index-url '%s' must start with http://, https:// or file://", r);
    ts_index_free(idx);
    return NULL;
  }
  idx->http = ts_http_new(&o->http);
  return idx;

}

void ts_index_free(struct ts_index *idx) {
  if (!idx)
    return;
  ts_strv_free(idx->general, idx->ngeneral);
  for (size_t i = 0; i < idx->nlinks; i++) {
    free(idx->links[i].loc);
    free(idx->links[i].dir);
    free(idx->links[i].page_url);
    ts_buf_clear(&idx->links[i].page);
  }
  free(idx->links);
  free(idx->torch_url);
  free(idx->cache_dir);
  ts_cache_close(idx->cache);
  if (idx->scratch_dir)
    ts_fs_remove_tree(idx->scratch_dir, NULL);
  free(idx->scratch_dir);
  ts_http_free(idx->http);
  for (size_t i = 0; i < idx->nwarnings; i++) {
    free(idx->warn_keys[i]);
    free(idx->warnings[i]);
  }
  free(idx->warn_keys);
  free(idx->warnings);
  free(idx);
}

const char *ts_index_scratch_dir(struct ts_index *idx, struct ts_error *err) {
  if (idx->scratch_dir)
    return idx->scratch_dir;
  const char *tmp = getenv("TMPDIR");
  char *tmpl = ts_path_join(tmp && *tmp ? tmp : "/tmp", "torchsolve-nocache-XXXXXX");
  if (!mkdtemp(tmpl)) {
    ts_error_set(err, TS_E_IO, "cannot create a temporary directory '%s': %s", tmpl,
                 strerror(errno));
    free(tmpl);
    return NULL;
  }
  idx->scratch_dir = tmpl;
  return tmpl;
}

char *ts_index_torch_url(const struct ts_index *idx, const char *variant) {
  return ts_path_join(idx->torch_url, variant);
}

const char *ts_index_cache_dir(const struct ts_index *idx) { return idx->cache_dir; }

struct ts_cache *ts_index_cache(struct ts_index *idx) { return idx->cache; }

struct ts_http_stats ts_index_http_stats(const struct ts_index *idx) {
  return ts_http_get_stats(idx->http);
}

/* ---- pages ----------------------------------------------------------- */

struct page_job {
  const char *name;        /* normalised project */
  const char *index_url;   /* base */
  char *url;               /* page URL */
  char cache_key[TS_SHA256_HEX_LEN + 1]; /* empty: not cached */
  struct ts_cache_entry cached;
  bool have_cached;
  struct ts_http_request req;
  bool use_http;
  bool remembered; /* a 404 answered from the cache */
  struct ts_index_project project;
  enum ts_code code;
  struct ts_error err;
};

static bool ctype_is(const char *ct, const char *want) {
  size_t n = strlen(want);
  if (!ct)
    return false;
  while (*ct == ' ')
    ct++;
  return strncasecmp(ct, want, n) == 0 && (ct[n] == '\0' || ct[n] == ';' || ct[n] == ' ');
}

/* A page the server sent (200), stored for later runs, with what parsing
 * it gave when it is a project page (NULL otherwise), so that later runs
 * need not parse it (parsed_page.h).  Best effort: a failed cache write is
 * not fatal. */
static void store_page(struct ts_cache *c, const char *key, const char *name,
                       const char *url, const struct ts_http_request *r,
                       const struct ts_index_project *project, int64_t now) {
  struct ts_cache_entry e = {.url = (char *)url, .final_url = r->effective_url,
                             .content_type = r->content_type, .etag = r->etag,
                             .last_modified = r->last_modified, .stored_at = now,
                             .max_age = r->max_age, .body = r->body};
  ts_buf_init(&e.parsed, 0);
  if (!project || ts_parsed_page_encode(project, r->effective_url, &e.parsed) == TS_OK)
    ts_cache_put_page(c, key, name, &e, NULL);
  ts_buf_clear(&e.parsed);
}

/* A page the server refused (404, 410: status 404; too big to use: 413),
 * remembered for ttl seconds. */
static void store_refusal(struct ts_cache *c, const char *key, const char *name,
                          const char *url, int64_t now, long status, long ttl) {
  struct ts_cache_entry e = {.url = (char *)url, .stored_at = now, .max_age = ttl,
                             .status = status};
  ts_cache_put_page(c, key, name, &e, NULL);
}

/* A cached page the server confirmed (304): fresh again from now. */
static void refresh_page(struct ts_cache *c, const char *key, const char *name,
                         struct ts_cache_entry *cached, const struct ts_http_request *r,
                         int64_t now) {
  cached->stored_at = now;
  if (r->max_age >= 0)
    cached->max_age = r->max_age;
  ts_cache_put_page(c, key, name, cached, NULL);
}

/* What a page body is, whatever page type its Content-Type says: '{'
 * starts a PEP 691 JSON page, '<' an HTML one (after white space and a
 * UTF-8 BOM); 0 when it is neither.  Mirrors label pages wrongly (an HTML
 * page sent as the JSON type that was asked for, a JSON file served as
 * text/html or application/json by a plain web server), so the body
 * decides between the two; a type that is no page type (a file's
 * application/octet-stream) is still refused. */
static char page_kind(const char *body, size_t len) {
  size_t i = 0;
  if (len >= 3 && memcmp(body, "\xef\xbb\xbf", 3) == 0)
    i = 3;
  while (i < len && (body[i] == ' ' || body[i] == '\t' || body[i] == '\r' || body[i] == '\n'))
    i++;
  return i < len && (body[i] == '{' || body[i] == '<') ? body[i] : 0;
}

static enum ts_code parse_page(const char *body, size_t len, const char *ctype,
                               const char *url, const char *name,
                               struct ts_index_project *out, struct ts_error *err) {
  bool json = ctype_is(ctype, "application/vnd.pypi.simple.v1+json") ||
              ctype_is(ctype, "application/vnd.pypi.simple.latest+json") ||
              ctype_is(ctype, "application/json");
  bool html = ctype_is(ctype, "text/html") ||
              ctype_is(ctype, "application/vnd.pypi.simple.v1+html") ||
              ctype_is(ctype, "application/vnd.pypi.simple.latest+html");
  char kind = json || html ? page_kind(body, len) : 0;
  if (kind == '{' || (!kind && json))
    return ts_index_parse_json(body, len, url, name, out, err);
  if (kind == '<' || (!kind && html))
    return ts_index_parse_html(body, len, url, name, out, err);
  char r[200];
  ts_url_redact_buf(url, r, sizeof r);
  return ts_error_set(err, TS_E_PARSE,
                      "%s: unexpected content type '%.60s'; is this a PEP 503/691 index URL?",
                      r, ctype ? ctype : "(none)");
}

/* The project of a cached page: its stored parse when that is usable
 * (the warm case: no JSON or HTML is parsed), else the body parsed again.
 * The entry is rewritten when `confirmed` (the server answered 304: fresh
 * again from now), and when its stored parse was missing or unusable (an
 * earlier version's entry, or damage) unless the cache is read-only
 * (--offline), so that the next run finds one.  A failed write is not
 * fatal. */
static enum ts_code cached_project(struct ts_index *idx, struct page_job *j,
                                   const struct ts_http_request *confirmed, int64_t now) {
  struct ts_cache_entry *e = &j->cached;
  bool form_ok = ts_parsed_page_decode(e->parsed.data, e->parsed.len, e->final_url, j->name,
                                       &j->project) == TS_OK;
  if (!form_ok) {
    enum ts_code c = parse_page(e->body.data, e->body.len, e->content_type, e->final_url,
                                j->name, &j->project, &j->err);
    if (c != TS_OK)
      return c;
    ts_buf_reset(&e->parsed);
    if (ts_parsed_page_encode(&j->project, e->final_url, &e->parsed) != TS_OK)
      ts_buf_reset(&e->parsed);
  }
  if (confirmed)
    refresh_page(idx->cache, j->cache_key, j->name, e, confirmed, now);
  else if (!form_ok && idx->mode != TS_CACHE_OFFLINE)
    ts_cache_put_page(idx->cache, j->cache_key, j->name, e, NULL);
  return TS_OK;
}

static void read_local_page(struct page_job *j) {
  char *path = ts_url_file_path(j->url);
  char r[200];
  ts_url_redact_buf(j->url, r, sizeof r);
  if (!path) {
    j->code = ts_error_set(&j->err, TS_E_INVALID, "unsupported file URL '%s'", r);
    return;
  }
  struct ts_buf b;
  ts_buf_init(&b, TS_CAP_INDEX_PAGE);
  bool json = false;
  char *f = ts_path_join(path, "index.json");
  enum ts_code c = ts_fs_read_file(f, &b, &j->err);
  if (!c) {
    json = true;
  } else {
    free(f);
    f = ts_path_join(path, "index.html");
    c = ts_fs_read_file(f, &b, &j->err);
  }
  if (c == TS_E_NOT_FOUND)
    ts_error_set(&j->err, c, "%s: no such project page", r);
  if (!c)
    c = json ? ts_index_parse_json(b.data, b.len, j->url, j->name, &j->project, &j->err)
             : ts_index_parse_html(b.data, b.len, j->url, j->name, &j->project, &j->err);
  j->code = c;
  free(f);
  free(path);
  ts_buf_clear(&b);
}

/* Fetches and parses every job's page; each job gets its own code. */
static enum ts_code run_page_jobs(struct ts_index *idx, struct page_job *jobs, size_t n,
                                  struct ts_error *err) {
  int64_t now = (int64_t)time(NULL);
  struct ts_http_request **reqs = ts_xcalloc(n, sizeof *reqs);
  size_t nreq = 0;
  for (size_t i = 0; i < n; i++) {
    struct page_job *j = &jobs[i];
    j->url = ts_url_project_page(j->index_url, j->name);
    if (!ts_url_is_http(j->url)) {
      read_local_page(j);
      continue;
    }
    if (idx->mode != TS_CACHE_DISABLED) {
      ts_cache_page_key(j->url, TS_INDEX_ACCEPT, j->cache_key);
      j->have_cached = ts_cache_get_page(idx->cache, j->cache_key, TS_CAP_INDEX_PAGE,
                                         &j->cached, NULL) == TS_OK;
    }
    bool cached_ok = j->have_cached &&
                     (idx->mode == TS_CACHE_OFFLINE ||
                      (idx->mode == TS_CACHE_NORMAL && ts_cache_fresh(&j->cached, now)));
    if (cached_ok && j->cached.status == 404) {
      j->remembered = true;
      char r[200];
      ts_url_redact_buf(j->url, r, sizeof r);
      j->code = ts_error_set(&j->err, TS_E_NOT_FOUND,
                             "%s: HTTP 404 (not found; remembered for %d minutes, "
                             "--refresh asks again)", r, TS_CACHE_NOT_FOUND_TTL / 60);
      continue;
    }
    if (cached_ok) {
      j->code = cached_project(idx, j, NULL, now);
      continue;
    }
    if (idx->mode == TS_CACHE_OFFLINE) {
      char r[200];
      ts_url_redact_buf(j->url, r, sizeof r);
      j->code = ts_error_set(&j->err, TS_E_OFFLINE, "%s is not in the cache (--offline)", r);
      continue;
    }
    j->use_http = true;
    j->req.url = j->url;
    j->req.accept = TS_INDEX_ACCEPT;
    j->req.compressed = true;
    j->req.max_body = TS_CAP_INDEX_PAGE;
    j->req.fd = -1;
    if (j->have_cached && j->cached.status != 404) {
      j->req.if_none_match = j->cached.etag;
      j->req.if_modified_since = j->cached.last_modified;
    }
    reqs[nreq++] = &j->req;
  }
  enum ts_code rc = ts_http_perform(idx->http, reqs, nreq, err);
  free(reqs);
  if (rc)
    return rc;
  for (size_t i = 0; i < n; i++) {
    struct page_job *j = &jobs[i];
    if (!j->use_http)
      continue;
    struct ts_http_request *r = &j->req;
    if (r->code) {
      j->code = r->code;
      j->err = r->err;
      if (r->code == TS_E_NOT_FOUND && j->cache_key[0] && !r->no_store)
        store_refusal(idx->cache, j->cache_key, j->name, j->url, now, 404,
                      TS_CACHE_NOT_FOUND_TTL);
      continue;
    }
    if (r->status == 304 && j->have_cached && j->cached.status != 404) {
      j->code = cached_project(idx, j, r, now);
      continue;
    }
    if (r->status == 304) {
      char u[200];
      ts_url_redact_buf(j->url, u, sizeof u);
      j->code = ts_error_set(&j->err, TS_E_HTTP, "%s: unexpected 304 without a cached copy", u);
      continue;
    }
    j->code = parse_page(r->body.data, r->body.len, r->content_type, r->effective_url,
                         j->name, &j->project, &j->err);
    if (j->code || !j->cache_key[0] || r->no_store)
      continue; /* nothing unverified (unparsable) is cached */
    store_page(idx->cache, j->cache_key, j->name, j->url, r, &j->project, now);
  }
  return TS_OK;
}

static void page_job_clear(struct page_job *j) {
  free(j->url);
  if (j->have_cached)
    ts_cache_entry_clear(&j->cached);
  ts_http_request_clear(&j->req);
  ts_index_project_clear(&j->project);
}

/* Find-links: fetched once per client, parsed per project.  Pages fetched
 * over HTTP go through the page cache as index pages do (under the project
 * name "find-links"), so that --offline and fresh entries need no request. */
static void load_find_links(struct ts_index *idx) {
  size_t nl = idx->nlinks ? idx->nlinks : 1;
  struct ts_http_request **reqs = ts_xcalloc(nl, sizeof *reqs);
  struct ts_http_request *rs = ts_xcalloc(nl, sizeof *rs);
  struct ts_cache_entry *ces = ts_xcalloc(nl, sizeof *ces);
  bool *have = ts_xcalloc(nl, sizeof *have);
  char (*ckeys)[TS_SHA256_HEX_LEN + 1] = ts_xcalloc(nl, sizeof *ckeys);
  int64_t now = (int64_t)time(NULL);
  size_t nreq = 0;
  for (size_t i = 0; i < idx->nlinks; i++) {
    struct find_link *l = &idx->links[i];
    if (l->fetched)
      continue;
    l->fetched = true;
    char *path = ts_url_file_path(l->loc);
    if (!path && !strstr(l->loc, "://"))
      path = ts_xstrdup(l->loc);
    if (path) {
      struct stat st;
      if (stat(path, &st) == 0 && S_ISDIR(st.st_mode)) {
        /* absolute: its files become file:// URLs ("-f wheels/", as pip) */
        l->dir = realpath(path, NULL);
        if (l->dir)
          free(path);
        else
          l->dir = path;
        continue;
      }
      l->code = ts_fs_read_file(path, &l->page, &l->err);
      if (!l->code) {
        if (strstr(l->loc, "://")) {
          l->page_url = ts_xstrdup(l->loc);
        } else {
          char *abs = realpath(path, NULL);
          struct ts_buf u;
          ts_buf_init(&u, 0);
          ts_buf_xprintf(&u, "file://%s", abs ? abs : path);
          l->page_url = ts_buf_take(&u, NULL);
          free(abs);
        }
      }
      free(path);
      continue;
    }
    if (!ts_url_is_http(l->loc)) {
      l->code = ts_error_set(&l->err, TS_E_INVALID, "unsupported --find-links location");
      continue;
    }
    if (idx->mode != TS_CACHE_DISABLED) {
      ts_cache_page_key(l->loc, "text/html", ckeys[i]);
      have[i] = ts_cache_get_page(idx->cache, ckeys[i], TS_CAP_INDEX_PAGE, &ces[i], NULL) ==
                TS_OK;
    }
    if (have[i] && (idx->mode == TS_CACHE_OFFLINE ||
                    (idx->mode == TS_CACHE_NORMAL && ts_cache_fresh(&ces[i], now)))) {
      l->page = ces[i].body;
      ts_buf_init(&ces[i].body, 0);
      l->page_url = ts_xstrdup(ces[i].final_url ? ces[i].final_url : "");
      continue;
    }
    if (idx->mode == TS_CACHE_OFFLINE) {
      l->code = ts_error_set(&l->err, TS_E_OFFLINE, "the page is not in the cache (--offline)");
      continue;
    }
    rs[i].url = l->loc;
    rs[i].accept = "text/html";
    rs[i].compressed = true;
    rs[i].max_body = TS_CAP_INDEX_PAGE;
    rs[i].fd = -1;
    if (have[i]) {
      rs[i].if_none_match = ces[i].etag;
      rs[i].if_modified_since = ces[i].last_modified;
    }
    reqs[nreq++] = &rs[i];
  }
  struct ts_error e = {0};
  ts_http_perform(idx->http, reqs, nreq, &e);
  for (size_t i = 0; i < idx->nlinks; i++) {
    if (!rs[i].url)
      continue;
    struct find_link *l = &idx->links[i];
    struct ts_http_request *r = &rs[i];
    l->code = r->code;
    l->err = r->err;
    if (!l->code && r->status == 304 && have[i]) {
      refresh_page(idx->cache, ckeys[i], "find-links", &ces[i], r, now);
      l->page = ces[i].body;
      ts_buf_init(&ces[i].body, 0);
      l->page_url = ts_xstrdup(ces[i].final_url ? ces[i].final_url : "");
    } else if (!l->code && r->status == 304) {
      char u[200];
      ts_url_redact_buf(l->loc, u, sizeof u);
      l->code = ts_error_set(&l->err, TS_E_HTTP, "%s: unexpected 304 without a cached copy", u);
    } else if (!l->code) {
      struct ts_index_project chk = {0};
      struct ts_error pe = {0};
      /* cached only when every link on it is valid (it then parses) */
      bool valid = ckeys[i][0] && !r->no_store &&
                   ts_index_parse_flat(r->body.data, r->body.len, r->effective_url, "-", &chk,
                                       &pe) == TS_OK;
      ts_index_project_clear(&chk);
      if (valid)
        store_page(idx->cache, ckeys[i], "find-links", l->loc, r, NULL, now);
      l->page = r->body;
      ts_buf_init(&r->body, 0);
      l->page_url = ts_xstrdup(r->effective_url ? r->effective_url : "");
    }
    ts_http_request_clear(r);
  }
  for (size_t i = 0; i < idx->nlinks; i++) {
    if (have[i])
      ts_cache_entry_clear(&ces[i]);
  }
  free(ckeys);
  free(have);
  free(ces);
  free(reqs);
  free(rs);
}

struct src_url {
  const char *url;
  size_t index; /* in the page */
};

static int src_url_cmp(const void *a, const void *b) {
  const struct src_url *x = a, *y = b;
  int c = strcmp(x->url, y->url);
  return c ? c : (x->index > y->index) - (x->index < y->index);
}

/* Moves src's files into dst, each marked with where it came from when
 * that is not dst's index (src_index: another index; NULL: find-links), so
 * that a merged project still names the right index per file. */
static void merge_files(struct ts_index_project *dst, struct ts_index_project *src,
                        const char *src_index) {
  bool other = src_index && dst->index_url && strcmp(src_index, dst->index_url) != 0;
  for (size_t k = 0; k < src->nfiles; k++) {
    struct ts_index_file *f = &src->files[k];
    if (!src_index)
      f->from_find_links = true;
    else if (other && !f->index_url)
      f->index_url = ts_xstrdup(src_index);
  }
  if (dst->nfiles == 0) { /* the common case: one page, moved whole */
    struct ts_index_file *t = dst->files;
    dst->files = src->files;
    dst->nfiles = src->nfiles;
    src->files = t;
    src->nfiles = 0;
    return;
  }
  /* a file listed twice is kept once, at its first listing: dst's URLs
   * and src's sorted, src's in page order within one URL (torch merges
   * eight variant pages of hundreds of files; comparing every pair of
   * URLs cost a b-hf-stack resolve 4%) */
  size_t nseen = dst->nfiles, nsrc = src->nfiles;
  const char **seen = ts_xcalloc(nseen ? nseen : 1, sizeof *seen);
  for (size_t m = 0; m < nseen; m++)
    seen[m] = dst->files[m].url;
  qsort(seen, nseen, sizeof *seen, ts_strv_cmp);
  struct src_url *order = ts_xcalloc(nsrc, sizeof *order);
  bool *keep = ts_xcalloc(nsrc, sizeof *keep);
  for (size_t k = 0; k < nsrc; k++)
    order[k] = (struct src_url){.url = src->files[k].url, .index = k};
  qsort(order, nsrc, sizeof *order, src_url_cmp);
  for (size_t k = 0; k < nsrc; k++) {
    const char *url = order[k].url;
    keep[order[k].index] = (k == 0 || strcmp(order[k - 1].url, url) != 0) &&
                           !bsearch(&url, seen, nseen, sizeof *seen, ts_strv_cmp);
  }
  for (size_t k = 0; k < nsrc; k++)
    if (keep[k])
      ts_index_project_add_file(dst, &src->files[k]);
  free(keep);
  free(order);
  free(seen);
}

static enum ts_code add_find_links(struct ts_index *idx, struct ts_index_result *res) {
  for (size_t i = 0; i < idx->nlinks; i++) {
    struct find_link *l = &idx->links[i];
    struct ts_index_project p = {0};
    enum ts_code c;
    struct ts_error e = {0};
    if (l->code) {
      char r[200];
      ts_url_redact_buf(l->loc, r, sizeof r);
      /* A missing find-links location is the user's mistake, not a missing
       * project: callers read TS_E_NOT_FOUND as "no index has it" and
       * would swallow the detail ("no index has a project named 'x'"). */
      enum ts_code code = l->code;
      if (code == TS_E_NOT_FOUND)
        code = ts_url_is_http(l->loc) ? TS_E_HTTP : TS_E_IO;
      res->code = code;
      ts_error_set(&res->err, code, "--find-links %s: %s", r, l->err.detail);
      return code;
    }
    if (l->dir)
      c = ts_index_scan_dir(l->dir, res->project.name, &p, &e);
    else
      c = ts_index_parse_flat(l->page.data, l->page.len, l->page_url, res->project.name, &p, &e);
    if (!c)
      merge_files(&res->project, &p, NULL);
    ts_index_project_clear(&p);
    if (c) {
      res->code = c;
      res->err = e;
      return c;
    }
  }
  return TS_OK;
}

/* ---- "did you mean": the names an index lists ------------------------- */

/* A private index's root page fits; pypi.org's (over half a million names,
 * tens of MB) does not, and is remembered as too big for a day, so that a
 * typo never costs more than a refused request. */
#define PROJECT_LIST_CAP (8u << 20)
#define PROJECT_LIST_TOO_BIG_TTL 86400

/* The root page of index_url (body and whether it is JSON) through the
 * page cache; false when there is none to be had cheaply. */
static bool fetch_project_list(struct ts_index *idx, const char *index_url, struct ts_buf *body,
                               bool *json) {
  char *url = ts_xasprintf("%s/", index_url);
  char *path = ts_url_file_path(url);
  bool ok = false;
  if (path) { /* a local index: its root index.json or index.html */
    char *f = ts_path_join(path, "index.json");
    *json = ts_fs_read_file(f, body, NULL) == TS_OK;
    free(f);
    if (!*json) {
      f = ts_path_join(path, "index.html");
      ok = ts_fs_read_file(f, body, NULL) == TS_OK;
      free(f);
    }
    ok = ok || *json;
    free(path);
    free(url);
    return ok;
  }
  int64_t now = (int64_t)time(NULL);
  char ckey[TS_SHA256_HEX_LEN + 1] = "";
  if (idx->mode != TS_CACHE_DISABLED)
    ts_cache_page_key(url, TS_INDEX_ACCEPT, ckey);
  struct ts_cache_entry ce = {0};
  bool have = ckey[0] &&
              ts_cache_get_page(idx->cache, ckey, PROJECT_LIST_CAP, &ce, NULL) == TS_OK;
  const struct ts_buf *got = NULL;
  const char *ctype = NULL;
  struct ts_http_request r = {.url = url, .accept = TS_INDEX_ACCEPT, .compressed = true,
                              .max_body = PROJECT_LIST_CAP, .fd = -1};
  if (have && (idx->mode == TS_CACHE_OFFLINE ||
               (idx->mode == TS_CACHE_NORMAL && ts_cache_fresh(&ce, now)))) {
    got = ce.status == 200 ? &ce.body : NULL;
    ctype = ce.content_type;
  } else if (idx->mode != TS_CACHE_OFFLINE && ts_url_is_http(url)) {
    if (have && ce.status == 200) {
      r.if_none_match = ce.etag;
      r.if_modified_since = ce.last_modified;
    }
    struct ts_http_request *rq = &r;
    if (ts_http_perform(idx->http, &rq, 1, NULL) == TS_OK) {
      if (!r.code && r.status == 304 && have && ce.status == 200) {
        refresh_page(idx->cache, ckey, "index-root", &ce, &r, now);
        got = &ce.body;
        ctype = ce.content_type;
      } else if (!r.code && r.status != 304) {
        if (ckey[0] && !r.no_store)
          store_page(idx->cache, ckey, "index-root", url, &r, NULL, now);
        got = &r.body;
        ctype = r.content_type;
      } else if (ckey[0] && (r.code == TS_E_TOO_BIG || r.code == TS_E_NOT_FOUND)) {
        store_refusal(idx->cache, ckey, "index-root", url, now,
                      r.code == TS_E_TOO_BIG ? 413 : 404,
                      r.code == TS_E_TOO_BIG ? PROJECT_LIST_TOO_BIG_TTL
                                             : TS_CACHE_NOT_FOUND_TTL);
      }
    }
  }
  if (got) {
    *json = ctype_is(ctype, "application/vnd.pypi.simple.v1+json") ||
            ctype_is(ctype, "application/vnd.pypi.simple.latest+json");
    ok = ts_buf_append(body, got->data, got->len) == TS_OK;
  }
  ts_http_request_clear(&r);
  if (have)
    ts_cache_entry_clear(&ce);
  free(url);
  return ok;
}

/* The name nearest to `name` among those the first of srcs that offers a
 * project list lists, malloc'd; NULL when none is near. */
static char *suggest_project(struct ts_index *idx, const char *name, const char *const *srcs,
                             size_t nsrcs) {
  char *hit = NULL;
  for (size_t s = 0; s < nsrcs && !hit; s++) {
    struct ts_buf body;
    ts_buf_init(&body, PROJECT_LIST_CAP);
    bool json = false;
    char **names = NULL;
    size_t n = 0;
    if (fetch_project_list(idx, srcs[s], &body, &json) &&
        ts_index_parse_project_list(body.data, body.len, json, &names, &n, NULL) == TS_OK) {
      const char *near = ts_name_nearest(name, (const char *const *)names, n);
      hit = near ? ts_xstrdup(near) : NULL;
    }
    ts_strv_free(names, n);
    ts_buf_clear(&body);
  }
  return hit;
}

/* Sources of one project in one fetch. */
struct proj_state {
  char *name;
  const char *srcs[TS_INDEX_MAX_ROUTES];
  size_t nsrcs, pos;
  bool merge, done, found;
  bool remembered; /* some index's 404 came from the cache */
};

/* A page refused for want of credentials (401, 403): a company mirror's
 * way of saying it does not carry a project, or that we may not see it. */
static bool refused(const struct page_job *j) {
  return j->code == TS_E_HTTP && j->use_http && (j->req.status == 401 || j->req.status == 403);
}

/* One of the --extra-index-url indexes (not the primary, not a torch
 * variant index a project is routed to). */
static bool is_extra_index(const struct ts_index *idx, const char *url) {
  for (size_t i = 1; url && i < idx->ngeneral; i++)
    if (strcmp(idx->general[i], url) == 0)
      return idx->ngeneral && strcmp(idx->general[0], url) != 0;
  return false;
}

static void warn_refused(struct ts_index *idx, const struct page_job *j) {
  char u[200];
  ts_url_redact_buf(j->index_url, u, sizeof u);
  char *key = ts_xasprintf("refused %s", j->index_url);
  char *line = ts_xasprintf("the extra index %s answers HTTP %ld for '%s': taken as not "
                            "having it (check the credentials in the URL or ~/.netrc if "
                            "it should)",
                            u, j->req.status, j->name);
  ts_index_warn_once(idx, key, line);
  free(key);
  free(line);
}

static enum ts_code fetch_projects(struct ts_index *idx, struct proj_state *ps, size_t n,
                                   struct ts_index_result *out, bool with_links,
                                   struct ts_error *err) {
  if (with_links && idx->nlinks)
    load_find_links(idx);
  for (size_t i = 0; i < n; i++) {
    memset(&out[i], 0, sizeof out[i]);
    out[i].project.name = ts_xstrdup(ps[i].name);
  }
  enum ts_code rc = TS_OK;
  for (;;) {
    /* One wave: every project's next source (all sources when merging). */
    size_t njobs = 0;
    for (size_t i = 0; i < n; i++)
      if (!ps[i].done)
        njobs += ps[i].merge ? ps[i].nsrcs - ps[i].pos : (ps[i].pos < ps[i].nsrcs);
    if (!njobs)
      break;
    struct page_job *jobs = ts_xcalloc(njobs, sizeof *jobs);
    size_t *owner = ts_xcalloc(njobs, sizeof *owner);
    size_t k = 0;
    for (size_t i = 0; i < n; i++) {
      if (ps[i].done)
        continue;
      size_t end = ps[i].merge ? ps[i].nsrcs : (ps[i].pos < ps[i].nsrcs ? ps[i].pos + 1 : ps[i].pos);
      for (size_t s = ps[i].pos; s < end; s++) {
        jobs[k].name = ps[i].name;
        jobs[k].index_url = ps[i].srcs[s];
        owner[k++] = i;
      }
      ps[i].pos = end;
    }
    rc = run_page_jobs(idx, jobs, njobs, err);
    for (size_t j = 0; j < njobs; j++) {
      struct ts_index_result *r = &out[owner[j]];
      struct proj_state *p = &ps[owner[j]];
      if (!rc && !p->done && r->code == TS_OK) {
        if (jobs[j].code == TS_OK) {
          if (!p->found) {
            free(r->project.index_url);
            r->project.index_url = ts_xstrdup(jobs[j].index_url ? jobs[j].index_url : "");
          }
          p->found = true;
          merge_files(&r->project, &jobs[j].project, jobs[j].index_url);
          if (!p->merge)
            p->done = true; /* first index wins: later ones are never asked */
        } else if (jobs[j].code == TS_E_NOT_FOUND) {
          p->remembered |= jobs[j].remembered;
        } else if (refused(&jobs[j]) && is_extra_index(idx, jobs[j].index_url)) {
          warn_refused(idx, &jobs[j]); /* as if it had no such project */
        } else if (refused(&jobs[j])) {
          char u[200];
          ts_url_redact_buf(jobs[j].index_url, u, sizeof u);
          r->code = ts_error_set(&r->err, TS_E_HTTP,
                                 "the index %s answers HTTP %ld for '%s'; check the "
                                 "credentials in the URL or ~/.netrc",
                                 u, jobs[j].req.status, jobs[j].name);
          p->done = true;
        } else {
          r->code = jobs[j].code;
          r->err = jobs[j].err;
          p->done = true;
        }
      }
      page_job_clear(&jobs[j]);
    }
    free(jobs);
    free(owner);
    for (size_t i = 0; i < n; i++)
      if (ps[i].merge)
        ps[i].done = true;
    if (rc)
      return rc;
  }
  for (size_t i = 0; i < n; i++) {
    struct ts_index_result *r = &out[i];
    if (!r->code && with_links)
      add_find_links(idx, r);
    if (!r->code && !ps[i].found && r->project.nfiles == 0) {
      struct ts_buf where;
      ts_buf_init(&where, 600);
      for (size_t s = 0; s < ps[i].nsrcs; s++) {
        char u[200];
        ts_url_redact_buf(ps[i].srcs[s], u, sizeof u);
        if (ts_buf_printf(&where, "%s%s", s ? ", " : "", u))
          break;
      }
      const char *alias = ts_index_known_alias(ps[i].name);
      char *near = alias ? ts_xstrdup(alias)
                         : suggest_project(idx, ps[i].name, ps[i].srcs, ps[i].nsrcs);
      char memo[160] = "";
      if (ps[i].remembered)
        snprintf(memo, sizeof memo, " (the index's 404 from an earlier run, remembered for "
                 "up to %d minutes: --refresh asks again)", TS_CACHE_NOT_FOUND_TTL / 60);
      r->code = ts_error_set(&r->err, TS_E_NOT_FOUND, "project '%s' not found on %s%s%s%s%s",
                             ps[i].name, where.data ? where.data : "any index",
                             near ? " (did you mean '" : "", near ? near : "",
                             near ? "'?)" : "", memo);
      free(near);
      ts_buf_clear(&where);
    }
    if (!r->project.index_url)
      r->project.index_url = ts_xstrdup(ps[i].nsrcs ? ps[i].srcs[0] : "");
  }
  return TS_OK;
}

enum ts_code ts_index_fetch_projects(struct ts_index *idx, const char *const *names, size_t n,
                                     struct ts_index_result *out, struct ts_error *err) {
  struct proj_state *ps = ts_xcalloc(n, sizeof *ps);

  for (size_t i = 0; i < n; i++) {
    ps[i].name = ts_name_normalize(names[i], strlen(names[i]));
    size_t nr = idx->route ? idx->route(idx->route_ctx, ps[i].name, ps[i].srcs, TS_INDEX_MAX_ROUTES) : 0;
    if (nr > TS_INDEX_MAX_ROUTES)
      nr = TS_INDEX_MAX_ROUTES;
    if (nr) {
      ps[i].nsrcs = nr;
      ps[i].merge = true;
    } else {
      for (size_t g = 0; g < idx->ngeneral && g < TS_INDEX_MAX_ROUTES; g++)
        ps[i].srcs[ps[i].nsrcs++] = idx->general[g];
      ps[i].merge = idx->strategy == TS_INDEX_UNSAFE_BEST_MATCH;
    }
  }
  enum ts_code rc = fetch_projects(idx, ps, n, out, true, err);
  for (size_t i = 0; i < n; i++)
    free(ps[i].name);
  free(ps);
  if (!rc)
    for (size_t i = 0; i < n; i++)
      if (out[i].code && out[i].code != TS_E_NOT_FOUND) {
        if (err)
          *err = out[i].err;
        break;
      }
  return rc;
}

enum ts_code ts_index_fetch_project_from(struct ts_index *idx, const char *name,
                                         const char *const *index_urls, size_t nurls,
                                         struct ts_index_result *out, struct ts_error *err) {
  struct proj_state ps = {0};
  ps.name = ts_name_normalize(name, strlen(name));
  char **trimmed = ts_xcalloc(nurls ? nurls : 1, sizeof *trimmed);
  for (size_t i = 0; i < nurls && i < TS_INDEX_MAX_ROUTES; i++) {
    trimmed[i] = trim_slash(index_urls[i]);
    ps.srcs[ps.nsrcs++] = trimmed[i];
  }
  ps.merge = idx->strategy == TS_INDEX_UNSAFE_BEST_MATCH;
  /* out->project.index_url is a copy, so trimmed[] may go. */
  enum ts_code rc = fetch_projects(idx, &ps, 1, out, false, err);
  ts_strv_free(trimmed, nurls);
  free(ps.name);
  return rc;
}

struct ts_http *ts_index_http(struct ts_index *idx) { return idx->http; }
enum ts_cache_mode ts_index_cache_mode(const struct ts_index *idx) { return idx->mode; }
