/*
 * lock/export.c — requirements.txt with --hash lines from a lock.
 */
#include "lock/export.h"
#include "core/str.h"

#include <stdlib.h>
#include <string.h>

/* Collects the sha256 values of every wheel and the sdist, sorted, unique. */
static size_t collect_hashes(const struct ts_pylock_package *p,
                             const char **out) {
  size_t n = 0;
  for (size_t i = 0; i < p->nwheels; i++) {
    const char *h = ts_pylock_file_sha256(&p->wheels[i]);
    if (h)
      out[n++] = h;
  }
  const char *h = ts_pylock_file_sha256(p->sdist);
  if (h)
    out[n++] = h;
  h = ts_pylock_file_sha256(p->archive);
  if (h)
    out[n++] = h;
  if (n > 1)
    qsort(out, n, sizeof *out, ts_strv_cmp);
  size_t u = 0;
  for (size_t i = 0; i < n; i++)
    if (u == 0 || strcmp(out[u - 1], out[i]) != 0)
      out[u++] = out[i];
  return u;
}

/* A pip requirements line cannot hold a bare newline or a token that
 * starts an option in the requirement part. */
static bool safe_text(const char *s) {
  for (const char *p = s; *p; p++)
    if (*p == '\n' || *p == '\r' || *p == '\\' || (unsigned char)*p < 0x20)
      return false;
  for (const char *p = s; (p = strchr(p, ' ')); p++)
    if (p[1] == '-' || p[1] == '#')
      return false;
  return s[0] != '-';
}

/* The one file of a package that has no URL, only a path: a wheel (lock
 * of a local build), an sdist or an archive without wheels (a source);
 * NULL otherwise.  Several such wheels cannot be one line. */
static const struct ts_pylock_file *path_only_file(const struct ts_pylock_package *p) {
  const struct ts_pylock_file *f = p->nwheels == 1 && !p->sdist ? &p->wheels[0]
                                   : p->nwheels == 0 && p->sdist ? p->sdist
                                   : p->nwheels == 0             ? p->archive
                                                                 : NULL;
  return f && !f->url && f->path ? f : NULL;
}

/* A path of the lock as pip reads it: relative ones from the lock's
 * directory (opts->lock_dir), as the lock means them. */
static enum ts_code local_path(const char *path, const struct ts_export_opts *opts,
                               struct ts_buf *o) {
  const char *dir = opts && opts->lock_dir && path[0] != '/' ? opts->lock_dir : NULL;
  const char *rel = path;
  if (dir && rel[0] == '.' && rel[1] == '/')
    rel += 2;
  return dir ? ts_buf_printf(o, "%s%s%s", dir, dir[strlen(dir) - 1] == '/' ? "" : "/", rel)
             : ts_buf_append_str(o, path);
}

static enum ts_code requirement_text(const struct ts_pylock_package *p,
                                     const struct ts_export_opts *opts,
                                     struct ts_buf *o, struct ts_error *err) {
  enum ts_code rc;
  const struct ts_pylock_file *local = path_only_file(p);
  if (p->vcs) {
    const char *u = p->vcs->url ? p->vcs->url : p->vcs->path;
    rc = ts_buf_printf(o, "%s @ %s+%s@%s", p->name, p->vcs->type, u,
                       p->vcs->commit_id);
    if (rc == TS_OK && p->vcs->subdirectory)
      rc = ts_buf_printf(o, "#subdirectory=%s", p->vcs->subdirectory);
  } else if (p->directory) {
    rc = local_path(p->directory->path, opts, o);
  } else if (p->archive && p->archive->url) {
    rc = ts_buf_printf(o, "%s @ %s", p->name, p->archive->url);
  } else if (!p->nwheels && p->sdist && p->sdist->url && !p->index) {
    /* an sdist named by its URL, not found on an index */
    rc = ts_buf_printf(o, "%s @ %s", p->name, p->sdist->url);
  } else if (local) {
    rc = local_path(local->path, opts, o);
  } else if (p->version) {
    rc = ts_buf_printf(o, "%s==%s", p->name, p->version);
  } else {
    rc = ts_buf_append_str(o, p->name);
  }
  if (rc == TS_OK && p->marker)
    rc = ts_buf_printf(o, " ; %s", p->marker);
  if (rc != TS_OK)
    return ts_error_set(err, rc, "out of memory");
  if (!safe_text(o->data))
    return ts_error_set(err, TS_E_PARSE,
                        "package '%s' cannot be written as a requirements "
                        "line: '%s'",
                        p->name, o->data);
  return TS_OK;
}

struct index_use {
  const char *url;
  bool plain; /* the package's version has no local label (+cu130) */
};

static int cmp_use(const void *a, const void *b) {
  return strcmp(((const struct index_use *)a)->url, ((const struct index_use *)b)->url);
}

/* "--index-url PRIMARY" then "--extra-index-url URL" for every other
 * index a package comes from.  The primary is the index most packages
 * without a local version label come from (then most packages, then the
 * first URL in byte order): a build named by its label (torch
 * 2.9.1+cu130) lives on a PyTorch variant index, the plain releases on
 * the index everything else is found on, which pip should read first. */
static enum ts_code put_index_lines(const struct ts_pylock *lock, struct ts_buf *out) {
  struct index_use *use = ts_xreallocarray(NULL, lock->npackages + 1, sizeof *use);
  size_t n = 0;
  for (size_t i = 0; i < lock->npackages; i++)
    if (lock->packages[i].index)
      use[n++] = (struct index_use){lock->packages[i].index,
                                    !lock->packages[i].version ||
                                        !strchr(lock->packages[i].version, '+')};
  if (n > 1)
    qsort(use, n, sizeof *use, cmp_use);
  size_t primary = 0, best_plain = 0, best_all = 0;
  for (size_t i = 0; i < n;) {
    size_t end = i, plain = 0;
    for (; end < n && strcmp(use[end].url, use[i].url) == 0; end++)
      plain += use[end].plain;
    if (i == 0 || plain > best_plain || (plain == best_plain && end - i > best_all)) {
      primary = i;
      best_plain = plain;
      best_all = end - i;
    }
    i = end;
  }
  enum ts_code rc = n ? ts_buf_printf(out, "--index-url %s\n", use[primary].url) : TS_OK;
  for (size_t i = 0; rc == TS_OK && i < n; i++)
    if ((i == 0 || strcmp(use[i].url, use[i - 1].url) != 0) &&
        strcmp(use[i].url, use[primary].url) != 0)
      rc = ts_buf_printf(out, "--extra-index-url %s\n", use[i].url);
  free(use);
  return rc;
}

enum ts_code ts_export_requirements(const struct ts_pylock *lock,
                                    const struct ts_export_opts *opts,
                                    struct ts_buf *out, struct ts_error *err) {
  if (!lock)
    return ts_error_set(err, TS_E_INVALID, "no lock");
  /* The lock writer's order, without touching the caller's lock. */
  size_t *order = ts_pylock_sorted_order(lock);
  enum ts_code rc = TS_OK;
  if (opts && opts->source)
    rc = ts_buf_printf(out, "# generated by torchsolve from %s\n", opts->source);
  if (rc == TS_OK && opts && opts->emit_index_urls)
    rc = put_index_lines(lock, out);
  struct ts_buf line;
  ts_buf_init(&line, TS_CAP_TEXT);
  for (size_t i = 0; rc == TS_OK && i < lock->npackages; i++) {
    const struct ts_pylock_package *p = &lock->packages[order[i]];
    ts_buf_reset(&line);
    if ((rc = requirement_text(p, opts, &line, err)) != TS_OK)
      break;
    const char **hashes = ts_xreallocarray(NULL, p->nwheels + 3, sizeof *hashes);

    size_t nh = collect_hashes(p, hashes);
    bool needs_hash = p->nwheels || p->sdist || p->archive;
    if (needs_hash && nh == 0) {
      free(hashes);
      rc = ts_error_set(err, TS_E_UNSUPPORTED,
                        "package '%s' has no sha256 hash to pin it with",
                        p->name);
      break;
    }
    rc = ts_buf_append(out, line.data, line.len);
    for (size_t k = 0; rc == TS_OK && k < nh; k++)
      rc = ts_buf_printf(out, " \\\n    --hash=sha256:%s", hashes[k]);
    if (rc == TS_OK)
      rc = ts_buf_append_str(out, "\n");
    free(hashes);
    if (rc != TS_OK)
      rc = ts_error_set(err, rc, "out of memory");
  }
  ts_buf_clear(&line);
  free(order);
  return rc;
}
