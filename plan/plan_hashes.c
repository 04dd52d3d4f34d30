/* The --hash options of requirements (pip's hash-checking mode): which
 * requirement's hashes a project must match, whether a file's digest is
 * allowed, and the checks install runs before it downloads (and a dry run
 * runs too).  Private helpers in plan_internal.h, the checks in plan.h. */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "pep/filename.h"
#include "pep/name.h"
#include "pep/specifier.h"
#include "plan/plan.h"
#include "plan/plan_internal.h"

/* A requirement may list several --hash values (pip-compile writes one per
 * file of the pinned version); the chosen file must match any one of them. */

/* How many sha256 values a requirement's --hash options give. */
size_t ts_plan_entry_nsha256(const struct ts_reqfile_entry *e) {
  size_t n = 0;
  for (size_t i = 0; e && i < e->nhashes; i++)
    n += strncmp(e->hashes[i], "sha256:", 7) == 0;
  return n;
}

/* The only sha256 a requirement allows, or NULL when it gives none or several. */
const char *ts_plan_entry_only_sha256(const struct ts_reqfile_entry *e) {
  if (ts_plan_entry_nsha256(e) != 1)
    return NULL;
  for (size_t i = 0;; i++)
    if (strncmp(e->hashes[i], "sha256:", 7) == 0)
      return e->hashes[i] + 7;
}

bool ts_plan_entry_allows(const struct ts_reqfile_entry *e, const char *hex) {
  for (size_t i = 0; hex && i < e->nhashes; i++)
    if (strncmp(e->hashes[i], "sha256:", 7) == 0 && strcasecmp(e->hashes[i] + 7, hex) == 0)
      return true;
  return false;
}

static const char *entry_name(const struct ts_reqfile_entry *e) {
  return e->kind == TS_REQFILE_NAMED ? e->req->normalized_name : e->name;
}

/* The requirement whose --hash values project `name` (normalised) must match. */
const struct ts_reqfile_entry *ts_plan_hash_entry(const struct ts_reqfile_entry *const *es,
                                                  size_t n, const char *name) {
  for (size_t i = 0; i < n; i++) {
    const char *en = entry_name(es[i]);
    if (!es[i]->is_constraint && ts_plan_entry_nsha256(es[i]) && en) {
      char *norm = ts_name_normalize(en, strlen(en));
      bool same = norm && strcmp(norm, name) == 0;
      free(norm);
      if (same)
        return es[i];
    }
  }
  return NULL;
}

/* Whether the file's version is one the requirement accepts (pip filters
 * hashes among the candidates its specifier already let through).  A name
 * that does not parse counts as accepted: the resolver judges it. */
bool ts_plan_entry_accepts_file(const struct ts_reqfile_entry *e,
                                const struct ts_index_file *f) {
  if (e->kind != TS_REQFILE_NAMED || ts_specset_count(e->req->specifier) == 0)
    return true;
  struct ts_error ignore = {0};
  struct ts_wheel_filename *w = NULL;
  struct ts_sdist_filename *sd = NULL;
  const struct ts_version *v = NULL;
  size_t n = strlen(f->filename);
  if (ts_wheel_filename_parse(f->filename, n, &w, &ignore) == TS_OK)
    v = w->version;
  else if (ts_sdist_filename_parse(f->filename, n, &sd, &ignore) == TS_OK)
    v = sd->version;
  bool ok = !v || ts_specset_contains(e->req->specifier, v, TS_PRE_INCLUDE);
  if (w)
    ts_wheel_filename_free(w);
  if (sd)
    ts_sdist_filename_free(sd);
  return ok;
}

/* A named requirement pinned to one version: == without a wildcard, or ===. */
static bool pinned(const struct ts_requirement *r) {
  if (ts_specset_count(r->specifier) != 1)
    return false;
  enum ts_spec_op op = ts_specset_op_at(r->specifier, 0);
  const char *v = ts_specset_version_at(r->specifier, 0);
  size_t n = strlen(v);
  return op == TS_OP_ARBITRARY || (op == TS_OP_EQ && !(n >= 2 && !strcmp(v + n - 2, ".*")));
}

struct ts_plan_where ts_plan_entry_where(const struct ts_reqfile_entry *e) {
  struct ts_plan_where w = {""};
  if (e->file)
    snprintf(w.s, sizeof w.s, " (%s:%u)", e->file, (unsigned)e->line);
  return w;
}

enum ts_code ts_plan_check_requirement_hashes(const struct ts_reqfile_entry *const *es,
                                              size_t n, bool *require_hashes,
                                              struct ts_error *err) {
  /* pip turns hash-checking on when any requirement carries a --hash: one
   * hashed line must not let its unhashed neighbours through. */
  bool asked = *require_hashes;
  for (size_t i = 0; i < n && !*require_hashes; i++)
    *require_hashes = es[i]->nhashes > 0;
  if (!*require_hashes)
    return TS_OK;
  const char *off = asked ? "drop --require-hashes"
                          : "drop every --hash (one turns hash-checking on, as in pip)";
  for (size_t i = 0; i < n; i++) {
    const struct ts_reqfile_entry *e = es[i];
    if (e->is_constraint || e->nhashes)
      continue;
    if (e->file)
      return ts_error_set(err, TS_E_HASH_MISSING,
                          "--require-hashes: '%s' (%s line %u) has no --hash; add "
                          "--hash=sha256:... to it, or %s",
                          e->text, e->file, e->line, off);
    return ts_error_set(err, TS_E_HASH_MISSING,
                        "--require-hashes: '%s' has no --hash; name it in a "
                        "requirements file with --hash=sha256:..., or %s",
                        e->text, off);
  }
  return TS_OK;
}

bool ts_plan_item_hash_allowed(const struct ts_plan_item *it, const char *sha256_hex) {
  return !it->hashed_by || ts_plan_entry_allows(it->hashed_by, sha256_hex);
}

enum ts_code ts_plan_check_hashes(const struct ts_plan_result *r,
                                  bool require_hashes, struct ts_error *err) {
  for (size_t i = 0; r->res && i < r->res->nitems; i++) {
    const struct ts_plan_item *it = &r->items[i];
    const struct ts_index_file *f = it->r->file;
    if (!ts_plan_action_changes(it->r->action) || !f)
      continue;
    /* A missing hash is a gap in the requirements, not a mismatch: exit 1
     * (pip's status), with the fix in the message. */
    if (require_hashes && !it->hashed_by)
      return ts_error_set(err, TS_E_HASH_MISSING,
                          "--require-hashes: %s %s%s has no --hash; pin every "
                          "package, dependencies included, with ==VERSION "
                          "--hash=sha256:... ('torchsolve lock' then 'torchsolve "
                          "export' writes such a file)",
                          it->r->name, it->r->version,
                          it->r->requested ? "" : " (a dependency)");
    const struct ts_reqfile_entry *e = it->hashed_by;
    if (require_hashes && e && e->kind == TS_REQFILE_NAMED && !e->req->url &&
        !pinned(e->req))
      return ts_error_set(err, TS_E_HASH_MISSING,
                          "--require-hashes: '%s'%s is not pinned: write %s==%s "
                          "(pip demands == with hashes)",
                          e->text, ts_plan_entry_where(e).s, it->r->name, it->r->version);
    if (e && f->sha256 && !ts_plan_entry_allows(e, f->sha256))
      return ts_error_set(err, TS_E_HASH,
                          "%s: the index's sha256 %s matches no --hash of '%s'%s "
                          "(%zu given)",
                          f->filename, f->sha256, e->text, ts_plan_entry_where(e).s,
                          ts_plan_entry_nsha256(e));
  }
  return TS_OK;
}
