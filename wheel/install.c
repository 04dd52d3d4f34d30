#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/fs.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/alloc.h"
#include "core/buf.h"
#include "core/fs.h"
#include "core/proc.h"
#include "core/sha256.h"
#include "core/str.h"
#include "core/text.h"
#include "pep/filename.h"
#include "variant/label.h"
#include "pep/name.h"
#include "target/site.h"
#include "wheel/owners.h"
#include "wheel/place.h"
#include "wheel/record.h"
#include "wheel/scripts.h"
#include "wheel/strset.h"
#include "wheel/txn.h"
#include "wheel/unpack.h"
#include "wheel/wheel.h"


#define MAX_ROOTS 16
#define TS_CAP_SCRIPT (64u * 1024 * 1024)
/* pip's launchers (distlib) wrap a longer interpreter path in /bin/sh:
 * 127 bytes was the kernel's #! line limit. */
#define SHEBANG_MAX 127
/* What the byte-compiling interpreter may print (one line per file). */
#define COMPILE_OUTPUT_CAP (256u << 20)

static bool has_prefix_dir(const char *path, const char *dir) {
  size_t n = strlen(dir);
  return strncmp(path, dir, n) == 0 && (path[n] == '/' || path[n] == '\0');
}

/* Lexical normalisation of an absolute path: collapses '//', '.', '..'. */
static char *normalize(const char *path) {
  size_t n = strlen(path);
  char *out = ts_xmalloc(n + 2);
  size_t o = 0;
  const char *p = path;
  while (*p) {
    while (*p == '/')
      p++;
    if (!*p)
      break;
    const char *s = strchr(p, '/');
    size_t cl = s ? (size_t)(s - p) : strlen(p);
    if (cl == 1 && p[0] == '.') {
      /* skip */
    } else if (cl == 2 && p[0] == '.' && p[1] == '.') {
      while (o > 0 && out[o - 1] != '/')
        o--;
      if (o > 0)
        o--;
    } else {
      out[o++] = '/';
      memcpy(out + o, p, cl);
      o += cl;
    }
    p += cl;
  }
  if (o == 0)
    out[o++] = '/';
  out[o] = '\0';
  return out;
}

/* Relative path from directory `from` to `to` (both normalised, absolute). */
static char *relpath(const char *from, const char *to) {
  size_t i = 0, common = 0;
  for (;; i++) {
    if ((from[i] == '/' || from[i] == '\0') && (to[i] == '/' || to[i] == '\0'))
      common = i;
    if (from[i] == '\0' || to[i] == '\0' || from[i] != to[i])
      break;
  }
  if (from[i] == '\0' && to[i] == '/')
    common = i;
  else if (from[i] == '\0' && to[i] == '\0')
    return ts_xstrdup(".");
  size_t ups = 0;
  for (const char *p = from + common; *p; p++)
    if (*p == '/' && p[1])
      ups++;
  if (from[common] == '\0')
    ups = 0;
  struct ts_buf b;
  ts_buf_init(&b, 0);
  for (size_t k = 0; k < ups; k++)
    ts_buf_xappend_str(&b, "../");
  const char *rest = to + common;
  while (*rest == '/')
    rest++;
  ts_buf_xappend_str(&b, rest);
  return ts_buf_take(&b, NULL);
}

/* ---- the plan ------------------------------------------------------- */

struct newfile {
  char *src;       /* file in the unpacked tree still to be placed, or NULL */
  bool extract;    /* to be written from its wheel's archive (no tree) */
  size_t file;     /* then: its index in the wheel's ts_unpacked files */
  char *dest;      /* absolute */
  char *staged;    /* absolute, under txn new/ */
  size_t root;
  size_t dist;
  char *hash;      /* "sha256=…" */
  uint64_t size;
  bool py;         /* a .py under a library root: compile candidate */
};

struct dist {
  struct ts_unpacked u;
  const struct ts_wheel_request *req;
  char *libroot;   /* purelib or platlib */
  char *old_version;
};

struct installer {
  const struct ts_wheel_options *o;
  struct ts_wheel_paths p;   /* normalised copies */
  struct ts_txn txn;
  char *roots[MAX_ROOTS];
  size_t nroots;
  struct newfile *files;
  size_t nfiles, afiles;
  struct ts_strset dests;
  struct ts_strset backups;
  struct ts_strset staged_dirs;
  struct ts_strset prune;
  struct ts_wheel_result *res;
  struct ts_site site; /* the installed set, read once the lock is held */
  bool have_site;
  /* dist-info directories this transaction removes (replaced versions and
   * o->remove), in the order found */
  char **removing;
  size_t nremoving;
  struct ts_strset removing_set;
  struct ts_owners owners;   /* of the distributions that stay */
  const struct dist *dists;  /* the wheels being installed */
  size_t ndists;
};

static size_t root_index(struct installer *in, const char *root) {
  for (size_t i = 0; i < in->nroots; i++)
    if (strcmp(in->roots[i], root) == 0)
      return i;
  if (in->nroots == MAX_ROOTS)
    abort();
  in->roots[in->nroots] = ts_xstrdup(root);
  return in->nroots++;
}

static void result_add(struct ts_wheel_result *r, const char *name,
                       const char *oldv, const char *newv) {
  if (!r)
    return;
  struct ts_wheel_change *c = ts_xreallocarray(r->changes, r->count + 1, sizeof *c);
  r->changes = c;
  c[r->count++] = (struct ts_wheel_change){
      ts_xstrdup(name), oldv ? ts_xstrdup(oldv) : NULL, newv ? ts_xstrdup(newv) : NULL};
}

void ts_wheel_result_clear(struct ts_wheel_result *r) {
  if (!r)
    return;
  for (size_t i = 0; i < r->count; i++) {
    free(r->changes[i].name);
    free(r->changes[i].old_version);
    free(r->changes[i].new_version);
  }
  free(r->changes);
  memset(r, 0, sizeof *r);
}

/* Creates the staged parents of `staged` (inside new/). */
static enum ts_code stage_parents(struct installer *in, const char *staged,
                                  struct ts_error *err) {
  char *d = ts_xstrdup(staged);
  char *slash = strrchr(d, '/');
  *slash = '\0';
  if (ts_strset_has(&in->staged_dirs, d)) {
    free(d);
    return TS_OK;
  }
  size_t base = strlen(in->txn.new_dir);
  for (char *s = d + base + 1;; s++) {
    if (*s != '/' && *s != '\0')
      continue;
    char c = *s;
    *s = '\0';
    if (ts_strset_add(&in->staged_dirs, d) && mkdir(d, 0755) != 0 &&
        errno != EEXIST) {
      enum ts_code rc = ts_error_set(err, TS_E_IO, "cannot create '%s': %s",
                                     d, strerror(errno));
      free(d);
      return rc;
    }
    *s = c;
    if (c == '\0')
      break;
  }
  free(d);
  return TS_OK;
}

/* <new_dir>/<root>/<rel>: what ts_xasprintf would make, without parsing a
 * format for each of a big wheel's 12,000 files. */
static char *staged_path(const char *new_dir, size_t root, const char *rel) {
  char idx[24];
  idx[0] = '/';
  size_t il = 1 + ts_u64_decimal(idx + 1, root);
  idx[il++] = '/';
  idx[il] = '\0';
  size_t nl = strlen(new_dir), rl = strlen(rel);
  char *p = ts_xmalloc(nl + il + rl + 1);
  memcpy(p, new_dir, nl);
  memcpy(p + nl, idx, il);
  memcpy(p + nl + il, rel, rl + 1);
  return p;
}

/* Registers a new file destined for roots[root]/rel; returns NULL when an
 * earlier wheel of this transaction already provides that path (first one
 * wins, like shared namespace __init__.py files of nvidia-* wheels).  Its
 * staged directories are made now, or with defer_dirs by the extraction
 * worker that writes it: a torch wheel's 639 directories made here, one
 * after another before any file, were a fifth of its install's time. */
static struct newfile *add_file(struct installer *in, size_t dist,
                                size_t root, const char *rel, bool defer_dirs,
                                struct ts_error *err, enum ts_code *rc) {
  *rc = TS_OK;
  char *dest = ts_path_join(in->roots[root], rel);
  if (!ts_strset_add(&in->dests, dest)) {
    free(dest);
    return NULL;
  }
  if (in->nfiles == in->afiles) {
    in->afiles = in->afiles ? in->afiles * 2 : 1024;
    in->files = ts_xrealloc(in->files, in->afiles * sizeof *in->files);
  }
  struct newfile *f = &in->files[in->nfiles++];
  memset(f, 0, sizeof *f);
  f->dest = dest;
  f->staged = staged_path(in->txn.new_dir, root, rel);
  f->root = root;
  f->dist = dist;
  if (!defer_dirs)
    *rc = stage_parents(in, f->staged, err);
  return f;
}

static bool ends_with(const char *s, const char *suf) {
  size_t a = strlen(s), b = strlen(suf);
  return a >= b && strcmp(s + a - b, suf) == 0;
}

/* A script starting "#!python" or "#!pythonw" gets the target interpreter
 * instead, written to dst (*done); others are left alone. */
static enum ts_code rewrite_shebang_text(struct installer *in, const char *text, size_t len,
                                         const char *dst, bool *done, struct ts_error *err) {
  *done = false;
  if (len < 8 || memcmp(text, "#!python", 8) != 0)
    return TS_OK;
  const char *rest = text + 8;
  if (len > 8 && rest[0] == 'w')
    rest++;
  struct ts_buf o;
  ts_buf_init(&o, 0);
  ts_buf_xprintf(&o, "#!%s", in->p.python);
  ts_buf_xappend(&o, rest, len - (size_t)(rest - text));
  enum ts_code rc = ts_wheel_write_new_file(dst, o.data, o.len, 0755, err);
  ts_buf_clear(&o);
  *done = rc == TS_OK;
  return rc;
}

/* The script u->files[i] (in the tree at src, or the archive when src is
 * NULL) with its shebang rewritten into dst when it needs it (*done). */
static enum ts_code rewrite_shebang(struct installer *in, const struct ts_unpacked *u,
                                    size_t i, const char *src, const char *dst, bool *done,
                                    struct ts_error *err) {
  *done = false;
  struct ts_buf b;
  enum ts_code rc;
  if (!src) {
    rc = ts_unpacked_read_file(u, i, TS_CAP_SCRIPT, &b, err);
  } else {
    int fd = open(src, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
      return ts_error_set(err, TS_E_IO, "cannot read '%s': %s", src,
                          strerror(errno));
    char head[9] = {0};
    ssize_t n = read(fd, head, 8);
    close(fd);
    if (n != 8 || memcmp(head, "#!python", 8) != 0)
      return TS_OK;
    ts_buf_init(&b, TS_CAP_SCRIPT);
    rc = ts_fs_read_file(src, &b, err);
  }
  if (rc == TS_OK)
    rc = rewrite_shebang_text(in, b.data ? b.data : "", b.len, dst, done, err);
  ts_buf_clear(&b);
  return rc;
}

static enum ts_code add_generated(struct installer *in, size_t dist,
                                  size_t root, const char *rel,
                                  const char *data, size_t len, mode_t mode,
                                  struct ts_error *err) {
  enum ts_code rc;
  struct newfile *f = add_file(in, dist, root, rel, false, err, &rc);
  if (rc != TS_OK || !f)
    return rc;
  rc = ts_wheel_write_new_file(f->staged, data, len, mode, err);
  if (rc != TS_OK)
    return rc;
  uint8_t d[32];
  char b64[44];
  ts_sha256(data, len, d);
  ts_sha256_b64url(d, b64);
  f->hash = ts_xasprintf("sha256=%s", b64);
  f->size = len;
  return TS_OK;
}

/* ---- entry points --------------------------------------------------- */

struct launcher_target {
  struct installer *in;
  size_t dist;
};

/* Writes the launcher `name` of an entry point that scripts.c checked. */
static enum ts_code write_launcher(void *ctx, const char *name, const char *mod,
                                   const char *attr, struct ts_error *err) {
  struct launcher_target *t = ctx;
  struct installer *in = t->in;
  size_t head = strcspn(attr, ".");
  const char *py = in->p.python;
  char *shebang = strlen(py) > SHEBANG_MAX || strpbrk(py, " \t")
                      ? ts_xasprintf("#!/bin/sh\n'''exec' \"%s\" \"$0\" \"$@\"\n' '''", py)
                      : ts_xasprintf("#!%s", py);
  char *text = ts_xasprintf("%s\n"
                       "# -*- coding: utf-8 -*-\n"
                       "import re\n"
                       "import sys\n"
                       "from %s import %.*s\n"
                       "if __name__ == \"__main__\":\n"
                       "    sys.argv[0] = re.sub(r\"(-script\\.pyw|\\.exe)?$\", "
                       "\"\", sys.argv[0])\n"
                       "    sys.exit(%s())\n",
                       shebang, mod, (int)head, attr, attr);
  size_t root = root_index(in, in->p.scripts);
  enum ts_code rc = add_generated(in, t->dist, root, name, text, strlen(text), 0755, err);
  free(shebang);
  free(text);
  return rc;
}

static enum ts_code write_launchers(struct installer *in, size_t dist,
                                    const char *text, size_t len,
                                    struct ts_error *err) {
  struct launcher_target t = {in, dist};
  return ts_wheel_entry_points_each(text, len, in->p.python_major, in->p.python_minor,
                                    write_launcher, &t, err);
}

/* ---- installed distributions ------------------------------------- */

enum ts_code ts_wheel_find_installed(const char *dir, const char *name,
                                     char **out, struct ts_error *err) {
  *out = NULL;
  struct ts_site site;
  enum ts_code rc = ts_site_read(&dir, 1, &site, err);
  const struct ts_site_dist *d = rc == TS_OK ? ts_site_find(&site, name) : NULL;
  if (d)
    *out = ts_xstrdup(d->dist_info);
  else if (rc == TS_OK)
    rc = ts_error_set(err, TS_E_NOT_FOUND, "'%s' is not installed in '%s'", name, dir);
  ts_site_clear(&site);
  return rc;
}

static void add_prune_parents(struct installer *in, const char *path) {
  char *d = ts_xstrdup(path);
  for (;;) {
    char *s = strrchr(d, '/');
    if (!s || s == d)
      break;
    *s = '\0';
    bool stop = !has_prefix_dir(d, in->p.prefix) ||
                strcmp(d, in->p.prefix) == 0;
    for (size_t i = 0; !stop && i < in->nroots; i++)
      stop = strcmp(d, in->roots[i]) == 0;
    if (stop || !ts_strset_add(&in->prune, d))
      break;
  }
  free(d);
}

static void schedule_backup(struct installer *in, const char *path) {
  if (!ts_strset_add(&in->backups, path))
    return;
  char *old = ts_txn_old_path(&in->txn);
  ts_txn_add(&in->txn, TS_TXN_BACKUP, path, old);
  free(old);
  add_prune_parents(in, path);
}

/* Adds __pycache__/<stem>.*.pyc of a .py file to the removal. */
static void schedule_pyc(struct installer *in, const char *py) {
  const char *slash = strrchr(py, '/');
  char *dir = ts_xasprintf("%.*s/__pycache__", (int)(slash - py), py);
  const char *stem = slash + 1;
  size_t sl = strlen(stem) - 3;
  DIR *d = opendir(dir);
  if (d) {
    struct dirent *de;
    while ((de = readdir(d))) {
      if (strncmp(de->d_name, stem, sl) == 0 && de->d_name[sl] == '.' &&
          ends_with(de->d_name, ".pyc")) {
        char *p = ts_path_join(dir, de->d_name);
        schedule_backup(in, p);
        free(p);
      }
    }
    closedir(d);
  }
  free(dir);
}

/* Schedules removal of an installed distribution through its RECORD; a
 * file that a distribution which stays lists too is left in place. */
static enum ts_code plan_removal(struct installer *in, const char *distinfo,
                                 struct ts_error *err) {
  struct ts_record rec;
  enum ts_code rc = ts_record_read_distinfo(distinfo, &rec, err);
  if (rc != TS_OK) {
    ts_record_clear(&rec);
    return ts_error_wrap(err, "cannot uninstall '%s' without its RECORD",
                         distinfo);
  }
  char *site = ts_xstrdup(distinfo);
  *strrchr(site, '/') = '\0';
  for (size_t i = 0; i < rec.count; i++) {
    const char *rel = rec.rows[i].path;
    char *joined = rel[0] == '/' ? ts_xstrdup(rel) : ts_path_join(site, rel);
    char *p = normalize(joined);
    free(joined);
    struct stat st;
    /* Never outside the environment, never a directory via RECORD, never
     * another distribution's file, and the dist-info directory goes as a
     * whole below. */
    if (has_prefix_dir(p, in->p.prefix) && !has_prefix_dir(p, distinfo) &&
        !ts_owners_find(&in->owners, p) && lstat(p, &st) == 0 &&
        !S_ISDIR(st.st_mode)) {
      schedule_backup(in, p);
      if (ends_with(p, ".py"))
        schedule_pyc(in, p);
    }
    free(p);
  }
  schedule_backup(in, distinfo);
  free(site);
  ts_record_clear(&rec);
  return TS_OK;
}

/* Finds every installed copy of `name` in the library roots (target/site.h:
 * the set install and sync planned with) and adds it to the removal
 * (plan_removals schedules it); returns the (first) installed version or
 * NULL. */
static enum ts_code remove_installed(struct installer *in, const char *name,
                                     char **version, struct ts_error *err) {
  *version = NULL;
  enum ts_code rc = TS_OK;
  if (!in->have_site) { /* after ts_txn_open: a repair may have changed it */
    const char *dirs[2] = {in->p.purelib, in->p.platlib};
    rc = ts_site_read(dirs, 2, &in->site, err);
    in->have_site = rc == TS_OK;
  }
  char *norm = ts_name_normalize(name, strlen(name));
  /* Every matching dist-info: a broken environment may hold two.  A copy
   * with no version anywhere reads as version "". */
  for (size_t i = 0; rc == TS_OK && norm && i < in->site.n; i++) {
    const struct ts_site_dist *d = &in->site.dists[i];
    if (strcmp(d->normalized, norm) != 0 || !ts_strset_add(&in->removing_set, d->dist_info))
      continue;
    if (!*version)
      *version = ts_xstrdup(d->version ? d->version : "");
    in->removing = ts_xrealloc(in->removing, (in->nremoving + 1) * sizeof *in->removing);
    in->removing[in->nremoving++] = ts_xstrdup(d->dist_info);
  }
  free(norm);
  return rc;
}

/* Reads who owns what among the distributions that stay, then schedules
 * the removals. */
static enum ts_code plan_removals(struct installer *in, struct ts_error *err) {
  const char **distinfos = ts_xcalloc(in->site.n + 1, sizeof *distinfos);
  for (size_t i = 0; i < in->site.n; i++)
    distinfos[i] = in->site.dists[i].dist_info;
  ts_owners_build(&in->owners, distinfos, in->site.n, &in->removing_set, normalize);
  free(distinfos);
  enum ts_code rc = TS_OK;
  for (size_t i = 0; rc == TS_OK && i < in->nremoving; i++)
    rc = plan_removal(in, in->removing[i], err);
  return rc;
}

/* A new file would replace `w`, another distribution's file with other
 * content: TS_E_CONFLICT unless --allow-overwrite. */
static enum ts_code conflict(struct installer *in, const struct newfile *f,
                             const char *other, struct ts_error *err) {
  if (in->o->allow_overwrite)
    return TS_OK;
  const struct ts_unpacked *u = &in->dists[f->dist].u;
  return ts_error_set(err, TS_E_CONFLICT,
                      "%s %s and %s both install '%s': refusing to overwrite "
                      "%s's file (--allow-overwrite lets %s replace it)",
                      u->name, u->version, other, f->dest, other, u->name);
}

/* Two wheels of one transaction install root/rel: the first is kept; with
 * other content that is a conflict. */
static enum ts_code same_file_twice(struct installer *in, size_t di, size_t root,
                                    const char *rel, const char *hash,
                                    struct ts_error *err) {
  char *dest = ts_path_join(in->roots[root], rel);
  const struct newfile *g = NULL;
  for (size_t i = 0; i < in->nfiles && !g; i++)
    if (strcmp(in->files[i].dest, dest) == 0)
      g = &in->files[i];
  free(dest);
  if (!g || g->dist == di || (g->hash && strcmp(g->hash, hash) == 0))
    return TS_OK;
  const struct ts_unpacked *first = &in->dists[g->dist].u;
  char *label = ts_xasprintf("%s %s", first->name, first->version);
  const struct newfile later = {.dest = g->dest, .dist = di};
  enum ts_code rc = conflict(in, &later, label, err);
  free(label);
  return rc;
}

/* ---- staging one wheel ---------------------------------------------- */


static enum ts_code stage_dist(struct installer *in, size_t di,
                               struct dist *d, struct ts_error *err) {
  struct ts_unpacked *u = &d->u;
  size_t lib = root_index(in, d->libroot);
  size_t dl = strlen(u->datadir), il = strlen(u->distinfo);
  enum ts_code rc = TS_OK;
  for (size_t i = 0; rc == TS_OK && i < u->count; i++) {
    struct ts_unpacked_file *uf = &u->files[i];
    const char *path = uf->path;
    size_t root = lib;
    const char *rel = path;
    char *relbuf = NULL;
    bool script = false;
    if (strncmp(path, u->distinfo, il) == 0 && path[il] == '/') {
      const char *b = path + il + 1;
      if (strcmp(b, "INSTALLER") == 0 || strcmp(b, "REQUESTED") == 0 ||
          strcmp(b, "direct_url.json") == 0 || strcmp(b, TS_WHEEL_SHA256_FILE) == 0)
        continue; /* ours replace them */
    }
    if (strncmp(path, u->datadir, dl) == 0 && path[dl] == '/') {
      const char *sub = path + dl + 1;
      const char *s = strchr(sub, '/');
      if (!s)
        return ts_error_set(err, TS_E_BAD_WHEEL,
                            "wheel member '%s' is directly in .data/", path);
      size_t sl = (size_t)(s - sub);
      rel = s + 1;
      if (sl == 7 && memcmp(sub, "purelib", 7) == 0) {
        root = root_index(in, in->p.purelib);
      } else if (sl == 7 && memcmp(sub, "platlib", 7) == 0) {
        root = root_index(in, in->p.platlib);
      } else if (sl == 7 && memcmp(sub, "scripts", 7) == 0) {
        if (ts_unpacked_is_entry_point_wrapper(u, rel))
          continue;
        root = root_index(in, in->p.scripts);
        script = true;
      } else if (sl == 4 && memcmp(sub, "data", 4) == 0) {
        root = root_index(in, in->p.data);
      } else if (sl == 7 && memcmp(sub, "headers", 7) == 0) {
        root = root_index(in, in->p.headers);
        relbuf = ts_xasprintf("%s/%s", u->name, rel);
        rel = relbuf;
      } else {
        return ts_error_set(err, TS_E_BAD_WHEEL,
                            "wheel member '%s': unknown .data/ scheme '%.*s'",
                            path, (int)sl, sub);
      }
    }
    struct newfile *f = add_file(in, di, root, rel, !u->dir && !script, err, &rc);
    if (!f && rc == TS_OK) /* an earlier wheel of this transaction has it */
      rc = same_file_twice(in, di, root, rel, uf->hash, err);
    free(relbuf);
    if (rc != TS_OK)
      break;
    if (!f)
      continue;
    char *src = u->dir ? ts_path_join(u->dir, path) : NULL;
    bool rewritten = false;
    if (script)
      rc = rewrite_shebang(in, u, i, src, f->staged, &rewritten, err);
    if (rc == TS_OK && rewritten) {
      char h[52];
      rc = ts_wheel_hash_path(f->staged, h, &f->size, err);
      f->hash = ts_xstrdup(h);
    } else if (rc == TS_OK) {
      f->src = src; /* linked (or extracted) by place_all, in parallel */
      src = NULL;
      f->extract = !u->dir;
      f->file = i;
      f->hash = ts_xstrdup(uf->hash);
      f->size = uf->size;
      f->py = !script && (root == root_index(in, in->p.purelib) ||
                          root == root_index(in, in->p.platlib)) &&
              ends_with(path, ".py");
    }
    free(src);
    if (rc == TS_OK && in->res)
      in->res->files_linked++;
  }
  if (rc == TS_OK && u->entry_points)
    rc = write_launchers(in, di, u->entry_points, u->entry_points_len, err);
  char *rel;
  if (rc == TS_OK) {
    rel = ts_xasprintf("%s/INSTALLER", u->distinfo);
    rc = add_generated(in, di, lib, rel, "torchsolve\n", 11, 0644, err);
    free(rel);
  }
  if (rc == TS_OK && d->req->requested) {
    rel = ts_xasprintf("%s/REQUESTED", u->distinfo);
    rc = add_generated(in, di, lib, rel, "", 0, 0644, err);
    free(rel);
  }
  return rc;
}

/* The dist-info files that name the wheel by its sha256, which a wheel
 * staged without a tree has only once its files are written (its hash is
 * computed alongside). */
static enum ts_code stage_wheel_identity(struct installer *in, size_t di, struct dist *d,
                                         struct ts_error *err) {
  struct ts_unpacked *u = &d->u;
  size_t lib = root_index(in, d->libroot);
  enum ts_code rc = ts_unpacked_finish(u, err);
  char *rel;
  if (rc == TS_OK) { /* which wheel this is, for sync's exactness check */
    char hex[TS_SHA256_HEX_LEN + 2];
    ts_sha256_hex(u->sha256, hex);
    hex[TS_SHA256_HEX_LEN] = '\n';
    hex[TS_SHA256_HEX_LEN + 1] = '\0';
    rel = ts_xasprintf("%s/" TS_WHEEL_SHA256_FILE, u->distinfo);
    rc = add_generated(in, di, lib, rel, hex, TS_SHA256_HEX_LEN + 1, 0644, err);
    free(rel);
  }
  if (rc == TS_OK && (d->req->direct_url || d->req->direct_url_from_path)) {
    char *json = NULL;
    if (!d->req->direct_url) {
      char *abs = realpath(d->req->path, NULL);
      json = ts_wheel_direct_url_for_file(abs ? abs : d->req->path,
                                          u->sha256);
      free(abs);
    }
    const char *text = json ? json : d->req->direct_url;
    rel = ts_xasprintf("%s/direct_url.json", u->distinfo);
    rc = add_generated(in, di, lib, rel, text, strlen(text), 0644, err);
    free(rel);
    free(json);
  }
  return rc;
}

/* Hardlinks (or copies) the unpacked files into the stage with a few
 * threads: link(2) costs ~10-20 us, and torch has ~12k files. */
struct place_job {
  struct installer *in;
  enum ts_wheel_link_mode mode; /* o->link_mode, auto resolved */
  atomic_size_t next;
  atomic_bool failed;
  pthread_mutex_t mu;
  enum ts_code rc;
  struct ts_error err;
};

#define PLACE_CHUNK 32
/* Files are placed by at most PLACE_THREADS threads, and by one when there
 * are fewer than PLACE_THREADED_FROM (starting threads costs more). */
#define PLACE_THREADS 8
#define PLACE_THREADED_FROM 256

static void *place_worker(void *arg) {
  struct place_job *j = arg;
  struct ts_error err = {0};
  struct ts_wheel_dir_cache src = {.fd = -1}, dst = {.fd = -1};
  bool hard = j->mode == TS_WHEEL_LINK_HARDLINK;
  for (;;) {
    if (atomic_load(&j->failed))
      break;
    /* Consecutive files share directories: take them in runs. */
    size_t k0 = atomic_fetch_add(&j->next, PLACE_CHUNK);
    if (k0 >= j->in->nfiles)
      break;
    size_t k1 = k0 + PLACE_CHUNK < j->in->nfiles ? k0 + PLACE_CHUNK : j->in->nfiles;
    for (size_t k = k0; k < k1; k++) {
      struct newfile *f = &j->in->files[k];
      if (!f->src)
        continue;
      if (hard) {
        const char *sb, *db;
        int sfd = ts_wheel_dir_cache_get(&src, f->src, &sb);
        int dfd = ts_wheel_dir_cache_get(&dst, f->staged, &db);
        if (sfd >= 0 && dfd >= 0 && linkat(sfd, sb, dfd, db, 0) == 0)
          continue;
      }
      if (ts_wheel_place_file(j->mode, f->src, f->staged, &err) != TS_OK) {
        pthread_mutex_lock(&j->mu);
        if (j->rc == TS_OK) {
          j->rc = err.code;
          j->err = err;
        }
        pthread_mutex_unlock(&j->mu);
        atomic_store(&j->failed, true);
        break;
      }
    }
  }
  ts_wheel_dir_cache_close(&src);
  ts_wheel_dir_cache_close(&dst);
  return NULL;
}

/* --link-mode auto: clone when the filesystem reflinks from the cache into
 * the stage (a private copy, nearly as fast as a link), else hardlink
 * (which copies across filesystems).  One probe clone decides for the
 * whole transaction: the cache and the stage are each on one filesystem. */
static enum ts_wheel_link_mode resolve_auto(const struct installer *in) {
  const struct newfile *f = NULL;
  for (size_t k = 0; k < in->nfiles && !f; k++)
    if (in->files[k].src)
      f = &in->files[k];
  if (!f)
    return TS_WHEEL_LINK_HARDLINK;
  bool cloned = false;
  char *probe = ts_xasprintf("%s.reflink-probe", f->staged);
  int src = open(f->src, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
  int dst = src < 0 ? -1 : open(probe, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
  if (dst >= 0) {
    cloned = ioctl(dst, FICLONE, src) == 0;
    close(dst);
    unlink(probe);
  }
  if (src >= 0)
    close(src);
  free(probe);
  return cloned ? TS_WHEEL_LINK_CLONE : TS_WHEEL_LINK_HARDLINK;
}

/* The files of wheels that have no unpacked tree, written from their
 * archives into the stage: each created once, where it is installed. */
static enum ts_code extract_all(struct installer *in, struct ts_error *err) {
  struct ts_unpack_dest *d = ts_xreallocarray(NULL, in->nfiles ? in->nfiles : 1, sizeof *d);
  enum ts_code rc = TS_OK;
  for (size_t k = 0; rc == TS_OK && k < in->ndists; k++) {
    if (!in->dists[k].u.source)
      continue;
    size_t n = 0;
    for (size_t i = 0; i < in->nfiles; i++)
      if (in->files[i].extract && in->files[i].dist == k)
        d[n++] = (struct ts_unpack_dest){in->files[i].file, in->files[i].staged};
    rc = ts_unpacked_extract(&in->dists[k].u, d, n, in->o, err);
  }
  free(d);
  return rc;
}

static enum ts_code place_all(struct installer *in, struct ts_error *err) {
  bool linked = false; /* wheels without a tree have nothing to place: no threads */
  for (size_t k = 0; k < in->nfiles && !linked; k++)
    linked = in->files[k].src != NULL;
  if (!linked)
    return TS_OK;
  struct place_job j = {.in = in, .rc = TS_OK, .mode = in->o->link_mode};
  if (j.mode == TS_WHEEL_LINK_AUTO)
    j.mode = resolve_auto(in);
  atomic_init(&j.next, 0);
  atomic_init(&j.failed, false);
  pthread_mutex_init(&j.mu, NULL);
  long cpus = sysconf(_SC_NPROCESSORS_ONLN);
  unsigned nt = in->o->threads ? in->o->threads : (unsigned)(cpus > 0 ? cpus : 1);
  if (nt > PLACE_THREADS)
    nt = PLACE_THREADS;
  if (in->nfiles < PLACE_THREADED_FROM)
    nt = 1;
  pthread_t th[PLACE_THREADS];
  unsigned started = 0;
  for (unsigned t = 1; t < nt; t++)
    if (pthread_create(&th[started], NULL, place_worker, &j) == 0)
      started++;
  place_worker(&j);
  for (unsigned t = 0; t < started; t++)
    pthread_join(th[t], NULL);
  pthread_mutex_destroy(&j.mu);
  if (j.rc != TS_OK && err)
    *err = j.err;
  return j.rc;
}

/* Byte-compiles the staged .py files with the target interpreter; the
 * .pyc files record the final paths (dfile) and join the plan. */
static const char compile_script[] =
    "import sys, py_compile, importlib.util\n"
    "m = py_compile.PycInvalidationMode.TIMESTAMP\n"
    "for line in open(sys.argv[1], encoding='utf-8', "
    "errors='surrogateescape'):\n"
    "    s, d = line.rstrip('\\n').split('\\t')\n"
    "    c = importlib.util.cache_from_source(s)\n"
    "    try:\n"
    "        py_compile.compile(s, cfile=c, dfile=d, doraise=True, "
    "invalidation_mode=m)\n"
    "    except Exception:\n"
    "        continue  # pip also installs files that do not compile\n"
    "    sys.stdout.write(s + '\\t' + c + '\\n')\n";

static enum ts_code compile_all(struct installer *in, struct ts_error *err) {
  struct ts_buf list;
  ts_buf_init(&list, 0);
  size_t n0 = in->nfiles;
  for (size_t i = 0; i < n0; i++)
    if (in->files[i].py)
      ts_buf_xprintf(&list, "%s\t%s\n", in->files[i].staged, in->files[i].dest);
  if (list.len == 0) {
    ts_buf_clear(&list);
    return TS_OK;
  }
  char *lp = ts_path_join(in->txn.dir, "compile-list");
  enum ts_code rc = ts_wheel_write_new_file(lp, list.data, list.len, 0600, err);
  ts_buf_clear(&list);
  if (rc != TS_OK) {
    free(lp);
    return rc;
  }
  char *argv[] = {(char *)in->p.python, (char *)"-E", (char *)"-s",
                  (char *)"-c", (char *)compile_script, lp, NULL};
  struct ts_proc_options po = {.stderr_mode = TS_PROC_STDERR_INHERIT,
                               .stdout_cap = COMPILE_OUTPUT_CAP};
  struct ts_proc_result pr;
  rc = ts_proc_run(argv, &po, &pr, err);
  free(lp);
  if (rc != TS_OK) {
    ts_proc_result_clear(&pr);
    return ts_error_set(err, TS_E_PYTHON, "%s", err->detail);
  }
  if (!pr.exited || pr.exit_code != 0) {
    int status = pr.exited ? pr.exit_code : 128 + pr.signal;
    ts_proc_result_clear(&pr);
    return ts_error_set(err, TS_E_PYTHON,
                        "byte-compiling with '%s' failed (status %d)",
                        in->p.python, status);
  }
  struct ts_buf out = pr.out;
  pr.out = (struct ts_buf){0};
  ts_proc_result_clear(&pr);
  /* Map each "staged\tpyc" line back to its source file's plan entry. */
  size_t si = 0;
  const char *p = out.data ? out.data : "", *end = p + out.len;
  while (rc == TS_OK && p < end) {
    const char *nl = memchr(p, '\n', (size_t)(end - p));
    if (!nl)
      break;
    const char *tab = memchr(p, '\t', (size_t)(nl - p));
    if (!tab)
      break;
    char *src = ts_xasprintf("%.*s", (int)(tab - p), p);
    char *pyc = ts_xasprintf("%.*s", (int)(nl - tab - 1), tab + 1);
    while (si < n0 && strcmp(in->files[si].staged, src) != 0)
      si++;
    if (si < n0) {
      struct newfile *s = &in->files[si];
      const char *rel = pyc + strlen(in->txn.new_dir) + 1;
      rel = strchr(rel, '/') + 1; /* skip the root index */
      struct newfile *f = add_file(in, s->dist, s->root, rel, false, err, &rc);
      s = &in->files[si]; /* add_file may have moved the array */
      if (f && rc == TS_OK) {
        char h[52];
        rc = ts_wheel_hash_path(pyc, h, &f->size, err);
        f->hash = ts_xstrdup(h);
      }
    }
    free(src);
    free(pyc);
    p = nl + 1;
  }
  ts_buf_clear(&out);
  return rc;
}

static int cmp_dest(const void *a, const void *b) {
  const struct newfile *x = a, *y = b;
  return strcmp(x->dest, y->dest);
}

static enum ts_code write_records(struct installer *in, struct dist *dists,
                                  size_t n, struct ts_error *err) {
  for (size_t k = 0; k < n; k++) {
    struct dist *d = &dists[k];
    size_t lib = root_index(in, d->libroot);
    struct ts_buf b;
    ts_buf_init(&b, 0);
    enum ts_code rc = TS_OK;
    char *recrel = ts_xasprintf("%s/RECORD", d->u.distinfo);
    for (size_t i = 0; rc == TS_OK && i < in->nfiles; i++) {
      struct newfile *f = &in->files[i];
      if (f->dist != k)
        continue;
      char *rel = relpath(d->libroot, f->dest);
      char size[21];
      ts_u64_decimal(size, f->size);
      rc = ts_record_write_row(&b, rel, f->hash, size);
      free(rel);
    }
    if (rc == TS_OK)
      rc = ts_record_write_row(&b, recrel, "", "");
    struct newfile *rf = NULL;
    if (rc == TS_OK)
      rf = add_file(in, k, lib, recrel, false, err, &rc);
    if (rc == TS_OK && rf)
      rc = ts_wheel_write_new_file(rf->staged, b.data ? b.data : "", b.len, 0644, err);
    free(recrel);
    ts_buf_clear(&b);
    if (rc != TS_OK)
      return rc;
  }
  return TS_OK;
}

/* Turns the staged files into renames: the shallowest missing directory of
 * each new path moves in whole; files in existing directories one by one,
 * the file they replace moved aside first. */
static enum ts_code plan_moves(struct installer *in, struct ts_error *err) {
  if (in->nfiles) /* none in a removal-only transaction; qsort wants non-NULL */
    qsort(in->files, in->nfiles, sizeof *in->files, cmp_dest);
  struct ts_strset present_dirs = {0};
  char *moved = NULL;
  enum ts_code rc = TS_OK;
  for (size_t i = 0; rc == TS_OK && i < in->nfiles; i++) {
    struct newfile *f = &in->files[i];
    if (moved && has_prefix_dir(f->dest, moved))
      continue;
    const char *root = in->roots[f->root];
    size_t rl = strlen(root);
    char *d = ts_xstrdup(f->dest);
    char *sd = ts_xstrdup(f->staged);
    size_t sbase = strlen(sd) - strlen(f->dest + rl);
    bool done = false;
    for (char *s = d + rl + 1; *s; s++) {
      if (*s != '/')
        continue;
      *s = '\0';
      if (!ts_strset_has(&present_dirs, d)) {
        struct stat st;
        bool gone = ts_strset_has(&in->backups, d);
        if (!gone && lstat(d, &st) == 0 && S_ISDIR(st.st_mode)) {
          ts_strset_add(&present_dirs, d);
        } else {
          if (!gone && lstat(d, &st) == 0)
            schedule_backup(in, d); /* a file where we need a directory */
          sd[sbase + (size_t)(s - (d + rl))] = '\0';
          ts_txn_add(&in->txn, TS_TXN_MOVE, sd, d);
          free(moved);
          moved = ts_xstrdup(d);
          done = true;
          break;
        }
      }
      *s = '/';
    }
    if (!done) {
      struct stat st;
      if (!ts_strset_has(&in->backups, f->dest) && lstat(f->dest, &st) == 0) {
        const struct ts_owned *w = ts_owners_find(&in->owners, f->dest);
        if (S_ISDIR(st.st_mode)) {
          rc = ts_error_set(err, TS_E_IO,
                            "'%s' is a directory; cannot install a file there",
                            f->dest);
        } else if (w && strcmp(w->hash, f->hash) != 0) {
          char *other = ts_owners_label(&in->owners, w->owner);
          rc = conflict(in, f, other, err);
          free(other);
        }
        if (rc == TS_OK && !S_ISDIR(st.st_mode))
          schedule_backup(in, f->dest);
      }
      ts_txn_add(&in->txn, TS_TXN_MOVE, f->staged, f->dest);
    }
    free(d);
    free(sd);
  }
  free(moved);
  ts_strset_clear(&present_dirs);
  return rc;
}

static int cmp_depth_desc(const void *a, const void *b) {
  const char *x = *(char *const *)a, *y = *(char *const *)b;
  size_t dx = 0, dy = 0;
  for (; *x; x++)
    dx += *x == '/';
  for (; *y; y++)
    dy += *y == '/';
  return dx < dy ? 1 : dx > dy ? -1 : 0;
}

static void add_prunes(struct installer *in) {
  size_t n = 0;
  char **v = ts_xmalloc((in->prune.count ? in->prune.count : 1) * sizeof *v);
  for (size_t i = 0; i < in->prune.cap; i++)
    if (in->prune.slots[i])
      v[n++] = in->prune.slots[i];
  qsort(v, n, sizeof *v, cmp_depth_desc);
  for (size_t i = 0; i < n; i++)
    ts_txn_add(&in->txn, TS_TXN_PRUNE, v[i], NULL);
  free(v);
}

static enum ts_code installer_init(struct installer *in,
                                   const struct ts_wheel_options *o,
                                   struct ts_wheel_result *res,
                                   struct ts_error *err) {
  memset(in, 0, sizeof *in);
  in->o = o;
  in->res = res;
  in->txn.lock_fd = -1;
  const struct ts_wheel_paths *p = o->paths;
  if (!p || !p->prefix || !p->purelib || !p->platlib || !p->scripts ||
      !p->data || !p->headers || !p->python)
    return ts_error_set(err, TS_E_INVALID, "incomplete target paths");
  in->p.prefix = normalize(p->prefix);
  in->p.purelib = normalize(p->purelib);
  in->p.platlib = normalize(p->platlib);
  in->p.scripts = normalize(p->scripts);
  in->p.data = normalize(p->data);
  in->p.headers = normalize(p->headers);
  in->p.python = ts_xstrdup(p->python);
  in->p.python_major = p->python_major;
  in->p.python_minor = p->python_minor;
  const char *all[] = {in->p.purelib, in->p.platlib, in->p.scripts,
                       in->p.data, in->p.headers};
  for (size_t i = 0; i < 5; i++)
    root_index(in, all[i]);
  if (res)
    memset(res, 0, sizeof *res);
  return TS_OK;
}

static void installer_free(struct installer *in) {
  ts_txn_end(&in->txn);
  ts_site_clear(&in->site);
  for (size_t i = 0; i < in->nfiles; i++) {
    free(in->files[i].src);
    free(in->files[i].dest);
    free(in->files[i].staged);
    free(in->files[i].hash);
  }
  free(in->files);
  for (size_t i = 0; i < in->nroots; i++)
    free(in->roots[i]);
  free((char *)in->p.prefix);
  free((char *)in->p.purelib);
  free((char *)in->p.platlib);
  free((char *)in->p.scripts);
  free((char *)in->p.data);
  free((char *)in->p.headers);
  free((char *)in->p.python);
  ts_strset_clear(&in->dests);
  ts_strset_clear(&in->backups);
  ts_strset_clear(&in->staged_dirs);
  ts_strset_clear(&in->prune);
  for (size_t i = 0; i < in->nremoving; i++)
    free(in->removing[i]);
  free(in->removing);
  ts_strset_clear(&in->removing_set);
  ts_owners_clear(&in->owners);
}

/* The stage may be dropped until the journal is written; a cancel request
 * is honoured only up to there. */
static enum ts_code check_cancel(const struct ts_wheel_options *o, enum ts_code rc,
                                 struct ts_error *err) {
  if (rc == TS_OK && o->cancel && *o->cancel)
    return ts_error_set(err, TS_E_INTERRUPTED,
                        "interrupted before the commit point: nothing was changed");
  return rc;
}

static enum ts_txn_locking locking(const struct ts_wheel_options *o) {
  return o->env_locked ? TS_TXN_LOCK_HELD
         : o->no_wait  ? TS_TXN_LOCK_NO_WAIT
                       : TS_TXN_LOCK_WAIT;
}

static enum ts_code ensure_roots(struct installer *in, struct ts_error *err) {
  for (size_t i = 0; i < in->nroots; i++) {
    bool used = false;
    for (size_t k = 0; !used && k < in->nfiles; k++)
      used = in->files[k].root == i;
    if (used) {
      enum ts_code rc = ts_fs_mkdirs(in->roots[i], err);
      if (rc != TS_OK)
        return rc;
    }
  }
  return TS_OK;
}

/* The wheel's file-name tags against the interpreter's, as install and pip
 * check them. */
static enum ts_code check_tags(const struct ts_tagset *tags, const char *path,
                               struct ts_error *err) {
  const char *base = strrchr(path, '/');
  base = base ? base + 1 : path;
  struct ts_wheel_filename *wf = NULL;
  enum ts_code rc = ts_variant_wheel_filename_parse(base, strlen(base), &wf, NULL, err);
  if (rc != TS_OK)
    return ts_error_set(err, TS_E_BAD_WHEEL, "'%s' is not a wheel file name: %s",
                        base, err->detail);
  if (ts_tagset_best_priority(tags, wf->tags, wf->ntags) < 0) {
    char *best = ts_tagset_count(tags) ? ts_tag_str(ts_tagset_at(tags, 0)) : NULL;
    rc = ts_error_set(err, TS_E_PYTHON,
                      "not a supported wheel on this platform: its tags "
                      "%s-%s-%s match none the interpreter supports (the best "
                      "is %s)",
                      wf->python_tags, wf->abi_tags, wf->platform_tags,
                      best ? best : "none");
    free(best);
  }
  ts_wheel_filename_free(wf);
  return rc;
}

enum ts_code ts_wheel_install(const struct ts_wheel_options *o,
                              const struct ts_wheel_request *wheels, size_t n,
                              struct ts_wheel_result *result,
                              struct ts_error *err) {
  struct installer in;
  enum ts_code rc = installer_init(&in, o, result, err);
  struct dist *dists = ts_xcalloc(n ? n : 1, sizeof *dists);
  /* 1. Validate and unpack everything before touching the environment. */
  for (size_t k = 0; rc == TS_OK && k < n; k++) {
    dists[k].req = &wheels[k];
    rc = check_cancel(o, TS_OK, err);
    if (rc == TS_OK && o->tags)
      rc = check_tags(o->tags, wheels[k].path, err);
    if (rc == TS_OK)
      rc = ts_unpack(o, &wheels[k], wheels[k].stage_directly || o->no_cache, &dists[k].u,
                     err);
    if (rc == TS_OK && dists[k].u.entry_points)
      rc = ts_wheel_check_entry_points(dists[k].u.entry_points,
                                       dists[k].u.entry_points_len, err);
    if (rc != TS_OK)
      ts_error_wrap(err, "%s", wheels[k].path);
    if (rc == TS_OK)
      dists[k].libroot = ts_xstrdup(dists[k].u.root_is_purelib ? in.p.purelib
                                                            : in.p.platlib);
    for (size_t j = 0; rc == TS_OK && j < k; j++)
      if (ts_name_eq(dists[j].u.name, strlen(dists[j].u.name), dists[k].u.name,
                     strlen(dists[k].u.name)))
        rc = ts_error_set(err, TS_E_INVALID,
                          "two wheels of '%s' given (%s and %s)",
                          dists[k].u.name, dists[j].u.version,
                          dists[k].u.version);
  }
  /* 2. Lock, repair, stage. */
  if (rc == TS_OK)
    rc = ts_txn_open(&in.txn, in.p.purelib, in.p.prefix, locking(o), &o->cb, NULL, err);
  in.dists = dists;
  in.ndists = n;
  for (size_t k = 0; rc == TS_OK && k < n; k++)
    rc = remove_installed(&in, dists[k].u.name, &dists[k].old_version, err);
  char **removed = ts_xcalloc(o->nremove ? o->nremove : 1, sizeof *removed);
  for (size_t k = 0; rc == TS_OK && k < o->nremove; k++) {
    rc = remove_installed(&in, o->remove[k], &removed[k], err);
    if (rc == TS_OK && !removed[k])
      rc = ts_error_set(err, TS_E_NOT_FOUND, "'%s' is not installed",
                        o->remove[k]);
  }
  if (rc == TS_OK)
    rc = plan_removals(&in, err);
  if (rc == TS_OK)
    rc = ts_txn_begin(&in.txn, err);
  for (size_t k = 0; rc == TS_OK && k < n; k++) {
    rc = stage_dist(&in, k, &dists[k], err);
    if (rc != TS_OK)
      ts_error_wrap(err, "%s", wheels[k].path);
    rc = check_cancel(o, rc, err);
  }
  if (rc == TS_OK)
    rc = check_cancel(o, place_all(&in, err), err);
  if (rc == TS_OK)
    rc = check_cancel(o, extract_all(&in, err), err);
  for (size_t k = 0; rc == TS_OK && k < n; k++)
    rc = stage_wheel_identity(&in, k, &dists[k], err);
  if (rc == TS_OK && o->compile)
    rc = check_cancel(o, compile_all(&in, err), err);
  if (rc == TS_OK)
    rc = write_records(&in, dists, n, err);
  /* 3. Journal and switch in. */
  if (rc == TS_OK)
    rc = ensure_roots(&in, err);
  if (rc == TS_OK)
    rc = check_cancel(o, plan_moves(&in, err), err);
  if (rc == TS_OK) {
    add_prunes(&in);
    rc = ts_txn_commit(&in.txn, err);
  }
  for (size_t k = 0; k < n; k++) {
    if (rc == TS_OK)
      result_add(result, dists[k].u.name, dists[k].old_version,
                 dists[k].u.version);
    ts_unpacked_clear(&dists[k].u);
    free(dists[k].libroot);
    free(dists[k].old_version);
  }
  for (size_t k = 0; k < o->nremove; k++) {
    if (rc == TS_OK)
      result_add(result, o->remove[k], removed[k], NULL);
    free(removed[k]);
  }
  free(removed);
  free(dists);
  installer_free(&in);
  return rc;
}

enum ts_code ts_wheel_uninstall(const struct ts_wheel_options *o,
                                const char *const *names, size_t n,
                                struct ts_wheel_result *result,
                                struct ts_error *err) {
  struct installer in;
  enum ts_code rc = installer_init(&in, o, result, err);
  if (rc == TS_OK)
    rc = ts_txn_open(&in.txn, in.p.purelib, in.p.prefix, locking(o), &o->cb, NULL, err);
  char **versions = ts_xcalloc(n ? n : 1, sizeof *versions);
  for (size_t k = 0; rc == TS_OK && k < n; k++) {
    rc = remove_installed(&in, names[k], &versions[k], err);
    if (rc == TS_OK && !versions[k])
      rc = ts_error_set(err, TS_E_NOT_FOUND, "'%s' is not installed",
                        names[k]);
  }
  if (rc == TS_OK)
    rc = plan_removals(&in, err);
  if (rc == TS_OK)
    rc = ts_txn_begin(&in.txn, err);
  if (rc == TS_OK) {
    add_prunes(&in);
    rc = ts_txn_commit(&in.txn, err);
  }
  for (size_t k = 0; k < n; k++) {
    if (rc == TS_OK)
      result_add(result, names[k], versions[k], NULL);
    free(versions[k]);
  }
  free(versions);
  installer_free(&in);
  return rc;
}

enum ts_code ts_wheel_repair(const struct ts_wheel_options *o, bool *repaired,
                             struct ts_error *err) {
  struct installer in;
  enum ts_code rc = installer_init(&in, o, NULL, err);
  if (rc == TS_OK)
    rc = ts_txn_open(&in.txn, in.p.purelib, in.p.prefix, locking(o), &o->cb, repaired, err);
  installer_free(&in);
  return rc;
}

enum ts_code ts_wheel_lock_env(const char *purelib, const char *env, bool no_wait,
                               const struct ts_wheel_callbacks *cb, int *fd,
                               struct ts_error *err) {
  struct ts_txn t;
  *fd = -1;
  enum ts_code rc = ts_txn_open(&t, purelib, env,
                                no_wait ? TS_TXN_LOCK_NO_WAIT : TS_TXN_LOCK_WAIT,
                                cb, NULL, err);
  /* an environment this process cannot write cannot change here: no lock
   * to hold (a no-op install succeeds); a change fails on its own lock */
  if (rc == TS_E_IO && access(purelib, W_OK) != 0 && (errno == EROFS || errno == EACCES))
    return TS_OK;
  if (rc != TS_OK)
    return rc;
  *fd = t.lock_fd; /* ours now: ts_txn_end must not close it */
  t.lock_fd = -1;
  ts_txn_end(&t);
  return TS_OK;
}

void ts_wheel_unlock_env(int fd) {
  if (fd >= 0)
    close(fd); /* releases the flock */
}

enum ts_code ts_wheel_unpack(const struct ts_wheel_options *o,
                             const struct ts_wheel_request *w, char **dir_out,
                             struct ts_error *err) {
  struct ts_unpacked u;
  *dir_out = NULL;
  enum ts_code rc = ts_unpack(o, w, false, &u, err);
  if (rc == TS_OK) { /* the caller owns the directory, even a temporary one */
    *dir_out = u.dir;
    u.dir = NULL;
    u.temporary = false;
  }
  ts_unpacked_clear(&u);
  return rc;
}

char *ts_wheel_direct_url_for_file(const char *abs_path,
                                   const uint8_t sha256[32]) {
  struct ts_buf b;
  ts_buf_init(&b, 0);
  ts_buf_xappend_str(&b, "{\"archive_info\": {");
  if (sha256) {
    char hex[65];
    ts_sha256_hex(sha256, hex);
    ts_buf_xprintf(&b, "\"hash\": \"sha256=%s\", \"hashes\": {\"sha256\": "
                   "\"%s\"}",
                   hex, hex);
  }
  ts_buf_xappend_str(&b, "}, \"url\": \"file://");
  /* Percent-encode what a URL path cannot hold literally (and JSON's
   * specials), so the result is valid as both. */
  for (const unsigned char *p = (const unsigned char *)abs_path; *p; p++) {
    bool plain = (*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') ||
                 (*p >= '0' && *p <= '9') || strchr("/-._~+", *p);
    if (plain)
      ts_buf_xappend(&b, p, 1);
    else
      ts_buf_xprintf(&b, "%%%02X", *p);
  }
  ts_buf_xappend_str(&b, "\"}");
  return ts_buf_take(&b, NULL);
}
