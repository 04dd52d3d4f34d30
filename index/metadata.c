/* Metadata on demand and verified downloads (client.h). */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/alloc.h"
#include "core/filehash.h"
#include "core/fs.h"
#include "core/sha256.h"
#include "core/str.h"
#include "index/client.h"
#include "index/url.h"
#include "zip/zip.h"
#include "pep/name.h"

#define TS_RANGE_TAIL (64u * 1024) /* first window: most wheels' CD fits */

/* client.c keeps its struct private; we only need these accessors. */
static const char *cache_root(struct ts_index *idx) { return ts_index_cache_dir(idx); }

const char *ts_index_metadata_source_name(enum ts_index_metadata_source s) {
  switch (s) {
  case TS_METADATA_CACHE: return "cache";
  case TS_METADATA_PEP658: return "pep658";
  case TS_METADATA_RANGE: return "range";
  case TS_METADATA_WHEEL: return "wheel";
  case TS_METADATA_LOCAL: return "local";
  default: return "none";
  }
}

void ts_index_metadata_clear(struct ts_index_metadata *m) {
  free(m->data);
  m->data = NULL;
  m->len = 0;
}

static char *project_of(const char *filename) {
  size_t n = strcspn(filename, "-");
  return ts_name_normalize(filename, n);
}

static char *strip_fragment(const char *url) {
  char *u = ts_xstrdup(url);
  u[strcspn(u, "#")] = '\0';
  return u;
}

static bool hex_equal(const uint8_t d[TS_SHA256_LEN], const char *hex) {
  char h[TS_SHA256_HEX_LEN + 1];
  ts_sha256_hex(d, h);
  return hex && strcasecmp(h, hex) == 0;
}

/* The member a request reads from the wheel's dist-info. */
static const char *member_of(const struct ts_index_metadata *m) {
  return m->member ? m->member : "METADATA";
}

/* The top-level "<x>.dist-info/<member>" of project `proj`. */
static const struct ts_zip_entry *find_metadata(const struct ts_zip_archive *a, const char *proj,
                                                const char *member) {
  const struct ts_zip_entry *only = NULL;
  size_t count = 0;
  for (size_t i = 0; i < a->count; i++) {
    const struct ts_zip_entry *e = &a->entries[i];
    const char *slash = memchr(e->name, '/', e->name_len);
    if (!slash || slash[1] == '\0' || strcmp(slash + 1, member) != 0)
      continue;
    size_t dl = (size_t)(slash - e->name);
    if (dl < 11 || memcmp(slash - 10, ".dist-info", 10) != 0)
      continue;
    count++;
    only = e;
    size_t nl = strcspn(e->name, "-");
    if (nl > dl - 10)
      nl = dl - 10;
    char *n = ts_name_normalize(e->name, nl);
    bool match = strcmp(n, proj) == 0;
    free(n);
    if (match)
      return e;
  }
  return count == 1 ? only : NULL;
}

static enum ts_code metadata_from_fd(int fd, const char *filename, const char *what,
                                     struct ts_index_metadata *m) {
  struct ts_zip_archive *a = NULL;
  enum ts_code c = ts_zip_open_fd(fd, &a, &m->err);
  if (c)
    return ts_error_wrap(&m->err, "%s", what);
  char *proj = project_of(filename);
  const struct ts_zip_entry *e = find_metadata(a, proj, member_of(m));
  free(proj);
  if (!e) {
    ts_zip_close(a);
    return ts_error_set(&m->err, TS_E_BAD_WHEEL, "%s: no .dist-info/%s in the wheel", what,
                        member_of(m));
  }
  struct ts_buf b;
  ts_buf_init(&b, TS_CAP_METADATA);
  c = ts_zip_read_member(a, e, &b, &m->err);
  ts_zip_close(a);
  if (c) {
    ts_buf_clear(&b);
    return c;
  }
  m->data = ts_buf_take(&b, &m->len);
  return TS_OK;
}

/* ---- downloads ------------------------------------------------------- */

/* A local file is hashed where it is (ts_filehash_path): copying it would
 * cost a second write of the whole wheel (50 ms for a 34 MiB wheel, seconds
 * for the real torch), and its digest is remembered so that installing the
 * same unchanged file again reads none of it. */
static enum ts_code verify_local(struct ts_index *idx, const char *src,
                                 struct ts_index_download *d) {
  enum ts_cache_mode mode = ts_index_cache_mode(idx);
  const char *root = mode == TS_CACHE_NORMAL || mode == TS_CACHE_OFFLINE ? cache_root(idx) : NULL;
  char *memo = root ? ts_filehash_memo_dir(root) : NULL;
  uint8_t dg[TS_SHA256_LEN];
  enum ts_code c = ts_filehash_path(src, memo, dg, &d->bytes, &d->err);
  free(memo);
  if (c)
    return c;
  ts_sha256_hex(dg, d->sha256_out);
  if (d->sha256 && !hex_equal(dg, d->sha256))
    return ts_error_set(&d->err, TS_E_HASH, "%s: sha256 is %s but %s says %s", src,
                        d->sha256_out, d->sha256_from ? d->sha256_from : "the index",
                        d->sha256);
  return TS_OK;
}

static int by_part(const void *a, const void *b, void *parts) {
  char **p = parts;
  return strcmp(p[*(const size_t *)a], p[*(const size_t *)b]);
}

/* Opens and locks "<dest>.part" (*fd).  When another process held it, it
 * may have finished meanwhile (renamed the .part to dest): then a dest
 * whose sha256 is the expected one is the answer, *fd stays -1. */
static enum ts_code lock_part(const char *part, struct ts_index_download *d, int *fd) {
  *fd = -1;
  bool contended = false;
  for (int tries = 0;; tries++) {
    int f = open(part, O_RDWR | O_CREAT | O_CLOEXEC, 0644);
    if (f < 0)
      return ts_error_set(&d->err, TS_E_IO, "cannot create '%s': %s", part, strerror(errno));
    int r = flock(f, LOCK_EX | LOCK_NB);
    if (r != 0 && errno == EWOULDBLOCK) {
      contended = true;
      while ((r = flock(f, LOCK_EX)) != 0 && errno == EINTR)
        ;
    }
    if (r != 0) {
      enum ts_code c = ts_error_set(&d->err, TS_E_IO, "cannot lock '%s': %s", part,
                                    strerror(errno));
      close(f);
      return c;
    }
    struct stat fst, pst;
    bool current = fstat(f, &fst) == 0 && stat(part, &pst) == 0 && fst.st_dev == pst.st_dev &&
                   fst.st_ino == pst.st_ino;
    contended = contended || !current;
    if (contended && d->sha256) {
      uint8_t dg[TS_SHA256_LEN];
      uint64_t size = 0;
      if (ts_filehash_path(d->dest, NULL, dg, &size, NULL) == TS_OK && hex_equal(dg, d->sha256)) {
        if (current && fst.st_size == 0)
          unlink(part);
        close(f);
        ts_sha256_hex(dg, d->sha256_out);
        d->bytes = size;
        return TS_OK;
      }
    }
    if (current || tries >= 100) {
      *fd = f;
      return TS_OK;
    }
    close(f); /* renamed or removed while we waited: take the new one */
  }
}

enum ts_code ts_index_download(struct ts_index *idx, struct ts_index_download *d, size_t n,
                               struct ts_error *err) {
  if (ts_index_cache(idx))
    ts_cache_note_download(ts_index_cache(idx)); /* a wheel may now be in the cache */
  struct ts_http_request *rs = ts_xcalloc(n ? n : 1, sizeof *rs);
  struct ts_http_request **reqs = ts_xcalloc(n ? n : 1, sizeof *reqs);
  char **parts = ts_xcalloc(n ? n : 1, sizeof *parts);
  size_t *order = ts_xcalloc(n ? n : 1, sizeof *order);
  size_t nreq = 0, nlock = 0;
  for (size_t i = 0; i < n; i++) {
    d[i].code = TS_OK;
    d[i].err.detail[0] = '\0';
    rs[i].fd = -1;
    char *local = ts_url_file_path(d[i].url);
    if (local) {
      d[i].code = verify_local(idx, local, &d[i]);
      free(local);
      continue;
    }
    char *dir = ts_xstrdup(d[i].dest);
    char *sl = strrchr(dir, '/');
    if (sl)
      *sl = '\0';
    if (sl && (d[i].code = ts_fs_mkdirs(dir, &d[i].err))) {
      free(dir);
      continue;
    }
    free(dir);
    if (asprintf(&parts[i], "%s.part", d[i].dest) < 0)
      abort();
    order[nlock++] = i;
  }
  /* Another process may be writing the same file: each .part is locked,
   * in one global order (by path) so that two batches cannot deadlock. */
  qsort_r(order, nlock, sizeof *order, by_part, parts);
  for (size_t k = 0; k < nlock; k++) {
    size_t i = order[k];
    if (k && strcmp(parts[i], parts[order[k - 1]]) == 0) {
      d[i].code = ts_error_set(&d[i].err, TS_E_INVALID, "'%s' is the destination of two downloads",
                               d[i].dest);
      continue;
    }
    int fd = -1;
    if ((d[i].code = lock_part(parts[i], &d[i], &fd)) || fd < 0)
      continue; /* an error, or another process already stored it */
    rs[i].url = d[i].url;
    rs[i].fd = fd;
    rs[i].hash = ts_sha256_new();
    rs[i].progress = d[i].progress;
    rs[i].progress_ctx = d[i].progress_ctx;
  }
  for (size_t i = 0; i < n; i++)
    if (rs[i].url)
      reqs[nreq++] = &rs[i];
  free(order);
  enum ts_code rc = ts_http_perform(ts_index_http(idx), reqs, nreq, err);
  for (size_t i = 0; i < n; i++) {
    struct ts_http_request *r = &rs[i];
    if (!r->url)
      continue;
    struct ts_index_download *x = &d[i];
    bool keep_part = false;
    if (!rc && r->code) {
      x->code = r->code;
      x->err = r->err;
      /* A transfer cut short may be resumed by the next run; the hash is
       * checked over the whole file before anything is renamed. */
      keep_part = r->code == TS_E_NETWORK || r->code == TS_E_TIMEOUT;
    } else if (!rc) {
      uint8_t dg[TS_SHA256_LEN];
      ts_sha256_final(r->hash, dg);
      ts_sha256_hex(dg, x->sha256_out);
      struct stat st;
      x->bytes = fstat(r->fd, &st) == 0 ? (uint64_t)st.st_size : 0;
      char u[200];
      ts_url_redact_buf(x->url, u, sizeof u);
      if (x->sha256 && !hex_equal(dg, x->sha256))
        x->code = ts_error_set(&x->err, TS_E_HASH,
                               "%s: sha256 is %s but %s says %s; the file was deleted",
                               u, x->sha256_out, x->sha256_from ? x->sha256_from : "the index",
                               x->sha256);
      else if (rename(parts[i], x->dest) != 0)
        x->code = ts_error_set(&x->err, TS_E_IO, "cannot rename '%s': %s", parts[i],
                               strerror(errno));
    }
    /* Ctrl-C or SIGTERM: what arrived is kept for the next run's Range
     * request, like a dropped connection (rs[i] of the others may not have
     * started; an empty .part is not worth keeping). */
    struct stat pst;
    if (rc == TS_E_INTERRUPTED && fstat(r->fd, &pst) == 0 && pst.st_size > 0)
      keep_part = true;
    /* unlinked before the lock goes with close: a waiting process must
     * not resume from a file that failed */
    if ((rc || x->code) && !keep_part)
      unlink(parts[i]);
    close(r->fd);
    ts_sha256_free(r->hash);
    ts_http_request_clear(r);
  }
  for (size_t i = 0; i < n; i++)
    free(parts[i]);
  free(parts);
  free(reqs);
  free(rs);
  return rc;
}

/* Renames the downloaded tmp to dest when it opens as a zip archive,
 * else deletes it. */
static enum ts_code keep_if_zip(const char *tmp, const char *dest, const char *url,
                                struct ts_error *err) {
  struct ts_error e = {0};
  struct ts_zip_archive *a = NULL;
  int fd = open(tmp, O_RDONLY | O_CLOEXEC);
  enum ts_code c = fd < 0 ? ts_error_set(&e, TS_E_IO, "%s", strerror(errno))
                          : ts_zip_open_fd(fd, &a, &e);
  ts_zip_close(a);
  if (fd >= 0)
    close(fd);
  char u[200];
  ts_url_redact_buf(url, u, sizeof u);
  if (c) {
    unlink(tmp);
    if (c != TS_E_IO)
      c = TS_E_BAD_WHEEL;
    return ts_error_set(err, c,
                        "%s: the download is not a whole wheel (%s); the server may have cut "
                        "it short; nothing was cached, try again",
                        u, e.detail);
  }
  if (rename(tmp, dest) != 0) {
    c = ts_error_set(err, TS_E_IO, "cannot rename '%s': %s", tmp, strerror(errno));
    unlink(tmp);
  }
  return c;
}

enum ts_code ts_index_fetch_wheel(struct ts_index *idx, const struct ts_index_file *f,
                                  char **path, struct ts_error *err) {
  *path = NULL;
  const char *root = cache_root(idx);
  char *local = ts_url_file_path(f->url);
  if (local) {
    *path = local;
    return TS_OK;
  }
  /* --no-cache: still a whole file on disk (lock hashes it, metadata reads
   * it), in a directory that goes away with the client */
  if (!root && !(root = ts_index_scratch_dir(idx, err)))
    return err ? err->code : TS_E_IO;
  char *proj = project_of(f->filename);
  char *url = strip_fragment(f->url);
  char *p = ts_cache_wheel_path(root, proj, f->sha256, url, f->filename);
  free(proj);
  enum ts_code c = TS_OK;
  struct stat st;
  if (stat(p, &st) != 0) {
    if (ts_index_cache_mode(idx) == TS_CACHE_OFFLINE) {
      char u[200];
      ts_url_redact_buf(url, u, sizeof u);
      c = ts_error_set(err, TS_E_OFFLINE, "%s is not in the cache (--offline)", u);
    } else {
      int lock = -1;
      c = ts_cache_lock(p, &lock, err);
      /* Another process may have finished it while we waited. */
      if (!c && stat(p, &st) != 0) {
        /* Without an index hash nothing vouches for the body (a server
         * that closes early without a Content-Length looks like a short
         * success): it must at least open as a zip before it is kept. */
        char *tmp = f->sha256 ? NULL : ts_xasprintf("%s.unverified", p);
        struct ts_index_download d = {0};
        d.url = url;
        d.sha256 = f->sha256;
        d.dest = tmp ? tmp : p;
        c = ts_index_download(idx, &d, 1, err);
        if (!c && d.code) {
          c = d.code;
          if (err)
            *err = d.err;
        }
        if (!c && tmp)
          c = keep_if_zip(tmp, p, url, err);
        free(tmp);
      }
      ts_cache_unlock(lock);
    }
  }
  free(url);
  if (c)
    free(p);
  else
    *path = p;
  return c;
}

/* ---- metadata -------------------------------------------------------- */

struct meta_job {
  struct ts_index_metadata *m;
  char *url;          /* wheel URL without fragment */
  char cache_key[TS_SHA256_HEX_LEN + 1]; /* METADATA's key; empty: not cached */
  char *proj;
  bool pending;       /* still needs a source */
  /* range state */
  struct ts_http_request req;
  struct ts_buf tail;
  uint64_t tail_start, size;
  struct ts_zip_archive *zip;
  const struct ts_zip_entry *entry;
  bool want_wheel;
};

static void http_req(struct ts_http_request *r, const char *url, const char *range, size_t cap) {
  ts_http_request_clear(r);
  memset(r, 0, sizeof *r);
  r->url = url;
  r->range = range;
  r->max_body = cap;
  r->fd = -1;
}

static enum ts_code perform_jobs(struct ts_index *idx, struct meta_job *jobs, size_t n,
                                 bool (*want)(const struct meta_job *), struct ts_error *err) {
  struct ts_http_request **reqs = ts_xcalloc(n ? n : 1, sizeof *reqs);
  size_t k = 0;
  for (size_t i = 0; i < n; i++)
    if (want(&jobs[i]))
      reqs[k++] = &jobs[i].req;
  enum ts_code rc = ts_http_perform(ts_index_http(idx), reqs, k, err);
  free(reqs);
  return rc;
}

static bool want_pep658(const struct meta_job *j) { return j->pending && j->req.url; }
static bool want_range(const struct meta_job *j) {
  return j->pending && !j->want_wheel && j->req.url;
}

/* The tail response: size the window, grow it once if needed, parse. */
static void range_tail_done(struct meta_job *j) {
  struct ts_http_request *r = &j->req;
  struct ts_index_metadata *m = j->m;
  char u[200];
  ts_url_redact_buf(j->url, u, sizeof u);
  if (r->code) {
    if (r->code == TS_E_NOT_FOUND || r->code == TS_E_TIMEOUT || r->code == TS_E_NETWORK ||
        r->code == TS_E_TLS) {
      m->code = r->code;
      m->err = r->err;
      j->pending = false;
    } else {
      j->want_wheel = true; /* e.g. 416: the server does not do ranges */
    }
    return;
  }
  if (r->status != 206 || r->total_size < 0) {
    j->want_wheel = true; /* server ignored the range: fetch the verified way */
    return;
  }
  j->size = (uint64_t)r->total_size;
  if (r->body.len > j->size) {
    m->code = ts_error_set(&m->err, TS_E_BAD_WHEEL, "%s: range answer larger than the file", u);
    j->pending = false;
    return;
  }
  uint64_t start = j->size - r->body.len;
  /* prepend to what we had (the tail grows backwards) */
  struct ts_buf nb;
  ts_buf_init(&nb, TS_ZIP_MAX_CD_SIZE + TS_ZIP_TAIL_MAX);
  if (ts_buf_append(&nb, r->body.data, r->body.len) ||
      (j->tail.len && ts_buf_append(&nb, j->tail.data, j->tail.len))) {
    ts_buf_clear(&nb);
    m->code = ts_error_set(&m->err, TS_E_TOO_BIG, "%s: central directory too large", u);
    j->pending = false;
    return;
  }
  ts_buf_clear(&j->tail);
  j->tail = nb;
  j->tail_start = start;
}

/* Another member's key in the metadata cache: the wheel's key and the
 * member's name hashed together, so it never meets the METADATA's. */
static void member_key(char key[TS_SHA256_HEX_LEN + 1], const char *member) {
  char *both = ts_xasprintf("%s/%s", key, member);
  uint8_t dg[TS_SHA256_LEN];
  ts_sha256(both, strlen(both), dg);
  ts_sha256_hex(dg, key);
  free(both);
}

/* Keeps verified METADATA for later runs and --offline. */
static void cache_metadata(struct ts_index *idx, const struct meta_job *j) {
  if (j->cache_key[0] && ts_index_cache_mode(idx) != TS_CACHE_DISABLED)
    ts_cache_put_metadata(ts_index_cache(idx), j->cache_key, j->m->data, j->m->len, NULL);
}

static enum ts_code range_metadata(struct ts_index *idx, struct meta_job *jobs, size_t n,
                                   struct ts_error *err) {
  char (*ranges)[64] = ts_xcalloc(n ? n : 1, 64);
  for (size_t i = 0; i < n; i++) {
    struct meta_job *j = &jobs[i];
    if (!j->pending)
      continue;
    size_t fl = strlen(j->m->file->filename);
    if (fl < 4 || strcmp(j->m->file->filename + fl - 4, ".whl") != 0) {
      j->pending = false;
      j->m->code = ts_error_set(&j->m->err, TS_E_UNSUPPORTED,
                                "%s: metadata of source distributions is not supported",
                                j->m->file->filename);
      continue;
    }
    ts_buf_init(&j->tail, 0);
    snprintf(ranges[i], 64, "-%u", TS_RANGE_TAIL);
    /* Capped at the window: a server that ignores ranges and starts sending
     * a 5 GB wheel is cut off at once (then the verified download runs). */
    http_req(&j->req, j->url, ranges[i], TS_RANGE_TAIL);
  }
  enum ts_code rc = perform_jobs(idx, jobs, n, want_range, err);
  for (int round = 0; !rc && round < 3; round++) {
    bool more = false;
    for (size_t i = 0; i < n; i++) {
      struct meta_job *j = &jobs[i];
      if (!want_range(j))
        continue;
      range_tail_done(j);
      if (!j->pending || j->want_wheel) {
        j->req.url = NULL;
        continue;
      }
      struct ts_zip_location loc;
      enum ts_code c = ts_zip_locate(j->tail.data, j->tail.len, j->size, &loc, &j->m->err);
      if (c) {
        j->m->code = c;
        j->pending = false;
        j->req.url = NULL;
        continue;
      }
      if (!loc.complete && loc.need_from < j->tail_start) {
        /* grow the window backwards: [need_from, tail_start) */
        if (j->tail_start - loc.need_from > TS_ZIP_MAX_CD_SIZE + TS_ZIP_TAIL_MAX) {
          j->m->code = ts_error_set(&j->m->err, TS_E_TOO_BIG, "%s: central directory too large",
                                    j->m->file->filename);
          j->pending = false;
          j->req.url = NULL;
          continue;
        }
        snprintf(ranges[i], 64, "%llu-%llu", (unsigned long long)loc.need_from,
                 (unsigned long long)(j->tail_start - 1));
        http_req(&j->req, j->url, ranges[i], (size_t)(j->tail_start - loc.need_from));
        more = true;
        continue;
      }
      j->req.url = NULL;
      if ((c = ts_zip_open_tail(j->tail.data, j->tail.len, j->size, &j->zip, &j->m->err))) {
        j->m->code = c;
        j->pending = false;
      }
    }
    if (!more)
      break;
    rc = perform_jobs(idx, jobs, n, want_range, err);
  }
  /* The METADATA member: often inside the tail already. */
  bool any = false;
  for (size_t i = 0; !rc && i < n; i++) {
    struct meta_job *j = &jobs[i];
    if (!j->pending || j->want_wheel || !j->zip)
      continue;
    j->entry = find_metadata(j->zip, j->proj, member_of(j->m));
    if (!j->entry) {
      j->m->code = ts_error_set(&j->m->err, TS_E_BAD_WHEEL, "%s: no .dist-info/%s in %s",
                                j->m->file->filename, member_of(j->m), "the central directory");
      j->pending = false;
      continue;
    }
    uint64_t s, e;
    ts_zip_entry_span(j->entry, &s, &e);
    if (s >= j->tail_start && e <= j->tail_start + j->tail.len) {
      struct ts_buf b;
      ts_buf_init(&b, TS_CAP_METADATA);
      enum ts_code c = ts_zip_read_member_buf(j->entry, j->tail.data, j->tail.len,
                                              j->tail_start, &b, &j->m->err);
      j->m->code = c;
      if (!c) {
        j->m->data = ts_buf_take(&b, &j->m->len);
        j->m->source = TS_METADATA_RANGE;
        if (j->m->file->sha256) /* as below: checked, and keyed by the wheel's hash */
          cache_metadata(idx, j);
      }
      ts_buf_clear(&b);
      j->pending = false;
      continue;
    }
    if (e - s > TS_CAP_METADATA + 65536) {
      j->m->code = ts_error_set(&j->m->err, TS_E_TOO_BIG, "%s: %s member too large",
                                j->m->file->filename, member_of(j->m));
      j->pending = false;
      continue;
    }
    snprintf(ranges[i], 64, "%llu-%llu", (unsigned long long)s, (unsigned long long)(e - 1));
    http_req(&j->req, j->url, ranges[i], (size_t)(e - s));
    j->tail_start = s;
    any = true;
  }
  if (!rc && any)
    rc = perform_jobs(idx, jobs, n, want_range, err);
  for (size_t i = 0; !rc && any && i < n; i++) {
    struct meta_job *j = &jobs[i];
    if (!want_range(j) || !j->entry)
      continue;
    struct ts_http_request *r = &j->req;
    if (r->code || r->status != 206) {
      if (r->code == TS_E_NETWORK || r->code == TS_E_TIMEOUT) {
        j->m->code = r->code;
        j->m->err = r->err;
        j->pending = false;
      } else {
        j->want_wheel = true;
      }
      continue;
    }
    struct ts_buf b;
    ts_buf_init(&b, TS_CAP_METADATA);
    enum ts_code c = ts_zip_read_member_buf(j->entry, r->body.data, r->body.len, j->tail_start,
                                            &b, &j->m->err);
    j->m->code = c;
    if (!c) {
      j->m->data = ts_buf_take(&b, &j->m->len);
      j->m->source = TS_METADATA_RANGE;
      /* The member's CRC-32 and size matched its central directory, and
       * the key is the wheel's sha256 from the index, so the entry names
       * exactly this file's METADATA.  Without an index hash the key
       * would be the URL, which a re-upload could reuse: not cached. */
      if (j->m->file->sha256)
        cache_metadata(idx, j);
    }
    ts_buf_clear(&b);
    j->pending = false;
  }
  free(ranges);
  return rc;
}

/* A mirror that advertises PEP 658 files it does not serve (pulp_python,
 * Artifactory): the wheel is read instead, and the user told once per
 * origin, naming the first file and what was wrong with it. */
static void pep658_unusable(struct ts_index *idx, const char *md_url, const char *why) {
  char u[200];
  ts_url_redact_buf(md_url, u, sizeof u);
  const char *host = strstr(u, "://");
  size_t origin = host ? (size_t)(host + 3 - u) + strcspn(host + 3, "/") : strlen(u);
  char key[200];
  snprintf(key, sizeof key, "pep658 %.*s", (int)origin, u);
  char *line = ts_xasprintf("%.*s advertises PEP 658 metadata it does not serve (%s: %s); "
                            "reading the wheels themselves", (int)origin, u, u, why);
  ts_index_warn_once(idx, key, line);
  free(line);
}

/* A job answered without asking the index for anything: a file:// wheel
 * read where it lies, metadata or a verified whole wheel in the cache, or
 * --offline's refusal.  False: it still needs the network. */
static bool answered_here(struct ts_index *idx, const char *root, enum ts_cache_mode mode,
                          struct meta_job *j) {
  struct ts_index_metadata *m = j->m;
  char *local = ts_url_file_path(j->url);
  if (local) {
    int fd = open(local, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
      m->code = ts_error_set(&m->err, TS_E_NOT_FOUND, "cannot open '%s': %s", local,
                             strerror(errno));
    else
      m->code = metadata_from_fd(fd, m->file->filename, local, m);
    if (fd >= 0)
      close(fd);
    if (!m->code)
      m->source = TS_METADATA_LOCAL;
    free(local);
    j->pending = false;
    return true;
  }
  struct ts_cache *cache = ts_index_cache(idx);
  if (root && cache) {
    ts_cache_file_key(m->file->sha256, j->url, j->cache_key);
    if (m->member)
      member_key(j->cache_key, m->member);
    struct ts_buf b;
    ts_buf_init(&b, TS_CAP_METADATA);
    if (ts_cache_get_metadata(cache, j->cache_key, &b, NULL) == TS_OK) {
      m->data = ts_buf_take(&b, &m->len);
      m->source = TS_METADATA_CACHE;
      j->pending = false;
      ts_buf_clear(&b);
      return true;
    }
    ts_buf_clear(&b);
    /* A verified whole wheel in the cache answers too. */
    char *wp = ts_cache_may_hold_wheels(cache)
                   ? ts_cache_wheel_path(root, j->proj, m->file->sha256, j->url,
                                         m->file->filename)
                   : NULL;
    int fd = wp ? open(wp, O_RDONLY | O_CLOEXEC) : -1;
    free(wp);
    if (fd >= 0) {
      m->code = metadata_from_fd(fd, m->file->filename, m->file->filename, m);
      close(fd);
      if (!m->code)
        m->source = TS_METADATA_WHEEL;
      j->pending = false;
      return true;
    }
  }
  if (mode == TS_CACHE_OFFLINE) {
    char u[200];
    ts_url_redact_buf(j->url, u, sizeof u);
    m->code = ts_error_set(&m->err, TS_E_OFFLINE,
                           "metadata of %s is not in the cache (--offline)", u);
    j->pending = false;
    return true;
  }
  return false;
}

enum ts_code ts_index_fetch_metadata(struct ts_index *idx, struct ts_index_metadata *reqs,
                                     size_t n, struct ts_error *err) {
  struct meta_job *jobs = ts_xcalloc(n ? n : 1, sizeof *jobs);
  const char *root = cache_root(idx);
  enum ts_cache_mode mode = ts_index_cache_mode(idx);
  char **mdurls = ts_xcalloc(n ? n : 1, sizeof *mdurls);
  for (size_t i = 0; i < n; i++) {
    struct meta_job *j = &jobs[i];
    struct ts_index_metadata *m = &reqs[i];
    j->m = m;
    m->code = TS_OK;
    m->data = NULL;
    m->len = 0;
    m->source = TS_METADATA_NONE;
    j->url = strip_fragment(m->file->url);
    j->proj = project_of(m->file->filename);
    j->pending = true;
    j->req.fd = -1;
    if (answered_here(idx, root, mode, j))
      continue;
    if (m->file->has_metadata && !m->member) {
      if (asprintf(&mdurls[i], "%s.metadata", j->url) < 0)
        abort();
      http_req(&j->req, mdurls[i], NULL, TS_CAP_METADATA);
    }
  }
  enum ts_code rc = perform_jobs(idx, jobs, n, want_pep658, err);
  for (size_t i = 0; !rc && i < n; i++) {
    struct meta_job *j = &jobs[i];
    if (!want_pep658(j))
      continue;
    struct ts_http_request *r = &j->req;
    struct ts_index_metadata *m = j->m;
    j->req.url = NULL;
    if (r->code == TS_E_NOT_FOUND || r->code == TS_E_HTTP) {
      pep658_unusable(idx, mdurls[i], r->err.detail);
      continue; /* advertised but not served: the wheel itself tells */
    }
    if (r->code) {
      j->pending = false;
      m->code = r->code;
      m->err = r->err;
      continue;
    }
    if (m->file->metadata_sha256) {
      uint8_t dg[TS_SHA256_LEN];
      ts_sha256(r->body.data, r->body.len, dg);
      if (!hex_equal(dg, m->file->metadata_sha256)) {
        pep658_unusable(idx, mdurls[i], "its sha256 differs from the page's "
                                        "data-core-metadata hash");
        ts_buf_clear(&r->body);
        continue; /* a stale or broken file: the wheel itself tells */
      }
    }
    j->pending = false;
    m->data = ts_buf_take(&r->body, &m->len);
    m->source = TS_METADATA_PEP658;
    /* Only hash-verified metadata is cached. */
    if (m->file->metadata_sha256)
      cache_metadata(idx, j);
  }
  if (!rc)
    rc = range_metadata(idx, jobs, n, err);
  for (size_t i = 0; !rc && i < n; i++) {
    struct meta_job *j = &jobs[i];
    if (!j->pending)
      continue;
    /* Last resort: the whole wheel, verified and kept for the install. */
    char *path = NULL;
    struct ts_index_metadata *m = j->m;
    m->code = ts_index_fetch_wheel(idx, m->file, &path, &m->err);
    if (!m->code) {
      int fd = open(path, O_RDONLY | O_CLOEXEC);
      if (fd < 0)
        m->code = ts_error_set(&m->err, TS_E_IO, "cannot open '%s'", path);
      else {
        m->code = metadata_from_fd(fd, m->file->filename, m->file->filename, m);
        close(fd);
      }
      if (!m->code)
        m->source = TS_METADATA_WHEEL;
    }
    free(path);
    j->pending = false;
  }
  for (size_t i = 0; i < n; i++) {
    struct meta_job *j = &jobs[i];
    free(j->url);
    free(j->proj);
    free(mdurls[i]);
    ts_buf_clear(&j->tail);
    ts_zip_close(j->zip);
    ts_http_request_clear(&j->req);
  }
  free(mdurls);
  free(jobs);
  return rc;
}
