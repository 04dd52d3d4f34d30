/* The download-and-verify path install and sync share: see fetch.h. */
#include "plan/plan_internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/buf.h"
#include "core/clock.h"
#include "core/filehash.h"
#include "core/fs.h"
#include "core/str.h"
#include "index/cache.h"
#include "index/url.h"

/* Hashes a file where it is; TS_E_HASH when an expected digest differs. */
static enum ts_code verify_file(struct ts_plan_fetch *f, const char *path,
                                const char *memo_dir, struct ts_error *err) {
  uint8_t d[TS_SHA256_LEN];
  struct ts_error e = {0};
  if (ts_filehash_path(path, memo_dir, d, NULL, &e) != TS_OK)
    return ts_error_set(err, TS_E_NOT_FOUND, "%s: cannot read '%s': %s", f->filename,
                        path, e.detail);
  ts_sha256_hex(d, f->sha256_out);
  if (f->sha256 && strcasecmp(f->sha256_out, f->sha256) != 0)
    return ts_error_set(err, TS_E_HASH, "%s: sha256 is %s but %s says %s", path,
                        f->sha256_out, f->sha256_from ? f->sha256_from : "the index",
                        f->sha256);
  return TS_OK;
}

struct prog {
  const struct ts_plan_callbacks *cb;
  size_t i;
};

static void on_progress(void *ctx, uint64_t done, uint64_t total) {
  struct prog *g = ctx;
  if (g->cb && g->cb->download_progress)
    g->cb->download_progress(g->cb->ctx, g->i, done, total);
}

/* Downloads the queued files in one parallel batch, with progress. */
static enum ts_code download(struct ts_index *idx, struct ts_plan_fetch **q, size_t nq,
                             const struct ts_plan_callbacks *cb,
                             struct ts_plan_fetch_totals *totals, struct ts_error *err) {
  struct ts_index_download *d = ts_xcalloc(nq, sizeof *d);
  struct prog *pg = ts_xcalloc(nq, sizeof *pg);
  const char **names = ts_xcalloc(nq, sizeof *names);
  uint64_t *sizes = ts_xcalloc(nq, sizeof *sizes);
  enum ts_code rc = TS_OK;
  for (size_t j = 0; j < nq && rc == TS_OK; j++) {
    char *parent = ts_xstrdup(q[j]->local);
    char *slash = strrchr(parent, '/');
    if (slash && slash != parent) {
      *slash = '\0';
      rc = ts_fs_mkdirs(parent, err);
    }
    free(parent);
    pg[j] = (struct prog){cb, j};
    d[j] = (struct ts_index_download){.url = q[j]->url, .sha256 = q[j]->sha256,
                                      .sha256_from = q[j]->sha256_from,
                                      .dest = q[j]->local, .progress = on_progress,
                                      .progress_ctx = &pg[j]};
    names[j] = q[j]->filename;
    sizes[j] = q[j]->size > 0 ? (uint64_t)q[j]->size : 0;
  }
  if (rc == TS_OK) {
    double t0 = ts_now_ms();
    if (cb && cb->download_begin)
      cb->download_begin(cb->ctx, names, sizes, nq);
    rc = ts_index_download(idx, d, nq, err);
    if (cb && cb->download_end)
      cb->download_end(cb->ctx);
    for (size_t j = 0; j < nq && rc == TS_OK; j++) {
      if (d[j].code != TS_OK) {
        *err = d[j].err;
        rc = d[j].code;
        break;
      }
      snprintf(q[j]->sha256_out, sizeof q[j]->sha256_out, "%s", d[j].sha256_out);
      totals->bytes += d[j].bytes;
    }
    totals->files = nq;
    totals->ms = ts_now_ms() - t0;
  }
  free(sizes);
  free(names);
  free(pg);
  free(d);
  return rc;
}

enum ts_code ts_plan_fetch_files(struct ts_index *idx, struct ts_plan_fetch *f, size_t n,
                                 const struct ts_plan_fetch_options *o,
                                 struct ts_plan_fetch_totals *totals,
                                 struct ts_error *err) {
  *totals = (struct ts_plan_fetch_totals){0};
  enum ts_cache_mode mode = ts_index_cache_mode(idx);
  const char *croot = mode == TS_CACHE_DISABLED ? NULL : ts_index_cache_dir(idx);
  char *memo = croot && !o->reread_cached ? ts_filehash_memo_dir(croot) : NULL;
  struct ts_plan_fetch **queue = ts_xcalloc(n, sizeof *queue);
  size_t nq = 0, nmissing = 0;
  struct ts_buf missing;
  ts_buf_init(&missing, TS_CAP_TEXT);
  enum ts_code rc = TS_OK;
  for (size_t i = 0; i < n && rc == TS_OK; i++) {
    struct ts_plan_fetch *x = &f[i];
    x->sha256_out[0] = '\0';
    char *local = x->path ? ts_xstrdup(x->path) : ts_url_file_path(x->url);
    if (local) { /* used where it is */
      x->local = local;
      if (!x->sha256 && x->may_hash_later)
        x->hash_later = true; /* the unpacker hashes it (or knows it) */
      else
        rc = verify_file(x, local, memo, err);
      continue;
    }
    if (croot && x->cache_key) {
      char *url = ts_xstrdup(x->url);
      url[strcspn(url, "#")] = '\0';
      x->local = ts_cache_wheel_path(croot, x->project, x->cache_key, url, x->filename);
      free(url);
      struct stat st;
      if (stat(x->local, &st) == 0 && S_ISREG(st.st_mode)) {
        if (!o->reread_cached && x->sha256) { /* verified when it was stored */
          snprintf(x->sha256_out, sizeof x->sha256_out, "%s", x->sha256);
          continue;
        }
        struct ts_error ignore = {0};
        if (verify_file(x, x->local, NULL, &ignore) == TS_OK)
          continue;
        unlink(x->local); /* a corrupt cache entry: fetch it again */
      }
    } else {
      x->local = ts_path_join(o->run_dir, x->filename);
    }
    if (mode == TS_CACHE_OFFLINE) {
      ts_buf_xprintf(&missing, "%s%s", nmissing ? ", " : "", x->filename);
      nmissing++;
      continue;
    }
    queue[nq++] = x;
  }
  if (rc == TS_OK && nmissing)
    rc = ts_error_set(err, TS_E_OFFLINE, "--offline: %zu wheel%s not in the cache: %s",
                      nmissing, nmissing == 1 ? "" : "s", missing.data);
  if (rc == TS_OK && nq)
    rc = download(idx, queue, nq, o->cb, totals, err);
  ts_buf_clear(&missing);
  free(queue);
  free(memo);
  return rc;
}

enum ts_code ts_plan_fetch_run_dir(struct ts_index *idx, const char *download_dir,
                                   char **dir, struct ts_error *err) {
  *dir = NULL;
  char *base = download_dir ? ts_xstrdup(download_dir) : NULL;
  if (!base) { /* --no-cache: nothing under the cache, the temp dir */
    const char *c = ts_index_cache_mode(idx) == TS_CACHE_DISABLED ? NULL
                                                                 : ts_index_cache_dir(idx);
    base = c ? ts_path_join(c, "downloads-v1") : ts_xstrdup(ts_fs_temp_dir());
  }
  enum ts_code rc = ts_fs_mkdirs(base, err);
  char *tmpl = ts_path_join(base, "torchsolve-run-XXXXXX");
  free(base);
  if (rc == TS_OK && !mkdtemp(tmpl))
    rc = ts_error_set(err, TS_E_IO, "cannot create a download directory under '%s'",
                      tmpl);
  if (rc != TS_OK) {
    free(tmpl);
    return rc;
  }
  *dir = tmpl;
  return TS_OK;
}

enum ts_code ts_plan_run_transaction(const struct ts_plan_txn *t, size_t *count,
                                     struct ts_error *err) {
  const struct ts_target_paths *tp = &t->target->paths;
  if (!t->paths &&
      (!tp->purelib || !tp->platlib || !tp->scripts || !tp->data || !tp->prefix))
    return ts_error_set(err, TS_E_PYTHON, "'%s' reported no install paths",
                        t->target->python ? t->target->python : "python");
  char *headers = t->paths ? NULL
                           : ts_xasprintf("%s/include/site/python%d.%d", tp->data,
                                          t->target->python_major,
                                          t->target->python_minor);
  struct ts_wheel_paths wp = {.prefix = tp->prefix, .purelib = tp->purelib,
                              .platlib = tp->platlib, .scripts = tp->scripts,
                              .data = tp->data, .headers = headers,
                              .python = t->target->python,
                              .python_major = t->target->python_major,
                              .python_minor = t->target->python_minor};
  /* unpacked wheels live in the index's cache (--cache-dir, --no-cache) */
  const char *croot = ts_index_cache_mode(t->idx) == TS_CACHE_DISABLED
                          ? NULL : ts_index_cache_dir(t->idx);
  struct ts_wheel_options wo = {.paths = t->paths ? t->paths : &wp,
                                .link_mode = t->link_mode,
                                .compile = t->compile, .cb = t->cb,
                                .cancel = t->cancel, .cache_dir = croot,
                                .no_cache = croot == NULL,
                                .remove = t->remove,
                                .nremove = t->nremove, .env_locked = t->env_locked,
                                .allow_overwrite = t->allow_overwrite,
                                .verify_cache = t->verify_cache};
  struct ts_wheel_result res = {0};
  enum ts_code rc = ts_wheel_install(&wo, t->rq, t->n, &res, err);
  if (rc == TS_OK && count)
    *count = res.count;
  ts_wheel_result_clear(&res);
  free(headers);
  return rc;
}

void ts_plan_fetch_clear(struct ts_plan_fetch *f, size_t n) {
  for (size_t i = 0; i < n; i++) {
    free(f[i].local);
    f[i].local = NULL;
  }
}
