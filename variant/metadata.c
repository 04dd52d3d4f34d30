/*
 * variant/metadata.c — reading variant metadata JSON (metadata.h).
 */
#include "variant/metadata.h"

#include <cjson/cJSON.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/alloc.h"
#include "core/str.h"
#include "variant/label.h"

/* Namespaces and features: ^[a-z0-9_]+$; values also allow '.'. */
static bool name_ok(const char *s, bool dots)
{
  if (!s || !*s)
    return false;
  for (; *s; s++)
    if (!((*s >= '0' && *s <= '9') || (*s >= 'a' && *s <= 'z') || *s == '_' ||
          (dots && *s == '.')))
      return false;
  return true;
}

static void feature_clear(struct ts_variant_feature *f)
{
  free(f->ns);
  free(f->feature);
  ts_strv_free(f->values, f->nvalues);
}

static void features_free(struct ts_variant_feature *f, size_t n)
{
  for (size_t i = 0; i < n; i++)
    feature_clear(&f[i]);
  free(f);
}

void ts_variant_metadata_clear(struct ts_variant_metadata *m)
{
  free(m->schema_url);
  ts_strv_free(m->namespaces, m->nnamespaces);
  features_free(m->feature_priority, m->nfeature_priority);
  features_free(m->property_priority, m->nproperty_priority);
  for (size_t i = 0; i < m->nproviders; i++)
    free(m->providers[i].ns);
  free(m->providers);
  features_free(m->static_properties, m->nstatic_properties);
  for (size_t i = 0; i < m->nvariants; i++) {
    free(m->variants[i].label);
    features_free(m->variants[i].features, m->variants[i].nfeatures);
  }
  free(m->variants);
  memset(m, 0, sizeof *m);
}

struct reader {
  const char *what;
  struct ts_error *err;
};

__attribute__((format(printf, 2, 3)))
static enum ts_code bad(struct reader *r, const char *fmt, ...)
{
  char why[256];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(why, sizeof why, fmt, ap);
  va_end(ap);
  return ts_error_set(r->err, TS_E_PARSE, "variant metadata %s: %s", r->what, why);
}

/* A JSON array of strings into a fresh list; each checked with name_ok. */
static enum ts_code read_strings(struct reader *r, const cJSON *arr, bool dots,
                                 const char *where, char ***out, size_t *n)
{
  *out = NULL;
  *n = 0;
  if (!cJSON_IsArray(arr))
    return bad(r, "%s must be a list of strings", where);
  size_t cap = (size_t)cJSON_GetArraySize(arr);
  *out = ts_xcalloc(cap ? cap : 1, sizeof **out);
  const cJSON *it;
  cJSON_ArrayForEach(it, arr) {
    if (!cJSON_IsString(it) || !name_ok(it->valuestring, dots))
      return bad(r, "%s holds '%s', which is no valid name", where,
                 cJSON_IsString(it) ? it->valuestring : "(not a string)");
    for (size_t i = 0; i < *n; i++)
      if (strcmp((*out)[i], it->valuestring) == 0)
        return bad(r, "%s lists '%s' twice", where, it->valuestring);
    (*out)[(*n)++] = ts_xstrdup(it->valuestring);
  }
  return TS_OK;
}

static struct ts_variant_feature *push_feature(struct ts_variant_feature **arr, size_t *n,
                                               const char *ns, const char *feature)
{
  *arr = ts_xreallocarray(*arr, *n + 1, sizeof **arr);
  struct ts_variant_feature *f = &(*arr)[(*n)++];
  memset(f, 0, sizeof *f);
  f->ns = ts_xstrdup(ns);
  f->feature = ts_xstrdup(feature);
  return f;
}

/* { ns: { feature: [values] } } appended to *arr. */
static enum ts_code read_ns_features(struct reader *r, const cJSON *obj, const char *where,
                                     struct ts_variant_feature **arr, size_t *n)
{
  if (!cJSON_IsObject(obj))
    return bad(r, "%s must be an object", where);
  const cJSON *ns;
  cJSON_ArrayForEach(ns, obj) {
    if (!name_ok(ns->string, false) || !cJSON_IsObject(ns))
      return bad(r, "%s: namespace '%s' is no valid name or holds no object", where,
                 ns->string);
    const cJSON *feat;
    cJSON_ArrayForEach(feat, ns) {
      if (!name_ok(feat->string, false))
        return bad(r, "%s: feature '%s' is no valid name", where, feat->string);
      struct ts_variant_feature *f = push_feature(arr, n, ns->string, feat->string);
      enum ts_code rc = read_strings(r, feat, true, where, &f->values, &f->nvalues);
      if (rc != TS_OK)
        return rc;
    }
  }
  return TS_OK;
}

static int feature_cmp(const void *a, const void *b)
{
  const struct ts_variant_feature *x = a, *y = b;
  int c = strcmp(x->ns, y->ns);
  return c ? c : strcmp(x->feature, y->feature);
}

static int entry_cmp(const void *a, const void *b)
{
  return strcmp(((const struct ts_variant_entry *)a)->label,
                ((const struct ts_variant_entry *)b)->label);
}

static enum ts_code read_variants(struct reader *r, const cJSON *obj,
                                  struct ts_variant_metadata *m)
{
  if (!cJSON_IsObject(obj))
    return bad(r, "'variants' must be an object of labels");
  size_t cap = (size_t)cJSON_GetArraySize(obj);
  m->variants = ts_xcalloc(cap ? cap : 1, sizeof *m->variants);
  const cJSON *v;
  cJSON_ArrayForEach(v, obj) {
    if (!ts_variant_label_valid(v->string, strlen(v->string)))
      return bad(r, "variant label '%s' is not of [0-9a-z_.]", v->string);
    struct ts_variant_entry *e = &m->variants[m->nvariants++];
    e->label = ts_xstrdup(v->string);
    enum ts_code rc = read_ns_features(r, v, "a variant's properties", &e->features,
                                       &e->nfeatures);
    if (rc != TS_OK)
      return rc;
    for (size_t i = 0; i < e->nfeatures; i++)
      if (!e->features[i].nvalues)
        return bad(r, "variant '%s': feature '%s' has no value", e->label,
                   e->features[i].feature);
    if (e->nfeatures > 1)
      qsort(e->features, e->nfeatures, sizeof *e->features, feature_cmp);
  }
  qsort(m->variants, m->nvariants, sizeof *m->variants, entry_cmp);
  for (size_t i = 1; i < m->nvariants; i++)
    if (strcmp(m->variants[i - 1].label, m->variants[i].label) == 0)
      return bad(r, "variant label '%s' appears twice", m->variants[i].label);
  return TS_OK;
}

/* default-priorities: namespace (required), and variantlib's feature
 * ({ns: [features]}) and property ({ns: {feature: [values]}}). */
static enum ts_code read_priorities(struct reader *r, const cJSON *obj,
                                    struct ts_variant_metadata *m)
{
  if (!cJSON_IsObject(obj))
    return bad(r, "'default-priorities' must be an object");
  enum ts_code rc = read_strings(r, cJSON_GetObjectItemCaseSensitive(obj, "namespace"), false,
                                 "default-priorities.namespace", &m->namespaces,
                                 &m->nnamespaces);
  if (rc != TS_OK)
    return rc;
  const cJSON *feat = cJSON_GetObjectItemCaseSensitive(obj, "feature");
  if (feat) {
    if (!cJSON_IsObject(feat))
      return bad(r, "default-priorities.feature must be an object");
    const cJSON *ns;
    cJSON_ArrayForEach(ns, feat) {
      char **names = NULL;
      size_t n = 0;
      if (!name_ok(ns->string, false))
        return bad(r, "default-priorities.feature: '%s' is no namespace", ns->string);
      rc = read_strings(r, ns, false, "default-priorities.feature", &names, &n);
      for (size_t i = 0; i < n; i++) {
        push_feature(&m->feature_priority, &m->nfeature_priority, ns->string, names[i]);
        free(names[i]);
      }
      free(names);
      if (rc != TS_OK)
        return rc;
    }
  }
  const cJSON *prop = cJSON_GetObjectItemCaseSensitive(obj, "property");
  if (prop)
    return read_ns_features(r, prop, "default-priorities.property", &m->property_priority,
                            &m->nproperty_priority);
  return TS_OK;
}

static enum ts_code read_providers(struct reader *r, const cJSON *obj,
                                   struct ts_variant_metadata *m)
{
  if (!cJSON_IsObject(obj))
    return bad(r, "'providers' must be an object");
  size_t cap = (size_t)cJSON_GetArraySize(obj);
  m->providers = ts_xcalloc(cap ? cap : 1, sizeof *m->providers);
  const cJSON *p;
  cJSON_ArrayForEach(p, obj) {
    if (!name_ok(p->string, false) || !cJSON_IsObject(p))
      return bad(r, "provider '%s' is no valid namespace or holds no object", p->string);
    const cJSON *it = cJSON_GetObjectItemCaseSensitive(p, "install-time");
    const cJSON *opt = cJSON_GetObjectItemCaseSensitive(p, "optional");
    if ((it && !cJSON_IsBool(it)) || (opt && !cJSON_IsBool(opt)))
      return bad(r, "provider '%s': install-time and optional must be booleans", p->string);
    struct ts_variant_provider_info *pi = &m->providers[m->nproviders++];
    pi->ns = ts_xstrdup(p->string);
    pi->install_time = !it || cJSON_IsTrue(it);
    pi->optional = opt && cJSON_IsTrue(opt);
  }
  return TS_OK;
}

/* "$schema" → the schema, from the version after its last "/v":
 * 0.0.x variantlib, 0.1.x PEP 825; a URL without a version is judged by
 * whether the file has a providers table. */
static enum ts_code read_schema(struct reader *r, const cJSON *root,
                                struct ts_variant_metadata *m)
{
  const cJSON *s = cJSON_GetObjectItemCaseSensitive(root, "$schema");
  bool has_providers = cJSON_GetObjectItemCaseSensitive(root, "providers") != NULL;
  m->schema = has_providers ? TS_VARIANT_SCHEMA_VARIANTLIB : TS_VARIANT_SCHEMA_PEP825;
  if (!s)
    return TS_OK;
  if (!cJSON_IsString(s))
    return bad(r, "'$schema' must be a string");
  m->schema_url = ts_xstrdup(s->valuestring);
  const char *v = strstr(s->valuestring, "/v");
  for (const char *next = v; next; next = strstr(next + 2, "/v"))
    v = next;
  if (!v || v[2] < '0' || v[2] > '9')
    return TS_OK;
  unsigned major = 0, minor = 0;
  if (sscanf(v + 2, "%u.%u", &major, &minor) != 2)
    return bad(r, "'$schema' %s names no version", s->valuestring);
  if (major == 0 && minor == 0)
    m->schema = TS_VARIANT_SCHEMA_VARIANTLIB;
  else if (major == 0 && minor == 1)
    m->schema = TS_VARIANT_SCHEMA_PEP825;
  else
    return ts_error_set(r->err, TS_E_UNSUPPORTED,
                        "variant metadata %s: schema %s is of a version torchsolve does not "
                        "read (it reads PEP 825 v0.1 and variantlib v0.0)",
                        r->what, s->valuestring);
  return TS_OK;
}

enum ts_code ts_variant_metadata_parse(const char *data, size_t len, const char *what,
                                       struct ts_variant_metadata *out,
                                       struct ts_error *err)
{
  memset(out, 0, sizeof *out);
  struct reader r = {what, err};
  cJSON *root = cJSON_ParseWithLength(data, len);
  if (!root || !cJSON_IsObject(root)) {
    cJSON_Delete(root);
    return ts_error_set(err, TS_E_PARSE, "variant metadata %s is not a JSON object", what);
  }
  enum ts_code rc = read_schema(&r, root, out);
  if (rc == TS_OK)
    rc = read_priorities(&r, cJSON_GetObjectItemCaseSensitive(root, "default-priorities"), out);
  const cJSON *providers = cJSON_GetObjectItemCaseSensitive(root, "providers");
  if (rc == TS_OK && providers)
    rc = read_providers(&r, providers, out);
  const cJSON *statics = cJSON_GetObjectItemCaseSensitive(root, "static-properties");
  if (rc == TS_OK && statics)
    rc = read_ns_features(&r, statics, "static-properties", &out->static_properties,
                          &out->nstatic_properties);
  if (rc == TS_OK)
    rc = read_variants(&r, cJSON_GetObjectItemCaseSensitive(root, "variants"), out);
  cJSON_Delete(root);
  return rc;
}

const struct ts_variant_entry *ts_variant_metadata_find(const struct ts_variant_metadata *m,
                                                        const char *label)
{
  struct ts_variant_entry key = {.label = (char *)label};
  return m->nvariants ? bsearch(&key, m->variants, m->nvariants, sizeof key, entry_cmp) : NULL;
}

const struct ts_variant_provider_info *
ts_variant_metadata_provider(const struct ts_variant_metadata *m, const char *ns)
{
  for (size_t i = 0; i < m->nproviders; i++)
    if (strcmp(m->providers[i].ns, ns) == 0)
      return &m->providers[i];
  return NULL;
}

static void entry_clear(struct ts_variant_entry *e)
{
  free(e->label);
  features_free(e->features, e->nfeatures);
  memset(e, 0, sizeof *e);
}

bool ts_variant_metadata_keep_only(struct ts_variant_metadata *m, const char *label)
{
  size_t k = 0;
  for (size_t i = 0; i < m->nvariants; i++) {
    if (strcmp(m->variants[i].label, label) != 0)
      entry_clear(&m->variants[i]);
    else
      m->variants[k++] = m->variants[i];
  }
  m->nvariants = k;
  return k == 1;
}

void ts_variant_metadata_adopt(struct ts_variant_metadata *into,
                               struct ts_variant_metadata *from)
{
  for (size_t i = 0; i < from->nvariants; i++) {
    if (ts_variant_metadata_find(into, from->variants[i].label)) {
      entry_clear(&from->variants[i]);
      continue;
    }
    into->variants = ts_xreallocarray(into->variants, into->nvariants + 1,
                                      sizeof *into->variants);
    into->variants[into->nvariants++] = from->variants[i];
    qsort(into->variants, into->nvariants, sizeof *into->variants, entry_cmp);
  }
  from->nvariants = 0;
  ts_variant_metadata_clear(from);
}
