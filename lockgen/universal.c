/* One lock for many environments: see lockgen/universal.h. */
#include "lockgen/universal.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/alloc.h"
#include "core/buf.h"
#include "core/str.h"
#include "core/vec.h"
#include "pep/filename.h"
#include "pep/requirement.h"
#include "pep/specifier.h"
#include "pep/version.h"
#include "lockgen/fleet.h"
#include "lockgen/lock.h"
#include "lockgen/profiles.h"
#include "plan/missing_wheels.h"
#include "target/target.h"

/* ---- the grid ------------------------------------------------------------ */

/* The dimensions, in the order markers are written and terms widened. */
enum { OS_LINUX, OS_DARWIN, OS_WIN32, NOS };
/* Systems beyond these: the other sys_platform values the requirements'
 * markers name ("freebsd13"), each a value of the system dimension. */
#define MAX_SYSTEMS 8
enum { ARCH_X86_64, ARCH_ARM64, NARCH };
enum { IMPL_CPYTHON, IMPL_PYPY, NIMPL };
enum { DIM_OS, DIM_ARCH, DIM_IMPL, DIM_MINOR, NDIMS };

/* The platform tag each (system, machine) is resolved with: glibc 2.28 is
 * the oldest the PyTorch wheels need, macOS 14 the newest release, so every
 * wheel a supported Mac runs fits. */
static const char *const platform_tag[NOS][NARCH] = {
    {"manylinux_2_28_x86_64", "manylinux_2_28_aarch64"},
    {"macosx_14_0_x86_64", "macosx_14_0_arm64"},
    {"win_amd64", "win_arm64"}};
static const char *const os_value[NOS] = {"linux", "darwin", "win32"};
static const char *const arch_word[NARCH] = {"x86_64", "arm64"};
static const char *const impl_word[NIMPL] = {"CPython", "PyPy"};

struct point {
  int v[NDIMS];          /* system, machine, implementation, minor index */
  char python[16];       /* "3.12", or "3.10.1" where requires-python starts there */
  struct ts_target *target;
  bool included;         /* requires-python and an --environment admit it */
  bool any_file;         /* resolved only with files of other tags */
  const struct ts_host *host; /* a profile's machine here; NULL: the base's */
  const char *backend;        /* the profile's build (only_backend), or NULL */
  struct ts_plan_result *res;
};

struct grid {
  int minors[TS_UNIVERSAL_NEWEST_MINOR + 1];
  size_t nminors;
  const char *systems[MAX_SYSTEMS]; /* sys_platform values: os_value, then
                                       the requirements' others (into them) */
  size_t nsystems;
  struct point *pts;     /* nminors * NIMPL * nsystems * NARCH */
  size_t n;
  size_t ndim[NDIMS];    /* values per dimension */
};

static size_t point_index(const struct grid *g, const int v[NDIMS]) {
  return (((size_t)v[DIM_MINOR] * NIMPL + (size_t)v[DIM_IMPL]) * g->nsystems +
          (size_t)v[DIM_OS]) * NARCH + (size_t)v[DIM_ARCH];
}

static char *describe(const struct grid *g, const struct point *p) {
  return ts_xasprintf("%s %s on %s %s", impl_word[p->v[DIM_IMPL]], p->python,
                      g->systems[p->v[DIM_OS]], arch_word[p->v[DIM_ARCH]]);
}

/* The target spec of a point: a system off the three is Linux's machine
 * with its own sys_platform (only platform-independent wheels fit). */
static struct ts_target_spec point_spec(const struct grid *g, const struct point *p) {
  int os = p->v[DIM_OS];
  return (struct ts_target_spec){
      .python_version = p->python,
      .platform = platform_tag[os < NOS ? os : OS_LINUX][p->v[DIM_ARCH]],
      .implementation = p->v[DIM_IMPL] == IMPL_PYPY ? "pp" : "cp",
      .sys_platform = os < NOS ? NULL : g->systems[os]};
}

/* The system dimension: linux, darwin, win32, then the other sys_platform
 * values the root requirements compare with, sorted (never their order). */
static void systems_of(struct grid *g, const struct ts_plan_options *base) {
  for (int os = 0; os < NOS; os++)
    g->systems[g->nsystems++] = os_value[os];
  const char *extra[MAX_SYSTEMS];
  size_t nextra = 0;
  for (size_t i = 0; i < base->nentries; i++) {
    const struct ts_reqfile_entry *e = base->entries[i];
    if (e->is_constraint || !e->req || !e->req->marker)
      continue;
    const char *lits[MAX_SYSTEMS];
    size_t n = ts_marker_literals(e->req->marker, "sys_platform", lits, MAX_SYSTEMS);
    for (size_t k = 0; k < n && k < MAX_SYSTEMS; k++) {
      bool known = false;
      for (size_t j = 0; j < NOS + nextra && !known; j++)
        known = strcmp(j < NOS ? os_value[j] : extra[j - NOS], lits[k]) == 0;
      if (!known && NOS + nextra < MAX_SYSTEMS)
        extra[nextra++] = lits[k];
    }
  }
  if (nextra > 1)
    qsort(extra, nextra, sizeof *extra, ts_strv_cmp);
  for (size_t i = 0; i < nextra; i++)
    g->systems[g->nsystems++] = extra[i];
}

/* The Python minors requires-python allows, each with the lowest release
 * it allows ("3.10.1" under ">=3.10.1"). */
static enum ts_code python_minors(struct grid *g, const char *requires_python,
                                  char first_release[][16], struct ts_error *err) {
  struct ts_specset *spec = NULL;
  if (ts_specset_parse(requires_python, strlen(requires_python), &spec, err) != TS_OK)
    return ts_error_set(err, TS_E_INVALID, "requires-python '%.100s' is not a PEP 440 "
                        "specifier set (e.g. '>=3.10')", requires_python);
  for (int minor = 0; minor <= TS_UNIVERSAL_NEWEST_MINOR; minor++)
    for (int patch = 0; patch < 50; patch++) {
      char text[16];
      snprintf(text, sizeof text, "3.%d.%d", minor, patch);
      struct ts_version *v = NULL;
      if (ts_version_parse(text, strlen(text), &v, NULL) != TS_OK)
        abort();
      bool in = ts_specset_contains(spec, v, TS_PRE_INCLUDE);
      ts_version_free(v);
      if (!in)
        continue;
      if (patch == 0)
        snprintf(text, sizeof text, "3.%d", minor);
      snprintf(first_release[g->nminors], 16, "%s", text);
      g->minors[g->nminors++] = minor;
      break;
    }
  ts_specset_free(spec);
  if (!g->nminors)
    return ts_error_set(err, TS_E_INVALID, "requires-python '%.100s' admits no Python 3.0 "
                        "to 3.%d", requires_python, TS_UNIVERSAL_NEWEST_MINOR);
  return TS_OK;
}

static enum ts_code grid_make(struct grid *g, const struct ts_universal_options *o,
                              struct ts_error *err) {
  char first[TS_UNIVERSAL_NEWEST_MINOR + 1][16];
  enum ts_code rc = python_minors(g, o->requires_python, first, err);
  if (rc != TS_OK)
    return rc;
  struct ts_marker **envs = ts_xcalloc(o->nenvironments + 1, sizeof *envs);
  for (size_t i = 0; i < o->nenvironments && rc == TS_OK; i++)
    if (ts_marker_parse(o->environments[i], strlen(o->environments[i]), &envs[i], err) != TS_OK)
      rc = ts_error_set(err, TS_E_INVALID, "--environment '%.100s' is not a PEP 508 marker "
                        "(e.g. \"sys_platform == 'linux'\")", o->environments[i]);
  systems_of(g, o->base);
  g->ndim[DIM_OS] = g->nsystems;
  g->ndim[DIM_ARCH] = NARCH;
  g->ndim[DIM_IMPL] = NIMPL;
  g->ndim[DIM_MINOR] = g->nminors;
  g->n = g->nminors * NIMPL * g->nsystems * NARCH;
  g->pts = ts_xcalloc(g->n, sizeof *g->pts);
  size_t nincluded = 0;
  for (size_t m = 0; m < g->nminors && rc == TS_OK; m++)
    for (int impl = 0; impl < NIMPL; impl++)
      for (int os = 0; os < (int)g->nsystems; os++)
        for (int arch = 0; arch < NARCH && rc == TS_OK; arch++) {
          int v[NDIMS] = {os, arch, impl, (int)m};
          struct point *p = &g->pts[point_index(g, v)];
          memcpy(p->v, v, sizeof v);
          snprintf(p->python, sizeof p->python, "%s", first[m]);
          struct ts_target_spec spec = point_spec(g, p);
          rc = ts_target_from_spec(&spec, &p->target, err);
          p->included = o->nenvironments == 0;
          for (size_t i = 0; rc == TS_OK && i < o->nenvironments && !p->included; i++)
            p->included = ts_marker_eval(envs[i], &p->target->markers, NULL);
          nincluded += p->included;
        }
  for (size_t i = 0; i < o->nenvironments; i++)
    ts_marker_free(envs[i]);
  free(envs);
  if (rc == TS_OK && !nincluded)
    rc = ts_error_set(err, TS_E_INVALID, "no environment of the grid (Linux, macOS, Windows on "
                      "x86_64/arm64, CPython/PyPy, Python %s) satisfies the --environment markers",
                      o->requires_python);
  return rc;
}

static void grid_clear(struct grid *g) {
  for (size_t i = 0; i < g->n; i++) {
    ts_target_free(g->pts[i].target);
    ts_plan_result_free(g->pts[i].res);
  }
  free(g->pts);
}

/* Solve order: oldest Python first (its answer is the one later points
 * are asked to keep: older Pythons limit more), CPython before PyPy,
 * Linux, macOS, Windows, other systems, x86_64 before arm64. */
static size_t solve_order(const struct grid *g, size_t k) {
  (void)g;
  return k;
}

/* ---- solving ---------------------------------------------------------------- */

struct prefs {
  struct ts_resolver_preference *v;
  size_t n, cap;
  char **owned;
  size_t nowned, owned_cap;
};

static const char *prefs_keep(struct prefs *ps, const char *s) {
  ps->owned = ts_vec_grow(ps->owned, &ps->owned_cap, ps->nowned + 1, sizeof *ps->owned);
  return ps->owned[ps->nowned++] = ts_xstrdup(s);
}

static void prefs_add(struct prefs *ps, const char *name, const char *version) {
  for (size_t i = 0; i < ps->n; i++)
    if (strcmp(ps->v[i].name, name) == 0)
      return; /* the first answer for a name is the one kept */
  ps->v = ts_vec_grow(ps->v, &ps->cap, ps->n + 1, sizeof *ps->v);
  ps->v[ps->n].name = prefs_keep(ps, name);
  ps->v[ps->n++].version = prefs_keep(ps, version);
}

static void prefs_clear(struct prefs *ps) {
  ts_strv_free(ps->owned, ps->nowned);
  free(ps->v);
}

/* Whether a file is a wheel the target's tags admit. */
static bool wheel_fits(const char *filename, const struct ts_target *t) {
  struct ts_wheel_filename *w = NULL;
  struct ts_error e = {0};
  size_t len = strlen(filename);
  if (ts_dist_kind_of(filename, len) != TS_DIST_WHEEL ||
      ts_wheel_filename_parse(filename, len, &w, &e) != TS_OK)
    return false;
  bool fits = ts_tagset_best_priority(t->tags, w->tags, w->ntags) >= 0;
  ts_wheel_filename_free(w);
  return fits;
}

static void add_line(char ***lines, size_t *n, char *line) {
  *lines = ts_xreallocarray(*lines, *n + 1, sizeof **lines);
  (*lines)[(*n)++] = line;
}

/* add_line, once per distinct line (every point says the same) */
static void add_unique(char ***lines, size_t *n, const char *line) {
  for (size_t i = 0; i < *n; i++)
    if (strcmp((*lines)[i], line) == 0)
      return;
  add_line(lines, n, ts_xstrdup(line));
}

/* The base's options for a point's target spec, preferring ps. */
static struct ts_plan_options point_options(const struct ts_universal_options *o,
                                            const struct point *p,
                                            const struct ts_target_spec *spec,
                                            const struct prefs *ps) {
  struct ts_plan_options po = *o->base;
  if (p->host) { /* judged against its own machine, as lock --profile */
    po.host = p->host;
    po.ignore_host = false;
    po.only_backend = p->backend;
  }
  po.python = NULL;
  po.spec = spec;
  po.read_installed = false;
  po.lock_env = false;
  po.preferences = ps->v;
  po.npreferences = ps->n;
  return po;
}

/* Resolves one point: with wheels of its tags, else with every file. */
static enum ts_code solve_point(const struct ts_universal_options *o, const struct grid *g,
                                struct point *p, const struct prefs *ps,
                                struct ts_missing_wheels *missing,
                                struct ts_universal_result *out, struct ts_error *err) {
  struct ts_target_spec spec = point_spec(g, p);
  struct ts_plan_options po = point_options(o, p, &spec, ps);
  enum ts_code rc = TS_E_RESOLVE;
  for (int any = 0; any < 2 && rc == TS_E_RESOLVE; any++) {
    po.any_file = any;
    ts_plan_result_free(p->res);
    p->res = NULL;
    *err = (struct ts_error){0};
    rc = ts_plan_resolve(&po, &p->res, err);
    out->nsolves++;
  }
  if (rc == TS_E_RESOLVE) {
    out->failed_env = describe(g, p);
    const struct ts_explanation *why = p->res && p->res->res ? &p->res->res->why : NULL;
    for (size_t i = 0; why && i < why->nlines; i++)
      add_line(&out->why, &out->nwhy, ts_xstrdup(why->lines[i]));
  }
  if (rc != TS_OK && rc != TS_E_RESOLVE) { /* a build: say which environment needed it */
    char *env = describe(g, p);
    ts_error_wrap(err, "%s", env);
    free(env);
  }
  if (rc != TS_OK)
    return rc;
  for (size_t i = 0; i < p->res->nnotes; i++)
    add_unique(&out->notes, &out->nnotes, p->res->notes[i]);
  p->any_file = po.any_file;
  for (size_t i = 0; po.any_file && i < p->res->res->nitems; i++) {
    const struct ts_resolved *r = &p->res->res->items[i];
    if (r->file && !wheel_fits(r->file->filename, p->target)) {
      /* what lock_files will list for the point: the sdist, else this */
      const struct ts_index_file **files = NULL;
      size_t n = ts_plan_version_files(p->res, r->name, r->version, &files);
      const char *listed = r->file->filename;
      for (size_t k = 0; k < n; k++)
        if (ts_dist_kind_of(files[k]->filename, strlen(files[k]->filename)) == TS_DIST_SDIST &&
            (listed == r->file->filename || strcmp(files[k]->filename, listed) < 0))
          listed = files[k]->filename;
      char *python = ts_xasprintf("%s %s", impl_word[p->v[DIM_IMPL]], p->python);
      ts_missing_wheels_add(missing, r->name, r->version, listed, g->systems[p->v[DIM_OS]],
                            arch_word[p->v[DIM_ARCH]], python);
      free(python);
      free(files);
    }
  }
  return TS_OK;
}

/* ---- markers ---------------------------------------------------------------- */

/* A product term: per dimension, the set of values it admits (bit i =
 * value i). */
struct term {
  uint64_t mask[NDIMS];
};

enum cover { EXCLUDED, COVERED, OFF_GRID };

static bool term_has(const struct term *t, const int v[NDIMS]) {
  for (int d = 0; d < NDIMS; d++)
    if (!(t->mask[d] >> v[d] & 1))
      return false;
  return true;
}

/* Whether the term takes in a grid point the entry must not cover. */
static bool term_hits_excluded(const struct grid *g, const enum cover *cv, const struct term *t) {
  for (size_t i = 0; i < g->n; i++)
    if (cv[i] == EXCLUDED && term_has(t, g->pts[i].v))
      return true;
  return false;
}

static bool term_subset(const struct term *a, const struct term *b) {
  for (int d = 0; d < NDIMS; d++)
    if (a->mask[d] & ~b->mask[d])
      return false;
  return true;
}

static char *render_terms(const struct grid *g, const struct term *t, size_t n);

/* Whether widening t to `wider` is worth it: always (greedy), else only
 * when a dimension becomes whole (its clause goes) or the term is written
 * no longer ("sys_platform == 'darwin'" does not become "(sys_platform ==
 * 'darwin' or sys_platform == 'win32')" for an off-grid Windows point). */
static bool widen_pays(const struct grid *g, const struct term *t, const struct term *wider,
                       int d, bool frugal) {
  if (!frugal || wider->mask[d] == ((uint64_t)1 << g->ndim[d]) - 1)
    return true;
  char *a = render_terms(g, t, 1), *b = render_terms(g, wider, 1);
  bool pays = strlen(b) <= strlen(a);
  free(a);
  free(b);
  return pays;
}

/* The terms of a marker true on the covered points and false on the
 * excluded ones: one term per covered point; terms that differ in one
 * dimension merged; each widened, value by value in dimension order, over
 * what excludes nothing (off-grid points are free; `frugal`: only where
 * widen_pays); terms inside others dropped.  Deterministic: every step
 * walks the grid's order. */
static size_t cover_terms(const struct grid *g, const enum cover *cv, bool frugal,
                          struct term **out) {
  struct term *t = NULL;
  size_t n = 0, cap = 0;
  for (size_t i = 0; i < g->n; i++) {
    if (cv[i] != COVERED)
      continue;
    t = ts_vec_grow(t, &cap, n + 1, sizeof *t);
    for (int d = 0; d < NDIMS; d++)
      t[n].mask[d] = (uint64_t)1 << g->pts[i].v[d];
    n++;
  }
  for (bool merged = true; merged;) {
    merged = false;
    for (size_t a = 0; a < n && !merged; a++)
      for (size_t b = a + 1; b < n && !merged; b++) {
        int diff = -1, ndiff = 0;
        for (int d = 0; d < NDIMS; d++)
          if (t[a].mask[d] != t[b].mask[d]) {
            diff = d;
            ndiff++;
          }
        if (ndiff > 1)
          continue;
        if (diff >= 0)
          t[a].mask[diff] |= t[b].mask[diff];
        t[b] = t[--n];
        merged = true;
      }
  }
  for (size_t a = 0; a < n; a++)
    for (int d = 0; d < NDIMS; d++)
      for (size_t v = 0; v < g->ndim[d]; v++) {
        struct term wider = t[a];
        wider.mask[d] |= (uint64_t)1 << v;
        if (wider.mask[d] != t[a].mask[d] && !term_hits_excluded(g, cv, &wider) &&
            widen_pays(g, &t[a], &wider, d, frugal))
          t[a] = wider;
      }
  for (size_t a = 0; a < n;) {
    bool inside = false;
    for (size_t b = 0; b < n && !inside; b++)
      inside = b != a && term_subset(&t[a], &t[b]) &&
               (!term_subset(&t[b], &t[a]) || b < a);
    if (inside) {
      memmove(&t[a], &t[a + 1], (n - a - 1) * sizeof *t);
      n--;
    } else {
      a++;
    }
  }
  *out = t;
  return n;
}

static void put(struct ts_buf *b, const char *s) {
  ts_buf_xappend_str(b, s);
}

/* Conditions joined by `op`; a list of more than one is parenthesized
 * when `paren` (an `or` list: a term and-s its conditions, and `and`
 * binds tighter). */
struct conds {
  char *v[16]; /* at most MAX_SYSTEMS systems, 8 runs of minors */
  size_t n;
};

static void conds_add(struct conds *c, char *s) {
  if (c->n < sizeof c->v / sizeof *c->v)
    c->v[c->n++] = s;
  else
    free(s);
}

static char *conds_join(struct conds *c, const char *op, bool paren) {
  struct ts_buf b;
  ts_buf_init(&b, 0);
  if (paren && c->n > 1)
    put(&b, "(");
  for (size_t i = 0; i < c->n; i++) {
    if (i)
      put(&b, op);
    put(&b, c->v[i]);
    free(c->v[i]);
  }
  if (paren && c->n > 1)
    put(&b, ")");
  c->n = 0;
  put(&b, "");
  return b.data;
}

/* sys_platform: a set holding Linux is written as "none of the others",
 * so that systems off the grid go with Linux. */
static char *os_condition(const struct grid *g, uint64_t mask) {
  struct conds c = {0};
  bool with_linux = mask & 1;
  for (size_t os = 0; os < g->nsystems; os++)
    if (with_linux ? !(mask >> os & 1) : (mask >> os & 1))
      conds_add(&c, ts_xasprintf("sys_platform %s '%s'", with_linux ? "!=" : "==",
                                 g->systems[os]));
  return conds_join(&c, with_linux ? " and " : " or ", !with_linux);
}

/* platform_machine: the arm64 spellings of the systems the term admits
 * (Linux "aarch64", macOS "arm64", Windows "ARM64"; Linux standing for
 * other systems too brings "arm64"); x86_64 is "none of them", so that
 * other machines (i686...) go with it. */
static char *arch_condition(uint64_t arch_mask, uint64_t os_mask) {
  const char *names[4];
  size_t n = 0;
  uint64_t others = os_mask >> NOS; /* systems off the three spell it as Linux */
  if (os_mask & (1u << OS_LINUX) || others)
    names[n++] = "aarch64";
  if (os_mask & ((1u << OS_LINUX) | (1u << OS_DARWIN)) || others)
    names[n++] = "arm64";
  if (os_mask & (1u << OS_WIN32))
    names[n++] = "ARM64";
  bool arm = arch_mask == (1u << ARCH_ARM64);
  struct conds c = {0};
  for (size_t i = 0; i < n; i++)
    conds_add(&c, ts_xasprintf("platform_machine %s '%s'", arm ? "==" : "!=", names[i]));
  return conds_join(&c, arm ? " or " : " and ", arm);
}

/* python_full_version over runs of consecutive minors; the grid's first
 * minor needs no lower bound (requires-python has it), its last no upper
 * one (newer Pythons go with the newest). */
static char *minor_condition(const struct grid *g, uint64_t mask) {
  struct conds runs = {0};
  for (size_t i = 0; i < g->nminors;) {
    if (!(mask >> i & 1)) {
      i++;
      continue;
    }
    size_t j = i;
    while (j + 1 < g->nminors && (mask >> (j + 1) & 1))
      j++;
    struct conds c = {0};
    if (i > 0)
      conds_add(&c, ts_xasprintf("python_full_version >= '3.%d'", g->minors[i]));
    if (j + 1 < g->nminors)
      conds_add(&c, ts_xasprintf("python_full_version < '3.%d'", g->minors[j + 1]));
    conds_add(&runs, conds_join(&c, " and ", false));
    i = j + 1;
  }
  return conds_join(&runs, " or ", true);
}

/* The entry's marker, or NULL when it covers every point of the grid. */
/* The terms as a marker: each the and of its dimensions' conditions (a
 * whole dimension none), the terms or-ed.  malloc'd. */
static char *render_terms(const struct grid *g, const struct term *t, size_t n) {
  struct ts_buf b;
  ts_buf_init(&b, 0);
  for (size_t k = 0; k < n; k++) {
    struct conds c = {0};
    uint64_t full[NDIMS];
    for (int d = 0; d < NDIMS; d++)
      full[d] = ((uint64_t)1 << g->ndim[d]) - 1;
    if (t[k].mask[DIM_OS] != full[DIM_OS])
      conds_add(&c, os_condition(g, t[k].mask[DIM_OS]));
    if (t[k].mask[DIM_ARCH] != full[DIM_ARCH])
      conds_add(&c, arch_condition(t[k].mask[DIM_ARCH], t[k].mask[DIM_OS]));
    if (t[k].mask[DIM_IMPL] != full[DIM_IMPL])
      conds_add(&c, ts_xasprintf("implementation_name %s 'pypy'",
                                 t[k].mask[DIM_IMPL] == (1u << IMPL_PYPY) ? "==" : "!="));
    if (t[k].mask[DIM_MINOR] != full[DIM_MINOR])
      conds_add(&c, minor_condition(g, t[k].mask[DIM_MINOR]));
    /* a lone condition that is itself a list needs no parentheses */
    if (c.n == 1 && c.v[0][0] == '(') {
      size_t len = strlen(c.v[0]);
      memmove(c.v[0], c.v[0] + 1, len - 2);
      c.v[0][len - 2] = '\0';
    }
    char *s = conds_join(&c, " and ", false);
    if (k)
      put(&b, " or ");
    put(&b, s);
    free(s);
  }
  put(&b, "");
  return b.data;
}

/* The entry's marker, or NULL when it covers every point of the grid: the
 * shorter of the greedy and the frugal cover (the greedy one on a tie);
 * both hold on exactly the covered points of the grid. */
static char *cover_marker(const struct grid *g, const enum cover *cv) {
  bool all = true;
  for (size_t i = 0; i < g->n && all; i++)
    all = cv[i] != EXCLUDED;
  if (all)
    return NULL;
  char *best = NULL;
  for (int frugal = 0; frugal < 2; frugal++) {
    struct term *t = NULL;
    size_t n = cover_terms(g, cv, frugal, &t);
    char *m = render_terms(g, t, n);
    free(t);
    if (!best || strlen(m) < strlen(best)) {
      free(best);
      best = m;
    } else {
      free(m);
    }
  }
  return best;
}

/* ---- merging ---------------------------------------------------------------- */

struct entry {
  const char *name, *version; /* into the first covering point's resolution */
  bool *covers;               /* per point */
  size_t first;               /* the first covering point */
  size_t item;                /* its item there */
};

static int entry_cmp(const void *a, const void *b) {
  const struct entry *x = a, *y = b;
  int c = strcmp(x->name, y->name);
  return c ? c : strcmp(x->version, y->version);
}

static size_t collect_entries(const struct grid *g, struct entry **out) {
  struct entry *e = NULL;
  size_t n = 0, cap = 0;
  for (size_t i = 0; i < g->n; i++) {
    const struct point *p = &g->pts[i];
    if (!p->res)
      continue;
    for (size_t k = 0; k < p->res->res->nitems; k++) {
      const struct ts_resolved *r = &p->res->res->items[k];
      size_t j = 0;
      while (j < n && (strcmp(e[j].name, r->name) != 0 || strcmp(e[j].version, r->version) != 0))
        j++;
      if (j == n) {
        e = ts_vec_grow(e, &cap, n + 1, sizeof *e);
        e[n] = (struct entry){.name = r->name, .version = r->version,
                              .covers = ts_xcalloc(g->n, sizeof(bool)), .first = i, .item = k};
        n++;
      }
      e[j].covers[i] = true;
    }
  }
  if (n)
    qsort(e, n, sizeof *e, entry_cmp);
  *out = e;
  return n;
}

static const struct ts_plan_item *item_of(const struct point *p, const char *name) {
  for (size_t k = 0; k < p->res->res->nitems; k++)
    if (strcmp(p->res->res->items[k].name, name) == 0)
      return &p->res->items[k];
  return NULL;
}

/* The entry's files: every wheel of the version a covered point's tags
 * admit; for a covered point none fits, the sdist, else the file it was
 * resolved with. */
static enum ts_code lock_files(const struct grid *g, const struct entry *e, const char *output,
                               struct ts_pylock_package *pkg, struct ts_error *err) {
  struct point *first = &g->pts[e->first];
  const struct ts_plan_item *pi = &first->res->items[e->item];
  const struct ts_index_file **files = NULL;
  size_t nfiles = ts_plan_version_files(first->res, e->name, e->version, &files);
  bool *take = ts_xcalloc(nfiles + 1, sizeof *take);
  const struct ts_index_file *sdist = NULL;
  const struct ts_index_file **extra = NULL;
  size_t nextra = 0, extra_cap = 0;
  for (size_t k = 0; k < nfiles; k++)
    if (ts_dist_kind_of(files[k]->filename, strlen(files[k]->filename)) == TS_DIST_SDIST &&
        (!sdist || strcmp(files[k]->filename, sdist->filename) < 0))
      sdist = files[k];
  bool need_sdist = false;
  for (size_t i = 0; i < g->n; i++) {
    if (!e->covers[i])
      continue;
    bool fitted = false;
    for (size_t k = 0; k < nfiles; k++)
      if (wheel_fits(files[k]->filename, g->pts[i].target))
        fitted = take[k] = true;
    if (fitted)
      continue;
    if (sdist) {
      need_sdist = true;
      continue;
    }
    const struct ts_plan_item *own = item_of(&g->pts[i], e->name);
    const struct ts_index_file *f = own ? own->r->file : NULL;
    bool have = !f;
    for (size_t k = 0; k < nfiles && !have; k++)
      have = take[k] && strcmp(files[k]->filename, f->filename) == 0;
    for (size_t k = 0; k < nextra && !have; k++)
      have = strcmp(extra[k]->filename, f->filename) == 0;
    if (!have) {
      extra = ts_vec_grow(extra, &extra_cap, nextra + 1, sizeof *extra);
      extra[nextra++] = f;
    }
  }
  enum ts_code rc = TS_OK;
  for (size_t k = 0; k < nfiles && rc == TS_OK; k++)
    if (take[k] || (need_sdist && files[k] == sdist))
      rc = ts_plan_lock_file(first->res, pi, files[k], output, pkg, err);
  for (size_t k = 0; k < nextra && rc == TS_OK; k++)
    rc = ts_plan_lock_file(first->res, pi, extra[k], output, pkg, err);
  if (rc == TS_OK && !pkg->nwheels && !pkg->sdist)
    rc = ts_plan_lock_file(first->res, pi, pi->r->file, output, pkg, err);
  free(extra);
  free(take);
  free(files);
  return rc;
}

/* The entry's package, without marker: what every environment that
 * chose the version locks (dependencies of all of them, their files). */
static enum ts_code lock_entry(const struct grid *g, const struct entry *e, const char *output,
                               struct ts_pylock *lock, struct ts_error *err) {
  struct point *first = &g->pts[e->first];
  const struct ts_plan_item *pi = &first->res->items[e->item];
  struct ts_pylock_package *pkg = ts_pylock_add_package(lock, e->name, e->version);
  if (!pkg)
    abort();
  char **deps = NULL;
  size_t ndeps = 0;
  for (size_t i = 0; i < g->n; i++)
    if (e->covers[i]) {
      const struct point *p = &g->pts[i];
      ts_plan_item_dependencies(item_of(p, e->name), p->res->res, &p->res->target->markers,
                                &deps, &ndeps);
    }
  ts_plan_lock_dependencies(pkg, deps, ndeps);
  ts_plan_lock_index(pkg, pi);
  enum ts_code rc = lock_files(g, e, output, pkg, err);
  /* PEP 825: every variant of the wheels the environments chose, with the
   * variants.json, so that sync chooses per host as for a plain lock */
  for (size_t i = 0; i < g->n && rc == TS_OK; i++) {
    const struct ts_plan_item *own = e->covers[i] ? item_of(&g->pts[i], e->name) : NULL;
    if (own && own->r->file && !own->is_path)
      rc = ts_plan_lock_variant_wheels(g->pts[i].res, own, own->r->file, output, pkg, err);
  }
  return rc;
}

/* Environments with the same answer (the same entries) form one input of
 * ts_fleet_merge (lockgen/fleet.h): their lock holds those entries, their
 * condition is the marker of exactly their points.  Entries several
 * answers share are identical in each, so the merge writes them once under
 * the or of those conditions, and unmarked when every answer has them. */
struct answer {
  bool *points;        /* per grid point */
  bool *entries;       /* per entry */
  struct ts_pylock *lock;
  char *condition;
};

static bool same_entries(const bool *a, const bool *b, size_t n) {
  return memcmp(a, b, n * sizeof *a) == 0;
}

static size_t answers_of(const struct grid *g, const struct entry *e, size_t ne,
                         struct answer **out) {
  struct answer *an = NULL;
  size_t n = 0, cap = 0;
  bool *mine = ts_xcalloc(ne + 1, sizeof *mine);
  for (size_t i = 0; i < g->n; i++) {
    if (!g->pts[i].res)
      continue;
    for (size_t k = 0; k < ne; k++)
      mine[k] = e[k].covers[i];
    size_t a = 0;
    while (a < n && !same_entries(an[a].entries, mine, ne))
      a++;
    if (a == n) {
      an = ts_vec_grow(an, &cap, n + 1, sizeof *an);
      an[n] = (struct answer){.points = ts_xcalloc(g->n, sizeof(bool)),
                              .entries = ts_xcalloc(ne + 1, sizeof(bool))};
      memcpy(an[n].entries, mine, ne * sizeof *mine);
      n++;
    }
    an[a].points[i] = true;
  }
  free(mine);
  *out = an;
  return n;
}

/* [tool.torchsolve.universal]: the values the solved points take in each
 * dimension, in the grid's order. */
static void record_grid(const struct grid *g, struct ts_pylock *lock) {
  static const char *const impl_name[NIMPL] = {"cpython", "pypy"};
  bool used[NDIMS][64] = {{false}};
  const char *python[TS_UNIVERSAL_NEWEST_MINOR + 1] = {NULL};
  for (size_t i = 0; i < g->n; i++)
    if (g->pts[i].included) {
      for (int d = 0; d < NDIMS; d++)
        used[d][g->pts[i].v[d]] = true;
      python[g->pts[i].v[DIM_MINOR]] = g->pts[i].python;
    }
  const char *v[NDIMS][64];
  size_t n[NDIMS] = {0};
  for (size_t k = 0; k < g->ndim[DIM_OS]; k++)
    if (used[DIM_OS][k])
      v[DIM_OS][n[DIM_OS]++] = g->systems[k];
  for (size_t k = 0; k < NARCH; k++)
    if (used[DIM_ARCH][k])
      v[DIM_ARCH][n[DIM_ARCH]++] = arch_word[k];
  for (size_t k = 0; k < NIMPL; k++)
    if (used[DIM_IMPL][k])
      v[DIM_IMPL][n[DIM_IMPL]++] = impl_name[k];
  for (size_t k = 0; k < g->nminors; k++)
    if (used[DIM_MINOR][k])
      v[DIM_MINOR][n[DIM_MINOR]++] = python[k];
  struct ts_pylock_grid rec = {
      .systems = (char **)v[DIM_OS], .nsystems = n[DIM_OS],
      .machines = (char **)v[DIM_ARCH], .nmachines = n[DIM_ARCH],
      .implementations = (char **)v[DIM_IMPL], .nimplementations = n[DIM_IMPL],
      .pythons = (char **)v[DIM_MINOR], .npythons = n[DIM_MINOR]};
  ts_pylock_set_grid(lock, &rec);
}

static enum ts_code merge(const struct ts_universal_options *o, const struct grid *g,
                          struct ts_pylock **out, struct ts_error *err) {
  struct entry *e = NULL;
  size_t ne = collect_entries(g, &e);
  struct ts_pylock *entries = ts_pylock_new();
  enum ts_code rc = TS_OK;
  for (size_t i = 0; i < ne && rc == TS_OK; i++)
    rc = lock_entry(g, &e[i], o->output, entries, err);
  struct answer *an = NULL;
  size_t nan = rc == TS_OK ? answers_of(g, e, ne, &an) : 0;
  struct ts_fleet_input *in = ts_xcalloc(nan + 1, sizeof *in);
  enum cover *cv = ts_xcalloc(g->n, sizeof *cv);
  for (size_t a = 0; a < nan; a++) {
    an[a].lock = ts_pylock_new();
    for (size_t k = 0; k < ne; k++)
      if (an[a].entries[k] && !ts_pylock_copy_package(an[a].lock, &entries->packages[k]))
        abort(); /* entries read back: lock_entry built them */
    for (size_t i = 0; i < g->n; i++)
      cv[i] = !g->pts[i].included ? OFF_GRID : an[a].points[i] ? COVERED : EXCLUDED;
    an[a].condition = cover_marker(g, cv);
    in[a] = (struct ts_fleet_input){.lock = an[a].lock, .condition = an[a].condition};
  }
  free(cv);
  struct ts_pylock *lock = NULL;
  if (rc == TS_OK)
    rc = ts_fleet_merge(in, nan, &lock, err);
  for (size_t a = 0; a < nan; a++) {
    ts_pylock_free(an[a].lock);
    free(an[a].condition);
    free(an[a].points);
    free(an[a].entries);
  }
  free(an);
  free(in);
  for (size_t i = 0; i < ne; i++)
    free(e[i].covers);
  free(e);
  ts_pylock_free(entries);
  if (rc != TS_OK)
    return rc;
  lock->requires_python = ts_xstrdup(o->requires_python);
  if (o->nenvironments) {
    lock->environments = ts_xcalloc(o->nenvironments, sizeof *lock->environments);
    for (size_t i = 0; i < o->nenvironments; i++)
      lock->environments[i] = ts_xstrdup(o->environments[i]);
    lock->nenvironments = o->nenvironments;
  }
  /* what it was locked for: the grid and the rules its builds met; no
   * host's facts (it is for every machine) */
  for (size_t i = 0; i < g->n; i++)
    if (g->pts[i].res)
      ts_plan_lock_rule_ids(g->pts[i].res, lock);
  record_grid(g, lock);
  *out = lock;
  return TS_OK;
}

/* ---- one version where the environments allow it ---------------------------- */

static const char *version_in(const struct ts_plan_result *res, const char *name) {
  for (size_t k = 0; k < res->res->nitems; k++)
    if (strcmp(res->res->items[k].name, name) == 0)
      return res->res->items[k].version;
  return NULL;
}

/* Whether two resolved versions are builds of one release ("2.9.1+cpu",
 * "2.9.1+cu126", "2.9.1"): they differ only in the local label, which
 * names the variant the point's machine runs, so unifying them would press
 * one machine's build on another (a macOS point's CPU torch on the Linux
 * points of a cu126 profile). */
static bool same_release(const char *a, const char *b) {
  size_t la = strcspn(a, "+"), lb = strcspn(b, "+");
  return la == lb && memcmp(a, b, la) == 0;
}

/* Point p solved again preferring name==version, then its own answer,
 * then the others': the new result when it keeps that version, else
 * NULL. */
static struct ts_plan_result *resolve_towards(const struct ts_universal_options *o,
                                              const struct grid *g, const struct point *p, const struct prefs *ps,
                                              const char *name, const char *version,
                                              size_t *nsolves) {
  struct prefs want = {0};
  prefs_add(&want, name, version);
  for (size_t k = 0; k < p->res->res->nitems; k++)
    prefs_add(&want, p->res->res->items[k].name, p->res->res->items[k].version);
  for (size_t k = 0; k < ps->n; k++)
    prefs_add(&want, ps->v[k].name, ps->v[k].version);
  struct ts_target_spec spec = point_spec(g, p);
  struct ts_plan_options po = point_options(o, p, &spec, &want);
  po.any_file = p->any_file;
  struct ts_plan_result *res = NULL;
  struct ts_error err = {0};
  (*nsolves)++;
  enum ts_code rc = ts_plan_resolve(&po, &res, &err);
  const char *got = rc == TS_OK ? version_in(res, name) : NULL;
  if (!got || !same_release(got, version)) {
    ts_plan_result_free(res);
    res = NULL;
  }
  prefs_clear(&want);
  return res;
}

/* Moves every point holding `name` at another release to `version`, all
 * or none; true when some moved.  Points holding another build of that
 * release keep theirs. */
static bool unify_on(const struct ts_universal_options *o, struct grid *g, const struct prefs *ps,
                     const char *name, const char *version, size_t *nsolves) {
  struct ts_plan_result **moved = ts_xcalloc(g->n, sizeof *moved);
  bool all = true, any = false;
  for (size_t i = 0; i < g->n && all; i++) {
    const struct point *p = &g->pts[i];
    const char *have = p->res ? version_in(p->res, name) : NULL;
    if (have && !same_release(have, version)) {
      all = (moved[i] = resolve_towards(o, g, p, ps, name, version, nsolves)) != NULL;
      any = true;
    }
  }
  for (size_t i = 0; i < g->n; i++) {
    if (!moved[i])
      continue;
    if (all) {
      ts_plan_result_free(g->pts[i].res);
      g->pts[i].res = moved[i];
    } else {
      ts_plan_result_free(moved[i]);
    }
  }
  free(moved);
  return all && any;
}

struct candidate {
  const char *version;
  struct ts_version *v;
  size_t points;
};

static int candidate_cmp(const void *a, const void *b) {
  const struct candidate *x = a, *y = b;
  if (x->points != y->points)
    return x->points > y->points ? -1 : 1;
  int c = ts_version_cmp(y->v, x->v);
  return c ? c : strcmp(x->version, y->version);
}

static size_t collect_entries(const struct grid *g, struct entry **out);

/* Where environments chose several versions of a project, the one that
 * most of them chose (then the newest) is offered to the others, then the
 * next: the first that every one of them can take replaces theirs (uv
 * keeps a fork's versions for the next fork the same way; this also finds
 * the single version when a later environment's limit rules out the
 * first's).  Until nothing moves. */
static void unify(const struct ts_universal_options *o, struct grid *g, const struct prefs *ps,
                  size_t *nsolves) {
  for (bool changed = true; changed;) {
    changed = false;
    struct entry *e = NULL;
    size_t n = collect_entries(g, &e);
    for (size_t i = 0; i < n && !changed;) {
      size_t j = i;
      while (j < n && strcmp(e[j].name, e[i].name) == 0)
        j++;
      if (j - i > 1) {
        struct candidate *c = ts_xcalloc(j - i, sizeof *c);
        for (size_t k = i; k < j; k++) {
          c[k - i].version = e[k].version;
          if (ts_version_parse(e[k].version, strlen(e[k].version), &c[k - i].v, NULL) != TS_OK)
            abort(); /* a resolved version is PEP 440 */
          for (size_t q = 0; q < g->n; q++)
            c[k - i].points += e[k].covers[q];
        }
        qsort(c, j - i, sizeof *c, candidate_cmp);
        for (size_t k = 0; k < j - i && !changed; k++)
          changed = unify_on(o, g, ps, e[i].name, c[k].version, nsolves);
        for (size_t k = 0; k < j - i; k++)
          ts_version_free(c[k].v);
        free(c);
      }
      i = j;
    }
    for (size_t k = 0; k < n; k++)
      free(e[k].covers);
    free(e);
  }
}

/* ---- GPU profiles ------------------------------------------------------------ */

/* The machine a profile stands for at each (system, machine) of the grid,
 * hosts[system * NARCH + machine]: its GPU facts on that machine (rules.yaml
 * lists builds per machine: "aarch64" for Linux on arm64), except on macOS,
 * where none of rules.yaml's GPU backends has builds (CUDA, ROCm and XPU
 * wheels are Linux and Windows ones): there it is a CPU machine, so that
 * its extra selects the CPU build, as the default does. */
static enum ts_code profile_hosts(const struct ts_profile *pr, const struct ts_rules *rules,
                                  const struct grid *g, struct ts_host *hosts,
                                  struct ts_error *err) {
  static const char *const machine[NOS][NARCH] = {
      {"x86_64", "aarch64"}, {"x86_64", "arm64"}, {"x86_64", "ARM64"}};
  const struct ts_profile cpu = {.backend = (char *)"cpu", .extra = (char *)"cpu"};
  enum ts_code rc = TS_OK;
  for (size_t os = 0; os < g->nsystems && rc == TS_OK; os++)
    for (int arch = 0; arch < NARCH && rc == TS_OK; arch++) {
      struct ts_host base = {.machine = (char *)machine[os < NOS ? os : OS_LINUX][arch],
                             .os = (char *)g->systems[os]};
      rc = ts_profile_host(os == OS_DARWIN ? &cpu : pr, rules, &base,
                           &hosts[os * NARCH + (size_t)arch], err);
    }
  return rc;
}

/* The facts a profile was locked for: those of its machine's GPU stack
 * (no machine's own: the lock is for every one). */
static enum ts_code record_profile_facts(const struct ts_profile *pr,
                                         const struct ts_rules *rules, struct ts_pylock *lock,
                                         struct ts_error *err) {
  struct ts_host h;
  enum ts_code rc = ts_profile_host(pr, rules, NULL, &h, err);
  struct ts_rules_options ro = {.ignore_host = false};
  struct ts_constraint_set set = {0};
  if (rc == TS_OK && (rc = ts_rules_compile(rules, &h, &ro, &set, err)) == TS_OK)
    ts_plan_lock_facts(&set, lock);
  ts_constraint_set_clear(&set);
  ts_host_clear(&h);
  return rc;
}

/* Whether an existing lock's version is a preference for the profile: a
 * build of another variant ("2.9.1+cpu" for cu126) is none. */
static bool preference_fits(const char *version, const struct ts_profile *pr) {
  const char *plus = strchr(version, '+');
  return !pr || !plus || strcmp(plus + 1, pr->backend) == 0;
}

/* ---- one grid ------------------------------------------------------------------ */

/* Every point of the grid resolved (for profile pr: on its machine) and
 * merged into *lock. */
static enum ts_code lock_grid(const struct ts_universal_options *o, const struct ts_profile *pr,
                              struct ts_pylock **lock, struct ts_missing_wheels *missing,
                              struct ts_universal_result *out, struct ts_error *err) {
  struct grid g = {0};
  struct ts_host hosts[MAX_SYSTEMS * NARCH];
  memset(hosts, 0, sizeof hosts);
  enum ts_code rc = grid_make(&g, o, err);
  if (rc == TS_OK && pr)
    rc = profile_hosts(pr, o->base->rules, &g, hosts, err);
  for (size_t i = 0; rc == TS_OK && pr && i < g.n; i++) {
    g.pts[i].host = &hosts[(size_t)g.pts[i].v[DIM_OS] * NARCH + (size_t)g.pts[i].v[DIM_ARCH]];
    g.pts[i].backend = pr->backend;
  }
  /* --resolution lowest(-direct) asks each environment for its own
   * lowest versions: no environment's choice is pressed on the others */
  bool highest = o->base->resolution == TS_RESOLUTION_HIGHEST;
  struct prefs ps = {0};
  for (size_t i = 0; i < o->base->npreferences; i++) {
    const struct ts_resolver_preference *p = &o->base->preferences[i];
    if (!preference_fits(p->version, pr))
      continue;
    ps.v = ts_vec_grow(ps.v, &ps.cap, ps.n + 1, sizeof *ps.v);
    ps.v[ps.n].name = prefs_keep(&ps, p->name);
    ps.v[ps.n++].version = prefs_keep(&ps, p->version);
  }
  out->npoints = 0;
  for (size_t k = 0; k < g.n && rc == TS_OK; k++) {
    struct point *p = &g.pts[solve_order(&g, k)];
    if (!p->included)
      continue;
    rc = solve_point(o, &g, p, &ps, missing, out, err);
    out->npoints++;
    for (size_t i = 0; rc == TS_OK && i < p->res->res->nitems; i++)
      prefs_add(&ps, p->res->res->items[i].name, p->res->res->items[i].version);
  }
  if (rc == TS_OK && highest)
    unify(o, &g, &ps, &out->nsolves);
  if (rc == TS_OK)
    rc = merge(o, &g, lock, err);
  if (rc == TS_OK && pr)
    rc = record_profile_facts(pr, o->base->rules, *lock, err);
  prefs_clear(&ps);
  grid_clear(&g);
  for (size_t i = 0; i < MAX_SYSTEMS * NARCH; i++)
    ts_host_clear(&hosts[i]);
  return rc;
}

/* Every grid, one per profile (or the one without), merged. */
static enum ts_code lock_grids(const struct ts_universal_options *o,
                               struct ts_missing_wheels *missing,
                               struct ts_universal_result *out, struct ts_error *err) {
  if (!o->nprofiles)
    return lock_grid(o, NULL, &out->lock, missing, out, err);
  enum ts_code rc = ts_profiles_check_distinct(o->profiles, o->nprofiles, err);
  struct ts_pylock **locks = ts_xcalloc(o->nprofiles, sizeof *locks);
  for (size_t i = 0; i < o->nprofiles && rc == TS_OK; i++) {
    const struct ts_profile *pr = &o->profiles[i];
    if ((rc = lock_grid(o, pr, &locks[i], missing, out, err)) == TS_OK)
      continue;
    ts_error_wrap(err, "profile %s", pr->name);
    if (out->failed_env) {
      char *env = ts_xasprintf("%s, profile %s", out->failed_env, pr->name);
      free(out->failed_env);
      out->failed_env = env;
    }
  }
  if (rc == TS_OK)
    rc = ts_plan_profiles_merge(o->profiles, o->nprofiles, locks, &out->lock, err);
  for (size_t i = 0; i < o->nprofiles; i++)
    ts_pylock_free(locks[i]);
  free(locks);
  return rc;
}

/* ts_plan_universal_lock, its options' sdists prepared as it says. */
static enum ts_code lock_universal(const struct ts_universal_options *o,
                                   struct ts_universal_result *out, struct ts_error *err) {
  memset(out, 0, sizeof *out);
  if (!o->requires_python)
    return ts_error_set(err, TS_E_INVALID, "a universal lock needs requires-python");
  struct ts_missing_wheels *missing = ts_missing_wheels_new();
  enum ts_code rc = lock_grids(o, missing, out, err);
  ts_missing_wheels_lines(missing, &out->notes, &out->nnotes);
  ts_missing_wheels_free(missing);
  return rc;
}

enum ts_code ts_plan_universal_lock(const struct ts_universal_options *o,
                                    struct ts_universal_result *out, struct ts_error *err) {
  if (!o->base->build)
    return lock_universal(o, out, err);
  /* the grid's environments have no interpreter: an sdist's METADATA is
   * prepared by the one the lock runs with (none found: such an sdist
   * needs PEP 658 METADATA) */
  struct ts_target *host = NULL;
  struct ts_error ignore = {0};
  struct ts_source_build_options bo = *o->base->build;
  if (ts_target_open(o->base->python, NULL, o->base->probe_cache_dir, &host, &ignore) ==
      TS_OK)
    bo.metadata_python = host->python;
  struct ts_plan_options base = *o->base;
  base.build = &bo;
  struct ts_universal_options uo = *o;
  uo.base = &base;
  enum ts_code rc = lock_universal(&uo, out, err);
  ts_target_free(host);
  return rc;
}

void ts_universal_result_clear(struct ts_universal_result *r) {
  ts_pylock_free(r->lock);
  ts_strv_free(r->notes, r->nnotes);
  ts_strv_free(r->why, r->nwhy);
  free(r->failed_env);
  memset(r, 0, sizeof *r);
}

enum ts_code ts_plan_default_requires_python(const char *python, const char *probe_cache_dir,
                                             char **out, struct ts_error *err) {
  *out = NULL;
  struct ts_target *t = NULL;
  enum ts_code rc = ts_target_open(python, NULL, probe_cache_dir, &t, err);
  if (rc != TS_OK) {
    struct ts_error why = *err;
    ts_error_set(err, rc, "a universal lock covers the Pythons of requires-python: pass "
                 "--requires-python (no interpreter to take it from: %s)", why.detail);
    return rc;
  }
  *out = ts_xasprintf(">=%d.%d", t->python_major, t->python_minor);
  ts_target_free(t);
  return TS_OK;
}
