/* ts_plan_resolve and a plan result's lifetime: see plan.h and README.md.
 * The parts of the work live beside it (plan_state.h names them): the
 * routes compiled from the rules (plan_routes.c), the resolver's provider
 * (plan_provider.c), direct requirements (plan_direct.c), the runtime
 * torch of torch-matched builds (plan_runtime.c), the install
 * (plan_install.c) and the questions asked of a result (plan_queries.c). */
#include "plan/plan.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/alloc.h"
#include "core/str.h"
#include "core/clock.h"
#include "inventory/tree.h"
#include "pep/specifier.h"
#include "pep/version.h"
#include "plan/plan_internal.h"
#include "plan/plan_state.h"
#include "target/site.h"

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
static void collect_named(struct ts_plan_state *p, const struct ts_plan_options *o) {
  p->in.nentries = o->nentries;
  for (size_t i = 0; i < o->nentries; i++) {
    const struct ts_reqfile_entry *e = o->entries[i];
    if (e->is_constraint) {
      if (e->kind != TS_REQFILE_NAMED || e->req->url)
        continue; /* pip ignores non-name constraints too */
      p->ask.cons = ts_xrealloc(p->ask.cons, (p->ask.ncons + 1) * sizeof *p->ask.cons);
      p->ask.cons[p->ask.ncons++] = ts_requirement_dup(e->req);
      continue;
    }
    if (e->kind == TS_REQFILE_NAMED && !e->req->url) {
      p->ask.roots = ts_xrealloc(p->ask.roots, (p->ask.nroots + 1) * sizeof *p->ask.roots);
      p->ask.roots[p->ask.nroots++] = ts_requirement_dup(e->req);
    }
  }
}
/* The caller's options taken in, the rules compiled and routed, and the
 * index client made with the plan's routing. */
static enum ts_code take_inputs(struct ts_plan_state *p, const struct ts_plan_options *o,
                                struct ts_error *err) {
  struct ts_plan_result *r = p->in.owner;
  enum ts_code rc = ts_target_open(o->python, o->spec, o->probe_cache_dir, &r->target, err);
  if (rc == TS_OK && o->project_requires_python)
    rc = project_python_ok(o->project_requires_python, r->target, err);
  if (rc != TS_OK)
    return rc;
  const struct ts_constraint_set *set = NULL;
  if (o->facts_override) {
    set = o->facts_override;
  } else if (o->rules && o->host) {
    rc = ts_plan_compile_rules(o, &r->rules, &p->route.vars, err);
    if (rc != TS_OK)
      return rc;
    set = &r->rules;
  }
  p->in.set = set;
  p->in.entries = o->entries;
  if ((rc = ts_plan_variants_new(o->ignore_host ? NULL : o->host, o->variant_force, set,
                                 &r->target->markers, &r->variants, err)) != TS_OK)
    return rc;
  p->in.builds = o->build != NULL;
  if (o->build)
    ts_plan_adopt_build_options(p, o);
  p->in.dry_run = o->dry_run;
  p->in.rules = o->rules;
  struct ts_index_options io = *o->index;
  io.route = ts_plan_route_project;
  io.route_ctx = p;
  r->idx = ts_index_new(&io, err);
  if (!r->idx)
    return err->code ? err->code : TS_E_NOMEM;
  p->in.idx = r->idx;
  p->in.first_index = io.strategy == TS_INDEX_FIRST_INDEX;
  if (!io.no_index) {
    p->in.general = ts_xcalloc(1 + io.nextra_index_urls, sizeof *p->in.general);
    p->in.general[p->in.ngeneral++] = io.index_url ? io.index_url : TS_INDEX_DEFAULT_URL;
    for (size_t i = 0; i < io.nextra_index_urls; i++)
      p->in.general[p->in.ngeneral++] = io.extra_index_urls[i];
  }
  if (set)
    ts_plan_route(p, o, set);
  return TS_OK;
}

/* The target's installed set (o->read_installed): the environment locked
 * first when asked, then every distribution with a version, but those
 * rebuilt from source, offered to the resolver as installed. */
static enum ts_code read_installed(struct ts_plan_state *p, const struct ts_plan_options *o,
                                   struct ts_error *err) {
  const struct ts_target *t = p->in.owner->target;
  const struct ts_target_paths *tp = &t->paths;
  enum ts_code rc;
  if (o->lock_env && !o->break_system_packages &&
      (rc = ts_target_check_externally_managed(t, err)) != TS_OK)
    return rc;
  if (o->lock_env && tp->purelib) {
    rc = ts_wheel_lock_env(tp->purelib, tp->prefix ? tp->prefix : tp->purelib, o->no_wait,
                           &o->lock_cb, &p->env.lock_fd, err);
    if (rc != TS_OK)
      return rc;
  }
  char *user = o->user_site ? ts_plan_tree_user_site(t) : NULL;
  const char *dirs[2] = {o->user_site ? user : tp->purelib, o->user_site ? user : tp->platlib};
  rc = ts_site_read(dirs, user || !o->user_site ? 2 : 0, &p->env.site, err);
  free(user);
  if (rc != TS_OK)
    return rc;
  /* a distribution with no version anywhere cannot take part */
  p->ask.installed = ts_xcalloc(p->env.site.n, sizeof *p->ask.installed);
  for (size_t i = 0; i < p->env.site.n; i++) {
    const struct ts_site_dist *d = &p->env.site.dists[i];
    /* what is built from source is installed again (pip does the same
     * for a directory): the resolver must not keep the installed one */
    if (d->version && !ts_plan_built_direct(p, d->name))
      p->ask.installed[p->ask.ninstalled++] = (struct ts_resolver_installed){
          .name = d->name, .version = d->version, .metadata = d->metadata,
          .metadata_len = d->metadata_len, .requested = d->requested};
  }
  return TS_OK;
}

/* The resolver run over the plan's request with its provider. */
static enum ts_code run_resolver(struct ts_plan_state *p, const struct ts_plan_options *o,
                                 struct ts_error *err) {
  struct ts_plan_result *r = p->in.owner;
  struct ts_resolver_request req = {
      .requirements = (const struct ts_requirement *const *)p->ask.roots,
      .nrequirements = p->ask.nroots,
      .constraints = (const struct ts_requirement *const *)p->ask.cons,
      .nconstraints = p->ask.ncons,
      .installed = p->ask.installed,
      .ninstalled = p->ask.ninstalled,
      .rules = p->in.set,
      .variants = p->route.prefs,
      .nvariants = p->route.nprefs,
      .priority = p->route.priority,
      .npriority = p->route.npriority,
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
  struct ts_resolver_provider prov = ts_plan_provider(p);
  double t0 = ts_now_ms();
  enum ts_code rc = ts_resolver_resolve(&req, &tgt, &prov, &r->res, err);
  r->resolve_ms = ts_now_ms() - t0;
  index_warnings_as_notes(r);
  return rc;
}

/* What the plan knows of resolved item x beyond the resolver: its
 * METADATA, the index (the variant's for a routed project), the direct
 * requirement it stands for, the --hash it must match. */
static void describe_item(struct ts_plan_state *p, const struct ts_plan_options *o,
                          const struct ts_resolved *x, struct ts_plan_item *it) {
  it->r = x;
  const struct ts_plan_meta *m = x->file ? ts_plan_find_meta(p, x->file) : NULL;
  if (m) {
    it->metadata = m->data;
    it->metadata_len = m->len;
  } else {
    const struct ts_site_dist *d = ts_site_find(&p->env.site, x->name);
    if (d) {
      it->metadata = d->metadata;
      it->metadata_len = d->metadata_len;
    }
  }
  if (x->metadata && x->metadata_bytes == it->metadata && x->metadata_len == it->metadata_len)
    it->parsed = x->metadata;
  it->index = x->index_url;
  ts_plan_variants_describe(p->in.owner->variants, x->name, x->file, &it->variant_label,
                            &it->variant_why);
  for (size_t k = 0; x->file && k < p->route.nroutes; k++) {
    size_t rl = strlen(p->route.routes[k]);
    if (strncmp(x->file->url, p->route.routes[k], rl) == 0 && x->file->url[rl] == '/')
      it->index = p->route.routes[k];
  }
  struct ts_plan_direct *d = ts_plan_find_direct(p, x->name);
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

enum ts_code ts_plan_resolve(const struct ts_plan_options *o,
                             struct ts_plan_result **out, struct ts_error *err) {
  struct ts_plan_result *r = ts_xcalloc(1, sizeof *r);
  struct ts_plan_state *p = ts_xcalloc(1, sizeof *p);
  p->env.lock_fd = -1;
  r->priv = p;
  p->in.owner = r;
  *out = r;
  enum ts_code rc = take_inputs(p, o, err);
  if (rc != TS_OK)
    return rc;
  collect_named(p, o);
  /* then the direct ones, which may be built against the runtime torch
   * that the named ones lead to (build.h, "Torch-matched builds") */
  if ((rc = ts_plan_add_directs(p, o, err)) != TS_OK)
    return rc;
  if (o->read_installed && !o->spec && (rc = read_installed(p, o, err)) != TS_OK)
    return rc;
  rc = run_resolver(p, o, err);
  if (rc != TS_OK || !r->res)
    return rc;
  r->items = ts_xcalloc(r->res->nitems, sizeof *r->items);
  for (size_t i = 0; i < r->res->nitems; i++) {
    ts_plan_mark_rebuilt(p, &r->res->items[i]);
    describe_item(p, o, &r->res->items[i], &r->items[i]);
  }
  const struct ts_constraint_set *set = p->in.set;
  if (set && !o->ignore_host)
    ts_plan_note_broken_installed(r, set);
  if (o->read_installed && !o->spec && !o->no_deps)
    ts_plan_orphans(&p->env.site, r, &r->target->markers);
  return set && !o->ignore_host ? ts_plan_check_custom_builds(r, set, err) : TS_OK;
}

const struct ts_source_build_options *ts_plan_result_build(const struct ts_plan_result *r) {
  const struct ts_plan_state *p = r->priv;
  return p && p->in.builds ? &p->in.build : NULL;
}

const struct ts_rules *ts_plan_result_rules(const struct ts_plan_result *r) {
  const struct ts_plan_state *p = r->priv;
  return p ? p->in.rules : NULL;
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
  struct ts_plan_state *p = r->priv;
  if (p) {
    ts_plan_fetched_clear(&p->fetched);
    ts_site_clear(&p->env.site);
    ts_plan_memo_clear(&p->memo);
    free(p->ask.installed);
    for (size_t i = 0; i < p->ask.nroots; i++)
      ts_requirement_free(p->ask.roots[i]);
    free(p->ask.roots);
    for (size_t i = 0; i < p->ask.ncons; i++)
      ts_requirement_free(p->ask.cons[i]);
    free(p->ask.cons);
    ts_plan_routing_clear(&p->route);
    free(p->in.general);
    ts_plan_variants_free(r->variants);
    ts_plan_builds_clear(&p->builds);
    ts_wheel_unlock_env(p->env.lock_fd);
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
