/*
 * resolver/explain.c — libsolv problems turned into sentences in PEP 440
 * terms: real versions (never ranks or solvable ids), the requirement as
 * written, rule ids with their message and fix, the host facts involved,
 * and hints about versions that exist but were left out (pre-releases,
 * yanked files, sdist-only versions, Requires-Python).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/alloc.h"
#include "core/buf.h"
#include "core/str.h"
#include "index/url.h"
#include "pep/filename.h"
#include "resolver/state.h"
#include "rules/rules.h"

#include <solv/problems.h>
#include <solv/rules.h>

struct line {
  int prio;
  char *text;     /* for a group: the part after the versions */
  char *group;    /* "name" when versions of one project share the text */
  char **vers;
  size_t nvers;
};

struct lines {
  struct line *v;
  size_t n, cap;
};

static void add_line(struct lines *ls, int prio, char *text) {
  for (size_t i = 0; i < ls->n; i++)
    if (!ls->v[i].group && strcmp(ls->v[i].text, text) == 0) {
      free(text);
      return;
    }
  ls->v = ts_rs_grow(ls->v, &ls->cap, ls->n + 1, sizeof *ls->v);
  memset(&ls->v[ls->n], 0, sizeof ls->v[ls->n]);
  ls->v[ls->n].prio = prio;
  ls->v[ls->n].text = text;
  ls->n++;
}

static void add_group(struct lines *ls, int prio, const char *name,
                      const char *version, char *rest) {
  for (size_t i = 0; i < ls->n; i++) {
    struct line *l = &ls->v[i];
    if (l->group && !strcmp(l->group, name) && !strcmp(l->text, rest)) {
      free(rest);
      for (size_t k = 0; k < l->nvers; k++)
        if (!strcmp(l->vers[k], version))
          return;
      l->vers = ts_xrealloc(l->vers, (l->nvers + 1) * sizeof *l->vers);
      l->vers[l->nvers++] = ts_xstrdup(version);
      return;
    }
  }
  ls->v = ts_rs_grow(ls->v, &ls->cap, ls->n + 1, sizeof *ls->v);
  struct line *l = &ls->v[ls->n++];
  memset(l, 0, sizeof *l);
  l->prio = prio;
  l->text = rest;
  l->group = ts_xstrdup(name);
  l->vers = ts_xmalloc(sizeof *l->vers);
  l->vers[0] = ts_xstrdup(version);
  l->nvers = 1;
}

/* A term as the user reads it (state.h). */
char *ts_rs_term_text(const struct ts_term *t) {
  const char *spec = t->spec ? ts_specset_str(t->spec) : "";
  /* a host fact in words ("NVIDIA driver >=525.60.13"), not the solver's name */
  if (t->name[0] == '_' && t->name[1] == '_') {
    char *words = ts_rules_fact_words(t->name);
    char *text = ts_xasprintf("%s%s%s", words, spec[0] ? " " : "", spec);
    free(words);
    return text;
  }
  if (t->local_pattern)
    return ts_xasprintf("%s%s%s+%s", t->name, spec[0] ? "" : "",
                        spec, t->local_pattern[0] ? t->local_pattern : "(none)");
  return ts_xasprintf("%s%s%s", t->name, spec[0] && !strchr("<>=!~", spec[0]) ? " " : "", spec);
}

/* Turns a group into its sentence: "a 1.99, 1.98, 1.97 and 47 more need
 * b>=2 (version 2.0)". */
static void finish_group(struct line *l) {
  if (!l->group)
    return;
  char buf[512];
  size_t len = (size_t)snprintf(buf, sizeof buf, "%s ", l->group);
  size_t shown = l->nvers > 4 ? 3 : l->nvers;
  for (size_t k = 0; k < shown && len < sizeof buf; k++)
    len += (size_t)snprintf(buf + len, sizeof buf - len, "%s%s",
                            k ? (k + 1 == l->nvers ? " and " : ", ") : "",
                            l->vers[k]);
  if (shown < l->nvers && len < sizeof buf)
    snprintf(buf + len, sizeof buf - len, " and %zu more", l->nvers - shown);
  char *t = ts_xasprintf("%s %s%s", buf, l->nvers > 1 ? "need" : "needs",
                         l->text);
  free(l->text);
  l->text = t;
  free(l->group);
  l->group = NULL;
  for (size_t k = 0; k < l->nvers; k++)
    free(l->vers[k]);
  free(l->vers);
  l->vers = NULL;
}

static char *solvable_text(struct rs *rs, Id p) {
  if (p <= 0 || (size_t)p >= rs->si_cap || rs->si[p].kind == RS_NONE)
    return ts_xstrdup(pool_solvid2str(rs->pool, p));
  struct rs_sinfo *si = &rs->si[p];
  switch (si->kind) {
  case RS_CAND:
  case RS_INST: {
    struct rs_proj *pj = &rs->projs[si->proj];
    return ts_xasprintf("%s %s%s", pj->name, pj->vers[si->ver].text,
                        si->kind == RS_INST ? " (installed)" : "");
  }
  case RS_EXTRA: {
    struct rs_proj *pj = &rs->projs[si->proj];
    return ts_xasprintf("%s[%s] %s", pj->name, pj->extras[si->extra].name,
                        pj->vers[si->ver].text);
  }
  case RS_FACT: {
    struct rs_fact *f = &rs->facts[si->ver];
    return f->version ? ts_xasprintf("%s %s", f->name, f->version)
                      : ts_xstrdup(f->name);
  }
  case RS_CONSTRAINTS:
    return ts_xstrdup("the constraints (-c)");
  default:
    return ts_xstrdup(pool_solvid2str(rs->pool, p));
  }
}

static const struct rs_dep *find_dep(struct rs *rs, Id p, Id dep) {
  if (p <= 0 || (size_t)p >= rs->si_cap || rs->si[p].kind == RS_NONE)
    return NULL;
  for (int d = rs->si[p].first_dep; d >= 0; d = rs->deps[d].next)
    if (rs->deps[d].dep == dep)
      return &rs->deps[d];
  return NULL;
}

static const struct rs_job *find_job(struct rs *rs, Id dep) {
  for (int j = 0; j + 1 < rs->jobs.count; j += 2)
    if (rs->jobs.elements[j + 1] == dep && rs->job_info[j / 2].text)
      return &rs->job_info[j / 2];
  return NULL;
}

/* The newest version on page pr that spec admits (any, without spec), as
 * text into buf; false when there is none. */
static bool newest_fitting(const struct ts_index_project *pr, const struct ts_specset *spec,
                           char *buf, size_t size) {
  struct ts_version *best = NULL;
  for (size_t i = 0; i < pr->nfiles; i++) {
    const char *fn = pr->files[i].filename;
    size_t n = strlen(fn);
    struct ts_error ignore = {0};
    struct ts_wheel_filename *w = NULL;
    struct ts_sdist_filename *sd = NULL;
    struct ts_version **v = NULL;
    if (ts_wheel_filename_parse(fn, n, &w, &ignore) == TS_OK)
      v = &w->version;
    else if (ts_sdist_filename_parse(fn, n, &sd, &ignore) == TS_OK)
      v = &sd->version;
    if (v && (!spec || ts_specset_contains(spec, *v, TS_PRE_DEFAULT)) &&
        (!best || ts_version_cmp(*v, best) > 0)) {
      ts_version_free(best);
      best = *v;
      *v = NULL; /* taken */
    }
    if (w)
      ts_wheel_filename_free(w);
    if (sd)
      ts_sdist_filename_free(sd);
  }
  if (!best)
    return false;
  snprintf(buf, size, "%s", ts_version_str(best));
  ts_version_free(best);
  return true;
}

/* An index the request did not consult that has a fitting version: the
 * fix is a flag away, but a deliberate one (first-index is the guard
 * against dependency confusion), so the hint says what it costs. */
static void elsewhere_hint(struct rs *rs, const struct rs_proj *pj,
                           const struct ts_specset *spec, struct lines *ls) {
  if (!rs->provider->get_pages_elsewhere)
    return;
  const struct ts_index_project *pages[8];
  size_t n = rs->provider->get_pages_elsewhere(rs->provider->ctx, pj->name, pages, 8);
  for (size_t i = 0; i < n; i++) {
    char ver[128];
    if (!newest_fitting(pages[i], spec, ver, sizeof ver))
      continue;
    char *url = ts_url_redact(pages[i]->index_url);
    add_line(ls, 8, ts_xasprintf("hint: %s also has %s %s, which fits; it was not "
                                 "asked because a project comes from the first "
                                 "index that has it: add --index-strategy "
                                 "unsafe-best-match if you trust every index",
                                 url ? url : "another index", pj->name, ver));
    free(url);
    return;
  }
}

/* The tags of version v's wheels on pj's pages ("py3-none-win_amd64,
 * cp311-cp311-macosx_11_0_arm64"), sorted, each once, at most 6 and "…";
 * malloc'd. */
static char *wheel_tags_text(const struct rs_proj *pj, const struct rs_ver *v) {
  char *tags[6];
  size_t n = 0;
  bool more = false;
  for (size_t k = 0; k < pj->npages; k++)
    for (size_t f = 0; f < pj->pages[k]->nfiles; f++) {
      const char *fn = pj->pages[k]->files[f].filename;
      struct ts_rs_fname p;
      if (!fn || !ts_rs_fname_parse(fn, NULL, &p))
        continue;
      bool same = p.wheel && strcmp(p.normalized_name, pj->name) == 0 &&
                  ts_version_cmp(p.version, v->v) == 0;
      ts_rs_fname_clear(&p);
      size_t l = strlen(fn);
      if (!same || l < 4)
        continue;
      /* the last three '-' fields before ".whl": python-abi-platform */
      const char *t = fn + l - 4;
      for (int dashes = 0; t > fn && dashes < 3; t--)
        dashes += t[-1] == '-';
      char *tag = ts_xstrndup(t + 1, (size_t)(fn + l - 4 - t - 1));
      bool dup = false;
      for (size_t i = 0; i < n && !dup; i++)
        dup = strcmp(tags[i], tag) == 0;
      if (dup || n == 6) {
        more = more || !dup;
        free(tag);
        continue;
      }
      tags[n++] = tag;
    }
  qsort(tags, n, sizeof *tags, ts_strv_cmp);
  struct ts_buf b;
  ts_buf_init(&b, 0);
  for (size_t i = 0; i < n; i++) {
    ts_buf_xprintf(&b, "%s%s", i ? ", " : "", tags[i]);
    free(tags[i]);
  }
  if (more)
    ts_buf_xappend_str(&b, ", …");
  return b.data ? ts_buf_take(&b, NULL) : ts_xstrdup("");
}

/* Versions of pj that exist but were left out although they are in spec. */
static void hints(struct rs *rs, int proj, const struct ts_specset *spec,
                  struct lines *ls) {
  if (proj < 0)
    return;
  struct rs_proj *pj = &rs->projs[proj];
  if (!pj->found && pj->inst_ver < 0) {
    if (pj->not_found) /* names the URLs: a mistyped index shows at once */
      add_line(ls, 8, ts_xasprintf("hint: %s; check the name and the index URL",
                                   pj->not_found));
    else
      add_line(ls, 8, ts_xasprintf("hint: no index has a project named '%s'",
                                   pj->name));
    return;
  }
  if (pj->nvers == 0) {
    /* a page with nothing of this project: say what it does list, so that
     * a wrong "name @ url" or a broken mirror page is recognised */
    if (pj->nfiles == 0)
      add_line(ls, 8, ts_xasprintf("hint: the index page of %s lists no files",
                                   pj->name));
    else if (pj->other_file)
      add_line(ls, 8, ts_xasprintf("hint: the index page of %s lists no file of "
                                   "%s, only other projects' (%s)",
                                   pj->name, pj->name, pj->other_file));
    else
      add_line(ls, 8, ts_xasprintf("hint: the index page of %s lists no wheel or "
                                   "sdist file name torchsolve can read (%s)",
                                   pj->name, pj->unreadable_file));
    return;
  }
  int shown = 0, matched = 0;
  bool pre_named = rs->req->pre || (spec && ts_specset_names_prerelease(spec));
  bool final_fits = false;
  for (size_t i = 0; i < pj->nvers; i++)
    if ((pj->vers[i].solv || pj->vers[i].inst_solv) && !pj->vers[i].pre &&
        (!spec || ts_specset_contains(spec, pj->vers[i].v, TS_PRE_INCLUDE)))
      final_fits = true;
  for (size_t k = pj->nvers; k-- > 0 && shown < 4;) {
    struct rs_ver *v = &pj->vers[k];
    if (spec && !ts_specset_contains(spec, v->v, TS_PRE_INCLUDE))
      continue;
    matched++;
    char *h = NULL;
    if (v->yank_blocked)
      h = ts_xasprintf("hint: %s %s would fit but is yanked%s%s; pin it "
                       "with ==%s to use it anyway",
                       pj->name, v->text,
                       v->file && v->file->yanked_reason ? ": " : "",
                       v->file && v->file->yanked_reason
                           ? v->file->yanked_reason
                           : "",
                       v->text);
    else if (v->python_blocked)
      h = ts_xasprintf("hint: %s %s would fit but requires Python %s; the "
                       "target is Python %s",
                       pj->name, v->text, v->python_blocked,
                       rs->target->python_full_version
                           ? rs->target->python_full_version
                           : "?");
    else if (v->no_binary_blocked && !v->has_sdist)
      h = ts_xasprintf("hint: %s %s has only wheels, and --no-binary forbids "
                       "them: no source build is possible",
                       pj->name, v->text);
    else if (v->no_binary_blocked)
      h = ts_xasprintf("hint: %s %s would fit but --no-binary forbids its "
                       "wheels, and torchsolve installs wheels only",
                       pj->name, v->text);
    else if (v->only_binary_blocked && !v->has_compatible_wheel)
      h = ts_xasprintf("hint: %s %s would fit but has only a source "
                       "distribution, and --only-binary (or --no-build) "
                       "forbids building it",
                       pj->name, v->text);
    else if (!v->has_wheel && v->has_sdist)
      h = ts_xasprintf("hint: %s %s would fit but has only a source "
                       "distribution, which is not built here",
                       pj->name, v->text);
    else if (v->has_wheel && !v->has_compatible_wheel) {
      const struct ts_tagset *ts = rs->target->tags;
      char *want = ts && ts_tagset_count(ts) ? ts_tag_str(ts_tagset_at(ts, 0)) : NULL;
      char *have = wheel_tags_text(pj, v);
      h = ts_xasprintf("hint: %s %s would fit but has no wheel for this "
                       "Python and platform: the target's best tag is %s "
                       "(of %zu it takes); its wheels are tagged %s",
                       pj->name, v->text, want ? want : "(none)",
                       ts ? ts_tagset_count(ts) : (size_t)0, have);
      free(want);
      free(have);
    }
    else if (v->pre && !pre_named && final_fits)
      h = ts_xasprintf("hint: the pre-release %s %s would fit; allow it "
                       "with --pre or by asking for %s>=%s",
                       pj->name, v->text, pj->name, v->text);
    if (h) {
      add_line(ls, 8, h);
      shown++;
    }
  }
  if (!matched && pj->nvers) {
    char buf[256];
    size_t len = 0;
    int listed = 0;
    buf[0] = '\0';
    /* newest first by PEP 440, not by rank: the rank order puts
     * pre-releases last and is reversed by --resolution lowest, and the
     * reader wants to see how far the published versions go */
    const struct ts_version *prev = NULL;
    while (listed < 6) {
      size_t k = pj->nvers;
      for (size_t i = 0; i < pj->nvers; i++)
        if ((!prev || ts_version_cmp(pj->vers[i].v, prev) < 0) &&
            (k == pj->nvers || ts_version_cmp(pj->vers[i].v, pj->vers[k].v) > 0))
          k = i;
      if (k == pj->nvers)
        break;
      prev = pj->vers[k].v;
      int w = snprintf(buf + len, sizeof buf - len, "%s%s",
                       listed ? ", " : "", pj->vers[k].text);
      if (w < 0 || (size_t)w >= sizeof buf - len)
        break;
      len += (size_t)w;
      listed++;
    }
    add_line(ls, 8, ts_xasprintf("hint: %s has %s%s; none of them is %s",
                                 pj->name, buf,
                                 pj->nvers > (size_t)listed ? ", ..." : "",
                                 spec ? ts_specset_str(spec) : "?"));
    elsewhere_hint(rs, pj, spec, ls);
  }
}

static char *join_terms(const struct ts_term *t, size_t n, const char *sep) {
  char *s = ts_xstrdup("");
  for (size_t i = 0; i < n; i++) {
    char *tt = ts_rs_term_text(&t[i]);
    char *ns = ts_xasprintf("%s%s%s", s, i ? sep : "", tt);
    free(tt);
    free(s);
    s = ns;
  }
  return s;
}

/* A GPU target fact in words: "__gfx1101" is the AMD GPU gfx1101,
 * "__cc_7.0" a GPU of compute capability 7.0.  False for other facts. */
static bool gpu_fact(const char *name, const char **what, bool *amd) {
  if (strncmp(name, "__gfx", 5) == 0) {
    *what = name + 2;
    *amd = true;
    return true;
  }
  if (strncmp(name, "__cc_", 5) == 0) {
    *what = name + 5;
    *amd = false;
    return true;
  }
  return false;
}

/* "an AMD GPU gfx900, gfx906 or gfx942", "a GPU of compute capability
 * 7.0": NULL unless every term is a GPU target of one kind. */
static char *gpu_terms_text(const struct ts_term *t, size_t n) {
  char buf[600] = "";
  size_t len = 0;
  bool first_amd = false;
  for (size_t i = 0; i < n; i++) {
    const char *what;
    bool amd;
    if (!gpu_fact(t[i].name, &what, &amd) || (i && amd != first_amd))
      return NULL;
    first_amd = amd;
    int w = snprintf(buf + len, sizeof buf - len, "%s%s",
                     !i ? "" : i + 1 == n ? " or " : ", ", what);
    if (w < 0 || (size_t)w >= sizeof buf - len)
      return NULL;
    len += (size_t)w;
  }
  if (!n)
    return NULL;
  return ts_xasprintf("%s%s", first_amd ? "an AMD GPU " : "a GPU of compute capability ",
                      buf);
}

/* "this host has __rocm 6.2.0 (from /opt/rocm/.info/version)": the same
 * words whether a rule or the fact's own install job names it, so that
 * the two give one line.  A GPU target reads as the host's GPU ("this
 * host's GPU is gfx1101"). */
static char *fact_text(const struct rs_fact *f) {
  const char *what;
  bool amd;
  if (gpu_fact(f->name, &what, &amd))
    return ts_xasprintf("this host's GPU %s %s%s%s%s", amd ? "is" : "has compute capability",
                        what, f->source ? " (from " : "", f->source ? f->source : "",
                        f->source ? ")" : "");
  char *words = ts_rules_fact_words(f->name);
  char *text = ts_xasprintf("this host has %s%s%s%s%s%s", words,
                            f->version ? " " : "", f->version ? f->version : "",
                            f->source ? " (from " : "", f->source ? f->source : "",
                            f->source ? ")" : "");
  free(words);
  return text;
}

/* A GPU target the host lacks is answered with the GPUs it has, once
 * (not "this host has no __gfx900" for every target a build carries). */
static void own_gpu_lines(struct rs *rs, bool amd, struct lines *ls) {
  bool any = false;
  for (size_t i = 0; i < rs->nfacts; i++) {
    const char *what;
    bool is_amd;
    if (gpu_fact(rs->facts[i].name, &what, &is_amd) && is_amd == amd) {
      add_line(ls, 6, fact_text(&rs->facts[i]));
      any = true;
    }
  }
  if (!any)
    add_line(ls, 6, ts_xstrdup(amd ? "this host has no AMD GPU" : "this host has no NVIDIA GPU"));
}

static void fact_lines(struct rs *rs, const struct ts_term *t, size_t n,
                       bool present_only, struct lines *ls) {
  for (size_t i = 0; i < n; i++) {
    if (t[i].name[0] != '_' || t[i].name[1] != '_')
      continue;
    struct rs_fact *f = ts_rs_fact(rs, t[i].name);
    const char *what;
    bool amd;
    if (f)
      add_line(ls, 6, fact_text(f));
    else if (!present_only && gpu_fact(t[i].name, &what, &amd))
      own_gpu_lines(rs, amd, ls);
    else if (!present_only) {
      char *words = ts_rules_fact_words(t[i].name);
      add_line(ls, 6, ts_xasprintf("this host has no %s", words));
      free(words);
    }
  }
}

static bool gpu_terms_text_ok(const struct ts_constraint *con) {
  char *t = gpu_terms_text(con->terms, con->nterms);
  free(t);
  return t != NULL;
}

static void rule_lines(struct rs *rs, const char *from, int c, bool conflict,
                       const char *other, struct lines *ls) {
  const struct ts_constraint *con = &rs->req->rules->constraints[c];
  char *terms = gpu_terms_text(con->terms, con->nterms);
  if (!terms)
    terms = join_terms(con->terms, con->nterms, " or ");
  const char *what;
  bool amd;
  char *other_gpu = other && gpu_fact(other, &what, &amd)
                        ? ts_xasprintf(amd ? "an AMD GPU %s" : "a GPU of compute capability %s", what)
                        : NULL;
  if (other_gpu)
    other = other_gpu;
  char *when = con->nwhen ? join_terms(con->when, con->nwhen, " and ") : NULL;
  char *s;
  bool kernel_gate = ts_rs_kernel_gate(con);
  if (kernel_gate && (other_gpu || (!conflict && gpu_terms_text_ok(con))) && !con->nwhen)
    /* the rule's message lists the targets: say them once */
    s = ts_xasprintf("%s has no kernels for this host's GPU (rule %s: %s)", from,
                     con->id, con->message ? con->message : "");
  else if (conflict)
    s = ts_xasprintf("%s cannot be installed with %s%s%s (rule %s: %s)", from,
                     other ? other : terms, when ? " when the host has " : "",
                     when ? when : "", con->id,
                     con->message ? con->message : "");
  else
    s = ts_xasprintf("%s needs %s%s%s (rule %s: %s)", from, terms,
                     when ? " when the host has " : "", when ? when : "",
                     con->id, con->message ? con->message : "");
  add_line(ls, 2, s);
  /* a conflict names the facts that are there; a requirement also the
   * ones that are missing */
  fact_lines(rs, &con->subject, 1, conflict, ls);
  fact_lines(rs, con->terms, con->nterms, conflict, ls);
  fact_lines(rs, con->when, con->nwhen, conflict, ls);
  if (con->fix)
    add_line(ls, 7, ts_xasprintf("fix (rule %s): %s", con->id, con->fix));
  if (con->source)
    add_line(ls, 7, ts_xasprintf("source of rule %s: %s", con->id,
                                 con->source));
  free(terms);
  free(when);
  free(other_gpu);
}

/* "which b 1.0, 1.1 satisfy": the real versions behind a dep. */
static char *providers_text(struct rs *rs, Id dep) {
  Pool *pool = rs->pool;
  Id p, pp;
  char buf[200];
  size_t len = 0;
  int n = 0, total = 0;
  buf[0] = '\0';
  FOR_PROVIDES(p, pp, dep) {
    total++;
    if (n >= 4)
      continue;
    struct rs_sinfo *si = &rs->si[p];
    if (si->kind != RS_CAND && si->kind != RS_INST && si->kind != RS_EXTRA)
      continue;
    const char *vt = rs->projs[si->proj].vers[si->ver].text;
    int w = snprintf(buf + len, sizeof buf - len, "%s%s", n ? ", " : "", vt);
    if (w < 0 || (size_t)w >= sizeof buf - len)
      break;
    len += (size_t)w;
    n++;
  }
  if (!total)
    return NULL;
  return ts_xasprintf("%s%s", buf, total > n ? ", ..." : "");
}

static void rule_sentence(struct rs *rs, Solver *solv, Id rid, int type,
                          Id from, Id to, Id dep, struct lines *ls) {
  bool pkg = (type & SOLVER_RULE_TYPEMASK) == SOLVER_RULE_PKG ||
             (type & SOLVER_RULE_TYPEMASK) == SOLVER_RULE_UPDATE ||
             (type & SOLVER_RULE_TYPEMASK) == SOLVER_RULE_FEATURE;
  int one = pkg ? ts_rs_one_version_rule(rs, from, to, dep) : -1;
  if (one >= 0) {
    add_line(ls, 5, ts_xasprintf("only one version of %s can be installed",
                                 rs->projs[one].name));
    return;
  }
  char *f = pkg && from ? solvable_text(rs, from) : NULL;
  char *t = pkg && to ? solvable_text(rs, to) : NULL;
  const struct rs_dep *rec = pkg && from ? find_dep(rs, from, dep) : NULL;
  switch (type) {
  case SOLVER_RULE_JOB: {
    int j = solver_rule2jobidx(solv, rid);
    const struct rs_job *ji = j >= 0 ? &rs->job_info[j / 2] : NULL;
    if (ji && ji->fact >= 0) {
      add_line(ls, 6, fact_text(&rs->facts[ji->fact]));
    } else if (ji && ji->text) {
      add_line(ls, 0, ts_xasprintf("you asked for %s", ji->text));
    }
    break;
  }
  case SOLVER_RULE_JOB_NOTHING_PROVIDES_DEP:
  case SOLVER_RULE_JOB_UNKNOWN_PACKAGE: {
    const struct rs_job *ji = find_job(rs, dep);
    if (ji) {
      add_line(ls, 0, ts_xasprintf("you asked for %s, but no version of %s "
                                   "fits",
                                   ji->text, rs->projs[ji->proj].name));
      hints(rs, ji->proj, ji->spec, ls);
    } else {
      add_line(ls, 0, ts_xasprintf("nothing provides %s",
                                   pool_dep2str(rs->pool, dep)));
    }
    break;
  }
  case SOLVER_RULE_PKG_NOTHING_PROVIDES_DEP:
  case SOLVER_RULE_PKG_REQUIRES:
    if (rec && rec->constraint >= 0) {
      rule_lines(rs, f, rec->constraint, false, NULL, ls);
    } else if (rec && rec->proj < 0 && strncmp(rec->text, "Python", 6) == 0) {
      add_line(ls, 3, ts_xasprintf("%s requires %s, but the target is "
                                   "Python %s",
                                   f, rec->text,
                                   rs->target->python_full_version
                                       ? rs->target->python_full_version
                                       : "?"));
    } else if (rec) {
      char *prov = type == SOLVER_RULE_PKG_REQUIRES
                       ? providers_text(rs, dep)
                       : NULL;
      struct rs_sinfo *fs = &rs->si[from];
      if (prov && fs->kind == RS_CAND)
        add_group(ls, 1, rs->projs[fs->proj].name,
                  rs->projs[fs->proj].vers[fs->ver].text,
                  ts_xasprintf(" %s (%s %s)", rec->text,
                               strchr(prov, ',') ? "versions" : "version",
                               prov));
      else if (prov)
        add_line(ls, 1, ts_xasprintf("%s needs %s (%s %s)", f, rec->text,
                                     strchr(prov, ',') ? "versions" : "version",
                                     prov));
      else
        add_line(ls, 3, ts_xasprintf("%s needs %s, but no version fits", f,
                                     rec->text));
      free(prov);
      if (type == SOLVER_RULE_PKG_NOTHING_PROVIDES_DEP)
        hints(rs, rec->proj, rec->spec, ls);
    } else {
      add_line(ls, 3, ts_xasprintf("%s needs %s", f,
                                   pool_dep2str(rs->pool, dep)));
    }
    break;
  case SOLVER_RULE_PKG_CONFLICTS:
  case SOLVER_RULE_PKG_SELF_CONFLICT:
    if (from == rs->constraints_solv && rec) {
      add_line(ls, 4, ts_xasprintf("%s is excluded by the constraint %s",
                                   t ? t : "?", rec->text));
    } else if (rec && rec->constraint >= 0) {
      rule_lines(rs, f, rec->constraint, true, t, ls);
    } else {
      add_line(ls, 4, ts_xasprintf("%s cannot be installed with %s", f,
                                   t ? t : pool_dep2str(rs->pool, dep)));
    }
    break;
  case SOLVER_RULE_PKG_SAME_NAME: {
    const char *name = pool_id2str(rs->pool, pool_id2solvable(rs->pool, from)->name);
    add_line(ls, 5, ts_xasprintf("only one version of %s can be installed",
                                 name));
    break;
  }
  case SOLVER_RULE_UPDATE:
  case SOLVER_RULE_FEATURE:
    add_line(ls, 5, ts_xasprintf("%s stays as it is; pass --upgrade or "
                                 "--upgrade-package to let it change",
                                 f ? f : "an installed distribution"));
    break;
  case SOLVER_RULE_PKG_NOT_INSTALLABLE:
    add_line(ls, 3, ts_xasprintf("%s cannot be installed", f ? f : "?"));
    break;
  default:
    add_line(ls, 9, ts_xstrdup(
                        solver_ruleinfo2str(solv, (SolverRuleinfo)type, from,
                                            to, dep)));
    break;
  }
  free(f);
  free(t);
}

static int line_cmp(const void *a, const void *b) {
  const struct line *x = a, *y = b;
  return x->prio - y->prio;
}

void ts_rs_explain(struct rs *rs, Solver *solv, struct ts_explanation *why) {
  Queue rq, iq;
  queue_init(&rq);
  queue_init(&iq);
  unsigned nprob = solver_problem_count(solv);
  size_t cap = 0;
  for (Id pid = 1; pid <= (Id)nprob; pid++) {
    struct lines ls = {0};
    solver_findallproblemrules(solv, pid, &rq);
    for (int i = 0; i < rq.count; i++) {
      Id rid = rq.elements[i];
      solver_allruleinfos(solv, rid, &iq);
      for (int k = 0; k + 3 < iq.count; k += 4)
        rule_sentence(rs, solv, rid, iq.elements[k], iq.elements[k + 1],
                      iq.elements[k + 2], iq.elements[k + 3], &ls);
    }
    for (size_t i = 0; i < ls.n; i++)
      finish_group(&ls.v[i]);
    /* stable: insertion order within a priority class */
    for (size_t i = 0; i < ls.n; i++)
      ls.v[i].prio = ls.v[i].prio * 100000 + (int)i;
    if (ls.n)
      qsort(ls.v, ls.n, sizeof *ls.v, line_cmp);
    size_t need = why->nlines + ls.n + 1;
    why->lines = ts_rs_grow(why->lines, &cap, need, sizeof *why->lines);
    if (nprob > 1)
      why->lines[why->nlines++] =
          ts_xasprintf("problem %d of %u:", (int)pid, nprob);
    for (size_t i = 0; i < ls.n; i++)
      why->lines[why->nlines++] = ls.v[i].text;
    free(ls.v);
  }
  queue_free(&rq);
  queue_free(&iq);
}
