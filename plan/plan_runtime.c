/* The runtime torch of torch-matched builds (source/build.h, "Torch-
 * matched builds"; plan_state.h's `builds`): the runtime resolved first,
 * alone, for isolated builds; for --no-build-isolation ones the plan's
 * torch installed into the target first when it has another. */
#include <stdlib.h>
#include <string.h>

#include "core/alloc.h"
#include "core/str.h"
#include "core/clock.h"
#include "plan/plan_internal.h"
#include "plan/plan_state.h"

static void runtime_answer_clear(struct ts_plan_runtime_answer *a) {
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
static enum ts_code runtime_resolve(struct ts_plan_builds *rt, bool add_torch,
                                    const struct ts_plan_runtime_answer **out,
                                    struct ts_error *err) {
  struct ts_plan_runtime_answer *a = add_torch ? &rt->with_torch : &rt->as_named;
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
  struct ts_plan_state *p = ctx;
  const struct ts_resolution *res = p->in.owner->res;
  *version = NULL;
  if (!res && p->builds.o) {
    const struct ts_plan_runtime_answer *a = NULL;
    enum ts_code rc = runtime_resolve(&p->builds, true, &a, err);
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
static enum ts_code install_torch_first(struct ts_plan_state *p, const char *want,
                                        char *const *pins,
                                        size_t npins, const char *project,
                                        struct ts_error *err) {
  const struct ts_plan_options *o = p->builds.o;
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
    io.cancel = p->in.build.cancel;
    ts_plan_state_of(first)->env.lock_borrowed = p->env.lock_fd >= 0 || p->env.lock_borrowed;
    double t0 = ts_now_ms();
    rc = ts_plan_install(first, &io, NULL, err);
    if (rc == TS_OK && p->in.build.cb.installed_first)
      p->in.build.cb.installed_first(p->in.build.cb.ctx, want, project, ts_now_ms() - t0);
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
  struct ts_plan_state *p = ctx;
  const struct ts_resolution *res = p->in.owner->res;
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
  } else if (p->builds.o) {
    const struct ts_plan_runtime_answer *a = NULL;
    rc = runtime_resolve(&p->builds, false, &a, err);
    if (rc == TS_OK) {
      want = a->torch;
      pins = a->pins;
      npins = a->npins;
    } else {
      ts_error_wrap(err, "%s: its build needs the runtime torch", project);
    }
  }
  char *have = rc == TS_OK ? installed_torch(p->in.owner->target) : NULL;
  if (rc != TS_OK) {
    /* said */
  } else if (!want && !have) {
    rc = ts_error_set(err, TS_E_NOT_FOUND,
                      "%s: its build needs torch and --no-build-isolation builds it with "
                      "the target's (%s), which has none, nor does this install bring "
                      "one; fix: add torch to this install, or install torch first, or "
                      "drop --no-build-isolation", project, p->in.owner->target->python);
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

void ts_plan_pin_runtime_torch(struct ts_plan_state *p, const char *version) {
  char *text = ts_xasprintf("torch==%s", version);
  struct ts_requirement *req = NULL;
  struct ts_error ignore = {0};
  if (ts_requirement_parse(text, strlen(text), &req, &ignore) == TS_OK) {
    p->ask.cons = ts_xrealloc(p->ask.cons, (p->ask.ncons + 1) * sizeof *p->ask.cons);
    p->ask.cons[p->ask.ncons++] = req;
  }
  free(text);
}

void ts_plan_adopt_build_options(struct ts_plan_state *p, const struct ts_plan_options *o) {
  p->in.build = *o->build;
  p->in.build.rules = o->rules;
  p->in.build.host = o->host;
  p->in.build.ignore_host = o->ignore_host;
  if (!p->in.build.kept)
    p->in.build.kept = p->builds.own_kept = ts_source_build_kept_new();
  if (!p->in.build.runtime_torch)
    p->in.build.runtime_torch = plan_runtime_torch;
  if (!o->build->runtime_torch)
    p->in.build.target_torch = plan_target_torch;
  p->in.build.runtime_ctx = p;
  p->in.opts = *o;
  p->builds.o = &p->in.opts;
  p->builds.kept = p->in.build.kept;
}

void ts_plan_builds_clear(struct ts_plan_builds *b) {
  ts_target_free(b->metadata_target);
  ts_source_build_kept_free(b->own_kept);
  runtime_answer_clear(&b->with_torch);
  runtime_answer_clear(&b->as_named);
  memset(b, 0, sizeof *b);
}
