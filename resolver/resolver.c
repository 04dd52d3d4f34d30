/*
 * resolver/resolver.c — the libsolv encoding and the lazy solve loop.
 * Design notes (rank encoding, lazy metadata, why each choice) live in
 * resolver/README.md; comments here say why a step is needed.
 */
#include "core/alloc.h"
#include "core/str.h"
#include "resolver/resolver.h"

#include <fnmatch.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <solv/pool.h>
#include <solv/poolarch.h>
#include <solv/problems.h>
#include <solv/repo.h>
#include <solv/rules.h>
#include <solv/solver.h>

#include "pep/name.h"
#include "resolver/internal.h"
#include "resolver/state.h"

/* ---- small utilities ----------------------------------------------------- */

void *ts_rs_grow(void *p, size_t *cap, size_t need, size_t size) {
  if (need <= *cap)
    return p;
  size_t n = *cap ? *cap : 8;
  while (n < need)
    n *= 2;
  void *q = ts_xreallocarray(p, n, size);
  memset((char *)q + *cap * size, 0, (n - *cap) * size);
  *cap = n;
  return q;
}

static struct rs_sinfo *sinfo(struct rs *rs, Id p) {
  rs->si = ts_rs_grow(rs->si, &rs->si_cap, (size_t)p + 1, sizeof *rs->si);
  return &rs->si[p];
}

struct rs_proj *ts_rs_proj_by_name(struct rs *rs, const char *name) {
  Id id = pool_str2id(rs->pool, name, 0);
  if (!id || (size_t)id >= rs->pidx_cap || !rs->pidx[id])
    return NULL;
  return &rs->projs[rs->pidx[id] - 1];
}

/* Text of a requirement as the user wrote it, without marker. */
char *ts_rs_req_text(const char *name, char *const *extras, size_t nextras,
                     const struct ts_specset *spec) {
  size_t cap = 0, len = 0;
  char *s = NULL;
  const char *parts[3];
  for (size_t i = 0; i <= nextras + 1; i++) {
    char tmp[8];
    const char *piece;
    if (i == 0) {
      piece = name;
    } else if (i <= nextras) {
      tmp[0] = i == 1 ? '[' : ',';
      tmp[1] = '\0';
      parts[0] = tmp;
      parts[1] = extras[i - 1];
      parts[2] = i == nextras ? "]" : "";
      for (int k = 0; k < 3; k++) {
        size_t l = strlen(parts[k]);
        s = ts_rs_grow(s, &cap, len + l + 1, 1);
        memcpy(s + len, parts[k], l + 1);
        len += l;
      }
      continue;
    } else {
      piece = spec ? ts_specset_str(spec) : "";
    }
    size_t l = strlen(piece);
    s = ts_rs_grow(s, &cap, len + l + 1, 1);
    memcpy(s + len, piece, l + 1);
    len += l;
  }
  return s;
}

/* ---- solvables ------------------------------------------------------------ */

static Id new_solvable(struct rs *rs, Repo *repo, Id name, Id evr,
                       enum rs_kind kind, int proj, int ver, int extra) {
  Id p = repo_add_solvable(repo);
  Solvable *s = pool_id2solvable(rs->pool, p);
  s->name = name;
  s->evr = evr;
  s->arch = ARCH_NOARCH;
  s->provides = repo_addid_dep(repo, s->provides,
                               pool_rel2id(rs->pool, name, evr, REL_EQ, 1), 0);
  struct rs_sinfo *si = sinfo(rs, p);
  si->kind = kind;
  si->proj = proj;
  si->ver = ver;
  si->extra = extra;
  si->first_dep = -1;
  si->deps_done = false;
  return p;
}

/* Records why `dep` is on `p` (for explanations and the closure) and adds
 * it as a requires or conflicts. */
int ts_rs_add_dep(struct rs *rs, Id p, Id dep, bool conflict, char *text,
                  int proj, const struct ts_specset *spec, int constraint,
                  bool rich) {
  Solvable *s = pool_id2solvable(rs->pool, p);
  if (conflict)
    s->conflicts = repo_addid_dep(s->repo, s->conflicts, dep, 0);
  else
    s->requires = repo_addid_dep(s->repo, s->requires, dep, 0);
  rs->deps = ts_rs_grow(rs->deps, &rs->deps_cap, rs->ndeps + 1,
                        sizeof *rs->deps);
  struct rs_dep *d = &rs->deps[rs->ndeps];
  d->solv = p;
  d->dep = dep;
  d->conflict = conflict;
  d->text = text;
  d->proj = proj;
  d->spec = spec ? ts_specset_dup(spec) : NULL;
  d->constraint = constraint;
  d->rich = rich;
  d->extra = -1;
  struct rs_sinfo *si = sinfo(rs, p);
  d->next = si->first_dep;
  si->first_dep = (int)rs->ndeps;
  return (int)rs->ndeps++;
}

/* The dep whose providers are exactly the solvables of `name` at the ranks
 * where match[] is true.  exists[] tells which ranks have a solvable at all:
 * the others may be bridged, which keeps ranges few. */
Id ts_rs_ranks_dep(struct rs *rs, Id name, const Id *evrs, size_t n,
                   const bool *match, const bool *exists) {
  Pool *pool = rs->pool;
  Id result = 0;
  size_t first_exist = n, last_exist = n;
  bool all = true;
  for (size_t i = 0; i < n; i++) {
    if (!exists[i])
      continue;
    if (first_exist == n)
      first_exist = i;
    last_exist = i;
    if (!match[i])
      all = false;
  }
  if (first_exist == n)
    return pool_rel2id(pool, name, rs->none_evr, REL_EQ, 1);
  if (all)
    return name;
  size_t i = first_exist;
  while (i <= last_exist) {
    if (!exists[i] || !match[i]) {
      i++;
      continue;
    }
    size_t lo = i, hi = i;
    for (size_t j = i + 1; j <= last_exist; j++) {
      if (!exists[j])
        continue;
      if (!match[j])
        break;
      hi = j;
    }
    Id d;
    if (lo == hi)
      d = pool_rel2id(pool, name, evrs[lo], REL_EQ, 1);
    else if (lo == first_exist)
      d = pool_rel2id(pool, name, evrs[hi], REL_LT | REL_EQ, 1);
    else if (hi == last_exist)
      d = pool_rel2id(pool, name, evrs[lo], REL_GT | REL_EQ, 1);
    else
      d = pool_rel2id(pool,
                      pool_rel2id(pool, name, evrs[lo], REL_GT | REL_EQ, 1),
                      pool_rel2id(pool, name, evrs[hi], REL_LT | REL_EQ, 1),
                      REL_WITH, 1);
    result = result ? pool_rel2id(pool, result, d, REL_OR, 1) : d;
    i = hi + 1;
  }
  return result ? result : pool_rel2id(pool, name, rs->none_evr, REL_EQ, 1);
}

/* PEP 440 / pip: a pre-release fits a requirement when --pre is given, when
 * the specifier names a pre-release, or when no final release fits. */
static bool pre_allowed(struct rs *rs, const struct rs_proj *pj,
                        const struct ts_specset *spec) {
  if (rs->req->pre || pj->pre_named ||
      (spec && ts_specset_names_prerelease(spec)))
    return true;
  for (size_t i = 0; i < pj->nvers; i++) {
    const struct rs_ver *v = &pj->vers[i];
    if ((v->usable || (int)i == pj->inst_ver) && !v->pre &&
        (!spec || ts_specset_contains(spec, v->v, TS_PRE_INCLUDE)))
      return false;
  }
  return true;
}

bool ts_rs_version_fits(struct rs *rs, const struct rs_proj *pj, size_t i,
                        const struct ts_specset *spec, bool pre_ok) {
  const struct rs_ver *v = &pj->vers[i];
  if (spec && !ts_specset_contains(spec, v->v, TS_PRE_INCLUDE))
    return false;
  /* an installed pre-release satisfies whatever policy (packaging's
   * installed=True) */
  if (v->pre && !pre_ok && (int)i != pj->inst_ver)
    return false;
  (void)rs;
  return true;
}

static void reveal_matching(struct rs *rs, int pidx, const bool *match);

/* Dep for "project (or its extra) with version in spec". */
static Id spec_dep(struct rs *rs, struct rs_proj *pj, int extra,
                   const struct ts_specset *spec) {
  size_t n = pj->nvers;
  bool *match = ts_xcalloc(n + 1, sizeof *match);
  bool *exists = ts_xcalloc(n + 1, sizeof *exists);
  bool pre_ok = pre_allowed(rs, pj, spec);
  for (size_t i = 0; i < n; i++) {
    if (extra >= 0)
      exists[i] = pj->vers[i].usable || pj->vers[i].inst_solv;
    else
      exists[i] = pj->vers[i].usable || pj->vers[i].inst_solv;
    match[i] = exists[i] && ts_rs_version_fits(rs, pj, i, spec, pre_ok);
  }
  Id name = extra >= 0 ? pj->extras[extra].nameid : pj->nameid;
  Id d = ts_rs_ranks_dep(rs, name, pj->evrs, n, match, exists);
  reveal_matching(rs, (int)(pj - rs->projs), match);
  free(match);
  free(exists);
  return d;
}

/* pip decides pre-releases per project, on the combined specifier: once
 * any requirement on a project names a pre-release, every requirement on
 * it admits the pre-releases in its range.  Edges encoded before the flip
 * are re-encoded in place (requires arrays and jobs). */
static void note_prerelease(struct rs *rs, struct rs_proj *pj,
                            const struct ts_specset *spec) {
  if (pj->pre_named || !spec || !ts_specset_names_prerelease(spec))
    return;
  pj->pre_named = true;
  int pidx = (int)(pj - rs->projs);
  for (size_t i = 0; i < rs->ndeps; i++) {
    struct rs_dep *d = &rs->deps[i];
    if (d->proj != pidx || !d->spec || d->conflict || d->constraint >= 0 || d->rich ||
        d->solv == rs->constraints_solv)
      continue;
    Id nd = spec_dep(rs, pj, d->extra, d->spec);
    if (nd == d->dep)
      continue;
    Solvable *s = pool_id2solvable(rs->pool, d->solv);
    for (Id *ids = s->repo->idarraydata + s->requires; *ids; ids++)
      if (*ids == d->dep)
        *ids = nd;
    d->dep = nd;
  }
  for (int j = 0; j + 1 < rs->jobs.count; j += 2) {
    struct rs_job *ji = &rs->job_info[j / 2];
    if (ji->proj != pidx || !ji->spec ||
        (rs->jobs.elements[j] & SOLVER_JOBMASK) != SOLVER_INSTALL)
      continue;
    rs->jobs.elements[j + 1] = spec_dep(rs, pj, ji->extra, ji->spec);
  }
}

/* ---- extras ---------------------------------------------------------------- */

/* name[extra] at one version: that very version, plus the extra's deps. */
static void add_extra_solvable(struct rs *rs, int pidx, int e, size_t i) {
  struct rs_proj *pj = &rs->projs[pidx];
  struct rs_extra *x = &pj->extras[e];
  struct rs_ver *v = &pj->vers[i];
  if (x->solv[i])
    return;
  Id p = new_solvable(rs, rs->repo, x->nameid, pj->evrs[i], RS_EXTRA, pidx,
                      (int)i, e);
  x->solv[i] = p;
  Id base = pool_rel2id(rs->pool, pj->nameid, pj->evrs[i], REL_EQ, 1);
  ts_rs_add_dep(rs, p, base, false, ts_xasprintf("%s==%s", pj->name, v->text),
                pidx, NULL, -1, false);
  if (rs->req->no_deps)
    sinfo(rs, p)->deps_done = true;
}

static int get_extra(struct rs *rs, int pidx, const char *extra) {
  struct rs_proj *pj = &rs->projs[pidx];
  for (size_t i = 0; i < pj->nextras; i++)
    if (strcmp(pj->extras[i].name, extra) == 0)
      return (int)i;
  pj->extras = ts_rs_grow(pj->extras, &pj->extras_cap, pj->nextras + 1,
                          sizeof *pj->extras);
  int e = (int)pj->nextras++;
  struct rs_extra *x = &pj->extras[e];
  x->name = ts_xstrdup(extra);
  char *full = ts_xasprintf("%s[%s]", pj->name, extra);
  x->nameid = pool_str2id(rs->pool, full, 1);
  free(full);
  x->solv = ts_xcalloc(pj->nvers + 1, sizeof *x->solv);
  for (size_t i = 0; i < pj->nvers; i++)
    if (pj->vers[i].solv || pj->vers[i].inst_solv)
      add_extra_solvable(rs, pidx, e, i);
  return e;
}

/* ---- projects --------------------------------------------------------------- */

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
    if (!pat[0] ? !local : (local && fnmatch(pat, local, 0) == 0))
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

static bool name_in(const char *name, const char *const *list, size_t n) {
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
  if (name && name_in(name, only_binary, nonly_binary))
    return source;
  if (name && name_in(name, no_binary, nno_binary))
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

/* Of two allowed sdists of one version (several indexes, .tar.gz and
 * .zip): a non-yanked one, then the smaller name, never the page order. */
static bool sdist_better(const struct ts_index_file *f, const struct ts_index_file *g) {
  if (!g)
    return f != NULL;
  if (!f)
    return false;
  if (f->yanked != g->yanked)
    return !f->yanked;
  return strcmp(f->filename, g->filename) < 0;
}

/* ---- canonical order ------------------------------------------------------ */

/* libsolv decides in job order and walks rules in solvable order, so an
 * input order that reached it would change the answer.  Requirements,
 * constraints and Requires-Dist are therefore visited in the order of their
 * canonical text (name, extras, specifier, marker), never as written. */
struct req_key {
  const struct ts_requirement *r;
  char *key;
};

static int req_key_cmp(const void *a, const void *b) {
  const struct req_key *x = a, *y = b;
  return strcmp(x->key, y->key);
}

static char *req_sort_key(const struct ts_requirement *r) {
  char *text = ts_requirement_str(r);
  /* the name first (normalised), so one project's requirements are
   * neighbours whatever their spelling */
  char *key = ts_xasprintf("%s\x01%s", r->normalized_name, text ? text : "");
  free(text);
  return key;
}

/* A copy of list[0..n) in canonical order (caller frees the array). */
static const struct ts_requirement **sorted_reqs(
    const struct ts_requirement *const *list, size_t n) {
  const struct ts_requirement **out = ts_xcalloc(n + 1, sizeof *out);
  struct req_key *keys = ts_xcalloc(n + 1, sizeof *keys);
  for (size_t i = 0; i < n; i++) {
    keys[i].r = list[i];
    keys[i].key = req_sort_key(list[i]);
  }
  if (n > 1)
    qsort(keys, n, sizeof *keys, req_key_cmp);
  for (size_t i = 0; i < n; i++) {
    out[i] = keys[i].r;
    free(keys[i].key);
  }
  free(keys);
  return out;
}

static bool python_ok(struct rs *rs, const char *requires_python) {
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

static void ver_free(struct rs_ver *v) {
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
    if (sdist_better(b->sdist, a->sdist)) {
      a->sdist = b->sdist;
      a->sdist_index_url = b->sdist_index_url;
    }
    ver_free(b);
  }
  pj->nvers = out + 1;
  for (size_t i = 0; i < pj->nvers; i++) {
    struct rs_ver *s = &pj->vers[i];
    const char *pub = ts_version_public(s->v);
    if (ts_version_parse(pub, strlen(pub), &s->pub, NULL) != TS_OK)
      s->pub = ts_version_dup(s->v);
  }
}

/* Versions become solvables in windows: the VERSION_WINDOW most preferred
 * first, more only when a solve fails (libsolv adds a rule for every pair
 * of versions of one name it reaches, so a project with 1,000 versions
 * costs 500,000 rules).  Deps are built over the ranks of every usable
 * version, hidden or not, so revealing a version never changes them. */
#define VERSION_WINDOW 40

static void apply_rules_to_version(struct rs *rs, Id p, const struct rs_ver *v,
                                   const char *name);

/* A version no root requirement on its project admits can never be
 * installed: it is not worth a solvable. */
static bool root_admits(struct rs *rs, const char *name, const struct rs_ver *v) {
  for (size_t i = 0; i < rs->req->nrequirements; i++) {
    const struct ts_requirement *r = rs->req->requirements[i];
    if (strcmp(r->normalized_name, name) != 0)
      continue;
    if (r->marker && !ts_marker_eval(r->marker, rs->target->markers, NULL))
      continue;
    if (!ts_specset_contains(r->specifier, v->v, TS_PRE_INCLUDE))
      return false;
  }
  return true;
}

/* At most one version of a project, in rules linear in its versions.
 * libsolv's own encoding is a rule per pair of versions of a name: a
 * project the solver walks down (oslo-config under pyrax, 119 versions)
 * costs thousands of rules, which every solve creates, sorts and scans
 * again.  Instead each version x gets a link solvable a ("name#one#rank")
 * that it requires, and the links form a chain in reveal order: a link
 * requires the next link and conflicts with the next link's version.  So
 * installing x installs every link after its own, which excludes every
 * later version, and an earlier version's link would lead to the link
 * that excludes x: exactly one version at most, in 3 rules per version
 * (the sequential "ladder" encoding).  The project's names are marked
 * multiversion for libsolv (ts_rs_solve) so that it adds no pair rules
 * of its own; its extras need none: each requires its exact version. */
static void chain_version(struct rs *rs, int pidx, size_t i, Id x) {
  struct rs_proj *pj = &rs->projs[pidx];
  char *name = ts_xasprintf("%s#one#%04zu", pj->name, i);
  Id link_name = pool_str2id(rs->pool, name, 1);
  free(name);
  Id link = new_solvable(rs, rs->repo, link_name, pj->evrs[i], RS_ONE, pidx,
                         (int)i, -1);
  sinfo(rs, link)->deps_done = true;
  Solvable *xs = pool_id2solvable(rs->pool, x);
  xs->requires = repo_addid_dep(rs->repo, xs->requires, link_name, 0);
  if (pj->one_last) {
    Solvable *prev = pool_id2solvable(rs->pool, pj->one_last);
    prev->requires = repo_addid_dep(rs->repo, prev->requires, link_name, 0);
    prev->conflicts = repo_addid_dep(
        rs->repo, prev->conflicts,
        pool_rel2id(rs->pool, pj->nameid, pj->evrs[i], REL_EQ, 1), 0);
  }
  pj->one_last = link;
}

int ts_rs_one_version_rule(struct rs *rs, Id source, Id target, Id dep) {
  Id ends[2] = {source, target};
  for (int k = 0; k < 2; k++)
    if (ends[k] > 0 && (size_t)ends[k] < rs->si_cap &&
        rs->si[ends[k]].kind == RS_ONE)
      return rs->si[ends[k]].proj;
  if (dep > 0 && !ISRELDEP(dep)) {
    Pool *pool = rs->pool;
    Id p, pp;
    FOR_PROVIDES(p, pp, dep) {
      if ((size_t)p < rs->si_cap && rs->si[p].kind == RS_ONE)
        return rs->si[p].proj;
    }
  }
  return -1;
}

void ts_rs_reveal(struct rs *rs, int pidx, size_t i) {
  struct rs_proj *pj = &rs->projs[pidx];
  struct rs_ver *s = &pj->vers[i];
  s->solv = new_solvable(rs, rs->repo, pj->nameid, pj->evrs[i], RS_CAND, pidx,
                         (int)i, -1);
  if (pj->inst_ver < 0)
    chain_version(rs, pidx, i, s->solv);
  if (rs->req->no_deps)
    sinfo(rs, s->solv)->deps_done = true;
  for (size_t e = 0; e < pj->nextras; e++)
    add_extra_solvable(rs, pidx, (int)e, i);
  apply_rules_to_version(rs, s->solv, s, pj->name);
}

/* Reveals usable versions from the top until `window` are; true when any
 * was revealed. */
static bool reveal_window(struct rs *rs, int pidx) {
  struct rs_proj *pj = &rs->projs[pidx];
  size_t shown = 0;
  bool any = false;
  for (size_t k = pj->nvers; k-- > 0 && shown < pj->window;) {
    struct rs_ver *s = &pj->vers[k];
    if (!s->usable || (!rs->reveal_all && !root_admits(rs, pj->name, s)))
      continue;
    shown++;
    if (!s->solv) {
      ts_rs_reveal(rs, pidx, k);
      any = true;
    }
  }
  return any;
}

/* The most preferred versions a requirement admits get solvables (up to
 * the project's window), whatever the project's window shows: a dep whose
 * admitted versions all sit below the window would otherwise fail the
 * solve and widen the window of every project. */
static void reveal_matching(struct rs *rs, int pidx, const bool *match) {
  struct rs_proj *pj = &rs->projs[pidx];
  size_t shown = 0;
  for (size_t k = pj->nvers; k-- > 0 && shown < pj->window;) {
    if (!match[k] || !pj->vers[k].usable)
      continue;
    shown++;
    if (!pj->vers[k].solv)
      ts_rs_reveal(rs, pidx, k);
  }
}

/* Marks the projects a dep names (through OR/AND/WITH/IF). */
static void mark_dep_projects(struct rs *rs, Id dep, char *mark) {
  Pool *pool = rs->pool;
  while (ISRELDEP(dep)) {
    Reldep *rd = GETRELDEP(pool, dep);
    if (rd->flags == REL_OR || rd->flags == REL_AND || rd->flags == REL_WITH ||
        rd->flags == REL_COND) {
      mark_dep_projects(rs, rd->name, mark);
      dep = rd->evr;
      continue;
    }
    dep = rd->name;
  }
  if ((size_t)dep < rs->pidx_cap && rs->pidx[dep])
    mark[rs->pidx[dep] - 1] = 1;
}

static void mark_solvable_project(struct rs *rs, Id p, char *mark) {
  if (p <= 0 || (size_t)p >= rs->si_cap)
    return;
  const struct rs_sinfo *si = &rs->si[p];
  if ((si->kind == RS_CAND || si->kind == RS_INST || si->kind == RS_EXTRA ||
       si->kind == RS_ONE) &&
      si->proj >= 0)
    mark[si->proj] = 1;
}

/* Widens the windows of the projects marked (all when mark is NULL) four
 * times; true when a version was revealed. */
static bool widen(struct rs *rs, const char *mark) {
  bool any = false;
  for (size_t i = 0; i < rs->nprojs; i++) {
    struct rs_proj *pj = &rs->projs[i];
    if ((mark && !mark[i]) || pj->window >= pj->nvers)
      continue;
    pj->window *= 4;
    any |= reveal_window(rs, (int)i);
  }
  return any;
}

/* After a failed solve: more versions of the projects the problems name,
 * else of every project that hides some; the problem is unsatisfiable only
 * once nothing is hidden.  Widening only what the problems name keeps the
 * pool small (libsolv adds a rule per pair of versions of a name). */
static bool expand_windows(struct rs *rs, Solver *solv, int nprob) {
  char *mark = ts_xcalloc(rs->nprojs + 1, 1);
  Queue rules;
  queue_init(&rules);
  for (Id pr = 1; pr <= nprob; pr++) {
    solver_findallproblemrules(solv, pr, &rules);
    for (int k = 0; k < rules.count; k++) {
      Id source = 0, target = 0, dep = 0;
      solver_ruleinfo(solv, rules.elements[k], &source, &target, &dep);
      mark_solvable_project(rs, source, mark);
      mark_solvable_project(rs, target, mark);
      if (dep)
        mark_dep_projects(rs, dep, mark);
    }
  }
  queue_free(&rules);
  bool any = widen(rs, mark);
  free(mark);
  if (!any)
    any = widen(rs, NULL);
  if (!any && !rs->reveal_all) {
    /* the last round: versions the roots exclude too, so that the
     * explanation can name the root requirement that excludes them */
    rs->reveal_all = true;
    for (size_t i = 0; i < rs->nprojs; i++) {
      rs->projs[i].window = rs->projs[i].nvers;
      any |= reveal_window(rs, (int)i);
    }
  }
  return any;
}

static struct rs_job *push_job(struct rs *rs, Id how, Id what);

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
      struct rs_job *ji = push_job(rs, SOLVER_FAVOR | SOLVER_SOLVABLE, rs->projs[pidx].vers[i].solv);
      ji->proj = pidx;
      if (!any_build)
        break;
    }
    ts_version_free(want_pub);
    ts_version_free(want);
  }
}

static void add_project(struct rs *rs, const char *name,
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

  size_t cap = 0;
  bool no_binary = wheels_forbidden(rs->req, name);
  bool no_sdist = !rs->req->sdists || sdists_forbidden(rs->req, name);
  const char *last_rp = NULL;
  bool last_ok = true;
  for (size_t k = 0; pages && k < pages->nprojects; k++) {
    const struct ts_index_project *ip = pages->projects[k];
    for (size_t f = 0; f < ip->nfiles; f++) {
      const struct ts_index_file *file = &ip->files[f];
      struct ts_rs_fname fn;
      pj->nfiles++;
      if (!ts_rs_fname_parse(file->filename, &fn)) {
        if (!pj->unreadable_file)
          pj->unreadable_file = file->filename;
        continue;
      }
      if (strcmp(fn.normalized_name, name) != 0) {
        if (!pj->other_file)
          pj->other_file = file->filename;
        ts_rs_fname_clear(&fn);
        continue;
      }
      const char *vtext = ts_version_original(fn.version);
      struct rs_ver *s =
          ver_slot(pj, &cap, ts_version_dup(fn.version), vtext);
      long prio = ts_rs_wheel_priority(rs->target->tags, &fn);
      bool wheel = fn.wheel;
      long vrank = fn.variant_label ? file->variant_rank : LONG_MAX;
      ts_rs_fname_clear(&fn);
      const char *from = file->from_find_links ? NULL
                         : file->index_url     ? file->index_url
                                               : ip->index_url;
      if (rs->req->any_file && (!wheel || !no_binary) &&
          ts_rs_fallback_better(file, s->fallback)) {
        s->fallback = file;
        s->fallback_index_url = from;
      }
      if (wheel)
        s->has_wheel = true;
      else
        s->has_sdist = true;
      if (wheel && prio < 0)
        continue;
      if (wheel)
        s->has_compatible_wheel = true;
      else if (rs->req->sdists && no_sdist)
        s->only_binary_blocked = true;
      if (!wheel && no_sdist)
        continue;
      /* files of one project mostly share one Requires-Python */
      if (file->requires_python &&
          (!last_rp || strcmp(last_rp, file->requires_python) != 0)) {
        last_rp = file->requires_python;
        last_ok = python_ok(rs, last_rp);
      }
      if (file->requires_python && !last_ok) {
        s->python_blocked = file->requires_python;
        continue;
      }
      if (!wheel) {
        s->sdist = file;
        s->sdist_index_url = from;
        continue;
      }
      if (no_binary) {
        s->no_binary_blocked = true;
        continue;
      }
      s->file = file;
      s->index_url = from;
      s->prio = prio;
      s->vrank = vrank;
    }
  }
  /* the installed distribution is a version of its own */
  const struct ts_resolver_installed *inst = find_installed(rs, name);
  pj->inst = inst;
  struct ts_version *iv = NULL;
  if (inst && inst->version &&
      ts_version_parse(inst->version, strlen(inst->version), &iv, NULL) !=
          TS_OK)
    iv = NULL;
  if (iv && !rs->req->force_reinstall) {
    struct rs_ver *s = ver_slot(pj, &cap, iv, inst->version);
    s->installed = true;
  } else if (iv) {
    pj->inst_v = iv; /* only for the action */
  }

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
    if (strcmp(rs->req->variants[i].name, name) == 0)
      ctx.pref = &rs->req->variants[i];
  if (rs->req->resolution == TS_RESOLUTION_LOWEST ||
      (rs->req->resolution == TS_RESOLUTION_LOWEST_DIRECT && pj->direct))
    ctx.dir = -1;
  if (pj->nvers)
    qsort_r(pj->vers, pj->nvers, sizeof *pj->vers, pref_cmp, &ctx);

  pj->evrs = ts_xcalloc(pj->nvers + 1, sizeof *pj->evrs);
  for (size_t i = 0; i < pj->nvers; i++) {
    char evr[24];
    snprintf(evr, sizeof evr, "%04zu", i);
    pj->evrs[i] = pool_str2id(rs->pool, evr, 1);
    struct rs_ver *s = &pj->vers[i];
    if (s->installed) {
      pj->inst_ver = (int)i;
      s->inst_solv = new_solvable(rs, rs->sys, pj->nameid, pj->evrs[i],
                                  RS_INST, pidx, (int)i, -1);
      pj->inst_solv = s->inst_solv;
      if (rs->req->no_deps || !inst->metadata)
        sinfo(rs, s->inst_solv)->deps_done = true;
    }
    if (!s->file && s->fallback && !s->python_blocked &&
        python_ok(rs, s->fallback->requires_python)) {
      s->file = s->fallback;
      s->index_url = s->fallback_index_url;
    }
    if (!s->file)
      continue;
    if (s->file->yanked && !yank_pinned(rs, name, s->v)) {
      s->yank_blocked = true;
      continue;
    }
    s->usable = true;
  }
  pj->window = VERSION_WINDOW;
  reveal_window(rs, pidx);
  favor_preferred(rs, pidx);
  rs->pages_fetched += pages ? 1 : 0;
}

/* ---- host facts, rules, constraints ---------------------------------------- */

static bool is_fact(const char *name) { return name[0] == '_' && name[1] == '_'; }

static bool term_mentions_host(const struct ts_term *t) {
  return is_fact(t->name) && strcmp(t->name, "__python") != 0;
}

static bool constraint_uses_host(const struct ts_constraint *c) {
  if (term_mentions_host(&c->subject))
    return true;
  for (size_t i = 0; i < c->nterms; i++)
    if (term_mentions_host(&c->terms[i]))
      return true;
  for (size_t i = 0; i < c->nwhen; i++)
    if (term_mentions_host(&c->when[i]))
      return true;
  return false;
}

struct rs_fact *ts_rs_fact(struct rs *rs, const char *name) {
  for (size_t i = 0; i < rs->nfacts; i++)
    if (strcmp(rs->facts[i].name, name) == 0)
      return &rs->facts[i];
  return NULL;
}

static void add_fact(struct rs *rs, const char *name, const char *version,
                     const char *source) {
  if (ts_rs_fact(rs, name))
    return;
  rs->facts = ts_rs_grow(rs->facts, &rs->facts_cap, rs->nfacts + 1,
                         sizeof *rs->facts);
  struct rs_fact *f = &rs->facts[rs->nfacts++];
  f->name = ts_xstrdup(name);
  f->version = version ? ts_xstrdup(version) : NULL;
  f->source = source ? ts_xstrdup(source) : NULL;
  f->v = NULL;
  if (version &&
      ts_version_parse(version, strlen(version), &f->v, NULL) != TS_OK)
    f->v = NULL;
  Id name_id = pool_str2id(rs->pool, name, 1);
  f->solv = new_solvable(rs, rs->host, name_id, pool_str2id(rs->pool, "0", 1),
                         RS_FACT, -1, (int)(rs->nfacts - 1), -1);
  sinfo(rs, f->solv)->deps_done = true;
  queue_push2(&rs->jobs, SOLVER_INSTALL | SOLVER_SOLVABLE, f->solv);
  rs->job_info = ts_rs_grow(rs->job_info, &rs->job_info_cap,
                            (size_t)rs->jobs.count / 2, sizeof *rs->job_info);
  rs->job_info[rs->jobs.count / 2 - 1].fact = (int)(rs->nfacts - 1);
  rs->job_info[rs->jobs.count / 2 - 1].text = NULL;
  rs->job_info[rs->jobs.count / 2 - 1].proj = -1;
}

static bool term_matches_version(const struct ts_term *t,
                                 const struct ts_version *v) {
  if (t->spec && (!v || !ts_specset_contains(t->spec, v, TS_PRE_INCLUDE)))
    return false;
  if (t->local_pattern && v) {
    const char *local = ts_version_local(v);
    if (!t->local_pattern[0] ? local != NULL
                             : (!local || fnmatch(t->local_pattern, local, 0)))
      return false;
  }
  return true;
}

static bool fact_term_holds(struct rs *rs, const struct ts_term *t) {
  struct rs_fact *f = ts_rs_fact(rs, t->name);
  return f && term_matches_version(t, f->v);
}

/* Dep for a rules term: a host fact or a (loaded) project. */
static Id term_dep(struct rs *rs, const struct ts_term *t) {
  Pool *pool = rs->pool;
  Id name = pool_str2id(pool, t->name, 1);
  if (is_fact(t->name)) {
    if (fact_term_holds(rs, t))
      return name;
    return pool_rel2id(pool, name, rs->none_evr, REL_EQ, 1);
  }
  struct rs_proj *pj = ts_rs_proj_by_name(rs, t->name);
  size_t n = pj->nvers;
  bool *match = ts_xcalloc(n + 1, sizeof *match);
  bool *exists = ts_xcalloc(n + 1, sizeof *exists);
  for (size_t i = 0; i < n; i++) {
    exists[i] = pj->vers[i].usable || pj->vers[i].inst_solv;
    match[i] = exists[i] && term_matches_version(t, pj->vers[i].v);
  }
  Id d = ts_rs_ranks_dep(rs, pj->nameid, pj->evrs, n, match, exists);
  free(match);
  free(exists);
  return d;
}

/* Solvables a constraint's subject covers. */
static size_t subject_solvables(struct rs *rs, const struct ts_term *t,
                                Queue *q) {
  queue_empty(q);
  if (is_fact(t->name)) {
    struct rs_fact *f = ts_rs_fact(rs, t->name);
    if (f && term_matches_version(t, f->v))
      queue_push(q, f->solv);
    return (size_t)q->count;
  }
  struct rs_proj *pj = ts_rs_proj_by_name(rs, t->name);
  for (size_t i = 0; pj && i < pj->nvers; i++) {
    if (!term_matches_version(t, pj->vers[i].twin ? pj->vers[i].twin : pj->vers[i].v))
      continue;
    if (pj->vers[i].solv)
      queue_push(q, pj->vers[i].solv);
    if (pj->vers[i].inst_solv)
      queue_push(q, pj->vers[i].inst_solv);
  }
  return (size_t)q->count;
}

static void want(struct rs *rs, const char *name) {
  if (ts_rs_proj_by_name(rs, name))
    return;
  for (size_t i = 0; i < rs->nwant; i++)
    if (strcmp(rs->want[i], name) == 0)
      return;
  rs->want = ts_rs_grow(rs->want, &rs->want_cap, rs->nwant + 1,
                        sizeof *rs->want);
  rs->want[rs->nwant++] = ts_xstrdup(name);
}

static bool term_ready(struct rs *rs, const struct ts_term *t, bool request) {
  if (is_fact(t->name))
    return true;
  if (ts_rs_proj_by_name(rs, t->name))
    return true;
  if (request)
    want(rs, t->name);
  return false;
}

static bool names_project(const struct ts_constraint *con) {
  for (size_t t = 0; t < con->nterms; t++)
    if (!is_fact(con->terms[t].name))
      return true;
  return false;
}

/* A requires-rule under --no-deps: it may limit the versions of projects
 * that are installed anyway, never add one (install --no-deps
 * pymomentum-gpu installs pymomentum-gpu alone).  The subject conflicts
 * with the versions of each named project that no term admits; a host
 * fact term that holds satisfies the rule outright. */
static void apply_requires_as_limit(struct rs *rs, size_t c, Queue *subj) {
  const struct ts_constraint *con = &rs->req->rules->constraints[c];
  rs->rule_done[c] = true;
  for (size_t w = 0; w < con->nwhen; w++)
    if (!fact_term_holds(rs, &con->when[w]))
      return;
  for (size_t t = 0; t < con->nterms; t++)
    if (is_fact(con->terms[t].name) && fact_term_holds(rs, &con->terms[t]))
      return;
  Id dep = 0;
  for (size_t t = 0; t < con->nterms; t++) {
    const struct ts_term *tt = &con->terms[t];
    struct rs_proj *pj = is_fact(tt->name) ? NULL : ts_rs_proj_by_name(rs, tt->name);
    bool seen = false;
    for (size_t u = 0; u < t && pj; u++)
      seen |= strcmp(con->terms[u].name, tt->name) == 0;
    if (!pj || seen)
      continue;
    size_t n = pj->nvers;
    bool *match = ts_xcalloc(n + 1, sizeof *match);
    bool *exists = ts_xcalloc(n + 1, sizeof *exists);
    bool any = false;
    for (size_t i = 0; i < n; i++) {
      exists[i] = pj->vers[i].usable || pj->vers[i].inst_solv;
      bool admitted = false;
      for (size_t u = t; u < con->nterms; u++)
        if (strcmp(con->terms[u].name, tt->name) == 0)
          admitted |= term_matches_version(&con->terms[u], pj->vers[i].v);
      match[i] = exists[i] && !admitted;
      any |= match[i];
    }
    if (any) {
      Id d = ts_rs_ranks_dep(rs, pj->nameid, pj->evrs, n, match, exists);
      dep = dep ? pool_rel2id(rs->pool, dep, d, REL_OR, 1) : d;
    }
    free(match);
    free(exists);
  }
  if (!dep)
    return;
  rs->rule_dep[c] = dep;
  rs->rule_limit[c] = true;
  subject_solvables(rs, &con->subject, subj);
  for (int k = 0; k < subj->count; k++)
    ts_rs_add_dep(rs, subj->elements[k], dep, true, ts_xstrdup(con->id), -1,
                  NULL, (int)c, false);
}

/* Applies whatever rules can be applied now; asks for the pages a
 * requires-rule needs.  Conflict terms on projects nobody asked for are
 * applied only once such a project shows up. */
static void apply_rules(struct rs *rs) {
  const struct ts_constraint_set *set = rs->req->rules;
  if (!set)
    return;
  Queue subj;
  queue_init(&subj);
  for (size_t c = 0; c < set->nconstraints; c++) {
    const struct ts_constraint *con = &set->constraints[c];
    if (rs->req->ignore_host && constraint_uses_host(con))
      continue;
    if (!term_ready(rs, &con->subject, false))
      continue;
    if (con->kind == TS_CONSTRAINT_REQUIRES && rs->req->no_deps &&
        names_project(con)) {
      if (!rs->rule_done[c])
        apply_requires_as_limit(rs, c, &subj);
      continue;
    }
    if (con->kind == TS_CONSTRAINT_REQUIRES) {
      if (rs->rule_done[c])
        continue;
      bool ready = true;
      for (size_t t = 0; t < con->nterms; t++)
        ready &= term_ready(rs, &con->terms[t], true);
      if (!ready)
        continue;
      rs->rule_done[c] = true;
      Id dep = 0;
      for (size_t t = 0; t < con->nterms; t++) {
        Id d = term_dep(rs, &con->terms[t]);
        dep = dep ? pool_rel2id(rs->pool, dep, d, REL_OR, 1) : d;
      }
      if (!dep)
        continue;
      bool rich = false;
      if (con->nwhen) {
        Id cond = 0;
        for (size_t w = 0; w < con->nwhen; w++) {
          Id d = term_dep(rs, &con->when[w]);
          cond = cond ? pool_rel2id(rs->pool, cond, d, REL_AND, 1) : d;
        }
        dep = pool_rel2id(rs->pool, dep, cond, REL_COND, 1);
        rich = true;
      }
      rs->rule_dep[c] = dep;
      rs->rule_rich[c] = rich;
      subject_solvables(rs, &con->subject, &subj);
      for (int k = 0; k < subj.count; k++)
        ts_rs_add_dep(rs, subj.elements[k], dep, false,
                      ts_xstrdup(con->id), -1, NULL, (int)c, rich);
    } else {
      bool when = true;
      for (size_t w = 0; w < con->nwhen; w++)
        when &= fact_term_holds(rs, &con->when[w]);
      if (!when)
        continue;
      for (size_t t = 0; t < con->nterms; t++) {
        bool *done = &rs->rule_term_done[c][t];
        if (*done || !term_ready(rs, &con->terms[t], false))
          continue;
        *done = true;
        Id dep = term_dep(rs, &con->terms[t]);
        rs->rule_term_dep[c][t] = dep;
        if (!subject_solvables(rs, &con->subject, &subj))
          continue;
        for (int k = 0; k < subj.count; k++)
          ts_rs_add_dep(rs, subj.elements[k], dep, true,
                        ts_xstrdup(con->id), -1, NULL, (int)c, false);
      }
    }
  }
  queue_free(&subj);
}

/* The rules already applied to a project, for a version revealed later. */
static void apply_rules_to_version(struct rs *rs, Id p, const struct rs_ver *v,
                                   const char *name) {
  const struct ts_constraint_set *set = rs->req->rules;
  if (!set)
    return;
  for (size_t c = 0; c < set->nconstraints; c++) {
    const struct ts_constraint *con = &set->constraints[c];
    if (strcmp(con->subject.name, name) != 0 ||
        !term_matches_version(&con->subject, v->twin ? v->twin : v->v))
      continue;
    if (con->kind == TS_CONSTRAINT_REQUIRES) {
      if (rs->rule_done[c] && rs->rule_dep[c])
        ts_rs_add_dep(rs, p, rs->rule_dep[c], rs->rule_limit[c],
                      ts_xstrdup(con->id), -1, NULL, (int)c,
                      rs->rule_rich[c]);
      continue;
    }
    for (size_t t = 0; t < con->nterms; t++)
      if (rs->rule_term_done[c][t] && rs->rule_term_dep[c][t])
        ts_rs_add_dep(rs, p, rs->rule_term_dep[c][t], true,
                      ts_xstrdup(con->id), -1, NULL, (int)c, false);
  }
}

/* -c constraints: a locked pseudo-solvable conflicts with the versions a
 * constraint excludes, so libsolv can name the constraint in a problem. */
static void apply_user_constraints(struct rs *rs, int pidx) {
  struct rs_proj *pj = &rs->projs[pidx];
  for (size_t i = 0; i < rs->req->nconstraints; i++) {
    const struct ts_requirement *r = rs->constraints[i];
    if (strcmp(r->normalized_name, pj->name) != 0)
      continue;
    if (r->marker && !ts_marker_eval(r->marker, rs->target->markers, NULL))
      continue;
    size_t n = pj->nvers;
    bool *match = ts_xcalloc(n + 1, sizeof *match);
    bool *exists = ts_xcalloc(n + 1, sizeof *exists);
    bool any = false;
    for (size_t k = 0; k < n; k++) {
      exists[k] = pj->vers[k].usable;
      match[k] = exists[k] &&
                 !ts_specset_contains(r->specifier, pj->vers[k].v,
                                      TS_PRE_INCLUDE);
      any |= match[k];
    }
    if (any) {
      Id dep = ts_rs_ranks_dep(rs, pj->nameid, pj->evrs, n, match, exists);
      ts_rs_add_dep(rs, rs->constraints_solv, dep, true,
                    ts_rs_req_text(r->normalized_name, NULL, 0, r->specifier),
                    pidx, r->specifier, -1, false);
    }
    free(match);
    free(exists);
  }
}

/* Fetches every wanted page (in batches) and encodes the new projects. */
static enum ts_code load_wanted(struct rs *rs, struct ts_error *err) {
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
        apply_user_constraints(rs, (int)rs->nprojs - 1);
      }
      apply_rules(rs);
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

/* ---- metadata → dependencies ----------------------------------------------- */

/* The markers Requires-Dist of solvable p is read with: a PEP 825
 * variant wheel's (its label and properties, from the provider), else
 * the target's. */
static const struct ts_marker_env *env_of(struct rs *rs, Id p) {
  struct rs_sinfo *si = sinfo(rs, p);
  const struct rs_proj *pj = &rs->projs[si->proj];
  const struct ts_index_file *f = si->kind == RS_INST ? NULL : pj->vers[si->ver].file;
  const struct ts_marker_env *e = f && rs->provider->variant_env
                                      ? rs->provider->variant_env(rs->provider->ctx, pj->name, f)
                                      : NULL;
  return e ? e : rs->target->markers;
}

static void want_meta_names(struct rs *rs, Id p, const struct ts_rs_meta *m,
                            const char *extra) {
  const struct ts_marker_env *env = env_of(rs, p);
  for (size_t i = 0; i < m->nrequires_dist; i++)
    if (ts_rs_req_applies(env, m->requires_dist[i], extra))
      want(rs, m->requires_dist[i]->normalized_name);
}

static void encode_req(struct rs *rs, Id p, const struct ts_requirement *r) {
  struct rs_proj *dpj = ts_rs_proj_by_name(rs, r->normalized_name);
  int didx = (int)(dpj - rs->projs);
  note_prerelease(rs, dpj, r->specifier);
  if (r->nextras == 0) {
    Id dep = spec_dep(rs, dpj, -1, r->specifier);
    ts_rs_add_dep(rs, p, dep, false,
                  ts_rs_req_text(r->normalized_name, NULL, 0, r->specifier),
                  didx, r->specifier, -1, false);
    return;
  }
  for (size_t e = 0; e < r->nextras; e++) {
    int x = get_extra(rs, didx, r->extras[e]);
    dpj = &rs->projs[didx];
    Id dep = spec_dep(rs, dpj, x, r->specifier);
    int rec = ts_rs_add_dep(rs, p, dep, false,
                            ts_rs_req_text(r->normalized_name, &r->extras[e],
                                           1, r->specifier),
                            didx, r->specifier, -1, false);
    rs->deps[rec].extra = x;
  }
}

/* Adds the deps of solvable p from metadata m (base or one extra). */
static void encode_meta(struct rs *rs, Id p, const struct ts_rs_meta *m,
                        const char *extra) {
  const struct ts_marker_env *env = env_of(rs, p);
  for (size_t i = 0; i < m->nrequires_dist; i++)
    if (ts_rs_req_applies(env, m->requires_dist[i], extra))
      encode_req(rs, p, m->requires_dist[i]);
  if (!extra && m->requires_python && !python_ok(rs, m->requires_python)) {
    Id name = pool_str2id(rs->pool, "__python", 1);
    struct ts_specset *sp = NULL;
    if (ts_specset_parse(m->requires_python, strlen(m->requires_python), &sp,
                         NULL) != TS_OK)
      sp = NULL;
    ts_rs_add_dep(rs, p, pool_rel2id(rs->pool, name, rs->none_evr, REL_EQ, 1),
                  false, ts_xasprintf("Python%s", m->requires_python), -1, sp,
                  -1, false);
    ts_specset_free(sp);
  }
  sinfo(rs, p)->deps_done = true;
}

static const struct ts_rs_meta *meta_of(struct rs *rs, Id p) {
  struct rs_sinfo *si = sinfo(rs, p);
  struct rs_proj *pj = &rs->projs[si->proj];
  if (si->kind == RS_INST)
    return pj->inst_meta_ok ? &pj->inst_meta : NULL;
  struct rs_ver *v = &pj->vers[si->ver];
  if (v->meta_ok)
    return &v->meta;
  /* an extra of the installed-only version reads the installed METADATA */
  if (!v->solv && v->inst_solv && pj->inst_meta_ok)
    return &pj->inst_meta;
  return NULL;
}

/* ---- the solve loop ---------------------------------------------------------- */

static void closure(struct rs *rs, Solver *solv, Queue *out) {
  Pool *pool = rs->pool;
  Queue dq;
  queue_init(&dq);
  solver_get_decisionqueue(solv, &dq);
  char *chosen = ts_xcalloc((size_t)pool->nsolvables + 1, 1);
  char *seen = ts_xcalloc((size_t)pool->nsolvables + 1, 1);
  for (int i = 0; i < dq.count; i++)
    if (dq.elements[i] > 0)
      chosen[dq.elements[i]] = 1;
  queue_empty(out);
  for (int j = 0; j + 1 < rs->jobs.count; j += 2) {
    Id how = rs->jobs.elements[j] & SOLVER_JOBMASK;
    Id select = rs->jobs.elements[j] & SOLVER_SELECTMASK;
    if (how != SOLVER_INSTALL || select == SOLVER_SOLVABLE)
      continue;
    Id dep = rs->jobs.elements[j + 1], p, pp;
    FOR_PROVIDES(p, pp, dep) {
      if (chosen[p] && !seen[p]) {
        seen[p] = 1;
        queue_push(out, p);
      }
    }
  }
  for (int k = 0; k < out->count; k++) {
    Id s = out->elements[k];
    for (int d = sinfo(rs, s)->first_dep; d >= 0; d = rs->deps[d].next) {
      if (rs->deps[d].conflict || rs->deps[d].rich)
        continue;
      Id p, pp, dep = rs->deps[d].dep;
      FOR_PROVIDES(p, pp, dep) {
        if (chosen[p] && !seen[p]) {
          seen[p] = 1;
          queue_push(out, p);
        }
      }
    }
  }
  free(chosen);
  free(seen);
  queue_free(&dq);
}

/* A version whose METADATA was fetched but does not read (a Requires-Dist
 * of "invalid-version ==2010i"): pip ignores it with a warning and the
 * resolution goes on.  Its solvable gets a requirement nothing provides. */
static void ignore_version(struct rs *rs, struct rs_ver *v, const char *name,
                           const struct ts_error *why) {
  rs->ignored = ts_xrealloc(rs->ignored, (rs->nignored + 1) * sizeof *rs->ignored);
  rs->ignored[rs->nignored++] = ts_xasprintf(
      "Ignoring version %s of %s since it has invalid metadata: %s", v->text, name,
      why->detail);
  Id dep = pool_rel2id(rs->pool, pool_str2id(rs->pool, "__valid_metadata", 1),
                       rs->none_evr, REL_EQ, 1);
  ts_rs_add_dep(rs, v->solv, dep, false,
                ts_xasprintf("readable METADATA (%s %s's does not read)", name, v->text),
                -1, NULL, -1, false);
  sinfo(rs, v->solv)->deps_done = true;
}

/* Fetches METADATA for the versions behind pending solvables (plus the next
 * few versions of each, which the solver will likely want after a
 * conflict), then encodes the pending solvables' deps. */
static enum ts_code grow(struct rs *rs, const Queue *pending,
                         struct ts_error *err) {
  struct ts_resolver_meta *reqs = NULL;
  size_t nreqs = 0, cap = 0;
  int *owner_p = NULL, *owner_v = NULL;
  size_t ocap = 0, ocap2 = 0;
  rs->round++;
  for (int k = 0; k < pending->count; k++) {
    struct rs_sinfo *si = sinfo(rs, pending->elements[k]);
    struct rs_proj *pj = &rs->projs[si->proj];
    if (si->kind == RS_INST || (!pj->vers[si->ver].solv))
      continue;
    /* prefetch only once the solver has moved away from a version of this
     * project: the first choice usually stands, and a cold run should ask
     * for one METADATA per chosen version.  Each further round that finds
     * the project moving again doubles its prefetch, so a project the
     * solver walks down (oslo-utils under pyrax: 73 versions) costs a
     * few rounds, not one per version. */
    if (pj->move_round != rs->round) {
      bool moved = pj->moves > 0;
      for (size_t i = 0; i < pj->nvers && !moved; i++)
        if ((int)i != si->ver && pj->vers[i].meta_requested)
          moved = true;
      if (moved && pj->moves < 16) {
        pj->moves++;
        pj->move_round = rs->round;
      }
    }
    size_t prefetch = pj->moves ? rs->req->prefetch << (pj->moves - 1) : 0;
    size_t added = 0;
    for (int i = si->ver; i >= 0 && added <= prefetch; i--) {
      struct rs_ver *v = &pj->vers[i];
      if (!v->solv)
        continue;
      added++;
      if (v->meta_requested)
        continue;
      v->meta_requested = true;
      reqs = ts_rs_grow(reqs, &cap, nreqs + 1, sizeof *reqs);
      owner_p = ts_rs_grow(owner_p, &ocap, nreqs + 1, sizeof *owner_p);
      owner_v = ts_rs_grow(owner_v, &ocap2, nreqs + 1, sizeof *owner_v);
      struct ts_resolver_meta *m = &reqs[nreqs];
      m->name = pj->name;
      m->version = v->text;
      m->file = v->file;
      m->index_url = v->index_url;
      m->prefetch = i != si->ver;
      m->data = NULL;
      m->len = 0;
      m->code = TS_OK;
      owner_p[nreqs] = si->proj;
      owner_v[nreqs] = i;
      nreqs++;
    }
  }
  enum ts_code c = TS_OK;
  if (nreqs) {
    /* The provider leaves the detail of the first failed non-prefetch
     * request in err (which URL, which hash): keep it for the message
     * instead of a bare "no metadata", and keep it away from prefetch
     * failures, which are not errors. */
    struct ts_error perr = {0};
    c = rs->provider->get_metadata(rs->provider->ctx, reqs, nreqs, &perr);
    if (c != TS_OK && err)
      *err = perr;
    for (size_t i = 0; c == TS_OK && i < nreqs; i++) {
      struct rs_ver *v = &rs->projs[owner_p[i]].vers[owner_v[i]];
      enum ts_code mc = reqs[i].code;
      if (mc == TS_OK)
        mc = ts_rs_meta_parse(reqs[i].data, reqs[i].len, &v->meta, err);
      else if (!reqs[i].prefetch && perr.code != TS_OK && err)
        *err = perr;
      else
        ts_error_set(err, mc, "the provider could not fetch its METADATA");
      if (mc == TS_OK) {
        v->meta_ok = true;
        rs->metadata_fetched++;
      } else if (reqs[i].code == TS_OK && mc == TS_E_PARSE) {
        ignore_version(rs, v, reqs[i].name, err);
      } else if (!reqs[i].prefetch) {
        c = mc;
        ts_error_wrap(err, "metadata of %s %s", reqs[i].name, reqs[i].version);
      } else {
        v->meta_requested = false; /* try again if it is ever chosen */
      }
    }
  }
  free(reqs);
  int *done_p = owner_p, *done_v = owner_v;
  size_t nreqs_done = nreqs;
  if (c != TS_OK) {
    free(done_p);
    free(done_v);
    return c;
  }
  /* installed distributions read their METADATA from the request */
  for (int k = 0; k < pending->count; k++) {
    struct rs_sinfo *si = sinfo(rs, pending->elements[k]);
    struct rs_proj *pj = &rs->projs[si->proj];
    if ((si->kind == RS_INST || !pj->vers[si->ver].solv) && !pj->inst_meta_ok &&
        pj->inst && pj->inst->metadata) {
      c = ts_rs_meta_parse(pj->inst->metadata, pj->inst->metadata_len,
                           &pj->inst_meta, err);
      if (c != TS_OK) {
        free(done_p);
        free(done_v);
        return ts_error_wrap(err, "installed %s", pj->name);
      }
      pj->inst_meta_ok = true;
    }
  }
  /* Every solvable whose METADATA is at hand gets its deps now, prefetched
   * versions too: the solver can then backtrack through them within one
   * solve instead of one round per version. */
  Queue todo;
  queue_init_clone(&todo, pending);
  for (size_t i = 0; i < nreqs_done; i++) {
    struct rs_proj *pj = &rs->projs[done_p[i]];
    struct rs_ver *v = &pj->vers[done_v[i]];
    if (!v->meta_ok || !v->solv)
      continue;
    if (!sinfo(rs, v->solv)->deps_done)
      queue_pushunique(&todo, v->solv);
    for (size_t e = 0; e < pj->nextras; e++) {
      Id xs = pj->extras[e].solv[done_v[i]];
      if (xs && !sinfo(rs, xs)->deps_done)
        queue_pushunique(&todo, xs);
    }
  }
  free(done_p);
  free(done_v);
  /* pages first (batched), then deps */
  for (int k = 0; k < todo.count; k++) {
    Id p = todo.elements[k];
    const struct ts_rs_meta *m = meta_of(rs, p);
    struct rs_sinfo *si = sinfo(rs, p);
    if (m)
      want_meta_names(rs, p, m,
                      si->kind == RS_EXTRA
                          ? rs->projs[si->proj].extras[si->extra].name
                          : NULL);
  }
  c = load_wanted(rs, err);
  for (int k = 0; c == TS_OK && k < todo.count; k++) {
    Id p = todo.elements[k];
    const struct ts_rs_meta *m = meta_of(rs, p);
    struct rs_sinfo *si = sinfo(rs, p);
    if (!m) {
      si->deps_done = true; /* installed without METADATA: no deps known */
      continue;
    }
    encode_meta(rs, p, m,
                si->kind == RS_EXTRA
                    ? rs->projs[si->proj].extras[si->extra].name
                    : NULL);
  }
  queue_free(&todo);
  return c;
}

static int item_cmp(const void *a, const void *b) {
  const struct ts_resolved *x = a, *y = b;
  return strcmp(x->name, y->name);
}

static void collect_result(struct rs *rs, const Queue *cl,
                           struct ts_resolution *res) {
  size_t cap = 0;
  for (int k = 0; k < cl->count; k++) {
    struct rs_sinfo *si = sinfo(rs, cl->elements[k]);
    if (si->kind != RS_CAND && si->kind != RS_INST)
      continue;
    struct rs_proj *pj = &rs->projs[si->proj];
    struct rs_ver *v = &pj->vers[si->ver];
    res->items = ts_rs_grow(res->items, &cap, res->nitems + 1,
                            sizeof *res->items);
    struct ts_resolved *it = &res->items[res->nitems++];
    memset(it, 0, sizeof *it);
    it->name = ts_xstrdup(pj->name);
    it->version = ts_xstrdup(v->text);
    it->requested = pj->direct;
    const struct ts_version *iv =
        pj->inst_ver >= 0 ? pj->vers[pj->inst_ver].v : pj->inst_v;
    if (pj->inst)
      it->installed_version = ts_xstrdup(pj->inst->version);
    if (si->kind == RS_INST) {
      it->action = TS_ACTION_KEEP;
    } else {
      it->file = v->file;
      it->sdist = v->from_sdist;
      it->index_url = v->index_url;
      if (!iv) {
        it->action = TS_ACTION_INSTALL;
      } else {
        int c = ts_version_cmp(v->v, iv);
        it->action = c > 0   ? TS_ACTION_UPGRADE
                     : c < 0 ? TS_ACTION_DOWNGRADE
                             : TS_ACTION_REINSTALL;
      }
    }
    for (int j = 0; j < cl->count; j++) {
      struct rs_sinfo *sj = sinfo(rs, cl->elements[j]);
      if (sj->kind == RS_EXTRA && sj->proj == si->proj) {
        it->extras = ts_xrealloc(it->extras, (it->nextras + 1) * sizeof(char *));
        it->extras[it->nextras++] = ts_xstrdup(pj->extras[sj->extra].name);
      }
    }
    if (it->nextras)
      qsort(it->extras, it->nextras, sizeof *it->extras, ts_strv_cmp);
  }
  if (res->nitems)
    qsort(res->items, res->nitems, sizeof *res->items, item_cmp);
}

/* Where a project stands in the objective: its index in req->priority
 * (torch, then its companions), or npriority for every other project. */
static size_t priority_of(const struct rs *rs, const char *name) {
  for (size_t i = 0; i < rs->req->npriority; i++)
    if (strcmp(rs->req->priority[i], name) == 0)
      return i;
  return rs->req->npriority;
}

/* Inserts a job pair at pair position `at` (job_info kept parallel) and
 * returns its info, zeroed but for proj = -1, fact = -1. */
static struct rs_job *insert_job(struct rs *rs, int at, Id how, Id what) {
  queue_insert2(&rs->jobs, at * 2, how, what);
  size_t n = (size_t)rs->jobs.count / 2;
  rs->job_info = ts_rs_grow(rs->job_info, &rs->job_info_cap, n,
                            sizeof *rs->job_info);
  memmove(&rs->job_info[at + 1], &rs->job_info[at],
          (n - 1 - (size_t)at) * sizeof *rs->job_info);
  struct rs_job *ji = &rs->job_info[at];
  memset(ji, 0, sizeof *ji);
  ji->proj = -1;
  ji->fact = -1;
  ji->extra = -1;
  return ji;
}

static struct rs_job *push_job(struct rs *rs, Id how, Id what) {
  return insert_job(rs, rs->jobs.count / 2, how, what);
}

/* Whether a rule of the request constrains project `name`. */
static bool ruled(const struct rs *rs, const char *name) {
  const struct ts_constraint_set *set = rs->req->rules;
  for (size_t c = 0; set && c < set->nconstraints; c++)
    if (strcmp(set->constraints[c].subject.name, name) == 0)
      return true;
  return false;
}

/* The root jobs, in the objective's order: libsolv decides install jobs
 * in job order and only backs a decision out when nothing later can be
 * changed instead, so the first job gets the best version that has any
 * solution.  Projects of req->priority come first (torch: its newest
 * release, then its best variant), the rest in canonical order. */
Solver *ts_rs_solver(struct rs *rs) {
  /* Rebuilding the index drops libsolv's providers of every range dep,
   * which it then works out again: 15% of a warm resolve when done for
   * each solve, also for those after a round that added nothing. */
  if (!rs->pool->whatprovides || rs->whatprovides_nsolvables != rs->pool->nsolvables) {
    pool_createwhatprovides(rs->pool);
    rs->whatprovides_nsolvables = rs->pool->nsolvables;
  }
  Solver *solv = solver_create(rs->pool);
  /* pip replaces an installed version by an older one when the request
   * needs it */
  solver_set_flag(solv, SOLVER_FLAG_ALLOW_DOWNGRADE, 1);
  solver_set_flag(solv, SOLVER_FLAG_IGNORE_RECOMMENDED, 1);
  return solv;
}

int ts_rs_solve(struct rs *rs, Solver *solv, Queue *jobs) {
  Queue all;
  queue_init_clone(&all, jobs);
  for (size_t i = 0; i < rs->nprojs; i++) {
    const struct rs_proj *pj = &rs->projs[i];
    if (!pj->one_last)
      continue;
    queue_push2(&all, SOLVER_MULTIVERSION | SOLVER_SOLVABLE_NAME, pj->nameid);
    for (size_t e = 0; e < pj->nextras; e++)
      queue_push2(&all, SOLVER_MULTIVERSION | SOLVER_SOLVABLE_NAME,
                  pj->extras[e].nameid);
  }
  int nprob = solver_solve(solv, &all);
  queue_free(&all);
  return nprob;
}

static void add_root_jobs(struct rs *rs) {
  for (size_t tier = 0; tier <= rs->req->npriority; tier++) {
    for (size_t i = 0; i < rs->req->nrequirements; i++) {
      const struct ts_requirement *r = rs->roots[i];
      if (priority_of(rs, r->normalized_name) != tier)
        continue;
      if (r->marker && !ts_marker_eval(r->marker, rs->target->markers, NULL))
        continue;
      struct rs_proj *pj = ts_rs_proj_by_name(rs, r->normalized_name);
      int pidx = (int)(pj - rs->projs);
      note_prerelease(rs, pj, r->specifier);
      size_t n = r->nextras ? r->nextras : 1;
      for (size_t e = 0; e < n; e++) {
        int x = r->nextras ? get_extra(rs, pidx, r->extras[e]) : -1;
        pj = &rs->projs[pidx];
        Id dep = spec_dep(rs, pj, x, r->specifier);
        struct rs_job *ji =
            push_job(rs, SOLVER_INSTALL | SOLVER_SOLVABLE_PROVIDES, dep);
        ji->proj = pidx;
        ji->spec = r->specifier;
        ji->extra = x;
        ji->text = ts_rs_req_text(r->normalized_name,
                                  r->nextras ? &r->extras[e] : NULL,
                                  r->nextras ? 1 : 0, r->specifier);
      }
      if (pj->inst_solv && ruled(rs, pj->name)) {
        /* libsolv keeps an installed package whose requires are already
         * broken; one that breaks a rule on this host (torch +cu130 under
         * --cuda 12.6) does not satisfy the request: verify it, so that
         * the solver replaces it or says which rule stands in the way */
        struct rs_job *ji = push_job(rs, SOLVER_VERIFY | SOLVER_SOLVABLE, pj->inst_solv);
        ji->proj = pidx;
        ji->text = ts_xasprintf("%s as installed", pj->name);
      }
      if (rs->req->upgrade ||
          name_in(r->normalized_name, rs->req->upgrade_packages,
                  rs->req->nupgrade_packages)) {
        struct rs_job *ji =
            push_job(rs, SOLVER_UPDATE | SOLVER_SOLVABLE_NAME, pj->nameid);
        ji->proj = pidx;
        ji->text = ts_xasprintf("--upgrade %s", pj->name);
      }
    }
  }
  /* --upgrade-package names in name order */
  size_t nup = rs->req->nupgrade_packages;
  char **up = ts_xcalloc(nup + 1, sizeof *up);
  for (size_t i = 0; i < nup; i++)
    up[i] = ts_name_normalize(rs->req->upgrade_packages[i],
                              strlen(rs->req->upgrade_packages[i]));
  if (nup > 1)
    qsort(up, nup, sizeof *up, ts_strv_cmp);
  for (size_t i = 0; i < nup; i++) {
    /* the project may only show up later, as a dependency: the job names
     * it, so it applies whenever it does */
    struct rs_proj *pj = ts_rs_proj_by_name(rs, up[i]);
    if (!(pj && pj->direct) && (i == 0 || strcmp(up[i], up[i - 1]) != 0)) {
      struct rs_job *ji = push_job(rs, SOLVER_UPDATE | SOLVER_SOLVABLE_NAME,
                                   pool_str2id(rs->pool, up[i], 1));
      ji->text = ts_xasprintf("--upgrade-package %s", up[i]);
    }
  }
  for (size_t i = 0; i < nup; i++)
    free(up[i]);
  free(up);
}

/* Stage two of the objective: a project of req->priority that the answer
 * needs but no root requirement names (torch under pymomentum-gpu or
 * transformers[torch]) was decided wherever libsolv met it.  It becomes
 * an install job placed by its priority, so the next solve decides it
 * first; true when a job was added.  Exact: the answer already holds the
 * project, so the job rules out no better answer. */
static bool add_priority_jobs(struct rs *rs, const Queue *cl) {
  bool added = false;
  for (int k = 0; k < cl->count; k++) {
    const struct rs_sinfo *si = &rs->si[cl->elements[k]];
    if (si->kind != RS_CAND && si->kind != RS_INST)
      continue;
    struct rs_proj *pj = &rs->projs[si->proj];
    size_t tier = priority_of(rs, pj->name);
    if (tier == rs->req->npriority || pj->direct || pj->priority_job)
      continue;
    int at = 0;
    for (int j = 0; j + 1 < rs->jobs.count; j += 2, at++) {
      const struct rs_job *ji = &rs->job_info[j / 2];
      if ((rs->jobs.elements[j] & SOLVER_SELECTMASK) == SOLVER_SOLVABLE)
        continue; /* host facts and constraints stay first */
      if (ji->proj < 0 || priority_of(rs, rs->projs[ji->proj].name) > tier)
        break;
    }
    struct rs_job *ji = insert_job(rs, at, SOLVER_INSTALL | SOLVER_SOLVABLE_NAME,
                                   pj->nameid);
    ji->proj = si->proj;
    ji->text = ts_xasprintf("%s (needed by the answer, decided first)",
                            pj->name);
    pj->priority_job = true;
    added = true;
  }
  return added;
}

static void rs_free(struct rs *rs) {
  for (size_t i = 0; i < rs->nignored; i++)
    free(rs->ignored[i]);
  free(rs->ignored);
  for (size_t i = 0; i < rs->nprojs; i++) {
    struct rs_proj *pj = &rs->projs[i];
    for (size_t k = 0; k < pj->nvers; k++)
      ver_free(&pj->vers[k]);
    for (size_t k = 0; k < pj->nextras; k++) {
      free(pj->extras[k].name);
      free(pj->extras[k].solv);
    }
    ts_rs_meta_clear(&pj->inst_meta);
    ts_version_free(pj->inst_v);
    free(pj->extras);
    free(pj->vers);
    free(pj->evrs);
    free(pj->not_found);
    free(pj->pages);
    free(pj->name);
  }
  free(rs->projs);
  for (size_t i = 0; i < rs->ndeps; i++) {
    free(rs->deps[i].text);
    ts_specset_free(rs->deps[i].spec);
  }
  free(rs->deps);
  for (size_t i = 0; i < (size_t)rs->jobs.count / 2; i++)
    free(rs->job_info[i].text);
  free(rs->job_info);
  for (size_t i = 0; i < rs->nfacts; i++) {
    free(rs->facts[i].name);
    free(rs->facts[i].version);
    free(rs->facts[i].source);
    ts_version_free(rs->facts[i].v);
  }
  free(rs->facts);
  if (rs->rule_term_done) {
    for (size_t i = 0; i < rs->req->rules->nconstraints; i++) {
      free(rs->rule_term_done[i]);
      free(rs->rule_term_dep[i]);
    }
  }
  free(rs->rule_term_done);
  free(rs->rule_term_dep);
  free(rs->rule_dep);
  free(rs->rule_rich);
  free(rs->rule_limit);
  free(rs->rule_done);
  for (size_t i = 0; i < rs->nwant; i++)
    free(rs->want[i]);
  free(rs->want);
  free(rs->si);
  free(rs->pidx);
  free(rs->roots);
  free(rs->constraints);
  queue_free(&rs->jobs);
  ts_version_free(rs->pyver);
  pool_free(rs->pool);
}

enum ts_code ts_resolver_resolve(const struct ts_resolver_request *req,
                                 const struct ts_resolver_target *target,
                                 const struct ts_resolver_provider *provider,
                                 struct ts_resolution **out,
                                 struct ts_error *err) {
  *out = NULL;
  if (!req || !target || !provider || !provider->get_pages ||
      !provider->get_metadata)
    return ts_error_set(err, TS_E_INVALID, "resolver: missing argument");
  struct rs rs;
  memset(&rs, 0, sizeof rs);
  rs.req = req;
  rs.target = target;
  rs.provider = provider;
  rs.roots = sorted_reqs(req->requirements, req->nrequirements);
  rs.constraints = sorted_reqs(req->constraints, req->nconstraints);
  rs.pool = pool_create();
  /* Host facts and the constraints holder are held by install jobs in a
   * repo of their own, not installed: libsolv scans every requires rule's
   * candidates for an installed package of the same name (choice rules)
   * whenever the pool has an installed repo, which cost pyrax 12% of its
   * time for no installed package at all.  So the installed repo exists
   * for libsolv only when something is installed. */
  rs.host = repo_create(rs.pool, "@host");
  rs.sys = repo_create(rs.pool, "@System");
  rs.repo = repo_create(rs.pool, "index");
  if (req->ninstalled)
    pool_set_installed(rs.pool, rs.sys);
  rs.none_evr = pool_str2id(rs.pool, "~none", 1);
  queue_init(&rs.jobs);
  if (target->python_full_version)
    ts_version_parse(target->python_full_version,
                     strlen(target->python_full_version), &rs.pyver, NULL);

  /* host facts, Python first */
  if (target->python_full_version)
    add_fact(&rs, "__python", target->python_full_version, "target");
  if (req->rules) {
    for (size_t i = 0; i < req->rules->nfacts; i++) {
      const struct ts_host_fact *f = &req->rules->facts[i];
      if (req->ignore_host && strcmp(f->name, "__python") != 0)
        continue;
      add_fact(&rs, f->name, f->version, f->source);
    }
    rs.rule_done = ts_xcalloc(req->rules->nconstraints + 1, sizeof(bool));
    rs.rule_term_done = ts_xcalloc(req->rules->nconstraints + 1, sizeof(bool *));
    rs.rule_dep = ts_xcalloc(req->rules->nconstraints + 1, sizeof(Id));
    rs.rule_rich = ts_xcalloc(req->rules->nconstraints + 1, sizeof(bool));
    rs.rule_limit = ts_xcalloc(req->rules->nconstraints + 1, sizeof(bool));
    rs.rule_term_dep = ts_xcalloc(req->rules->nconstraints + 1, sizeof(Id *));
    for (size_t i = 0; i < req->rules->nconstraints; i++) {
      rs.rule_term_done[i] = ts_xcalloc(req->rules->constraints[i].nterms + 1, sizeof(bool));
      rs.rule_term_dep[i] = ts_xcalloc(req->rules->constraints[i].nterms + 1, sizeof(Id));
    }
  }
  rs.constraints_solv =
      new_solvable(&rs, rs.host, pool_str2id(rs.pool, "__constraints", 1),
                   pool_str2id(rs.pool, "0", 1), RS_CONSTRAINTS, -1, -1, -1);
  sinfo(&rs, rs.constraints_solv)->deps_done = true;
  /* push_job keeps job_info as long as the job list: the host facts
   * above already hold one entry each */
  push_job(&rs, SOLVER_INSTALL | SOLVER_SOLVABLE, rs.constraints_solv);

  enum ts_code c = TS_OK;
  for (size_t i = 0; i < req->nrequirements; i++) {
    const struct ts_requirement *r = req->requirements[i];
    if (r->url) {
      c = ts_error_set(err, TS_E_UNSUPPORTED,
                       "direct reference '%s @ %s' is not supported by the "
                       "resolver yet", r->name, r->url);
      goto done;
    }
    if (!r->marker || ts_marker_eval(r->marker, target->markers, NULL))
      want(&rs, r->normalized_name);
  }
  c = load_wanted(&rs, err);
  if (c != TS_OK)
    goto done;
  add_root_jobs(&rs);

  struct ts_resolution *res = ts_xcalloc(1, sizeof *res);
  Queue cl, pending;
  queue_init(&cl);
  queue_init(&pending);
  for (;;) {
    Solver *solv = ts_rs_solver(&rs);
    res->solves++;
    int nprob = ts_rs_solve(&rs, solv, &rs.jobs);
    if (nprob && expand_windows(&rs, solv, nprob)) {
      solver_free(solv);
      continue;
    }
    if (nprob) {
      ts_rs_explain(&rs, solv, &res->why);
      c = req->debug_solver_dir
              ? ts_rs_write_testcase(solv, req->debug_solver_dir, err)
              : TS_OK;
      solver_free(solv);
      if (c == TS_OK)
        c = ts_error_set(err, TS_E_RESOLVE,
                         "the requirements cannot be met together (%d "
                         "problem%s)",
                         nprob, nprob == 1 ? "" : "s");
      break;
    }
    closure(&rs, solv, &cl);
    queue_empty(&pending);
    for (int k = 0; k < cl.count; k++)
      if (!sinfo(&rs, cl.elements[k])->deps_done)
        queue_push(&pending, cl.elements[k]);
    if (!pending.count && add_priority_jobs(&rs, &cl)) {
      solver_free(solv);
      continue;
    }
    if (!pending.count) {
      collect_result(&rs, &cl, res);
      c = req->debug_solver_dir
              ? ts_rs_write_testcase(solv, req->debug_solver_dir, err)
              : TS_OK;
      solver_free(solv);
      /* after the answer's solver is gone: it makes solvers of its own */
      if (c == TS_OK)
        c = ts_rs_held_back(&rs, &cl, res, err);
      break;
    }
    solver_free(solv);
    c = grow(&rs, &pending, err);
    if (c != TS_OK)
      break;
  }
  queue_free(&cl);
  queue_free(&pending);
  res->pages_fetched = rs.pages_fetched;
  res->metadata_fetched = rs.metadata_fetched;
  res->ignored = rs.ignored;
  res->nignored = rs.nignored;
  rs.ignored = NULL;
  rs.nignored = 0;
  if (c == TS_OK || c == TS_E_RESOLVE)
    *out = res;
  else
    ts_resolution_free(res);
done:
  rs_free(&rs);
  return c;
}

void ts_resolution_free(struct ts_resolution *r) {
  if (!r)
    return;
  for (size_t i = 0; i < r->nitems; i++) {
    struct ts_resolved *it = &r->items[i];
    free(it->name);
    free(it->version);
    free(it->installed_version);
    for (size_t k = 0; k < it->nextras; k++)
      free(it->extras[k]);
    free(it->extras);
  }
  free(r->items);
  for (size_t i = 0; i < r->nignored; i++)
    free(r->ignored[i]);
  free(r->ignored);
  if (r->held_back) {
    free(r->held_back->name);
    free(r->held_back->chosen);
    free(r->held_back->runnable);
    free(r->held_back->reason);
    free(r->held_back);
  }
  for (size_t i = 0; i < r->why.nlines; i++)
    free(r->why.lines[i]);
  free(r->why.lines);
  free(r);
}

const char *ts_resolved_action_name(enum ts_resolved_action a) {
  switch (a) {
  case TS_ACTION_INSTALL: return "install";
  case TS_ACTION_UPGRADE: return "upgrade";
  case TS_ACTION_DOWNGRADE: return "downgrade";
  case TS_ACTION_REINSTALL: return "reinstall";
  case TS_ACTION_KEEP: return "keep";
  case TS_ACTION_REMOVE: return "remove";
  }
  return "?";
}
