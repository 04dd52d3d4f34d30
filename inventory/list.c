/*
 * inventory/list.c — pip list over an installed set (see inventory.h),
 * after pip 23's commands/list.py; --outdated/--uptodate ask the indexes
 * for each project's newest installable version.
 */
#include <stdlib.h>
#include <string.h>

#include "core/alloc.h"
#include "core/str.h"
#include "pep/filename.h"
#include "pep/name.h"
#include "pep/specifier.h"
#include "pep/version.h"
#include "inventory/inventory.h"

/* pip list never shows these (pip's stdlib_pkgs). */
static bool stdlib_pkg(const char *canonical) {
  return strcmp(canonical, "python") == 0 || strcmp(canonical, "wsgiref") == 0 ||
         strcmp(canonical, "argparse") == 0;
}

static bool named(const char *canonical, const char *const *names, size_t n) {
  for (size_t i = 0; i < n; i++)
    if (ts_name_eq(canonical, strlen(canonical), names[i], strlen(names[i])))
      return true;
  return false;
}

/* Whether a file may be installed on the target: not yanked, its
 * Requires-Python admits the interpreter, and a wheel's tags fit.  *is_wheel
 * and *v (caller frees) describe it. */
static bool candidate(const struct ts_index_file *f, const struct ts_target *t,
                      const struct ts_version *pyver, bool pre, bool *is_wheel,
                      struct ts_version **v) {
  *v = NULL;
  if (f->yanked)
    return false;
  struct ts_error e = {0};
  if (f->requires_python && pyver) {
    struct ts_specset *rp = NULL;
    bool ok = ts_specset_parse(f->requires_python, strlen(f->requires_python), &rp,
                               &e) == TS_OK &&
              ts_specset_contains(rp, pyver, TS_PRE_INCLUDE);
    ts_specset_free(rp);
    if (!ok)
      return false;
  }
  size_t n = strlen(f->filename);
  enum ts_dist_kind kind = ts_dist_kind_of(f->filename, n);
  *is_wheel = kind == TS_DIST_WHEEL;
  if (kind == TS_DIST_WHEEL) {
    struct ts_wheel_filename *w = NULL;
    if (ts_wheel_filename_parse(f->filename, n, &w, &e) != TS_OK)
      return false;
    if (ts_tagset_best_priority(t->tags, w->tags, w->ntags) >= 0)
      *v = ts_version_dup(w->version);
    ts_wheel_filename_free(w);
  } else if (kind == TS_DIST_SDIST) {
    struct ts_sdist_filename *s = NULL;
    if (ts_sdist_filename_parse(f->filename, n, &s, &e) != TS_OK)
      return false;
    *v = ts_version_dup(s->version);
    ts_sdist_filename_free(s);
  }
  if (*v && !pre && ts_version_is_prerelease(*v)) {
    ts_version_free(*v);
    *v = NULL;
  }
  return *v != NULL;
}

/* pip's _get_latest: the best candidate's version, a wheel over an sdist
 * of the same version. */
static void latest_of(const struct ts_index_project *p, const struct ts_target *t,
                      bool pre, struct ts_list_row *row) {
  struct ts_version *pyver = NULL, *best = NULL;
  struct ts_error e = {0};
  const char *fv = t->markers.python_full_version;
  if (fv)
    ts_version_parse(fv, strlen(fv), &pyver, &e);
  bool best_wheel = false;
  for (size_t i = 0; i < p->nfiles; i++) {
    bool wheel = false;
    struct ts_version *v = NULL;
    if (!candidate(&p->files[i], t, pyver, pre, &wheel, &v))
      continue;
    int c = best ? ts_version_cmp(v, best) : 1;
    if (c > 0 || (c == 0 && wheel && !best_wheel)) {
      ts_version_free(best);
      best = v;
      best_wheel = wheel;
    } else {
      ts_version_free(v);
    }
  }
  if (best) {
    row->latest = ts_xstrdup(ts_version_str(best));
    row->latest_type = best_wheel ? "wheel" : "sdist";
  }
  ts_version_free(best);
  ts_version_free(pyver);
}

static enum ts_code ask_indexes(const struct ts_plan_env *env,
                                const struct ts_list_options *o,
                                struct ts_list_row *rows, size_t n,
                                struct ts_error *err) {
  if (n == 0)
    return TS_OK;
  struct ts_index *idx = ts_index_new(o->index, err);
  if (!idx)
    return err->code ? err->code : TS_E_INVALID;
  const char **names = ts_xcalloc(n, sizeof *names);
  struct ts_index_result *res = ts_xcalloc(n, sizeof *res);
  for (size_t i = 0; i < n; i++)
    names[i] = rows[i].dist->site->normalized;
  enum ts_code rc = ts_index_fetch_projects(idx, names, n, res, err);
  for (size_t i = 0; i < n; i++) {
    if (rc == TS_OK && res[i].code == TS_OK)
      latest_of(&res[i].project, env->target, o->pre, &rows[i]);
    else if (rc == TS_OK && res[i].code != TS_E_NOT_FOUND) {
      *err = res[i].err;
      rc = res[i].code;
    }
    ts_index_project_clear(&res[i].project);
  }
  free(res);
  free(names);
  ts_index_free(idx);
  return rc;
}

enum ts_code ts_plan_list(const struct ts_plan_env *env,
                          const struct ts_list_options *o, struct ts_list_row **rows,
                          size_t *n, struct ts_error *err) {
  const struct ts_installed_set *s = &env->installed;
  struct ts_list_row *r = ts_xcalloc(s->ndists ? s->ndists : 1, sizeof *r);
  size_t k = 0;
  for (size_t i = 0; i < s->ndists; i++) {
    const struct ts_installed_dist *d = &s->dists[i];
    if (stdlib_pkg(d->site->normalized) || named(d->site->normalized, o->exclude, o->nexclude) ||
        (o->editable_only && !d->editable) || (o->exclude_editable && d->editable))
      continue;
    r[k++].dist = d;
  }
  if (o->not_required) {
    /* pip: what no listed distribution's dependencies name */
    bool *required = ts_xcalloc(k ? k : 1, sizeof *required);
    for (size_t i = 0; i < k; i++) {
      char **deps = NULL;
      size_t nd = 0;
      ts_installed_requires(r[i].dist, &env->target->markers, &deps, &nd);
      for (size_t j = 0; j < nd; j++)
        for (size_t m = 0; m < k; m++)
          required[m] |= ts_name_eq(deps[j], strlen(deps[j]), r[m].dist->site->normalized,
                                    strlen(r[m].dist->site->normalized));
      ts_installed_files_free(deps, nd);
    }
    size_t w = 0;
    for (size_t i = 0; i < k; i++)
      if (!required[i])
        r[w++] = r[i];
    k = w;
    free(required);
  }
  enum ts_code rc = TS_OK;
  if (o->select != TS_LIST_ALL) {
    rc = ask_indexes(env, o, r, k, err);
    size_t w = 0;
    for (size_t i = 0; i < k && rc == TS_OK; i++) {
      struct ts_list_row row = r[i];
      bool keep = false;
      if (row.latest) {
        struct ts_version *lv = NULL, *iv = NULL;
        struct ts_error e = {0};
        if (ts_version_parse(row.latest, strlen(row.latest), &lv, &e) == TS_OK &&
            ts_version_parse(row.dist->version, strlen(row.dist->version), &iv, &e) ==
                TS_OK) {
          int c = ts_version_cmp(lv, iv);
          keep = o->select == TS_LIST_OUTDATED ? c > 0 : c == 0;
        }
        ts_version_free(lv);
        ts_version_free(iv);
      }
      if (keep)
        r[w++] = row;
      else
        free(row.latest);
    }
    if (rc == TS_OK)
      k = w;
  }
  if (rc != TS_OK) {
    ts_plan_list_free(r, k);
    *rows = NULL;
    *n = 0;
    return rc;
  }
  *rows = r;
  *n = k;
  return TS_OK;
}

void ts_plan_list_free(struct ts_list_row *rows, size_t n) {
  for (size_t i = 0; i < n; i++)
    free(rows[i].latest);
  free(rows);
}
