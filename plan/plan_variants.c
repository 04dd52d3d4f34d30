/*
 * plan/plan_variants.c — PEP 825 variant wheels on fetched pages
 * (plan_internal.h): which of a release's variants this host may install,
 * from its `{name}-{version}-variants.json`, the host's supported
 * properties and the rules, before the resolver reads the page.
 */
#include "plan/plan_internal.h"
#include "plan/variant_wheels.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/alloc.h"
#include "core/buf.h"
#include "core/fs.h"
#include "core/str.h"
#include "index/simple.h"
#include "pep/filename.h"
#include "pep/name.h"
#include "variant/label.h"
#include "variant/select.h"

/* variants.json is small; PyTorch's is a few kilobytes */
#define VARIANTS_JSON_CAP (4u * 1024 * 1024)

/* One release's judged variants. */
struct release {
  char *name;    /* normalised */
  char *version; /* as in the wheel names */
  struct ts_variant_selection sel;
  char **lines;  /* per compatible choice: "name version [label]: why; ..." */
  /* per compatible choice: its properties ("ns :: feature :: value") and
   * the marker environment its Requires-Dist is read with */
  char ***props;
  size_t *nprops;
  struct ts_marker_env *envs;
  /* what a lock records of the release: its variants.json and every
   * variant wheel of the page, installable here or not (copies) */
  struct ts_index_file json;
  struct ts_index_file *wheels;
  size_t nwheels;
};

struct ts_plan_variants {
  const struct ts_marker_env *target;
  struct ts_variant_supported host;
  const struct ts_constraint_set *set;
  struct release *rels;
  size_t nrels;
};

/* The rules' backend of a label's PyTorch twin, or NULL. */
static const struct ts_backend_choice *twin_backend(const struct ts_constraint_set *set,
                                                    const char *label, size_t *at)
{
  char *twin = ts_variant_torch_twin(label);
  const struct ts_backend_choice *b = NULL;
  for (size_t i = 0; twin && set && i < set->nbackends && !b; i++)
    if (strcmp(set->backends[i].name, twin) == 0) {
      b = &set->backends[i];
      *at = i;
    }
  free(twin);
  return b;
}

struct policy_ctx {
  const struct ts_constraint_set *set;
  bool routed;
};

/* "cuda12.8" → kind 'c', 12, 8; "rocm7.1" → 'r'; false otherwise. */
static bool label_stack(const char *label, char *kind, unsigned *major, unsigned *minor)
{
  char tail;
  if (sscanf(label, "cuda%u.%u%c", major, minor, &tail) == 2)
    *kind = 'c';
  else if (sscanf(label, "rocm%u.%u%c", major, minor, &tail) == 2)
    *kind = 'r';
  else
    return false;
  return true;
}

/* The objective (doc/rules.md): the rules' backend list orders the
 * labels whose twins it lists; other ties go to the newer CUDA (or ROCm)
 * of the same stack, the newest that runs here, since both fit. */
static int rules_tiebreak(void *vctx, const char *a, const char *b)
{
  const struct policy_ctx *c = vctx;
  size_t ia = SIZE_MAX, ib = SIZE_MAX;
  twin_backend(c->set, a, &ia);
  twin_backend(c->set, b, &ib);
  if (ia != SIZE_MAX && ib != SIZE_MAX && ia != ib)
    return ia < ib ? -1 : 1;
  char ka, kb;
  unsigned ma, na, mb, nb;
  if (!label_stack(a, &ka, &ma, &na) || !label_stack(b, &kb, &mb, &nb) || ka != kb)
    return 0;
  if (ma != mb)
    return ma > mb ? -1 : 1;
  return na == nb ? 0 : na > nb ? -1 : 1;
}

static bool rules_allow(void *vctx, const char *label, char **why)
{
  const struct policy_ctx *c = vctx;
  size_t at;
  const struct ts_backend_choice *b = c->routed ? twin_backend(c->set, label, &at) : NULL;
  if (!b || b->usable)
    return true;
  *why = ts_xasprintf("rules.yaml excludes its twin %s here%s%s%s%s", b->name,
                      b->reason ? ": " : "", b->reason ? b->reason : "",
                      b->rule_id ? " (rule " : "", b->rule_id ? b->rule_id : "");
  if (b->rule_id) {
    char *closed = ts_xasprintf("%s)", *why);
    free(*why);
    *why = closed;
  }
  return false;
}

enum ts_code ts_plan_variants_new(const struct ts_host *host,
                                  const struct ts_variant_force *force,
                                  const struct ts_constraint_set *set,
                                  const struct ts_marker_env *target,
                                  struct ts_plan_variants **out, struct ts_error *err)
{
  struct ts_plan_variants *v = ts_xcalloc(1, sizeof *v);
  v->set = set;
  v->target = target;
  *out = v;
  if (!host)
    return TS_OK;
  return ts_variant_supported_from_host(host, force, &v->host, err);
}

void ts_plan_variants_free(struct ts_plan_variants *v)
{
  if (!v)
    return;
  for (size_t i = 0; i < v->nrels; i++) {
    struct release *r = &v->rels[i];
    for (size_t k = 0; k < r->sel.ncompatible; k++) {
      free(r->lines[k]);
      for (size_t j = 0; r->props && j < r->nprops[k]; j++)
        free(r->props[k][j]);
      if (r->props)
        free(r->props[k]);
    }
    free(r->lines);
    free(r->props);
    free(r->nprops);
    free(r->envs);
    ts_variant_selection_clear(&r->sel);
    ts_index_file_clear(&r->json);
    for (size_t k = 0; k < r->nwheels; k++)
      ts_index_file_clear(&r->wheels[k]);
    free(r->wheels);
    free(r->name);
    free(r->version);
  }
  free(v->rels);
  ts_variant_supported_clear(&v->host);
  free(v);
}

static bool any_json(const char *filename)
{
  size_t n = strlen(filename);
  return n > 14 && strcmp(filename + n - 14, "-variants.json") == 0;
}

static void note(char ***notes, size_t *nnotes, char *owned)
{
  *notes = ts_xreallocarray(*notes, *nnotes + 1, sizeof **notes);
  (*notes)[(*nnotes)++] = owned;
}

/* Reads and parses a release's variants.json; a note and false when it
 * cannot be had. */
static bool read_metadata(struct ts_index *idx, const struct ts_index_file *f,
                          struct ts_variant_metadata *m, char ***notes, size_t *nnotes)
{
  char *path = NULL;
  struct ts_error err = {0};
  struct ts_buf b;
  memset(m, 0, sizeof *m); /* cleared by the caller whatever happens */
  ts_buf_init(&b, VARIANTS_JSON_CAP);
  enum ts_code rc = ts_index_fetch_wheel(idx, f, &path, &err);
  if (rc == TS_OK)
    rc = ts_fs_read_file(path, &b, &err);
  if (rc == TS_OK)
    rc = ts_variant_metadata_parse(b.data, b.len, f->filename, m, &err);
  free(path);
  ts_buf_clear(&b);
  if (rc == TS_OK)
    return true;
  note(notes, nnotes,
       ts_xasprintf("%s: %s; its variant wheels are skipped", f->filename, err.detail));
  return false;
}

static char *why_line(const struct release *r, size_t k)
{
  const struct ts_variant_choice *c = &r->sel.choices[k];
  char *line = ts_xasprintf("%s %s [%s]: %s", r->name, r->version, c->label, c->why);
  for (size_t i = r->sel.ncompatible; i < r->sel.nchoices; i++) {
    char *more = ts_xasprintf("%s; %s rejected: %s", line, r->sel.choices[i].label,
                              r->sel.choices[i].why);
    free(line);
    line = more;
  }
  return line;
}

/* The marker environment of compatible choice k: the target's, with its
 * label and properties (PEP 825's variant_* markers). */
static void marker_env(const struct ts_plan_variants *v, struct release *r, size_t k,
                       const struct ts_variant_entry *e)
{
  for (size_t i = 0; e && i < e->nfeatures; i++)
    for (size_t j = 0; j < e->features[i].nvalues; j++) {
      r->props[k] = ts_xreallocarray(r->props[k], r->nprops[k] + 1, sizeof *r->props[k]);
      r->props[k][r->nprops[k]++] = ts_xasprintf("%s :: %s :: %s", e->features[i].ns,
                                                 e->features[i].feature,
                                                 e->features[i].values[j]);
    }
  if (v->target)
    r->envs[k] = *v->target;
  r->envs[k].variant_label = r->sel.choices[k].label;
  r->envs[k].variant_properties = (const char *const *)r->props[k];
  r->envs[k].nvariant_properties = r->nprops[k];
}

/* The fields of f a lock records. */
static struct ts_index_file file_copy(const struct ts_index_file *f)
{
  return (struct ts_index_file){.filename = ts_xstrdup(f->filename),
                                .url = ts_xstrdup(f->url),
                                .sha256 = ts_xstrdup(f->sha256),
                                .size = f->size,
                                .upload_time = ts_xstrdup(f->upload_time),
                                .index_url = ts_xstrdup(f->index_url),
                                .variant_rank = -1};
}

/* Judges one release; a release whose metadata is missing or unreadable
 * (noted) gets a record with no compatible variant. */
static struct release *judge_release(struct ts_plan_variants *v, struct ts_index *idx,
                                     const struct ts_index_project *pr, const char *version,
                                     char ***notes, size_t *nnotes)
{
  v->rels = ts_xreallocarray(v->rels, v->nrels + 1, sizeof *v->rels);
  struct release *r = &v->rels[v->nrels++];
  memset(r, 0, sizeof *r);
  r->name = ts_xstrdup(pr->name);
  r->version = ts_xstrdup(version);
  const struct ts_index_file *json = NULL;
  for (size_t i = 0; i < pr->nfiles && !json; i++)
    if (ts_variant_is_metadata_file(pr->files[i].filename, pr->name, version))
      json = &pr->files[i];
  if (json)
    r->json = file_copy(json);
  /* no variants.json on the page: each wheel's own variant.json */
  struct ts_variant_metadata m;
  if (json ? read_metadata(idx, json, &m, notes, nnotes)
           : ts_plan_variant_wheels_metadata(idx, pr, version, &m, notes, nnotes)) {
    struct policy_ctx pc = {v->set, ts_plan_is_routed(v->set, pr->name)};
    struct ts_variant_policy pol = {&pc, rules_tiebreak, rules_allow};
    ts_variant_select(&m, &v->host, &pol, &r->sel);
    size_t n = r->sel.ncompatible ? r->sel.ncompatible : 1;
    r->lines = ts_xcalloc(n, sizeof *r->lines);
    r->props = ts_xcalloc(n, sizeof *r->props);
    r->nprops = ts_xcalloc(n, sizeof *r->nprops);
    r->envs = ts_xcalloc(n, sizeof *r->envs);
    for (size_t k = 0; k < r->sel.ncompatible; k++) {
      r->lines[k] = why_line(r, k);
      marker_env(v, r, k, ts_variant_metadata_find(&m, r->sel.choices[k].label));
    }
  }
  ts_variant_metadata_clear(&m);
  return r;
}

static struct release *find_release(const struct ts_plan_variants *v, const char *name,
                                    const char *version)
{
  for (size_t i = 0; i < v->nrels; i++)
    if (strcmp(v->rels[i].name, name) == 0 && strcmp(v->rels[i].version, version) == 0)
      return &v->rels[i];
  return NULL;
}

/* A variant wheel's label and version text (both malloc'd), or false. */
static bool variant_of(const char *filename, char **label, char **version)
{
  struct ts_wheel_filename *w = NULL;
  *label = *version = NULL;
  size_t dashes = 0; /* a label makes six parts at least: most names stop here */
  for (const char *s = filename; *s; s++)
    dashes += *s == '-';
  if (dashes < 5)
    return false;
  if (ts_variant_wheel_filename_parse(filename, strlen(filename), &w, label, NULL) != TS_OK ||
      !*label) {
    ts_wheel_filename_free(w);
    return false;
  }
  *version = ts_xstrdup(ts_version_original(w->version));
  ts_wheel_filename_free(w);
  return true;
}

void ts_plan_variants_apply(struct ts_plan_variants *v, struct ts_index *idx,
                            struct ts_index_project *pr, char ***notes, size_t *nnotes)
{
  bool *keep = ts_xcalloc(pr->nfiles ? pr->nfiles : 1, sizeof *keep);
  bool changed = false;
  /* first judge (the page stays whole: releases look up their JSON) */
  for (size_t i = 0; i < pr->nfiles; i++) {
    struct ts_index_file *f = &pr->files[i];
    char *label, *version;
    keep[i] = !any_json(f->filename);
    if (keep[i] && variant_of(f->filename, &label, &version)) {
      struct release *r = find_release(v, pr->name, version);
      if (!r)
        r = judge_release(v, idx, pr, version, notes, nnotes);
      f->variant_rank = ts_variant_selection_rank(&r->sel, label);
      keep[i] = f->variant_rank >= 0;
      bool seen = false; /* a page read again (another index) adds nothing */
      for (size_t k = 0; k < r->nwheels && !seen; k++)
        seen = strcmp(r->wheels[k].filename, f->filename) == 0;
      if (!seen) {
        r->wheels = ts_xreallocarray(r->wheels, r->nwheels + 1, sizeof *r->wheels);
        r->wheels[r->nwheels++] = file_copy(f);
      }
      free(label);
      free(version);
    }
    changed |= !keep[i];
  }
  size_t k = 0;
  for (size_t i = 0; changed && i < pr->nfiles; i++) {
    if (!keep[i]) {
      ts_index_file_clear(&pr->files[i]);
      continue;
    }
    if (k != i)
      pr->files[k] = pr->files[i];
    k++;
  }
  if (changed)
    pr->nfiles = k;
  free(keep);
}

static const struct release *release_of(const struct ts_plan_variants *v, const char *name,
                                        const struct ts_index_file *f, const char **label_out)
{
  char *label, *version;
  if (!v || !f || !variant_of(f->filename, &label, &version))
    return NULL;
  const struct release *r = find_release(v, name, version);
  *label_out = NULL;
  for (size_t k = 0; r && k < r->sel.ncompatible; k++)
    if (strcmp(r->sel.choices[k].label, label) == 0)
      *label_out = r->lines[k];
  free(label);
  free(version);
  return *label_out ? r : NULL;
}

void ts_plan_variants_describe(const struct ts_plan_variants *v, const char *name,
                               const struct ts_index_file *f, const char **label,
                               const char **why)
{
  const char *line = NULL;
  const struct release *r = release_of(v, name, f, &line);
  *label = *why = NULL;
  for (size_t k = 0; r && k < r->sel.ncompatible; k++)
    if (r->lines[k] == line) {
      *label = r->sel.choices[k].label;
      *why = line;
    }
}

const struct ts_marker_env *ts_plan_variants_env(const struct ts_plan_variants *v,
                                                 const char *name,
                                                 const struct ts_index_file *f)
{
  const char *line = NULL;
  const struct release *r = release_of(v, name, f, &line);
  for (size_t k = 0; r && k < r->sel.ncompatible; k++)
    if (r->lines[k] == line)
      return &r->envs[k];
  return NULL;
}

size_t ts_plan_variants_release(const struct ts_plan_variants *v, const char *name,
                                const char *version, const struct ts_index_file **json,
                                const struct ts_index_file **wheels)
{
  const struct release *r = v ? find_release(v, name, version) : NULL;
  *json = r && r->json.filename ? &r->json : NULL;
  *wheels = r ? r->wheels : NULL;
  return *json ? r->nwheels : 0;
}

long ts_plan_variants_rank_locked(struct ts_plan_variants *v, struct ts_index *idx,
                                  const char *name, const char *version,
                                  const struct ts_index_file *json, const char *label,
                                  char ***notes, size_t *nnotes)
{
  struct release *r = find_release(v, name, version);
  if (!r) {
    struct ts_index_project page = {.name = (char *)name,
                                    .files = (struct ts_index_file *)json,
                                    .nfiles = 1};
    r = judge_release(v, idx, &page, version, notes, nnotes);
  }
  return ts_variant_selection_rank(&r->sel, label);
}

size_t ts_plan_variant_release(const struct ts_plan_result *res, const char *name,
                               const char *version, const struct ts_index_file **json,
                               const struct ts_index_file **wheels)
{
  return ts_plan_variants_release(res ? res->variants : NULL, name, version, json, wheels);
}
