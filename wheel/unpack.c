#include "wheel/unpack.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "core/alloc.h"
#include "core/buf.h"
#include "core/cacheroot.h"
#include "core/filehash.h"
#include "core/fs.h"
#include "core/sha256.h"
#include "core/str.h"
#include "pep/filename.h"
#include "variant/label.h"
#include "pep/name.h"
#include "pep/version.h"
#include "wheel/place.h"
#include "wheel/record.h"
#include "wheel/scripts.h"
#include "wheel/treecheck.h"
#include "zip/zip.h"

#define DEFAULT_MAX_TOTAL (64ull << 30)
#define DEFAULT_MAX_RATIO 200u
#define DEFAULT_RATIO_MIN (1ull << 20)
#define SYMLINK_MAX 4096u
#define MAX_THREADS 16u
/* A .tmp- directory untouched this long is a killed run's leftover. */
#define STALE_TMP_S 3600

/* ---- names ---------------------------------------------------------- */

enum ts_code ts_wheel_check_path(const char *name, size_t len,
                                 struct ts_error *err) {
  if (len == 0)
    return ts_error_set(err, TS_E_UNSAFE_PATH, "wheel has an empty member name");
  if (name[0] == '/')
    return ts_error_set(err, TS_E_UNSAFE_PATH,
                        "wheel member '%.*s' is an absolute path", (int)len,
                        name);
  if (len >= 2 && name[1] == ':' &&
      ((name[0] >= 'A' && name[0] <= 'Z') || (name[0] >= 'a' && name[0] <= 'z')))
    return ts_error_set(err, TS_E_UNSAFE_PATH,
                        "wheel member '%.*s' has a drive letter", (int)len,
                        name);
  size_t end = len;
  if (name[end - 1] == '/') /* directory entry */
    end--;
  size_t start = 0;
  for (size_t i = 0; i <= end; i++) {
    if (i < end) {
      unsigned char c = (unsigned char)name[i];
      if (c < 0x20 || c == 0x7f || c == '\\')
        return ts_error_set(err, TS_E_UNSAFE_PATH,
                            "wheel member '%.*s' has a control character or "
                            "a backslash",
                            (int)len, name);
      if (c != '/')
        continue;
    }
    size_t cl = i - start;
    if (cl == 0 || (cl == 1 && name[start] == '.') ||
        (cl == 2 && name[start] == '.' && name[start + 1] == '.'))
      return ts_error_set(err, TS_E_UNSAFE_PATH,
                          "wheel member '%.*s' has an empty, '.' or '..' "
                          "component",
                          (int)len, name);
    start = i + 1;
  }
  return TS_OK;
}

enum ts_code ts_wheel_parse_filename(const char *filename, char **name,
                                     char **version, struct ts_error *err) {
  const char *base = strrchr(filename, '/');
  base = base ? base + 1 : filename;
  *name = *version = NULL;
  struct ts_wheel_filename *w = NULL;
  struct ts_error why = {0};
  if (ts_variant_wheel_filename_parse(base, strlen(base), &w, NULL, &why) != TS_OK)
    return ts_error_set(err, TS_E_INVALID, "'%s' is not a wheel file name: %s", base,
                        why.detail);
  *name = ts_xstrdup(w->name);
  *version = ts_xstrdup(ts_version_str(w->version));
  ts_wheel_filename_free(w);
  return TS_OK;
}

static bool versions_equal(const char *a, size_t alen, const char *b,
                           size_t blen) {
  struct ts_version *va = NULL, *vb = NULL;
  bool eq;
  if (ts_version_parse(a, alen, &va, NULL) == TS_OK &&
      ts_version_parse(b, blen, &vb, NULL) == TS_OK)
    eq = ts_version_cmp(va, vb) == 0;
  else
    eq = alen == blen && strncasecmp(a, b, alen) == 0;
  ts_version_free(va);
  ts_version_free(vb);
  return eq;
}

/* ---- small file helpers -------------------------------------------- */

static enum ts_code read_small(const char *dir, const char *rel, size_t cap,
                               struct ts_buf *out, struct ts_error *err) {
  char *p = ts_path_join(dir, rel);
  ts_buf_init(out, cap);
  enum ts_code rc = ts_fs_read_file(p, out, err);
  free(p);
  return rc;
}

/* "Key: value" lines of WHEEL. */
static bool header_value(const char *data, size_t len, const char *key,
                         const char **val, size_t *vlen) {
  size_t kl = strlen(key);
  const char *p = data, *end = data + len;
  while (p < end) {
    const char *nl = memchr(p, '\n', (size_t)(end - p));
    const char *le = nl ? nl : end;
    if ((size_t)(le - p) > kl && strncasecmp(p, key, kl) == 0 && p[kl] == ':') {
      const char *v = p + kl + 1;
      while (v < le && (*v == ' ' || *v == '\t'))
        v++;
      const char *ve = le;
      while (ve > v && (ve[-1] == '\r' || ve[-1] == ' ' || ve[-1] == '\t'))
        ve--;
      *val = v;
      *vlen = (size_t)(ve - v);
      return true;
    }
    p = nl ? nl + 1 : end;
  }
  return false;
}

/* PEP 427: an installer refuses a Wheel-Version of a higher major version
 * and warns about a higher minor one; any 1.x or 0.x is read (old
 * bdist_wheel wrote 0.1). */
static enum ts_code parse_wheel_file(const char *data, size_t len, bool *purelib,
                                     bool *newer_minor, struct ts_error *err) {
  const char *v;
  size_t vl;
  if (!header_value(data, len, "Wheel-Version", &v, &vl))
    return ts_error_set(err, TS_E_BAD_WHEEL, "WHEEL has no Wheel-Version");
  unsigned long major = 0, minor = 0;
  size_t i = 0;
  bool ok = vl > 0 && vl < 20;
  for (; ok && i < vl && v[i] >= '0' && v[i] <= '9'; i++)
    major = major * 10 + (unsigned long)(v[i] - '0');
  ok = ok && i > 0 && i + 1 < vl && v[i] == '.';
  size_t m = ++i;
  for (; ok && i < vl && v[i] >= '0' && v[i] <= '9'; i++)
    minor = minor * 10 + (unsigned long)(v[i] - '0');
  ok = ok && i > m && i == vl;
  if (!ok)
    return ts_error_set(err, TS_E_BAD_WHEEL, "WHEEL's Wheel-Version '%.*s' is not MAJOR.MINOR",
                        (int)(vl > 20 ? 20 : vl), v);
  if (major > 1)
    return ts_error_set(err, TS_E_UNSUPPORTED,
                        "Wheel-Version %lu.%lu is not supported (1.x and older only)",
                        major, minor);
  *newer_minor = major == 1 && minor > 0;
  *purelib = false;
  if (header_value(data, len, "Root-Is-Purelib", &v, &vl))
    *purelib = vl == 4 && strncasecmp(v, "true", 4) == 0;
  return TS_OK;
}

static bool is_record_like(const char *path, const char *distinfo) {
  size_t dl = strlen(distinfo);
  if (strncmp(path, distinfo, dl) != 0 || path[dl] != '/')
    return false;
  const char *b = path + dl + 1;
  return strcmp(b, "RECORD") == 0 || strcmp(b, "RECORD.jws") == 0 ||
         strcmp(b, "RECORD.p7s") == 0;
}

/* Reads the tree's or the archive's file `rel` (at most cap bytes) into
 * out; TS_E_NOT_FOUND when there is none. */
typedef enum ts_code read_rel_fn(const void *from, const char *rel, size_t cap,
                                 struct ts_buf *out, struct ts_error *err);

static enum ts_code read_tree_file(const void *dir, const char *rel, size_t cap,
                                   struct ts_buf *out, struct ts_error *err) {
  return read_small(dir, rel, cap, out, err);
}

static enum ts_code read_archive_file(const void *archive, const char *rel, size_t cap,
                                      struct ts_buf *out, struct ts_error *err) {
  ts_buf_init(out, cap);
  const struct ts_zip_entry *e = ts_zip_find(archive, rel, strlen(rel));
  if (!e)
    return ts_error_set(err, TS_E_NOT_FOUND, "no '%s' in the wheel", rel);
  return ts_zip_read_member(archive, e, out, err);
}

/* out's files: RECORD's rows but RECORD itself and its signatures, in
 * RECORD's order (the rows' strings move into out). */
static void take_files(struct ts_unpacked *out, struct ts_record *rec) {
  out->files = ts_xcalloc(rec->count ? rec->count : 1, sizeof *out->files);
  for (size_t i = 0; i < rec->count; i++) {
    struct ts_record_row *r = &rec->rows[i];
    if (is_record_like(r->path, out->distinfo))
      continue;
    struct ts_unpacked_file *f = &out->files[out->count++];
    f->path = r->path;
    f->hash = r->hash;
    f->size = strtoull(r->size, NULL, 10);
    r->path = r->hash = NULL;
  }
}

/* Fills out's name, version and data dir from out->distinfo (checked
 * against the file name's fname/fver unless NULL), and its WHEEL, entry
 * points and (when `files`) files from the dist-info's files as `read`
 * finds them. */
static enum ts_code load_distinfo(struct ts_unpacked *out, const char *fname,
                                  const char *fver, read_rel_fn *read,
                                  const void *from, bool files, struct ts_error *err) {
  size_t sl = strlen(out->distinfo) - 10;
  const char *dash = memchr(out->distinfo, '-', sl);
  if (!dash)
    return ts_error_set(err, TS_E_BAD_WHEEL,
                        "dist-info directory '%s' is not <name>-<version>",
                        out->distinfo);
  size_t nl = (size_t)(dash - out->distinfo);
  if (fname && (!ts_name_eq(out->distinfo, nl, fname, strlen(fname)) ||
                !versions_equal(dash + 1, sl - nl - 1, fver, strlen(fver))))
    return ts_error_set(err, TS_E_BAD_WHEEL,
                        "wheel's '%s' does not match its file name (%s %s)",
                        out->distinfo, fname, fver);
  out->name = ts_xstrndup(out->distinfo, nl);
  out->version = ts_xstrndup(dash + 1, sl - nl - 1);
  size_t dl = sl + 5;
  out->datadir = ts_xmalloc(dl + 1);
  memcpy(out->datadir, out->distinfo, sl);
  memcpy(out->datadir + sl, ".data", 6);

  struct ts_buf b;
  char rel[4096];
  snprintf(rel, sizeof rel, "%s/WHEEL", out->distinfo);
  enum ts_code rc = read(from, rel, TS_CAP_SMALL_FILE, &b, err);
  if (rc == TS_OK)
    rc = parse_wheel_file(b.data, b.len, &out->root_is_purelib, &out->newer_minor, err);
  ts_buf_clear(&b);
  if (rc != TS_OK)
    return rc == TS_E_NOT_FOUND
               ? ts_error_set(err, TS_E_BAD_WHEEL, "wheel has no %s", rel)
               : rc;
  snprintf(rel, sizeof rel, "%s/entry_points.txt", out->distinfo);
  rc = read(from, rel, TS_CAP_SMALL_FILE, &b, err);
  if (rc == TS_OK) {
    out->entry_points = ts_buf_take(&b, &out->entry_points_len);
  } else {
    ts_buf_clear(&b);
    if (rc != TS_E_NOT_FOUND)
      return rc;
  }
  if (!files)
    return TS_OK;
  snprintf(rel, sizeof rel, "%s/RECORD", out->distinfo);
  rc = read(from, rel, TS_CAP_RECORD, &b, err);
  if (rc != TS_OK) {
    ts_buf_clear(&b);
    return rc == TS_E_NOT_FOUND
               ? ts_error_set(err, TS_E_BAD_WHEEL, "wheel has no %s", rel)
               : rc;
  }
  struct ts_record rec;
  rc = ts_record_parse(b.data, b.len, &rec, err);
  ts_buf_clear(&b);
  if (rc == TS_OK)
    take_files(out, &rec);
  ts_record_clear(&rec);
  return rc;
}

/* Fills out's metadata from an unpacked tree (cache hit or fresh unpack).
 * fname/fver: what the wheel's file name says (NULL: not checked). */
enum ts_code ts_unpacked_load(struct ts_unpacked *out, const char *fname,
                              const char *fver, struct ts_error *err) {
  DIR *d = opendir(out->dir);
  if (!d)
    return ts_error_set(err, TS_E_IO, "cannot open '%s': %s", out->dir,
                        strerror(errno));
  struct dirent *de;
  while ((de = readdir(d))) {
    size_t l = strlen(de->d_name);
    if (l > 10 && strcmp(de->d_name + l - 10, ".dist-info") == 0) {
      if (out->distinfo) {
        closedir(d);
        return ts_error_set(err, TS_E_BAD_WHEEL,
                            "wheel has two .dist-info directories");
      }
      out->distinfo = ts_xstrndup(de->d_name, l);
    }
  }
  closedir(d);
  if (!out->distinfo)
    return ts_error_set(err, TS_E_BAD_WHEEL, "wheel has no .dist-info directory");
  return load_distinfo(out, fname, fver, read_tree_file, out->dir, true, err);
}

static void source_free(struct ts_unpack_source *s);

void ts_unpacked_clear(struct ts_unpacked *u) {
  source_free(u->source);
  if (u->temporary && u->dir)
    ts_fs_remove_tree(u->dir, NULL);
  for (size_t i = 0; i < u->count; i++) {
    free(u->files[i].path);
    free(u->files[i].hash);
  }
  free(u->files);
  free(u->dir);
  free(u->name);
  free(u->version);
  free(u->distinfo);
  free(u->datadir);
  free(u->entry_points);
  memset(u, 0, sizeof *u);
}

/* ---- validation ----------------------------------------------------- */

struct member {
  const struct ts_zip_entry *e;
  uint8_t digest[32];   /* expected, from RECORD */
  uint64_t size;
  bool exec;
  bool symlink;
  bool verify;          /* false only for RECORD itself */
  char *link_target;    /* pre-read (symlinks only) */
};

struct plan {
  struct member *m;     /* files and symlinks, not directories */
  size_t n;
  char **dirs;          /* every directory to create, parents first */
  size_t ndirs;
  char *distinfo;       /* "<name>-<version>.dist-info" */
  struct ts_record rec; /* RECORD as parsed */
};

static void plan_free(struct plan *p) {
  for (size_t i = 0; i < p->n; i++)
    free(p->m[i].link_target);
  free(p->m);
  for (size_t i = 0; i < p->ndirs; i++)
    free(p->dirs[i]);
  free(p->dirs);
  free(p->distinfo);
  ts_record_clear(&p->rec);
  memset(p, 0, sizeof *p);
}

/* A symlink is kept only if it stays inside the tree it is installed in
 * (lexically, from its own directory) and lives outside .data/. */
static enum ts_code check_symlink(const char *name, const char *target,
                                  size_t tlen, const char *datadir,
                                  struct ts_error *err) {
  size_t dl = strlen(datadir);
  if (strncmp(name, datadir, dl) == 0 && name[dl] == '/')
    return ts_error_set(err, TS_E_UNSAFE_PATH,
                        "wheel member '%s' is a symlink inside .data/", name);
  if (tlen == 0 || target[0] == '/' || memchr(target, '\0', tlen))
    return ts_error_set(err, TS_E_UNSAFE_PATH,
                        "wheel symlink '%s' points to an absolute or empty "
                        "path",
                        name);
  long depth = 0;
  for (const char *p = name; *p; p++)
    depth += *p == '/';
  const char *p = target, *end = target + tlen;
  while (p < end) {
    const char *s = memchr(p, '/', (size_t)(end - p));
    size_t cl = s ? (size_t)(s - p) : (size_t)(end - p);
    if (cl == 2 && p[0] == '.' && p[1] == '.')
      depth--;
    else if (cl != 0 && !(cl == 1 && p[0] == '.'))
      depth++;
    if (depth < 0)
      return ts_error_set(err, TS_E_UNSAFE_PATH,
                          "wheel symlink '%s' -> '%.*s' escapes the target",
                          name, (int)tlen, target);
    p = s ? s + 1 : end;
  }
  return TS_OK;
}

/* The archive as a whole: every member name safe, no member (nor the total)
 * expanding past the limits, exactly one top-level *.dist-info, whose
 * name (distinfo, dil bytes, pointing into a) is returned. */
static enum ts_code scan_members(const struct ts_zip_archive *a,
                                 const struct ts_wheel_options *o,
                                 const char **distinfo_out, size_t *dil_out,
                                 struct ts_error *err) {
  uint64_t max_total = o->limits.max_total ? o->limits.max_total
                                           : DEFAULT_MAX_TOTAL;
  uint64_t max_ratio = o->limits.max_ratio ? o->limits.max_ratio
                                           : DEFAULT_MAX_RATIO;
  uint64_t ratio_min = o->limits.ratio_min_size ? o->limits.ratio_min_size
                                                : DEFAULT_RATIO_MIN;
  if (a->total_usize > max_total)
    return ts_error_set(err, TS_E_TOO_BIG,
                        "wheel unpacks to %llu bytes (limit %llu): refusing a "
                        "possible zip bomb",
                        (unsigned long long)a->total_usize,
                        (unsigned long long)max_total);
  /* The dist-info directory: exactly one top-level *.dist-info. */
  const char *distinfo = NULL;
  size_t dil = 0;
  for (size_t i = 0; i < a->count; i++) {
    const struct ts_zip_entry *e = &a->entries[i];
    enum ts_code rc = ts_wheel_check_path(e->name, e->name_len, err);
    if (rc != TS_OK)
      return rc;
    const char *slash = memchr(e->name, '/', e->name_len);
    if (!slash)
      continue;
    size_t tl = (size_t)(slash - e->name);
    if (tl > 10 && memcmp(slash - 10, ".dist-info", 10) == 0) {
      if (distinfo && (tl != dil || memcmp(distinfo, e->name, tl) != 0))
        return ts_error_set(err, TS_E_BAD_WHEEL,
                            "wheel has two .dist-info directories ('%.*s' and "
                            "'%.*s')",
                            (int)dil, distinfo, (int)tl, e->name);
      distinfo = e->name;
      dil = tl;
    }
    if (e->usize > ratio_min &&
        (e->csize == 0 || e->usize / e->csize > max_ratio))
      return ts_error_set(err, TS_E_TOO_BIG,
                          "wheel member '%s' expands %llu-fold (limit %llu): "
                          "refusing a possible zip bomb",
                          e->name,
                          (unsigned long long)(e->csize ? e->usize / e->csize
                                                        : e->usize),
                          (unsigned long long)max_ratio);
  }
  if (!distinfo)
    return ts_error_set(err, TS_E_BAD_WHEEL, "wheel has no .dist-info directory");
  *distinfo_out = distinfo;
  *dil_out = dil;
  return TS_OK;
}

/* The dist-info di: named for the file name's project and version, with a
 * RECORD (read into b, parsed into rec; *re its member), a WHEEL and valid
 * entry points. */
static enum ts_code check_distinfo(const struct ts_zip_archive *a, const char *di,
                                   const char *fname, const char *fver, struct ts_buf *b,
                                   struct ts_record *rec, const struct ts_zip_entry **re,
                                   struct ts_error *err) {
  size_t dil = strlen(di);
  const char *dash = memchr(di, '-', dil - 10);
  if (!dash || !ts_name_eq(di, (size_t)(dash - di), fname, strlen(fname)) ||
      !versions_equal(dash + 1, dil - 10 - (size_t)(dash - di) - 1, fver,
                      strlen(fver)))
    return ts_error_set(err, TS_E_BAD_WHEEL,
                        "wheel's '%s' does not match its file name (%s %s)", di,
                        fname, fver);
  char rel[4096];
  snprintf(rel, sizeof rel, "%s/RECORD", di);
  *re = ts_zip_find(a, rel, strlen(rel));
  if (!*re)
    return ts_error_set(err, TS_E_BAD_WHEEL, "wheel has no %s", rel);
  enum ts_code rc = ts_zip_read_member(a, *re, b, err);
  if (rc == TS_OK)
    rc = ts_record_parse(b->data, b->len, rec, err);
  if (rc != TS_OK)
    return rc;
  snprintf(rel, sizeof rel, "%s/WHEEL", di);
  if (!ts_zip_find(a, rel, strlen(rel)))
    return ts_error_set(err, TS_E_BAD_WHEEL, "wheel has no %s", rel);
  snprintf(rel, sizeof rel, "%s/entry_points.txt", di);
  const struct ts_zip_entry *ep = ts_zip_find(a, rel, strlen(rel));
  if (ep) {
    struct ts_buf t;
    ts_buf_init(&t, TS_CAP_SMALL_FILE);
    rc = ts_zip_read_member(a, ep, &t, err);
    if (rc == TS_OK)
      rc = ts_wheel_check_entry_points(t.data, t.len, err);
    ts_buf_clear(&t);
  }
  return rc;
}

/* Scripts that would replace the environment's own files: .data/scripts/
 * and .data/data/bin/ (the scripts directory under the data root on
 * POSIX) with a protected name, and .data/data/pyvenv.cfg.  By name, so
 * the wheel is refused before anything is unpacked. */
static enum ts_code check_protected_scripts(const struct ts_zip_archive *a,
                                            const char *datadir, struct ts_error *err) {
  size_t ddl0 = strlen(datadir);
  for (size_t i = 0; i < a->count; i++) {
    const char *n = a->entries[i].name;
    if (strncmp(n, datadir, ddl0) != 0 || n[ddl0] != '/')
      continue;
    const char *sub = n + ddl0 + 1, *base = NULL;
    if (strncmp(sub, "scripts/", 8) == 0)
      base = sub + 8;
    else if (strncmp(sub, "data/bin/", 9) == 0)
      base = sub + 9;
    bool bad = strcmp(sub, "data/pyvenv.cfg") == 0 ||
               (base && ts_wheel_protected_script_name(base));
    if (bad)
      return ts_error_set(err, TS_E_UNSAFE_PATH,
                          "wheel member '%s' would replace the environment's own "
                          "interpreter, activate script or pyvenv.cfg", n);
  }
  return TS_OK;
}

/* Members: every file but RECORD and its signatures must be in RECORD,
 * with a sha256 and the right size; every RECORD row must name a member.
 * Fills plan->m, RECORD itself (re) last. */
static enum ts_code plan_members(const struct ts_zip_archive *a, const struct ts_record *rec,
                                 const struct ts_zip_entry *re, const char *di,
                                 const char *datadir, struct plan *plan,
                                 struct ts_error *err) {
  enum ts_code rc = TS_OK;
  plan->m = ts_xcalloc(a->count, sizeof *plan->m);
  bool *seen = ts_xcalloc(a->count, sizeof *seen);
  for (size_t i = 0; i < rec->count; i++) {
    struct ts_record_row *r = &rec->rows[i];
    if (is_record_like(r->path, di))
      continue;
    const struct ts_zip_entry *e = ts_zip_find(a, r->path, strlen(r->path));
    if (!e || ts_zip_entry_is_dir(e)) {
      rc = ts_error_set(err, TS_E_BAD_WHEEL,
                        "RECORD lists '%s', which is not in the wheel",
                        r->path);
      break;
    }
    size_t idx = (size_t)(e - a->entries);
    if (seen[idx]) {
      rc = ts_error_set(err, TS_E_BAD_WHEEL, "RECORD lists '%s' twice",
                        r->path);
      break;
    }
    seen[idx] = true;
    struct member *m = &plan->m[plan->n++];
    m->e = e;
    m->verify = true;
    if (!r->hash[0]) {
      rc = ts_error_set(err, TS_E_HASH, "RECORD has no hash for '%s'", r->path);
      break;
    }
    rc = ts_record_hash_sha256(r->hash, m->digest, err);
    if (rc != TS_OK) {
      ts_error_wrap(err, "'%s'", r->path);
      break;
    }
    char *endp;
    m->size = strtoull(r->size, &endp, 10);
    if (!r->size[0] || *endp || m->size != e->usize) {
      rc = ts_error_set(err, TS_E_HASH,
                        "RECORD size of '%s' (%s) differs from the archive "
                        "(%llu)",
                        r->path, r->size, (unsigned long long)e->usize);
      break;
    }
    uint32_t mode = ts_zip_entry_mode(e);
    m->exec = (mode & 0111) != 0;
    size_t ddl = strlen(datadir);
    if (strncmp(e->name, datadir, ddl) == 0 &&
        strncmp(e->name + ddl, "/scripts/", 9) == 0)
      m->exec = true;
    m->symlink = ts_zip_entry_is_symlink(e);
  }
  for (size_t i = 0; rc == TS_OK && i < a->count; i++) {
    const struct ts_zip_entry *e = &a->entries[i];
    if (seen[i] || ts_zip_entry_is_dir(e) || is_record_like(e->name, di))
      continue;
    rc = ts_error_set(err, TS_E_BAD_WHEEL,
                      "wheel member '%s' is not listed in RECORD", e->name);
  }
  free(seen);
  if (rc != TS_OK)
    return rc;
  /* RECORD itself goes into the cache too (load_tree reads it back). */
  struct member *rm = &plan->m[plan->n++];
  rm->e = re;
  rm->size = re->usize;
  return TS_OK;
}

/* Directories; a file may not also be a directory prefix ("a" and "a/b"),
 * which is also how a member would be written through a symlink.  Fills
 * plan->dirs, each once, parents first (also on error, for plan_free).
 * The names are walked sorted: the names under one directory are then
 * consecutive, so a name's directories that the previous name does not
 * share are exactly the ones not seen yet (torch: 639 directories, made
 * without sorting the 48,000 directory prefixes of its names). */
static enum ts_code plan_dirs(struct plan *plan, struct ts_error *err) {
  enum ts_code rc = TS_OK;
  char **files = ts_xreallocarray(NULL, plan->n ? plan->n : 1, sizeof *files);
  for (size_t i = 0; i < plan->n; i++)
    files[i] = (char *)plan->m[i].e->name;
  qsort(files, plan->n, sizeof *files, ts_strv_cmp);
  size_t ndirs = 0, adirs = 0;
  char **dirs = NULL;
  const char *prev = "";
  for (size_t i = 0; i < plan->n; i++) {
    const char *name = files[i];
    size_t shared = 0; /* the directories both names are in, with their '/' */
    for (size_t k = 0; prev[k] && prev[k] == name[k]; k++)
      if (name[k] == '/')
        shared = k + 1;
    for (const char *s = strchr(name + shared, '/'); s; s = strchr(s + 1, '/')) {
      if (ndirs == adirs) {
        adirs = adirs ? adirs * 2 : 64;
        dirs = ts_xrealloc(dirs, adirs * sizeof *dirs);
      }
      dirs[ndirs] = ts_xstrndup(name, (size_t)(s - name));
      if (rc == TS_OK && bsearch(&dirs[ndirs], files, plan->n, sizeof *files, ts_strv_cmp))
        rc = ts_error_set(err, TS_E_UNSAFE_PATH,
                          "wheel member '%s' is both a file and a directory", dirs[ndirs]);
      ndirs++;
    }
    prev = name;
  }
  plan->dirs = dirs;
  plan->ndirs = ndirs;
  free(files);
  return rc;
}

/* Symlinks: read their targets now, before anything is written. */
static enum ts_code read_symlinks(const struct ts_zip_archive *a, struct plan *plan,
                                  const char *datadir, struct ts_error *err) {
  for (size_t i = 0; i < plan->n; i++) {
    struct member *m = &plan->m[i];
    if (!m->symlink)
      continue;
    if (m->e->usize > SYMLINK_MAX)
      return ts_error_set(err, TS_E_UNSAFE_PATH,
                          "wheel symlink '%s' has a %llu-byte target",
                          m->e->name, (unsigned long long)m->e->usize);
    struct ts_buf t;
    ts_buf_init(&t, SYMLINK_MAX);
    enum ts_code rc = ts_zip_read_member(a, m->e, &t, err);
    if (rc == TS_OK) {
      uint8_t d[32];
      ts_sha256(t.data, t.len, d);
      if (memcmp(d, m->digest, 32) != 0)
        rc = ts_error_set(err, TS_E_HASH,
                          "RECORD hash of '%s' does not match the archive",
                          m->e->name);
    }
    if (rc == TS_OK)
      rc = check_symlink(m->e->name, t.data, t.len, datadir, err);
    if (rc == TS_OK)
      m->link_target = ts_buf_take(&t, NULL);
    else
      ts_buf_clear(&t);
    if (rc != TS_OK)
      return rc;
  }
  return TS_OK;
}

/* Everything about the archive checked before anything is written: its
 * members and their sizes, the dist-info, RECORD against the members,
 * scripts, directories and symlink targets; fills plan. */
static enum ts_code validate(const struct ts_zip_archive *a,
                             const struct ts_wheel_options *o,
                             const char *fname, const char *fver,
                             struct plan *plan, struct ts_error *err) {
  memset(plan, 0, sizeof *plan);
  const char *distinfo = NULL;
  size_t dil = 0;
  enum ts_code rc = scan_members(a, o, &distinfo, &dil, err);
  if (rc != TS_OK)
    return rc;
  char *di = ts_xstrndup(distinfo, dil);
  char *datadir = ts_xstrndup(distinfo, dil - 10 + 5);
  memcpy(datadir + dil - 10, ".data", 6);
  struct ts_record rec = {0};
  const struct ts_zip_entry *re = NULL;
  struct ts_buf b;
  ts_buf_init(&b, TS_CAP_RECORD);
  rc = check_distinfo(a, di, fname, fver, &b, &rec, &re, err);
  if (rc == TS_OK)
    rc = check_protected_scripts(a, datadir, err);
  if (rc == TS_OK)
    rc = plan_members(a, &rec, re, di, datadir, plan, err);
  if (rc == TS_OK)
    rc = plan_dirs(plan, err);
  if (rc == TS_OK)
    rc = read_symlinks(a, plan, datadir, err);
  ts_buf_clear(&b);
  plan->rec = rec;
  plan->distinfo = di;
  free(datadir);
  if (rc != TS_OK)
    plan_free(plan);
  return rc;
}

/* ---- parallel extraction ------------------------------------------- */

/* One file to write: a member of the plan, new at an absolute path whose
 * directory exists. */
struct extract_item {
  const struct member *m;
  const char *path;
};

/* What a worker takes at a time: items [start, end), either one large
 * file or every small file of one directory. */
struct extract_unit {
  size_t start, end;
};

struct extract_job {
  const struct ts_zip_archive *a;
  const struct extract_item *items;
  const struct extract_unit *units; /* the large files first, largest
                                       first; then the directories, the
                                       most files first */
  size_t nunits;
  atomic_size_t next;
  atomic_bool failed;
  const volatile sig_atomic_t *cancel;
  pthread_mutex_t mu;
  enum ts_code rc;
  struct ts_error err;
};

struct file_sink {
  int fd;
  struct ts_sha256 *sha;
  const char *name;
};

static enum ts_code file_sink_write(void *ctx, const void *data, size_t len,
                                    struct ts_error *err) {
  struct file_sink *s = ctx;
  ts_sha256_update(s->sha, data, len);
  const char *p = data;
  while (len) {
    ssize_t k = write(s->fd, p, len);
    if (k < 0 && errno == EINTR)
      continue;
    if (k < 0)
      return ts_error_set(err, TS_E_IO, "cannot write '%s': %s", s->name,
                          strerror(errno));
    p += k;
    len -= (size_t)k;
  }
  return TS_OK;
}

static void job_fail(struct extract_job *j, const struct ts_error *e) {
  pthread_mutex_lock(&j->mu);
  if (j->rc == TS_OK) {
    j->rc = e->code;
    j->err = *e;
  }
  pthread_mutex_unlock(&j->mu);
  atomic_store(&j->failed, true);
}

/* Members up to this size are inflated whole (libdeflate, ~2x zlib's
 * pace) into a buffer of their size; larger ones stream through zlib in
 * zip.c's 256 KiB pieces.  The input comes from the archive's mapping, so
 * only the output needs memory, and its first touch is the cost: a torch
 * wheel's two 23 MB libraries inflated whole made each worker fault in and
 * zero 23 MB (9% of the install's CPU in a profile, 40 MB more peak
 * memory) to save less than that in inflate time. */
#define WHOLE_MEMBER_MAX (4u << 20)
/* Members this large are handed out one at a time, largest first, so
 * that no worker is left with a big one at the end; the small ones go out
 * a directory at a time.  Two threads creating files in one directory
 * serialise on its inode lock and the waiter spins for it: in a profile
 * of the torch install with runs of 16 files handed out in turn, 17% of
 * all samples were that spinning (rwsem_spin_on_owner under openat). */
#define LARGE_MEMBER (256u << 10)

/* The directory of `path` (made, with its parents, when the caller left
 * that to the worker), as ts_wheel_dir_cache_get gives it. */
static int item_dir(struct ts_wheel_dir_cache *dc, const char *path, const char **base) {
  int dfd = ts_wheel_dir_cache_get(dc, path, base);
  if (dfd >= 0 || errno != ENOENT)
    return dfd;
  char *dir = ts_xstrndup(path, (size_t)(*base - 1 - path));
  struct ts_error ignored = {0};
  enum ts_code rc = ts_fs_mkdirs(dir, &ignored);
  free(dir);
  return rc == TS_OK ? ts_wheel_dir_cache_get(dc, path, base) : -1;
}

/* Creates it->path (O_EXCL: never through anything already there) and
 * fills it from the archive, its sha256 checked against RECORD in the same
 * pass; a symlink gets its checked target. */
static enum ts_code write_item(const struct extract_job *j, const struct extract_item *it,
                               struct ts_wheel_dir_cache *dc, struct ts_zip_scratch *sc,
                               struct ts_sha256 *sha, struct ts_error *err) {
  const struct member *m = it->m;
  const char *base;
  int dfd = item_dir(dc, it->path, &base);
  if (dfd < 0)
    return ts_error_set(err, TS_E_IO, "cannot open the directory of '%s': %s", it->path,
                        strerror(errno));
  if (m->symlink) {
    if (symlinkat(m->link_target, dfd, base) != 0)
      return ts_error_set(err, TS_E_IO, "cannot create symlink '%s': %s", it->path,
                          strerror(errno));
    return TS_OK;
  }
  int fd = openat(dfd, base, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC,
                  m->exec ? 0755 : 0644);
  if (fd < 0)
    return ts_error_set(err, TS_E_IO, "cannot create '%s': %s", it->path, strerror(errno));
  ts_sha256_reset(sha);
  struct file_sink s = {.fd = fd, .sha = sha, .name = it->path};
  enum ts_code rc = ts_zip_extract(j->a, m->e, sc, file_sink_write, &s, err);
  if (close(fd) != 0 && rc == TS_OK)
    rc = ts_error_set(err, TS_E_IO, "cannot write '%s': %s", it->path, strerror(errno));
  if (rc == TS_OK && m->verify) {
    uint8_t d[32];
    ts_sha256_final(sha, d);
    if (memcmp(d, m->digest, 32) != 0)
      rc = ts_error_set(err, TS_E_HASH,
                        "RECORD hash of '%s' does not match the archive: "
                        "the wheel was altered",
                        m->e->name);
  }
  return rc;
}

/* The next unit a worker takes: items [*k0, *k1); false when none is left. */
static bool claim_items(struct extract_job *j, size_t *k0, size_t *k1) {
  size_t u = atomic_fetch_add(&j->next, 1);
  if (u >= j->nunits)
    return false;
  *k0 = j->units[u].start;
  *k1 = j->units[u].end;
  return true;
}

static void *extract_worker(void *arg) {
  struct extract_job *j = arg;
  struct ts_zip_scratch sc = {.whole_max = WHOLE_MEMBER_MAX};
  struct ts_sha256 *sha = ts_sha256_new();
  struct ts_wheel_dir_cache dc = {.fd = -1};
  struct ts_error err = {0};
  size_t k0, k1;
  while (!atomic_load(&j->failed) && claim_items(j, &k0, &k1)) {
    if (j->cancel && *j->cancel) {
      ts_error_set(&err, TS_E_INTERRUPTED, "interrupted while unpacking");
      job_fail(j, &err);
      break;
    }
    for (size_t k = k0; k < k1; k++) {
      if (write_item(j, &j->items[k], &dc, &sc, sha, &err) != TS_OK) {
        job_fail(j, &err);
        break;
      }
    }
  }
  ts_wheel_dir_cache_close(&dc);
  ts_sha256_free(sha);
  ts_zip_scratch_clear(&sc);
  return NULL;
}

static int cmp_item_size(const void *x, const void *y) {
  const struct extract_item *a = x, *b = y;
  uint64_t sa = a->m->e->csize + a->m->e->usize, sb = b->m->e->csize + b->m->e->usize;
  return sa > sb ? -1 : sa < sb;
}

static unsigned worker_count(const struct ts_wheel_options *o, size_t n) {
  long cpus = sysconf(_SC_NPROCESSORS_ONLN);
  unsigned t = o->threads ? o->threads : (unsigned)(cpus > 0 ? cpus : 1);
  if (t > MAX_THREADS)
    t = MAX_THREADS;
  if (t > n)
    t = n ? (unsigned)n : 1;
  return t;
}

static size_t dir_len(const char *path) {
  const char *slash = strrchr(path, '/');
  return slash ? (size_t)(slash - path) : 0;
}

static int cmp_unit_len(const void *x, const void *y) {
  const struct extract_unit *a = x, *b = y;
  size_t la = a->end - a->start, lb = b->end - b->start;
  if (la != lb)
    return la > lb ? -1 : 1;
  return a->start > b->start ? 1 : a->start < b->start ? -1 : 0;
}

/* Splits items (reordered: the large ones first, largest first) into
 * units: each large file alone, then each run of consecutive small files
 * sharing a directory (the callers give a directory's files together),
 * the longest runs first so that the short ones even out the end.
 * Returns the number of units; *sorted and *units are the caller's. */
static size_t plan_units(const struct extract_item *items, size_t n,
                         struct extract_item **sorted_out, struct extract_unit **units_out) {
  struct extract_item *sorted = ts_xreallocarray(NULL, n ? n : 1, sizeof *sorted);
  struct extract_unit *units = ts_xreallocarray(NULL, n ? n : 1, sizeof *units);
  size_t nlarge = 0, nsmall = 0, nunits = 0;
  for (size_t i = 0; i < n; i++)
    if (items[i].m->e->usize >= LARGE_MEMBER)
      sorted[nlarge++] = items[i];
  for (size_t i = 0; i < n; i++)
    if (items[i].m->e->usize < LARGE_MEMBER)
      sorted[nlarge + nsmall++] = items[i];
  qsort(sorted, nlarge, sizeof *sorted, cmp_item_size);
  for (size_t i = 0; i < nlarge; i++)
    units[nunits++] = (struct extract_unit){i, i + 1};
  size_t first_dir_unit = nunits;
  for (size_t i = nlarge; i < n;) {
    size_t dl = dir_len(sorted[i].path), k = i + 1;
    while (k < n && dir_len(sorted[k].path) == dl &&
           memcmp(sorted[k].path, sorted[i].path, dl) == 0)
      k++;
    units[nunits++] = (struct extract_unit){i, k};
    i = k;
  }
  qsort(units + first_dir_unit, nunits - first_dir_unit, sizeof *units, cmp_unit_len);
  *sorted_out = sorted;
  *units_out = units;
  return nunits;
}

/* Writes the n items with a worker per core; on error some may have been
 * written. */
static enum ts_code extract_items(const struct ts_zip_archive *a, struct extract_item *items,
                                  size_t n, const struct ts_wheel_options *o,
                                  struct ts_error *err) {
  struct extract_item *sorted;
  struct extract_unit *units;
  size_t nunits = plan_units(items, n, &sorted, &units);
  struct extract_job j = {.a = a, .items = sorted, .units = units, .nunits = nunits,
                          .rc = TS_OK, .cancel = o->cancel};
  atomic_init(&j.next, 0);
  atomic_init(&j.failed, false);
  pthread_mutex_init(&j.mu, NULL);
  unsigned nt = worker_count(o, nunits);
  pthread_t th[MAX_THREADS];
  unsigned started = 0;
  for (unsigned t = 1; t < nt; t++)
    if (pthread_create(&th[started], NULL, extract_worker, &j) == 0)
      started++;
  extract_worker(&j);
  for (unsigned t = 0; t < started; t++)
    pthread_join(th[t], NULL);
  pthread_mutex_destroy(&j.mu);
  free(units);
  free(sorted);
  if (j.rc != TS_OK && err)
    *err = j.err;
  return j.rc;
}

/* The whole plan into the new directory `dir`. */
static enum ts_code extract_all(const struct ts_zip_archive *a,
                                const struct plan *plan, const char *dir,
                                const struct ts_wheel_options *o,
                                struct ts_error *err) {
  int dirfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (dirfd < 0)
    return ts_error_set(err, TS_E_IO, "cannot open '%s': %s", dir,
                        strerror(errno));
  for (size_t i = 0; i < plan->ndirs; i++) {
    if (mkdirat(dirfd, plan->dirs[i], 0755) != 0 && errno != EEXIST) {
      int e = errno;
      close(dirfd);
      return ts_error_set(err, TS_E_IO, "cannot create '%s/%s': %s", dir,
                          plan->dirs[i], strerror(e));
    }
  }
  close(dirfd);
  struct extract_item *items = ts_xreallocarray(NULL, plan->n ? plan->n : 1, sizeof *items);
  for (size_t i = 0; i < plan->n; i++)
    items[i] = (struct extract_item){&plan->m[i], ts_path_join(dir, plan->m[i].e->name)};
  enum ts_code rc = extract_items(a, items, plan->n, o, err);
  for (size_t i = 0; i < plan->n; i++)
    free((char *)items[i].path);
  free(items);
  return rc;
}

/* ---- the wheel's own sha256 ------------------------------------- */

/* The wheel is hashed from pread chunks, not from the archive's mapping:
 * on a paravirtualised VM (this project's CI kind) every first touch of a
 * mapped 4 KiB page costs a fault and a shadow page-table fill, and hashing
 * a 36 MB torch wheel in place took 66-82 ms against 30-39 ms through one
 * reused buffer filled by pread (core/filehash.c). */
struct hash_job {
  int fd;
  const char *path;
  uint8_t sha[32];
  enum ts_code rc;
  struct ts_error err;
};

static void *hash_worker(void *arg) {
  struct hash_job *h = arg;
  h->rc = ts_filehash_fd(h->fd, h->path, h->sha, NULL, &h->err);
  return NULL;
}

/* The wheel's own sha256 from the hasher started while it was validated,
 * into out. */
static enum ts_code join_hasher(pthread_t hasher, struct hash_job *hj,
                                struct ts_unpacked *out, struct ts_error *err) {
  pthread_join(hasher, NULL);
  if (hj->rc != TS_OK) {
    *err = hj->err;
    return hj->rc;
  }
  memcpy(out->sha256, hj->sha, 32);
  return TS_OK;
}

/* ---- a wheel installed without an unpacked tree -------------------- */

struct ts_unpack_source {
  int fd;
  struct ts_zip_archive *a;
  struct plan plan;
  /* the wheel's hash, still being computed when `hashing` (the installer
   * needs it only for the files it writes last), and where to remember it */
  bool hashing;
  pthread_t hasher;
  struct hash_job *hj;
  char *memo, *keyfile;
};

static void source_free(struct ts_unpack_source *s) {
  if (!s)
    return;
  if (s->hashing)
    pthread_join(s->hasher, NULL);
  free(s->hj);
  free(s->memo);
  free(s->keyfile);
  plan_free(&s->plan);
  ts_zip_close(s->a);
  if (s->fd >= 0)
    close(s->fd);
  free(s);
}

enum ts_code ts_unpacked_extract(const struct ts_unpacked *u, const struct ts_unpack_dest *d,
                                 size_t n, const struct ts_wheel_options *o,
                                 struct ts_error *err) {
  const struct ts_unpack_source *s = u->source;
  struct extract_item *items = ts_xreallocarray(NULL, n ? n : 1, sizeof *items);
  for (size_t i = 0; i < n; i++)
    items[i] = (struct extract_item){&s->plan.m[d[i].file], d[i].path};
  enum ts_code rc = extract_items(s->a, items, n, o, err);
  free(items);
  return rc;
}

enum ts_code ts_unpacked_read_file(const struct ts_unpacked *u, size_t file, size_t cap,
                                   struct ts_buf *out, struct ts_error *err) {
  const struct member *m = &u->source->plan.m[file];
  ts_buf_init(out, cap);
  enum ts_code rc = ts_zip_read_member(u->source->a, m->e, out, err);
  uint8_t d[32];
  if (rc == TS_OK)
    ts_sha256(out->data ? out->data : "", out->len, d);
  if (rc == TS_OK && memcmp(d, m->digest, 32) != 0)
    rc = ts_error_set(err, TS_E_HASH,
                      "RECORD hash of '%s' does not match the archive: "
                      "the wheel was altered",
                      m->e->name);
  if (rc != TS_OK)
    ts_buf_clear(out);
  return rc;
}

enum ts_code ts_unpacked_finish(struct ts_unpacked *u, struct ts_error *err) {
  struct ts_unpack_source *s = u->source;
  enum ts_code rc = TS_OK;
  if (s && s->hashing) {
    s->hashing = false;
    rc = join_hasher(s->hasher, s->hj, u, err);
  }
  if (rc == TS_OK && s && s->keyfile) { /* the next install of it makes a tree */
    ts_filehash_memo_write(s->memo, s->keyfile, u->sha256);
    free(s->keyfile);
    s->keyfile = NULL;
  }
  return rc;
}

/* The stat memo's entry of the wheel at path (*memo, *keyfile: where to
 * write it): true when some earlier run hashed this very file, whose
 * sha256 then goes into out unless *known already. */
static bool read_memo(const char *cache, const char *path, const struct stat *st, char **memo,
                      char **keyfile, struct ts_unpacked *out, bool *known) {
  *memo = ts_filehash_memo_dir(cache);
  *keyfile = ts_filehash_memo_key(*memo, path, st);
  uint8_t sha[32];
  if (!ts_filehash_memo_read(*keyfile, sha))
    return false;
  if (!*known)
    memcpy(out->sha256, sha, 32);
  *known = true;
  return true;
}

/* out from the validated archive instead of a tree: its files in RECORD's
 * order are the plan's members (plan_members), which stay with out for
 * ts_unpacked_extract, as do the hasher (when *hashing) and the memo
 * entry to write once it is done. */
static enum ts_code load_source(struct ts_unpacked *out, const char *fname, const char *fver,
                                int *fd, struct ts_zip_archive **a, struct plan *plan,
                                bool *hashing, pthread_t hasher, struct hash_job **hj,
                                char **memo, char **keyfile, struct ts_error *err) {
  out->distinfo = ts_xstrdup(plan->distinfo);
  enum ts_code rc = load_distinfo(out, fname, fver, read_archive_file, *a, false, err);
  if (rc != TS_OK)
    return rc;
  take_files(out, &plan->rec);
  struct ts_unpack_source *s = ts_xcalloc(1, sizeof *s);
  s->fd = *fd;
  s->a = *a;
  s->plan = *plan;
  s->hashing = *hashing;
  s->hasher = hasher;
  s->hj = *hj;
  *hj = NULL;
  s->memo = *memo;
  s->keyfile = *keyfile;
  *fd = -1;
  *a = NULL;
  memset(plan, 0, sizeof *plan);
  *hashing = false;
  *memo = *keyfile = NULL;
  out->source = s;
  return TS_OK;
}

/* ---- entry point ---------------------------------------------------- */

/* Unpacks killed midway leave .tmp-* directories; an hour is far longer
 * than any unpack, so older ones are garbage. */
static void sweep_stale(const char *root) {
  DIR *d = opendir(root);
  if (!d)
    return;
  struct dirent *de;
  time_t now = time(NULL);
  while ((de = readdir(d))) {
    if (strncmp(de->d_name, ".tmp-", 5) != 0)
      continue;
    char *p = ts_path_join(root, de->d_name);
    struct stat st;
    if (lstat(p, &st) == 0 && now - st.st_mtime > STALE_TMP_S)
      ts_fs_remove_tree(p, NULL);
    free(p);
  }
  closedir(d);
}

static void notice_newer(const struct ts_wheel_options *o, const struct ts_wheel_request *w,
                         const struct ts_unpacked *u) {
  if (u->newer_minor && o->cb.notice)
    o->cb.notice(o->cb.ctx, w->path, "its WHEEL says a newer Wheel-Version than 1.0; "
                 "installed as 1.0 describes");
}

/* A tree unpacked earlier, loaded into *out when it passes its check
 * (true; out->dir takes `final`).  Otherwise (false) it is dropped, the
 * caller told, and *out left empty. */
static bool reuse_tree(const struct ts_wheel_options *o, const struct ts_wheel_request *w,
                       const char *root, char *final, const char *fname, const char *fver,
                       struct ts_unpacked *out) {
  out->dir = final;
  char why[TS_ERROR_DETAIL_MAX];
  struct ts_error lerr = {0};
  enum ts_code rc = ts_unpacked_load(out, fname, fver, &lerr);
  if (rc == TS_OK &&
      ts_unpacked_tree_intact(out, o->verify_cache ? TS_TREE_FULL : TS_TREE_SAMPLE, why,
                              sizeof why)) {
    if (o->cb.unpacked)
      o->cb.unpacked(o->cb.ctx, w->path, true);
    notice_newer(o, w, out);
    return true;
  }
  if (rc != TS_OK)
    snprintf(why, sizeof why, "%s", lerr.detail);
  out->dir = NULL; /* still the caller's */
  ts_unpacked_clear(out);
  if (o->cb.cache_damaged)
    o->cb.cache_damaged(o->cb.ctx, w->path, why);
  ts_unpacked_tree_drop(root, final, NULL);
  return false;
}

/* Hands out the extracted tree *tmp: as it is under --no-cache, else
 * stamped and renamed to its content's name in the cache (*final, made
 * when NULL) — or, when the same bytes were unpacked there already (a copy
 * of the file, or a concurrent run), that tree if it passes its check
 * (*loaded: out is loaded, ours removed), else ours replaces it. */
static enum ts_code finish_tree(const struct ts_wheel_options *o,
                                const struct ts_wheel_request *w, const char *root,
                                char **tmp, char **final, const char *fname,
                                const char *fver, struct ts_unpacked *out, bool *loaded,
                                struct ts_error *err) {
  if (o->no_cache) {
    out->dir = *tmp;
    out->temporary = true;
    *tmp = NULL;
    return TS_OK;
  }
  if (!*final) {
    char hex[TS_SHA256_HEX_LEN + 1];
    ts_sha256_hex(out->sha256, hex);
    *final = ts_path_join(root, hex);
  }
  ts_unpacked_tree_stamp(*tmp);
  if (rename(*tmp, *final) != 0) {
    enum ts_code rc = TS_OK;
    if (errno != EEXIST && errno != ENOTEMPTY) {
      rc = ts_error_set(err, TS_E_IO, "cannot move '%s' into place: %s",
                        *tmp, strerror(errno));
      ts_fs_remove_tree(*tmp, NULL);
      return rc;
    }
    if (reuse_tree(o, w, root, *final, fname, fver, out)) {
      *final = NULL;
      ts_fs_remove_tree(*tmp, NULL);
      *loaded = true;
      return TS_OK;
    }
    if (rename(*tmp, *final) != 0) {
      rc = ts_error_set(err, TS_E_IO, "cannot move '%s' into place: %s",
                        *tmp, strerror(errno));
      ts_fs_remove_tree(*tmp, NULL);
      return rc;
    }
  }
  out->dir = *final;
  *final = NULL;
  return TS_OK;
}

enum ts_code ts_unpack(const struct ts_wheel_options *o,
                       const struct ts_wheel_request *w, bool direct,
                       struct ts_unpacked *out, struct ts_error *err) {
  memset(out, 0, sizeof *out);
  char *fname = NULL, *fver = NULL, *cache = NULL, *root = NULL, *tmp = NULL;
  char *final = NULL, *keyfile = NULL, *memo = NULL;
  struct ts_zip_archive *a = NULL;
  struct plan plan = {0};
  struct hash_job *hj = ts_xcalloc(1, sizeof *hj); /* the hasher's, till joined */
  pthread_t hasher;
  bool hashing = false, known = false;
  int fd = -1;
  struct stat st;
  enum ts_code rc = ts_wheel_parse_filename(w->path, &fname, &fver, err);
  if (rc != TS_OK)
    goto out;
  fd = open(w->path, O_RDONLY | O_CLOEXEC);
  if (fd < 0 || fstat(fd, &st) != 0) {
    rc = ts_error_set(err, errno == ENOENT ? TS_E_NOT_FOUND : TS_E_IO,
                      "cannot open '%s': %s", w->path, strerror(errno));
    goto out;
  }
  if (o->no_cache) { /* --no-cache: nothing under the cache, pip's temp dir */
    root = ts_xstrdup(ts_fs_temp_dir());
  } else {
    cache = o->cache_dir ? ts_xstrdup(o->cache_dir)
                         : ts_cache_root_dir();
    root = ts_path_join(cache, "wheels-v1");
    ts_cache_root_prepare(cache); /* marks a root we create */
  }
  if (w->sha256) {
    memcpy(out->sha256, w->sha256, 32);
    known = true;
  }
  if (!o->no_cache && (!known || direct) &&
      read_memo(cache, w->path, &st, &memo, &keyfile, out, &known))
    direct = false; /* installed before: from now on worth a tree */
  char hex[TS_SHA256_HEX_LEN + 1];
  if (known && !o->no_cache) {
    ts_sha256_hex(out->sha256, hex);
    final = ts_path_join(root, hex);
    struct stat fst;
    if (stat(final, &fst) == 0 && S_ISDIR(fst.st_mode)) {
      if (reuse_tree(o, w, root, final, fname, fver, out)) {
        final = NULL; /* out->dir now */
        goto out;
      }
      /* damaged: dropped, unpacked again below */
    }
  }
  rc = ts_zip_open_fd(fd, &a, err);
  if (rc != TS_OK)
    goto out;
  if (!known) { /* hash while validating and extracting: the key is only
                   needed to name the finished directory */
    hj->fd = fd;
    hj->path = w->path;
    hashing = pthread_create(&hasher, NULL, hash_worker, hj) == 0;
    if (!hashing) {
      hash_worker(hj);
      if ((rc = hj->rc) != TS_OK) {
        *err = hj->err;
        goto out;
      }
      memcpy(out->sha256, hj->sha, 32);
    }
  }
  rc = validate(a, o, fname, fver, &plan, err);
  if (rc == TS_OK && direct) { /* no tree: the installer extracts */
    rc = load_source(out, fname, fver, &fd, &a, &plan, &hashing, hasher, &hj, &memo,
                     &keyfile, err);
    if (rc == TS_OK && o->cb.unpacked)
      o->cb.unpacked(o->cb.ctx, w->path, false);
    if (rc == TS_OK)
      notice_newer(o, w, out);
    goto out;
  }
  if (rc == TS_OK && !o->no_cache)
    rc = ts_fs_mkdirs(root, err);
  if (rc != TS_OK)
    goto out;
  if (!o->no_cache) {
    ts_fs_spread_subdirs(root);
    sweep_stale(root);
  }
  tmp = ts_path_join(root, o->no_cache ? "torchsolve-unpack-XXXXXX" : ".tmp-XXXXXX");
  if (!mkdtemp(tmp)) {
    rc = ts_error_set(err, TS_E_IO, "cannot create a directory in '%s': %s",
                      root, strerror(errno));
    free(tmp);
    tmp = NULL;
    goto out;
  }
  rc = extract_all(a, &plan, tmp, o, err);
  if (hashing) {
    hashing = false;
    struct ts_error herr = {0};
    enum ts_code hrc = join_hasher(hasher, hj, out, &herr);
    if (rc == TS_OK && hrc != TS_OK) {
      rc = hrc;
      *err = herr;
    }
  }
  if (rc != TS_OK) {
    ts_fs_remove_tree(tmp, NULL);
    goto out;
  }
  bool loaded = false;
  rc = finish_tree(o, w, root, &tmp, &final, fname, fver, out, &loaded, err);
  if (rc != TS_OK || loaded)
    goto out;
  if (keyfile)
    ts_filehash_memo_write(memo, keyfile, out->sha256);
  rc = ts_unpacked_load(out, fname, fver, err);
  if (rc == TS_OK && o->cb.unpacked)
    o->cb.unpacked(o->cb.ctx, w->path, false);
  if (rc == TS_OK)
    notice_newer(o, w, out);
out:
  if (hashing)
    pthread_join(hasher, NULL);
  if (rc != TS_OK)
    ts_unpacked_clear(out);
  plan_free(&plan);
  ts_zip_close(a);
  if (fd >= 0)
    close(fd);
  free(hj);
  free(tmp);
  free(final);
  free(keyfile);
  free(memo);
  free(fname);
  free(fver);
  free(cache);
  free(root);
  return rc;
}

/* Whether entry_points.txt declares a console or GUI script `name`. */
static bool declares_script(const struct ts_unpacked *u, const char *name, size_t nlen) {
  const char *text = u->entry_points;
  size_t len = text ? u->entry_points_len : 0, i = 0;
  bool on = false;
  while (i < len) {
    size_t e = i;
    while (e < len && text[e] != '\n')
      e++;
    while (i < e && (text[i] == ' ' || text[i] == '\t'))
      i++;
    const char *line = text + i;
    size_t ll = e - i;
    if (ll && line[0] == '[') {
      on = (ll >= 17 && memcmp(line, "[console_scripts]", 17) == 0) ||
           (ll >= 13 && memcmp(line, "[gui_scripts]", 13) == 0);
    } else if (on) {
      size_t k = 0;
      while (k < ll && line[k] != '=')
        k++;
      size_t ke = k;
      while (ke > 0 && (line[ke - 1] == ' ' || line[ke - 1] == '\t'))
        ke--;
      if (k < ll && ke == nlen && memcmp(line, name, nlen) == 0)
        return true;
    }
    i = e + 1;
  }
  return false;
}

bool ts_unpacked_is_entry_point_wrapper(const struct ts_unpacked *u, const char *rel) {
  const char *b = strrchr(rel, '/') ? strrchr(rel, '/') + 1 : rel;
  size_t n = strlen(b);
  static const char *const tails[] = {".exe", "-script.py", ".pya"};
  for (size_t i = 0; i < sizeof tails / sizeof tails[0]; i++) {
    size_t t = strlen(tails[i]);
    if (n > t && strcasecmp(b + n - t, tails[i]) == 0)
      return declares_script(u, b, n - t);
  }
  return declares_script(u, b, n);
}
