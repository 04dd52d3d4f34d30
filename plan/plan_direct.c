/* Roots given as a path, a URL or a source to build (plan_state.h's
 * `fetched.directs`): each becomes a one-file page and a requirement on
 * its name, so the resolver never sees a URL. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "core/alloc.h"
#include "core/str.h"
#include "core/buf.h"
#include "pep/filename.h"
#include "pep/metadata.h"
#include "pep/name.h"
#include "pep/version.h"
#include "plan/plan_internal.h"
#include "plan/plan_state.h"

struct ts_plan_direct *ts_plan_find_direct(const struct ts_plan_state *p, const char *name) {
  for (size_t i = 0; i < p->fetched.ndirects; i++)
    if (strcmp(p->fetched.directs[i].name, name) == 0)
      return &p->fetched.directs[i];
  return NULL;
}

static enum ts_code parse_req(const char *text, struct ts_requirement **out,
                              struct ts_error *err) {
  return ts_requirement_parse(text, strlen(text), out, err);
}

static char *file_url_for(const char *path) {
  char *abs = realpath(path, NULL);
  const char *use = abs ? abs : path;
  size_t n = strlen(use) + 8;
  char *u = ts_xcalloc(n, 1);
  snprintf(u, n, "file://%s", use);
  free(abs);
  return u;
}

static const char *basename_of(const char *s) {
  const char *q = strchr(s, '?');
  const char *h = strchr(s, '#');
  size_t end = strlen(s);
  if (q && (size_t)(q - s) < end)
    end = (size_t)(q - s);
  if (h && (size_t)(h - s) < end)
    end = (size_t)(h - s);
  const char *b = s;
  for (size_t i = 0; i < end; i++)
    if (s[i] == '/')
      b = s + i + 1;
  return b;
}

/* A root given as a path or URL: a one-file page and a requirement on the
 * name alone (the page holds nothing else).  A source stands as the wheel
 * built from it (`built`), or for --dry-run as its prepared METADATA
 * (`prepared`, taken) on a page with an sdist-like file NAME-VERSION.tar.gz,
 * so the plan says it would be built. */
static enum ts_code add_direct(struct ts_plan_state *p, const struct ts_reqfile_entry *e,
                               struct ts_source_built *built, struct ts_plan_meta *prepared,
                               struct ts_error *err) {
  const char *name = NULL, *loc = NULL;
  bool is_path = false;
  const char *const *extras = NULL;
  size_t nextras = 0;
  const char *marker = NULL;
  if (e->kind == TS_REQFILE_NAMED) {
    name = e->req->normalized_name;
    loc = e->req->url;
    extras = (const char *const *)e->req->extras;
    nextras = e->req->nextras;
    is_path = strncmp(loc, "file://", 7) == 0;
  } else {
    name = e->name;
    loc = e->kind == TS_REQFILE_URL ? e->url : e->path;
    is_path = e->kind == TS_REQFILE_PATH;
    extras = (const char *const *)e->extras;
    nextras = e->nextras;
    marker = e->marker;
  }
  const char *source = loc;
  char *built_name = NULL, *stand_in = NULL;
  if (prepared) {
    char *n = ts_metadata_header_value(prepared->data, prepared->len, "Name");
    char *v = ts_metadata_header_value(prepared->data, prepared->len, "Version");
    if (n && v) {
      built_name = ts_name_normalize(n, strlen(n));
      stand_in = ts_xasprintf("%s-%s.tar.gz", built_name, v);
    }
    free(n);
    free(v);
    if (!stand_in)
      return ts_error_set(err, TS_E_BUILD, "'%s': its prepared METADATA has no Name "
                          "or Version", source);
  }
  if (built) { /* the wheel built from the source stands for it */
    loc = built->wheel;
    is_path = true;
    struct ts_wheel_filename *w = NULL;
    const char *bn = basename_of(loc);
    if (ts_wheel_filename_parse(bn, strlen(bn), &w, NULL) == TS_OK) {
      built_name = ts_xstrdup(w->normalized_name);
      ts_wheel_filename_free(w);
    }
    if (!built_name)
      return ts_error_set(err, TS_E_BUILD, "'%s': the backend built '%s', which is "
                          "not a valid wheel name", source, bn);
  }
  if (built_name) {
    if (name && strcmp(name, built_name) != 0) {
      enum ts_code rc = ts_error_set(err, TS_E_BUILD,
                                     "'%s' was asked for as '%s' but builds '%s'",
                                     source, name, built_name);
      free(built_name);
      free(stand_in);
      return rc;
    }
    name = built_name;
  }
  if (!name)
    return ts_error_set(err, TS_E_UNSUPPORTED,
                        "cannot tell the project name of '%s' (only wheel files "
                        "are supported)", loc ? loc : e->text);
  const char *fname = stand_in ? stand_in : basename_of(loc);
  size_t fl = strlen(fname);
  if (!stand_in && (fl < 5 || strcmp(fname + fl - 4, ".whl") != 0))
    return ts_error_set(err, TS_E_UNSUPPORTED,
                        "'%s' is not a wheel: torchsolve installs wheels only", loc);
  if (is_path && strncmp(loc, "file://", 7) != 0) {
    struct stat st;
    if (stat(loc, &st) != 0)
      return ts_error_set(err, TS_E_NOT_FOUND, "no such file: '%s'", loc);
  }
  struct ts_plan_fetched *fe = &p->fetched;
  fe->directs = ts_xrealloc(fe->directs, (fe->ndirects + 1) * sizeof *fe->directs);
  struct ts_plan_direct *d = &p->fetched.directs[p->fetched.ndirects++];
  memset(d, 0, sizeof *d);
  d->name = ts_name_normalize(name, strlen(name));
  free(built_name);
  name = d->name;
  d->e = e;
  d->location = ts_xstrdup(built ? source : loc);
  if (built) {
    d->built = *built;
    memset(built, 0, sizeof *built);
  }
  if (prepared) {
    d->prepared = *prepared;
    memset(prepared, 0, sizeof *prepared);
  }
  d->is_path = is_path;
  d->file.filename = ts_xstrdup(fname);
  free(stand_in);
  d->file.url = is_path && strncmp(loc, "file://", 7) != 0 ? file_url_for(loc) : ts_xstrdup(loc);
  /* a --hash of a source is its archive's, checked before the build */
  const char *h = d->built.wheel ? NULL : ts_plan_entry_only_sha256(e);
  d->file.sha256 = h ? ts_xstrdup(h) : NULL;
  d->file.size = -1;
  d->page.res.project.name = ts_xstrdup(d->name);
  d->page.res.project.index_url = ts_xstrdup(d->file.url);
  d->page.res.project.files = &d->file;
  d->page.res.project.nfiles = 1;
  /* self is set once the array stops moving (fix_directs) */
  struct ts_buf b;
  ts_buf_init(&b, 4096);
  bool ok = ts_buf_append_str(&b, d->name) == TS_OK;
  for (size_t i = 0; i < nextras; i++)
    ok = ok && ts_buf_printf(&b, "%s%s", i ? "," : "[", extras[i]) == TS_OK;
  if (nextras)
    ok = ok && ts_buf_append_str(&b, "]") == TS_OK;
  /* the file's own version: an installed other version does not satisfy
   * "install this file" (pip replaces it) */
  if (e->kind != TS_REQFILE_NAMED && e->version)
    ok = ok && ts_buf_printf(&b, "===%s", e->version) == TS_OK;
  if (marker)
    ok = ok && ts_buf_printf(&b, "; %s", marker) == TS_OK;
  struct ts_requirement *r = NULL;
  enum ts_code rc = ok && b.data ? parse_req(b.data, &r, err)
                                 : ts_error_set(err, TS_E_TOO_BIG, "requirement too long");
  ts_buf_clear(&b);
  if (rc != TS_OK)
    return rc;
  p->ask.roots = ts_xrealloc(p->ask.roots, (p->ask.nroots + 1) * sizeof *p->ask.roots);
  p->ask.roots[p->ask.nroots++] = r;
  return TS_OK;
}

struct ts_plan_direct *ts_plan_built_direct(const struct ts_plan_state *p, const char *name) {
  char *norm = ts_name_normalize(name, strlen(name));
  struct ts_plan_direct *d = norm ? ts_plan_find_direct(p, norm) : NULL;
  free(norm);
  return d && (d->built.wheel || d->prepared.data) ? d : NULL;
}

void ts_plan_mark_rebuilt(const struct ts_plan_state *p, struct ts_resolved *x) {
  for (size_t k = 0; k < p->env.site.n; k++) {
    const char *iv = p->env.site.dists[k].version;
    struct ts_plan_direct *d = iv ? ts_plan_built_direct(p, p->env.site.dists[k].name) : NULL;
    if (!d || strcmp(d->name, x->name) != 0 || x->action != TS_ACTION_INSTALL)
      continue;
    struct ts_version *a = NULL, *b = NULL;
    int c = 0;
    if (ts_version_parse(iv, strlen(iv), &a, NULL) == TS_OK &&
        ts_version_parse(x->version, strlen(x->version), &b, NULL) == TS_OK)
      c = ts_version_cmp(b, a);
    ts_version_free(a);
    ts_version_free(b);
    x->action = c > 0 ? TS_ACTION_UPGRADE : c < 0 ? TS_ACTION_DOWNGRADE : TS_ACTION_REINSTALL;
    free(x->installed_version);
    x->installed_version = ts_xstrdup(iv);
  }
}

/* Points each direct's page at its own members once the array stops
 * moving (add_direct reallocates it: two path requirements would
 * otherwise leave the first page's file pointing into freed memory). */
static void fix_directs(struct ts_plan_state *p) {
  for (size_t i = 0; i < p->fetched.ndirects; i++) {
    struct ts_plan_direct *d = &p->fetched.directs[i];
    d->page.res.project.files = &d->file;
    d->page.self[0] = &d->page.res.project;
  }
}

/* One direct requirement: a source is built first (or, for --dry-run,
 * its METADATA prepared), then it is added as its page. */
static enum ts_code add_entry(struct ts_plan_state *p, const struct ts_plan_options *o,
                              const struct ts_reqfile_entry *e, struct ts_error *err) {
  struct ts_plan_result *r = p->in.owner;
  struct ts_source_spec src;
  struct ts_source_built built = {0};
  bool source = ts_source_of(e, &src);
  if (source && !o->build)
    return ts_error_set(err, TS_E_UNSUPPORTED, "'%s' must be built from source, "
                        "which is not done here", src.location);
  if (source && ts_resolver_format_forbidden(o->no_binary, o->nno_binary, o->only_binary,
                                             o->nonly_binary, src.name, true))
    return ts_error_set(err, TS_E_UNSUPPORTED, "'%s' must be built from source, which "
                        "--only-binary (or --no-build) forbids", src.location);
  struct ts_plan_meta prepared = {0};
  enum ts_code rc = TS_OK;
  if (source && o->dry_run) {
    src.sha256 = ts_plan_entry_only_sha256(e);
    rc = ts_source_build_metadata(&p->in.build, r->target, r->idx, &src, &prepared.data,
                                  &prepared.len, &r->build_log, err);
    if (rc != TS_OK)
      return rc;
  } else if (source) {
    src.sha256 = ts_plan_entry_only_sha256(e);
    rc = ts_source_build(&p->in.build, r->target, r->idx, &src, &built, err);
    if (rc != TS_OK) {
      r->build_log = built.log;
      built.log = NULL;
      ts_source_built_clear(&built);
      return rc;
    }
    if (built.torch)
      ts_plan_pin_runtime_torch(p, built.torch);
  }
  rc = add_direct(p, e, source && !o->dry_run ? &built : NULL,
                  prepared.data ? &prepared : NULL, err);
  free(prepared.data);
  ts_source_built_clear(&built);
  return rc;
}

enum ts_code ts_plan_add_directs(struct ts_plan_state *p, const struct ts_plan_options *o,
                                 struct ts_error *err) {
  enum ts_code rc = TS_OK;
  for (size_t i = 0; i < o->nentries && rc == TS_OK; i++) {
    const struct ts_reqfile_entry *e = o->entries[i];
    if (!e->is_constraint && (e->kind != TS_REQFILE_NAMED || e->req->url))
      rc = add_entry(p, o, e, err);
  }
  if (rc == TS_OK)
    fix_directs(p);
  return rc;
}
