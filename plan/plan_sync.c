/* Making an environment exactly a lock: see plan.h (ts_plan_sync_*). */
#include <stdlib.h>
#include <string.h>

#include "core/filehash.h"
#include "core/fs.h"
#include "core/str.h"
#include "pep/name.h"
#include "plan/plan.h"
#include "plan/plan_internal.h"
#include "plan/profile_choice.h"
#include "target/site.h"

/* The lock's selected builds against the rules on this host: findings
 * for every rule they break. */
static enum ts_code host_gate(const struct ts_plan_sync_options *o, struct ts_plan_sync *s,
                              struct ts_error *err) {
  struct ts_rules_options ro = {.ignore_host = false};
  struct ts_constraint_set set;
  enum ts_code rc = ts_rules_compile(o->rules, o->host, &ro, &set, err);
  if (rc != TS_OK)
    return rc;
  const struct ts_sync_plan *plan = &s->plan;
  struct ts_installed *pk = ts_xcalloc(plan->n, sizeof *pk);
  size_t n = 0;
  for (size_t i = 0; i < plan->n; i++)
    if (plan->items[i].action != TS_SYNC_REMOVE && plan->items[i].new_version)
      pk[n++] = (struct ts_installed){plan->items[i].name, plan->items[i].new_version};
  rc = ts_rules_check_installed(&set, pk, n, &s->findings, &s->nfindings, err);
  if (rc == TS_OK && s->nfindings)
    rc = ts_error_set(err, TS_E_HOST,
                      "this host cannot run the lock (%zu broken rule%s); "
                      "pass --ignore-host to sync anyway",
                      s->nfindings, s->nfindings == 1 ? "" : "s");
  free(pk);
  ts_constraint_set_clear(&set);
  return rc;
}

/* PEP 825 variant wheels of the lock, chosen for this host as install
 * chooses them (plan_variants.c): the lock's variants-json is fetched
 * (hash-checked, cached) and judged with the host's providers and the
 * rules' policy. */
struct variant_ranker {
  struct ts_plan_variants *v;
  struct ts_index *idx;
  struct ts_constraint_set set;
  bool have_set;
  struct ts_host profile_host;
  bool have_profile_host;
  char **notes;
  size_t nnotes;
};

static long rank_variant(void *ctx, const struct ts_pylock_package *pkg, const char *label) {
  struct variant_ranker *k = ctx;
  const struct ts_pylock_file *j = pkg->variants_json;
  struct ts_index_file f = {.filename = ts_pylock_file_decoded_name(j), .url = j->url,
                            .sha256 = (char *)ts_pylock_file_sha256(j), .size = j->size,
                            .variant_rank = -1};
  long rank = f.filename && f.url && pkg->version
                  ? ts_plan_variants_rank_locked(k->v, k->idx, pkg->name, pkg->version, &f,
                                                 label, &k->notes, &k->nnotes)
                  : -1;
  free(f.filename);
  return rank;
}

/* sync --profile NAME chooses variants for the machine the profile was
 * locked for (its backend and GPU targets), not for this host's GPUs,
 * and without the providers' variables, which describe this host. */
static enum ts_code ranker_init(const struct ts_plan_sync_options *o, const struct ts_plan_sync *s,
                                struct variant_ranker *k, struct ts_error *err) {
  struct ts_rules_options ro = {.ignore_host = false};
  enum ts_code rc = TS_OK;
  const struct ts_host *host = o->host;
  bool for_profile = o->profile && s->profile && o->rules;
  if (for_profile) {
    if ((rc = ts_profile_locked_host(s->profile, o->rules, o->host, &k->profile_host, err)))
      return rc;
    k->have_profile_host = true;
    host = &k->profile_host;
  }
  if (o->rules && host && (rc = ts_rules_compile(o->rules, host, &ro, &k->set, err)) == TS_OK)
    k->have_set = true;
  if (rc == TS_OK)
    rc = ts_plan_variants_new(host, for_profile ? NULL : o->variant_force,
                              k->have_set ? &k->set : NULL, &s->target->markers, &k->v, err);
  if (rc == TS_OK && !(k->idx = ts_index_new(o->index, err)))
    rc = err->code;
  return rc;
}

static void ranker_clear(struct variant_ranker *k) {
  ts_plan_variants_free(k->v);
  if (k->idx)
    ts_index_free(k->idx);
  if (k->have_set)
    ts_constraint_set_clear(&k->set);
  if (k->have_profile_host)
    ts_host_clear(&k->profile_host);
  ts_strv_free(k->notes, k->nnotes);
}

/* Which of a fleet lock's profiles to sync (see plan.h). */
static enum ts_code pick_profile(const struct ts_plan_sync_options *o, struct ts_plan_sync *s,
                                 struct ts_error *err) {
  const struct ts_pylock *lock = o->lock;
  if (!lock->nprofiles)
    return o->profile ? ts_error_set(err, TS_E_INVALID,
                                     "--profile %s: the lock has no profiles (lock --profile "
                                     "writes them)", o->profile)
                      : TS_OK;
  if (o->profile) {
    if ((s->profile = ts_profile_find(lock, o->profile)))
      return TS_OK;
    struct ts_buf names;
    ts_buf_init(&names, 0);
    for (size_t i = 0; i < lock->nprofiles; i++)
      ts_buf_xprintf(&names, "%s%s", i ? ", " : "", lock->profiles[i].name);
    char *list = ts_buf_take(&names, NULL);
    enum ts_code rc = ts_error_set(err, TS_E_INVALID,
                                   "--profile %s: the lock has no such profile (it has %s)",
                                   o->profile, list);
    free(list);
    return rc;
  }
  if (!o->host || !o->rules) {
    s->profile = &lock->profiles[0];
    return TS_OK;
  }
  s->choice = ts_xcalloc(1, sizeof *s->choice);
  enum ts_code rc = ts_profile_choose(lock, o->rules, o->host, &s->target->markers,
                                      s->target->tags, s->choice, err);
  if (rc != TS_OK)
    return rc;
  if (s->choice->chosen == s->choice->n)
    return ts_error_set(err, TS_E_HOST,
                        "this host runs none of the lock's %zu profiles; --profile NAME "
                        "--ignore-host syncs one anyway", s->choice->n);
  s->profile = s->choice->v[s->choice->chosen].profile;
  return TS_OK;
}

/* ---- the -C settings of locked builds ----------------------------------- */

/* The config settings a lock gives a package's build: when it has a
 * [packages.tool.torchsolve] table (torchsolve locked it), its
 * config-settings (none when absent: it was built with none), in
 * ts_source_config_settings_sorted's order.  Returns false (*out NULL,
 * *n = 0) for a lock another tool wrote, which says nothing about them.
 * *out (malloc'd) points into the lock. */
static bool locked_config_settings(const struct ts_pylock_package *pkg, const char ***out,
                                   size_t *n) {
  const struct ts_toml_value *ours = ts_toml_get(pkg->tool, "torchsolve");
  const struct ts_toml_value *cs = ts_toml_get(ours, "config-settings");
  *out = NULL;
  *n = 0;
  if (!ours)
    return false;
  size_t have = cs && cs->type == TS_TOML_ARRAY ? cs->nitems : 0;
  const char **text = ts_xcalloc(have + 1, sizeof *text);
  for (size_t i = 0; i < have; i++)
    if (cs->items[i]->type == TS_TOML_STRING)
      text[(*n)++] = cs->items[i]->str;
  *out = ts_source_config_settings_sorted(text, *n);
  free(text);
  return true;
}

/* "a=1 b=2", or "none". */
static char *settings_text(const char *const *cs, size_t n) {
  struct ts_buf b;
  ts_buf_init(&b, TS_CAP_TEXT);
  for (size_t i = 0; i < n; i++)
    if (ts_buf_printf(&b, "%s%s", i ? " " : "", cs[i]) != TS_OK)
      break;
  char *text = b.len ? ts_buf_take(&b, NULL) : ts_xstrdup("none");
  ts_buf_clear(&b);
  return text;
}

/* The lock's config settings are its builds' (a sync of the lock builds
 * the wheels the lock was made with, and finds them in the build cache):
 * -C on the sync command line must repeat them exactly, for every locked
 * build torchsolve recorded; a lock another tool wrote takes -C as given. */
static enum ts_code check_config_settings(const struct ts_plan_sync_options *o,
                                          const struct ts_sync_plan *plan,
                                          struct ts_error *err) {
  size_t ngiven = o->build ? o->build->nconfig_settings : 0;
  if (!ngiven)
    return TS_OK;
  const char **given = ts_source_config_settings_sorted(o->build->config_settings, ngiven);
  enum ts_code rc = TS_OK;
  for (size_t i = 0; i < plan->n && rc == TS_OK; i++) {
    const struct ts_sync_item *it = &plan->items[i];
    const char **locked = NULL;
    size_t nlocked = 0;
    if (it->source && it->action != TS_SYNC_REMOVE &&
        locked_config_settings(it->pkg, &locked, &nlocked)) {
      bool same = nlocked == ngiven;
      for (size_t k = 0; same && k < ngiven; k++)
        same = strcmp(locked[k], given[k]) == 0;
      if (!same) {
        char *want = settings_text(locked, nlocked), *got = settings_text(given, ngiven);
        rc = ts_error_set(err, TS_E_INVALID,
                          "%s was locked with config settings %s, not -C %s: sync builds "
                          "what the lock says; drop -C, or lock again with the new settings",
                          it->name, want, got);
        free(want);
        free(got);
      }
    }
    free(locked);
  }
  free(given);
  return rc;
}

enum ts_code ts_plan_sync_prepare(const struct ts_plan_sync_options *o,
                                  struct ts_plan_sync **out, struct ts_error *err) {
  struct ts_plan_sync *s = ts_xcalloc(1, sizeof *s);
  s->env_lock_fd = -1;
  *out = s;
  /* the extras and groups asked for are checked before anything else */
  struct ts_lock_selection asked;
  enum ts_code rc = ts_lock_select(o->lock, o->request, NULL, &asked, err);
  ts_lock_selection_clear(&asked);
  if (rc != TS_OK)
    return rc;
  rc = ts_target_open(o->python, NULL, o->probe_cache_dir, &s->target, err);
  if (rc != TS_OK)
    return rc;
  const struct ts_target_paths *tp = &s->target->paths;
  if (!tp->purelib || !tp->prefix || !tp->scripts || !tp->data || !tp->platlib)
    return ts_error_set(err, TS_E_PYTHON, "'%s' reported no install paths",
                        s->target->python ? s->target->python : "python");
  if (!o->dry_run && !o->break_system_packages &&
      (rc = ts_target_check_externally_managed(s->target, err)) != TS_OK)
    return rc;
  /* The lock from reading the installed set to the commit: another
   * install or sync then runs wholly before or after this one. */
  if (!o->dry_run &&
      (rc = ts_wheel_lock_env(tp->purelib, tp->prefix, o->no_wait, &o->cb.wheel,
                              &s->env_lock_fd, err)) != TS_OK)
    return rc;
  /* the installed set install sees too: a distribution whose METADATA
   * does not parse is still there to be replaced or removed */
  struct ts_site site;
  const char *dirs[2] = {tp->purelib, tp->platlib};
  rc = ts_site_read(dirs, 2, &site, err);
  if (rc == TS_OK)
    rc = pick_profile(o, s, err);
  struct ts_lock_selection sel = {0};
  struct variant_ranker ranker = {0};
  if (rc == TS_OK)
    rc = ts_lock_select(o->lock, o->request, s->profile ? s->profile->name : NULL, &sel, err);
  if (rc == TS_OK && (rc = ranker_init(o, s, &ranker, err)) == TS_OK) {
    sel.variant_rank = rank_variant;
    sel.variant_ctx = &ranker;
    struct ts_sync_installed *si = ts_xcalloc(site.n, sizeof *si);
    for (size_t i = 0; i < site.n; i++)
      si[i] = (struct ts_sync_installed){site.dists[i].name,
                                         site.dists[i].version ? site.dists[i].version : ""};
    rc = ts_sync_plan_make_selected(o->lock, &s->target->markers, &sel, s->target->tags, si,
                                    site.n, &s->plan, err);
    free(si);
  }
  if (rc != TS_OK && ranker.nnotes) /* the lock's variants.json could not be had */
    rc = ts_error_set(err, rc, "%s", ranker.notes[0]);
  ranker_clear(&ranker);
  ts_lock_selection_clear(&sel);
  /* exact means the same bytes too: a kept distribution that another
   * installer wrote, from another wheel, without REQUESTED, or whose files
   * no longer match its RECORD is installed again */
  for (size_t i = 0; rc == TS_OK && i < s->plan.n; i++) {
    struct ts_sync_item *it = &s->plan.items[i];
    const struct ts_site_dist *d = it->action == TS_SYNC_KEEP ? ts_site_find(&site, it->name) : NULL;
    const char *why = NULL;
    if (d && !ts_wheel_installed_exact(d->dist_info, it->sha256, true, &why)) {
      it->action = TS_SYNC_CHANGE;
      s->plan.nkeep--;
      s->plan.nchange++;
    }
  }
  ts_site_clear(&site);
  if (rc == TS_OK)
    rc = check_config_settings(o, &s->plan, err);
  if (rc == TS_OK && o->rules && o->host)
    rc = host_gate(o, s, err);
  return rc;
}

/* ---- locked sources ----------------------------------------------------- */

/* The build fingerprint a lock carries for a package
 * ([packages.tool.torchsolve] build-env) as source/build.h's locked_env
 * text; NULL when there is none (a lock another tool wrote). */
static char *locked_build_env(const struct ts_pylock_package *pkg) {
  const struct ts_toml_value *env =
      ts_toml_get(ts_toml_get(pkg->tool, "torchsolve"), "build-env");
  if (!env || env->type != TS_TOML_ARRAY)
    return NULL;
  struct ts_buf b;
  ts_buf_init(&b, TS_CAP_TEXT);
  for (size_t i = 0; i < env->nitems; i++) {
    const struct ts_toml_value *n = ts_toml_get(env->items[i], "name");
    const struct ts_toml_value *v = ts_toml_get(env->items[i], "version");
    const struct ts_toml_value *h = ts_toml_get(env->items[i], "sha256");
    const struct ts_toml_value *u = ts_toml_get(env->items[i], "url");
    if (n && v && h && u && n->type == TS_TOML_STRING && v->type == TS_TOML_STRING &&
        h->type == TS_TOML_STRING && u->type == TS_TOML_STRING &&
        ts_buf_printf(&b, "%.*s==%.*s %.*s %.*s\n", (int)n->len, n->str, (int)v->len,
                      v->str, (int)h->len, h->str, (int)u->len, u->str) != TS_OK)
      break;
  }
  char *out = b.len ? ts_buf_take(&b, NULL) : NULL;
  ts_buf_clear(&b);
  return out;
}

/* A path of the lock, read from the lock's directory when relative. */
static char *lock_path(const struct ts_plan_sync_options *o, const char *path) {
  return path[0] == '/' ? ts_xstrdup(path) : ts_path_join(o->lock_dir, path);
}

/* An index's sdist, fetched as the lock's wheels are: through the wheel
 * cache (a later sync --offline builds it from there), checked against
 * the lock's sha256.  *local (malloc'd) lies in *dir, a run directory the
 * caller removes, or in the cache. */
static enum ts_code fetch_sdist(const struct ts_plan_sync_options *o, struct ts_index *idx,
                                const struct ts_pylock_package *pkg, char **dir,
                                char **local, struct ts_error *err) {
  const struct ts_pylock_file *f = pkg->sdist;
  char *name = ts_pylock_file_decoded_name(f);
  struct ts_plan_fetch fx = {.project = pkg->name, .filename = name ? name : "sdist.tar.gz",
                             .url = f->url, .sha256 = ts_pylock_file_sha256(f),
                             .sha256_from = "the lock", .cache_key = ts_pylock_file_sha256(f),
                             .size = f->size};
  struct ts_plan_fetch_options fo = {.reread_cached = true, .cb = &o->cb};
  struct ts_plan_fetch_totals totals = {0};
  enum ts_code rc = ts_plan_fetch_run_dir(idx, NULL, dir, err);
  fo.run_dir = *dir;
  if (rc == TS_OK)
    rc = ts_plan_fetch_files(idx, &fx, 1, &fo, &totals, err);
  if (rc == TS_OK)
    *local = ts_xstrdup(fx.local);
  ts_plan_fetch_clear(&fx, 1);
  free(name);
  return rc;
}

/* Builds a locked source (source/build.h) in exactly its locked build
 * environment with its locked config settings: the sdist or archive
 * checked against the lock's sha256, the git checkout at the locked
 * commit.  An sdist from an index installs without direct_url.json, as
 * install's do. */
static enum ts_code build_locked(const struct ts_plan_sync_options *o,
                                 const struct ts_plan_sync *s, struct ts_index *idx,
                                 const struct ts_sync_item *it, struct ts_source_built *out,
                                 struct ts_error *err) {
  const struct ts_pylock_package *pkg = it->pkg;
  if (!o->build)
    return ts_error_set(err, TS_E_UNSUPPORTED, "%s is locked as a source; this sync "
                        "builds nothing", pkg->name);
  struct ts_source_spec src = {.name = pkg->name};
  char *loc = NULL, *run_dir = NULL, *label = NULL;
  enum ts_code rc = TS_OK;
  bool from_index = pkg->sdist && pkg->sdist->url && pkg->index;
  if (from_index) {
    src.kind = TS_SOURCE_ARCHIVE;
    src.sha256 = ts_pylock_file_sha256(pkg->sdist);
    src.label = label = ts_xasprintf("%s %s", pkg->name, pkg->version ? pkg->version : "");
    rc = fetch_sdist(o, idx, pkg, &run_dir, &loc, err);
  } else if (pkg->directory) {
    src.kind = TS_SOURCE_DIR;
    loc = lock_path(o, pkg->directory->path);
  } else if (pkg->vcs) {
    src.kind = TS_SOURCE_VCS;
    char *path = pkg->vcs->url ? NULL : lock_path(o, pkg->vcs->path);
    char *repo = path ? ts_xasprintf("file://%s", path) : ts_xstrdup(pkg->vcs->url);
    free(path);
    loc = ts_xasprintf("git+%s@%s%s%s", repo, pkg->vcs->commit_id,
                       pkg->vcs->subdirectory ? "#subdirectory=" : "",
                       pkg->vcs->subdirectory ? pkg->vcs->subdirectory : "");
    free(repo);
  } else {
    const struct ts_pylock_file *f = pkg->sdist ? pkg->sdist : pkg->archive;
    src.kind = f->url ? TS_SOURCE_URL : TS_SOURCE_ARCHIVE;
    loc = f->url ? ts_xstrdup(f->url) : lock_path(o, f->path);
    src.sha256 = ts_pylock_file_sha256(f);
  }
  src.location = loc;
  char *env = locked_build_env(pkg);
  struct ts_source_build_options bo = *o->build;
  bo.locked_env = env;
  bo.rules = o->rules;
  bo.host = o->host;
  bo.ignore_host = !o->host;
  const char **settings = NULL;
  size_t nsettings = 0;
  if (locked_config_settings(pkg, &settings, &nsettings)) {
    bo.config_settings = settings;
    bo.nconfig_settings = nsettings;
  }
  if (rc == TS_OK)
    rc = ts_source_build(&bo, s->target, idx, &src, out, err);
  if (rc == TS_OK && from_index) {
    free(out->direct_url);
    out->direct_url = NULL;
  }
  if (run_dir) {
    struct ts_error ignore = {0};
    ts_fs_remove_tree(run_dir, &ignore);
    free(run_dir);
  }
  free(settings);
  free(env);
  free(loc);
  free(label);
  return rc;
}

/* Whether a built wheel is the locked package's. */
static bool builds_package(const struct ts_source_built *b, const char *name) {
  const char *base = strrchr(b->wheel, '/');
  base = base ? base + 1 : b->wheel;
  char *dist = ts_name_normalize(base, strcspn(base, "-"));
  bool same = strcmp(dist, name) == 0;
  free(dist);
  return same;
}

enum ts_code ts_plan_sync_apply(struct ts_plan_sync *s, const struct ts_plan_sync_options *o,
                                struct ts_error *err) {
  const struct ts_sync_plan *plan = &s->plan;
  size_t n = plan->ninstall + plan->nchange, nfx = 0, nbuilt = 0, nremove = 0;
  if (n == 0 && plan->nremove == 0)
    return TS_OK;
  struct ts_plan_fetch *fx = ts_xcalloc(n, sizeof *fx);
  struct ts_source_built *built = ts_xcalloc(n, sizeof *built);
  const char **remove = ts_xcalloc(plan->nremove, sizeof *remove);
  char **names = ts_xcalloc(n, sizeof *names), **paths = ts_xcalloc(n, sizeof *paths);
  char *dir = NULL;
  enum ts_code rc = TS_OK;
  struct ts_index *idx = ts_index_new(o->index, err);
  if (!idx)
    rc = err->code ? err->code : TS_E_NOMEM;
  for (size_t i = 0; i < plan->n && rc == TS_OK; i++) {
    const struct ts_sync_item *it = &plan->items[i];
    if (it->action == TS_SYNC_REMOVE) {
      remove[nremove++] = it->name;
      continue;
    }
    if (it->action != TS_SYNC_INSTALL && it->action != TS_SYNC_CHANGE)
      continue;
    if (it->source) {
      /* built before anything is fetched or changed */
      rc = build_locked(o, s, idx, it, &built[nbuilt], err);
      if (rc == TS_OK && !builds_package(&built[nbuilt], it->name))
        rc = ts_error_set(err, TS_E_INVALID, "%s: its locked source builds '%s'",
                          it->name, strrchr(built[nbuilt].wheel, '/') + 1);
      nbuilt++;
      continue;
    }
    const struct ts_pylock_file *w = it->wheel;
    names[nfx] = ts_pylock_file_decoded_name(w);
    if (!w->url) /* a path relative to the lock file */
      paths[nfx] = lock_path(o, w->path);
    fx[nfx] = (struct ts_plan_fetch){
        .project = it->name, .filename = names[nfx] ? names[nfx] : "wheel.whl",
        .url = w->url, .path = paths[nfx], .sha256 = it->sha256, .sha256_from = "the lock",
        .cache_key = it->sha256,
        .size = w->size};
    nfx++;
  }
  /* Every file is fetched and verified before the environment changes. */
  if (rc == TS_OK)
    rc = ts_plan_fetch_run_dir(idx, NULL, &dir, err);
  struct ts_plan_fetch_options fo = {.run_dir = dir, .reread_cached = true, .cb = &o->cb};
  if (rc == TS_OK)
    rc = ts_plan_fetch_files(idx, fx, nfx, &fo, &s->downloaded, err);
  /* Installs, changes and removals are one transaction: a failure, Ctrl-C
   * or SIGKILL leaves the environment as it was (or rolled forward by the
   * next run), never with the new packages in and the extraneous ones
   * still there. */
  struct ts_wheel_request *rq = ts_xcalloc(n, sizeof *rq);
  uint8_t (*dig)[TS_SHA256_LEN] = ts_xcalloc(n, sizeof *dig);
  for (size_t i = 0; i < nfx && rc == TS_OK; i++) {
    if (ts_sha256_from_hex(fx[i].sha256_out, TS_SHA256_HEX_LEN, dig[i]) != TS_OK)
      rc = ts_error_set(err, TS_E_INTERNAL, "%s: no digest after the download",
                        fx[i].filename);
    rq[i] = (struct ts_wheel_request){.path = fx[i].local, .sha256 = dig[i],
                                      .requested = true};
  }
  for (size_t i = 0; i < nbuilt && rc == TS_OK; i++) {
    rc = ts_filehash_path(built[i].wheel, NULL, dig[nfx + i], NULL, err);
    rq[nfx + i] = (struct ts_wheel_request){.path = built[i].wheel, .sha256 = dig[nfx + i],
                                            .requested = true,
                                            .direct_url = built[i].direct_url};
  }
  if (rc == TS_OK) {
    struct ts_plan_txn txn = {.target = s->target, .idx = idx, .rq = rq, .n = nfx + nbuilt,
                              .remove = remove, .nremove = nremove,
                              .link_mode = o->link_mode, .compile = o->compile,
                              .cancel = o->cancel, .cb = o->cb.wheel,
                              .allow_overwrite = o->allow_overwrite,
                              .verify_cache = o->verify_cache,
                              .env_locked = s->env_lock_fd >= 0};
    rc = ts_plan_run_transaction(&txn, NULL, err);
  }
  if (dir) {
    struct ts_error ignore = {0};
    ts_fs_remove_tree(dir, &ignore);
    free(dir);
  }
  free(dig);
  free(rq);
  ts_plan_fetch_clear(fx, nfx);
  for (size_t i = 0; i < nbuilt; i++)
    ts_source_built_clear(&built[i]);
  free(built);
  for (size_t i = 0; i < n; i++) {
    free(names[i]);
    free(paths[i]);
  }
  free(names);
  free(paths);
  free(remove);
  free(fx);
  if (idx)
    ts_index_free(idx);
  return rc;
}

void ts_plan_sync_free(struct ts_plan_sync *s) {
  if (!s)
    return;
  ts_rules_findings_free(s->findings, s->nfindings);
  if (s->choice)
    ts_profile_choice_clear(s->choice);
  free(s->choice);
  ts_sync_plan_clear(&s->plan);
  ts_target_free(s->target);
  ts_wheel_unlock_env(s->env_lock_fd);
  free(s);
}
