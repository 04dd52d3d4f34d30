/* Which rules files apply, in what order: see layers.h. */
#include "rules/layers.h"

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/fs.h"
#include "rules/origin.h"
#include "rules/rules_cache.h"

static const char *env(const char *name) {
  const char *v = getenv(name);
  return v && *v ? v : NULL;
}

static enum ts_code merge_file(struct ts_rules *base, const char *path,
                               const struct ts_rules_layers *l, struct ts_error *err) {
  struct ts_rules *over = NULL;
  enum ts_code rc = ts_rules_load_file_cached(path, l->cache_root, l->builtin, &over, err);
  if (rc != TS_OK)
    return rc;
  rc = ts_rules_merge(base, over, err);
  ts_rules_free(over);
  if (rc != TS_OK)
    ts_error_wrap(err, "%s", path);
  return rc;
}

/* One --without-rule value, or TORCHSOLVE_WITHOUT_RULES's comma list. */
static enum ts_code drop_rules(struct ts_rules *r, const char *patterns,
                               struct ts_error *err) {
  for (const char *p = patterns; p && *p;) {
    const char *comma = strchr(p, ',');
    size_t n = comma ? (size_t)(comma - p) : strlen(p);
    char pat[128];
    if (n == 0 || n >= sizeof pat)
      return ts_error_set(err, TS_E_INVALID,
                          "--without-rule: '%.*s' is not a rule id or pattern",
                          (int)n, p);
    memcpy(pat, p, n);
    pat[n] = '\0';
    if (ts_rules_drop(r, pat) == 0)
      return ts_error_set(err, TS_E_INVALID,
                          "--without-rule %s: no rule has that id; "
                          "`torchsolve rules list` shows them", pat);
    p = comma ? comma + 1 : NULL;
  }
  return TS_OK;
}

/* The bundled facts, or the newer ones `rules update` kept (origin.h),
 * with where they came from. */
static enum ts_code load_in_force(const struct ts_rules_layers *l, struct ts_rules **out,
                                  struct ts_error *err) {
  char *data = ts_rules_data_dir();
  struct ts_rules_provenance prov;
  ts_rules_in_force(l->bundled, data, &prov);
  free(data);
  enum ts_code rc = ts_rules_load_file_cached(prov.path, l->cache_root, l->builtin, out, err);
  if (rc != TS_OK && prov.updated)
    ts_error_wrap(err, "the rules kept by `torchsolve rules update` (%s); run "
                  "`torchsolve rules update --refresh`, or delete that file",
                  prov.path);
  if (rc == TS_OK)
    (*out)->provenance = prov;
  else
    ts_rules_provenance_clear(&prov);
  return rc;
}

/* The user's rules file, or NULL when neither XDG_CONFIG_HOME nor HOME
 * is set; malloc'd. */
static char *user_rules_path(void) {
  const char *xdg = env("XDG_CONFIG_HOME");
  const char *home = env("HOME");
  if (xdg)
    return ts_path_join(xdg, "torchsolve/rules.yaml");
  return home ? ts_path_join(home, ".config/torchsolve/rules.yaml") : NULL;
}

enum ts_code ts_rules_load_layers(const struct ts_rules_layers *l, struct ts_rules **out,
                                  struct ts_error *err) {
  enum ts_code rc = load_in_force(l, out, err);
  if (rc != TS_OK)
    return rc;
  char *cfg = user_rules_path();
  if (cfg && access(cfg, R_OK) == 0)
    rc = merge_file(*out, cfg, l, err);
  free(cfg);
  for (size_t i = 0; i < l->nfiles && rc == TS_OK; i++)
    rc = merge_file(*out, l->files[i], l, err);
  for (size_t i = 0; i < l->nwithout && rc == TS_OK; i++)
    rc = drop_rules(*out, l->without[i], err);
  if (rc != TS_OK) {
    ts_rules_free(*out);
    *out = NULL;
  }
  return rc;
}
