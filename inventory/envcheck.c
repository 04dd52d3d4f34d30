/*
 * inventory/envcheck.c — pip check without Python (see envcheck.h).
 */
#include "inventory/envcheck.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "core/buf.h"
#include "core/fs.h"
#include "core/str.h"
#include "pep/metadata.h"
#include "pep/name.h"
#include "pep/specifier.h"
#include "pep/version.h"
#include "target/site.h"

/* One distribution while checking: its parsed requirements that apply. */
struct dist {
  char *name;
  char *version;
  struct ts_version *v;
  const struct ts_requirement **reqs;
  size_t nreqs;
  struct ts_requirement **owned; /* parsed here (reqs point into them) */
  size_t nowned;
  size_t order; /* read order: of two copies, pip keeps the last read */
};

static void dist_free(struct dist *d) {
  free(d->name);
  free(d->version);
  ts_version_free(d->v);
  for (size_t i = 0; i < d->nowned; i++)
    ts_requirement_free(d->owned[i]);
  free(d->owned);
  free(d->reqs);
}

static int dist_cmp(const void *a, const void *b) {
  const struct dist *x = a, *y = b;
  int c = strcmp(x->name, y->name);
  return c ? c : (x->order > y->order) - (x->order < y->order);
}

static int problem_cmp(const void *a, const void *b) {
  const struct ts_envcheck_problem *x = a, *y = b;
  int c = strcmp(x->project, y->project);
  return c ? c : strcmp(x->message, y->message);
}

static void add_skipped(struct ts_envcheck_result *r, const char *name, const char *why) {
  r->skipped = ts_xreallocarray(r->skipped, r->nskipped + 1, sizeof *r->skipped);
  r->skipped[r->nskipped++] = ts_xasprintf("%s: %s", name, why);
}

/* Keeps req in d->reqs (room made by the caller) when it holds for env,
 * with `extra` bound to "" as pip's iter_dependencies; false (with *why)
 * when its marker cannot be evaluated. */
static bool keep_if_applies(struct dist *d, const struct ts_requirement *req,
                            const struct ts_marker_env *env, struct ts_error *why) {
  bool holds = true;
  if (req->marker) {
    struct ts_marker_eval_opts o = {.context = TS_MARKER_METADATA, .extra = ""};
    if (ts_marker_evaluate(req->marker, env, &o, &holds, why) != TS_OK)
      return false;
  }
  if (holds)
    d->reqs[d->nreqs++] = req;
  return true;
}

/* Parses one installed distribution: false (with *why) when pip would
 * skip it. */
static bool load_dist(const struct ts_site_dist *sd, struct dist *d,
                      const struct ts_marker_env *env, struct ts_error *why) {
  if (!sd->metadata) {
    ts_error_set(why, TS_E_PARSE, "%s", sd->problem ? sd->problem : "no METADATA");
    return false;
  }
  struct ts_metadata *md = NULL;
  if (ts_metadata_parse(sd->metadata, sd->metadata_len, &md, why) != TS_OK)
    return false;
  d->name = ts_xstrdup(md->normalized_name);
  d->v = ts_version_dup(md->version);
  d->version = ts_xstrdup(ts_version_str(md->version));
  bool ok = true;
  if (md->nrequires_dist) {
    d->owned = ts_xcalloc(md->nrequires_dist, sizeof *d->owned);
    d->reqs = ts_xcalloc(md->nrequires_dist, sizeof *d->reqs);
  }
  for (size_t i = 0; ok && i < md->nrequires_dist; i++) {
    const char *s = md->requires_dist[i];
    ok = ts_requirement_parse(s, strlen(s), &d->owned[d->nowned], why) == TS_OK &&
         keep_if_applies(d, d->owned[d->nowned++], env, why);
  }
  ts_metadata_free(md);
  return ok;
}

/* One distribution parsed by the caller. */
static bool take_parsed(const struct ts_envcheck_dist_in *in, struct dist *d,
                        const struct ts_marker_env *env, struct ts_error *why) {
  d->name = ts_xstrdup(in->name);
  d->v = ts_version_dup(in->version);
  d->version = ts_xstrdup(ts_version_str(in->version));
  if (in->nrequires_dist)
    d->reqs = ts_xcalloc(in->nrequires_dist, sizeof *d->reqs);
  for (size_t i = 0; i < in->nrequires_dist; i++)
    if (!keep_if_applies(d, in->requires_dist[i], env, why))
      return false;
  return true;
}

static const struct dist *find(const struct dist *ds, size_t n, const char *name) {
  size_t lo = 0, hi = n;
  while (lo < hi) {
    size_t mid = lo + (hi - lo) / 2;
    int c = strcmp(ds[mid].name, name);
    if (c == 0)
      return &ds[mid];
    if (c < 0)
      lo = mid + 1;
    else
      hi = mid;
  }
  return NULL;
}

static void problem_clear(struct ts_envcheck_problem *p) {
  free(p->project);
  free(p->version);
  free(p->requirement);
  free(p->dep_name);
  free(p->dep_version);
  free(p->message);
}

static void add_problem(struct ts_envcheck_result *r, enum ts_envcheck_kind kind,
                        const struct dist *d, const struct ts_requirement *req,
                        const struct dist *dep) {
  r->problems = ts_xreallocarray(r->problems, r->nproblems + 1, sizeof *r->problems);
  struct ts_envcheck_problem *p = &r->problems[r->nproblems];
  memset(p, 0, sizeof *p);
  p->kind = kind;
  p->project = ts_xstrdup(d->name);
  p->version = ts_xstrdup(d->version);
  p->requirement = ts_requirement_str(req);
  p->dep_name = ts_xstrdup(req->normalized_name);
  p->dep_version = dep ? ts_xstrdup(dep->version) : NULL;
  if (kind == TS_ENVCHECK_MISSING)
    p->message = ts_xasprintf("%s %s requires %s, which is not installed.", p->project,
                              p->version, p->dep_name);
  else
    p->message = ts_xasprintf("%s %s has requirement %s, but you have %s %s.", p->project,
                              p->version, p->requirement ? p->requirement : "", p->dep_name,
                              p->dep_version);
  r->nproblems++;
}

/* The distributions of the set that pip would read, in ds. */
static void load_set(const struct ts_envcheck_dist_in *in, size_t nin,
                     const struct ts_marker_env *env, struct dist **dsp, size_t *np,
                     struct ts_envcheck_result *out) {
  struct dist *ds = ts_xcalloc(nin, sizeof *ds);
  size_t n = 0;
  for (size_t i = 0; i < nin; i++) {
    const struct ts_site_dist *sd = in[i].site;
    struct dist d = {0};
    struct ts_error why = {0};
    if (sd ? !load_dist(sd, &d, env, &why) : !take_parsed(&in[i], &d, env, &why)) {
      char name[256];
      if (sd) {
        const char *base = strrchr(sd->dist_info, '/');
        base = base ? base + 1 : sd->dist_info;
        snprintf(name, sizeof name, "%.*s", (int)(strlen(base) - 10), base);
      } else {
        snprintf(name, sizeof name, "%s", in[i].name);
      }
      dist_free(&d);
      add_skipped(out, name, why.detail[0] ? why.detail : "unreadable");
      continue;
    }
    d.order = n;
    ds[n++] = d;
  }
  *dsp = ds;
  *np = n;
}

enum ts_code ts_envcheck_run(const char *site_dir,
                             const struct ts_marker_env *env,
                             struct ts_envcheck_result *out,
                             struct ts_error *err) {
  return ts_envcheck_run_dirs(&site_dir, 1, env, out, err);
}

enum ts_code ts_envcheck_run_dirs(const char *const *site_dirs, size_t ndirs,
                                  const struct ts_marker_env *env,
                                  struct ts_envcheck_result *out,
                                  struct ts_error *err) {
  memset(out, 0, sizeof *out);
  /* a directory that is not there is an error here (check --path names
   * it), not an empty environment */
  for (size_t di = 0; di < ndirs; di++) {
    struct stat st;
    int e = stat(site_dirs[di], &st) != 0 ? errno : S_ISDIR(st.st_mode) ? 0 : ENOTDIR;
    if (e)
      return ts_error_set(err, TS_E_NOT_FOUND, "cannot read '%s': %s", site_dirs[di],
                          strerror(e));
  }
  struct ts_site site;
  enum ts_code rc = ts_site_read(site_dirs, ndirs, &site, err);
  if (rc == TS_OK)
    rc = ts_envcheck_run_site(&site, env, out, err);
  ts_site_clear(&site);
  return rc;
}

enum ts_code ts_envcheck_run_site(const struct ts_site *site,
                                  const struct ts_marker_env *env,
                                  struct ts_envcheck_result *out,
                                  struct ts_error *err) {
  struct ts_envcheck_dist_in *in = ts_xcalloc(site->n ? site->n : 1, sizeof *in);
  for (size_t i = 0; i < site->n; i++)
    in[i].site = &site->dists[i];
  enum ts_code rc = ts_envcheck_run_set(in, site->n, env, out, err);
  free(in);
  return rc;
}

enum ts_code ts_envcheck_run_set(const struct ts_envcheck_dist_in *dists, size_t nin,
                                 const struct ts_marker_env *env,
                                 struct ts_envcheck_result *out,
                                 struct ts_error *err) {
  memset(out, 0, sizeof *out);
  struct dist *ds = NULL;
  size_t n = 0;
  (void)err; /* nothing here fails: a dist pip would skip is listed in out */
  load_set(dists, nin, env, &ds, &n, out);
  if (n) {
    qsort(ds, n, sizeof *ds, dist_cmp);
    /* Two copies of one project: pip's dict keeps the last one read. */
    size_t w = 0;
    for (size_t i = 0; i < n; i++) {
      if (w && strcmp(ds[w - 1].name, ds[i].name) == 0) {
        dist_free(&ds[w - 1]);
        ds[w - 1] = ds[i];
      } else {
        ds[w++] = ds[i];
      }
    }
    n = w;
  }
  for (size_t i = 0; i < n; i++) {
    for (size_t k = 0; k < ds[i].nreqs; k++) {
      const struct ts_requirement *req = ds[i].reqs[k];
      const struct dist *dep = find(ds, n, req->normalized_name);
      if (!dep)
        add_problem(out, TS_ENVCHECK_MISSING, &ds[i], req, NULL);
      else if (!ts_specset_contains(req->specifier, dep->v, TS_PRE_INCLUDE))
        add_problem(out, TS_ENVCHECK_CONFLICT, &ds[i], req, dep);
    }
  }
  /* pip reports each (dependency, requirement) once per project. */
  if (out->nproblems) {
    qsort(out->problems, out->nproblems, sizeof *out->problems, problem_cmp);
    size_t w = 0;
    for (size_t i = 0; i < out->nproblems; i++) {
      if (w && strcmp(out->problems[w - 1].project, out->problems[i].project) == 0 &&
          strcmp(out->problems[w - 1].message, out->problems[i].message) == 0) {
        problem_clear(&out->problems[i]);
        continue;
      }
      out->problems[w++] = out->problems[i];
    }
    out->nproblems = w;
  }
  if (n)
    out->dists = ts_xcalloc(n, sizeof *out->dists);
  for (size_t i = 0; i < n; i++) {
    out->dists[i].name = ds[i].name;
    out->dists[i].version = ds[i].version;
    ds[i].name = ds[i].version = NULL;
    out->ndists++;
    dist_free(&ds[i]);
  }
  free(ds);
  return TS_OK;
}

void ts_envcheck_result_clear(struct ts_envcheck_result *r) {
  for (size_t i = 0; i < r->ndists; i++) {
    free(r->dists[i].name);
    free(r->dists[i].version);
  }
  free(r->dists);
  for (size_t i = 0; i < r->nproblems; i++)
    problem_clear(&r->problems[i]);
  free(r->problems);
  ts_strv_free(r->skipped, r->nskipped);
  memset(r, 0, sizeof *r);
}
