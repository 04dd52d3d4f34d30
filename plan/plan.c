/* Resolve and install: see plan.h and README.md. */
#include "plan/plan.h"

#include <ctype.h>
#include <dirent.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/buf.h"
#include "core/clock.h"
#include "core/fs.h"
#include "core/sha256.h"
#include "core/str.h"
#include "index/cache.h"
#include "index/simple.h"
#include "index/url.h"
#include "inventory/envcheck.h"
#include "pep/filename.h"
#include "pep/metadata.h"
#include "plan/plan_internal.h"
#include "plan/sdist_metadata.h"
#include "inventory/tree.h"
#include "pep/name.h"
#include "pep/specifier.h"
#include "target/site.h"
#include "pep/version.h"
#include "zip/zip.h"

/* A page the provider handed out: a fetched result or a one-file page. */
struct page {
  struct ts_index_result res;
  const struct ts_index_project *self[1];
};

struct meta {
  const struct ts_index_file *file;
  char *data;
  size_t len;
};

struct direct {
  char *name; /* normalised */
  const struct ts_reqfile_entry *e;
  char *location; /* path or URL as given */
  bool is_path;
  struct ts_index_file file;
  struct page page;
  struct ts_source_built built; /* built from source when built.wheel */
  struct meta prepared; /* --dry-run: a source's METADATA, not built */
};

struct variants {
  char **names;
  bool *cpu;
  size_t n;
};

/* One resolution of the runtime (see runtime_resolve), made once. */
struct runtime_answer {
  bool resolved;
  char *torch;  /* the torch build it chose, or NULL */
  char **pins;  /* "name==version" of everything it chose */
  size_t npins;
};

/* The runtime of torch-matched builds (o: the plan's copy of the caller's
 * options; its entries are read only while ts_plan_resolve runs): with
 * torch added when no requirement
 * names it (what isolated builds get), and as named (what a
 * --no-build-isolation build's target is given). */
struct runtime_torch {
  const struct ts_plan_options *o;
  struct ts_source_build_kept *kept; /* the plan's, shared with its builds */
  struct runtime_answer with_torch, as_named;
};

struct priv {
  struct ts_plan_result *owner; /* the result this provider fills (notes) */
  const struct ts_rules *rules; /* the caller's (borrowed), for --report */
  struct ts_index *idx;
  const struct ts_constraint_set *set;
  char **routes; /* <torch>/<variant> for each usable backend */
  size_t nroutes;
  struct direct *directs;
  size_t ndirects;
  struct page **pages;
  size_t npages;
  struct meta *metas;
  size_t nmetas;
  struct ts_site site; /* the target's installed set */
  struct ts_resolver_installed *installed;
  size_t ninstalled;
  struct ts_requirement **roots, **cons;
  size_t nroots, ncons;
  struct ts_resolver_variant_pref *prefs;
  const char **patterns;
  size_t nprefs;
  const char **priority; /* torch, then the other routed projects */
  size_t npriority;
  struct variants vars; /* owns the pattern strings */
  const char **general; /* general index URLs (borrowed from the options) */
  size_t ngeneral;
  const struct ts_reqfile_entry *const *entries; /* borrowed from the options */
  size_t nentries;
  char **not_found; /* the index client's words for names no index has */
  size_t nnot_found;
  bool first_index;  /* the strategy: later general indexes are not asked */
  bool builds; /* sources can be built: with build */
  struct ts_source_build_options build; /* the caller's (its pointers
                                         borrowed), with the torch match */
  struct ts_plan_options opts; /* the caller's, for the runtime (its
                                  pointers borrowed; entries, upgrade
                                  names and preferences only while
                                  resolving) */
  struct runtime_torch rt; /* its runtime torch */
  bool dry_run; /* sources were not built: nothing may be installed */
  struct ts_target *metadata_target; /* build.metadata_python's, once probed */
  int env_lock_fd;   /* the environment's lock (ts_plan_options.lock_env), or -1 */
  bool env_lock_borrowed; /* the plan that made this one holds it (the
                             first phase of a two-phase install) */
  struct ts_source_build_kept *own_kept; /* build.kept when made here */
  /* ts_plan_unmet_requirements' lines, worked out once: the warning and
   * the report both ask, and each asking parsed every METADATA and
   * Requires-Dist of the environment again (a tenth of a warm resolve) */
  char **unmet;
  size_t nunmet;
  bool unmet_known;
};

/* ---- --hash options (plan_hashes.c) ---------------------------------- */

/* Compacting a page's files in place: file i moves to slot *k when kept,
 * else it is cleared. */
static void keep_file(struct ts_index_project *pr, size_t i, size_t *k, bool keep) {
  if (!keep) {
    ts_index_file_clear(&pr->files[i]);
    return;
  }
  if (*k != i)
    pr->files[*k] = pr->files[i];
  (*k)++;
}

/* pip's filter_unallowed_hashes: when some file the requirement accepts has
 * an allowed hash, the accepted files whose known hash is not allowed are
 * dropped, so the resolver picks among what the hashes permit (files
 * without a hash stay: the download checks them).  When none matches, the
 * page is left whole and the mismatch is reported once a file is chosen. */
static void filter_hashes(struct ts_index_project *pr, const struct ts_reqfile_entry *e) {
  bool any = false;
  for (size_t i = 0; i < pr->nfiles && !any; i++)
    any = ts_plan_entry_allows(e, pr->files[i].sha256) && ts_plan_entry_accepts_file(e, &pr->files[i]);
  if (!any)
    return;
  size_t k = 0;
  for (size_t i = 0; i < pr->nfiles; i++)
    keep_file(pr, i, &k, !(pr->files[i].sha256 && !ts_plan_entry_allows(e, pr->files[i].sha256) &&
                           ts_plan_entry_accepts_file(e, &pr->files[i])));
  pr->nfiles = k;
}

/* ---- routing and provider -------------------------------------------- */

static size_t route(void *ctx, const char *name, const char **urls, size_t max) {
  struct priv *p = ctx;
  if (!ts_plan_is_routed(p->set, name))
    return 0;
  size_t n = 0;
  for (size_t i = 0; i < p->nroutes && n < max; i++)
    urls[n++] = p->routes[i];
  return n;
}

static struct direct *find_direct(struct priv *p, const char *name) {
  for (size_t i = 0; i < p->ndirects; i++)
    if (strcmp(p->directs[i].name, name) == 0)
      return &p->directs[i];
  return NULL;
}

/* Keeps a fetched page for the resolution's lifetime (the provider hands
 * out pointers into it); takes over r's project. */
static struct page *keep_page(struct priv *p, const struct ts_index_result *r) {
  struct page *pg = ts_xcalloc(1, sizeof *pg);
  pg->res = *r;
  ts_plan_variants_apply(p->owner->variants, p->idx, &pg->res.project, &p->owner->notes,
                         &p->owner->nnotes);
  pg->self[0] = &pg->res.project;
  p->pages = ts_xreallocarray(p->pages, p->npages + 1, sizeof *p->pages);
  p->pages[p->npages++] = pg;
  return pg;
}

static enum ts_code get_pages(void *ctx, const char *const *names, size_t n,
                              struct ts_resolver_pages *out, struct ts_error *err) {
  struct priv *p = ctx;
  const char **want = ts_xcalloc(n, sizeof *want);
  size_t *slot = ts_xcalloc(n, sizeof *slot);
  size_t nwant = 0;
  for (size_t i = 0; i < n; i++) {
    char *norm = ts_name_normalize(names[i], strlen(names[i]));
    struct direct *d = norm ? find_direct(p, norm) : NULL;
    free(norm);
    if (d) {
      out[i].projects = d->page.self;
      out[i].nprojects = 1;
      continue;
    }
    out[i].projects = NULL;
    out[i].nprojects = 0;
    want[nwant] = names[i];
    slot[nwant++] = i;
  }
  enum ts_code rc = TS_OK;
  if (nwant) {
    struct ts_index_result *res = ts_xcalloc(nwant, sizeof *res);
    rc = ts_index_fetch_projects(p->idx, want, nwant, res, err);
    for (size_t j = 0; j < nwant; j++) {
      if (rc == TS_OK && res[j].code == TS_OK) {
        const struct ts_reqfile_entry *he =
            ts_plan_hash_entry(p->entries, p->nentries, res[j].project.name);
        if (he)
          filter_hashes(&res[j].project, he);
        ts_plan_drop_routed_find_links(p->set, &res[j].project, &p->owner->notes,
                                       &p->owner->nnotes);
        struct page *pg = keep_page(p, &res[j]);
        out[slot[j]].projects = pg->self;
        out[slot[j]].nprojects = 1;
        continue;
      }
      if (rc == TS_OK && res[j].code == TS_E_NOT_FOUND && p->ngeneral) {
        /* A routed project that no variant index has (triton on the cpu
         * index) comes from the general indexes, as pip would take it. */
        char *norm = ts_name_normalize(want[j], strlen(want[j]));
        bool routed = norm && ts_plan_is_routed(p->set, norm);
        free(norm);
        if (routed) {
          struct ts_index_result fb = {0};
          enum ts_code frc = ts_index_fetch_project_from(
              p->idx, want[j], (const char *const *)p->general, p->ngeneral, &fb, err);
          if (frc == TS_OK && fb.code == TS_OK) {
            ts_index_project_clear(&res[j].project);
            struct page *pg = keep_page(p, &fb);
            out[slot[j]].projects = pg->self;
            out[slot[j]].nprojects = 1;
            continue;
          }
          ts_index_project_clear(&fb.project);
          *err = (struct ts_error){0};
        }
      }
      if (rc == TS_OK && res[j].code != TS_E_NOT_FOUND) {
        *err = res[j].err;
        rc = res[j].code;
      } else if (rc == TS_OK && res[j].err.detail[0]) {
        p->not_found = ts_xrealloc(p->not_found, (p->nnot_found + 1) * sizeof *p->not_found);
        p->not_found[p->nnot_found] = ts_xstrdup(res[j].err.detail);
        out[slot[j]].not_found = p->not_found[p->nnot_found++];
      }
      ts_index_project_clear(&res[j].project);
    }
    free(res);
  }
  free(want);
  free(slot);
  return rc;
}

static const struct ts_marker_env *variant_env(void *ctx, const char *name,
                                              const struct ts_index_file *f) {
  return ts_plan_variants_env(((struct priv *)ctx)->owner->variants, name, f);
}

/* For an explanation: the project's pages on the general indexes after the
 * one that answered, which first-index never asked.  Routed projects are
 * left out: they come from the PyTorch server by design, not by order. */
static size_t get_pages_elsewhere(void *ctx, const char *name,
                                  const struct ts_index_project **out, size_t max) {
  struct priv *p = ctx;
  if (!p->first_index || p->ngeneral < 2 || ts_plan_is_routed(p->set, name))
    return 0;
  const char *from = NULL;
  for (size_t i = 0; i < p->npages && !from; i++)
    if (strcmp(p->pages[i]->res.project.name, name) == 0)
      from = p->pages[i]->res.project.index_url;
  size_t n = 0, start = 0;
  for (size_t i = 0; from && i < p->ngeneral; i++)
    if (strcmp(p->general[i], from) == 0)
      start = i + 1;
  for (size_t i = start; i < p->ngeneral && n < max; i++) {
    struct ts_index_result res = {0};
    struct ts_error ignore = {0};
    if (ts_index_fetch_project_from(p->idx, name, &p->general[i], 1, &res, &ignore) !=
            TS_OK ||
        res.code != TS_OK) {
      ts_index_project_clear(&res.project);
      continue;
    }
    out[n++] = &keep_page(p, &res)->res.project;
  }
  return n;
}

static struct meta *find_meta(struct priv *p, const struct ts_index_file *f) {
  for (size_t i = 0; i < p->ndirects; i++)
    if (&p->directs[i].file == f && p->directs[i].prepared.data)
      return &p->directs[i].prepared;
  for (size_t i = 0; i < p->nmetas; i++)
    if (p->metas[i].file == f)
      return &p->metas[i];
  return NULL;
}

static struct meta *keep_meta(struct priv *p, const struct ts_index_file *f, char *data,
                              size_t len) {
  p->metas = ts_xrealloc(p->metas, (p->nmetas + 1) * sizeof *p->metas);
  p->metas[p->nmetas] = (struct meta){f, data, len};
  return &p->metas[p->nmetas++];
}

/* The PEP 658 file beside a local sdist, checked against the index's
 * sha256 of it; false when there is none. */
static bool local_pep658(const struct ts_index_file *f, char **data, size_t *len) {
  char *path = ts_url_file_path(f->url);
  char *mpath = path ? ts_xasprintf("%s.metadata", path) : NULL;
  struct ts_buf b;
  ts_buf_init(&b, TS_CAP_METADATA);
  struct ts_error ignore = {0};
  bool ok = mpath && ts_fs_read_file(mpath, &b, &ignore) == TS_OK && b.data;
  if (ok && f->metadata_sha256) {
    uint8_t d[TS_SHA256_LEN];
    char hex[TS_SHA256_HEX_LEN + 1];
    ts_sha256(b.data, b.len, d);
    ts_sha256_hex(d, hex);
    ok = strcasecmp(hex, f->metadata_sha256) == 0;
  }
  if (ok)
    *data = ts_buf_take(&b, len);
  ts_buf_clear(&b);
  free(mpath);
  free(path);
  return ok;
}

/* The page `f` is a file of, or NULL. */
static const struct ts_index_project *project_of_file(const struct priv *p,
                                                      const struct ts_index_file *f) {
  for (size_t i = 0; i < p->npages; i++) {
    const struct ts_index_project *pr = &p->pages[i]->res.project;
    if (pr->nfiles && f >= pr->files && f < pr->files + pr->nfiles)
      return pr;
  }
  return NULL;
}

/* *found with rq filled when plan/sdist_metadata.h finds the metadata
 * without a build (and a note saying where from). */
static enum ts_code static_sdist_metadata(struct priv *p, struct ts_resolver_meta *rq,
                                          bool *found, struct ts_error *err) {
  struct ts_sdist_metadata sm;
  enum ts_code rc =
      ts_plan_sdist_metadata(p->idx, project_of_file(p, rq->file), rq->file, &sm, err);
  if (rc == TS_OK && sm.from != TS_SDIST_METADATA_NONE) {
    struct meta *m = keep_meta(p, rq->file, sm.data, sm.len);
    sm.data = NULL;
    rq->data = m->data;
    rq->len = m->len;
    rq->code = TS_OK;
    *found = true;
    struct ts_plan_result *r = p->owner;
    r->notes = ts_xreallocarray(r->notes, r->nnotes + 1, sizeof *r->notes);
    r->notes[r->nnotes++] = ts_sdist_metadata_note(&sm, rq->name, rq->version);
  }
  ts_sdist_metadata_clear(&sm);
  return rc;
}

/* An sdist's METADATA: PEP 658's file when the index publishes one (a
 * remote index's through ts_index_fetch_metadata, see get_metadata),
 * else from its build backend.  Prefetches are declined: a guess is not
 * worth a build environment. */
static enum ts_code sdist_metadata(struct priv *p, struct ts_resolver_meta *rq,
                                   struct ts_error *err) {
  char *data = NULL;
  size_t len = 0;
  if (rq->file->has_metadata && local_pep658(rq->file, &data, &len)) {
    struct meta *m = keep_meta(p, rq->file, data, len);
    rq->data = m->data;
    rq->len = m->len;
    rq->code = TS_OK;
    return TS_OK;
  }
  if (rq->prefetch) {
    rq->code = TS_E_UNSUPPORTED;
    return TS_OK;
  }
  /* a target without an interpreter (a universal lock's environment):
   * the metadata its wheels agree on or its static PKG-INFO, before any
   * interpreter is asked to build it */
  const struct ts_target *builder = p->owner->target;
  bool found = false;
  enum ts_code rc = builder->python ? TS_OK : static_sdist_metadata(p, rq, &found, err);
  if (rc != TS_OK || found)
    return rc;
  if (!builder->python && p->build.metadata_python && !p->metadata_target)
    rc = ts_target_open(p->build.metadata_python, NULL, p->build.probe_cache_dir,
                        &p->metadata_target, err);
  if (p->metadata_target)
    builder = p->metadata_target;
  char *label = ts_xasprintf("%s %s", rq->name, rq->version);
  struct ts_source_spec src = {.kind = TS_SOURCE_URL, .location = rq->file->url,
                               .sha256 = rq->file->sha256, .label = label,
                               .name = rq->name};
  char *log = NULL;
  if (rc == TS_OK)
    rc = ts_source_build_metadata(&p->build, builder, p->idx, &src, &data, &len, &log, err);
  free(label);
  if (rc != TS_OK) {
    free(p->owner->build_log);
    p->owner->build_log = log;
    rq->code = rc;
    return rc;
  }
  struct meta *m = keep_meta(p, rq->file, data, len);
  rq->data = m->data;
  rq->len = m->len;
  rq->code = TS_OK;
  return TS_OK;
}

static bool is_sdist_file(const struct ts_index_file *f) {
  size_t n = strlen(f->filename);
  return !(n > 4 && strcmp(f->filename + n - 4, ".whl") == 0);
}

static enum ts_code get_metadata(void *ctx, struct ts_resolver_meta *reqs, size_t n,
                                 struct ts_error *err) {
  struct priv *p = ctx;
  struct ts_index_metadata *m = ts_xcalloc(n, sizeof *m);
  size_t *slot = ts_xcalloc(n, sizeof *slot);
  size_t nm = 0;
  enum ts_code rc = TS_OK;
  for (size_t i = 0; i < n && rc == TS_OK; i++) {
    struct meta *have = find_meta(p, reqs[i].file);
    if (have) {
      reqs[i].data = have->data;
      reqs[i].len = have->len;
      reqs[i].code = TS_OK;
      continue;
    }
    const struct ts_index_file *f = reqs[i].file;
    if (is_sdist_file(f) && p->builds &&
        (!f->has_metadata || strncmp(f->url, "file://", 7) == 0)) {
      rc = sdist_metadata(p, &reqs[i], err);
      continue;
    }
    m[nm].file = reqs[i].file;
    slot[nm++] = i;
  }
  if (rc == TS_OK && nm)
    rc = ts_index_fetch_metadata(p->idx, m, nm, err);
  for (size_t j = 0; j < nm; j++) {
    struct ts_resolver_meta *r = &reqs[slot[j]];
    if (rc == TS_OK && m[j].code == TS_OK) {
      struct meta *kept = keep_meta(p, m[j].file, m[j].data, m[j].len);
      m[j].data = NULL;
      r->data = kept->data;
      r->len = kept->len;
      r->code = TS_OK;
    } else {
      r->code = rc != TS_OK ? rc : m[j].code;
      if (!r->prefetch && m[j].code != TS_OK && err->code == TS_OK)
        *err = m[j].err;
    }
    ts_index_metadata_clear(&m[j]);
  }
  free(m);
  free(slot);
  return rc;
}

/* ---- requirements ------------------------------------------------------ */

static enum ts_code parse_req(const char *text, struct ts_requirement **out,
                              struct ts_error *err) {
  return ts_requirement_parse(text, strlen(text), out, err);
}

static char *file_url_for(const char *path) {
  char *abs = realpath(path, NULL);
  const char *use = abs ? abs : path;
  size_t n = strlen(use) + 8;
  char *u = ts_xcalloc(n, 1);
  snprintf(u, n, "file://%s", use);
  free(abs);
  return u;
}

static const char *basename_of(const char *s) {
  const char *q = strchr(s, '?');
  const char *h = strchr(s, '#');
  size_t end = strlen(s);
  if (q && (size_t)(q - s) < end)
    end = (size_t)(q - s);
  if (h && (size_t)(h - s) < end)
    end = (size_t)(h - s);
  const char *b = s;
  for (size_t i = 0; i < end; i++)
    if (s[i] == '/')
      b = s + i + 1;
  return b;
}

/* A root given as a path or URL: a one-file page and a requirement on the
 * name alone (the page holds nothing else).  A source stands as the wheel
 * built from it (`built`), or for --dry-run as its prepared METADATA
 * (`prepared`, taken) on a page with an sdist-like file NAME-VERSION.tar.gz,
 * so the plan says it would be built. */
static enum ts_code add_direct(struct priv *p, const struct ts_reqfile_entry *e,
                               struct ts_source_built *built, struct meta *prepared,
                               struct ts_error *err) {
  const char *name = NULL, *loc = NULL;
  bool is_path = false;
  const char *const *extras = NULL;
  size_t nextras = 0;
  const char *marker = NULL;
  if (e->kind == TS_REQFILE_NAMED) {
    name = e->req->normalized_name;
    loc = e->req->url;
    extras = (const char *const *)e->req->extras;
    nextras = e->req->nextras;
    is_path = strncmp(loc, "file://", 7) == 0;
  } else {
    name = e->name;
    loc = e->kind == TS_REQFILE_URL ? e->url : e->path;
    is_path = e->kind == TS_REQFILE_PATH;
    extras = (const char *const *)e->extras;
    nextras = e->nextras;
    marker = e->marker;
  }
  const char *source = loc;
  char *built_name = NULL, *stand_in = NULL;
  if (prepared) {
    char *n = ts_metadata_header_value(prepared->data, prepared->len, "Name");
    char *v = ts_metadata_header_value(prepared->data, prepared->len, "Version");
    if (n && v) {
      built_name = ts_name_normalize(n, strlen(n));
      stand_in = ts_xasprintf("%s-%s.tar.gz", built_name, v);
    }
    free(n);
    free(v);
    if (!stand_in)
      return ts_error_set(err, TS_E_BUILD, "'%s': its prepared METADATA has no Name "
                          "or Version", source);
  }
  if (built) { /* the wheel built from the source stands for it */
    loc = built->wheel;
    is_path = true;
    struct ts_wheel_filename *w = NULL;
    const char *bn = basename_of(loc);
    if (ts_wheel_filename_parse(bn, strlen(bn), &w, NULL) == TS_OK) {
      built_name = ts_xstrdup(w->normalized_name);
      ts_wheel_filename_free(w);
    }
    if (!built_name)
      return ts_error_set(err, TS_E_BUILD, "'%s': the backend built '%s', which is "
                          "not a valid wheel name", source, bn);
  }
  if (built_name) {
    if (name && strcmp(name, built_name) != 0) {
      enum ts_code rc = ts_error_set(err, TS_E_BUILD,
                                     "'%s' was asked for as '%s' but builds '%s'",
                                     source, name, built_name);
      free(built_name);
      free(stand_in);
      return rc;
    }
    name = built_name;
  }
  if (!name)
    return ts_error_set(err, TS_E_UNSUPPORTED,
                        "cannot tell the project name of '%s' (only wheel files "
                        "are supported)", loc ? loc : e->text);
  const char *fname = stand_in ? stand_in : basename_of(loc);
  size_t fl = strlen(fname);
  if (!stand_in && (fl < 5 || strcmp(fname + fl - 4, ".whl") != 0))
    return ts_error_set(err, TS_E_UNSUPPORTED,
                        "'%s' is not a wheel: torchsolve installs wheels only", loc);
  if (is_path && strncmp(loc, "file://", 7) != 0) {
    struct stat st;
    if (stat(loc, &st) != 0)
      return ts_error_set(err, TS_E_NOT_FOUND, "no such file: '%s'", loc);
  }
  p->directs = ts_xrealloc(p->directs, (p->ndirects + 1) * sizeof *p->directs);
  struct direct *d = &p->directs[p->ndirects++];
  memset(d, 0, sizeof *d);
  d->name = ts_name_normalize(name, strlen(name));
  free(built_name);
  name = d->name;
  d->e = e;
  d->location = ts_xstrdup(built ? source : loc);
  if (built) {
    d->built = *built;
    memset(built, 0, sizeof *built);
  }
  if (prepared) {
    d->prepared = *prepared;
    memset(prepared, 0, sizeof *prepared);
  }
  d->is_path = is_path;
  d->file.filename = ts_xstrdup(fname);
  free(stand_in);
  d->file.url = is_path && strncmp(loc, "file://", 7) != 0 ? file_url_for(loc) : ts_xstrdup(loc);
  /* a --hash of a source is its archive's, checked before the build */
  const char *h = d->built.wheel ? NULL : ts_plan_entry_only_sha256(e);
  d->file.sha256 = h ? ts_xstrdup(h) : NULL;
  d->file.size = -1;
  d->page.res.project.name = ts_xstrdup(d->name);
  d->page.res.project.index_url = ts_xstrdup(d->file.url);
  d->page.res.project.files = &d->file;
  d->page.res.project.nfiles = 1;
  /* self is set once the array stops moving (fix_directs) */
  struct ts_buf b;
  ts_buf_init(&b, 4096);
  bool ok = ts_buf_append_str(&b, d->name) == TS_OK;
  for (size_t i = 0; i < nextras; i++)
    ok = ok && ts_buf_printf(&b, "%s%s", i ? "," : "[", extras[i]) == TS_OK;
  if (nextras)
    ok = ok && ts_buf_append_str(&b, "]") == TS_OK;
  /* the file's own version: an installed other version does not satisfy
   * "install this file" (pip replaces it) */
  if (e->kind != TS_REQFILE_NAMED && e->version)
    ok = ok && ts_buf_printf(&b, "===%s", e->version) == TS_OK;
  if (marker)
    ok = ok && ts_buf_printf(&b, "; %s", marker) == TS_OK;
  struct ts_requirement *r = NULL;
  enum ts_code rc = ok && b.data ? parse_req(b.data, &r, err)
                                 : ts_error_set(err, TS_E_TOO_BIG, "requirement too long");
  ts_buf_clear(&b);
  if (rc != TS_OK)
    return rc;
  p->roots = ts_xrealloc(p->roots, (p->nroots + 1) * sizeof *p->roots);
  p->roots[p->nroots++] = r;
  return TS_OK;
}

/* The direct requirement built from source for installed name `name`. */
static struct direct *built_direct(struct priv *p, const char *name) {
  char *norm = ts_name_normalize(name, strlen(name));
  struct direct *d = norm ? find_direct(p, norm) : NULL;
  free(norm);
  return d && (d->built.wheel || d->prepared.data) ? d : NULL;
}

/* A project rebuilt from source replaces what is installed: the action
 * says so (the resolver never saw the installed one). */
static void mark_rebuilt(struct priv *p, struct ts_resolved *x) {
  for (size_t k = 0; k < p->site.n; k++) {
    const char *iv = p->site.dists[k].version;
    struct direct *d = iv ? built_direct(p, p->site.dists[k].name) : NULL;
    if (!d || strcmp(d->name, x->name) != 0 || x->action != TS_ACTION_INSTALL)
      continue;
    struct ts_version *a = NULL, *b = NULL;
    int c = 0;
    if (ts_version_parse(iv, strlen(iv), &a, NULL) == TS_OK &&
        ts_version_parse(x->version, strlen(x->version), &b, NULL) == TS_OK)
      c = ts_version_cmp(b, a);
    ts_version_free(a);
    ts_version_free(b);
    x->action = c > 0 ? TS_ACTION_UPGRADE : c < 0 ? TS_ACTION_DOWNGRADE : TS_ACTION_REINSTALL;
    free(x->installed_version);
    x->installed_version = ts_xstrdup(iv);
  }
}

/* Points each direct's page at its own members once the array stops
 * moving (add_direct reallocates it: two path requirements would
 * otherwise leave the first page's file pointing into freed memory). */
static void fix_directs(struct priv *p) {
  for (size_t i = 0; i < p->ndirects; i++) {
    struct direct *d = &p->directs[i];
    d->page.res.project.files = &d->file;
    d->page.self[0] = &d->page.res.project;
  }
}

/* ---- rules ------------------------------------------------------------- */

/* The variants to route to, best first: the usable backends of every
 * release series, newest series first (an older torch may be the newest
 * with a build for this GPU), plus any label a root requirement pins
 * ("torch==2.5.1+rocm6.2"), so that the rules can explain its refusal. */

static void variants_add(struct variants *v, const char *name, bool cpu) {
  for (size_t i = 0; i < v->n; i++)
    if (strcmp(v->names[i], name) == 0)
      return;
  v->names = ts_xrealloc(v->names, (v->n + 1) * sizeof *v->names);
  v->cpu = ts_xrealloc(v->cpu, (v->n + 1) * sizeof *v->cpu);
  v->names[v->n] = ts_xstrdup(name);
  v->cpu[v->n++] = cpu;
}

/* Drops every GPU variant but `backend` (ts_plan_options.only_backend). */
static void keep_only_backend(struct variants *v, const char *backend) {
  size_t k = 0;
  for (size_t i = 0; i < v->n; i++) {
    if (v->cpu[i] || strcmp(v->names[i], backend) == 0) {
      v->names[k] = v->names[i];
      v->cpu[k++] = v->cpu[i];
    } else {
      free(v->names[i]);
    }
  }
  v->n = k;
}

static void collect_usable(struct variants *v, const struct ts_constraint_set *s) {
  for (size_t i = 0; i < s->nbackends; i++)
    if (s->backends[i].usable)
      variants_add(v, s->backends[i].name, strcmp(s->backends[i].kind, "cpu") == 0);
}

static enum ts_code compile_rules(const struct ts_plan_options *o,
                                  struct ts_constraint_set *out, struct variants *v,
                                  struct ts_error *err) {
  struct ts_rules_options ro = {.ignore_host = o->ignore_host};
  enum ts_code rc = ts_rules_compile(o->rules, o->host, &ro, out, err);
  if (rc != TS_OK)
    return rc;
  for (size_t i = 0; i < o->ntorch_backends; i++) {
    const struct ts_rules_backend *b = ts_rules_find_backend(o->rules, o->torch_backends[i]);
    variants_add(v, o->torch_backends[i], b && b->kind == TS_BACKEND_CPU);
  }
  if (!o->ntorch_backends)
    collect_usable(v, out);
  for (size_t i = o->rules->nreleases; i-- > 0 && !o->ntorch_backends;) {
    struct ts_constraint_set s = {0};
    ro.release = o->rules->releases[i].series;
    struct ts_error e2 = {0};
    if (ts_rules_release_backends(o->rules, o->host, &ro, out, &s, &e2) == TS_OK)
      collect_usable(v, &s);
    ts_constraint_set_clear(&s);
  }
  /* The labels were gathered newest series first, so a variant only an
   * older series has (cu129 of 2.8, cu124 of 2.5) landed behind the newest
   * series' ones and lost to them among builds of one version: torch==2.8.0
   * on a 13.0 driver came as +cu126, not +cu129.  One order of the backend
   * list (the same for every series) puts them back. */
  const struct ts_host *h = o->ignore_host ? NULL : o->host;
  for (size_t i = 1; i < v->n; i++)
    for (size_t j = i; j > 0; j--) {
      const struct ts_rules_backend *a =
          ts_rules_find_backend(o->rules, v->names[j - 1]);
      const struct ts_rules_backend *b = ts_rules_find_backend(o->rules, v->names[j]);
      if (!a || !b || ts_rules_backend_cmp(b, a, h) >= 0)
        break;
      char *tn = v->names[j - 1];
      bool tc = v->cpu[j - 1];
      v->names[j - 1] = v->names[j];
      v->cpu[j - 1] = v->cpu[j];
      v->names[j] = tn;
      v->cpu[j] = tc;
    }
  return TS_OK;
}

static void pinned_labels(struct variants *v, const struct ts_constraint_set *set,
                          const struct ts_plan_options *o) {
  for (size_t i = 0; i < o->nentries; i++) {
    const struct ts_reqfile_entry *e = o->entries[i];
    if (e->kind != TS_REQFILE_NAMED || e->req->url ||
        !ts_plan_is_routed(set, e->req->normalized_name))
      continue;
    const char *plus = strchr(e->text, '+');
    if (!plus)
      continue;
    size_t n = 0;
    while (plus[1 + n] && (isalnum((unsigned char)plus[1 + n]) || plus[1 + n] == '.'))
      n++;
    if (n == 0 || n > 64)
      continue;
    char label[80];
    snprintf(label, sizeof label, "%.*s", (int)n, plus + 1);
    variants_add(v, label, strcmp(label, "cpu") == 0);
  }
}

/* Every variant of `rel` whose backend kind is marked in kinds[]. */
static void route_release(struct variants *v, const struct ts_plan_options *o,
                          const struct ts_rules_release *rel, const bool *kinds,
                          size_t nkinds) {
  for (size_t k = 0; k < rel->nvariants; k++) {
    const struct ts_rules_backend *b =
        ts_rules_find_backend(o->rules, rel->variants[k].backend);
    if (b && (size_t)b->kind < nkinds && kinds[b->kind])
      variants_add(v, b->id, false);
  }
}

/* Variants routed only so that the resolver can say why they do not run:
 *  - a root requirement that pins a routed project to some releases routes
 *    every variant of those releases whose backend kind this host runs (the
 *    kinds of the usable variants): torch==2.5.1 on an RX 7900 XT routes
 *    rocm6.1 and rocm6.2 of 2.5, so the resolver names the rule that
 *    refuses each GPU build (hipblaslt-gfx1100) instead of finding none;
 *  - when the newest release has no usable variant of such a kind, its
 *    variants of that kind: the held-back note then names the rules that
 *    keep the host on an older torch (backend-rocm7.2-rocm).
 * The rules refuse them in the resolver as everywhere else. */
static void explaining_variants(struct variants *v, const struct ts_constraint_set *set,
                                const struct ts_plan_options *o) {
  bool kinds[8] = {false}, newest_has[8] = {false};
  for (size_t i = 0; i < v->n; i++) {
    const struct ts_rules_backend *b = ts_rules_find_backend(o->rules, v->names[i]);
    if (b && !v->cpu[i] && (size_t)b->kind < sizeof kinds)
      kinds[b->kind] = true;
  }
  for (size_t i = 0; i < set->nbackends; i++) {
    const struct ts_rules_backend *b =
        ts_rules_find_backend(o->rules, set->backends[i].name);
    if (b && set->backends[i].usable && (size_t)b->kind < sizeof newest_has)
      newest_has[b->kind] = true;
  }
  bool missing[8] = {false}, any_missing = false;
  for (size_t k = 0; k < sizeof kinds; k++) {
    missing[k] = kinds[k] && !newest_has[k];
    any_missing |= missing[k];
  }
  if (any_missing && ts_rules_newest(o->rules))
    route_release(v, o, ts_rules_newest(o->rules), missing, sizeof missing);
  for (size_t i = 0; i < o->nentries; i++) {
    const struct ts_reqfile_entry *e = o->entries[i];
    if (e->kind != TS_REQFILE_NAMED || e->req->url ||
        !ts_plan_is_routed(set, e->req->normalized_name) ||
        !ts_specset_count(e->req->specifier))
      continue;
    for (size_t r = 0; r < o->rules->nreleases; r++) {
      const struct ts_rules_release *rel = &o->rules->releases[r];
      bool admitted = false;
      for (size_t k = 0; k < rel->nversions && !admitted; k++) {
        struct ts_version *ver = NULL;
        if (ts_version_parse(rel->versions[k], strlen(rel->versions[k]), &ver,
                             NULL) == TS_OK)
          admitted = ts_specset_contains(e->req->specifier, ver, TS_PRE_INCLUDE);
        ts_version_free(ver);
      }
      if (admitted)
        route_release(v, o, rel, kinds, sizeof kinds);
    }
  }
}

static int cstr_ptr_cmp(const void *a, const void *b) {
  return strcmp(*(const char *const *)a, *(const char *const *)b);
}

static void build_routes_and_prefs(struct priv *p, struct ts_index *idx,
                                   const struct ts_constraint_set *set,
                                   const struct variants *v, bool variant_index) {
  p->routes = ts_xcalloc(v->n + 1, sizeof *p->routes);
  /* PEP 825 wheels of every build (<torch-index-url>/variant/), unless the
   * user named one build or no build goes to the torch index at all */
  if (variant_index && v->n)
    p->routes[p->nroutes++] = ts_index_torch_url(idx, "variant");
  p->patterns = ts_xcalloc(v->n, sizeof *p->patterns);
  size_t k = 0, cpu = 0;
  for (size_t i = 0; i < v->n; i++) {
    p->routes[p->nroutes++] = ts_index_torch_url(idx, v->names[i]);
    if (!v->cpu[i])
      p->patterns[k++] = v->names[i];
  }
  for (size_t i = 0; i < v->n; i++)
    if (v->cpu[i]) {
      p->patterns[k++] = v->names[i];
      cpu++;
    }
  /* The objective (doc/rules.md): torch is decided first, then its
   * companions (the other routed projects, in name order) */
  p->priority = ts_xcalloc(set->nrouted + 1, sizeof *p->priority);
  for (size_t i = 0; i < set->nrouted; i++)
    if (strcmp(set->routed[i], "torch") == 0)
      p->priority[p->npriority++] = set->routed[i];
  for (size_t i = 0; p->npriority && i < set->nrouted; i++)
    if (strcmp(set->routed[i], "torch") != 0)
      p->priority[p->npriority++] = set->routed[i];
  if (p->npriority > 2)
    qsort(p->priority + 1, p->npriority - 1, sizeof *p->priority, cstr_ptr_cmp);
  p->prefs = ts_xcalloc(set->nrouted, sizeof *p->prefs);
  for (size_t i = 0; i < set->nrouted; i++)
    p->prefs[p->nprefs++] = (struct ts_resolver_variant_pref){
        .name = set->routed[i], .patterns = p->patterns, .npatterns = k,
        .nfallback = k > cpu ? cpu : 0};
}

/* ---- custom builds ------------------------------------------------------ */

/* ---- resolve ----------------------------------------------------------- */

/* ---- the runtime torch of torch-matched builds ------------------------- */

static void runtime_answer_clear(struct runtime_answer *a) {
  free(a->torch);
  for (size_t i = 0; i < a->npins; i++)
    free(a->pins[i]);
  free(a->pins);
  memset(a, 0, sizeof *a);
}

/* A build's torch is its own decision, not the runtime's: it is not
 * resolved first (rules.yaml's torch_builds, by any spelling). */
static bool is_torch_build(const struct ts_rules *rules, const char *normalized) {
  return rules && ts_rules_find_torch_build(rules, normalized);
}

/* A runtime resolution's build options: sdists it chooses are built
 * normally, isolated and with no torch match (their metadata is all it
 * needs; a target waiting for its torch cannot build them yet). */
static enum ts_code no_runtime_torch(void *ctx, char **version, struct ts_error *err) {
  (void)ctx;
  (void)err;
  *version = NULL;
  return TS_OK;
}

/* The runtime resolved first, alone: the named requirements and
 * constraints (the sources being built cannot take part, their metadata
 * comes from their builds; nor can the projects rules.yaml lists as
 * torch builds), with torch added when `add_torch` and none of them
 * names it; the installed set counts as it does for the install, and an
 * sdist it chooses is built (its metadata) normally.  The torch it
 * chooses is what the builds are made against. */
static enum ts_code runtime_resolve(struct runtime_torch *rt, bool add_torch,
                                    const struct runtime_answer **out, struct ts_error *err) {
  struct runtime_answer *a = add_torch ? &rt->with_torch : &rt->as_named;
  *out = a;
  if (a->resolved)
    return TS_OK;
  const struct ts_plan_options *o = rt->o;
  const struct ts_reqfile_entry **ents = ts_xcalloc(o->nentries + 1, sizeof *ents);
  size_t n = 0;
  bool named = false;
  for (size_t i = 0; i < o->nentries; i++) {
    const struct ts_reqfile_entry *e = o->entries[i];
    if (e->kind != TS_REQFILE_NAMED || e->req->url ||
        (!e->is_constraint && is_torch_build(o->rules, e->req->normalized_name)))
      continue;
    ents[n++] = e;
    named |= !e->is_constraint && strcmp(e->req->normalized_name, "torch") == 0;
  }
  struct ts_reqfile_entry torch = {0};
  struct ts_error pe = {0};
  if (add_torch && !named && ts_reqfile_parse_requirement("torch", 5, NULL, &torch, &pe) == TS_OK)
    ents[n++] = &torch;
  struct ts_source_build_options bo = *o->build;
  bo.runtime_torch = no_runtime_torch;
  bo.target_torch = NULL;
  bo.no_isolation = false;
  bo.nno_isolation_packages = 0;
  bo.kept = rt->kept;
  struct ts_plan_options po = *o;
  po.entries = ents;
  po.nentries = n;
  po.build = &bo;
  po.lock_env = false;
  struct ts_plan_result *res = NULL;
  enum ts_code rc = ts_plan_resolve(&po, &res, err);
  if (rc == TS_E_RESOLVE && res && res->res && res->res->why.nlines)
    ts_error_set(err, TS_E_RESOLVE, "%s", res->res->why.lines[0]);
  if (rc == TS_OK) {
    a->pins = ts_xcalloc(res->res->nitems + 1, sizeof *a->pins);
    for (size_t i = 0; i < res->res->nitems; i++) {
      const struct ts_resolved *x = &res->res->items[i];
      a->pins[a->npins++] = ts_xasprintf("%s==%s", x->name, x->version);
      if (strcmp(x->name, "torch") == 0)
        a->torch = ts_xstrdup(x->version);
    }
    a->resolved = true;
  }
  ts_plan_result_free(res);
  ts_reqfile_entry_clear(&torch);
  free(ents);
  return rc;
}

/* The runtime torch for the plan's builds: while resolving, the runtime
 * resolved first (runtime_resolve); once resolved (the sdists
 * ts_plan_install builds), the torch of the resolution. */
static enum ts_code plan_runtime_torch(void *ctx, char **version, struct ts_error *err) {
  struct priv *p = ctx;
  const struct ts_resolution *res = p->owner->res;
  *version = NULL;
  if (!res && p->rt.o) {
    const struct runtime_answer *a = NULL;
    enum ts_code rc = runtime_resolve(&p->rt, true, &a, err);
    if (rc == TS_OK && a->torch)
      *version = ts_xstrdup(a->torch);
    return rc;
  }
  for (size_t i = 0; res && i < res->nitems; i++)
    if (strcmp(res->items[i].name, "torch") == 0)
      *version = ts_xstrdup(res->items[i].version);
  return TS_OK;
}

/* The version of torch installed in the target, or NULL. */
static char *installed_torch(const struct ts_target *t) {
  const char *dirs[2] = {t->paths.purelib, t->paths.platlib};
  struct ts_site site = {0};
  struct ts_error ignore = {0};
  char *v = NULL;
  if (t->paths.purelib && ts_site_read(dirs, 2, &site, &ignore) == TS_OK) {
    const struct ts_site_dist *d = ts_site_find(&site, "torch");
    v = d && d->version ? ts_xstrdup(d->version) : NULL;
  }
  ts_site_clear(&site);
  return v;
}

/* The first phase of a two-phase install: torch==want, its dependencies at
 * the versions `pins` chose, installed into the target before a
 * --no-build-isolation build compiles against it. */
static enum ts_code install_torch_first(struct priv *p, const char *want, char *const *pins,
                                        size_t npins, const char *project,
                                        struct ts_error *err) {
  const struct ts_plan_options *o = p->rt.o;
  if (!o || o->dry_run || !o->runtime_install)
    return ts_error_set(err, TS_E_UNSUPPORTED,
                        "%s: --no-build-isolation builds it against the target's torch, "
                        "which must first be torch %s, and %s installs nothing; fix: "
                        "install torch==%s first", project, want,
                        o && o->dry_run ? "a --dry-run" : "this command", want);
  struct ts_reqfile_entry *own = ts_xcalloc(npins + 1, sizeof *own);
  const struct ts_reqfile_entry **ents = ts_xcalloc(npins + 1, sizeof *ents);
  size_t n = 0;
  char *root = ts_xasprintf("torch==%s", want);
  struct ts_error pe = {0};
  enum ts_code rc = ts_reqfile_parse_requirement(root, strlen(root), NULL, &own[n], &pe);
  if (rc == TS_OK)
    n++;
  for (size_t i = 0; i < npins && rc == TS_OK; i++)
    if (ts_reqfile_parse_requirement(pins[i], strlen(pins[i]), NULL, &own[n], &pe) == TS_OK)
      own[n++].is_constraint = true;
  for (size_t i = 0; i < n; i++)
    ents[i] = &own[i];
  if (rc != TS_OK)
    rc = ts_error_set(err, TS_E_INTERNAL, "%s: %s", root, pe.detail);
  struct ts_plan_options po = *o;
  po.entries = ents;
  po.nentries = n;
  po.build = NULL;
  po.lock_env = false;
  po.read_installed = true;
  po.force_reinstall = po.upgrade = false;
  po.nupgrade_packages = po.npreferences = 0;
  struct ts_plan_result *first = NULL;
  if (rc == TS_OK)
    rc = ts_plan_resolve(&po, &first, err);
  if (rc == TS_E_RESOLVE && first && first->res && first->res->why.nlines)
    ts_error_set(err, TS_E_RESOLVE, "%s: %s", root, first->res->why.lines[0]);
  if (rc == TS_OK) {
    struct ts_plan_install_options io = *o->runtime_install;
    io.cancel = p->build.cancel;
    ((struct priv *)first->priv)->env_lock_borrowed = p->env_lock_fd >= 0 || p->env_lock_borrowed;
    double t0 = ts_now_ms();
    rc = ts_plan_install(first, &io, NULL, err);
    if (rc == TS_OK && p->build.cb.installed_first)
      p->build.cb.installed_first(p->build.cb.ctx, want, project, ts_now_ms() - t0);
  }
  if (rc != TS_OK)
    ts_error_wrap(err, "%s: installing torch %s first for its --no-build-isolation build",
                  project, want);
  ts_plan_result_free(first);
  for (size_t i = 0; i < n; i++)
    ts_reqfile_entry_clear(&own[i]);
  free(own);
  free(ents);
  free(root);
  return rc;
}

/* build.h's target_torch: the plan's torch (the resolution's once there
 * is one, the runtime's as named before), installed first when the
 * target has another; the target's own when the plan brings none. */
static enum ts_code plan_target_torch(void *ctx, const char *project, char **version,
                                      struct ts_error *err) {
  struct priv *p = ctx;
  const struct ts_resolution *res = p->owner->res;
  *version = NULL;
  const char *want = NULL;
  char **pins = NULL;
  size_t npins = 0;
  enum ts_code rc = TS_OK;
  if (res) {
    pins = ts_xcalloc(res->nitems + 1, sizeof *pins);
    for (size_t i = 0; i < res->nitems; i++) {
      const struct ts_resolved *x = &res->items[i];
      pins[npins++] = ts_xasprintf("%s==%s", x->name, x->version);
      if (strcmp(x->name, "torch") == 0)
        want = x->version;
    }
  } else if (p->rt.o) {
    const struct runtime_answer *a = NULL;
    rc = runtime_resolve(&p->rt, false, &a, err);
    if (rc == TS_OK) {
      want = a->torch;
      pins = a->pins;
      npins = a->npins;
    } else {
      ts_error_wrap(err, "%s: its build needs the runtime torch", project);
    }
  }
  char *have = rc == TS_OK ? installed_torch(p->owner->target) : NULL;
  if (rc != TS_OK) {
    /* said */
  } else if (!want && !have) {
    rc = ts_error_set(err, TS_E_NOT_FOUND,
                      "%s: its build needs torch and --no-build-isolation builds it with "
                      "the target's (%s), which has none, nor does this install bring "
                      "one; fix: add torch to this install, or install torch first, or "
                      "drop --no-build-isolation", project, p->owner->target->python);
  } else if (!want || (have && strcmp(want, have) == 0)) {
    *version = have;
    have = NULL;
  } else {
    rc = install_torch_first(p, want, pins, npins, project, err);
    if (rc == TS_OK)
      *version = ts_xstrdup(want);
  }
  free(have);
  if (res) {
    for (size_t i = 0; i < npins; i++)
      free(pins[i]);
    free(pins);
  }
  return rc;
}

/* A build made against the runtime torch binds the install to it: the
 * resolution that follows must choose the same build. */
static void pin_runtime_torch(struct priv *p, const char *version) {
  char *text = ts_xasprintf("torch==%s", version);
  struct ts_requirement *req = NULL;
  struct ts_error ignore = {0};
  if (ts_requirement_parse(text, strlen(text), &req, &ignore) == TS_OK) {
    p->cons = ts_xrealloc(p->cons, (p->ncons + 1) * sizeof *p->cons);
    p->cons[p->ncons++] = req;
  }
  free(text);
}

/* The project's requires-python holds for the target's interpreter. */
static enum ts_code project_python_ok(const char *spec, const struct ts_target *t,
                                      struct ts_error *err) {
  const char *have = t->markers.python_full_version;
  struct ts_specset *set = NULL;
  struct ts_version *v = NULL;
  struct ts_error why = {0};
  enum ts_code rc = ts_specset_parse(spec, strlen(spec), &set, &why);
  if (rc != TS_OK)
    rc = ts_error_set(err, TS_E_PARSE, "pyproject.toml: project.requires-python '%s': %s", spec,
                      why.detail);
  else if (have && ts_version_parse(have, strlen(have), &v, &why) == TS_OK &&
           !ts_specset_contains(set, v, TS_PRE_INCLUDE))
    rc = ts_error_set(err, TS_E_PYTHON,
                      "the project requires Python %s (pyproject.toml); the target is %s: "
                      "lock for another with --python or --python-version",
                      spec, have);
  ts_specset_free(set);
  ts_version_free(v);
  return rc;
}

/* What the index client worked around (a broken mirror), once each. */
static void index_warnings_as_notes(struct ts_plan_result *r) {
  const char *const *lines = NULL;
  size_t n = r->idx ? ts_index_warnings(r->idx, &lines) : 0;
  for (size_t i = 0; i < n; i++) {
    r->notes = ts_xreallocarray(r->notes, r->nnotes + 1, sizeof *r->notes);
    r->notes[r->nnotes++] = ts_xstrdup(lines[i]);
  }
}

/* The named requirements: roots, and -c constraints on names. */
static void collect_named(struct priv *p, const struct ts_plan_options *o) {
  p->nentries = o->nentries;
  for (size_t i = 0; i < o->nentries; i++) {
    const struct ts_reqfile_entry *e = o->entries[i];
    if (e->is_constraint) {
      if (e->kind != TS_REQFILE_NAMED || e->req->url)
        continue; /* pip ignores non-name constraints too */
      p->cons = ts_xrealloc(p->cons, (p->ncons + 1) * sizeof *p->cons);
      p->cons[p->ncons++] = ts_requirement_dup(e->req);
      continue;
    }
    if (e->kind == TS_REQFILE_NAMED && !e->req->url) {
      p->roots = ts_xrealloc(p->roots, (p->nroots + 1) * sizeof *p->roots);
      p->roots[p->nroots++] = ts_requirement_dup(e->req);
    }
  }
}

/* The caller's build options, for the sources this resolution builds:
 * with its rules and host, an environment kept per source for the run,
 * and the torch the runtime resolution chooses. */
static void adopt_build_options(struct priv *p, const struct ts_plan_options *o) {
  p->build = *o->build;
  p->build.rules = o->rules;
  p->build.host = o->host;
  p->build.ignore_host = o->ignore_host;
  if (!p->build.kept)
    p->build.kept = p->own_kept = ts_source_build_kept_new();
  if (!p->build.runtime_torch)
    p->build.runtime_torch = plan_runtime_torch;
  if (!o->build->runtime_torch)
    p->build.target_torch = plan_target_torch;
  p->build.runtime_ctx = p;
  p->opts = *o;
  p->rt.o = &p->opts;
  p->rt.kept = p->build.kept;
}

enum ts_code ts_plan_resolve(const struct ts_plan_options *o,
                             struct ts_plan_result **out, struct ts_error *err) {
  struct ts_plan_result *r = ts_xcalloc(1, sizeof *r);
  struct priv *p = ts_xcalloc(1, sizeof *p);
  p->env_lock_fd = -1;
  r->priv = p;
  p->owner = r;
  *out = r;
  enum ts_code rc = ts_target_open(o->python, o->spec, o->probe_cache_dir,
                                   &r->target, err);
  if (rc == TS_OK && o->project_requires_python)
    rc = project_python_ok(o->project_requires_python, r->target, err);
  if (rc != TS_OK)
    return rc;
  const struct ts_constraint_set *set = NULL;
  if (o->facts_override) {
    set = o->facts_override;
  } else if (o->rules && o->host) {
    rc = compile_rules(o, &r->rules, &p->vars, err);
    if (rc != TS_OK)
      return rc;
    set = &r->rules;
  }
  p->set = set;
  p->entries = o->entries;
  if ((rc = ts_plan_variants_new(o->ignore_host ? NULL : o->host, o->variant_force, set,
                                 &r->target->markers, &r->variants, err)) != TS_OK)
    return rc;
  p->builds = o->build != NULL;
  if (o->build)
    adopt_build_options(p, o);
  p->dry_run = o->dry_run;
  p->rules = o->rules;
  struct ts_index_options io = *o->index;
  io.route = route;
  io.route_ctx = p;
  r->idx = ts_index_new(&io, err);
  if (!r->idx)
    return err->code ? err->code : TS_E_NOMEM;
  p->idx = r->idx;
  if (!io.no_index) {
    p->general = ts_xcalloc(1 + io.nextra_index_urls, sizeof *p->general);
    p->general[p->ngeneral++] = io.index_url ? io.index_url : TS_INDEX_DEFAULT_URL;
    for (size_t i = 0; i < io.nextra_index_urls; i++)
      p->general[p->ngeneral++] = io.extra_index_urls[i];
  }
  if (set) {
    if (o->facts_override)
      collect_usable(&p->vars, set);
    pinned_labels(&p->vars, set, o);
    if (o->rules && !o->ntorch_backends) /* a named build: that one only */
      explaining_variants(&p->vars, set, o);
    if (o->only_backend)
      keep_only_backend(&p->vars, o->only_backend);
    build_routes_and_prefs(p, r->idx, set, &p->vars, !o->ntorch_backends && !o->only_backend);
  }

  collect_named(p, o);
  /* then the direct ones, which may be built against the runtime torch
   * that the named ones lead to (build.h, "Torch-matched builds") */
  for (size_t i = 0; i < o->nentries && rc == TS_OK; i++) {
    const struct ts_reqfile_entry *e = o->entries[i];
    if (e->is_constraint || (e->kind == TS_REQFILE_NAMED && !e->req->url))
      continue;
    struct ts_source_spec src;
    struct ts_source_built built = {0};
    bool source = ts_source_of(e, &src);
    if (source && !o->build) {
      rc = ts_error_set(err, TS_E_UNSUPPORTED, "'%s' must be built from source, "
                        "which is not done here", src.location);
      break;
    }
    if (source && ts_resolver_format_forbidden(o->no_binary, o->nno_binary, o->only_binary,
                                               o->nonly_binary, src.name, true)) {
      rc = ts_error_set(err, TS_E_UNSUPPORTED, "'%s' must be built from source, which "
                        "--only-binary (or --no-build) forbids", src.location);
      break;
    }
    struct meta prepared = {0};
    if (source && o->dry_run) {
      src.sha256 = ts_plan_entry_only_sha256(e);
      rc = ts_source_build_metadata(&p->build, r->target, r->idx, &src, &prepared.data,
                                  &prepared.len, &r->build_log, err);
      if (rc != TS_OK)
        break;
    } else if (source) {
      src.sha256 = ts_plan_entry_only_sha256(e);
      rc = ts_source_build(&p->build, r->target, r->idx, &src, &built, err);
      if (rc != TS_OK) {
        r->build_log = built.log;
        built.log = NULL;
        ts_source_built_clear(&built);
        break;
      }
      if (built.torch)
        pin_runtime_torch(p, built.torch);
    }
    rc = add_direct(p, e, source && !o->dry_run ? &built : NULL,
                    prepared.data ? &prepared : NULL, err);
    free(prepared.data);
    ts_source_built_clear(&built);
  }
  if (rc != TS_OK)
    return rc;
  fix_directs(p);

  if (o->read_installed && !o->spec) {
    const struct ts_target_paths *tp = &r->target->paths;
    if (o->lock_env && !o->break_system_packages &&
        (rc = ts_target_check_externally_managed(r->target, err)) != TS_OK)
      return rc;
    if (o->lock_env && tp->purelib) {
      rc = ts_wheel_lock_env(tp->purelib, tp->prefix ? tp->prefix : tp->purelib,
                             o->no_wait, &o->lock_cb, &p->env_lock_fd, err);
      if (rc != TS_OK)
        return rc;
    }
    char *user = o->user_site ? ts_plan_tree_user_site(r->target) : NULL;
    const char *dirs[2] = {o->user_site ? user : tp->purelib,
                           o->user_site ? user : tp->platlib};
    rc = ts_site_read(dirs, user || !o->user_site ? 2 : 0, &p->site, err);
    free(user);
    if (rc != TS_OK)
      return rc;
    /* a distribution with no version anywhere cannot take part */
    p->installed = ts_xcalloc(p->site.n, sizeof *p->installed);
    for (size_t i = 0; i < p->site.n; i++) {
      const struct ts_site_dist *d = &p->site.dists[i];
      /* what is built from source is installed again (pip does the same
       * for a directory): the resolver must not keep the installed one */
      if (d->version && !built_direct(p, d->name))
        p->installed[p->ninstalled++] = (struct ts_resolver_installed){
            .name = d->name, .version = d->version, .metadata = d->metadata,
            .metadata_len = d->metadata_len, .requested = d->requested};
    }
  }

  struct ts_resolver_request req = {
      .requirements = (const struct ts_requirement *const *)p->roots,
      .nrequirements = p->nroots,
      .constraints = (const struct ts_requirement *const *)p->cons,
      .nconstraints = p->ncons,
      .installed = p->installed,
      .ninstalled = p->ninstalled,
      .rules = set,
      .variants = p->prefs,
      .nvariants = p->nprefs,
      .priority = p->priority,
      .npriority = p->npriority,
      .no_binary = o->no_binary,
      .nno_binary = o->nno_binary,
      .only_binary = o->only_binary,
      .nonly_binary = o->nonly_binary,
      .sdists = o->build != NULL,
      .prefer_binary = o->prefer_binary,
      .upgrade_packages = o->upgrade_packages,
      .nupgrade_packages = o->nupgrade_packages,
      .preferences = o->preferences,
      .npreferences = o->npreferences,
      .any_file = o->any_file,
      .resolution = o->resolution,
      .pre = o->pre,
      .upgrade = o->upgrade,
      .force_reinstall = o->force_reinstall,
      .no_deps = o->no_deps,
      .ignore_host = o->ignore_host,
      .refuse_pinned_fallback = true,
      .prefetch = 16,
      .debug_solver_dir = o->debug_solver_dir,
  };
  struct ts_resolver_target tgt = {
      .markers = &r->target->markers,
      .tags = r->target->tags,
      .python_full_version = r->target->markers.python_full_version,
  };
  p->first_index = io.strategy == TS_INDEX_FIRST_INDEX;
  struct ts_resolver_provider prov = {.ctx = p, .get_pages = get_pages,
                                      .get_metadata = get_metadata,
                                      .get_pages_elsewhere = get_pages_elsewhere,
                                      .variant_env = variant_env};
  double t0 = ts_now_ms();
  rc = ts_resolver_resolve(&req, &tgt, &prov, &r->res, err);
  r->resolve_ms = ts_now_ms() - t0;
  index_warnings_as_notes(r);
  if (rc != TS_OK || !r->res)
    return rc;

  r->items = ts_xcalloc(r->res->nitems, sizeof *r->items);
  for (size_t i = 0; i < r->res->nitems; i++) {
    mark_rebuilt(p, &r->res->items[i]);
    const struct ts_resolved *x = &r->res->items[i];
    struct ts_plan_item *it = &r->items[i];
    it->r = x;
    const struct meta *m = x->file ? find_meta(p, x->file) : NULL;
    if (m) {
      it->metadata = m->data;
      it->metadata_len = m->len;
    } else {
      const struct ts_site_dist *d = ts_site_find(&p->site, x->name);
      if (d) {
        it->metadata = d->metadata;
        it->metadata_len = d->metadata_len;
      }
    }
    it->index = x->index_url;
    ts_plan_variants_describe(p->owner->variants, x->name, x->file, &it->variant_label, &it->variant_why);
    for (size_t k = 0; x->file && k < p->nroutes; k++) {
      size_t rl = strlen(p->routes[k]);
      if (strncmp(x->file->url, p->routes[k], rl) == 0 && x->file->url[rl] == '/')
        it->index = p->routes[k];
    }
    struct direct *d = find_direct(p, x->name);
    if (d && x->file == &d->file) {
      it->direct_url = d->location;
      it->is_path = d->is_path;
      it->built = d->built.wheel ? &d->built : NULL;
      it->hashed_by = ts_plan_entry_nsha256(d->e) && !it->built ? d->e : NULL;
    } else {
      it->hashed_by = ts_plan_hash_entry(o->entries, o->nentries, x->name);
    }
    if (it->hashed_by && x->file) {
      const struct ts_index_file *f = x->file;
      if (f->sha256 && ts_plan_entry_allows(it->hashed_by, f->sha256))
        it->user_sha256 = f->sha256;
      else if (!f->sha256)
        it->user_sha256 = ts_plan_entry_only_sha256(it->hashed_by);
    }
  }
  if (set && !o->ignore_host)
    ts_plan_note_broken_installed(r, set);
  if (o->read_installed && !o->spec && !o->no_deps)
    ts_plan_orphans(&p->site, r, &r->target->markers);
  return set && !o->ignore_host ? ts_plan_check_custom_builds(r, set, err) : TS_OK;
}

const struct ts_source_build_options *ts_plan_result_build(const struct ts_plan_result *r) {
  const struct priv *p = r->priv;
  return p && p->builds ? &p->build : NULL;
}

const struct ts_rules *ts_plan_result_rules(const struct ts_plan_result *r) {
  const struct priv *p = r->priv;
  return p ? p->rules : NULL;
}

void ts_plan_result_free(struct ts_plan_result *r) {
  if (!r)
    return;
  for (size_t i = 0; i < r->nnotes; i++)
    free(r->notes[i]);
  for (size_t i = 0; i < r->norphans; i++) {
    free(r->orphans[i]);
    free(r->orphan_versions[i]);
  }
  free(r->orphans);
  free(r->orphan_versions);
  free(r->notes);
  if (r->res)
    ts_resolution_free(r->res);
  struct priv *p = r->priv;
  if (p) {
    for (size_t i = 0; i < p->ndirects; i++) {
      struct direct *d = &p->directs[i];
      free(d->name);
      free(d->location);
      free(d->file.filename);
      free(d->file.url);
      free(d->file.sha256);
      free(d->page.res.project.name);
      free(d->page.res.project.index_url);
      ts_source_built_clear(&d->built);
      free(d->prepared.data);
    }
    free(p->directs);
    for (size_t i = 0; i < p->npages; i++) {
      ts_index_project_clear(&p->pages[i]->res.project);
      free(p->pages[i]);
    }
    free(p->pages);
    for (size_t i = 0; i < p->nmetas; i++)
      free(p->metas[i].data);
    free(p->metas);
    ts_site_clear(&p->site);
    ts_target_free(p->metadata_target);
    for (size_t i = 0; i < p->nunmet; i++)
      free(p->unmet[i]);
    free(p->unmet);
    free(p->installed);
    for (size_t i = 0; i < p->nroots; i++)
      ts_requirement_free(p->roots[i]);
    free(p->roots);
    for (size_t i = 0; i < p->ncons; i++)
      ts_requirement_free(p->cons[i]);
    free(p->cons);
    for (size_t i = 0; i < p->nroutes; i++)
      free(p->routes[i]);
    free(p->routes);
    free(p->patterns);
    free(p->priority);
    for (size_t i = 0; i < p->vars.n; i++)
      free(p->vars.names[i]);
    free(p->vars.names);
    free(p->vars.cpu);
    free(p->prefs);
    free(p->general);
    for (size_t i = 0; i < p->nnot_found; i++)
      free(p->not_found[i]);
    free(p->not_found);
    ts_plan_variants_free(r->variants);
    ts_source_build_kept_free(p->own_kept);
    runtime_answer_clear(&p->rt.with_torch);
    runtime_answer_clear(&p->rt.as_named);
    ts_wheel_unlock_env(p->env_lock_fd);
    free(p);
  }
  if (r->idx)
    ts_index_free(r->idx);
  ts_constraint_set_clear(&r->rules);
  if (r->target)
    ts_target_free(r->target);
  free(r->items);
  free(r->build_log);
  free(r);
}

/* ---- install ----------------------------------------------------------- */

bool ts_plan_action_changes(enum ts_resolved_action a) {
  return a == TS_ACTION_INSTALL || a == TS_ACTION_UPGRADE ||
         a == TS_ACTION_DOWNGRADE || a == TS_ACTION_REINSTALL;
}

enum ts_code ts_plan_install(struct ts_plan_result *r,
                             const struct ts_plan_install_options *o,
                             size_t *changed, struct ts_error *err) {
  if (changed)
    *changed = 0;
  if (!r->res || (r->target->from_spec && !o->save_dir && !o->paths))
    return ts_error_set(err, TS_E_INVALID, "nothing to install into (no interpreter)");
  if (((struct priv *)r->priv)->dry_run)
    return ts_error_set(err, TS_E_INTERNAL, "a --dry-run plan cannot be installed");
  const struct ts_target_paths *tp = &r->target->paths;
  if (!o->save_dir && !o->paths &&
      (!tp->purelib || !tp->platlib || !tp->scripts || !tp->data || !tp->prefix))
    return ts_error_set(err, TS_E_PYTHON, "'%s' reported no install paths",
                        r->target->python ? r->target->python : "python");
  size_t n = 0;
  for (size_t i = 0; i < r->res->nitems; i++)
    if (ts_plan_action_changes(r->res->items[i].action) && r->res->items[i].file)
      n++;
  if (n == 0)
    return TS_OK;
  struct ts_plan_item **todo = ts_xcalloc(n, sizeof *todo);
  size_t k = 0;
  for (size_t i = 0; i < r->res->nitems; i++)
    if (ts_plan_action_changes(r->res->items[i].action) && r->res->items[i].file)
      todo[k++] = &r->items[i];
  enum ts_code hrc = o->break_system_packages || o->paths || o->save_dir
                         ? TS_OK
                         : ts_target_check_externally_managed(r->target, err);
  if (hrc == TS_OK)
    hrc = ts_plan_check_hashes(r, o->require_hashes, err);
  if (hrc != TS_OK) {
    free(todo);
    return hrc;
  }

  char *dir = NULL;
  enum ts_code rc = ts_plan_fetch_run_dir(r->idx, o->download_dir, &dir, err);
  if (rc != TS_OK) {
    free(todo);
    return rc;
  }
  /* Verified wheels from an index are kept where the index client keeps
   * whole wheels, so that a later run (or --offline) reads their METADATA
   * and skips the download; local wheels are installed from where they
   * are; the rest go to the run's directory. */
  struct ts_plan_fetch *fx = ts_xcalloc(n, sizeof *fx);
  for (size_t i = 0; i < n; i++) {
    const struct ts_index_file *f = todo[i]->r->file;
    const char *want = todo[i]->user_sha256 ? todo[i]->user_sha256 : f->sha256;
    fx[i] = (struct ts_plan_fetch){
        .project = todo[i]->r->name, .filename = f->filename, .url = f->url,
        .sha256 = want, .sha256_from = f->sha256 ? NULL : "its --hash",
        .cache_key = want ? f->sha256 : NULL, .size = f->size,
        .may_hash_later = !todo[i]->hashed_by};
  }
  struct ts_plan_fetch_options fo = {.run_dir = dir, .cb = &o->cb};
  struct ts_plan_fetch_totals totals;
  rc = ts_plan_fetch_files(r->idx, fx, n, &fo, &totals, err);
  if (rc == TS_OK && !o->save_dir)
    rc = ts_plan_check_index_wheels(r, todo, fx, n, &fo, &o->cb.wheel, err);
  for (size_t i = 0; i < n && rc == TS_OK; i++) {
    if (!fx[i].hash_later && !ts_plan_item_hash_allowed(todo[i], fx[i].sha256_out)) {
      /* no single expected hash (the index gave none, --hash several):
       * the downloaded file must be one of them */
      const struct ts_reqfile_entry *e = todo[i]->hashed_by;
      rc = ts_error_set(err, TS_E_HASH,
                        "%s: its sha256 %s matches no --hash of '%s'%s (%zu given)",
                        fx[i].filename, fx[i].sha256_out, e->text, ts_plan_entry_where(e).s,
                        ts_plan_entry_nsha256(e));
    }
  }

  if (rc == TS_OK && o->save_dir) {
    rc = ts_fs_mkdirs(o->save_dir, err);
    for (size_t i = 0; i < n && rc == TS_OK; i++) {
      char *to = ts_path_join(o->save_dir, fx[i].filename);
      rc = ts_fs_copy_atomic(fx[i].local, to, err);
      free(to);
    }
    if (rc == TS_OK && changed)
      *changed = n;
  }

  /* sdists from an index are built (or found in the build cache) before
   * the environment is touched: a failing build changes nothing */
  struct ts_source_built *builds = ts_xcalloc(n, sizeof *builds);
  struct priv *p = r->priv;
  for (size_t i = 0; i < n && rc == TS_OK && !o->save_dir; i++) {
    if (!todo[i]->r->sdist)
      continue;
    char *label = ts_xasprintf("%s %s", todo[i]->r->name, todo[i]->r->version);
    struct ts_source_spec src = {.kind = TS_SOURCE_ARCHIVE, .location = fx[i].local,
                                 .sha256 = fx[i].sha256_out[0] ? fx[i].sha256_out : NULL,
                                 .label = label, .name = todo[i]->r->name};
    rc = p->builds ? ts_source_build(&p->build, r->target, r->idx, &src, &builds[i], err)
                   : ts_error_set(err, TS_E_INTERNAL, "%s must be built", label);
    if (rc != TS_OK) {
      free(r->build_log);
      r->build_log = builds[i].log;
      builds[i].log = NULL;
    }
    free(label);
  }

  struct ts_wheel_request *w = ts_xcalloc(n, sizeof *w);
  uint8_t (*dig)[TS_SHA256_LEN] = ts_xcalloc(n, sizeof *dig);
  char **durls = ts_xcalloc(n, sizeof *durls);
  for (size_t i = 0; i < n && rc == TS_OK; i++) {
    const struct ts_plan_item *it = todo[i];
    if (builds[i].wheel) { /* from an index: no direct_url.json, as pip */
      w[i] = (struct ts_wheel_request){.path = builds[i].wheel,
                                       .requested = it->r->requested};
      continue;
    }
    if (fx[i].hash_later) {
      w[i] = (struct ts_wheel_request){
          .path = fx[i].local, .requested = it->r->requested,
          .direct_url = it->built ? it->built->direct_url : NULL,
          .direct_url_from_path = it->direct_url && it->is_path && !it->built};
      continue;
    }
    ts_sha256_from_hex(fx[i].sha256_out, 64, dig[i]);
    w[i] = (struct ts_wheel_request){.path = fx[i].local, .sha256 = dig[i],
                                     .requested = it->r->requested};
    if (it->built) {
      durls[i] = ts_xstrdup(it->built->direct_url);
    } else if (it->direct_url && it->is_path) {
      const char *loc = it->direct_url;
      char *abs = strncmp(loc, "file://", 7) == 0 ? ts_xstrdup(loc + 7) : realpath(loc, NULL);
      durls[i] = ts_wheel_direct_url_for_file(abs ? abs : loc, dig[i]);
      free(abs);
    } else if (it->direct_url) {
      struct ts_buf b;
      ts_buf_init(&b, 1u << 20);
      bool ok = ts_buf_printf(&b, "{\"url\": \"") == TS_OK;
      for (const char *c = it->direct_url; *c && ok; c++)
        if (*c == '"' || *c == '\\')
          ok = ts_buf_printf(&b, "\\%c", *c) == TS_OK;
        else if ((unsigned char)*c >= 0x20)
          ok = ts_buf_append(&b, c, 1) == TS_OK;
      ok = ok && ts_buf_printf(&b, "\", \"archive_info\": {\"hash\": \"sha256=%s\", "
                        "\"hashes\": {\"sha256\": \"%s\"}}}",
                    fx[i].sha256_out, fx[i].sha256_out) == TS_OK;
      durls[i] = ok ? ts_buf_take(&b, NULL) : NULL;
      ts_buf_clear(&b);
    }
    w[i].direct_url = durls[i];
  }
  if (rc == TS_OK && !o->save_dir) {
    struct ts_plan_txn txn = {.target = r->target, .idx = r->idx, .rq = w, .n = n,
                              .link_mode = o->link_mode, .compile = o->compile,
                              .cancel = o->cancel, .cb = o->cb.wheel,
                              .allow_overwrite = o->allow_overwrite,
                              .verify_cache = o->verify_cache,
                              .env_locked = p->env_lock_fd >= 0 || p->env_lock_borrowed,
                              .paths = o->paths,
                              /* what the switch orphaned goes in the same transaction */
                              .remove = (const char *const *)r->orphans,
                              .nremove = o->paths ? 0 : r->norphans};
    rc = ts_plan_run_transaction(&txn, changed, err);
  }
  struct ts_error ignore = {0};
  ts_fs_remove_tree(dir, &ignore);
  free(dir);
  for (size_t i = 0; i < n; i++)
    free(durls[i]);
  free(durls);
  free(dig);
  free(w);
  for (size_t i = 0; i < n; i++)
    ts_source_built_clear(&builds[i]);
  free(builds);
  ts_plan_fetch_clear(fx, n);
  free(fx);
  free(todo);
  return rc;
}

/* ---- requirements an install leaves unmet ----------------------------- */

static bool name_in(char *const *names, size_t n, const char *name) {
  for (size_t i = 0; i < n; i++)
    if (strcmp(names[i], name) == 0)
      return true;
  return false;
}

static size_t unmet_requirements(const struct ts_plan_result *r, const struct priv *p,
                                 char ***out) {
  *out = NULL;
  size_t nitems = r->res->nitems, nchanged = 0;
  char **changed = ts_xcalloc(nitems, sizeof *changed);
  for (size_t i = 0; i < nitems; i++)
    if (r->res->items[i].action != TS_ACTION_KEEP) {
      const char *nm = r->res->items[i].name;
      changed[nchanged++] = ts_name_normalize(nm, strlen(nm));
    }
  /* the set the install leaves: what stays, then what it installs */
  struct ts_site after = {.dists = ts_xcalloc(p->site.n + nitems, sizeof *after.dists)};
  for (size_t i = 0; i < p->site.n; i++)
    if (!name_in(changed, nchanged, p->site.dists[i].normalized))
      after.dists[after.n++] = p->site.dists[i];
  for (size_t i = 0, k = 0; i < nitems; i++) {
    const struct ts_resolved *x = &r->res->items[i];
    const struct ts_plan_item *it = &r->items[i];
    if (x->action == TS_ACTION_KEEP)
      continue;
    if (it->metadata)
      after.dists[after.n++] = (struct ts_site_dist){
          .dist_info = (char *)"", .name = (char *)x->name, .normalized = changed[k],
          .version = (char *)x->version, .metadata = (char *)it->metadata,
          .metadata_len = it->metadata_len, .metadata_ok = true};
    k++;
  }
  struct ts_envcheck_result chk;
  struct ts_error ignore = {0};
  size_t n = 0;
  if (ts_envcheck_run_site(&after, &r->target->markers, &chk, &ignore) == TS_OK) {
    *out = ts_xcalloc(chk.nproblems, sizeof **out);
    for (size_t i = 0; i < chk.nproblems; i++) {
      const struct ts_envcheck_problem *q = &chk.problems[i];
      bool dep_changes = name_in(changed, nchanged, q->dep_name);
      /* pip's install-time check: conflicts that involve what changes */
      if (q->kind != TS_ENVCHECK_CONFLICT ||
          (!dep_changes && !name_in(changed, nchanged, q->project)))
        continue;
      (*out)[n++] = dep_changes
                        ? ts_xasprintf("%s %s requires %s, but %s %s will be installed",
                                       q->project, q->version, q->requirement,
                                       q->dep_name, q->dep_version)
                        : ts_xasprintf("%s %s requires %s, but you have %s %s",
                                       q->project, q->version, q->requirement,
                                       q->dep_name, q->dep_version);
    }
    ts_envcheck_result_clear(&chk);
  }
  free(after.dists);
  for (size_t i = 0; i < nchanged; i++)
    free(changed[i]);
  free(changed);
  return n;
}

size_t ts_plan_unmet_requirements(const struct ts_plan_result *r, char ***out) {
  *out = NULL;
  struct priv *p = r->priv; /* the memo is not part of the result's value */
  if (!r->res || !p || !r->target)
    return 0;
  if (!p->unmet_known) {
    p->nunmet = unmet_requirements(r, p, &p->unmet);
    p->unmet_known = true;
  }
  if (p->nunmet) {
    *out = ts_xcalloc(p->nunmet, sizeof **out);
    for (size_t i = 0; i < p->nunmet; i++)
      (*out)[i] = ts_xstrdup(p->unmet[i]);
  }
  return p->nunmet;
}

/* Whether a file name is a distribution of `name` at `version`. */
static bool file_is_version(const char *filename, const char *name,
                            const struct ts_version *version) {
  size_t len = strlen(filename);
  bool same = false;
  if (ts_dist_kind_of(filename, len) == TS_DIST_WHEEL) {
    struct ts_wheel_filename *w = NULL;
    struct ts_error e = {0};
    if (ts_wheel_filename_parse(filename, len, &w, &e) == TS_OK)
      same = strcmp(w->normalized_name, name) == 0 && ts_version_cmp(w->version, version) == 0;
    ts_wheel_filename_free(w);
  } else if (ts_dist_kind_of(filename, len) == TS_DIST_SDIST) {
    struct ts_sdist_filename *sd = NULL;
    struct ts_error e = {0};
    if (ts_sdist_filename_parse(filename, len, &sd, &e) == TS_OK)
      same = strcmp(sd->normalized_name, name) == 0 && ts_version_cmp(sd->version, version) == 0;
    ts_sdist_filename_free(sd);
  }
  return same;
}

size_t ts_plan_version_files(const struct ts_plan_result *r, const char *name,
                             const char *version, const struct ts_index_file ***out) {
  const struct priv *p = r->priv;
  *out = NULL;
  struct ts_version *v = NULL;
  if (!p || ts_version_parse(version, strlen(version), &v, NULL) != TS_OK)
    return 0;
  size_t n = 0;
  const struct direct *d = NULL;
  for (size_t i = 0; i < p->ndirects && !d; i++)
    if (strcmp(p->directs[i].name, name) == 0)
      d = &p->directs[i];
  /* a direct reference's page is its own file, never the index's */
  size_t npages = d ? 1 : p->npages;
  for (size_t i = 0; i < npages; i++) {
    const struct ts_index_project *pr = d ? d->page.self[0] : &p->pages[i]->res.project;
    if (!d && strcmp(pr->name, name) != 0)
      continue;
    for (size_t k = 0; k < pr->nfiles; k++)
      if (file_is_version(pr->files[k].filename, name, v)) {
        *out = ts_xreallocarray(*out, n + 1, sizeof **out);
        (*out)[n++] = &pr->files[k];
      }
  }
  ts_version_free(v);
  return n;
}

bool ts_plan_newest_offered(const struct ts_plan_result *r, const char *name, char *out,
                            size_t cap) {
  const struct priv *p = r ? r->priv : NULL;
  struct ts_version *best = NULL;
  for (size_t i = 0; p && i < p->npages; i++) {
    const struct ts_index_project *pr = &p->pages[i]->res.project;
    if (!pr->name || strcmp(pr->name, name) != 0)
      continue;
    for (size_t k = 0; k < pr->nfiles; k++) {
      struct ts_wheel_filename *w = NULL;
      struct ts_error ignored = {0};
      const char *fn = pr->files[k].filename;
      if (pr->files[k].yanked || ts_wheel_filename_parse(fn, strlen(fn), &w, &ignored) != TS_OK)
        continue;
      if (!ts_version_is_prerelease(w->version) &&
          (!best || ts_version_cmp(w->version, best) > 0)) {
        ts_version_free(best);
        best = ts_version_dup(w->version);
      }
      ts_wheel_filename_free(w);
    }
  }
  bool found = best && snprintf(out, cap, "%s", ts_version_str(best)) < (int)cap;
  ts_version_free(best);
  return found;
}
