/* pip's installation report of a resolution: see plan.h (ts_plan_report). */
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "core/filehash.h"
#include "core/str.h"
#include "index/client.h"
#include "index/url.h"
#include "inventory/report.h"
#include "pep/metadata.h"
#include "plan/plan.h"
#include "plan/plan_internal.h"

/* The report's metadata: every header in file order, then the body as
 * Description (pip's msg_to_json keeps the same order). */
struct kvs {
  struct ts_metadata *md; /* parsed here: the resolver's parse is not of these bytes */
  struct ts_report_kv *kv;
  size_t n;
};

static void metadata_kvs(struct kvs *k, const struct ts_plan_item *it) {
  struct ts_error err = {0};
  const struct ts_metadata *md = it->parsed;
  if (!md && ts_metadata_parse(it->metadata, it->metadata_len, &k->md, &err) != TS_OK)
    return; /* the resolver parsed it already; nothing new to say here */
  k->kv = ts_report_metadata_kvs(md ? md : k->md, &k->n);
}

/* A local file the index gave no hash for (a path requirement, a
 * --find-links folder): its sha256, hashed here (or known from the stat
 * memo), since pip's report carries archive_info.hashes for those too.
 * Writes hex[65]; false when the URL is not a local file or it cannot be
 * read (the report then has no hash, as before the install reads it). */
static bool local_sha256(const struct ts_plan_result *r, const char *url, char hex[65]) {
  char *path = ts_url_file_path(url);
  if (!path)
    return false;
  const char *root = r->idx && ts_index_cache_mode(r->idx) != TS_CACHE_DISABLED
                         ? ts_index_cache_dir(r->idx) : NULL;
  char *memo = root ? ts_filehash_memo_dir(root) : NULL;
  uint8_t dg[TS_SHA256_LEN];
  struct ts_error ignore = {0};
  bool ok = ts_filehash_path(path, memo, dg, NULL, &ignore) == TS_OK;
  if (ok)
    ts_sha256_hex(dg, hex);
  free(memo);
  free(path);
  return ok;
}

enum ts_code ts_plan_report(const struct ts_plan_result *r, struct ts_buf *out,
                            struct ts_error *err) {
  if (!r->res)
    return ts_error_set(err, TS_E_INTERNAL, "no resolution to report");
  size_t n = r->res->nitems;
  struct ts_report_item *items = ts_xcalloc(n, sizeof *items);
  struct kvs *k = ts_xcalloc(n, sizeof *k);
  /* pip's report carries DirectUrl.redacted_url: no user:password@ */
  char **urls = ts_xcalloc(n, sizeof *urls);
  char (*local_hex)[65] = ts_xcalloc(n, sizeof *local_hex);
  size_t m = 0;
  for (size_t i = 0; i < n; i++) {
    const struct ts_plan_item *it = &r->items[i];
    const struct ts_resolved *x = it->r;
    if (x->action == TS_ACTION_KEEP || !x->file)
      continue;
    if (x->file->url)
      urls[m] = ts_url_without_userinfo(x->file->url);
    if (it->metadata)
      metadata_kvs(&k[m], it);
    const char *sha256 = x->file->sha256 ? x->file->sha256 : it->user_sha256;
    if (!sha256 && x->file->url && local_sha256(r, x->file->url, local_hex[m]))
      sha256 = local_hex[m];
    items[m] = (struct ts_report_item){
        .name = x->name, .version = x->version,
        .metadata = k[m].kv, .nmetadata = k[m].n,
        .url = urls[m],
        .sha256 = sha256,
        .is_direct = it->direct_url != NULL,
        .is_yanked = x->file->yanked,
        .requested = x->requested,
        .requested_extras = (const char *const *)x->extras,
        .nrequested_extras = x->nextras,
        .variant_label = it->variant_label, .variant_why = it->variant_why};
    m++;
  }
  struct ts_report_kv env[TS_REPORT_ENV_KEYS];
  size_t nenv = ts_report_env_from_markers(&r->target->markers, env);
  char **conflicts = NULL;
  size_t nconflicts = ts_plan_unmet_requirements(r, &conflicts);
  char *note = ts_plan_held_back_note(r);
  const char *notes[1] = {note};
  const struct ts_rules *rules = ts_plan_result_rules(r);
  struct ts_report_rules in_force = {0};
  if (rules)
    in_force = (struct ts_report_rules){
        .updated = rules->provenance.updated,
        .version = rules->provenance.version ? rules->provenance.version : rules->version,
        .path = rules->provenance.path, .url = rules->provenance.url};
  struct ts_report rep = {.tool_version = "torchsolve " TS_VERSION, .items = items,
                          .nitems = m, .environment = env, .nenvironment = nenv,
                          .conflicts = (const char *const *)conflicts,
                          .nconflicts = nconflicts,
                          .notes = notes, .nnotes = note ? 1 : 0,
                          .rules = rules ? &in_force : NULL};
  enum ts_code rc = ts_report_write(&rep, out, err);
  ts_strv_free(conflicts, nconflicts);
  free(note);
  for (size_t i = 0; i < n; i++) {
    ts_metadata_free(k[i].md);
    free(k[i].kv);
  }
  free(k);
  ts_strv_free(urls, m);
  free(local_hex);
  free(items);
  return rc;
}
