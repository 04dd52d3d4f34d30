/* The resolver's provider of a plan (plan_state.h): index pages with the
 * --hash, --find-links and variant filters applied, one-file pages of
 * direct requirements, METADATA (PEP 658, ranges, the wheel, or an sdist's
 * build backend), all kept in the plan's `fetched` until the result is
 * freed. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "core/alloc.h"
#include "core/str.h"
#include "core/buf.h"
#include "core/fs.h"
#include "core/sha256.h"
#include "index/simple.h"
#include "index/url.h"
#include "pep/name.h"
#include "plan/plan_internal.h"
#include "plan/plan_state.h"
#include "plan/sdist_metadata.h"

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
    any = ts_plan_entry_allows(e, pr->files[i].sha256) &&
          ts_plan_entry_accepts_file(e, &pr->files[i]);
  if (!any)
    return;
  size_t k = 0;
  for (size_t i = 0; i < pr->nfiles; i++)
    keep_file(pr, i, &k, !(pr->files[i].sha256 && !ts_plan_entry_allows(e, pr->files[i].sha256) &&
                           ts_plan_entry_accepts_file(e, &pr->files[i])));
  pr->nfiles = k;
}

/* Keeps a fetched page for the resolution's lifetime (the provider hands
 * out pointers into it); takes over r's project. */
static struct ts_plan_page *keep_page(struct ts_plan_state *p, const struct ts_index_result *r) {
  struct ts_plan_page *pg = ts_xcalloc(1, sizeof *pg);
  pg->res = *r;
  ts_plan_variants_apply(p->in.owner->variants, p->in.idx, &pg->res.project, &p->in.owner->notes,
                         &p->in.owner->nnotes);
  pg->self[0] = &pg->res.project;
  struct ts_plan_fetched *fe = &p->fetched;
  fe->pages = ts_xreallocarray(fe->pages, fe->npages + 1, sizeof *fe->pages);
  fe->pages[fe->npages++] = pg;
  return pg;
}

static enum ts_code get_pages(void *ctx, const char *const *names, size_t n,
                              struct ts_resolver_pages *out, struct ts_error *err) {
  struct ts_plan_state *p = ctx;
  const char **want = ts_xcalloc(n, sizeof *want);
  size_t *slot = ts_xcalloc(n, sizeof *slot);
  size_t nwant = 0;
  for (size_t i = 0; i < n; i++) {
    char *norm = ts_name_normalize(names[i], strlen(names[i]));
    struct ts_plan_direct *d = norm ? ts_plan_find_direct(p, norm) : NULL;
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
    rc = ts_index_fetch_projects(p->in.idx, want, nwant, res, err);
    for (size_t j = 0; j < nwant; j++) {
      if (rc == TS_OK && res[j].code == TS_OK) {
        const struct ts_reqfile_entry *he =
            ts_plan_hash_entry(p->in.entries, p->in.nentries, res[j].project.name);
        if (he)
          filter_hashes(&res[j].project, he);
        ts_plan_drop_routed_find_links(p->in.set, &res[j].project, &p->in.owner->notes,
                                       &p->in.owner->nnotes);
        struct ts_plan_page *pg = keep_page(p, &res[j]);
        out[slot[j]].projects = pg->self;
        out[slot[j]].nprojects = 1;
        continue;
      }
      if (rc == TS_OK && res[j].code == TS_E_NOT_FOUND && p->in.ngeneral) {
        /* A routed project that no variant index has (triton on the cpu
         * index) comes from the general indexes, as pip would take it. */
        char *norm = ts_name_normalize(want[j], strlen(want[j]));
        bool routed = norm && ts_plan_is_routed(p->in.set, norm);
        free(norm);
        if (routed) {
          struct ts_index_result fb = {0};
          enum ts_code frc = ts_index_fetch_project_from(
              p->in.idx, want[j], (const char *const *)p->in.general, p->in.ngeneral, &fb, err);
          if (frc == TS_OK && fb.code == TS_OK) {
            ts_index_project_clear(&res[j].project);
            struct ts_plan_page *pg = keep_page(p, &fb);
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
        p->fetched.not_found = ts_xreallocarray(p->fetched.not_found, p->fetched.nnot_found + 1,
                                                sizeof *p->fetched.not_found);
        p->fetched.not_found[p->fetched.nnot_found] = ts_xstrdup(res[j].err.detail);
        out[slot[j]].not_found = p->fetched.not_found[p->fetched.nnot_found++];
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
  return ts_plan_variants_env(((struct ts_plan_state *)ctx)->in.owner->variants, name, f);
}

/* For an explanation: the project's pages on the general indexes after the
 * one that answered, which first-index never asked.  Routed projects are
 * left out: they come from the PyTorch server by design, not by order. */
static size_t get_pages_elsewhere(void *ctx, const char *name,
                                  const struct ts_index_project **out, size_t max) {
  struct ts_plan_state *p = ctx;
  if (!p->in.first_index || p->in.ngeneral < 2 || ts_plan_is_routed(p->in.set, name))
    return 0;
  const char *from = NULL;
  for (size_t i = 0; i < p->fetched.npages && !from; i++)
    if (strcmp(p->fetched.pages[i]->res.project.name, name) == 0)
      from = p->fetched.pages[i]->res.project.index_url;
  size_t n = 0, start = 0;
  for (size_t i = 0; from && i < p->in.ngeneral; i++)
    if (strcmp(p->in.general[i], from) == 0)
      start = i + 1;
  for (size_t i = start; i < p->in.ngeneral && n < max; i++) {
    struct ts_index_result res = {0};
    struct ts_error ignore = {0};
    if (ts_index_fetch_project_from(p->in.idx, name, &p->in.general[i], 1, &res, &ignore) !=
            TS_OK ||
        res.code != TS_OK) {
      ts_index_project_clear(&res.project);
      continue;
    }
    out[n++] = &keep_page(p, &res)->res.project;
  }
  return n;
}

const struct ts_plan_meta *ts_plan_find_meta(const struct ts_plan_state *p,
                                          const struct ts_index_file *f) {
  for (size_t i = 0; i < p->fetched.ndirects; i++)
    if (&p->fetched.directs[i].file == f && p->fetched.directs[i].prepared.data)
      return &p->fetched.directs[i].prepared;
  for (size_t i = 0; i < p->fetched.nmetas; i++)
    if (p->fetched.metas[i].file == f)
      return &p->fetched.metas[i];
  return NULL;
}

static struct ts_plan_meta *keep_meta(struct ts_plan_state *p, const struct ts_index_file *f,
                                      char *data, size_t len) {
  struct ts_plan_fetched *fe = &p->fetched;
  fe->metas = ts_xreallocarray(fe->metas, fe->nmetas + 1, sizeof *fe->metas);
  fe->metas[fe->nmetas] = (struct ts_plan_meta){f, data, len};
  return &fe->metas[fe->nmetas++];
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
static const struct ts_index_project *project_of_file(const struct ts_plan_state *p,
                                                      const struct ts_index_file *f) {
  for (size_t i = 0; i < p->fetched.npages; i++) {
    const struct ts_index_project *pr = &p->fetched.pages[i]->res.project;
    if (pr->nfiles && f >= pr->files && f < pr->files + pr->nfiles)
      return pr;
  }
  return NULL;
}

/* *found with rq filled when plan/sdist_metadata.h finds the metadata
 * without a build (and a note saying where from). */
static enum ts_code static_sdist_metadata(struct ts_plan_state *p, struct ts_resolver_meta *rq,
                                          bool *found, struct ts_error *err) {
  struct ts_sdist_metadata sm;
  enum ts_code rc =
      ts_plan_sdist_metadata(p->in.idx, project_of_file(p, rq->file), rq->file, &sm, err);
  if (rc == TS_OK && sm.from != TS_SDIST_METADATA_NONE) {
    struct ts_plan_meta *m = keep_meta(p, rq->file, sm.data, sm.len);
    sm.data = NULL;
    rq->data = m->data;
    rq->len = m->len;
    rq->code = TS_OK;
    *found = true;
    struct ts_plan_result *r = p->in.owner;
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
static enum ts_code sdist_metadata(struct ts_plan_state *p, struct ts_resolver_meta *rq,
                                   struct ts_error *err) {
  char *data = NULL;
  size_t len = 0;
  if (rq->file->has_metadata && local_pep658(rq->file, &data, &len)) {
    struct ts_plan_meta *m = keep_meta(p, rq->file, data, len);
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
  const struct ts_target *builder = p->in.owner->target;
  bool found = false;
  enum ts_code rc = builder->python ? TS_OK : static_sdist_metadata(p, rq, &found, err);
  if (rc != TS_OK || found)
    return rc;
  if (!builder->python && p->in.build.metadata_python && !p->builds.metadata_target)
    rc = ts_target_open(p->in.build.metadata_python, NULL, p->in.build.probe_cache_dir,
                        &p->builds.metadata_target, err);
  if (p->builds.metadata_target)
    builder = p->builds.metadata_target;
  char *label = ts_xasprintf("%s %s", rq->name, rq->version);
  struct ts_source_spec src = {.kind = TS_SOURCE_URL, .location = rq->file->url,
                               .sha256 = rq->file->sha256, .label = label,
                               .name = rq->name};
  char *log = NULL;
  if (rc == TS_OK)
    rc = ts_source_build_metadata(&p->in.build, builder, p->in.idx, &src, &data, &len, &log, err);
  free(label);
  if (rc != TS_OK) {
    free(p->in.owner->build_log);
    p->in.owner->build_log = log;
    rq->code = rc;
    return rc;
  }
  struct ts_plan_meta *m = keep_meta(p, rq->file, data, len);
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
  struct ts_plan_state *p = ctx;
  struct ts_index_metadata *m = ts_xcalloc(n, sizeof *m);
  size_t *slot = ts_xcalloc(n, sizeof *slot);
  size_t nm = 0;
  enum ts_code rc = TS_OK;
  for (size_t i = 0; i < n && rc == TS_OK; i++) {
    const struct ts_plan_meta *have = ts_plan_find_meta(p, reqs[i].file);
    if (have) {
      reqs[i].data = have->data;
      reqs[i].len = have->len;
      reqs[i].code = TS_OK;
      continue;
    }
    const struct ts_index_file *f = reqs[i].file;
    if (is_sdist_file(f) && p->in.builds &&
        (!f->has_metadata || strncmp(f->url, "file://", 7) == 0)) {
      rc = sdist_metadata(p, &reqs[i], err);
      continue;
    }
    m[nm].file = reqs[i].file;
    slot[nm++] = i;
  }
  if (rc == TS_OK && nm)
    rc = ts_index_fetch_metadata(p->in.idx, m, nm, err);
  for (size_t j = 0; j < nm; j++) {
    struct ts_resolver_meta *r = &reqs[slot[j]];
    if (rc == TS_OK && m[j].code == TS_OK) {
      struct ts_plan_meta *kept = keep_meta(p, m[j].file, m[j].data, m[j].len);
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

struct ts_resolver_provider ts_plan_provider(struct ts_plan_state *p) {
  return (struct ts_resolver_provider){.ctx = p, .get_pages = get_pages,
                                       .get_metadata = get_metadata,
                                       .get_pages_elsewhere = get_pages_elsewhere,
                                       .variant_env = variant_env};
}

void ts_plan_fetched_clear(struct ts_plan_fetched *f) {
  for (size_t i = 0; i < f->ndirects; i++) {
    struct ts_plan_direct *d = &f->directs[i];
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
  free(f->directs);
  for (size_t i = 0; i < f->npages; i++) {
    ts_index_project_clear(&f->pages[i]->res.project);
    free(f->pages[i]);
  }
  free(f->pages);
  for (size_t i = 0; i < f->nmetas; i++)
    free(f->metas[i].data);
  free(f->metas);
  for (size_t i = 0; i < f->nnot_found; i++)
    free(f->not_found[i]);
  free(f->not_found);
  memset(f, 0, sizeof *f);
}
