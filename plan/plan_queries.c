/* What callers ask of a resolution after the fact: the requirements an
 * install leaves unmet (pip's install-time check, worked out once), the
 * files of a version on the fetched pages, the newest version offered. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/alloc.h"
#include "core/str.h"
#include "inventory/envcheck.h"
#include "pep/filename.h"
#include "pep/metadata.h"
#include "pep/name.h"
#include "pep/version.h"
#include "plan/plan_state.h"
#include "target/site.h"

static bool name_in(char *const *names, size_t n, const char *name) {
  for (size_t i = 0; i < n; i++)
    if (strcmp(names[i], name) == 0)
      return true;
  return false;
}

static size_t unmet_requirements(const struct ts_plan_result *r, const struct ts_plan_state *p,
                                 char ***out) {
  *out = NULL;
  size_t nitems = r->res->nitems, nchanged = 0;
  char **changed = ts_xcalloc(nitems, sizeof *changed);
  for (size_t i = 0; i < nitems; i++)
    if (r->res->items[i].action != TS_ACTION_KEEP) {
      const char *nm = r->res->items[i].name;
      changed[nchanged++] = ts_name_normalize(nm, strlen(nm));
    }
  /* the set the install leaves: what stays, then what it installs (as the
   * resolver parsed it, or read here) */
  struct ts_site_dist *made = ts_xcalloc(nitems ? nitems : 1, sizeof *made);
  struct ts_envcheck_dist_in *after = ts_xcalloc(p->env.site.n + nitems + 1, sizeof *after);
  size_t nafter = 0;
  for (size_t i = 0; i < p->env.site.n; i++)
    if (!name_in(changed, nchanged, p->env.site.dists[i].normalized))
      after[nafter++].site = &p->env.site.dists[i];
  for (size_t i = 0, k = 0; i < nitems; i++) {
    const struct ts_resolved *x = &r->res->items[i];
    const struct ts_plan_item *it = &r->items[i];
    if (x->action == TS_ACTION_KEEP)
      continue;
    if (it->parsed)
      after[nafter++] = (struct ts_envcheck_dist_in){
          .name = it->parsed->normalized_name, .version = it->parsed->version,
          .requires_dist = (const struct ts_requirement *const *)x->requires_dist,
          .nrequires_dist = x->nrequires_dist};
    else if (it->metadata) {
      made[k] = (struct ts_site_dist){
          .dist_info = (char *)"", .name = (char *)x->name, .normalized = changed[k],
          .version = (char *)x->version, .metadata = (char *)it->metadata,
          .metadata_len = it->metadata_len, .metadata_ok = true};
      after[nafter++].site = &made[k];
    }
    k++;
  }
  struct ts_envcheck_result chk;
  struct ts_error ignore = {0};
  size_t n = 0;
  if (ts_envcheck_run_set(after, nafter, &r->target->markers, &chk, &ignore) == TS_OK) {
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
  free(after);
  free(made);
  for (size_t i = 0; i < nchanged; i++)
    free(changed[i]);
  free(changed);
  return n;
}

size_t ts_plan_unmet_requirements(const struct ts_plan_result *r, char ***out) {
  *out = NULL;
  struct ts_plan_state *p = r->priv; /* the memo is not part of the result's value */
  if (!r->res || !p || !r->target)
    return 0;
  if (!p->memo.unmet_known) {
    p->memo.nunmet = unmet_requirements(r, p, &p->memo.unmet);
    p->memo.unmet_known = true;
  }
  if (p->memo.nunmet) {
    *out = ts_xcalloc(p->memo.nunmet, sizeof **out);
    for (size_t i = 0; i < p->memo.nunmet; i++)
      (*out)[i] = ts_xstrdup(p->memo.unmet[i]);
  }
  return p->memo.nunmet;
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
  const struct ts_plan_state *p = r->priv;
  *out = NULL;
  struct ts_version *v = NULL;
  if (!p || ts_version_parse(version, strlen(version), &v, NULL) != TS_OK)
    return 0;
  size_t n = 0;
  const struct ts_plan_direct *d = NULL;
  for (size_t i = 0; i < p->fetched.ndirects && !d; i++)
    if (strcmp(p->fetched.directs[i].name, name) == 0)
      d = &p->fetched.directs[i];
  /* a direct reference's page is its own file, never the index's */
  size_t npages = d ? 1 : p->fetched.npages;
  for (size_t i = 0; i < npages; i++) {
    const struct ts_index_project *pr = d ? d->page.self[0] : &p->fetched.pages[i]->res.project;
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
  const struct ts_plan_state *p = r ? r->priv : NULL;
  struct ts_version *best = NULL;
  /* The files of one release (a wheel per Python and platform, 419 for
   * torch) sit together and share the version field of their names: a
   * name whose field is the one of the last file judged has nothing new
   * to say, valid or not, and is not parsed again. */
  const char *judged = NULL;
  size_t judged_len = 0;
  for (size_t i = 0; p && i < p->fetched.npages; i++) {
    const struct ts_index_project *pr = &p->fetched.pages[i]->res.project;
    if (!pr->name || strcmp(pr->name, name) != 0)
      continue;
    for (size_t k = 0; k < pr->nfiles; k++) {
      struct ts_wheel_filename *w = NULL;
      struct ts_error ignored = {0};
      const char *fn = pr->files[k].filename;
      if (pr->files[k].yanked)
        continue;
      const char *field = strchr(fn, '-');
      size_t field_len = field ? strcspn(++field, "-") : 0;
      if (judged && field_len == judged_len && memcmp(field, judged, field_len) == 0)
        continue;
      if (ts_wheel_filename_parse(fn, strlen(fn), &w, &ignored) != TS_OK)
        continue;
      judged = field;
      judged_len = field_len;
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

void ts_plan_memo_clear(struct ts_plan_memo *m) {
  for (size_t i = 0; i < m->nunmet; i++)
    free(m->unmet[i]);
  free(m->unmet);
  memset(m, 0, sizeof *m);
}
