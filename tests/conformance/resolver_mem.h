/*
 * tests/conformance/resolver_mem.h — an in-memory index and provider for
 * the resolver conformance runners and fixture tests: scenarios become
 * index pages (struct ts_index_project, as the index client would fill
 * them) and METADATA files, and the resolver is driven through its public
 * API exactly as the CLI drives it.  Header-only (static inline) so each
 * runner stays one file.
 */
#pragma once

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pep/name.h"
#include "pep/requirement.h"
#include "pep/tags.h"
#include "resolver/resolver.h"

struct mem_meta {
  char *version; /* normalised text */
  char *text;
};

struct mem_proj {
  char *name; /* normalised */
  struct ts_index_project page;
  const struct ts_index_project *self[1];
  size_t files_cap;
  struct mem_meta *metas;
  size_t nmetas, metas_cap;
};

struct mem_index {
  struct mem_proj *projs;
  size_t n, cap;
  size_t page_requests, meta_requests;
};

static inline void *mem_grow(void *p, size_t *cap, size_t need, size_t size) {
  if (need <= *cap)
    return p;
  size_t n = *cap ? *cap * 2 : 8;
  while (n < need)
    n *= 2;
  void *q = realloc(p, n * size);
  if (!q)
    abort();
  *cap = n;
  return q;
}

static inline char *mem_strdup(const char *s) {
  char *d = strdup(s ? s : "");
  if (!d)
    abort();
  return d;
}

static inline struct mem_proj *mem_find(struct mem_index *ix,
                                        const char *name) {
  char *norm = ts_name_normalize(name, strlen(name));
  struct mem_proj *r = NULL;
  for (size_t i = 0; i < ix->n && !r; i++)
    if (strcmp(ix->projs[i].name, norm) == 0)
      r = &ix->projs[i];
  free(norm);
  return r;
}

static inline struct mem_proj *mem_project(struct mem_index *ix,
                                           const char *name) {
  struct mem_proj *p = mem_find(ix, name);
  if (p)
    return p;
  ix->projs = mem_grow(ix->projs, &ix->cap, ix->n + 1, sizeof *ix->projs);
  p = &ix->projs[ix->n++];
  memset(p, 0, sizeof *p);
  p->name = ts_name_normalize(name, strlen(name));
  p->page.name = mem_strdup(p->name);
  p->page.index_url = mem_strdup("memory://index/");
  return p;
}

static inline void mem_add_file(struct mem_proj *p, const char *filename,
                                const char *requires_python, bool yanked) {
  p->page.files = mem_grow(p->page.files, &p->files_cap, p->page.nfiles + 1,
                           sizeof *p->page.files);
  struct ts_index_file *f = &p->page.files[p->page.nfiles++];
  memset(f, 0, sizeof *f);
  f->filename = mem_strdup(filename);
  size_t n = strlen(filename) + 32;
  f->url = malloc(n);
  if (!f->url)
    abort();
  snprintf(f->url, n, "memory://files/%s", filename);
  f->requires_python = requires_python ? mem_strdup(requires_python) : NULL;
  f->yanked = yanked;
  f->has_metadata = true;
  f->size = -1;
}

static inline void mem_add_meta(struct mem_proj *p, const char *version,
                                char *text /* taken */) {
  p->metas = mem_grow(p->metas, &p->metas_cap, p->nmetas + 1,
                      sizeof *p->metas);
  p->metas[p->nmetas].version = mem_strdup(version);
  p->metas[p->nmetas].text = text;
  p->nmetas++;
}

/* File-name form of a project name (wheel: '-' → '_'). */
static inline char *mem_dist_name(const char *name) {
  char *s = mem_strdup(name);
  for (char *c = s; *c; c++)
    if (*c == '-' || *c == '.')
      *c = '_';
  return s;
}

static inline void mem_free(struct mem_index *ix) {
  for (size_t i = 0; i < ix->n; i++) {
    struct mem_proj *p = &ix->projs[i];
    for (size_t k = 0; k < p->page.nfiles; k++) {
      free(p->page.files[k].filename);
      free(p->page.files[k].url);
      free(p->page.files[k].requires_python);
    }
    free(p->page.files);
    free(p->page.name);
    free(p->page.index_url);
    for (size_t k = 0; k < p->nmetas; k++) {
      free(p->metas[k].version);
      free(p->metas[k].text);
    }
    free(p->metas);
    free(p->name);
  }
  free(ix->projs);
  memset(ix, 0, sizeof *ix);
}

static inline enum ts_code mem_get_pages(void *ctx, const char *const *names,
                                         size_t n,
                                         struct ts_resolver_pages *out,
                                         struct ts_error *err) {
  struct mem_index *ix = ctx;
  (void)err;
  for (size_t i = 0; i < n; i++) {
    ix->page_requests++;
    struct mem_proj *p = mem_find(ix, names[i]);
    if (p) {
      p->self[0] = &p->page; /* the index is complete before resolving */
      out[i].projects = p->self;
      out[i].nprojects = 1;
    } else {
      out[i].projects = NULL;
      out[i].nprojects = 0;
    }
  }
  return TS_OK;
}

static inline enum ts_code mem_get_metadata(void *ctx,
                                            struct ts_resolver_meta *reqs,
                                            size_t n, struct ts_error *err) {
  struct mem_index *ix = ctx;
  (void)err;
  for (size_t i = 0; i < n; i++) {
    ix->meta_requests++;
    reqs[i].code = TS_E_NOT_FOUND;
    struct mem_proj *p = mem_find(ix, reqs[i].name);
    bool exact = false;
    for (size_t k = 0; p && k < p->nmetas && !exact; k++)
      if (strcmp(p->metas[k].version, reqs[i].version) == 0) {
        reqs[i].data = p->metas[k].text;
        reqs[i].len = strlen(p->metas[k].text);
        reqs[i].code = TS_OK;
        exact = true;
      }
    if (exact)
      continue;
    struct ts_version *want = NULL;
    if (!p || ts_version_parse(reqs[i].version, strlen(reqs[i].version),
                               &want, NULL) != TS_OK)
      continue;
    for (size_t k = 0; k < p->nmetas; k++) {
      struct ts_version *have = NULL;
      if (ts_version_parse(p->metas[k].version, strlen(p->metas[k].version),
                           &have, NULL) != TS_OK)
        continue;
      bool eq = ts_version_cmp(have, want) == 0;
      ts_version_free(have);
      if (eq) {
        reqs[i].data = p->metas[k].text;
        reqs[i].len = strlen(p->metas[k].text);
        reqs[i].code = TS_OK;
        break;
      }
    }
    ts_version_free(want);
  }
  return TS_OK;
}

/* A Linux CPython target. */
struct mem_target {
  char pyver[32], pyfull[32];
  struct ts_marker_env env;
  struct ts_tagset *tags;
  struct ts_resolver_target target;
};

static inline bool mem_target_init(struct mem_target *t, const char *python,
                                   int glibc_major, int glibc_minor,
                                   const char *arch) {
  memset(t, 0, sizeof *t);
  int maj = 3, min = 12, mic = 0;
  int got = sscanf(python, "%d.%d.%d", &maj, &min, &mic);
  if (got < 2)
    return false;
  snprintf(t->pyver, sizeof t->pyver, "%d.%d", maj, min);
  snprintf(t->pyfull, sizeof t->pyfull, "%d.%d.%d", maj, min,
           got == 3 ? mic : 0);
  t->env.implementation_name = "cpython";
  t->env.implementation_version = t->pyfull;
  t->env.os_name = "posix";
  t->env.platform_machine = arch;
  t->env.platform_python_implementation = "CPython";
  t->env.platform_release = "";
  t->env.platform_system = "Linux";
  t->env.platform_version = "";
  t->env.python_full_version = t->pyfull;
  t->env.python_version = t->pyver;
  t->env.sys_platform = "linux";
  struct ts_tag_target tt = {
      .python_major = maj,
      .python_minor = min,
      .implementation = "cp",
      .abi_flags = "",
      .libc = TS_LIBC_GLIBC,
      .libc_major = glibc_major,
      .libc_minor = glibc_minor,
      .arch = arch,
  };
  if (ts_tagset_build(&tt, &t->tags, NULL) != TS_OK)
    return false;
  t->target.markers = &t->env;
  t->target.tags = t->tags;
  t->target.python_full_version = t->pyfull;
  return true;
}

static inline void mem_target_free(struct mem_target *t) {
  ts_tagset_free(t->tags);
  t->tags = NULL;
}

/* Builds a METADATA text.  extras: pairs (extra name, requirement) where the
 * requirement is routed with `extra == "<name>"`. */
static inline char *mem_metadata(const char *name, const char *version,
                                 const char *requires_python,
                                 const char *const *reqs, size_t nreqs,
                                 const char *const *extra_names,
                                 const char *const *extra_reqs,
                                 size_t nextra_reqs) {
  char *buf = NULL;
  size_t len = 0;
  FILE *f = open_memstream(&buf, &len);
  if (!f)
    abort();
  fprintf(f, "Metadata-Version: 2.1\nName: %s\nVersion: %s\n", name, version);
  if (requires_python && requires_python[0])
    fprintf(f, "Requires-Python: %s\n", requires_python);
  for (size_t i = 0; i < nreqs; i++)
    fprintf(f, "Requires-Dist: %s\n", reqs[i]);
  const char *last = NULL;
  for (size_t i = 0; i < nextra_reqs; i++) {
    if (!last || strcmp(last, extra_names[i]) != 0)
      fprintf(f, "Provides-Extra: %s\n", extra_names[i]);
    last = extra_names[i];
    if (!extra_reqs[i])
      continue;
    const char *semi = strchr(extra_reqs[i], ';');
    if (semi)
      fprintf(f, "Requires-Dist: %.*s; (%s) and extra == \"%s\"\n",
              (int)(semi - extra_reqs[i]), extra_reqs[i], semi + 1,
              extra_names[i]);
    else
      fprintf(f, "Requires-Dist: %s; extra == \"%s\"\n", extra_reqs[i],
              extra_names[i]);
  }
  fputs("\n", f);
  fclose(f);
  return buf;
}
