/* The on-disk cache; see cache.h. */
#include "index/cache.h"

#include <cjson/cJSON.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/cacheroot.h"
#include "core/fs.h"
#include "core/sha256.h"
#include "core/str.h"
#include "index/url.h"
#include "pep/name.h"

#define CACHE_MAGIC_V1 "TSCACHE1 "
#define CACHE_MAGIC_V2 "TSCACHE2 "
#define CACHE_META_MAX (64u * 1024)

void ts_cache_entry_clear(struct ts_cache_entry *e) {
  free(e->url);
  free(e->final_url);
  free(e->content_type);
  free(e->etag);
  free(e->last_modified);
  ts_buf_clear(&e->body);
  ts_buf_clear(&e->parsed);
  memset(e, 0, sizeof *e);
}

static void url_key(const char *a, const char *b, char hex[TS_SHA256_HEX_LEN + 1]) {
  struct ts_sha256 *h = ts_sha256_new();
  if (!h)
    abort();
  ts_sha256_update(h, a, strlen(a));
  if (b) {
    ts_sha256_update(h, "\n", 1);
    ts_sha256_update(h, b, strlen(b));
  }
  uint8_t d[TS_SHA256_LEN];
  ts_sha256_final(h, d);
  ts_sha256_free(h);
  ts_sha256_hex(d, hex);
}

/* Project directory names come from normalised names; anything else is
 * made safe so that a hostile name cannot leave the cache. */
static char *safe_project(const char *project) {
  char *n = ts_name_normalize(project, strlen(project));
  for (char *p = n; *p; p++)
    if (!((*p >= 'a' && *p <= 'z') || (*p >= '0' && *p <= '9') || *p == '-'))
      *p = '_';
  if (!n[0]) {
    free(n);
    n = ts_xstrdup("_");
  }
  return n;
}

char *ts_cache_page_path(const char *root, const char *project, const char *url,
                         const char *accept) {
  char hex[TS_SHA256_HEX_LEN + 1];
  url_key(url, accept, hex);
  char *p = safe_project(project);
  char *r = ts_xasprintf("%s/pages-v1/%s/%s", root, p, hex);
  free(p);
  return r;
}

char *ts_cache_metadata_path(const char *root, const char *project, const char *key,
                             const char *url) {
  char hex[TS_SHA256_HEX_LEN + 1];
  if (!key)
    url_key(url, NULL, hex);
  char *p = safe_project(project);
  char *r = ts_xasprintf("%s/metadata-v1/%s/%s.metadata", root, p, key ? key : hex);
  free(p);
  return r;
}

char *ts_cache_wheel_path(const char *root, const char *project, const char *key,
                          const char *url, const char *filename) {
  char hex[TS_SHA256_HEX_LEN + 1];
  if (!key)
    url_key(url, NULL, hex);
  char *p = safe_project(project);
  /* The file name is kept for humans and tools; never let it hold '/'. */
  char *f = ts_xstrdup(filename);
  for (char *q = f; *q; q++)
    if (*q == '/')
      *q = '_';
  char *r = ts_xasprintf("%s/wheels-v1/%s/%s/%s", root, p, key ? key : hex,
                     f[0] == '.' ? "wheel.whl" : f);
  free(p);
  free(f);
  return r;
}

static char *jstr(const cJSON *o, const char *k) {
  const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, k);
  return cJSON_IsString(v) ? strdup(v->valuestring) : NULL;
}

/* Reads the decimal number at *p (up to `end`), moving *p past it; false
 * when there is none or it is over `max`. */
static bool header_number(const char **p, const char *end, size_t max, size_t *out) {
  size_t v = 0;
  const char *s = *p;
  while (s < end && *s >= '0' && *s <= '9') {
    v = v * 10 + (size_t)(*s - '0');
    if (v > max)
      return false;
    s++;
  }
  if (s == *p)
    return false;
  *p = s;
  *out = v;
  return true;
}

/* Parses the first line: "TSCACHE1 <metalen>" or "TSCACHE2 <metalen>
 * <parsedlen>".  *hdr gets the length of the line with its newline. */
static bool read_header(const struct ts_buf *raw, size_t cap, size_t *hdr, size_t *metalen,
                        size_t *parsedlen) {
  size_t ml = strlen(CACHE_MAGIC_V2);
  const char *nl = raw->len > ml ? memchr(raw->data, '\n', raw->len < 64 ? raw->len : 64)
                                 : NULL;
  if (!nl)
    return false;
  bool v2 = memcmp(raw->data, CACHE_MAGIC_V2, ml) == 0;
  if (!v2 && memcmp(raw->data, CACHE_MAGIC_V1, ml) != 0)
    return false;
  const char *p = raw->data + ml;
  *parsedlen = 0;
  if (!header_number(&p, nl, CACHE_META_MAX, metalen))
    return false;
  if (v2 && (p == nl || *p++ != ' ' || !header_number(&p, nl, cap, parsedlen)))
    return false;
  *hdr = (size_t)(nl - raw->data) + 1;
  return p == nl && *metalen + *parsedlen <= raw->len - *hdr;
}

enum ts_code ts_cache_read(const char *path, size_t cap, struct ts_cache_entry *e,
                           struct ts_error *err) {
  memset(e, 0, sizeof *e);
  struct ts_buf raw;
  ts_buf_init(&raw, 2 * cap + CACHE_META_MAX);
  enum ts_code c = ts_fs_read_file(path, &raw, err);
  if (c) {
    ts_buf_clear(&raw);
    return c;
  }
  size_t hdr = 0, metalen = 0, parsedlen = 0;
  bool ok = read_header(&raw, cap, &hdr, &metalen, &parsedlen);
  cJSON *meta = ok ? cJSON_ParseWithLength(raw.data + hdr, metalen) : NULL;
  size_t body_off = hdr + metalen + parsedlen;
  if (!meta || raw.len - body_off > cap) {
    cJSON_Delete(meta);
    ts_buf_clear(&raw);
    return ts_error_set(err, TS_E_PARSE, "corrupt cache entry '%s'", path);
  }
  e->url = jstr(meta, "url");
  e->final_url = jstr(meta, "final_url");
  e->content_type = jstr(meta, "content_type");
  e->etag = jstr(meta, "etag");
  e->last_modified = jstr(meta, "last_modified");
  const cJSON *v = cJSON_GetObjectItemCaseSensitive(meta, "stored_at");
  e->stored_at = cJSON_IsNumber(v) ? (int64_t)v->valuedouble : 0;
  v = cJSON_GetObjectItemCaseSensitive(meta, "max_age");
  e->max_age = cJSON_IsNumber(v) ? (long)v->valuedouble : -1;
  v = cJSON_GetObjectItemCaseSensitive(meta, "status");
  e->status = cJSON_IsNumber(v) ? (long)v->valuedouble : 200;
  cJSON_Delete(meta);
  ts_buf_init(&e->parsed, cap);
  c = ts_buf_append(&e->parsed, raw.data + hdr + metalen, parsedlen);
  /* the body is moved to the front of the buffer read, not copied again */
  size_t body_len = raw.len - body_off;
  memmove(raw.data, raw.data + body_off, body_len);
  raw.len = body_len;
  raw.data[body_len] = '\0';
  raw.max = cap;
  e->body = raw;
  if (c || !e->url || !e->final_url) {
    ts_cache_entry_clear(e);
    return ts_error_set(err, TS_E_PARSE, "corrupt cache entry '%s'", path);
  }
  return TS_OK;
}

enum ts_code ts_cache_write(const char *path, const struct ts_cache_entry *e,
                            struct ts_error *err) {
  cJSON *m = cJSON_CreateObject();
  if (!m)
    return ts_error_set(err, TS_E_NOMEM, "out of memory");
  cJSON_AddStringToObject(m, "url", e->url);
  cJSON_AddStringToObject(m, "final_url", e->final_url ? e->final_url : e->url);
  if (e->content_type)
    cJSON_AddStringToObject(m, "content_type", e->content_type);
  if (e->etag)
    cJSON_AddStringToObject(m, "etag", e->etag);
  if (e->last_modified)
    cJSON_AddStringToObject(m, "last_modified", e->last_modified);
  cJSON_AddNumberToObject(m, "stored_at", (double)e->stored_at);
  cJSON_AddNumberToObject(m, "max_age", (double)e->max_age);
  if (e->status && e->status != 200)
    cJSON_AddNumberToObject(m, "status", (double)e->status);
  char *js = cJSON_PrintUnformatted(m);
  cJSON_Delete(m);
  if (!js)
    return ts_error_set(err, TS_E_NOMEM, "out of memory");
  struct ts_buf out;
  ts_buf_init(&out, 0);
  enum ts_code c = ts_buf_printf(&out, "%s%zu %zu\n%s", CACHE_MAGIC_V2, strlen(js),
                                 e->parsed.len, js);
  free(js);
  if (!c && e->parsed.len)
    c = ts_buf_append(&out, e->parsed.data, e->parsed.len);
  if (!c && e->body.len)
    c = ts_buf_append(&out, e->body.data, e->body.len);
  char *dir = ts_xstrdup(path);
  char *slash = strrchr(dir, '/');
  if (slash)
    *slash = '\0';
  if (!c)
    c = ts_fs_mkdirs(dir, err);
  /* An index URL with user:password@ is kept as given (links resolve
   * against it, credentials included): only the user may read such an
   * entry. */
  bool secret = ts_url_has_userinfo(e->url) ||
                (e->final_url && ts_url_has_userinfo(e->final_url));
  if (!c)
    c = ts_fs_write_atomic_mode(path, out.data, out.len, secret ? 0600 : 0644, err);
  else if (c == TS_E_NOMEM)
    ts_error_set(err, c, "out of memory");
  free(dir);
  ts_buf_clear(&out);
  return c;
}

bool ts_cache_fresh(const struct ts_cache_entry *e, int64_t now) {
  return e->max_age > 0 && now >= e->stored_at && now - e->stored_at < e->max_age;
}

enum ts_code ts_cache_lock(const char *path, int *fd, struct ts_error *err) {
  char *lp = ts_xasprintf("%s.lock", path);
  char *dir = ts_xstrdup(lp);
  char *slash = strrchr(dir, '/');
  if (slash)
    *slash = '\0';
  enum ts_code c = ts_fs_mkdirs(dir, err);
  free(dir);
  if (c) {
    free(lp);
    return c;
  }
  int f = open(lp, O_RDWR | O_CREAT | O_CLOEXEC, 0644);
  if (f < 0) {
    c = ts_error_set(err, TS_E_IO, "cannot open lock '%s': %s", lp, strerror(errno));
    free(lp);
    return c;
  }
  while (flock(f, LOCK_EX) != 0) {
    if (errno != EINTR) {
      c = ts_error_set(err, TS_E_IO, "cannot lock '%s': %s", lp, strerror(errno));
      close(f);
      free(lp);
      return c;
    }
  }
  free(lp);
  *fd = f;
  return TS_OK;
}

void ts_cache_unlock(int fd) {
  if (fd >= 0) {
    flock(fd, LOCK_UN);
    close(fd);
  }
}

static enum ts_code walk(const char *dir, uint64_t *bytes, uint64_t *files, int depth) {
  if (depth > 16)
    return TS_OK;
  DIR *d = opendir(dir);
  if (!d)
    return errno == ENOENT ? TS_OK : TS_E_IO;
  struct dirent *e;
  enum ts_code c = TS_OK;
  while (!c && (e = readdir(d))) {
    if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0)
      continue;
    char *p = ts_path_join(dir, e->d_name);
    struct stat st;
    if (lstat(p, &st) == 0) {
      if (S_ISDIR(st.st_mode)) {
        c = walk(p, bytes, files, depth + 1);
      } else {
        *bytes += (uint64_t)st.st_blocks * 512u;
        (*files)++;
      }
    }
    free(p);
  }
  closedir(d);
  return c;
}

enum ts_code ts_cache_size(const char *root, uint64_t *bytes, uint64_t *files,
                           struct ts_error *err) {
  *bytes = *files = 0;
  if (walk(root, bytes, files, 0))
    return ts_error_set(err, TS_E_IO, "cannot read cache directory '%s'", root);
  return TS_OK;
}

/* Removes path when it exists; counts it in *removed. */
static enum ts_code remove_counted(const char *path, size_t *removed,
                                   struct ts_error *err) {
  struct stat st;
  if (lstat(path, &st) != 0)
    return TS_OK;
  enum ts_code rc = ts_fs_remove_tree(path, err);
  if (rc == TS_OK)
    (*removed)++;
  return rc;
}

/* Whether an unpacked wheel tree holds a dist-info of `project`
 * (normalised). */
static bool unpacked_is(const char *tree, const char *project) {
  DIR *d = opendir(tree);
  if (!d)
    return false;
  bool found = false;
  struct dirent *de;
  while (!found && (de = readdir(d))) {
    size_t l = strlen(de->d_name);
    if (l <= 10 || strcmp(de->d_name + l - 10, ".dist-info") != 0)
      continue;
    const char *dash = memchr(de->d_name, '-', l - 10);
    size_t nl = dash ? (size_t)(dash - de->d_name) : l - 10;
    char *n = ts_name_normalize(de->d_name, nl);
    found = strcmp(n, project) == 0;
    free(n);
  }
  closedir(d);
  return found;
}

/* The trees under wheels-v1/<sha256>/ that unpack `project`'s wheels. */
static enum ts_code clean_unpacked(const char *root, const char *project,
                                   size_t *removed, struct ts_error *err) {
  char *wheels = ts_path_join(root, "wheels-v1");
  DIR *d = opendir(wheels);
  enum ts_code rc = TS_OK;
  struct dirent *de;
  while (d && rc == TS_OK && (de = readdir(d))) {
    if (strlen(de->d_name) != TS_SHA256_HEX_LEN ||
        strspn(de->d_name, "0123456789abcdef") != TS_SHA256_HEX_LEN)
      continue;
    char *tree = ts_path_join(wheels, de->d_name);
    if (unpacked_is(tree, project))
      rc = remove_counted(tree, removed, err);
    free(tree);
  }
  if (d)
    closedir(d);
  free(wheels);
  return rc;
}

enum ts_code ts_cache_clean(const char *root, const char *project, size_t *removed,
                            struct ts_error *err) {
  size_t count = 0;
  enum ts_code rc = ts_cache_root_check(root, err);
  if (rc == TS_OK && !project) {
    for (size_t i = 0; rc == TS_OK && ts_cache_root_entries[i]; i++) {
      char *d = ts_path_join(root, ts_cache_root_entries[i]);
      rc = remove_counted(d, &count, err);
      free(d);
    }
  } else if (rc == TS_OK) {
    static const char *const kinds[] = {"pages-v1", "metadata-v1", "wheels-v1"};
    char *p = safe_project(project);
    for (size_t i = 0; rc == TS_OK && i < sizeof kinds / sizeof kinds[0]; i++) {
      char *d = ts_xasprintf("%s/%s/%s", root, kinds[i], p);
      rc = remove_counted(d, &count, err);
      free(d);
    }
    free(p);
    char *norm = ts_name_normalize(project, strlen(project));
    if (rc == TS_OK)
      rc = clean_unpacked(root, norm, &count, err);
    free(norm);
  }
  if (removed)
    *removed = count;
  return rc;
}
