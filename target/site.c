/* The installed set: see site.h. */
#include "target/site.h"

#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/alloc.h"
#include "core/buf.h"
#include "core/fs.h"
#include "core/str.h"
#include "pep/metadata.h"
#include "pep/name.h"

/* Fills name/version from "name-version.dist-info" where METADATA did not. */
static void from_directory_name(struct ts_site_dist *d, const char *entry) {
  size_t l = strlen(entry) - 10; /* without ".dist-info" */
  const char *dash = memchr(entry, '-', l);
  size_t nl = dash ? (size_t)(dash - entry) : l;
  if (!d->name)
    d->name = ts_xstrndup(entry, nl);
  if (!d->version && dash && l > nl + 1)
    d->version = ts_xstrndup(dash + 1, l - nl - 1);
}

static void read_dist(struct ts_site_dist *d, const char *entry) {
  char *mpath = ts_path_join(d->dist_info, "METADATA");
  struct ts_buf b;
  ts_buf_init(&b, TS_CAP_METADATA);
  struct ts_error e = {0};
  enum ts_code rc = ts_fs_read_file(mpath, &b, &e);
  free(mpath);
  if (rc != TS_OK) {
    d->problem = ts_xasprintf("METADATA: %s", e.detail);
  } else {
    d->metadata_len = b.len;
    d->metadata = ts_buf_take(&b, NULL);
    d->name = ts_metadata_header_value(d->metadata, d->metadata_len, "Name");
    d->version = ts_metadata_header_value(d->metadata, d->metadata_len, "Version");
    if (d->name && !d->name[0]) {
      free(d->name);
      d->name = NULL;
    }
    if (d->version && !d->version[0]) {
      free(d->version);
      d->version = NULL;
    }
    d->metadata_ok = d->name && d->version;
    if (!d->metadata_ok)
      d->problem = ts_xasprintf("METADATA has no %s", d->name ? "Version" : "Name");
  }
  ts_buf_clear(&b);
  from_directory_name(d, entry);
  d->normalized = ts_name_normalize(d->name, strlen(d->name));
  if (!d->normalized)
    d->normalized = ts_xstrdup(d->name);
  char *req = ts_path_join(d->dist_info, "REQUESTED");
  d->requested = access(req, F_OK) == 0;
  free(req);
}

static enum ts_code read_dir(struct ts_site *s, const char *dir, size_t order,
                             struct ts_error *err) {
  DIR *dh = opendir(dir);
  if (!dh) {
    if (errno == ENOENT)
      return TS_OK;
    return ts_error_set(err, TS_E_IO, "cannot read '%s': %s", dir, strerror(errno));
  }
  /* readdir order is the filesystem's: sorted below */
  struct dirent *de;
  enum ts_code rc = TS_OK;
  while (rc == TS_OK && (de = readdir(dh))) {
    size_t l = strlen(de->d_name);
    if (l <= 10 || strcmp(de->d_name + l - 10, ".dist-info") != 0)
      continue;
    if (s->n >= TS_SITE_MAX_DISTS) {
      rc = ts_error_set(err, TS_E_TOO_BIG, "'%s' holds more than %d distributions", dir,
                        TS_SITE_MAX_DISTS);
      break;
    }
    s->dists = ts_xreallocarray(s->dists, s->n + 1, sizeof *s->dists);
    struct ts_site_dist *d = &s->dists[s->n++];
    memset(d, 0, sizeof *d);
    d->site = dir;
    d->site_order = order;
    d->dist_info = ts_path_join(dir, de->d_name);
    read_dist(d, de->d_name);
  }
  closedir(dh);
  return rc;
}

static int by_name(const void *a, const void *b) {
  const struct ts_site_dist *x = a, *y = b;
  int c = strcmp(x->normalized, y->normalized);
  if (c)
    return c;
  if (x->site_order != y->site_order)
    return x->site_order < y->site_order ? -1 : 1;
  return strcmp(x->dist_info, y->dist_info);
}

enum ts_code ts_site_read(const char *const *dirs, size_t ndirs, struct ts_site *out,
                          struct ts_error *err) {
  memset(out, 0, sizeof *out);
  enum ts_code rc = TS_OK;
  for (size_t i = 0; i < ndirs && rc == TS_OK; i++) {
    bool seen = !dirs[i];
    for (size_t k = 0; k < i && !seen; k++)
      seen = dirs[k] && strcmp(dirs[k], dirs[i]) == 0;
    if (seen)
      continue;
    out->dirs = ts_xreallocarray(out->dirs, out->ndirs + 1, sizeof *out->dirs);
    out->dirs[out->ndirs] = ts_xstrdup(dirs[i]);
    rc = read_dir(out, out->dirs[out->ndirs++], i, err);
  }
  /* one order whatever the directory listing's: by project, then the
   * directories' order (sys.path's: the first copy wins), then path */
  if (out->n > 1)
    qsort(out->dists, out->n, sizeof *out->dists, by_name);
  return rc;
}

const struct ts_site_dist *ts_site_find(const struct ts_site *s, const char *name) {
  char *norm = ts_name_normalize(name, strlen(name));
  const struct ts_site_dist *found = NULL;
  for (size_t i = 0; norm && i < s->n && !found; i++)
    if (strcmp(s->dists[i].normalized, norm) == 0)
      found = &s->dists[i];
  free(norm);
  return found;
}

void ts_site_clear(struct ts_site *s) {
  for (size_t i = 0; i < s->n; i++) {
    struct ts_site_dist *d = &s->dists[i];
    free(d->dist_info);
    free(d->name);
    free(d->normalized);
    free(d->version);
    free(d->metadata);
    free(d->problem);
  }
  free(s->dists);
  ts_strv_free(s->dirs, s->ndirs);
  memset(s, 0, sizeof *s);
}

char *ts_site_torch_version_value(const char *text, size_t len, const char *key) {
  size_t klen = strlen(key);
  for (const char *line = text, *end = text + len; line < end;) {
    const char *nl = memchr(line, '\n', (size_t)(end - line));
    const char *le = nl ? nl : end;
    if ((size_t)(le - line) > klen && memcmp(line, key, klen) == 0 &&
        (line[klen] == ' ' || line[klen] == ':' || line[klen] == '=')) {
      const char *eq = memchr(line + klen, '=', (size_t)(le - line - klen));
      const char *q = eq ? eq + 1 : le;
      while (q < le && *q == ' ')
        q++;
      if (q < le && (*q == '\'' || *q == '"')) {
        const char *close = memchr(q + 1, *q, (size_t)(le - q - 1));
        if (close && close > q + 1 && close - q < 64)
          return ts_xstrndup(q + 1, (size_t)(close - q - 1));
      }
    }
    line = le + 1;
  }
  return NULL;
}

char *ts_site_torch_built_with(const char *site, const char *key) {
  char *path = ts_path_join(site, "torch/version.py");
  struct ts_buf b;
  ts_buf_init(&b, TS_CAP_SMALL_FILE);
  char *out = ts_fs_read_file(path, &b, NULL) == TS_OK && b.data
                  ? ts_site_torch_version_value(b.data, b.len, key) : NULL;
  ts_buf_clear(&b);
  free(path);
  return out;
}
