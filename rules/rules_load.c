/*
 * rules_load.c — rules.yaml → struct ts_rules, validating as it goes.
 *
 * libyaml's document API keeps a start mark per node, so every problem is
 * reported at its line:column.  Problems are collected (not just the first)
 * so that `torchsolve rules check` lists them all; loading fails if any.
 * Unknown keys are errors: a typo ("driver_mni") would otherwise silently
 * drop a floor.
 */
#include <ctype.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <yaml.h>

#include "core/buf.h"
#include "core/fs.h"
#include "core/str.h"
#include "pep/name.h"
#include "pep/specifier.h"
#include "pep/version.h"
#include "rules/rules.h"
#include "rules/rules_internal.h"

#define MAX_DIAGS 200

struct loader {
  yaml_document_t *doc;
  const char *file;
  struct ts_rules_diags *diags;
  struct ts_error *err;
  size_t nerrors;
};

static void diag_at(struct loader *L, unsigned line, unsigned col,
                    const char *fmt, ...) __attribute__((format(printf, 4, 5)));

static void diag_at(struct loader *L, unsigned line, unsigned col,
                    const char *fmt, ...) {
  char msg[512];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(msg, sizeof msg, fmt, ap);
  va_end(ap);
  if (L->nerrors == 0)
    ts_error_set(L->err, TS_E_RULES, "%s:%u:%u: %s", L->file, line, col, msg);
  L->nerrors++;
  if (!L->diags || L->diags->n >= MAX_DIAGS)
    return;
  L->diags->items = ts_xrealloc(L->diags->items,
                                   (L->diags->n + 1) * sizeof *L->diags->items);
  struct ts_rules_diag *d = &L->diags->items[L->diags->n++];
  d->file = ts_xstrdup(L->file ? L->file : "");
  d->line = line;
  d->column = col;
  d->message = ts_xstrdup(msg);
}

#define DIAG(L, node, ...)                                              \
  diag_at((L), (unsigned)(node)->start_mark.line + 1,                   \
          (unsigned)(node)->start_mark.column + 1, __VA_ARGS__)

static yaml_node_t *node_at(struct loader *L, int id) {
  return yaml_document_get_node(L->doc, id);
}

/* The scalar's text, or NULL (with a diagnostic) when it is not a scalar
 * or holds a NUL byte. */
static const char *scalar(struct loader *L, yaml_node_t *n, const char *what) {
  if (!n || n->type != YAML_SCALAR_NODE) {
    if (n)
      DIAG(L, n, "%s must be a string", what);
    return NULL;
  }
  const char *v = (const char *)n->data.scalar.value;
  if (strlen(v) != n->data.scalar.length) {
    DIAG(L, n, "%s contains a NUL byte", what);
    return NULL;
  }
  return v;
}

static bool is_map(struct loader *L, yaml_node_t *n, const char *what) {
  if (n && n->type == YAML_MAPPING_NODE)
    return true;
  if (n)
    DIAG(L, n, "%s must be a mapping", what);
  return false;
}

static bool is_seq(struct loader *L, yaml_node_t *n, const char *what) {
  if (n && n->type == YAML_SEQUENCE_NODE)
    return true;
  if (n)
    DIAG(L, n, "%s must be a list", what);
  return false;
}

/* Checks every key of a mapping against `allowed` (NULL-terminated) and
 * against duplicates. */
static void check_keys(struct loader *L, yaml_node_t *map,
                       const char *const *allowed, const char *what) {
  yaml_node_pair_t *b = map->data.mapping.pairs.start;
  yaml_node_pair_t *e = map->data.mapping.pairs.top;
  for (yaml_node_pair_t *p = b; p < e; p++) {
    yaml_node_t *k = node_at(L, p->key);
    const char *ks = scalar(L, k, "a key");
    if (!ks)
      continue;
    bool ok = allowed == NULL;
    for (size_t i = 0; allowed && allowed[i]; i++)
      if (strcmp(allowed[i], ks) == 0)
        ok = true;
    if (!ok)
      DIAG(L, k, "unknown key '%s' in %s", ks, what);
    for (yaml_node_pair_t *q = b; q < p; q++) {
      yaml_node_t *k2 = node_at(L, q->key);
      if (k2 && k2->type == YAML_SCALAR_NODE &&
          strcmp((const char *)k2->data.scalar.value, ks) == 0)
        DIAG(L, k, "duplicate key '%s' in %s", ks, what);
    }
  }
}

static yaml_node_t *get(struct loader *L, yaml_node_t *map, const char *key) {
  if (!map || map->type != YAML_MAPPING_NODE)
    return NULL;
  for (yaml_node_pair_t *p = map->data.mapping.pairs.start;
       p < map->data.mapping.pairs.top; p++) {
    yaml_node_t *k = node_at(L, p->key);
    if (k && k->type == YAML_SCALAR_NODE &&
        strcmp((const char *)k->data.scalar.value, key) == 0)
      return node_at(L, p->value);
  }
  return NULL;
}

/* Owned copy of map[key]; NULL when absent (diagnosed when required). */
static char *get_str(struct loader *L, yaml_node_t *map, const char *key,
                     bool required, const char *what) {
  yaml_node_t *n = get(L, map, key);
  if (!n) {
    if (required)
      DIAG(L, map, "%s: missing '%s'", what, key);
    return NULL;
  }
  char label[160];
  snprintf(label, sizeof label, "%s: '%s'", what, key);
  const char *v = scalar(L, n, label);
  return v ? ts_xstrdup(v) : NULL;
}

static bool dotted_version(const char *s) {
  if (!s || !isdigit((unsigned char)*s))
    return false;
  for (const char *p = s; *p; p++)
    if (!isdigit((unsigned char)*p) && !(*p == '.' && isdigit((unsigned char)p[1])))
      return false;
  return true;
}

static bool ident_ok(const char *s, bool allow_upper) {
  if (!s || !*s || strlen(s) > TS_RULES_ID_MAX)
    return false;
  for (const char *p = s; *p; p++)
    if (!(islower((unsigned char)*p) || isdigit((unsigned char)*p) ||
          *p == '.' || *p == '-' || *p == '_' ||
          (allow_upper && isupper((unsigned char)*p))))
      return false;
  return true;
}

static void check_url(struct loader *L, yaml_node_t *map, const char *url,
                      const char *what) {
  if (url && strncmp(url, "https://", 8) != 0 && strncmp(url, "http://", 7) != 0)
    DIAG(L, get(L, map, "source"), "%s: source must be an http(s) URL", what);
}

static char *get_confidence_key(struct loader *L, yaml_node_t *map,
                                 const char *key, const char *what) {
  char *c = get_str(L, map, key, false, what);
  if (c && strcmp(c, "low") != 0 && strcmp(c, "medium") != 0 &&
      strcmp(c, "high") != 0)
    DIAG(L, get(L, map, key), "%s: %s must be low, medium or high", what, key);
  return c;
}

static char *get_confidence(struct loader *L, yaml_node_t *map,
                            const char *what) {
  return get_confidence_key(L, map, "confidence", what);
}

/* A list of strings (or one string when allow_one). */
static char **get_strlist(struct loader *L, yaml_node_t *n, size_t *count,
                          bool allow_one, const char *what) {
  *count = 0;
  if (!n)
    return NULL;
  if (allow_one && n->type == YAML_SCALAR_NODE) {
    const char *v = scalar(L, n, what);
    if (!v)
      return NULL;
    char **out = ts_xrealloc(NULL, sizeof *out);
    out[0] = ts_xstrdup(v);
    *count = 1;
    return out;
  }
  if (!is_seq(L, n, what))
    return NULL;
  char **out = NULL;
  for (yaml_node_item_t *it = n->data.sequence.items.start;
       it < n->data.sequence.items.top; it++) {
    const char *v = scalar(L, node_at(L, *it), what);
    if (!v)
      continue;
    out = ts_xrealloc(out, (*count + 1) * sizeof *out);
    out[(*count)++] = ts_xstrdup(v);
  }
  return out;
}

/* `evidence`: URLs that corroborate the entry's `source` (for readers and
 * the next audit; nothing is derived from them).  Checked, not kept. */
static void check_evidence(struct loader *L, yaml_node_t *map, const char *what) {
  yaml_node_t *ev = get(L, map, "evidence");
  size_t ne = 0;
  char **e = get_strlist(L, ev, &ne, true, "evidence");
  for (size_t i = 0; i < ne; i++) {
    if (strncmp(e[i], "https://", 8) != 0 && strncmp(e[i], "http://", 7) != 0)
      DIAG(L, ev, "%s: evidence '%s' must be an http(s) URL", what, e[i]);
    free(e[i]);
  }
  free(e);
}

static void check_gfx_list(struct loader *L, yaml_node_t *n, char **gfx,
                           size_t ngfx, const char *what) {
  for (size_t i = 0; i < ngfx; i++) {
    bool ok = strncmp(gfx[i], "gfx", 3) == 0 && strlen(gfx[i]) >= 6 &&
              strlen(gfx[i]) <= 12;
    for (const char *p = gfx[i] + 3; ok && *p; p++)
      ok = isxdigit((unsigned char)*p) && !isupper((unsigned char)*p);
    if (!ok)
      DIAG(L, n, "%s: '%s' is not a gfx target like gfx1100", what, gfx[i]);
  }
}

/* ---- backends --------------------------------------------------------- */

static void load_backend(struct loader *L, yaml_node_t *n,
                         struct ts_rules_backend *b) {
  static const char *const keys[] = {"id", "kind", "cuda", "rocm", "index",
                                     "driver_min", "driver_toolkit", "gfx",
                                     "source", "evidence", "confidence", NULL};
  memset(b, 0, sizeof *b);
  if (!is_map(L, n, "a backend"))
    return;
  check_keys(L, n, keys, "a backend");
  b->id = get_str(L, n, "id", true, "backend");
  char what[160];
  snprintf(what, sizeof what, "backend '%s'", b->id ? b->id : "?");
  if (b->id && !ident_ok(b->id, false))
    DIAG(L, get(L, n, "id"), "%s: id must be lowercase letters, digits and dots", what);
  char *kind = get_str(L, n, "kind", true, what);
  if (kind) {
    if (strcmp(kind, "cpu") == 0)
      b->kind = TS_BACKEND_CPU;
    else if (strcmp(kind, "cuda") == 0)
      b->kind = TS_BACKEND_CUDA;
    else if (strcmp(kind, "rocm") == 0)
      b->kind = TS_BACKEND_ROCM;
    else if (strcmp(kind, "xpu") == 0)
      b->kind = TS_BACKEND_XPU;
    else
      DIAG(L, get(L, n, "kind"), "%s: kind must be cpu, cuda, rocm or xpu", what);
  }
  free(kind);
  b->index = get_str(L, n, "index", false, what);
  if (!b->index && b->id)
    b->index = ts_xstrdup(b->id);
  b->source = get_str(L, n, "source", true, what);
  check_url(L, n, b->source, what);
  b->confidence = get_confidence(L, n, what);
  check_evidence(L, n, what);
  if (b->kind == TS_BACKEND_CUDA) {
    b->version = get_str(L, n, "cuda", true, what);
    b->driver_min = get_str(L, n, "driver_min", true, what);
    b->driver_toolkit = get_str(L, n, "driver_toolkit", false, what);
    if (b->version && !dotted_version(b->version))
      DIAG(L, get(L, n, "cuda"), "%s: cuda must be a version like 12.6", what);
    if (b->driver_min && !dotted_version(b->driver_min))
      DIAG(L, get(L, n, "driver_min"), "%s: driver_min must be a version like 525.60.13", what);
    if (b->driver_toolkit && !dotted_version(b->driver_toolkit))
      DIAG(L, get(L, n, "driver_toolkit"), "%s: driver_toolkit must be a version", what);
  } else if (get(L, n, "cuda") || get(L, n, "driver_min")) {
    DIAG(L, n, "%s: cuda/driver_min belong to cuda backends", what);
  }
  if (b->kind == TS_BACKEND_ROCM) {
    b->version = get_str(L, n, "rocm", true, what);
    if (b->version && !dotted_version(b->version))
      DIAG(L, get(L, n, "rocm"), "%s: rocm must be a version like 6.2.4", what);
    yaml_node_t *g = get(L, n, "gfx");
    if (!g)
      DIAG(L, n, "%s: missing 'gfx'", what);
    b->gfx = get_strlist(L, g, &b->ngfx, false, "gfx");
    check_gfx_list(L, g, b->gfx, b->ngfx, what);
  } else if (get(L, n, "gfx") || get(L, n, "rocm")) {
    DIAG(L, n, "%s: rocm/gfx belong to rocm backends", what);
  }
}

/* ---- releases --------------------------------------------------------- */

static void load_archs(struct loader *L, yaml_node_t *n, const char *text,
                       struct ts_rules_variant *v, const char *what) {
  const char *p = text;
  while (*p) {
    const char *e = strchr(p, ';');
    size_t len = e ? (size_t)(e - p) : strlen(p);
    char tmp[32];
    if (len == 0 || len >= sizeof tmp) {
      DIAG(L, n, "%s: archs must look like \"7.5;8.0;12.0+PTX\"", what);
      return;
    }
    memcpy(tmp, p, len);
    tmp[len] = '\0';
    bool ptx = false;
    char *plus = strchr(tmp, '+');
    if (plus) {
      if (strcmp(plus, "+PTX") != 0) {
        DIAG(L, n, "%s: '%s': only +PTX may follow a capability", what, tmp);
        return;
      }
      *plus = '\0';
      ptx = true;
    }
    if (!dotted_version(tmp) || !strchr(tmp, '.')) {
      DIAG(L, n, "%s: '%s' is not a compute capability like 8.6", what, tmp);
      return;
    }
    v->archs = ts_xrealloc(v->archs, (v->narchs + 1) * sizeof *v->archs);
    v->archs[v->narchs].cc = ts_xstrdup(tmp);
    v->archs[v->narchs].ptx = ptx;
    v->narchs++;
    p = e ? e + 1 : p + len;
  }
}

static bool version_ok(struct loader *L, yaml_node_t *n, const char *s,
                       const char *what) {
  struct ts_version *v = NULL;
  struct ts_error e = {0};
  if (ts_version_parse(s, strlen(s), &v, &e) != TS_OK) {
    DIAG(L, n, "%s: '%s' is not a PEP 440 version", what, s);
    return false;
  }
  ts_version_free(v);
  return true;
}

/* A `variants:` mapping (a release's, or one of its platforms'). */
static void load_variants(struct loader *L, yaml_node_t *vars,
                          struct ts_rules_variant **out, size_t *nout,
                          const char *what) {
  if (!is_map(L, vars, "variants"))
    return;
  check_keys(L, vars, NULL, "variants");
  for (yaml_node_pair_t *p = vars->data.mapping.pairs.start;
       p < vars->data.mapping.pairs.top; p++) {
    const char *id = scalar(L, node_at(L, p->key), "a variant name");
    yaml_node_t *val = node_at(L, p->value);
    if (!id)
      continue;
    *out = ts_xrealloc(*out, (*nout + 1) * sizeof **out);
    struct ts_rules_variant *v = &(*out)[(*nout)++];
    memset(v, 0, sizeof *v);
    v->backend = ts_xstrdup(id);
    char vw[240];
    snprintf(vw, sizeof vw, "%s variant '%s'", what, id);
    if (val && val->type == YAML_SCALAR_NODE && val->data.scalar.length == 0)
      continue; /* "cpu:" with nothing */
    if (!is_map(L, val, vw))
      continue;
    static const char *const vkeys[] = {"archs", "gfx", "driver_toolkit",
                                        "source", "evidence", "confidence", NULL};
    check_keys(L, val, vkeys, vw);
    char *archs = get_str(L, val, "archs", false, vw);
    if (archs)
      load_archs(L, get(L, val, "archs"), archs, v, vw);
    free(archs);
    yaml_node_t *g = get(L, val, "gfx");
    if (g) {
      v->gfx = get_strlist(L, g, &v->ngfx, false, "gfx");
      v->has_gfx = true;
      check_gfx_list(L, g, v->gfx, v->ngfx, vw);
    }
    v->driver_toolkit = get_str(L, val, "driver_toolkit", false, vw);
    if (v->driver_toolkit && !dotted_version(v->driver_toolkit))
      DIAG(L, get(L, val, "driver_toolkit"), "%s: driver_toolkit must be a version", vw);
    v->source = get_str(L, val, "source", false, vw);
    check_url(L, val, v->source, vw);
    v->confidence = get_confidence(L, val, vw);
    check_evidence(L, val, vw);
  }
}

/* The 'variants' that a release (or one of its platforms) must have. */
static void load_required_variants(struct loader *L, yaml_node_t *parent,
                                   struct ts_rules_variant **out, size_t *nout,
                                   const char *what) {
  yaml_node_t *vars = get(L, parent, "variants");
  if (!vars)
    DIAG(L, parent, "%s: missing 'variants'", what);
  else
    load_variants(L, vars, out, nout, what);
}

static void load_release(struct loader *L, yaml_node_t *n,
                         struct ts_rules_release *r) {
  static const char *const keys[] = {"series", "versions", "variants",
                                     "platforms", "paired", "source",
                                     "confidence", "status", "pypi_default",
                                     "pypi_source", NULL};
  memset(r, 0, sizeof *r);
  if (!is_map(L, n, "a release"))
    return;
  check_keys(L, n, keys, "a release");
  r->series = get_str(L, n, "series", true, "release");
  char what[160];
  snprintf(what, sizeof what, "release '%s'", r->series ? r->series : "?");
  if (r->series && (!dotted_version(r->series) || !strchr(r->series, '.')))
    DIAG(L, get(L, n, "series"), "%s: series must be like \"2.13\"", what);
  r->source = get_str(L, n, "source", true, what);
  check_url(L, n, r->source, what);
  r->confidence = get_confidence(L, n, what);
  r->pypi_default = get_str(L, n, "pypi_default", false, what);
  r->pypi_source = get_str(L, n, "pypi_source", false, what);
  if (r->pypi_source && strncmp(r->pypi_source, "http", 4) != 0)
    DIAG(L, get(L, n, "pypi_source"), "%s: pypi_source must be an http(s) URL", what);
  yaml_node_t *vers = get(L, n, "versions");
  if (!vers)
    DIAG(L, n, "%s: missing 'versions'", what);
  r->versions = get_strlist(L, vers, &r->nversions, false, "versions");
  for (size_t i = 0; i < r->nversions; i++)
    if (version_ok(L, vers, r->versions[i], what) && r->series) {
      size_t sl = strlen(r->series);
      if (strncmp(r->versions[i], r->series, sl) != 0 ||
          r->versions[i][sl] != '.')
        DIAG(L, vers, "%s: version '%s' is not in the series", what,
             r->versions[i]);
    }
  load_required_variants(L, n, &r->variants, &r->nvariants, what);
  yaml_node_t *plats = get(L, n, "platforms");
  if (plats && is_map(L, plats, "platforms")) {
    check_keys(L, plats, NULL, "platforms");
    for (yaml_node_pair_t *p = plats->data.mapping.pairs.start;
         p < plats->data.mapping.pairs.top; p++) {
      const char *machine = scalar(L, node_at(L, p->key), "a machine");
      yaml_node_t *val = node_at(L, p->value);
      char pw[200];
      snprintf(pw, sizeof pw, "%s platform '%s'", what, machine ? machine : "?");
      if (!machine || !is_map(L, val, pw))
        continue;
      if (strcmp(machine, "x86_64") == 0)
        DIAG(L, node_at(L, p->key), "%s: x86_64 is the release's own 'variants'", pw);
      static const char *const pkeys[] = {"variants", "pypi_default", "source", NULL};
      check_keys(L, val, pkeys, pw);
      r->platforms = ts_xrealloc(r->platforms,
                                    (r->nplatforms + 1) * sizeof *r->platforms);
      struct ts_rules_platform *pl = &r->platforms[r->nplatforms++];
      memset(pl, 0, sizeof *pl);
      pl->machine = ts_xstrdup(machine);
      pl->pypi_default = get_str(L, val, "pypi_default", false, pw);
      pl->source = get_str(L, val, "source", true, pw);
      check_url(L, val, pl->source, pw);
      load_required_variants(L, val, &pl->variants, &pl->nvariants, pw);
    }
  }
  yaml_node_t *paired = get(L, n, "paired");
  if (paired && is_map(L, paired, "paired")) {
    check_keys(L, paired, NULL, "paired");
    for (yaml_node_pair_t *p = paired->data.mapping.pairs.start;
         p < paired->data.mapping.pairs.top; p++) {
      yaml_node_t *k = node_at(L, p->key);
      const char *tv = scalar(L, k, "a torch version");
      yaml_node_t *val = node_at(L, p->value);
      if (!tv || !is_map(L, val, "a pairing"))
        continue;
      static const char *const pkeys[] = {"torchvision", "torchaudio", NULL};
      check_keys(L, val, pkeys, "a pairing");
      bool listed = false;
      for (size_t i = 0; i < r->nversions; i++)
        listed |= strcmp(r->versions[i], tv) == 0;
      if (!listed)
        DIAG(L, k, "%s: paired version '%s' is not in versions", what, tv);
      r->pairs = ts_xrealloc(r->pairs, (r->npairs + 1) * sizeof *r->pairs);
      struct ts_rules_pair *pr = &r->pairs[r->npairs++];
      pr->torch = ts_xstrdup(tv);
      pr->torchvision = get_str(L, val, "torchvision", true, "pairing");
      pr->torchaudio = get_str(L, val, "torchaudio", false, "pairing");
      if (pr->torchvision)
        version_ok(L, val, pr->torchvision, what);
      if (pr->torchaudio)
        version_ok(L, val, pr->torchaudio, what);
    }
  }
}

/* ---- rules ------------------------------------------------------------ */

static void term_free(struct ts_rules_term *t) {
  free(t->name);
  free(t->spec);
  free(t->local);
  memset(t, 0, sizeof *t);
}

/* "name<spec>" → name, spec.  Host facts keep their name verbatim; project
 * names are normalised (PEP 503). */
static bool split_term(struct loader *L, yaml_node_t *n, const char *text,
                       struct ts_rules_term *t) {
  size_t i = 0;
  while (text[i] && (isalnum((unsigned char)text[i]) || text[i] == '_' ||
                     text[i] == '-' || text[i] == '.'))
    i++;
  if (i == 0) {
    DIAG(L, n, "'%s' does not start with a project or fact name", text);
    return false;
  }
  if (text[0] == '_' && text[1] == '_')
    t->name = ts_xstrndup(text, i);
  else
    t->name = ts_name_normalize(text, i);
  const char *rest = text + i;
  while (*rest == ' ')
    rest++;
  t->spec = *rest ? ts_xstrdup(rest) : NULL;
  if (t->spec) {
    struct ts_specset *s = NULL;
    struct ts_error e = {0};
    if (ts_specset_parse(t->spec, strlen(t->spec), &s, &e) != TS_OK) {
      DIAG(L, n, "'%s': %s", text, e.detail);
      term_free(t);
      return false;
    }
    ts_specset_free(s);
  }
  return true;
}

/* A term is "name<spec>" or {name, version, local}; `locals` receives the
 * local patterns of the mapping form (a list allowed when want_locals). */
static bool load_term(struct loader *L, yaml_node_t *n, struct ts_rules_term *t,
                      char ***locals, size_t *nlocals, const char *what) {
  memset(t, 0, sizeof *t);
  if (n && n->type == YAML_SCALAR_NODE) {
    const char *v = scalar(L, n, what);
    return v && split_term(L, n, v, t);
  }
  if (!is_map(L, n, what))
    return false;
  static const char *const keys[] = {"name", "version", "local", NULL};
  check_keys(L, n, keys, what);
  char *name = get_str(L, n, "name", true, what);
  if (!name)
    return false;
  bool ok = split_term(L, n, name, t);
  free(name);
  if (!ok)
    return false;
  char *ver = get_str(L, n, "version", false, what);
  if (ver) {
    if (t->spec) {
      DIAG(L, n, "%s: give the specifier in 'name' or in 'version', not both", what);
      free(ver);
      term_free(t);
      return false;
    }
    struct ts_specset *s = NULL;
    struct ts_error e = {0};
    if (ts_specset_parse(ver, strlen(ver), &s, &e) != TS_OK) {
      DIAG(L, get(L, n, "version"), "%s: %s", what, e.detail);
      free(ver);
      term_free(t);
      return false;
    }
    ts_specset_free(s);
    t->spec = ver;
  }
  yaml_node_t *loc = get(L, n, "local");
  if (loc) {
    size_t nl = 0;
    char **l = get_strlist(L, loc, &nl, true, "local");
    if (locals) {
      *locals = l;
      *nlocals = nl;
    } else {
      if (nl == 1)
        t->local = l[0];
      else {
        DIAG(L, loc, "%s: a term takes one local pattern", what);
        for (size_t i = 0; i < nl; i++)
          free(l[i]);
      }
      free(l);
    }
  }
  return true;
}

static struct ts_rules_term *load_terms(struct loader *L, yaml_node_t *n,
                                        size_t *count, bool facts_only,
                                        const char *what) {
  *count = 0;
  if (!n || !is_seq(L, n, what))
    return NULL;
  struct ts_rules_term *out = NULL;
  for (yaml_node_item_t *it = n->data.sequence.items.start;
       it < n->data.sequence.items.top; it++) {
    yaml_node_t *tn = node_at(L, *it);
    struct ts_rules_term t;
    if (!load_term(L, tn, &t, NULL, NULL, what))
      continue;
    if (facts_only && strncmp(t.name, "__", 2) != 0)
      DIAG(L, tn, "%s: '%s' is not a host fact (facts start with __)", what,
           t.name);
    out = ts_xrealloc(out, (*count + 1) * sizeof *out);
    out[(*count)++] = t;
  }
  return out;
}

static void load_rule(struct loader *L, yaml_node_t *n, struct ts_rules_rule *r) {
  static const char *const keys[] = {"id", "kind", "subject", "terms", "when",
                                     "message", "fix", "source", "confidence",
                                     "evidence", NULL};
  memset(r, 0, sizeof *r);
  r->file = ts_xstrdup(L->file ? L->file : "");
  r->line = n ? (unsigned)n->start_mark.line + 1 : 0;
  if (!is_map(L, n, "a rule"))
    return;
  check_keys(L, n, keys, "a rule");
  r->id = get_str(L, n, "id", true, "rule");
  char what[160];
  snprintf(what, sizeof what, "rule '%s'", r->id ? r->id : "?");
  if (r->id && !ident_ok(r->id, true))
    DIAG(L, get(L, n, "id"), "%s: id may hold letters, digits, '.', '-', '_'", what);
  char *kind = get_str(L, n, "kind", true, what);
  if (kind) {
    if (strcmp(kind, "requires") == 0)
      r->kind = TS_RULES_REQUIRES;
    else if (strcmp(kind, "conflicts") == 0)
      r->kind = TS_RULES_CONFLICTS;
    else if (strcmp(kind, "custom-build") == 0)
      r->kind = TS_RULES_CUSTOM_BUILD;
    else
      DIAG(L, get(L, n, "kind"), "%s: kind must be requires, conflicts or custom-build", what);
  }
  free(kind);
  r->message = get_str(L, n, "message", true, what);
  r->source = get_str(L, n, "source", true, what);
  check_url(L, n, r->source, what);
  r->fix = get_str(L, n, "fix", r->kind != TS_RULES_CUSTOM_BUILD, what);
  r->confidence = get_confidence(L, n, what);
  check_evidence(L, n, what);
  yaml_node_t *subj = get(L, n, "subject");
  if (!subj)
    DIAG(L, n, "%s: missing 'subject'", what);
  else {
    struct ts_rules_term t;
    if (load_term(L, subj, &t, &r->subject_locals, &r->nsubject_locals,
                  "subject")) {
      r->subject_name = t.name;
      r->subject_spec = t.spec;
      if (strncmp(t.name, "__", 2) == 0)
        DIAG(L, subj, "%s: the subject must be a project, not a host fact", what);
    }
  }
  yaml_node_t *terms = get(L, n, "terms");
  if (!terms && r->kind != TS_RULES_CUSTOM_BUILD)
    DIAG(L, n, "%s: missing 'terms'", what);
  r->terms = load_terms(L, terms, &r->nterms, false, "terms");
  if (terms && r->nterms == 0 && terms->type == YAML_SEQUENCE_NODE)
    DIAG(L, terms, "%s: terms must not be empty", what);
  r->when = load_terms(L, get(L, n, "when"), &r->nwhen, true, "when");
}

static void load_pairing(struct loader *L, yaml_node_t *n,
                         struct ts_rules_pairing *p) {
  static const char *const keys[] = {"id", "project", "message", "fix",
                                     "source", NULL};
  memset(p, 0, sizeof *p);
  if (!is_map(L, n, "a pairing"))
    return;
  check_keys(L, n, keys, "a pairing");
  p->id = get_str(L, n, "id", true, "pairing");
  p->project = get_str(L, n, "project", true, "pairing");
  if (p->project && strcmp(p->project, "torchvision") != 0 &&
      strcmp(p->project, "torchaudio") != 0)
    DIAG(L, get(L, n, "project"), "pairing: project must be torchvision or torchaudio");
  p->message = get_str(L, n, "message", true, "pairing");
  p->fix = get_str(L, n, "fix", true, "pairing");
  p->source = get_str(L, n, "source", true, "pairing");
  check_url(L, n, p->source, "pairing");
}

/* torch_builds: {project, nvcc, only_from, source}. */
static void load_torch_build(struct loader *L, yaml_node_t *n,
                             struct ts_rules_torch_build *t) {
  static const char *const keys[] = {"project", "nvcc", "only_from", "source", NULL};
  memset(t, 0, sizeof *t);
  if (!is_map(L, n, "a torch_builds entry"))
    return;
  check_keys(L, n, keys, "a torch_builds entry");
  char *project = get_str(L, n, "project", true, "torch_builds");
  if (project && !ts_name_is_valid(project, strlen(project)))
    DIAG(L, get(L, n, "project"), "torch_builds: '%s' is not a project name", project);
  t->project = project ? ts_name_normalize(project, strlen(project)) : ts_xstrdup("");
  free(project);
  char *nvcc = get_str(L, n, "nvcc", false, "torch_builds");
  if (nvcc && strcmp(nvcc, "true") != 0 && strcmp(nvcc, "false") != 0)
    DIAG(L, get(L, n, "nvcc"), "torch_builds: nvcc must be true or false");
  t->nvcc = nvcc && strcmp(nvcc, "true") == 0;
  free(nvcc);
  t->source = get_str(L, n, "source", true, "torch_builds");
  check_url(L, n, t->source, "torch_builds");
  t->only_from = get_str(L, n, "only_from", false, "torch_builds");
  if (t->only_from && (!*t->only_from || strchr(t->only_from, ' ')))
    DIAG(L, get(L, n, "only_from"), "torch_builds: only_from must be a host and path "
         "(github.com/NVIDIA/apex)");
}

/* ---- top level -------------------------------------------------------- */

static int cmp_release(const void *a, const void *b) {
  const struct ts_rules_release *x = a, *y = b;
  return ts_host_vercmp(x->series, y->series);
}

#define LOAD_LIST(L, node, arr, count, fn, what)                           \
  do {                                                                     \
    if ((node) && is_seq((L), (node), (what)))                             \
      for (yaml_node_item_t *it_ = (node)->data.sequence.items.start;      \
           it_ < (node)->data.sequence.items.top; it_++) {                 \
        (arr) = ts_xrealloc((arr), ((count) + 1) * sizeof *(arr));      \
        fn((L), node_at((L), *it_), &(arr)[(count)++]);                    \
      }                                                                    \
  } while (0)

static void check_refs(struct loader *L, yaml_node_t *root, struct ts_rules *r) {
  yaml_node_t *bn = get(L, root, "backends");
  for (size_t i = 0; i < r->nbackends; i++)
    for (size_t j = 0; j < i; j++)
      if (r->backends[i].id && r->backends[j].id &&
          strcmp(r->backends[i].id, r->backends[j].id) == 0)
        DIAG(L, bn, "backend '%s' is defined twice", r->backends[i].id);
  yaml_node_t *rn = get(L, root, "rules");
  for (size_t i = 0; i < r->nrules; i++)
    for (size_t j = 0; j < i; j++)
      if (r->rules[i].id && r->rules[j].id &&
          strcmp(r->rules[i].id, r->rules[j].id) == 0)
        diag_at(L, r->rules[i].line, 1, "rule '%s' is defined twice (first at line %u)",
                r->rules[i].id, r->rules[j].line);
  (void)rn;
  yaml_node_t *tn = get(L, root, "torch_builds");
  for (size_t i = 0; i < r->ntorch_builds; i++)
    for (size_t j = 0; j < i; j++)
      if (strcmp(r->torch_builds[i].project, r->torch_builds[j].project) == 0)
        DIAG(L, tn, "torch_builds: '%s' is listed twice", r->torch_builds[i].project);
  /* Every ROCm backend must have a place in the kernel-driver window. */
  for (size_t i = 0; r->kmd.nreleases && i < r->nbackends; i++) {
    const struct ts_rules_backend *b = &r->backends[i];
    bool listed = false;
    for (size_t k = 0; b->kind == TS_BACKEND_ROCM && b->version && k < r->kmd.nreleases; k++) {
      size_t n = strlen(r->kmd.releases[k]);
      listed |= strncmp(b->version, r->kmd.releases[k], n) == 0 &&
                (b->version[n] == '\0' || b->version[n] == '.');
    }
    if (b->kind == TS_BACKEND_ROCM && b->version && !listed)
      DIAG(L, bn, "backend '%s': ROCm %s is not in rocm_kmd.releases", b->id, b->version);
  }
  yaml_node_t *reln = get(L, root, "releases");
  for (size_t i = 0; i < r->nreleases; i++) {
    for (size_t j = 0; j < i; j++)
      if (r->releases[i].series && r->releases[j].series &&
          strcmp(r->releases[i].series, r->releases[j].series) == 0)
        DIAG(L, reln, "release '%s' is defined twice", r->releases[i].series);
    /* Variants must name a backend, when this file defines backends (a
     * user file may name the bundled ones; ts_rules_merge checks those). */
    char problem[256];
    if (r->nbackends && ts_rules_release_problem(r, &r->releases[i], problem, sizeof problem))
      DIAG(L, reln, "%s", problem);
  }
}

/* rocm_kmd: {window, releases, amdgpu: {"6.8": "6.2", ...}, source,
 * amdgpu_source, amdgpu_confidence}. */
/* rocm_kmd.drivers[]: {amdgpu: "30.10", rocm: "7.0", user_space: ["6.2", "7.0"], source} */
static void load_kmd_driver(struct loader *L, yaml_node_t *n, struct ts_rules_kmd_driver *d) {
  static const char *const keys[] = {"amdgpu", "rocm", "user_space", "source", NULL};
  memset(d, 0, sizeof *d);
  if (!is_map(L, n, "a rocm_kmd driver"))
    return;
  check_keys(L, n, keys, "a rocm_kmd driver");
  d->amdgpu = get_str(L, n, "amdgpu", true, "rocm_kmd driver");
  d->rocm = get_str(L, n, "rocm", true, "rocm_kmd driver");
  d->source = get_str(L, n, "source", true, "rocm_kmd driver");
  check_url(L, n, d->source, "rocm_kmd driver");
  yaml_node_t *us = get(L, n, "user_space");
  size_t nus = 0;
  char **range = get_strlist(L, us, &nus, false, "user_space");
  if (!us || nus != 2 || !dotted_version(range[0]) || !dotted_version(range[1]) ||
      ts_host_vercmp(range[0], range[1]) > 0)
    DIAG(L, us ? us : n, "rocm_kmd driver '%s': user_space must be [OLDEST, NEWEST] ROCm releases",
         d->amdgpu ? d->amdgpu : "?");
  if (nus == 2) {
    d->user_min = range[0];
    d->user_max = range[1];
  } else {
    for (size_t i = 0; i < nus; i++)
      free(range[i]);
  }
  free(range);
  if ((d->amdgpu && !dotted_version(d->amdgpu)) || (d->rocm && !dotted_version(d->rocm)))
    DIAG(L, n, "rocm_kmd driver: amdgpu and rocm must be versions");
}

static void load_kmd(struct loader *L, yaml_node_t *n, struct ts_rules *r) {
  static const char *const keys[] = {"window", "releases", "amdgpu", "source",
                                     "amdgpu_source", "amdgpu_confidence", "drivers", NULL};
  struct ts_rules_kmd *k = &r->kmd;
  if (!is_map(L, n, "rocm_kmd"))
    return;
  check_keys(L, n, keys, "rocm_kmd");
  char *w = get_str(L, n, "window", true, "rocm_kmd");
  char *end = NULL;
  unsigned long wv = w ? strtoul(w, &end, 10) : 0;
  if (w && (*end || wv == 0 || wv > 10))
    DIAG(L, get(L, n, "window"), "rocm_kmd: window must be a number of releases from 1 to 10");
  free(w);
  k->window = (unsigned)wv;
  k->source = get_str(L, n, "source", true, "rocm_kmd");
  check_url(L, n, k->source, "rocm_kmd");
  k->amdgpu_source = get_str(L, n, "amdgpu_source", false, "rocm_kmd");
  if (k->amdgpu_source && strncmp(k->amdgpu_source, "http", 4) != 0)
    DIAG(L, get(L, n, "amdgpu_source"), "rocm_kmd: amdgpu_source must be an http(s) URL");
  k->amdgpu_confidence = get_confidence_key(L, n, "amdgpu_confidence", "rocm_kmd");
  yaml_node_t *rel = get(L, n, "releases");
  if (!rel)
    DIAG(L, n, "rocm_kmd: missing 'releases'");
  k->releases = get_strlist(L, rel, &k->nreleases, false, "releases");
  for (size_t i = 0; i < k->nreleases; i++)
    if (!dotted_version(k->releases[i]) ||
        (i && ts_host_vercmp(k->releases[i - 1], k->releases[i]) >= 0))
      DIAG(L, rel, "rocm_kmd: releases must be ROCm versions, oldest first ('%s')",
           k->releases[i]);
  yaml_node_t *map = get(L, n, "amdgpu");
  if (map && is_map(L, map, "amdgpu")) {
    check_keys(L, map, NULL, "amdgpu");
    for (yaml_node_pair_t *p = map->data.mapping.pairs.start;
         p < map->data.mapping.pairs.top; p++) {
      const char *kv = scalar(L, node_at(L, p->key), "an amdgpu version");
      const char *rv = scalar(L, node_at(L, p->value), "a ROCm release");
      if (!kv || !rv)
        continue;
      if (!dotted_version(kv) || !dotted_version(rv))
        DIAG(L, node_at(L, p->key), "rocm_kmd: amdgpu '%s': '%s' must be versions", kv, rv);
      k->amdgpu = ts_xrealloc(k->amdgpu, (k->namdgpu + 1) * sizeof *k->amdgpu);
      k->amdgpu[k->namdgpu].amdgpu = ts_xstrdup(kv);
      k->amdgpu[k->namdgpu].rocm = ts_xstrdup(rv);
      k->namdgpu++;
    }
  }
  yaml_node_t *dn = get(L, n, "drivers");
  LOAD_LIST(L, dn, k->drivers, k->ndrivers, load_kmd_driver, "drivers");
  for (size_t i = 0; i < k->ndrivers; i++) {
    bool listed = false;
    for (size_t j = 0; k->drivers[i].rocm && j < k->nreleases; j++)
      listed |= ts_host_vercmp(k->drivers[i].rocm, k->releases[j]) == 0;
    if (!listed)
      DIAG(L, dn, "rocm_kmd driver '%s': ROCm %s is not in rocm_kmd.releases",
           k->drivers[i].amdgpu ? k->drivers[i].amdgpu : "?",
           k->drivers[i].rocm ? k->drivers[i].rocm : "?");
  }
}

static void load_root(struct loader *L, yaml_node_t *root, struct ts_rules *r) {
  static const char *const keys[] = {"schema", "version", "index_base", "source",
                                     "backends", "releases", "routes",
                                     "pairings", "rules", "rocm_kmd",
                                     "without_rules", "torch_builds", NULL};
  if (!root) {
    diag_at(L, 1, 1, "the document is empty");
    return;
  }
  if (!is_map(L, root, "the document"))
    return;
  check_keys(L, root, keys, "the document");
  yaml_node_t *schema = get(L, root, "schema");
  const char *sv = schema ? scalar(L, schema, "schema") : NULL;
  if (!schema)
    DIAG(L, root, "missing 'schema' (this torchsolve reads schema %d)", TS_RULES_SCHEMA);
  else if (sv && strcmp(sv, "1") != 0)
    DIAG(L, schema, "schema %s is not supported (this torchsolve reads schema %d)",
         sv, TS_RULES_SCHEMA);
  r->schema = TS_RULES_SCHEMA;
  r->version = get_str(L, root, "version", false, "the document");
  if (r->version && !dotted_version(r->version))
    DIAG(L, get(L, root, "version"),
         "version '%s' must be the facts' date as YYYY.MM.DD", r->version);
  r->index_base = get_str(L, root, "index_base", false, "the document");
  if (r->index_base && strncmp(r->index_base, "https://", 8) != 0 &&
      strncmp(r->index_base, "http://", 7) != 0 &&
      strncmp(r->index_base, "file://", 7) != 0)
    DIAG(L, get(L, root, "index_base"), "index_base must be an http(s) or file URL");
  char *src = get_str(L, root, "source", false, "the document");
  free(src);

  yaml_node_t *n = get(L, root, "backends");
  LOAD_LIST(L, n, r->backends, r->nbackends, load_backend, "backends");
  n = get(L, root, "releases");
  LOAD_LIST(L, n, r->releases, r->nreleases, load_release, "releases");
  n = get(L, root, "pairings");
  LOAD_LIST(L, n, r->pairings, r->npairings, load_pairing, "pairings");
  n = get(L, root, "rules");
  LOAD_LIST(L, n, r->rules, r->nrules, load_rule, "rules");
  n = get(L, root, "torch_builds");
  LOAD_LIST(L, n, r->torch_builds, r->ntorch_builds, load_torch_build, "torch_builds");
  n = get(L, root, "routes");
  if (n && is_map(L, n, "routes")) {
    static const char *const rkeys[] = {"source", "projects", NULL};
    check_keys(L, n, rkeys, "routes");
    r->routes_source = get_str(L, n, "source", true, "routes");
    yaml_node_t *pj = get(L, n, "projects");
    if (!pj)
      DIAG(L, n, "routes: missing 'projects'");
    size_t np = 0;
    char **p = get_strlist(L, pj, &np, false, "projects");
    for (size_t i = 0; i < np; i++) {
      if (!ts_name_is_valid(p[i], strlen(p[i])))
        DIAG(L, pj, "routes: '%s' is not a project name", p[i]);
      r->routes = ts_xrealloc(r->routes, (r->nroutes + 1) * sizeof *r->routes);
      r->routes[r->nroutes++] = ts_name_normalize(p[i], strlen(p[i]));
      free(p[i]);
    }
    free(p);
  }
  n = get(L, root, "rocm_kmd");
  if (n)
    load_kmd(L, n, r);
  n = get(L, root, "without_rules");
  r->without_rules = get_strlist(L, n, &r->nwithout_rules, false, "without_rules");
  check_refs(L, root, r);
  if (r->nreleases > 1)
    qsort(r->releases, r->nreleases, sizeof *r->releases, cmp_release);
}

enum ts_code ts_rules_parse(const char *data, size_t len, const char *name,
                            struct ts_rules **out, struct ts_rules_diags *diags,
                            struct ts_error *err) {
  *out = NULL;
  if (len > TS_CAP_RULES_FILE)
    return ts_error_set(err, TS_E_TOO_BIG, "%s: larger than %u bytes", name,
                        TS_CAP_RULES_FILE);
  yaml_parser_t parser;
  yaml_document_t doc;
  if (!yaml_parser_initialize(&parser))
    return ts_error_set(err, TS_E_NOMEM, "%s: cannot start the YAML parser", name);
  yaml_parser_set_input_string(&parser, (const unsigned char *)data, len);
  struct loader L = {&doc, name, diags, err, 0};
  if (!yaml_parser_load(&parser, &doc)) {
    diag_at(&L, (unsigned)parser.problem_mark.line + 1,
            (unsigned)parser.problem_mark.column + 1, "YAML: %s%s%s",
            parser.problem ? parser.problem : "syntax error",
            parser.context ? " " : "", parser.context ? parser.context : "");
    yaml_parser_delete(&parser);
    return TS_E_RULES;
  }
  struct ts_rules *r = ts_xcalloc(1, sizeof *r);
  load_root(&L, yaml_document_get_root_node(&doc), r);
  /* A second document would silently be ignored: refuse it. */
  yaml_document_t extra;
  if (yaml_parser_load(&parser, &extra)) {
    if (yaml_document_get_root_node(&extra))
      diag_at(&L, (unsigned)parser.mark.line + 1, 1,
              "more than one YAML document");
    yaml_document_delete(&extra);
  }
  yaml_document_delete(&doc);
  yaml_parser_delete(&parser);
  if (L.nerrors) {
    ts_rules_free(r);
    return TS_E_RULES;
  }
  *out = r;
  return TS_OK;
}

enum ts_code ts_rules_load_file(const char *path, struct ts_rules **out,
                                struct ts_rules_diags *diags,
                                struct ts_error *err) {
  struct ts_buf b;
  ts_buf_init(&b, TS_CAP_RULES_FILE);
  enum ts_code rc = ts_fs_read_file(path, &b, err);
  if (rc != TS_OK) {
    ts_buf_clear(&b);
    if (diags) {
      diags->items = ts_xrealloc(diags->items,
                                    (diags->n + 1) * sizeof *diags->items);
      diags->items[diags->n].file = ts_xstrdup(path);
      diags->items[diags->n].line = 0;
      diags->items[diags->n].column = 0;
      diags->items[diags->n].message = ts_xstrdup(err ? err->detail : "cannot read");
      diags->n++;
    }
    return rc;
  }
  rc = ts_rules_parse(b.data, b.len, path, out, diags, err);
  ts_buf_clear(&b);
  return rc;
}

void ts_rules_diags_clear(struct ts_rules_diags *d) {
  for (size_t i = 0; i < d->n; i++) {
    free(d->items[i].file);
    free(d->items[i].message);
  }
  free(d->items);
  d->items = NULL;
  d->n = 0;
}
