/* ts_plan_install: a resolution's files fetched and verified, its sdists
 * built, then one wheel transaction (or, with save_dir, the files copied
 * there); see plan.h and README.md ("ts_plan_install"). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/alloc.h"
#include "core/str.h"
#include "core/buf.h"
#include "core/fs.h"
#include "core/sha256.h"
#include "plan/plan_internal.h"
#include "plan/plan_state.h"

bool ts_plan_action_changes(enum ts_resolved_action a) {
  return a == TS_ACTION_INSTALL || a == TS_ACTION_UPGRADE ||
         a == TS_ACTION_DOWNGRADE || a == TS_ACTION_REINSTALL;
}

/* What one install works through: the items that change, their fetched
 * files, the wheels built from index sdists, and the wheel requests with
 * the digests and direct_url.json texts they point to (all n long). */
struct install_run {
  struct ts_plan_item **todo;
  size_t n;
  char *dir; /* the run's download directory */
  struct ts_plan_fetch *fx;
  struct ts_source_built *builds;
  struct ts_wheel_request *w;
  uint8_t (*dig)[TS_SHA256_LEN];
  char **durls;
};

static void install_run_clear(struct install_run *run) {
  struct ts_error ignore = {0};
  if (run->dir)
    ts_fs_remove_tree(run->dir, &ignore);
  free(run->dir);
  for (size_t i = 0; run->durls && i < run->n; i++)
    free(run->durls[i]);
  free(run->durls);
  free(run->dig);
  free(run->w);
  for (size_t i = 0; run->builds && i < run->n; i++)
    ts_source_built_clear(&run->builds[i]);
  free(run->builds);
  if (run->fx)
    ts_plan_fetch_clear(run->fx, run->n);
  free(run->fx);
  free(run->todo);
}

/* The items that install a file, in the resolution's order. */
static void list_changes(struct ts_plan_result *r, struct install_run *run) {
  for (size_t i = 0; i < r->res->nitems; i++)
    if (ts_plan_action_changes(r->res->items[i].action) && r->res->items[i].file)
      run->n++;
  run->todo = ts_xcalloc(run->n + 1, sizeof *run->todo);
  size_t k = 0;
  for (size_t i = 0; i < r->res->nitems; i++)
    if (ts_plan_action_changes(r->res->items[i].action) && r->res->items[i].file)
      run->todo[k++] = &r->items[i];
}

/* Every file made a verified local one (plan_internal.h).  Verified wheels
 * from an index are kept where the index client keeps whole wheels, so
 * that a later run (or --offline) reads their METADATA and skips the
 * download; local wheels are installed from where they are; the rest go
 * to the run's directory. */
static enum ts_code fetch_all(struct ts_plan_result *r, const struct ts_plan_install_options *o,
                              struct install_run *run, struct ts_error *err) {
  size_t n = run->n;
  struct ts_plan_item **todo = run->todo;
  run->fx = ts_xcalloc(n, sizeof *run->fx);
  for (size_t i = 0; i < n; i++) {
    const struct ts_index_file *f = todo[i]->r->file;
    const char *want = todo[i]->user_sha256 ? todo[i]->user_sha256 : f->sha256;
    run->fx[i] = (struct ts_plan_fetch){
        .project = todo[i]->r->name, .filename = f->filename, .url = f->url,
        .sha256 = want, .sha256_from = f->sha256 ? NULL : "its --hash",
        .cache_key = want ? f->sha256 : NULL, .size = f->size,
        .may_hash_later = !todo[i]->hashed_by};
  }
  struct ts_plan_fetch_options fo = {.run_dir = run->dir, .cb = &o->cb};
  struct ts_plan_fetch_totals totals;
  enum ts_code rc = ts_plan_fetch_files(r->idx, run->fx, n, &fo, &totals, err);
  if (rc == TS_OK && !o->save_dir)
    rc = ts_plan_check_index_wheels(r, todo, run->fx, n, &fo, &o->cb.wheel, err);
  for (size_t i = 0; i < n && rc == TS_OK; i++) {
    const struct ts_plan_fetch *fx = &run->fx[i];
    if (!fx->hash_later && !ts_plan_item_hash_allowed(todo[i], fx->sha256_out)) {
      /* no single expected hash (the index gave none, --hash several):
       * the downloaded file must be one of them */
      const struct ts_reqfile_entry *e = todo[i]->hashed_by;
      rc = ts_error_set(err, TS_E_HASH,
                        "%s: its sha256 %s matches no --hash of '%s'%s (%zu given)",
                        fx->filename, fx->sha256_out, e->text, ts_plan_entry_where(e).s,
                        ts_plan_entry_nsha256(e));
    }
  }
  return rc;
}

/* download: the verified files copied into save_dir. */
static enum ts_code save_all(const struct install_run *run, const char *save_dir,
                             size_t *changed, struct ts_error *err) {
  enum ts_code rc = ts_fs_mkdirs(save_dir, err);
  for (size_t i = 0; i < run->n && rc == TS_OK; i++) {
    char *to = ts_path_join(save_dir, run->fx[i].filename);
    rc = ts_fs_copy_atomic(run->fx[i].local, to, err);
    free(to);
  }
  if (rc == TS_OK && changed)
    *changed = run->n;
  return rc;
}

/* sdists from an index are built (or found in the build cache) before
 * the environment is touched: a failing build changes nothing. */
static enum ts_code build_sdists(struct ts_plan_result *r, struct install_run *run,
                                 struct ts_error *err) {
  struct ts_plan_state *p = r->priv;
  enum ts_code rc = TS_OK;
  for (size_t i = 0; i < run->n && rc == TS_OK; i++) {
    const struct ts_resolved *x = run->todo[i]->r;
    if (!x->sdist)
      continue;
    const struct ts_plan_fetch *fx = &run->fx[i];
    char *label = ts_xasprintf("%s %s", x->name, x->version);
    struct ts_source_spec src = {.kind = TS_SOURCE_ARCHIVE, .location = fx->local,
                                 .sha256 = fx->sha256_out[0] ? fx->sha256_out : NULL,
                                 .label = label, .name = x->name};
    rc = p->in.builds
             ? ts_source_build(&p->in.build, r->target, r->idx, &src, &run->builds[i], err)
             : ts_error_set(err, TS_E_INTERNAL, "%s must be built", label);
    if (rc != TS_OK) {
      free(r->build_log);
      r->build_log = run->builds[i].log;
      run->builds[i].log = NULL;
    }
    free(label);
  }
  return rc;
}

/* PEP 610's direct_url.json of a wheel given by URL, or NULL. */
static char *url_direct_url(const char *url, const char *sha256_hex) {
  struct ts_buf b;
  ts_buf_init(&b, TS_CAP_TEXT);
  bool ok = ts_buf_printf(&b, "{\"url\": \"") == TS_OK;
  for (const char *c = url; *c && ok; c++)
    if (*c == '"' || *c == '\\')
      ok = ts_buf_printf(&b, "\\%c", *c) == TS_OK;
    else if ((unsigned char)*c >= 0x20)
      ok = ts_buf_append(&b, c, 1) == TS_OK;
  ok = ok && ts_buf_printf(&b, "\", \"archive_info\": {\"hash\": \"sha256=%s\", "
                               "\"hashes\": {\"sha256\": \"%s\"}}}",
                           sha256_hex, sha256_hex) == TS_OK;
  char *text = ok ? ts_buf_take(&b, NULL) : NULL;
  ts_buf_clear(&b);
  return text;
}

/* The transaction's request for file i: REQUESTED for roots, its digest
 * once known, PEP 610 direct_url.json for paths and URLs. */
static void wheel_request(struct install_run *run, size_t i) {
  const struct ts_plan_item *it = run->todo[i];
  const struct ts_plan_fetch *fx = &run->fx[i];
  if (run->builds[i].wheel) { /* from an index: no direct_url.json, as pip */
    run->w[i] = (struct ts_wheel_request){.path = run->builds[i].wheel,
                                          .requested = it->r->requested};
    return;
  }
  bool named = it->direct_url && it->is_path && !it->built; /* a file the user named */
  if (fx->hash_later) {
    run->w[i] = (struct ts_wheel_request){
        .path = fx->local, .requested = it->r->requested,
        .direct_url = it->built ? it->built->direct_url : NULL,
        .direct_url_from_path = named, .stage_directly = named};
    return;
  }
  ts_sha256_from_hex(fx->sha256_out, 64, run->dig[i]);
  run->w[i] = (struct ts_wheel_request){.path = fx->local, .sha256 = run->dig[i],
                                        .requested = it->r->requested,
                                        .stage_directly = named};
  if (it->built) {
    run->durls[i] = ts_xstrdup(it->built->direct_url);
  } else if (it->direct_url && it->is_path) {
    const char *loc = it->direct_url;
    char *abs = strncmp(loc, "file://", 7) == 0 ? ts_xstrdup(loc + 7) : realpath(loc, NULL);
    run->durls[i] = ts_wheel_direct_url_for_file(abs ? abs : loc, run->dig[i]);
    free(abs);
  } else if (it->direct_url) {
    run->durls[i] = url_direct_url(it->direct_url, fx->sha256_out);
  }
  run->w[i].direct_url = run->durls[i];
}

/* Why r cannot be installed as o asks, or TS_OK. */
static enum ts_code check_installable(const struct ts_plan_result *r,
                                      const struct ts_plan_install_options *o,
                                      struct ts_error *err) {
  if (!r->res || (r->target->from_spec && !o->save_dir && !o->paths))
    return ts_error_set(err, TS_E_INVALID, "nothing to install into (no interpreter)");
  if (ts_plan_state_of(r)->in.dry_run)
    return ts_error_set(err, TS_E_INTERNAL, "a --dry-run plan cannot be installed");
  const struct ts_target_paths *tp = &r->target->paths;
  if (!o->save_dir && !o->paths &&
      (!tp->purelib || !tp->platlib || !tp->scripts || !tp->data || !tp->prefix))
    return ts_error_set(err, TS_E_PYTHON, "'%s' reported no install paths",
                        r->target->python ? r->target->python : "python");
  return TS_OK;
}

enum ts_code ts_plan_install(struct ts_plan_result *r,
                             const struct ts_plan_install_options *o,
                             size_t *changed, struct ts_error *err) {
  if (changed)
    *changed = 0;
  enum ts_code rc = check_installable(r, o, err);
  if (rc != TS_OK)
    return rc;
  struct install_run run = {0};
  list_changes(r, &run);
  if (run.n == 0) {
    install_run_clear(&run);
    return TS_OK;
  }
  size_t n = run.n;
  rc = o->break_system_packages || o->paths || o->save_dir
           ? TS_OK
           : ts_target_check_externally_managed(r->target, err);
  if (rc == TS_OK)
    rc = ts_plan_check_hashes(r, o->require_hashes, err);
  if (rc == TS_OK)
    rc = ts_plan_fetch_run_dir(r->idx, o->download_dir, &run.dir, err);
  if (rc != TS_OK) {
    install_run_clear(&run);
    return rc;
  }
  rc = fetch_all(r, o, &run, err);
  if (rc == TS_OK && o->save_dir)
    rc = save_all(&run, o->save_dir, changed, err);
  run.builds = ts_xcalloc(n, sizeof *run.builds);
  if (rc == TS_OK && !o->save_dir)
    rc = build_sdists(r, &run, err);
  run.w = ts_xcalloc(n, sizeof *run.w);
  run.dig = ts_xcalloc(n, sizeof *run.dig);
  run.durls = ts_xcalloc(n, sizeof *run.durls);
  for (size_t i = 0; i < n && rc == TS_OK; i++)
    wheel_request(&run, i);
  if (rc == TS_OK && !o->save_dir) {
    const struct ts_plan_state *p = r->priv;
    struct ts_plan_txn txn = {.target = r->target, .idx = r->idx, .rq = run.w, .n = n,
                              .link_mode = o->link_mode, .compile = o->compile,
                              .cancel = o->cancel, .cb = o->cb.wheel,
                              .allow_overwrite = o->allow_overwrite,
                              .verify_cache = o->verify_cache,
                              .env_locked = p->env.lock_fd >= 0 || p->env.lock_borrowed,
                              .paths = o->paths,
                              /* what the switch orphaned goes in the same transaction */
                              .remove = (const char *const *)r->orphans,
                              .nremove = o->paths ? 0 : r->norphans};
    rc = ts_plan_run_transaction(&txn, changed, err);
  }
  install_run_clear(&run);
  return rc;
}
