/* A lock's files as a static index: see mirror.h. */
#include "plan/mirror.h"

#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "core/alloc.h"
#include "core/buf.h"
#include "core/filehash.h"
#include "core/fs.h"
#include "core/sha256.h"
#include "core/str.h"
#include "core/vec.h"
#include "index/url.h"
#include "pep/filename.h"
#include "pep/name.h"
#include "variant/label.h"

struct mfile {
  char *name;       /* the file name */
  char *source;     /* its URL (a path of the lock made file://) */
  char *sha256;
  const char *requires_python;
  const char *project;
  char *variant;    /* "cu126" when it came from a PyTorch-style variant
                       index (its lock entry's index ends so), else NULL */
  bool wheel;
  long long size;
  char metadata_sha256[TS_SHA256_HEX_LEN + 1]; /* "" when none */
};

struct mirror {
  const char *dir;
  char *files_dir;
  struct mfile *v;
  size_t n, cap;
};

static bool ends_with(const char *s, const char *tail) {
  size_t n = strlen(s), t = strlen(tail);
  return n >= t && strcmp(s + n - t, tail) == 0;
}

/* The last path segment of a variant index ("https://download.pytorch.org/
 * whl/cu126" gives cu126); NULL for a simple index (".../simple"). */
static char *variant_of(const char *index) {
  if (!index)
    return NULL;
  size_t n = strlen(index);
  while (n && index[n - 1] == '/')
    n--;
  size_t start = n;
  while (start && index[start - 1] != '/')
    start--;
  if (n == start || (n - start == 6 && strncmp(index + start, "simple", 6) == 0))
    return NULL;
  return ts_xstrndup(index + start, n - start);
}

static void add_file(struct mirror *m, const struct ts_pylock_package *pkg,
                     const struct ts_pylock_file *f, const char *lock_dir) {
  char *name = ts_pylock_file_decoded_name(f);
  if (!name)
    return;
  for (size_t i = 0; i < m->n; i++)
    if (strcmp(m->v[i].name, name) == 0) {
      free(name);
      return;
    }
  char *source = NULL;
  if (f->url)
    source = ts_xstrdup(f->url);
  else if (f->path)
    source = f->path[0] == '/' ? ts_xasprintf("file://%s", f->path)
                               : ts_xasprintf("file://%s/%s", lock_dir, f->path);
  m->v = ts_vec_grow(m->v, &m->cap, m->n + 1, sizeof *m->v);
  m->v[m->n++] = (struct mfile){.name = name, .source = source,
                                .sha256 = ts_pylock_file_sha256(f) ? ts_xstrdup(ts_pylock_file_sha256(f)) : NULL,
                                .requires_python = pkg->requires_python,
                                .project = pkg->name, .variant = variant_of(pkg->index),
                                .wheel = ends_with(name, ".whl"),
                                .size = f->size};
}

/* True when the package locks a PEP 825 variant wheel (a label after the
 * platform tag). */
static bool locks_variant_wheel(const struct ts_pylock_package *pkg) {
  bool any = false;
  for (size_t k = 0; k < pkg->nwheels && !any; k++) {
    char *name = ts_pylock_file_decoded_name(&pkg->wheels[k]);
    struct ts_wheel_filename *w = NULL;
    char *label = NULL;
    any = name && ts_variant_wheel_filename_parse(name, strlen(name), &w, &label, NULL) == TS_OK &&
          label;
    ts_wheel_filename_free(w);
    free(label);
    free(name);
  }
  return any;
}

/* A package with variant wheels: its release's variants.json, which PEP 825
 * puts on the same index page (the lock does not carry it), joins the
 * mirror's files, so that an install against the mirror chooses among the
 * variants as against the origin. */
static enum ts_code add_variants_json(struct mirror *m, struct ts_index *idx,
                                      const struct ts_pylock_package *pkg, struct ts_error *err) {
  if (!pkg->nwheels || !locks_variant_wheel(pkg))
    return TS_OK;
  if (!pkg->index || !pkg->version)
    return ts_error_set(err, TS_E_INVALID,
                        "%s: the lock has variant wheels but no index (or version) to read "
                        "their variants.json from; lock it again with this torchsolve",
                        pkg->name);
  const char *urls[] = {pkg->index};
  struct ts_index_result res = {0};
  enum ts_code rc = ts_index_fetch_project_from(idx, pkg->name, urls, 1, &res, err);
  if (rc == TS_OK && res.code != TS_OK) {
    *err = res.err;
    rc = res.code;
  }
  const struct ts_index_file *json = NULL;
  for (size_t i = 0; rc == TS_OK && i < res.project.nfiles && !json; i++)
    if (ts_variant_is_metadata_file(res.project.files[i].filename, pkg->name, pkg->version))
      json = &res.project.files[i];
  if (rc == TS_OK && (!json || !json->sha256))
    rc = ts_error_set(err, TS_E_NOT_FOUND,
                      "%s %s has variant wheels but %s/%s/ lists no %s-%s-variants.json%s",
                      pkg->name, pkg->version, pkg->index, pkg->name, pkg->name, pkg->version,
                      json ? " with a sha256" : "");
  bool seen = false;
  for (size_t i = 0; rc == TS_OK && i < m->n && !seen; i++)
    seen = strcmp(m->v[i].name, json->filename) == 0;
  if (rc == TS_OK && !seen) {
    m->v = ts_vec_grow(m->v, &m->cap, m->n + 1, sizeof *m->v);
    m->v[m->n++] = (struct mfile){.name = ts_xstrdup(json->filename),
                                  .source = ts_xstrdup(json->url),
                                  .sha256 = ts_xstrdup(json->sha256), .project = pkg->name,
                                  .variant = variant_of(pkg->index), .size = json->size};
  }
  ts_index_project_clear(&res.project);
  return rc;
}

static bool has_sha256(const char *path, const char *want) {
  struct stat st;
  if (!want || stat(path, &st) != 0)
    return false;
  uint8_t d[TS_SHA256_LEN];
  char hex[TS_SHA256_HEX_LEN + 1];
  struct ts_error ignore = {0};
  if (ts_filehash_path(path, NULL, d, NULL, &ignore) != TS_OK)
    return false;
  ts_sha256_hex(d, hex);
  return strcasecmp(hex, want) == 0;
}

/* Every file not already in files/ with its hash, downloaded (file://
 * sources verified where they are, then copied). */
static enum ts_code fetch_all(struct mirror *m, struct ts_index *idx,
                              struct ts_mirror_result *out, struct ts_error *err) {
  struct ts_index_download *d = ts_xcalloc(m->n + 1, sizeof *d);
  char **dest = ts_xcalloc(m->n + 1, sizeof *dest);
  size_t *which = ts_xcalloc(m->n + 1, sizeof *which);
  size_t nd = 0;
  enum ts_code rc = TS_OK;
  for (size_t i = 0; i < m->n && rc == TS_OK; i++) {
    struct mfile *f = &m->v[i];
    if (!f->source || !f->sha256) {
      rc = ts_error_set(err, TS_E_HASH_MISSING, "%s: the lock gives no %s", f->name,
                        f->source ? "sha256" : "url or path");
      break;
    }
    char *to = ts_path_join(m->files_dir, f->name);
    if (has_sha256(to, f->sha256)) {
      free(to);
      continue;
    }
    dest[nd] = to;
    which[nd] = i;
    d[nd++] = (struct ts_index_download){.url = f->source, .sha256 = f->sha256,
                                         .sha256_from = "the lock", .dest = to};
  }
  if (rc == TS_OK && nd)
    rc = ts_index_download(idx, d, nd, err);
  for (size_t k = 0; k < nd && rc == TS_OK; k++) {
    if (d[k].code != TS_OK) {
      *err = d[k].err;
      rc = d[k].code;
      break;
    }
    const char *src = m->v[which[k]].source;
    if (strncmp(src, "file://", 7) == 0) {
      char *path = ts_url_file_path(src);
      rc = path ? ts_fs_copy_atomic(path, dest[k], err)
                : ts_error_set(err, TS_E_INVALID, "'%s' is no file URL", src);
      free(path);
    }
    out->nfetched++;
  }
  ts_strv_free(dest, nd);
  free(which);
  free(d);
  return rc;
}

/* files/WHEEL.metadata (PEP 658) for every wheel, and its sha256. */
static enum ts_code write_metadata(struct mirror *m, struct ts_index *idx,
                                   struct ts_error *err) {
  enum ts_code rc = TS_OK;
  for (size_t i = 0; i < m->n && rc == TS_OK; i++) {
    struct mfile *f = &m->v[i];
    if (!f->wheel)
      continue;
    char *path = ts_path_join(m->files_dir, f->name);
    char *mpath = ts_xasprintf("%s.metadata", path);
    struct ts_buf b;
    ts_buf_init(&b, TS_CAP_METADATA);
    struct ts_error ignore = {0};
    if (ts_fs_read_file(mpath, &b, &ignore) != TS_OK || !b.data) {
      char *url = ts_xasprintf("file://%s", path);
      struct ts_index_file file = {.filename = f->name, .url = url, .sha256 = (char *)f->sha256,
                                   .size = -1};
      struct ts_index_metadata md = {.file = &file};
      rc = ts_index_fetch_metadata(idx, &md, 1, err);
      if (rc == TS_OK && md.code != TS_OK) {
        *err = md.err;
        rc = md.code;
      }
      if (rc == TS_OK)
        rc = ts_fs_write_atomic(mpath, md.data, md.len, err);
      if (rc == TS_OK) {
        ts_buf_reset(&b);
        rc = ts_buf_append(&b, md.data, md.len);
      }
      ts_index_metadata_clear(&md);
      free(url);
    }
    if (rc == TS_OK) {
      uint8_t d[TS_SHA256_LEN];
      ts_sha256(b.data ? b.data : "", b.len, d);
      ts_sha256_hex(d, f->metadata_sha256);
    }
    ts_buf_clear(&b);
    free(mpath);
    free(path);
  }
  return rc;
}

/* ---- the pages ---------------------------------------------------------- */

static bool put(struct ts_buf *b, const char *s) { return ts_buf_append_str(b, s) == TS_OK; }

static bool put_html(struct ts_buf *b, const char *s) {
  bool ok = true;
  for (; *s && ok; s++)
    ok = *s == '<' ? put(b, "&lt;") : *s == '>' ? put(b, "&gt;") : *s == '&' ? put(b, "&amp;")
         : *s == '"' ? put(b, "&quot;") : ts_buf_append(b, s, 1) == TS_OK;
  return ok;
}

static bool put_json(struct ts_buf *b, const char *s) {
  bool ok = put(b, "\"");
  for (; *s && ok; s++)
    ok = (*s == '"' || *s == '\\') ? ts_buf_printf(b, "\\%c", *s) == TS_OK
         : (unsigned char)*s < 0x20 ? ts_buf_printf(b, "\\u%04x", (unsigned char)*s) == TS_OK
                                     : ts_buf_append(b, s, 1) == TS_OK;
  return ok && put(b, "\"");
}

static int by_file(const void *a, const void *b) {
  const struct mfile *x = a, *y = b;
  int c = strcmp(x->project, y->project);
  return c ? c : strcmp(x->name, y->name);
}

static int by_variant(const void *a, const void *b) {
  const struct mfile *x = a, *y = b;
  int c = strcmp(x->variant ? x->variant : "", y->variant ? y->variant : "");
  return c ? c : by_file(a, b);
}

static bool html_link(struct ts_buf *b, const struct mfile *f, const char *up) {
  bool ok = ts_buf_printf(b, "<a href=\"%sfiles/%s#sha256=%s\"", up, f->name, f->sha256) == TS_OK;
  if (ok && f->requires_python)
    ok = put(b, " data-requires-python=\"") && put_html(b, f->requires_python) && put(b, "\"");
  if (ok && f->metadata_sha256[0])
    ok = ts_buf_printf(b, " data-core-metadata=\"sha256=%s\" data-dist-info-metadata=\"sha256=%s\"",
                       f->metadata_sha256, f->metadata_sha256) == TS_OK;
  return ok && ts_buf_printf(b, ">%s</a><br/>\n", f->name) == TS_OK;
}

static bool json_file(struct ts_buf *b, const struct mfile *f, const char *up, bool first) {
  char *url = ts_xasprintf("%sfiles/%s", up, f->name);
  bool ok = put(b, first ? "\n    {\"filename\": " : ",\n    {\"filename\": ") &&
            put_json(b, f->name) && put(b, ", \"url\": ") && put_json(b, url) &&
            ts_buf_printf(b, ", \"hashes\": {\"sha256\": \"%s\"}", f->sha256) == TS_OK;
  free(url);
  if (ok && f->requires_python)
    ok = put(b, ", \"requires-python\": ") && put_json(b, f->requires_python);
  if (ok && f->metadata_sha256[0])
    ok = ts_buf_printf(b, ", \"core-metadata\": {\"sha256\": \"%s\"}", f->metadata_sha256) ==
         TS_OK;
  if (ok && f->size >= 0)
    ok = ts_buf_printf(b, ", \"size\": %lld", f->size) == TS_OK;
  return ok && put(b, "}");
}

static enum ts_code write_page(const char *dir, const char *file, struct ts_buf *b,
                               struct ts_error *err) {
  enum ts_code rc = ts_fs_mkdirs(dir, err);
  char *path = ts_path_join(dir, file);
  if (rc == TS_OK)
    rc = ts_fs_write_atomic(path, b->data ? b->data : "", b->len, err);
  free(path);
  ts_buf_reset(b);
  return rc;
}

/* INDEX/NAME/index.{html,json} for files [from, to) of one project, INDEX
 * being `index` under the mirror ("simple", "whl/cu126"); `up` leads from
 * the page back to the mirror's root ("../../"). */
static enum ts_code project_pages(const struct mirror *m, size_t from, size_t to,
                                  const char *index, const char *up, struct ts_error *err) {
  const char *name = m->v[from].project;
  char *simple = ts_path_join(m->dir, index);
  char *pdir = ts_path_join(simple, name);
  free(simple);
  struct ts_buf b;
  ts_buf_init(&b, 0);
  bool ok = ts_buf_printf(&b, "<!DOCTYPE html>\n<html><head><meta name=\"pypi:repository-"
                              "version\" content=\"1.1\"><title>Links for %s</title></head>"
                              "<body>\n<h1>Links for %s</h1>\n", name, name) == TS_OK;
  for (size_t i = from; i < to && ok; i++)
    ok = html_link(&b, &m->v[i], up);
  ok = ok && put(&b, "</body></html>\n");
  enum ts_code rc = ok ? write_page(pdir, "index.html", &b, err)
                       : ts_error_set(err, TS_E_TOO_BIG, "the page of %s", name);
  ok = rc == TS_OK && put(&b, "{\"meta\": {\"api-version\": \"1.1\"}, \"name\": ") &&
       put_json(&b, name) && put(&b, ", \"files\": [");
  for (size_t i = from; i < to && ok; i++)
    ok = json_file(&b, &m->v[i], up, i == from);
  ok = ok && put(&b, "\n]}\n");
  if (rc == TS_OK)
    rc = ok ? write_page(pdir, "index.json", &b, err)
            : ts_error_set(err, TS_E_TOO_BIG, "the JSON page of %s", name);
  ts_buf_clear(&b);
  free(pdir);
  return rc;
}

static enum ts_code write_pages(struct mirror *m, struct ts_mirror_result *out,
                                struct ts_error *err) {
  if (m->n > 1)
    qsort(m->v, m->n, sizeof *m->v, by_file);
  struct ts_buf html, json;
  ts_buf_init(&html, 0);
  ts_buf_init(&json, 0);
  bool ok = put(&html, "<!DOCTYPE html>\n<html><head><meta name=\"pypi:repository-version\" "
                       "content=\"1.1\"><title>Simple index</title></head><body>\n") &&
            put(&json, "{\"meta\": {\"api-version\": \"1.1\"}, \"projects\": [");
  enum ts_code rc = TS_OK;
  for (size_t i = 0, j; i < m->n && rc == TS_OK && ok; i = j) {
    for (j = i; j < m->n && strcmp(m->v[j].project, m->v[i].project) == 0; j++)
      ;
    rc = project_pages(m, i, j, "simple", "../../", err);
    ok = ts_buf_printf(&html, "<a href=\"%s/\">%s</a><br/>\n", m->v[i].project,
                       m->v[i].project) == TS_OK &&
         put(&json, out->nprojects ? ", {\"name\": " : "{\"name\": ") &&
         put_json(&json, m->v[i].project) && put(&json, "}");
    out->nprojects++;
  }
  ok = ok && put(&html, "</body></html>\n") && put(&json, "]}\n");
  char *simple = ts_path_join(m->dir, "simple");
  if (rc == TS_OK && !ok)
    rc = ts_error_set(err, TS_E_TOO_BIG, "the mirror's root page");
  if (rc == TS_OK)
    rc = write_page(simple, "index.html", &html, err);
  if (rc == TS_OK)
    rc = write_page(simple, "index.json", &json, err);
  free(simple);
  ts_buf_clear(&html);
  ts_buf_clear(&json);
  return rc;
}

/* whl/VARIANT/NAME/ for the files of PyTorch-style variant indexes, so
 * that --torch-index-url http://mirror/whl finds each build where the
 * PyTorch server has it (no root pages: the server has none either). */
static enum ts_code write_variant_pages(struct mirror *m, struct ts_error *err) {
  if (m->n > 1)
    qsort(m->v, m->n, sizeof *m->v, by_variant);
  enum ts_code rc = TS_OK;
  for (size_t i = 0, j; i < m->n && rc == TS_OK; i = j) {
    for (j = i + 1; j < m->n && m->v[j].variant && m->v[i].variant &&
                    strcmp(m->v[j].variant, m->v[i].variant) == 0 &&
                    strcmp(m->v[j].project, m->v[i].project) == 0; j++)
      ;
    if (!m->v[i].variant)
      continue;
    char *index = ts_xasprintf("whl/%s", m->v[i].variant);
    rc = project_pages(m, i, j, index, "../../../", err);
    free(index);
  }
  return rc;
}

/* ---- the lock and the README --------------------------------------------- */

static void point_into(struct ts_pylock_file *f) {
  char *name = ts_pylock_file_decoded_name(f);
  if (!name)
    return;
  free(f->url);
  free(f->path);
  f->url = NULL;
  f->path = ts_xasprintf("files/%s", name);
  if (!f->name)
    f->name = name;
  else
    free(name);
}

static enum ts_code write_lock(struct ts_pylock *lock, const char *dir, struct ts_error *err) {
  for (size_t i = 0; i < lock->npackages; i++) {
    struct ts_pylock_package *p = &lock->packages[i];
    for (size_t k = 0; k < p->nwheels; k++)
      point_into(&p->wheels[k]);
    if (p->sdist)
      point_into(p->sdist);
    free(p->index);
    p->index = NULL;
  }
  char *path = ts_path_join(dir, "pylock.toml");
  enum ts_code rc = ts_pylock_write_file(lock, path, err);
  free(path);
  return rc;
}

static const char readme[] =
    "# A torchsolve mirror\n\n"
    "Written by `torchsolve mirror LOCK DIR`: every file the lock references (all\n"
    "its GPU profiles and environments), checked against the lock's sha256, and a\n"
    "static index of exactly those files.\n\n"
    "- `files/`: the wheels and sdists, each wheel's METADATA beside it (PEP 658),\n"
    "  and the `NAME-VERSION-variants.json` of releases with variant wheels (PEP 825)\n"
    "- `simple/`: the index, PEP 503 HTML (`index.html`) and PEP 691 JSON\n"
    "  (`index.json`) for the root and each project\n"
    "- `whl/VARIANT/`: the PyTorch server's builds (cu126, rocm6.4, cpu...) where\n"
    "  that server has them, for `--torch-index-url`\n"
    "- `pylock.toml`: the lock, its files as paths into `files/`\n\n"
    "On the cluster (no route to the internet), either sync from the folder:\n\n"
    "    torchsolve sync DIR/pylock.toml --python /opt/venv\n\n"
    "or serve it with any web server (`python3 -m http.server -d DIR`, nginx's\n"
    "`root DIR; index index.html;`) and point installers at it:\n\n"
    "    torchsolve install --index-url http://mirror/simple --torch-index-url \\\n"
    "        http://mirror/whl torch\n"
    "    pip install --index-url http://mirror/simple torch\n\n"
    "Running `torchsolve mirror` again with a new lock into the same DIR fetches\n"
    "only the files that are not there yet.\n";

enum ts_code ts_plan_mirror(const char *lock_path, const char *dir, struct ts_index *idx,
                            struct ts_mirror_result *out, struct ts_error *err) {
  memset(out, 0, sizeof *out);
  struct ts_pylock *lock = NULL;
  enum ts_code rc = ts_pylock_read_file(lock_path, &lock, err);
  if (rc != TS_OK)
    return rc;
  char *abs = realpath(lock_path, NULL);
  char *slash = abs ? strrchr(abs, '/') : NULL;
  if (slash)
    *slash = '\0';
  struct mirror m = {.dir = dir, .files_dir = ts_path_join(dir, "files")};
  for (size_t i = 0; i < lock->npackages; i++) {
    const struct ts_pylock_package *p = &lock->packages[i];
    for (size_t k = 0; k < p->nwheels; k++)
      add_file(&m, p, &p->wheels[k], abs ? abs : ".");
    if (p->sdist)
      add_file(&m, p, p->sdist, abs ? abs : ".");
    out->nskipped += !p->nwheels && !p->sdist;
  }
  for (size_t i = 0; i < lock->npackages && rc == TS_OK; i++)
    rc = add_variants_json(&m, idx, &lock->packages[i], err);
  out->nfiles = m.n;
  if (rc == TS_OK)
    rc = ts_fs_mkdirs(m.files_dir, err);
  if (rc == TS_OK)
    rc = fetch_all(&m, idx, out, err);
  if (rc == TS_OK)
    rc = write_metadata(&m, idx, err);
  if (rc == TS_OK)
    rc = write_pages(&m, out, err);
  if (rc == TS_OK)
    rc = write_variant_pages(&m, err);
  if (rc == TS_OK)
    rc = write_lock(lock, dir, err);
  char *rpath = ts_path_join(dir, "README.md");
  if (rc == TS_OK)
    rc = ts_fs_write_atomic(rpath, readme, sizeof readme - 1, err);
  free(rpath);
  for (size_t i = 0; i < m.n; i++) {
    free(m.v[i].name);
    free(m.v[i].source);
    free(m.v[i].sha256);
    free(m.v[i].variant);
  }
  free(m.v);
  free(m.files_dir);
  free(abs);
  ts_pylock_free(lock);
  return rc;
}
