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
#include <sys/uio.h>
#include <unistd.h>

#include "core/alloc.h"
#include "core/cacheroot.h"
#include "core/fs.h"
#include "core/sha256.h"
#include "core/str.h"
#include "index/cache_pack.h"
#include "index/url.h"
#include "pep/name.h"

#define CACHE_MAGIC_V1 "TSCACHE1 "
#define CACHE_MAGIC_V2 "TSCACHE2 "
#define CACHE_META_MAX (64u * 1024)
/* The header line is "TSCACHE2 <metalen> <parsedlen>\n": two numbers. */
#define CACHE_HEADER_MAX 64
/* ts_cache_size counts files this many directories deep at most (the
 * cache's own tree is a few levels; a deeper one is not ours). */
#define CACHE_WALK_MAX_DEPTH 16

void ts_cache_entry_clear(struct ts_cache_entry *e) {
  free(e->url);
  free(e->final_url);
  free(e->content_type);
  free(e->etag);
  free(e->last_modified);
  ts_buf_clear(&e->body);
  ts_buf_clear(&e->parsed);
  free(e->project);
  memset(e, 0, sizeof *e);
}

static void url_key(const char *a, const char *b, char hex[TS_SHA256_HEX_LEN + 1]) {
  struct ts_sha256 *h = ts_sha256_new();

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

/* ---- the run's handle ------------------------------------------------ */

#define PAGES_DIR "pages-v2"
#define METADATA_DIR "metadata-v2"
#define METADATA_SUFFIX ".metadata"

enum kind { KIND_PAGES, KIND_METADATA, KIND_COUNT };
static const char *const kind_dirs[KIND_COUNT] = {PAGES_DIR, METADATA_DIR};
static const char *const kind_suffix[KIND_COUNT] = {"", METADATA_SUFFIX};

struct ts_cache {
  char *root;
  /* the kind's flat folder (an earlier version's layout, read only) did
   * not exist at open: nothing is looked for there */
  bool absent[KIND_COUNT];
  bool wheels_absent;      /* neither did wheels-v1/, nor a download since */
  struct ts_packs *packs;  /* where entries are read first and written */
};

static bool dir_missing(const char *root, const char *name) {
  char *p = ts_path_join(root, name);
  struct stat st;
  bool missing = stat(p, &st) != 0 && errno == ENOENT;
  free(p);
  return missing;
}

struct ts_cache *ts_cache_open(const char *root) {
  struct ts_cache *c = ts_xcalloc(1, sizeof *c);
  c->root = ts_xstrdup(root);
  c->packs = ts_packs_open(root);
  for (int k = 0; k < KIND_COUNT; k++)
    c->absent[k] = dir_missing(root, kind_dirs[k]);
  c->wheels_absent = dir_missing(root, "wheels-v1");
  return c;
}

void ts_cache_close(struct ts_cache *c) {
  if (!c)
    return;
  ts_packs_close(c->packs);
  free(c->root);
  free(c);
}

const char *ts_cache_root(const struct ts_cache *c) { return c->root; }

bool ts_cache_may_hold_wheels(const struct ts_cache *c) { return !c->wheels_absent; }
void ts_cache_note_download(struct ts_cache *c) { c->wheels_absent = false; }

void ts_cache_page_key(const char *url, const char *accept,
                       char key[TS_SHA256_HEX_LEN + 1]) {
  url_key(url, accept, key);
}

static bool is_hex_key(const char *k) {
  return k && strlen(k) == TS_SHA256_HEX_LEN &&
         strspn(k, "0123456789abcdefABCDEF") == TS_SHA256_HEX_LEN;
}

void ts_cache_file_key(const char *sha256, const char *url,
                       char key[TS_SHA256_HEX_LEN + 1]) {
  if (!is_hex_key(sha256)) {
    url_key(url, NULL, key);
    return;
  }
  for (int i = 0; i < TS_SHA256_HEX_LEN; i++)
    key[i] = (char)(sha256[i] | 0x20);
  key[TS_SHA256_HEX_LEN] = '\0';
}

static char *entry_path(const struct ts_cache *c, enum kind k, const char *key) {
  return ts_xasprintf("%s/%s/%c/%s%s", c->root, kind_dirs[k], key[0], key, kind_suffix[k]);
}

char *ts_cache_page_path(const struct ts_cache *c, const char *key) {
  return entry_path(c, KIND_PAGES, key);
}

char *ts_cache_metadata_path(const struct ts_cache *c, const char *key) {
  return entry_path(c, KIND_METADATA, key);
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
  return cJSON_IsString(v) ? ts_xstrdup(v->valuestring) : NULL;

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
  const char *nl = raw->len > ml ? memchr(raw->data, '\n', raw->len < CACHE_HEADER_MAX ? raw->len : CACHE_HEADER_MAX)
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

/* Reads the entry held in raw (which it takes over) into e; `where`
 * names it in errors. */
static enum ts_code parse_entry(struct ts_buf raw, size_t cap, const char *where,
                                struct ts_cache_entry *e, struct ts_error *err) {
  enum ts_code c;
  size_t hdr = 0, metalen = 0, parsedlen = 0;
  bool ok = read_header(&raw, cap, &hdr, &metalen, &parsedlen);
  cJSON *meta = ok ? cJSON_ParseWithLength(raw.data + hdr, metalen) : NULL;
  size_t body_off = hdr + metalen + parsedlen;
  if (!meta || raw.len - body_off > cap) {
    cJSON_Delete(meta);
    ts_buf_clear(&raw);
    return ts_error_set(err, TS_E_PARSE, "corrupt cache entry '%s'", where);
  }
  e->url = jstr(meta, "url");
  e->final_url = jstr(meta, "final_url");
  e->content_type = jstr(meta, "content_type");
  e->etag = jstr(meta, "etag");
  e->last_modified = jstr(meta, "last_modified");
  e->project = jstr(meta, "project");
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
    return ts_error_set(err, TS_E_PARSE, "corrupt cache entry '%s'", where);
  }
  return TS_OK;
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
  return parse_entry(raw, cap, path, e, err);
}

enum ts_code ts_cache_get_page(struct ts_cache *c, const char *key, size_t cap,
                               struct ts_cache_entry *e, struct ts_error *err) {
  memset(e, 0, sizeof *e);
  struct ts_buf raw;
  ts_buf_init(&raw, 2 * cap + CACHE_META_MAX);
  enum ts_code pc = ts_packs_get(c->packs, KIND_PAGES, key, &raw, err);
  if (pc != TS_E_NOT_FOUND) {
    if (pc == TS_OK)
      return parse_entry(raw, cap, key, e, err);
    ts_buf_clear(&raw);
    return pc == TS_E_TOO_BIG ? ts_error_set(err, TS_E_PARSE, "cache entry %s is too big", key)
                              : pc;
  }
  ts_buf_clear(&raw);
  if (c->absent[KIND_PAGES])
    return ts_error_set(err, TS_E_NOT_FOUND, "no cached page %s", key);
  char *path = entry_path(c, KIND_PAGES, key);
  enum ts_code rc = ts_cache_read(path, cap, e, err);
  free(path);
  return rc;
}

enum ts_code ts_cache_put_page(struct ts_cache *c, const char *key, const char *project,
                               const struct ts_cache_entry *e, struct ts_error *err) {
  if (!is_hex_key(key))
    return ts_error_set(err, TS_E_INVALID, "cache key '%.70s' is not a sha256", key);
  cJSON *m = cJSON_CreateObject();
  if (!m)
    return ts_error_set(err, TS_E_NOMEM, "out of memory");
  cJSON_AddStringToObject(m, "url", e->url);
  cJSON_AddStringToObject(m, "final_url", e->final_url ? e->final_url : e->url);
  if (project)
    cJSON_AddStringToObject(m, "project", project);
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
  size_t jl = strlen(js);
  char *head = ts_xasprintf("%s%zu %zu\n", CACHE_MAGIC_V2, jl, e->parsed.len);
  /* header, metadata, parse and body go out as they are: no copy of the
   * page is made to write it */
  struct iovec iov[4] = {{head, strlen(head)},
                         {js, jl},
                         {e->parsed.data, e->parsed.len},
                         {e->body.data, e->body.len}};
  /* An index URL with user:password@ is kept as given (links resolve
   * against it, credentials included): only the user may read such an
   * entry. */
  bool secret = ts_url_has_userinfo(e->url) ||
                (e->final_url && ts_url_has_userinfo(e->final_url));
  enum ts_code rc = ts_packs_put(c->packs, KIND_PAGES, key, iov, 4, secret, err);
  free(head);
  free(js);
  return rc;
}

enum ts_code ts_cache_get_metadata(struct ts_cache *c, const char *key, struct ts_buf *out,
                                   struct ts_error *err) {
  enum ts_code pc = ts_packs_get(c->packs, KIND_METADATA, key, out, err);
  if (pc != TS_E_NOT_FOUND)
    return pc;
  if (c->absent[KIND_METADATA])
    return ts_error_set(err, TS_E_NOT_FOUND, "no cached METADATA %s", key);
  char *path = entry_path(c, KIND_METADATA, key);
  enum ts_code rc = ts_fs_read_file(path, out, err);
  free(path);
  return rc;
}

enum ts_code ts_cache_put_metadata(struct ts_cache *c, const char *key, const void *data,
                                   size_t len, struct ts_error *err) {
  struct iovec iov[1] = {{(void *)data, len}};
  if (!is_hex_key(key))
    return ts_error_set(err, TS_E_INVALID, "cache key '%.70s' is not a sha256", key);
  return ts_packs_put(c->packs, KIND_METADATA, key, iov, 1, false, err);
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
  if (depth > CACHE_WALK_MAX_DEPTH)
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

/* The project the page entry in head (its first n bytes) records,
 * malloc'd; NULL when it records none or does not read. */
static char *page_project_of(const char *head, size_t n) {
  char *project = NULL;
  size_t ml = strlen(CACHE_MAGIC_V2), metalen = 0;
  const char *nl = n > ml ? memchr(head, '\n', n < CACHE_HEADER_MAX ? n : CACHE_HEADER_MAX) : NULL;
  const char *q = head + ml;
  if (nl && memcmp(head, CACHE_MAGIC_V2, ml) == 0 &&
      header_number(&q, nl, CACHE_META_MAX, &metalen)) {
    size_t hdr = (size_t)(nl - head) + 1;
    cJSON *meta = hdr + metalen <= n ? cJSON_ParseWithLength(head + hdr, metalen) : NULL;
    project = meta ? jstr(meta, "project") : NULL;
    cJSON_Delete(meta);
  }
  return project;
}

/* The project a flat page entry records (only its header is read). */
static char *page_project(const char *path) {
  int fd = open(path, O_RDONLY | O_CLOEXEC);
  if (fd < 0)
    return NULL;
  char *head = ts_xmalloc(CACHE_META_MAX + 64);
  ssize_t n = pread(fd, head, CACHE_META_MAX + 64, 0);
  close(fd);
  char *project = n > 0 ? page_project_of(head, (size_t)n) : NULL;
  free(head);
  return project;
}

/* The normalised Name of the METADATA text in data, malloc'd, or NULL. */
static char *metadata_name(const char *data, size_t n) {
  for (const char *line = data, *end = data + n; line < end && *line != '\n';) {
    const char *nl = memchr(line, '\n', (size_t)(end - line));
    size_t len = nl ? (size_t)(nl - line) : (size_t)(end - line);
    if (len > 5 && strncasecmp(line, "Name:", 5) == 0) {
      const char *v = line + 5;
      size_t vl = len - 5;
      while (vl && (*v == ' ' || *v == '\t')) {
        v++;
        vl--;
      }
      while (vl && (v[vl - 1] == ' ' || v[vl - 1] == '\r'))
        vl--;
      return ts_name_normalize(v, vl);
    }
    line = nl ? nl + 1 : end;
  }
  return NULL;
}

/* The normalised Name of a flat METADATA file, malloc'd, or NULL. */
static char *metadata_project(const char *path) {
  struct ts_buf b;
  ts_buf_init(&b, TS_CAP_METADATA);
  char *name = ts_fs_read_file(path, &b, NULL) == TS_OK ? metadata_name(b.data, b.len) : NULL;
  ts_buf_clear(&b);
  return name;
}

/* Whether a pack's entry belongs to the project ctx names. */
static bool entry_of_project(unsigned kind, const char *data, size_t len, void *ctx) {
  char *owner = kind == KIND_PAGES ? page_project_of(data, len) : metadata_name(data, len);
  bool mine = owner && strcmp(owner, ctx) == 0;
  free(owner);
  return mine;
}

/* Removes the entries of one kind's shards that belong to `project`. */
static enum ts_code clean_flat(const char *root, enum kind k, const char *project,
                               size_t *removed, struct ts_error *err) {
  enum ts_code rc = TS_OK;
  for (int s = 0; s < 16 && rc == TS_OK; s++) {
    char *shard = ts_xasprintf("%s/%s/%x", root, kind_dirs[k], s);
    DIR *d = opendir(shard);
    struct dirent *de;
    while (d && rc == TS_OK && (de = readdir(d))) {
      if (de->d_name[0] == '.')
        continue;
      char *path = ts_path_join(shard, de->d_name);
      char *owner = k == KIND_PAGES ? page_project(path) : metadata_project(path);
      if (owner && strcmp(owner, project) == 0) {
        if (unlink(path) == 0)
          (*removed)++;
        else if (errno != ENOENT)
          rc = ts_error_set(err, TS_E_IO, "cannot remove '%s': %s", path, strerror(errno));
      }
      free(owner);
      free(path);
    }
    if (d)
      closedir(d);
    free(shard);
  }
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
    /* the folders per project: whole wheels, and an earlier version's
     * pages and METADATA */
    static const char *const kinds[] = {"pages-v1", "metadata-v1", "wheels-v1"};
    char *p = safe_project(project);
    for (size_t i = 0; rc == TS_OK && i < sizeof kinds / sizeof kinds[0]; i++) {
      char *d = ts_xasprintf("%s/%s/%s", root, kinds[i], p);
      rc = remove_counted(d, &count, err);
      free(d);
    }
    free(p);
    char *norm = ts_name_normalize(project, strlen(project));
    for (int k = 0; rc == TS_OK && k < KIND_COUNT; k++)
      rc = clean_flat(root, (enum kind)k, norm, &count, err);
    if (rc == TS_OK)
      rc = ts_packs_clean(root, entry_of_project, norm, &count, err);
    if (rc == TS_OK)
      rc = clean_unpacked(root, norm, &count, err);
    free(norm);
  }
  if (removed)
    *removed = count;
  return rc;
}
