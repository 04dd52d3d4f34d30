/* Making an environment exactly a lock: see plan.h (ts_plan_sync_*). */
#include <stdlib.h>
#include <string.h>

#include "core/fs.h"
#include "core/str.h"
#include "plan/plan.h"
#include "plan/plan_internal.h"
#include "plan/profiles.h"
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
    if (plan->items[i].action != TS_SYNC_REMOVE)
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
      if (ts_buf_printf(&names, "%s%s", i ? ", " : "", lock->profiles[i].name) != TS_OK)
        abort();
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

enum ts_code ts_plan_sync_prepare(const struct ts_plan_sync_options *o,
                                  struct ts_plan_sync **out, struct ts_error *err) {
  struct ts_plan_sync *s = ts_xcalloc(1, sizeof *s);
  s->env_lock_fd = -1;
  *out = s;
  enum ts_code rc = ts_plan_make_target(o->python, NULL, o->probe_cache_dir, &s->target, err);
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
  const char *extras[1] = {s->profile ? s->profile->name : NULL};
  if (rc == TS_OK) {
    struct ts_sync_installed *si = ts_xcalloc(site.n, sizeof *si);
    for (size_t i = 0; i < site.n; i++)
      si[i] = (struct ts_sync_installed){site.dists[i].name,
                                         site.dists[i].version ? site.dists[i].version : ""};
    rc = ts_sync_plan_make_extras(o->lock, &s->target->markers, extras, s->profile ? 1 : 0,
                                  s->target->tags, si, site.n, &s->plan, err);
    free(si);
  }
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
  if (rc == TS_OK && o->rules && o->host)
    rc = host_gate(o, s, err);
  return rc;
}

enum ts_code ts_plan_sync_apply(struct ts_plan_sync *s, const struct ts_plan_sync_options *o,
                                struct ts_error *err) {
  const struct ts_sync_plan *plan = &s->plan;
  size_t nfx = plan->ninstall + plan->nchange, nremove = 0;
  if (nfx == 0 && plan->nremove == 0)
    return TS_OK;
  struct ts_plan_fetch *fx = ts_xcalloc(nfx, sizeof *fx);
  const char **remove = ts_xcalloc(plan->nremove, sizeof *remove);
  char **names = ts_xcalloc(nfx, sizeof *names), **paths = ts_xcalloc(nfx, sizeof *paths);
  for (size_t i = 0, k = 0; i < plan->n; i++) {
    const struct ts_sync_item *it = &plan->items[i];
    if (it->action == TS_SYNC_REMOVE) {
      remove[nremove++] = it->name;
      continue;
    }
    if (it->action != TS_SYNC_INSTALL && it->action != TS_SYNC_CHANGE)
      continue;
    const struct ts_pylock_file *w = it->wheel;
    names[k] = ts_pylock_file_decoded_name(w);
    if (!w->url) /* a path relative to the lock file */
      paths[k] = w->path[0] == '/' ? ts_xstrdup(w->path) : ts_path_join(o->lock_dir, w->path);
    fx[k] = (struct ts_plan_fetch){
        .project = it->name, .filename = names[k] ? names[k] : "wheel.whl",
        .url = w->url, .path = paths[k], .sha256 = it->sha256, .sha256_from = "the lock",
        .cache_key = it->sha256,
        .size = w->size};
    k++;
  }
  /* Every file is fetched and verified before the environment changes. */
  char *dir = NULL;
  enum ts_code rc = TS_OK;
  struct ts_index *idx = ts_index_new(o->index, err);
  if (!idx)
    rc = err->code ? err->code : TS_E_NOMEM;
  if (rc == TS_OK)
    rc = ts_plan_fetch_run_dir(idx, NULL, &dir, err);
  struct ts_plan_fetch_options fo = {.run_dir = dir, .reread_cached = true, .cb = &o->cb};
  if (rc == TS_OK)
    rc = ts_plan_fetch_files(idx, fx, nfx, &fo, &s->downloaded, err);
  /* Installs, changes and removals are one transaction: a failure, Ctrl-C
   * or SIGKILL leaves the environment as it was (or rolled forward by the
   * next run), never with the new packages in and the extraneous ones
   * still there. */
  struct ts_wheel_request *rq = ts_xcalloc(nfx, sizeof *rq);
  uint8_t (*dig)[TS_SHA256_LEN] = ts_xcalloc(nfx, sizeof *dig);
  for (size_t i = 0; i < nfx && rc == TS_OK; i++) {
    if (ts_sha256_from_hex(fx[i].sha256_out, TS_SHA256_HEX_LEN, dig[i]) != TS_OK)
      rc = ts_error_set(err, TS_E_INTERNAL, "%s: no digest after the download",
                        fx[i].filename);
    rq[i] = (struct ts_wheel_request){.path = fx[i].local, .sha256 = dig[i],
                                      .requested = true};
  }
  if (rc == TS_OK) {
    struct ts_plan_txn txn = {.target = s->target, .idx = idx, .rq = rq, .n = nfx,
                              .remove = remove, .nremove = nremove,
                              .link_mode = o->link_mode, .compile = o->compile,
                              .cancel = o->cancel, .cb = o->cb.wheel,
                              .allow_overwrite = o->allow_overwrite,
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
  for (size_t i = 0; i < nfx; i++) {
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
