/* GPU profiles of a fleet lock: see profiles.h. */
#include <stdlib.h>
#include <string.h>

#include "core/alloc.h"
#include "core/buf.h"
#include "core/str.h"
#include "pep/name.h"
#include "lockgen/fleet.h"
#include "lockgen/lock.h"
#include "lockgen/profiles.h"
#include "plan/torch_backend.h"

/* ---- parsing ---------------------------------------------------------- */

void ts_profile_clear(struct ts_profile *p) {
  free(p->name);
  free(p->backend);
  free(p->extra);
  free(p->cc);
  free(p->gfx);
  memset(p, 0, sizeof *p);
}

static char *backend_ids(const struct ts_rules *rules) {
  struct ts_buf b;
  ts_buf_init(&b, 0);
  for (size_t i = 0; i < rules->nbackends; i++)
    ts_buf_xprintf(&b, "%s%s", i ? ", " : "", rules->backends[i].id);
  return ts_buf_take(&b, NULL);
}

/* "6.1,8.9" / "gfx942,gfx90a": a comma list of items made of `chars`. */
static bool list_of(const char *v, const char *chars) {
  if (!*v || *v == ',' || v[strlen(v) - 1] == ',' || strstr(v, ",,"))
    return false;
  return strspn(v, chars) == strlen(v);
}

static enum ts_code parse_fact(const char *text, const char *kv,
                               const struct ts_rules_backend *b, struct ts_profile *out,
                               struct ts_error *err) {
  const char *eq = strchr(kv, '=');
  if (!eq)
    return ts_error_set(err, TS_E_INVALID,
                        "profile '%s': '%s' is not KEY=VALUE (cc=8.9 or gfx=gfx942)", text,
                        kv);
  size_t klen = (size_t)(eq - kv);
  const char *v = eq + 1;
  if (klen == 2 && strncmp(kv, "cc", 2) == 0) {
    if (b->kind != TS_BACKEND_CUDA)
      return ts_error_set(err, TS_E_INVALID, "profile '%s': cc= is for CUDA profiles", text);
    if (!list_of(v, "0123456789.,") || out->cc)
      return ts_error_set(err, TS_E_INVALID,
                          "profile '%s': cc= takes compute capabilities once, "
                          "e.g. cc=6.1,8.9", text);
    out->cc = ts_xstrdup(v);
    return TS_OK;
  }
  if (klen == 3 && strncmp(kv, "gfx", 3) == 0) {
    if (b->kind != TS_BACKEND_ROCM)
      return ts_error_set(err, TS_E_INVALID, "profile '%s': gfx= is for ROCm profiles",
                          text);
    if (!list_of(v, "abcdefgx0123456789,") || strncmp(v, "gfx", 3) != 0 || out->gfx)
      return ts_error_set(err, TS_E_INVALID,
                          "profile '%s': gfx= takes AMD targets once, e.g. gfx=gfx942,gfx90a",
                          text);
    out->gfx = ts_xstrdup(v);
    return TS_OK;
  }
  return ts_error_set(err, TS_E_INVALID, "profile '%s': unknown fact '%.*s' (cc or gfx)",
                      text, (int)klen, kv);
}

/* "mi300x=rocm6.4:gfx=gfx942": the user's name before the first '=' that
 * comes before any ':'; NULL (and *spec = text) when there is none. */
static char *user_name(const char *text, const char **spec) {
  const char *colon = strchr(text, ':');
  const char *eq = strchr(text, '=');
  *spec = text;
  if (!eq || (colon && eq > colon))
    return NULL;
  *spec = eq + 1;
  return ts_xstrndup(text, (size_t)(eq - text));
}

enum ts_code ts_profile_parse(const char *text, const struct ts_rules *rules,
                              struct ts_profile *out, struct ts_error *err) {
  memset(out, 0, sizeof *out);
  const char *whole = text;
  char *label = user_name(whole, &text);
  if (label && !ts_name_is_valid(label, strlen(label))) {
    enum ts_code rc = ts_error_set(err, TS_E_INVALID,
                                   "profile '%s': '%s' is no valid name (letters, digits, "
                                   "'-', '_', '.'; it becomes the profile's extra)",
                                   whole, label);
    free(label);
    return rc;
  }
  const char *colon = strchr(text, ':');
  char *name = colon ? ts_xstrndup(text, (size_t)(colon - text)) : ts_xstrdup(text);
  const struct ts_rules_backend *b = rules ? ts_rules_find_backend(rules, name) : NULL;
  if (!b) {
    char *ids = rules ? backend_ids(rules) : ts_xstrdup("none");
    enum ts_code rc = ts_error_set(err, TS_E_INVALID,
                                   "profile '%s': '%s' is no backend of rules.yaml (%s)",
                                   whole, name, ids);
    free(ids);
    free(name);
    free(label);
    return rc;
  }
  free(name);
  out->backend = ts_xstrdup(b->id);
  out->name = label ? label : ts_xstrdup(b->id);
  out->extra = ts_name_normalize(out->name, strlen(out->name));
  enum ts_code rc = TS_OK;
  char *facts = colon ? ts_xstrdup(colon + 1) : NULL;
  for (char *kv = facts, *next; kv && rc == TS_OK; kv = next) {
    next = strchr(kv, ':');
    if (next)
      *next++ = '\0';
    rc = parse_fact(text, kv, b, out, err);
  }
  free(facts);
  if (rc != TS_OK)
    ts_profile_clear(out);
  return rc;
}

/* ---- the machine a profile stands for --------------------------------- */

enum ts_code ts_profile_host(const struct ts_profile *p, const struct ts_rules *rules,
                             const struct ts_host *base, struct ts_host *out,
                             struct ts_error *err) {
  memset(out, 0, sizeof *out);
  const struct ts_rules_backend *b = ts_rules_find_backend(rules, p->backend);
  if (!b)
    return ts_error_set(err, TS_E_INVALID, "profile '%s': no such backend", p->backend);
  if (base) {
    out->machine = ts_xstrdup(base->machine);
    out->os = ts_xstrdup(base->os);
    out->glibc = ts_xstrdup(base->glibc);
    out->cpu_flags = ts_xstrdup(base->cpu_flags); /* the CPU's variant properties */
  }
  char *source = ts_xasprintf("--profile %s", p->backend);
  enum ts_code rc = ts_torch_backend_host(b, p->cc, p->gfx, source, out, err);
  free(source);
  if (rc != TS_OK) {
    ts_error_wrap(err, "--profile %s", p->backend);
    ts_host_clear(out);
  }
  return rc;
}

/* ---- lock --profile --------------------------------------------------- */

/* Appends "'a' not in extras and 'b' not in extras" for the k names
 * (sorted here), after what b holds. */
static void put_absent(struct ts_buf *b, const char **names, size_t k) {
  qsort(names, k, sizeof *names, ts_strv_cmp);
  for (size_t i = 0; i < k; i++)
    ts_buf_xprintf(b, "%s'%s' not in extras", b->len ? " and " : "", names[i]);
}

/* The marker under which profile `self` applies.  The default's extra
 * selects it whatever else is asked, and so does no profile extra at all:
 * "'cpu' in extras or ('cu126' not in extras and 'rocm6-4' not in
 * extras)", so that an installer asked for every extra (uv's
 * --all-extras) installs the default, not nothing.  Another profile needs
 * its extra and no other profile's, the default's included: "'cu126' in
 * extras and 'cpu' not in extras and 'rocm6-4' not in extras". */
static char *profile_condition(const struct ts_profile *p, size_t n, size_t self) {
  const char **others = ts_xcalloc(n, sizeof *others);
  size_t k = 0;
  for (size_t i = self > 0 ? 0 : 1; i < n; i++)
    if (i != self)
      others[k++] = p[i].extra;
  struct ts_buf b;
  ts_buf_init(&b, 0);
  ts_buf_xprintf(&b, self > 0 ? "'%s' in extras" : "'%s' in extras or ", p[self].extra);
  struct ts_buf absent;
  ts_buf_init(&absent, 0);
  put_absent(&absent, others, k);
  free(others);
  ts_buf_xprintf(&b, self == 0 && k > 1 ? "(%s)" : self > 0 ? " and %s" : "%s",
                 absent.data);
  ts_buf_clear(&absent);
  return ts_buf_take(&b, NULL);
}

/* An entry of the default and one other profile j applies where the
 * default's extra is asked or no profile extra but j's is: the or of
 * their conditions is "'cpu' in extras or 'rocm6-4' not in extras".  NULL
 * for other sets (their or is written as it is). */
static char *simplify_condition(const bool *members, size_t n, void *ctx) {
  const struct ts_profile *p = ctx;
  size_t others = 0;
  for (size_t i = 1; i < n; i++)
    others += members[i];
  if (!members[0] || others != 1 || others == n - 1)
    return NULL; /* (all of them: the merge writes no condition) */
  const char **absent = ts_xcalloc(n, sizeof *absent);
  size_t k = 0;
  for (size_t i = 1; i < n; i++)
    if (!members[i])
      absent[k++] = p[i].extra;
  struct ts_buf rest;
  ts_buf_init(&rest, 0);
  put_absent(&rest, absent, k);
  free(absent);
  struct ts_buf b;
  ts_buf_init(&b, 0);
  ts_buf_xprintf(&b, k > 1 ? "'%s' in extras or (%s)" : "'%s' in extras or %s", p[0].extra,
                 rest.data);
  ts_buf_clear(&rest);
  return ts_buf_take(&b, NULL);
}

/* ":cc=8.9,9.0" or ":gfx=gfx942" from a recorded profile's GPU-target
 * facts ("__cc_8.9"; "__gfx942"): those starting with prefix, skip bytes
 * of it dropped; nothing when it has none. */
static void put_targets(struct ts_buf *b, const struct ts_pylock_profile *p, const char *key,
                        const char *prefix, size_t skip) {
  size_t k = 0;
  for (size_t i = 0; i < p->nhost_facts; i++)
    if (strncmp(p->host_facts[i].key, prefix, strlen(prefix)) == 0)
      ts_buf_xprintf(b, "%s%s", k++ ? "," : key, p->host_facts[i].key + skip);
}

char **ts_profile_args_of_lock(const struct ts_pylock *lock, size_t *n) {
  *n = 0;
  for (size_t i = 0; i < lock->nprofiles; i++)
    if (!lock->profiles[i].backend)
      return NULL;
  if (!lock->nprofiles)
    return NULL;
  char **args = ts_xcalloc(lock->nprofiles, sizeof *args);
  for (size_t i = 0; i < lock->nprofiles; i++) {
    const struct ts_pylock_profile *p = &lock->profiles[i];
    char *own = ts_name_normalize(p->backend, strlen(p->backend));
    struct ts_buf b;
    ts_buf_init(&b, 0);
    if (strcmp(own, p->name) != 0)
      ts_buf_xprintf(&b, "%s=", p->name);
    ts_buf_xprintf(&b, "%s", p->backend);
    free(own);
    static const struct { const char *key, *prefix; size_t skip; } targets[] = {
        {":cc=", "__cc_", 5}, {":gfx=", "__gfx", 2}};
    for (size_t t = 0; t < 2; t++)
      put_targets(&b, p, targets[t].key, targets[t].prefix, targets[t].skip);
    args[(*n)++] = ts_buf_take(&b, NULL);
  }
  return args;
}

/* The lock's own facts of one profile's lock become the profile's. */
static enum ts_code add_profile(struct ts_pylock *fleet, const struct ts_profile *p,
                                const struct ts_pylock *one, struct ts_error *err) {
  struct ts_pylock_profile *pr = ts_pylock_add_profile(fleet, p->extra);
  if (!pr)
    return ts_error_set(err, TS_E_INVALID, "profile '%s' given twice", p->name);
  pr->backend = ts_xstrdup(p->backend);
  enum ts_code rc = TS_OK;
  for (size_t i = 0; i < one->nhost_facts && rc == TS_OK; i++)
    rc = ts_pylock_profile_set_fact(pr, one->host_facts[i].key, one->host_facts[i].value);
  for (size_t i = 0; i < one->nrule_ids && rc == TS_OK; i++)
    rc = ts_pylock_profile_add_rule_id(pr, one->rule_ids[i]);
  return rc == TS_OK ? TS_OK : ts_error_set(err, rc, "out of memory");
}

static char **strv_dup(char *const *v, size_t n) {
  char **c = ts_xcalloc(n, sizeof *c);
  for (size_t i = 0; i < n; i++)
    c[i] = ts_xstrdup(v[i]);
  return c;
}

enum ts_code ts_plan_profiles_merge(const struct ts_profile *p, size_t n,
                                    struct ts_pylock *const *locks, struct ts_pylock **out,
                                    struct ts_error *err) {
  struct ts_fleet_input *in = ts_xcalloc(n, sizeof *in);
  char **conds = ts_xcalloc(n, sizeof *conds);
  for (size_t i = 0; i < n; i++) {
    conds[i] = n > 1 ? profile_condition(p, n, i) : NULL;
    in[i] = (struct ts_fleet_input){locks[i], conds[i]};
  }
  enum ts_code rc = ts_fleet_merge_simplified(in, n, simplify_condition, (void *)p, out, err);
  ts_strv_free(conds, n);
  free(in);
  if (rc != TS_OK)
    return rc;
  struct ts_pylock *f = *out;
  f->requires_python = ts_xstrdup(locks[0]->requires_python);
  f->environments = strv_dup(locks[0]->environments, locks[0]->nenvironments);
  f->nenvironments = locks[0]->nenvironments;
  if (locks[0]->grid)
    ts_pylock_set_grid(f, locks[0]->grid);
  const char **extras = ts_xcalloc(n, sizeof *extras);
  for (size_t i = 0; i < n; i++)
    extras[i] = p[i].extra;
  qsort(extras, n, sizeof *extras, ts_strv_cmp);
  f->extras = strv_dup((char *const *)extras, n);
  f->nextras = n;
  free(extras);
  for (size_t i = 0; i < n && rc == TS_OK; i++)
    rc = add_profile(f, &p[i], locks[i], err);
  if (rc == TS_OK)
    rc = ts_pylock_validate(f, err);
  if (rc != TS_OK) {
    ts_pylock_free(f);
    *out = NULL;
  }
  return rc;
}

enum ts_code ts_profiles_check_distinct(const struct ts_profile *profiles, size_t n,
                                        struct ts_error *err) {
  if (n == 0)
    return ts_error_set(err, TS_E_INVALID, "no profile to lock");
  for (size_t i = 0; i < n; i++)
    for (size_t k = 0; k < i; k++)
      if (strcmp(profiles[i].extra, profiles[k].extra) == 0)
        return ts_error_set(err, TS_E_INVALID,
                            "profile %s given twice: name one of them "
                            "(NAME=%s:gfx=..., e.g. mi300x=rocm6.4:gfx=gfx942)",
                            profiles[i].name, profiles[i].backend);
  return TS_OK;
}

enum ts_code ts_plan_lock_profiles(const struct ts_plan_options *o,
                                   const struct ts_profile *profiles, size_t n,
                                   const char *output, struct ts_plan_profiles *out,
                                   struct ts_error *err) {
  memset(out, 0, sizeof *out);
  enum ts_code rc = ts_profiles_check_distinct(profiles, n, err);
  if (rc != TS_OK)
    return rc;
  out->n = n;
  out->failed = n;
  out->hosts = ts_xcalloc(n, sizeof *out->hosts);
  out->results = ts_xcalloc(n, sizeof *out->results);
  struct ts_pylock **locks = ts_xcalloc(n, sizeof *locks);
  for (size_t i = 0; i < n && rc == TS_OK; i++) {
    if ((rc = ts_profile_host(&profiles[i], o->rules, o->host, &out->hosts[i], err)) != TS_OK)
      break;
    struct ts_plan_options po = *o;
    po.host = &out->hosts[i];
    po.ignore_host = false;
    po.only_backend = profiles[i].backend;
    rc = ts_plan_resolve(&po, &out->results[i], err);
    if (rc == TS_OK)
      rc = ts_plan_to_pylock(out->results[i], output, &locks[i], err);
    if (rc != TS_OK) {
      out->failed = i;
      ts_error_wrap(err, "profile %s", profiles[i].name);
    }
  }
  if (rc == TS_OK)
    rc = ts_plan_profiles_merge(profiles, n, locks, &out->lock, err);
  for (size_t i = 0; i < n; i++)
    ts_pylock_free(locks[i]);
  free(locks);
  return rc;
}

void ts_plan_profiles_clear(struct ts_plan_profiles *p) {
  for (size_t i = 0; p->hosts && i < p->n; i++)
    ts_host_clear(&p->hosts[i]);
  for (size_t i = 0; p->results && i < p->n; i++)
    ts_plan_result_free(p->results[i]);
  free(p->hosts);
  free(p->results);
  ts_pylock_free(p->lock);
  memset(p, 0, sizeof *p);
}
