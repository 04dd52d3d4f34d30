/* The cache's pack files; see cache_pack.h. */
#include "index/cache_pack.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "core/alloc.h"
#include "core/fs.h"
#include "core/sha256.h"
#include "core/str.h"

#define PACK_MAGIC "TSPACK1\n"
#define PACK_END "TSPKEND1"
#define MAGIC_LEN 8
#define REC_LEN 56
#define TRAILER_LEN (MAGIC_LEN + 16 + TS_SHA256_LEN)
/* far above any real cache; a count past it is damage */
#define PACK_MAX_ENTRIES (1u << 24)
/* A temporary pack older than this was left by a run that died. */
#define STALE_TMP_SECONDS (24 * 3600)
#define COPY_STEP (1u << 20)

struct rec {
  unsigned kind;
  uint8_t key[TS_SHA256_LEN];
  uint64_t off, len;
};

/* A pack being written: records appended, the index at the end. */
struct writer {
  int fd; /* -1: none open */
  char *tmp;
  uint64_t end;
  bool failed;
  struct rec *recs;
  size_t n, cap;
};

/* Where an entry lives: a pack read (its index in packs) or, with
 * pack == -1, the run's own. */
struct slot {
  struct rec r;
  int pack;
  bool used;
};

struct ts_packs {
  char *dir;
  bool listed;
  bool dir_missing; /* packs-v1/ was not there when listed */
  int *fds;    /* the packs read, oldest first */
  char **paths;
  size_t npacks;
  bool private_pack; /* a pack read is its owner's only: so is a merge */
  struct slot *slots; /* open addressing on the key */
  size_t cap, n;
  struct writer w;
  unsigned seq;
};

static void put_u32(uint8_t *p, uint32_t v) {
  for (int i = 0; i < 4; i++)
    p[i] = (uint8_t)(v >> (8 * i));
}
static void put_u64(uint8_t *p, uint64_t v) {
  for (int i = 0; i < 8; i++)
    p[i] = (uint8_t)(v >> (8 * i));
}
static uint64_t get_u64(const uint8_t *p) {
  uint64_t v = 0;
  for (int i = 7; i >= 0; i--)
    v = v << 8 | p[i];
  return v;
}
static uint32_t get_u32(const uint8_t *p) {
  return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

static int hexval(char c) {
  if (c >= '0' && c <= '9')
    return c - '0';
  c = (char)(c | 0x20);
  return c >= 'a' && c <= 'f' ? c - 'a' + 10 : -1;
}

static bool key_bytes(const char *hex, uint8_t out[TS_SHA256_LEN]) {
  for (int i = 0; i < TS_SHA256_LEN; i++) {
    int a = hexval(hex[2 * i]), b = a < 0 ? -1 : hexval(hex[2 * i + 1]);
    if (b < 0)
      return false;
    out[i] = (uint8_t)(a << 4 | b);
  }
  return true;
}

/* ---- the lookup table ------------------------------------------------- */

static size_t slot_of(const struct slot *s, size_t cap, unsigned kind, const uint8_t *key) {
  uint64_t h = 0;
  memcpy(&h, key, sizeof h);
  size_t j = (size_t)((h ^ kind) % cap);
  while (s[j].used && !(s[j].r.kind == kind && memcmp(s[j].r.key, key, TS_SHA256_LEN) == 0))
    j = (j + 1) % cap;
  return j;
}

/* Adds or replaces (the later wins) the entry r. */
static void table_set(struct ts_packs *p, const struct rec *r, int pack) {
  if (2 * (p->n + 1) > p->cap) {
    size_t ncap = p->cap ? 2 * p->cap : 256;
    struct slot *ns = ts_xcalloc(ncap, sizeof *ns);
    for (size_t i = 0; i < p->cap; i++)
      if (p->slots[i].used)
        ns[slot_of(ns, ncap, p->slots[i].r.kind, p->slots[i].r.key)] = p->slots[i];
    free(p->slots);
    p->slots = ns;
    p->cap = ncap;
  }
  size_t j = slot_of(p->slots, p->cap, r->kind, r->key);
  if (!p->slots[j].used)
    p->n++;
  p->slots[j] = (struct slot){.r = *r, .pack = pack, .used = true};
}

static const struct slot *table_get(const struct ts_packs *p, unsigned kind,
                                    const uint8_t *key) {
  if (!p->cap)
    return NULL;
  size_t j = slot_of(p->slots, p->cap, kind, key);
  return p->slots[j].used ? &p->slots[j] : NULL;
}

/* ---- reading a pack --------------------------------------------------- */

static bool pread_all(int fd, void *buf, size_t len, uint64_t off) {
  char *b = buf;
  while (len) {
    ssize_t n = pread(fd, b, len, (off_t)off);
    if (n < 0 && errno == EINTR)
      continue;
    if (n <= 0)
      return false;
    b += n;
    len -= (size_t)n;
    off += (uint64_t)n;
  }
  return true;
}

/* The index of the pack open on fd; false when the pack does not check
 * out (short, wrong magic, an index that is not its own, an entry outside
 * the data). */
static bool read_index(int fd, struct rec **out, size_t *n) {
  struct stat st;
  uint8_t t[TRAILER_LEN], head[MAGIC_LEN];
  if (fstat(fd, &st) != 0 || st.st_size < MAGIC_LEN + TRAILER_LEN)
    return false;
  uint64_t size = (uint64_t)st.st_size;
  if (!pread_all(fd, head, MAGIC_LEN, 0) || memcmp(head, PACK_MAGIC, MAGIC_LEN) != 0 ||
      !pread_all(fd, t, TRAILER_LEN, size - TRAILER_LEN) || memcmp(t, PACK_END, MAGIC_LEN) != 0)
    return false;
  uint64_t ioff = get_u64(t + 8), count = get_u64(t + 16);
  if (count > PACK_MAX_ENTRIES || ioff < MAGIC_LEN || ioff + count * REC_LEN + TRAILER_LEN != size)
    return false;
  uint8_t *idx = ts_xmalloc(count * REC_LEN + 1);
  uint8_t sum[TS_SHA256_LEN];
  bool ok = pread_all(fd, idx, count * REC_LEN, ioff);
  if (ok) {
    ts_sha256(idx, count * REC_LEN, sum);
    ok = memcmp(sum, t + 24, TS_SHA256_LEN) == 0;
  }
  struct rec *r = ok ? ts_xcalloc(count + 1, sizeof *r) : NULL;
  for (uint64_t i = 0; ok && i < count; i++) {
    const uint8_t *e = idx + i * REC_LEN;
    r[i].kind = get_u32(e);
    memcpy(r[i].key, e + 8, TS_SHA256_LEN);
    r[i].off = get_u64(e + 40);
    r[i].len = get_u64(e + 48);
    ok = r[i].off >= MAGIC_LEN && r[i].len <= ioff && r[i].off <= ioff - r[i].len;
  }
  free(idx);
  if (!ok) {
    free(r);
    return false;
  }
  *out = r;
  *n = (size_t)count;
  return true;
}

/* The names of the packs in dir, oldest first; a temporary left by a run
 * that died a day ago is removed on the way. */
static char **list_packs(const char *dir, size_t *n, bool *missing) {
  *n = 0;
  DIR *d = opendir(dir);
  *missing = !d && errno == ENOENT;
  if (!d)
    return NULL;
  char **names = NULL;
  size_t cap = 0;
  time_t now = time(NULL);
  struct dirent *de;
  while ((de = readdir(d))) {
    size_t l = strlen(de->d_name);
    if (strncmp(de->d_name, ".tmp-", 5) == 0) {
      struct stat st;
      if (fstatat(dirfd(d), de->d_name, &st, AT_SYMLINK_NOFOLLOW) == 0 &&
          now - st.st_mtime > STALE_TMP_SECONDS)
        (void)unlinkat(dirfd(d), de->d_name, 0);
      continue;
    }
    if (de->d_name[0] == '.' || l < 6 || strcmp(de->d_name + l - 5, ".pack") != 0)
      continue;
    if (*n == cap) {
      cap = cap ? 2 * cap : 8;
      names = ts_xreallocarray(names, cap, sizeof *names);
    }
    names[(*n)++] = ts_xstrdup(de->d_name);
  }
  closedir(d);
  if (*n > 1)
    qsort(names, *n, sizeof *names, ts_strv_cmp);
  return names;
}

/* Reads the index of every pack once, at the first lookup. */
static void load_packs(struct ts_packs *p) {
  p->listed = true;
  size_t n = 0;
  char **names = list_packs(p->dir, &n, &p->dir_missing);
  for (size_t i = 0; i < n; i++) {
    char *path = ts_path_join(p->dir, names[i]);
    free(names[i]);
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    struct rec *recs = NULL;
    size_t nrecs = 0;
    if (fd < 0 || !read_index(fd, &recs, &nrecs)) {
      if (fd >= 0)
        close(fd);
      free(path);
      continue;
    }
    p->fds = ts_xreallocarray(p->fds, p->npacks + 1, sizeof *p->fds);
    p->paths = ts_xreallocarray(p->paths, p->npacks + 1, sizeof *p->paths);
    struct stat st;
    if (fstat(fd, &st) == 0 && (st.st_mode & 077) == 0)
      p->private_pack = true;
    p->fds[p->npacks] = fd;
    p->paths[p->npacks] = path;
    for (size_t k = 0; k < nrecs; k++)
      table_set(p, &recs[k], (int)p->npacks);
    p->npacks++;
    free(recs);
  }
  free(names);
}

/* ---- writing a pack --------------------------------------------------- */

/* Drops the pack being written. */
static void writer_abandon(struct writer *w) {
  if (w->fd >= 0) {
    close(w->fd);
    unlink(w->tmp);
  }
  w->fd = -1;
  free(w->tmp);
  w->tmp = NULL;
  free(w->recs);
  w->recs = NULL;
  w->n = w->cap = 0;
}

/* Opens a temporary pack in dir (made first when known to be missing,
 * else when the open finds it gone: a concurrent `cache clean`). */
static bool writer_start(struct writer *w, const char *dir, bool missing, unsigned seq) {
  if (missing)
    (void)ts_fs_mkdirs(dir, NULL);
  struct timespec ts;
  clock_gettime(CLOCK_REALTIME, &ts);
  w->tmp = ts_xasprintf("%s/.tmp-%ld-%u-%lld%09ld", dir, (long)getpid(), seq,
                        (long long)ts.tv_sec, ts.tv_nsec);
  w->fd = open(w->tmp, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
  if (w->fd < 0 && errno == ENOENT && ts_fs_mkdirs(dir, NULL) == TS_OK)
    w->fd = open(w->tmp, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
  if (w->fd < 0 || !ts_fs_write_all(w->fd, PACK_MAGIC, MAGIC_LEN)) {
    writer_abandon(w);
    return false;
  }
  w->end = MAGIC_LEN;
  return true;
}

static void writer_note(struct writer *w, unsigned kind, const uint8_t *key, uint64_t len) {
  if (w->n == w->cap) {
    w->cap = w->cap ? 2 * w->cap : 256;
    w->recs = ts_xreallocarray(w->recs, w->cap, sizeof *w->recs);
  }
  struct rec *r = &w->recs[w->n++];
  r->kind = kind;
  memcpy(r->key, key, TS_SHA256_LEN);
  r->off = w->end;
  r->len = len;
  w->end += len;
}

/* One writev for an entry's pieces (a page's header, metadata, parse and
 * body), retried past short writes. */
static bool writev_all(int fd, const struct iovec *iov, int niov) {
  struct iovec v[8];
  if (niov > 8)
    return false;
  memcpy(v, iov, (size_t)niov * sizeof *v);
  for (int first = 0; first < niov;) {
    if (!v[first].iov_len) {
      first++;
      continue;
    }
    ssize_t n = writev(fd, v + first, niov - first);
    if (n < 0 && errno == EINTR)
      continue;
    if (n <= 0)
      return false;
    for (size_t left = (size_t)n; left && first < niov; first += !v[first].iov_len) {
      size_t take = left < v[first].iov_len ? left : v[first].iov_len;
      v[first].iov_base = (char *)v[first].iov_base + take;
      v[first].iov_len -= take;
      left -= take;
    }
  }
  return true;
}

/* Writes the index and trailer, closes, and renames the pack to `final`;
 * false (the temporary removed) when any of it fails. */
static bool writer_finish(struct writer *w, const char *final) {
  size_t ilen = w->n * REC_LEN;
  uint8_t *idx = ts_xcalloc(ilen + TRAILER_LEN, 1);
  for (size_t i = 0; i < w->n; i++) {
    uint8_t *e = idx + i * REC_LEN;
    put_u32(e, w->recs[i].kind);
    memcpy(e + 8, w->recs[i].key, TS_SHA256_LEN);
    put_u64(e + 40, w->recs[i].off);
    put_u64(e + 48, w->recs[i].len);
  }
  uint8_t *t = idx + ilen;
  memcpy(t, PACK_END, MAGIC_LEN);
  put_u64(t + 8, w->end);
  put_u64(t + 16, w->n);
  ts_sha256(idx, ilen, t + 24);
  bool ok = !w->failed && ts_fs_write_all(w->fd, idx, ilen + TRAILER_LEN);
  free(idx);
  ok = close(w->fd) == 0 && ok;
  w->fd = -1;
  ok = ok && rename(w->tmp, final) == 0;
  if (!ok)
    unlink(w->tmp);
  free(w->tmp);
  w->tmp = NULL;
  free(w->recs);
  w->recs = NULL;
  w->n = w->cap = 0;
  return ok;
}

/* Copies len bytes at off of fd into the pack being written. */
static bool writer_copy(struct writer *w, int fd, uint64_t off, uint64_t len) {
  char *buf = ts_xmalloc(len < COPY_STEP ? (size_t)len + 1 : COPY_STEP);
  bool ok = true;
  for (uint64_t done = 0; ok && done < len;) {
    size_t step = len - done < COPY_STEP ? (size_t)(len - done) : COPY_STEP;
    ok = pread_all(fd, buf, step, off + done) && ts_fs_write_all(w->fd, buf, step);
    done += step;
  }
  free(buf);
  return ok;
}

/* ---- the run's handle ------------------------------------------------- */

struct ts_packs *ts_packs_open(const char *root) {
  struct ts_packs *p = ts_xcalloc(1, sizeof *p);
  p->dir = ts_path_join(root, TS_PACKS_DIR);
  p->w.fd = -1;
  return p;
}

enum ts_code ts_packs_get(struct ts_packs *p, unsigned kind, const char *key,
                          struct ts_buf *out, struct ts_error *err) {
  uint8_t k[TS_SHA256_LEN];
  if (!key_bytes(key, k))
    return ts_error_set(err, TS_E_NOT_FOUND, "cache key '%.70s' is not a sha256", key);
  if (!p->listed)
    load_packs(p);
  const struct slot *s = table_get(p, kind, k);
  if (!s)
    return ts_error_set(err, TS_E_NOT_FOUND, "no cached entry %s", key);
  int fd = s->pack < 0 ? p->w.fd : p->fds[s->pack];
  if (fd < 0)
    return ts_error_set(err, TS_E_NOT_FOUND, "no cached entry %s", key);
  enum ts_code c = ts_buf_reserve(out, (size_t)s->r.len);
  if (c != TS_OK)
    return ts_error_set(err, c, "cache entry %s is larger than the %zu-byte limit", key,
                        out->max);
  if (!pread_all(fd, out->data + out->len, (size_t)s->r.len, s->r.off))
    return ts_error_set(err, TS_E_PARSE, "cache entry %s does not read back whole", key);
  out->len += (size_t)s->r.len;
  out->data[out->len] = '\0';
  return TS_OK;
}

enum ts_code ts_packs_put(struct ts_packs *p, unsigned kind, const char *key,
                          const struct iovec *iov, int niov, bool secret,
                          struct ts_error *err) {
  uint8_t k[TS_SHA256_LEN];
  if (!key_bytes(key, k))
    return ts_error_set(err, TS_E_INVALID, "cache key '%.70s' is not a sha256", key);
  if (p->w.failed)
    return ts_error_set(err, TS_E_IO, "cannot write the cache's pack in '%s'", p->dir);
  if (!p->listed)
    load_packs(p); /* the run's own entries win over what was there */
  if (p->w.fd < 0 && !writer_start(&p->w, p->dir, p->dir_missing, p->seq++)) {
    p->w.failed = true;
    return ts_error_set(err, TS_E_IO, "cannot write a pack in '%s': %s", p->dir,
                        strerror(errno));
  }
  if (secret && fchmod(p->w.fd, 0600) != 0)
    p->w.failed = true;
  uint64_t len = 0;
  for (int i = 0; i < niov; i++)
    len += iov[i].iov_len;
  if (p->w.failed || !writev_all(p->w.fd, iov, niov)) {
    p->w.failed = true;
    writer_abandon(&p->w);
    return ts_error_set(err, TS_E_IO, "cannot write '%s': %s", p->dir, strerror(errno));
  }
  writer_note(&p->w, kind, k, len);
  table_set(p, &p->w.recs[p->w.n - 1], -1);
  return TS_OK;
}

/* Moves every live entry of the packs read into the run's pack; true
 * when all of them made it (then those packs may go). */
static bool merge_into(struct ts_packs *p) {
  if (p->private_pack && fchmod(p->w.fd, 0600) != 0)
    return false;
  for (size_t i = 0; i < p->cap; i++) {
    const struct slot *s = &p->slots[i];
    if (!s->used || s->pack < 0)
      continue;
    if (!writer_copy(&p->w, p->fds[s->pack], s->r.off, s->r.len))
      return false;
    writer_note(&p->w, s->r.kind, s->r.key, s->r.len);
  }
  return true;
}

static char *final_name(const char *dir, unsigned seq) {
  struct timespec ts;
  clock_gettime(CLOCK_REALTIME, &ts);
  /* fixed-width time first: names sort oldest first */
  return ts_xasprintf("%s/%016llx%08lx-%ld-%u.pack", dir, (unsigned long long)ts.tv_sec,
                      (unsigned long)ts.tv_nsec, (long)getpid(), seq);
}

void ts_packs_close(struct ts_packs *p) {
  if (!p)
    return;
  if (p->w.fd >= 0) {
    bool merged = p->npacks >= TS_PACKS_MERGE_AT;
    if (merged && !merge_into(p))
      p->w.failed = true; /* the offsets no longer add up: drop the pack */
    char *final = final_name(p->dir, p->seq);
    bool ok = writer_finish(&p->w, final);
    free(final);
    for (size_t i = 0; ok && merged && i < p->npacks; i++)
      (void)unlink(p->paths[i]);
  }
  writer_abandon(&p->w);
  for (size_t i = 0; i < p->npacks; i++) {
    close(p->fds[i]);
    free(p->paths[i]);
  }
  free(p->fds);
  free(p->paths);
  free(p->slots);
  free(p->dir);
  free(p);
}

/* ---- cache clean NAME ------------------------------------------------- */

/* Rewrites the pack at path without the entries drop picks; *dropped
 * counts them. */
static enum ts_code clean_pack(const char *dir, const char *path, ts_packs_drop_fn drop,
                               void *ctx, size_t *dropped, struct ts_error *err) {
  int fd = open(path, O_RDONLY | O_CLOEXEC);
  struct rec *recs = NULL;
  size_t n = 0;
  if (fd < 0 || !read_index(fd, &recs, &n)) {
    if (fd >= 0)
      close(fd);
    return TS_OK; /* gone, or damaged: never read, removed with the cache */
  }
  bool *keep = ts_xcalloc(n + 1, sizeof *keep);
  size_t nkeep = 0;
  struct ts_buf b;
  ts_buf_init(&b, 0);
  for (size_t i = 0; i < n; i++) {
    ts_buf_reset(&b);
    bool ok = ts_buf_reserve(&b, (size_t)recs[i].len) == TS_OK &&
              pread_all(fd, b.data, (size_t)recs[i].len, recs[i].off);
    b.len = ok ? (size_t)recs[i].len : 0;
    keep[i] = !ok || !drop(recs[i].kind, b.data, b.len, ctx);
    nkeep += keep[i];
  }
  ts_buf_clear(&b);
  enum ts_code rc = TS_OK;
  if (nkeep == 0 && n) {
    if (unlink(path) == 0 || errno == ENOENT)
      *dropped += n;
    else
      rc = ts_error_set(err, TS_E_IO, "cannot remove '%s': %s", path, strerror(errno));
  } else if (nkeep < n) {
    struct writer w = {.fd = -1};
    struct stat st;
    bool ok = fstat(fd, &st) == 0 && writer_start(&w, dir, false, 0) &&
              fchmod(w.fd, st.st_mode & 0777) == 0;
    for (size_t i = 0; ok && i < n; i++) {
      if (!keep[i])
        continue;
      ok = writer_copy(&w, fd, recs[i].off, recs[i].len);
      writer_note(&w, recs[i].kind, recs[i].key, recs[i].len);
    }
    w.failed = !ok;
    if (w.fd >= 0 && writer_finish(&w, path))
      *dropped += n - nkeep;
    else
      rc = ts_error_set(err, TS_E_IO, "cannot rewrite '%s'", path);
    writer_abandon(&w);
  }
  free(keep);
  free(recs);
  close(fd);
  return rc;
}

enum ts_code ts_packs_clean(const char *root, ts_packs_drop_fn drop, void *ctx,
                            size_t *removed, struct ts_error *err) {
  char *dir = ts_path_join(root, TS_PACKS_DIR);
  size_t n = 0;
  bool missing;
  char **names = list_packs(dir, &n, &missing);
  enum ts_code rc = TS_OK;
  for (size_t i = 0; i < n; i++) {
    char *path = ts_path_join(dir, names[i]);
    if (rc == TS_OK)
      rc = clean_pack(dir, path, drop, ctx, removed, err);
    free(path);
    free(names[i]);
  }
  free(names);
  free(dir);
  return rc;
}
