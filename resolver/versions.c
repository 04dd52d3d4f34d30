/*
 * resolver/versions.c — a project's pages become its ranked versions:
 * which file stands for each version (tags, PEP 825 variants, formats,
 * Requires-Python, yanks; the installed distribution), the preference
 * order that the ranks are, a lock's preferences; and the batched page
 * fetch that adds the projects asked for.
 */
#include "core/alloc.h"
#include "core/str.h"
#include "resolver/resolver.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <solv/pool.h>
#include <solv/repo.h>
#include <solv/solver.h>

#include "pep/name.h"
#include "resolver/internal.h"
#include "resolver/state.h"

struct sort_ctx {
  const struct ts_resolver_variant_pref *pref;
  int dir;          /* +1 highest preferred, -1 lowest preferred */
  bool demote_pre;  /* finals before pre-releases (no --pre) */
  bool demote_sdist; /* --prefer-binary: wheels before sdist-only versions */
};

static int variant_score(const struct ts_resolver_variant_pref *pref,
                         const struct ts_version *v) {
  if (!pref)
    return 0;
  const char *local = ts_version_local(v);
  for (size_t i = 0; i < pref->npatterns; i++) {
    const char *pat = pref->patterns[i];
    if (!pat[0] ? !local : (local && ts_local_label_matches(pat, local)))
      return (int)(pref->npatterns - i);
  }
  return 0;
}

/* 2: matches a main pattern, 1: only a fallback one, 0: none. */
const struct ts_resolver_variant_pref *ts_rs_variant_pref(const struct rs *rs,
                                                          const char *name) {
  for (size_t i = 0; i < rs->req->nvariants; i++)
    if (strcmp(rs->req->variants[i].name, name) == 0)
      return &rs->req->variants[i];
  return NULL;
}

int ts_rs_variant_tier(const struct ts_resolver_variant_pref *pref,
                       const struct ts_version *v) {
  if (!pref || !pref->nfallback)
    return 0;
  int score = variant_score(pref, v);
  if (!score)
    return 0;
  return (size_t)score > pref->nfallback ? 2 : 1;
}

/* Rank order, least preferred first: public version (reversed for lowest
 * resolution), then the variant preference, then PEP 440 (local labels);
 * before all of these: with --prefer-binary versions with a wheel before
 * sdist-only ones, finals before pre-releases, and the variant tier
 * (main patterns before fallback ones). */
static int pref_cmp(const void *a, const void *b, void *vctx) {
  const struct sort_ctx *ctx = vctx;
  const struct rs_ver *x = a, *y = b;
  if (ctx->demote_sdist && x->from_sdist != y->from_sdist)
    return x->from_sdist ? -1 : 1;
  /* a pre-release is a fallback: any admissible final release is preferred
   * to it, even when a specifier names a pre-release (uv does the same;
   * pip would take the highest) */
  if (ctx->demote_pre && x->pre != y->pre)
    return x->pre ? -1 : 1;
  const struct ts_version *xv = x->twin ? x->twin : x->v, *yv = y->twin ? y->twin : y->v;
  int tx = ts_rs_variant_tier(ctx->pref, xv), ty = ts_rs_variant_tier(ctx->pref, yv);
  if (tx != ty)
    return tx < ty ? -1 : 1;
  int c = ts_version_cmp(x->pub, y->pub) * ctx->dir;
  if (c)
    return c;
  int sx = variant_score(ctx->pref, xv), sy = variant_score(ctx->pref, yv);
  if (sx != sy)
    return sx < sy ? -1 : 1;
  return ts_version_cmp(x->v, y->v);
}

static int pep_cmp(const void *a, const void *b) {
  const struct rs_ver *x = a, *y = b;
  return ts_version_cmp(x->v, y->v);
}

bool ts_rs_name_in(const char *name, const char *const *list, size_t n) {
  for (size_t i = 0; i < n; i++)
    if (ts_name_eq(name, strlen(name), list[i], strlen(list[i])))
      return true;
  return false;
}

static bool has_all(const char *const *list, size_t n) {
  for (size_t i = 0; i < n; i++)
    if (strcmp(list[i], ":all:") == 0)
      return true;
  return false;
}

bool ts_resolver_format_forbidden(const char *const *no_binary, size_t nno_binary,
                                  const char *const *only_binary, size_t nonly_binary,
                                  const char *name, bool source) {
  /* pip's get_allowed_formats: a name beats ":all:", and at the same
   * level --only-binary beats --no-binary */
  if (name && ts_rs_name_in(name, only_binary, nonly_binary))
    return source;
  if (name && ts_rs_name_in(name, no_binary, nno_binary))
    return !source;
  if (has_all(only_binary, nonly_binary))
    return source;
  return !source && has_all(no_binary, nno_binary);
}

static bool wheels_forbidden(const struct ts_resolver_request *r, const char *name) {
  return ts_resolver_format_forbidden(r->no_binary, r->nno_binary, r->only_binary,
                                      r->nonly_binary, name, false);
}

static bool sdists_forbidden(const struct ts_resolver_request *r, const char *name) {
  return ts_resolver_format_forbidden(r->no_binary, r->nno_binary, r->only_binary,
                                      r->nonly_binary, name, true);
}


bool ts_rs_python_ok(struct rs *rs, const char *requires_python) {
  if (!requires_python || !rs->pyver)
    return true;
  struct ts_specset *sp = NULL;
  if (ts_specset_parse(requires_python, strlen(requires_python), &sp, NULL) !=
      TS_OK)
    return true; /* pip ignores an invalid data-requires-python */
  bool ok = ts_specset_contains(sp, rs->pyver, TS_PRE_INCLUDE);
  ts_specset_free(sp);
  return ok;
}

/* Yanked files are only used when a root requirement or constraint pins
 * that version with == or === (PEP 592). */
static bool yank_pinned(struct rs *rs, const char *name,
                        const struct ts_version *v) {
  for (int pass = 0; pass < 2; pass++) {
    const struct ts_requirement *const *list =
        pass ? rs->req->constraints : rs->req->requirements;
    size_t n = pass ? rs->req->nconstraints : rs->req->nrequirements;
    for (size_t i = 0; i < n; i++) {
      const struct ts_requirement *r = list[i];
      if (strcmp(r->normalized_name, name) != 0)
        continue;
      bool pinned = false;
      for (size_t k = 0; k < ts_specset_count(r->specifier); k++) {
        enum ts_spec_op op = ts_specset_op_at(r->specifier, k);
        const char *vt = ts_specset_version_at(r->specifier, k);
        if (op == TS_OP_ARBITRARY ||
            (op == TS_OP_EQ && !strchr(vt, '*')))
          pinned = true;
      }
      if (pinned && ts_specset_contains(r->specifier, v, TS_PRE_INCLUDE))
        return true;
    }
  }
  return false;
}

static const struct ts_resolver_installed *find_installed(struct rs *rs,
                                                          const char *name) {
  for (size_t i = 0; i < rs->req->ninstalled; i++) {
    const char *n = rs->req->installed[i].name;
    if (ts_name_eq(n, strlen(n), name, strlen(name)))
      return &rs->req->installed[i];
  }
  return NULL;
}

/* Appends a version entry; equal versions are merged after sorting. */
static struct rs_ver *ver_slot(struct rs_proj *pj, size_t *cap,
                               struct ts_version *v, const char *text) {
  pj->vers = ts_rs_grow(pj->vers, cap, pj->nvers + 1, sizeof *pj->vers);
  struct rs_ver *s = &pj->vers[pj->nvers++];
  memset(s, 0, sizeof *s);
  s->v = v;
  s->text = ts_xstrdup(text);
  s->prio = -1;
  s->vrank = LONG_MAX;
  s->pre = ts_version_is_prerelease(v);
  return s;
}

void ts_rs_ver_free(struct rs_ver *v) {
  ts_version_free(v->v);
  ts_version_free(v->twin);
  ts_version_free(v->pub);
  free(v->text);
  ts_rs_meta_clear(&v->meta);
}

/* Sorts by PEP 440 and merges the entries of equal versions (one per file
 * so far): O(n log n) for pages with thousands of files. */
static void ver_merge(struct rs_proj *pj) {
  if (!pj->nvers)
    return;
  qsort(pj->vers, pj->nvers, sizeof *pj->vers, pep_cmp);
  size_t out = 0;
  for (size_t i = 1; i < pj->nvers; i++) {
    struct rs_ver *a = &pj->vers[out], *b = &pj->vers[i];
    if (ts_version_cmp(a->v, b->v) != 0) {
      pj->vers[++out] = *b;
      continue;
    }
    /* keep the spelling of the installed version, else of a wheel, else
     * the smaller text: never the page order */
    int sa = a->installed ? 0 : a->has_wheel ? 1 : 2;
    int sb = b->installed ? 0 : b->has_wheel ? 1 : 2;
    if (sb < sa || (sb == sa && strcmp(b->text, a->text) < 0)) {
      char *t = a->text;
      a->text = b->text;
      b->text = t;
    }
    a->has_sdist |= b->has_sdist;
    a->has_wheel |= b->has_wheel;
    a->has_compatible_wheel |= b->has_compatible_wheel;
    a->no_binary_blocked |= b->no_binary_blocked;
    a->only_binary_blocked |= b->only_binary_blocked;
    a->installed |= b->installed;
    if (b->python_blocked &&
        (!a->python_blocked || strcmp(b->python_blocked, a->python_blocked) < 0))
      a->python_blocked = b->python_blocked;
    if (ts_rs_fallback_better(b->fallback, a->fallback)) {
      a->fallback = b->fallback;
      a->fallback_index_url = b->fallback_index_url;
    }
    if (ts_rs_file_better(b->file, b->vrank, b->prio, a->file, a->vrank, a->prio)) {
      a->file = b->file;
      a->index_url = b->index_url;
      a->prio = b->prio;
      a->vrank = b->vrank;
    }
    /* of two allowed sdists of one version (several indexes, .tar.gz and
     * .zip): the files' one order, sdists having no tag or variant rank */
    if (ts_rs_file_better(b->sdist, 0, 0, a->sdist, 0, 0)) {
      a->sdist = b->sdist;
      a->sdist_index_url = b->sdist_index_url;
    }
    ts_rs_ver_free(b);
  }
  pj->nvers = out + 1;
  for (size_t i = 0; i < pj->nvers; i++) {
    struct rs_ver *s = &pj->vers[i];
    /* without a local label the public version orders as the version */
    const char *pub = ts_version_public(s->v);
    if (!ts_version_local(s->v) || ts_version_parse(pub, strlen(pub), &s->pub, NULL) != TS_OK)
      s->pub = ts_version_dup(s->v);
  }
}


/* req->preferences on this project: the preferred version gets a
 * solvable and a SOLVER_FAVOR job, so libsolv takes it wherever it has a
 * choice and the request allows it (a soft preference, never a limit),
 * unless the resolution mode asks for the project's lowest version.  A
 * project with a variant preference (torch and its companions) keeps the
 * preferred release, not its build: every build of that public version is
 * favored, least preferred first (libsolv's last favor wins), so the build
 * is chosen again for this host.  A relock over a T4's "2.13.0+cpu" gives a
 * GH200 2.13.0+cu130. */
static void favor_preferred(struct rs *rs, int pidx) {
  /* the lowest version a --resolution lowest(-direct) asks for wins */
  enum ts_resolution_mode mode = rs->req->resolution;
  if (mode == TS_RESOLUTION_LOWEST || (mode == TS_RESOLUTION_LOWEST_DIRECT && rs->projs[pidx].direct))
    return;
  for (size_t k = 0; k < rs->req->npreferences; k++) {
    const struct ts_resolver_preference *pref = &rs->req->preferences[k];
    struct rs_proj *pj = &rs->projs[pidx];
    struct ts_version *want = NULL;
    if (strcmp(pref->name, pj->name) != 0 ||
        ts_version_parse(pref->version, strlen(pref->version), &want, NULL) != TS_OK)
      continue;
    const char *wpub = ts_version_public(want);
    struct ts_version *want_pub = NULL;
    bool any_build = ts_rs_variant_pref(rs, pj->name) &&
                     ts_version_parse(wpub, strlen(wpub), &want_pub, NULL) == TS_OK;
    for (size_t i = 0; i < pj->nvers; i++) {
      struct rs_ver *v = &rs->projs[pidx].vers[i];
      if (!v->usable || ts_version_cmp(any_build ? v->pub : v->v, any_build ? want_pub : want) != 0)
        continue;
      if (!v->solv)
        ts_rs_reveal(rs, pidx, i);
      struct rs_job *ji = ts_rs_push_job(rs, SOLVER_FAVOR | SOLVER_SOLVABLE, rs->projs[pidx].vers[i].solv);
      ji->proj = pidx;
      if (!any_build)
        break;
    }
    ts_version_free(want_pub);
    ts_version_free(want);
  }
}

/* A new project entry for `name` (no versions yet), indexed by name. */
static int new_project(struct rs *rs, const char *name,
                       const struct ts_resolver_pages *pages) {
  rs->projs = ts_rs_grow(rs->projs, &rs->projs_cap, rs->nprojs + 1,
                         sizeof *rs->projs);
  int pidx = (int)rs->nprojs++;
  struct rs_proj *pj = &rs->projs[pidx];
  memset(pj, 0, sizeof *pj);
  pj->name = ts_xstrdup(name);
  pj->nameid = pool_str2id(rs->pool, name, 1);
  pj->inst_ver = -1;
  pj->found = pages && pages->nprojects > 0;
  if (!pj->found && pages && pages->not_found)
    pj->not_found = ts_xstrdup(pages->not_found);
  if (pages && pages->nprojects) {
    pj->pages = ts_xmalloc(pages->nprojects * sizeof *pj->pages);
    memcpy(pj->pages, pages->projects, pages->nprojects * sizeof *pj->pages);
    pj->npages = pages->nprojects;
  }
  rs->pidx = ts_rs_grow(rs->pidx, &rs->pidx_cap, (size_t)pj->nameid + 1,
                        sizeof *rs->pidx);
  rs->pidx[pj->nameid] = pidx + 1;
  /* direct: named by a root requirement that applies to the target (a
   * marker that is false here leaves it a dependency, which matters to
   * --resolution lowest-direct) */
  pj->direct = ts_rs_named_by_root(rs, name);
  return pidx;
}

/* What the formats allowed for a project leave of its files. */
struct formats {
  bool no_binary, no_sdist;
  /* files of one project mostly share one Requires-Python: the last one
   * judged, and whether the target's Python passed it */
  const char *last_rp;
  bool last_ok;
};

/* One file of a page: a version entry (merged later) saying what the file
 * offers and, when it is usable here, the file itself. */
static void read_file(struct rs *rs, struct rs_proj *pj, size_t *cap,
                      const struct ts_index_project *ip,
                      const struct ts_index_file *file, struct formats *fm) {
  struct ts_rs_fname fn;
  pj->nfiles++;
  /* the file before was most likely of the same release */
  const struct ts_version *hint = pj->nvers ? pj->vers[pj->nvers - 1].v : NULL;
  if (!ts_rs_fname_parse(file->filename, hint, &fn)) {
    if (!pj->unreadable_file)
      pj->unreadable_file = file->filename;
    return;
  }
  if (strcmp(fn.normalized_name, pj->name) != 0) {
    if (!pj->other_file)
      pj->other_file = file->filename;
    ts_rs_fname_clear(&fn);
    return;
  }
  const char *vtext = ts_version_original(fn.version);
  struct rs_ver *s = ver_slot(pj, cap, ts_rs_fname_take_version(&fn), vtext);
  long prio = ts_rs_wheel_priority(rs->target->tags, &fn);
  bool wheel = fn.wheel;
  long vrank = fn.variant_label ? file->variant_rank : LONG_MAX;
  ts_rs_fname_clear(&fn);
  const char *from = file->from_find_links ? NULL
                     : file->index_url     ? file->index_url
                                           : ip->index_url;
  if (rs->req->any_file && (!wheel || !fm->no_binary) &&
      ts_rs_fallback_better(file, s->fallback)) {
    s->fallback = file;
    s->fallback_index_url = from;
  }
  if (wheel)
    s->has_wheel = true;
  else
    s->has_sdist = true;
  if (wheel && prio < 0)
    return;
  if (wheel)
    s->has_compatible_wheel = true;
  else if (rs->req->sdists && fm->no_sdist)
    s->only_binary_blocked = true;
  if (!wheel && fm->no_sdist)
    return;
  if (file->requires_python &&
      (!fm->last_rp || strcmp(fm->last_rp, file->requires_python) != 0)) {
    fm->last_rp = file->requires_python;
    fm->last_ok = ts_rs_python_ok(rs, fm->last_rp);
  }
  if (file->requires_python && !fm->last_ok) {
    s->python_blocked = file->requires_python;
    return;
  }
  if (!wheel) {
    s->sdist = file;
    s->sdist_index_url = from;
    return;
  }
  if (fm->no_binary) {
    s->no_binary_blocked = true;
    return;
  }
  s->file = file;
  s->index_url = from;
  s->prio = prio;
  s->vrank = vrank;
}

/* The installed distribution is a version of its own (under
 * --force-reinstall only the action's reference). */
static void add_installed(struct rs *rs, struct rs_proj *pj, size_t *cap) {
  const struct ts_resolver_installed *inst = find_installed(rs, pj->name);
  pj->inst = inst;
  struct ts_version *iv = NULL;
  if (inst && inst->version &&
      ts_version_parse(inst->version, strlen(inst->version), &iv, NULL) !=
          TS_OK)
    iv = NULL;
  if (iv && !rs->req->force_reinstall) {
    struct rs_ver *s = ver_slot(pj, cap, iv, inst->version);
    s->installed = true;
  } else if (iv) {
    pj->inst_v = iv; /* only for the action */
  }
}

/* The merged versions in preference order: index == rank. */
static void rank_versions(struct rs *rs, struct rs_proj *pj) {
  ver_merge(pj);
  /* a version without a usable wheel is built from its sdist */
  for (size_t i = 0; i < pj->nvers; i++) {
    struct rs_ver *s = &pj->vers[i];
    if (!s->file && s->sdist) {
      s->file = s->sdist;
      s->index_url = s->sdist_index_url;
      s->from_sdist = true;
    }
  }
  ts_rs_set_twins(rs, pj);
  struct sort_ctx ctx = {NULL, 1, !rs->req->pre, rs->req->prefer_binary};
  for (size_t i = 0; i < rs->req->nvariants; i++)
    if (strcmp(rs->req->variants[i].name, pj->name) == 0)
      ctx.pref = &rs->req->variants[i];
  if (rs->req->resolution == TS_RESOLUTION_LOWEST ||
      (rs->req->resolution == TS_RESOLUTION_LOWEST_DIRECT && pj->direct))
    ctx.dir = -1;
  if (pj->nvers)
    qsort_r(pj->vers, pj->nvers, sizeof *pj->vers, pref_cmp, &ctx);
}

/* The rank EVRs, the installed solvable, and which versions are usable
 * (a file, not a yank nobody pinned). */
static void number_versions(struct rs *rs, int pidx) {
  struct rs_proj *pj = &rs->projs[pidx];
  pj->evrs = ts_xcalloc(pj->nvers + 1, sizeof *pj->evrs);
  for (size_t i = 0; i < pj->nvers; i++) {
    char evr[24];
    snprintf(evr, sizeof evr, "%04zu", i);
    pj->evrs[i] = pool_str2id(rs->pool, evr, 1);
    ts_rs_note_rank(rs, pj->evrs[i], (int)i);
    struct rs_ver *s = &pj->vers[i];
    if (s->installed) {
      pj->inst_ver = (int)i;
      s->inst_solv = ts_rs_new_solvable(rs, rs->sys, pj->nameid, pj->evrs[i],
                                        RS_INST, pidx, (int)i, -1);
      pool_set_installed(rs->pool, rs->sys);
      pj->inst_solv = s->inst_solv;
      if (rs->req->no_deps || !pj->inst->metadata)
        ts_rs_sinfo(rs, s->inst_solv)->deps_done = true;
    }
    if (!s->file && s->fallback && !s->python_blocked &&
        ts_rs_python_ok(rs, s->fallback->requires_python)) {
      s->file = s->fallback;
      s->index_url = s->fallback_index_url;
    }
    if (!s->file)
      continue;
    if (s->file->yanked && !yank_pinned(rs, pj->name, s->v)) {
      s->yank_blocked = true;
      continue;
    }
    s->usable = true;
  }
}

static void add_project(struct rs *rs, const char *name,
                        const struct ts_resolver_pages *pages) {
  int pidx = new_project(rs, name, pages);
  struct rs_proj *pj = &rs->projs[pidx];
  size_t cap = 0;
  struct formats fm = {wheels_forbidden(rs->req, name),
                       !rs->req->sdists || sdists_forbidden(rs->req, name), NULL, true};
  for (size_t k = 0; pages && k < pages->nprojects; k++) {
    const struct ts_index_project *ip = pages->projects[k];
    for (size_t f = 0; f < ip->nfiles; f++)
      read_file(rs, pj, &cap, ip, &ip->files[f], &fm);
  }
  add_installed(rs, pj, &cap);
  rank_versions(rs, pj);
  number_versions(rs, pidx);
  ts_rs_reveal_first(rs, pidx);
  favor_preferred(rs, pidx);
  rs->pages_fetched += pages ? 1 : 0;
}

/* Fetches every wanted page (in batches) and encodes the new projects. */
enum ts_code ts_rs_load_wanted(struct rs *rs, struct ts_error *err) {
  while (rs->nwant) {
    size_t n = rs->nwant;
    char **names = rs->want;
    /* projects enter the pool in name order, not discovery order */
    qsort(names, n, sizeof *names, ts_strv_cmp);
    rs->want = NULL;
    rs->nwant = 0;
    rs->want_cap = 0;
    struct ts_resolver_pages *pages = ts_xcalloc(n, sizeof *pages);
    enum ts_code c = rs->provider->get_pages(
        rs->provider->ctx, (const char *const *)names, n, pages, err);
    if (c == TS_OK) {
      for (size_t i = 0; i < n; i++) {
        if (ts_rs_proj_by_name(rs, names[i]))
          continue;
        add_project(rs, names[i], &pages[i]);
        ts_rs_apply_user_constraints(rs, (int)rs->nprojs - 1);
      }
      ts_rs_apply_rules(rs);
    }
    free(pages);
    for (size_t i = 0; i < n; i++)
      free(names[i]);
    free(names);
    if (c != TS_OK)
      return c;
  }
  return TS_OK;
}


