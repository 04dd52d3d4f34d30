/*
 * rules_compile.c — rules.yaml + host facts → constraint set.
 *
 * Variant gates are written as constraints on host facts rather than
 * decided here, so that libsolv can name them when it explains a failure
 * ("torch 2.13.0+cu130 requires __cuda_driver >= 580; this host has
 * 550.144.03").  Facts the host lacks make the matching REQUIRES
 * unsatisfiable, which is what removes CUDA builds from a machine without
 * an NVIDIA driver.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "core/str.h"
#include "pep/specifier.h"
#include "pep/version.h"
#include "rules/rules.h"
#include "rules/rules_eval.h"
#include "rules/rules_internal.h"

/* ---- building blocks -------------------------------------------------- */

static void add_fact(struct ts_constraint_set *s, const char *name,
                     const char *version, const char *source) {
  for (size_t i = 0; i < s->nfacts; i++)
    if (strcmp(s->facts[i].name, name) == 0)
      return; /* two GPUs of one kind: one fact */
  s->facts = ts_xrealloc(s->facts, (s->nfacts + 1) * sizeof *s->facts);
  struct ts_host_fact *f = &s->facts[s->nfacts++];
  f->name = ts_xstrdup(name ? name : "");
  f->version = version ? ts_xstrdup(version) : NULL;
  f->source = ts_xstrdup(source ? source : "detected");
}

/* Specifier texts parsed once per compile, sorted by text: the pairings
 * and the rules repeat a few dozen texts ("==2.8.0") hundreds of times,
 * and a copy of a parsed set costs a fraction of a parse. */
struct spec_memo {
  char **text;
  struct ts_specset **set;
  size_t n;
};

static void spec_memo_clear(struct spec_memo *m) {
  for (size_t i = 0; i < m->n; i++)
    ts_specset_free(m->set[i]);
  ts_strv_free(m->text, m->n);
  free(m->set);
  memset(m, 0, sizeof *m);
}

/* *out: a set of its own for `spec`, parsed or copied from the memo. */
static enum ts_code memo_parse(struct spec_memo *m, const char *spec,
                               struct ts_specset **out, struct ts_error *err) {
  size_t lo = 0, hi = m->n;
  while (lo < hi) {
    size_t mid = lo + (hi - lo) / 2;
    int c = strcmp(m->text[mid], spec);
    if (c == 0) {
      *out = ts_specset_dup(m->set[mid]);
      return TS_OK;
    }
    if (c < 0)
      lo = mid + 1;
    else
      hi = mid;
  }
  struct ts_specset *set = NULL;
  enum ts_code rc = ts_specset_parse(spec, strlen(spec), &set, err);
  if (rc != TS_OK)
    return rc;
  m->text = ts_xreallocarray(m->text, m->n + 1, sizeof *m->text);
  m->set = ts_xreallocarray(m->set, m->n + 1, sizeof *m->set);
  memmove(m->text + lo + 1, m->text + lo, (m->n - lo) * sizeof *m->text);
  memmove(m->set + lo + 1, m->set + lo, (m->n - lo) * sizeof *m->set);
  m->text[lo] = ts_xstrdup(spec);
  m->set[lo] = set;
  m->n++;
  *out = ts_specset_dup(set);
  return TS_OK;
}

/* `memo` NULL: the specifier is parsed. */
static enum ts_code make_term_with(struct spec_memo *memo, struct ts_term *t,
                                   const char *name, const char *spec,
                                   const char *local, struct ts_error *err) {
  memset(t, 0, sizeof *t);
  t->name = ts_xstrdup(name ? name : "");
  t->local_pattern = local ? ts_xstrdup(local) : NULL;
  if (spec && (memo ? memo_parse(memo, spec, &t->spec, err)
                    : ts_specset_parse(spec, strlen(spec), &t->spec, err)) != TS_OK)
    return ts_error_wrap(err, "rules: term '%s %s'", name, spec);
  return TS_OK;
}

static enum ts_code make_term(struct ts_term *t, const char *name,
                              const char *spec, const char *local,
                              struct ts_error *err) {
  return make_term_with(NULL, t, name, spec, local, err);
}

/* The set's constraint and assumed-build arrays grow by doubling: a compile
 * appends about a thousand constraints, and growing by one copied the whole
 * array each time (5% of a warm resolve).  The length is the only
 * bookkeeping: from 4 entries on the room ends at the next power of two,
 * and the shrinks below (drop_from, the `when` filter) only lower the
 * length, never the room. */
static void *room_for_one_more(void *p, size_t n, size_t size) {
  if (n && (n < 4 || (n & (n - 1)) != 0))
    return p;
  return ts_xreallocarray(p, n ? 2 * n : 4, size);
}

static struct ts_constraint *new_constraint(struct ts_constraint_set *s,
                                            enum ts_constraint_kind kind,
                                            const char *id, char *message,
                                            const char *fix,
                                            const char *source) {
  s->constraints = room_for_one_more(s->constraints, s->nconstraints,
                                     sizeof *s->constraints);
  struct ts_constraint *c = &s->constraints[s->nconstraints++];
  memset(c, 0, sizeof *c);
  c->kind = kind;
  c->id = ts_xstrdup(id ? id : "");
  c->message = message; /* takes ownership */
  c->fix = fix ? ts_xstrdup(fix) : NULL;
  c->source = ts_xstrdup(source ? source : "");
  return c;
}

static enum ts_code add_term_with(struct spec_memo *memo, struct ts_constraint *c,
                                  const char *name, const char *spec,
                                  const char *local, struct ts_error *err) {
  c->terms = ts_xrealloc(c->terms, (c->nterms + 1) * sizeof *c->terms);
  return make_term_with(memo, &c->terms[c->nterms++], name, spec, local, err);
}

static enum ts_code add_term(struct ts_constraint *c, const char *name,
                             const char *spec, const char *local,
                             struct ts_error *err) {
  return add_term_with(NULL, c, name, spec, local, err);
}

static enum ts_code add_when(struct ts_constraint *c, const char *name,
                             const char *spec, struct ts_error *err) {
  c->when = ts_xrealloc(c->when, (c->nwhen + 1) * sizeof *c->when);
  return make_term(&c->when[c->nwhen++], name, spec, NULL, err);
}

/* "6.2.4" → "6.2": an installed ROCm serves wheels of its major.minor. */
static char *major_minor(const char *v) {
  const char *dot = strchr(v, '.');
  if (!dot)
    return ts_xstrdup(v);
  const char *dot2 = strchr(dot + 1, '.');
  return dot2 ? ts_xstrndup(v, (size_t)(dot2 - v)) : ts_xstrdup(v);
}

/* Frees constraints [mark, n) and shrinks the set back to mark. */
static void drop_from(struct ts_constraint_set *s, size_t mark) {
  struct ts_constraint_set tmp = {0};
  tmp.nconstraints = s->nconstraints - mark;
  tmp.constraints = ts_xcalloc(tmp.nconstraints, sizeof *tmp.constraints);
  memcpy(tmp.constraints, s->constraints + mark,
         tmp.nconstraints * sizeof *tmp.constraints);
  ts_constraint_set_clear(&tmp);
  s->nconstraints = mark;
}

/* ---- host facts ------------------------------------------------------- */

enum ts_code ts_rules_host_facts(const struct ts_host *h,
                                 struct ts_constraint_set *out,
                                 struct ts_error *err) {
  (void)err;
  if (h->glibc)
    add_fact(out, "__glibc", h->glibc, ts_host_source_of(h, "glibc"));
  if (h->jetson)
    add_fact(out, "__jetson", h->jetson, ts_host_source_of(h, "jetson"));
  if (h->force_cpu)
    return TS_OK; /* --cpu: no GPU facts, so every GPU variant drops out */
  if (h->cuda_driver)
    add_fact(out, "__cuda_driver", h->cuda_driver,
             ts_host_source_of(h, "cuda.driver_version"));
  else if (h->cuda_version && ts_host_cuda_min_driver(h->cuda_version)) {
    /* "--cuda 12.4" alone says the driver runs CUDA 12.4: assume the
     * oldest driver that does, as conda's CONDA_OVERRIDE_CUDA does. */
    char src[160];
    snprintf(src, sizeof src, "implied by CUDA %s (%s)", h->cuda_version,
             ts_host_source_of(h, "cuda.cuda_version"));
    add_fact(out, "__cuda_driver", ts_host_cuda_min_driver(h->cuda_version), src);
  }
  if (h->cuda_version)
    add_fact(out, "__cuda", h->cuda_version,
             ts_host_source_of(h, "cuda.cuda_version"));
  for (size_t i = 0; i < h->ncuda_gpus; i++)
    if (h->cuda_gpus[i].compute_capability) {
      char name[48];
      snprintf(name, sizeof name, "__cc_%s", h->cuda_gpus[i].compute_capability);
      add_fact(out, name, NULL, ts_host_source_of(h, "cuda.gpus"));
    }
  if (h->rocm_version)
    add_fact(out, "__rocm", h->rocm_version, ts_host_source_of(h, "rocm.version"));
  for (size_t i = 0; i < h->nrocm_gpus; i++) {
    char name[48];
    snprintf(name, sizeof name, "__%s", h->rocm_gpus[i].gfx);
    add_fact(out, name, NULL, ts_host_source_of(h, "rocm.gpus"));
  }
  if (h->xpu)
    add_fact(out, "__xpu", NULL, ts_host_source_of(h, "xpu"));
  return TS_OK;
}

/* ---- the AMD kernel driver -------------------------------------------- */

/* "6.8" names "6.8.5" and "6.8" but not "6.80.1". */
static bool version_prefix(const char *prefix, const char *v) {
  size_t n = strlen(prefix);
  return strncmp(prefix, v, n) == 0 && (v[n] == '\0' || v[n] == '.');
}

bool ts_rules_kmd_release(const struct ts_rules *r, const struct ts_host *h,
                          char *rel, size_t relcap, char *basis,
                          size_t basiscap) {
  const char *best = NULL, *best_rocm = NULL;
  for (size_t i = 0; h->amdgpu_version && i < r->kmd.namdgpu; i++)
    if (version_prefix(r->kmd.amdgpu[i].amdgpu, h->amdgpu_version) &&
        (!best || strlen(r->kmd.amdgpu[i].amdgpu) > strlen(best))) {
      best = r->kmd.amdgpu[i].amdgpu;
      best_rocm = r->kmd.amdgpu[i].rocm;
    }
  for (size_t i = 0; h->amdgpu_version && i < r->kmd.ndrivers; i++)
    if (version_prefix(r->kmd.drivers[i].amdgpu, h->amdgpu_version) &&
        (!best || strlen(r->kmd.drivers[i].amdgpu) > strlen(best))) {
      best = r->kmd.drivers[i].amdgpu;
      best_rocm = r->kmd.drivers[i].rocm;
    }
  basis[0] = '\0';
  if (best) {
    snprintf(rel, relcap, "%s", best_rocm);
    const char *conf = r->kmd.amdgpu_confidence;
    snprintf(basis, basiscap, "amdgpu %s from %s%s%s%s", h->amdgpu_version,
             ts_host_source_of(h, "rocm.amdgpu_version"),
             conf ? " (mapped with confidence " : "", conf ? conf : "",
             conf ? ")" : "");
    return true;
  }
  if (!h->rocm_version)
    return false;
  char *mm = major_minor(h->rocm_version);
  snprintf(rel, relcap, "%s", mm);
  free(mm);
  const char *src = ts_host_source_of(h, "rocm.version");
  if (src && (strncmp(src, "--", 2) == 0 || strncmp(src, "TORCHSOLVE_", 11) == 0))
    snprintf(basis, basiscap, "ROCm %s from %s (stands for the kernel driver too)",
             h->rocm_version, src);
  else if (h->amdgpu_version)
    snprintf(basis, basiscap,
             "installed ROCm %s (%s) as proxy: amdgpu %s is not in rocm_kmd.amdgpu",
             h->rocm_version, src ? src : "detected", h->amdgpu_version);
  else {
    /* The distribution's amdgpu is no ROCm release's kernel driver, and
     * the wheels bundle their own user space: the installed ROCm says
     * nothing about which of them run (an MI50 with ROCm 7.2 runs
     * 2.9.1+rocm6.3). */
    snprintf(basis, basiscap,
             "the kernel's own amdgpu (no /sys/module/amdgpu/version): no ROCm "
             "release's kernel driver, so no window applies; the installed ROCm %s "
             "(%s) does not stand for it",
             h->rocm_version, src ? src : "detected");
    return false;
  }
  return true;
}

/* ---- variant gates ---------------------------------------------------- */

/* Does the arch list run compute capability `cc`?  SASS for X.y runs on
 * X.z with z >= y; PTX for A JIT-compiles for any capability >= A.
 * *ptx_only tells whether only PTX covers it. */
static bool arch_covers(const struct ts_rules_variant *v, const char *cc,
                        bool *ptx_only) {
  unsigned long cmaj = strtoul(cc, NULL, 10);
  bool sass = false, ptx = false;
  for (size_t i = 0; i < v->narchs; i++) {
    const char *a = v->archs[i].cc;
    if (strtoul(a, NULL, 10) == cmaj && ts_host_vercmp(a, cc) <= 0)
      sass = true;
    if (v->archs[i].ptx && ts_host_vercmp(a, cc) <= 0)
      ptx = true;
  }
  *ptx_only = !sass && ptx;
  return sass || ptx;
}

/* Appends `text` at buf[used] as snprintf(buf + used, cap - used, "%s")
 * would, cut at the end of buf, and returns the length it would have: the
 * lists below are built for every variant of every release, and a
 * formatted print per entry was most of their cost. */
static size_t put_text(char *buf, size_t cap, size_t used, const char *text) {
  size_t n = strlen(text);
  if (used < cap) {
    size_t k = n < cap - 1 - used ? n : cap - 1 - used;
    memcpy(buf + used, text, k);
    buf[used + k] = '\0';
  }
  return used + n;
}

static char *arch_list_text(const struct ts_rules_variant *v) {
  char buf[512] = "";
  size_t used = 0;
  for (size_t i = 0; i < v->narchs && used < sizeof buf - 32; i++) {
    used = put_text(buf, sizeof buf, used, i ? " " : "");
    used = put_text(buf, sizeof buf, used, v->archs[i].cc);
    used = put_text(buf, sizeof buf, used, v->archs[i].ptx ? "+PTX" : "");
  }
  return ts_xstrdup(buf);
}

static char *gfx_list_text(char *const *gfx, size_t n) {
  char buf[512] = "";
  size_t used = 0;
  for (size_t i = 0; i < n && used < sizeof buf - 32; i++) {
    used = put_text(buf, sizeof buf, used, i ? " " : "");
    used = put_text(buf, sizeof buf, used, gfx[i]);
  }
  return ts_xstrdup(buf);
}

static bool backend_gated(const struct ts_constraint_set *s, const char *id) {
  char want[96];
  snprintf(want, sizeof want, "backend-%s", id);
  for (size_t i = 0; i < s->nconstraints; i++)
    if (strncmp(s->constraints[i].id, want, strlen(want)) == 0)
      return true;
  return false;
}

static const struct ts_rules_kmd_driver *kmd_driver(const struct ts_rules_kmd *k,
                                                    const char *rocm) {
  for (size_t i = 0; i < k->ndrivers; i++)
    if (ts_host_vercmp(k->drivers[i].rocm, rocm) == 0)
      return &k->drivers[i];
  return NULL;
}

/* The kernel-driver releases that run a +rocmX.Y build (user space X.Y):
 * those within ±window of X.Y in kmd.releases, except that a release with
 * a `drivers` entry runs exactly the user-space range it states; and,
 * when the window reaches past the newest known release (*open), any newer
 * one.  in[i] tells for releases[i].  False when X.Y is not listed. */
static bool kmd_window(const struct ts_rules_kmd *k, const char *mm, bool *in,
                       bool *open) {
  size_t idx = k->nreleases;
  for (size_t i = 0; i < k->nreleases; i++)
    if (ts_host_vercmp(k->releases[i], mm) == 0)
      idx = i;
  if (!k->window || idx == k->nreleases)
    return false;
  for (size_t i = 0; i < k->nreleases; i++) {
    const struct ts_rules_kmd_driver *d = kmd_driver(k, k->releases[i]);
    size_t dist = i > idx ? i - idx : idx - i;
    in[i] = d ? ts_host_vercmp(d->user_min, mm) <= 0 && ts_host_vercmp(mm, d->user_max) <= 0
              : dist <= k->window;
  }
  *open = idx + k->window >= k->nreleases - 1;
  return true;
}

/* "6.0, 6.1, 6.2, 7.0" and the term per release ("==6.0"...), plus
 * ">7.2" when open. */
static enum ts_code kmd_terms(const struct ts_rules_kmd *k, const bool *in, bool open,
                              struct ts_constraint *c, char *text, size_t cap,
                              struct ts_error *err) {
  enum ts_code rc = TS_OK;
  size_t used = 0;
  text[0] = '\0';
  for (size_t i = 0; i < k->nreleases && rc == TS_OK; i++) {
    if (!in[i])
      continue;
    char *spec = ts_xasprintf("==%s", k->releases[i]);
    rc = add_term(c, "__rocm_kmd", spec, NULL, err);
    free(spec);
    if (used < cap)
      used += (size_t)snprintf(text + used, cap - used, "%s%s", used ? ", " : "",
                               k->releases[i]);
  }
  if (open && rc == TS_OK) {
    char *spec = ts_xasprintf(">%s", k->releases[k->nreleases - 1]);
    rc = add_term(c, "__rocm_kmd", spec, NULL, err);
    free(spec);
    if (used < cap)
      snprintf(text + used, cap - used, " or newer");
  }
  return rc;
}

/* With the kernel's own amdgpu (__rocm_intree: the installed ROCm) no
 * window is known; user space up to `window` releases newer than the
 * installed one is taken to run, as it would on that release's driver. */
static enum ts_code gate_in_tree(const struct ts_rules *rules, const struct ts_rules_backend *b,
                                 const char *mm, struct ts_constraint_set *s,
                                 struct ts_error *err) {
  const struct ts_rules_kmd *k = &rules->kmd;
  size_t idx = 0;
  for (size_t i = 0; i < k->nreleases; i++)
    if (ts_host_vercmp(k->releases[i], mm) == 0)
      idx = i;
  const char *floor = k->releases[idx >= k->window ? idx - k->window : 0];
  char id[96];
  snprintf(id, sizeof id, "backend-%s-intree", b->id);
  struct ts_constraint *c = new_constraint(
      s, TS_CONSTRAINT_REQUIRES, id,
      ts_xasprintf("torch +%s builds bundle ROCm %s's user space; with the kernel's own "
                   "amdgpu (no ROCm release's driver) user space up to %u releases newer "
                   "than the installed ROCm is taken to run, so it needs ROCm %s or newer "
                   "installed", b->id, mm, k->window, floor),
      "install the amdgpu-dkms driver of a recent ROCm release (its version then "
      "decides), install a newer ROCm, or pass --rocm X.Y", k->source);
  char *spec = ts_xasprintf(">=%s", floor);
  enum ts_code rc = make_term(&c->subject, "torch", NULL, b->id, err);
  if (rc == TS_OK && (rc = add_term(c, "__rocm_intree", spec, NULL, err)) == TS_OK)
    rc = add_when(c, "__rocm_intree", NULL, err);
  free(spec);
  return rc;
}

static enum ts_code gate_backend(const struct ts_rules *rules,
                                 const struct ts_rules_backend *b,
                                 struct ts_constraint_set *s,
                                 struct ts_error *err) {
  char id[96];
  enum ts_code rc = TS_OK;
  if (b->kind == TS_BACKEND_CUDA) {
    snprintf(id, sizeof id, "backend-%s-driver", b->id);
    struct ts_constraint *c = new_constraint(
        s, TS_CONSTRAINT_REQUIRES, id,
        ts_xasprintf("torch +%s builds need an NVIDIA driver >= %s "
                      "(CUDA %s; minor-version compatibility floor)",
                      b->id, b->driver_min, b->version),
        "upgrade the NVIDIA driver, or use an older CUDA variant", b->source);
    char *spec = ts_xasprintf(">=%s", b->driver_min);
    if (!(rc = make_term(&c->subject, "torch", NULL, b->id, err)))
      rc = add_term(c, "__cuda_driver", spec, NULL, err);
    free(spec);
    snprintf(id, sizeof id, "backend-%s-jetson", b->id);
    c = new_constraint(
        s, TS_CONSTRAINT_CONFLICTS, id,
        ts_xasprintf("torch +%s builds are made for server-class (SBSA) aarch64 GPUs; a "
                     "Jetson's integrated GPU (L4T) does not run them, so this host gets "
                     "the CPU build", b->id),
        "install NVIDIA's Jetson build of torch for this JetPack by its path "
        "(torchsolve install ./torch-…whl), or keep the CPU build",
        "https://docs.nvidia.com/deeplearning/frameworks/install-pytorch-jetson-platform/index.html");
    if (rc == TS_OK && !(rc = make_term(&c->subject, "torch", NULL, b->id, err)))
      rc = add_term(c, "__jetson", NULL, NULL, err);
  } else if (b->kind == TS_BACKEND_ROCM) {
    char *mm = major_minor(b->version);
    snprintf(id, sizeof id, "backend-%s-rocm", b->id);
    struct ts_constraint *c;
    bool *in = ts_xcalloc(rules->kmd.nreleases + 1, sizeof *in), open = false;
    if (kmd_window(&rules->kmd, mm, in, &open)) {
      /* The wheel bundles ROCm's user space; what the host contributes is
       * the kernel driver, which AMD supports for ±window releases (or
       * the range a driver release states). */
      c = new_constraint(s, TS_CONSTRAINT_REQUIRES, id, NULL,
                         "install a build whose ROCm is within the window of this host's "
                         "kernel driver, update the amdgpu driver, or pass --rocm X.Y",
                         rules->kmd.source);
      char kmds[256];
      if (!(rc = make_term(&c->subject, "torch", NULL, b->id, err)) &&
          !(rc = kmd_terms(&rules->kmd, in, open, c, kmds, sizeof kmds, err)))
        rc = add_when(c, "__rocm_kmd", NULL, err);
      c->message = ts_xasprintf("torch +%s builds bundle ROCm %s's user space, which "
                                "AMD supports on the kernel driver (KMD) of ROCm %s "
                                "(±%u releases, or the range an amdgpu release states)",
                                b->id, mm, kmds, rules->kmd.window);
      if (rc == TS_OK)
        rc = gate_in_tree(rules, b, mm, s, err);
    } else {
      char *spec = ts_xasprintf(">=%s", mm);
      c = new_constraint(
          s, TS_CONSTRAINT_REQUIRES, id,
          ts_xasprintf("torch +%s builds are made for ROCm %s; a host with an "
                        "older ROCm (and its kernel driver) should not run them",
                        b->id, b->version),
          "upgrade ROCm, use the variant of the installed ROCm, or pass --rocm X.Y",
          b->source);
      if (!(rc = make_term(&c->subject, "torch", NULL, b->id, err)) &&
          !(rc = add_term(c, "__rocm", spec, NULL, err)))
        rc = add_when(c, "__rocm", NULL, err);
      free(spec);
    }
    free(in);
    free(mm);
  } else if (b->kind == TS_BACKEND_XPU) {
    snprintf(id, sizeof id, "backend-%s", b->id);
    struct ts_constraint *c = new_constraint(
        s, TS_CONSTRAINT_REQUIRES, id,
        ts_xstrdup("torch +xpu builds need an Intel GPU with a compute "
                      "driver (i915 or xe)"),
        "use the cpu variant, or pass --xpu when the GPU is there", b->source);
    if (!(rc = make_term(&c->subject, "torch", NULL, b->id, err)))
      rc = add_term(c, "__xpu", NULL, NULL, err);
  }
  return rc;
}

/* Where a variant's gates apply: the torch versions (a listed series, or
 * every release newer than the rules), how ids and messages name them,
 * and for a pair no rules file lists, what its facts were assumed from. */
struct gate_scope {
  char spec[64];     /* "==2.13.*", ">=2.15.dev0" */
  char name[48];     /* "2.13", "after-2.14": in constraint ids */
  char shown[48];    /* "2.13", ">2.14": in messages */
  const char *assumed; /* NULL, or "the kernels of 2.14.0+cu130" */
  struct spec_memo *memo; /* the compile's: every gate of a scope has `spec` */
};

static void scope_of_series(struct gate_scope *sc, const char *series,
                            struct spec_memo *memo) {
  memset(sc, 0, sizeof *sc);
  sc->memo = memo;
  snprintf(sc->spec, sizeof sc->spec, "==%s.*", series);
  snprintf(sc->name, sizeof sc->name, "%s", series);
  snprintf(sc->shown, sizeof sc->shown, "%s", series);
}

/* "torch 2.13+cu129", with what its facts were assumed from. */
static char *scope_what(const struct gate_scope *sc, const char *label) {
  return ts_xasprintf("torch %s+%s%s%s%s", sc->shown, label,
                      sc->assumed ? " (not in these rules; assumed " : "",
                      sc->assumed ? sc->assumed : "", sc->assumed ? ")" : "");
}

/* Compute-capability gates of one CUDA variant for this host's GPUs.
 * `label` is the local label the gated wheels carry: the variant id, or ""
 * for the plain PyPI wheel that is that variant with its label stripped. */
static enum ts_code gate_cuda(const struct gate_scope *sc,
                              const struct ts_rules_variant *v,
                              const struct ts_rules_backend *b,
                              const struct ts_host *h,
                              struct ts_constraint_set *s, const char *label,
                              const char *src, struct ts_error *err) {
  if (!h->ncuda_gpus)
    return TS_OK; /* no GPU to gate: the texts below would go unused */
  char id[128], pid[128];
  char *what;
  if (label[0]) {
    snprintf(id, sizeof id, "cuda-arch-%s-%s", sc->name, b->id);
    snprintf(pid, sizeof pid, "cuda-ptx-%s-%s", sc->name, b->id);
    what = scope_what(sc, b->id);
  } else {
    snprintf(id, sizeof id, "pypi-arch-%s", sc->name);
    snprintf(pid, sizeof pid, "pypi-ptx-%s", sc->name);
    what = ts_xasprintf("torch %s from PyPI (the %s build%s%s)", sc->shown, b->id,
                        sc->assumed ? "; not in these rules: assumed " : "",
                        sc->assumed ? sc->assumed : "");
  }
  const char *series_spec = sc->spec;
  enum ts_code rc = TS_OK;
  char *archs = arch_list_text(v);
  const char *toolkit = v->driver_toolkit ? v->driver_toolkit : b->driver_toolkit;
  for (size_t g = 0; g < h->ncuda_gpus && rc == TS_OK; g++) {
    const char *cc = h->cuda_gpus[g].compute_capability;
    bool ptx_only = false, seen = false;
    for (size_t e = 0; cc && e < g; e++)
      seen |= h->cuda_gpus[e].compute_capability &&
              strcmp(h->cuda_gpus[e].compute_capability, cc) == 0;
    if (!cc || seen)
      continue; /* eight identical GPUs: one constraint */
    char fact[48];
    snprintf(fact, sizeof fact, "__cc_%s", cc);
    if (!arch_covers(v, cc, &ptx_only)) {
      struct ts_constraint *c = new_constraint(
          s, TS_CONSTRAINT_CONFLICTS, id,
          ts_xasprintf("%s carries kernels for compute capabilities %s only; "
                        "a GPU of compute capability %s cannot run it",
                        what, archs, cc),
          "use a variant whose kernels cover this GPU (often an older "
          "CUDA such as cu126 for Maxwell/Pascal/Volta), or an older torch",
          src);
      if (!(rc = make_term_with(sc->memo, &c->subject, "torch", series_spec, label, err)))
        rc = add_term(c, fact, NULL, NULL, err);
    } else if (ptx_only && toolkit) {
      struct ts_constraint *c = new_constraint(
          s, TS_CONSTRAINT_REQUIRES, pid,
          ts_xasprintf("%s runs on compute capability %s only by "
                        "JIT-compiling its PTX, which needs the CUDA %s "
                        "toolkit driver >= %s",
                        what, cc, b->version, toolkit),
          "upgrade the NVIDIA driver, or use a variant with kernels for "
          "this GPU", src);
      char *spec = ts_xasprintf(">=%s", toolkit);
      if (!(rc = make_term_with(sc->memo, &c->subject, "torch", series_spec, label, err)))
        rc = add_term_with(sc->memo, c, "__cuda_driver", spec, NULL, err);
      free(spec);
      if (rc == TS_OK)
        rc = add_when(c, fact, NULL, err);
    }
  }
  free(archs);
  free(what);
  return rc;
}

/* The plain PyPI torch of a series is one CUDA variant with its label
 * stripped (Linux x86_64); gate it like that variant.  `t` is the table of
 * the release whose facts apply (another one's, for a newer release). */
static enum ts_code gate_pypi_default(const struct ts_rules *rules,
                                      const struct gate_scope *sc,
                                      struct ts_rules_variant_table t,
                                      const char *src, const struct ts_host *h,
                                      struct ts_constraint_set *s,
                                      struct ts_error *err) {
  if (!t.pypi_default)
    return TS_OK; /* PyPI serves a CPU build on this machine */
  const struct ts_rules_variant *v = NULL;
  for (size_t k = 0; k < t.nvariants; k++)
    if (strcmp(t.variants[k].backend, t.pypi_default) == 0)
      v = &t.variants[k];
  const struct ts_rules_backend *b = ts_rules_find_backend(rules, t.pypi_default);
  if (!v || !b || b->kind != TS_BACKEND_CUDA)
    return TS_OK;
  char id[96];
  snprintf(id, sizeof id, "pypi-default-%s", sc->name);
  struct ts_constraint *c = new_constraint(
      s, TS_CONSTRAINT_REQUIRES, id,
      ts_xasprintf("torch %s from PyPI (no local label) is the %s build%s%s: it "
                    "needs an NVIDIA driver >= %s", sc->shown, b->id,
                    sc->assumed ? " (not in these rules; assumed " : "",
                    sc->assumed ? "as the newest release's)" : "", b->driver_min),
      "install torch from the PyTorch index of a variant this host runs "
      "(e.g. the cpu index), or upgrade the NVIDIA driver", src);
  if (sc->assumed)
    c->confidence = ts_xstrdup("low");
  char *spec = ts_xasprintf(">=%s", b->driver_min);
  enum ts_code rc = make_term_with(sc->memo, &c->subject, "torch", sc->spec, "", err);
  if (rc == TS_OK)
    rc = add_term_with(sc->memo, c, "__cuda_driver", spec, NULL, err);
  /* Without any NVIDIA driver the CUDA build still runs on the CPU (the
   * user chose PyPI); only a driver too old for it is an error. */
  if (rc == TS_OK)
    rc = add_when(c, "__cuda_driver", NULL, err);
  free(spec);
  size_t mark = s->nconstraints;
  if (rc == TS_OK && !h->force_cpu)
    rc = gate_cuda(sc, v, b, h, s, "", src, err);
  for (size_t i = mark; sc->assumed && i < s->nconstraints; i++)
    s->constraints[i].confidence = ts_xstrdup("low");
  return rc;
}

/* The gfx gates of one ROCm variant: it needs one of its targets, and
 * conflicts with every GPU of this host that it has no kernels for. */
static enum ts_code gate_rocm(const struct gate_scope *sc, char *const *gfx,
                              size_t ngfx, const struct ts_rules_backend *b,
                              const struct ts_host *h,
                              struct ts_constraint_set *s, const char *src,
                              struct ts_error *err) {
  char id[128];
  char *list = gfx_list_text(gfx, ngfx), *what = scope_what(sc, b->id);
  snprintf(id, sizeof id, "rocm-gfx-%s-%s", sc->name, b->id);
  struct ts_constraint *c = new_constraint(
      s, TS_CONSTRAINT_REQUIRES, id,
      ts_xasprintf("%s carries kernels for %s; it needs one of those AMD GPUs",
                    what, list),
      "use the cpu variant, or a ROCm variant built for your GPU "
      "(HSA_OVERRIDE_GFX_VERSION can map a close target, unsupported)",
      src);
  enum ts_code rc = make_term_with(sc->memo, &c->subject, "torch", sc->spec, b->id, err);
  for (size_t i = 0; i < ngfx && rc == TS_OK; i++) {
    char fact[48];
    put_text(fact, sizeof fact, put_text(fact, sizeof fact, 0, "__"), gfx[i]);
    rc = add_term(c, fact, NULL, NULL, err);
  }
  /* Every detected GPU must be covered, not just one of them. */
  for (size_t g = 0; g < h->nrocm_gpus && rc == TS_OK && !h->force_cpu; g++) {
    bool listed = false;
    for (size_t i = 0; i < ngfx; i++)
      listed |= strcmp(gfx[i], h->rocm_gpus[g].gfx) == 0;
    for (size_t e = 0; e < g; e++)
      listed |= strcmp(h->rocm_gpus[e].gfx, h->rocm_gpus[g].gfx) == 0;
    if (listed)
      continue;
    char fact[48];
    snprintf(fact, sizeof fact, "__%s", h->rocm_gpus[g].gfx);
    struct ts_constraint *cc = new_constraint(
        s, TS_CONSTRAINT_CONFLICTS, id,
        ts_xasprintf("%s carries no kernels for %s (only %s)", what,
                      h->rocm_gpus[g].gfx, list),
        "use a ROCm variant built for this GPU, or the cpu variant", src);
    if (!(rc = make_term_with(sc->memo, &cc->subject, "torch", sc->spec, b->id, err)))
      rc = add_term(cc, fact, NULL, NULL, err);
  }
  free(list);
  free(what);
  return rc;
}

/* The gates of one variant in one scope; they inherit the confidence of
 * the list they come from (low, for facts assumed from another build). */
static enum ts_code gate_variant(const struct gate_scope *sc,
                                 const struct ts_rules_release *r,
                                 const struct ts_rules_variant *v,
                                 const struct ts_rules_backend *b,
                                 const struct ts_host *h,
                                 struct ts_constraint_set *s,
                                 struct ts_error *err) {
  const char *src = v->source ? v->source : (b->source ? b->source : r->source);
  const char *conf = sc->assumed ? "low"
                     : v->confidence ? v->confidence
                     : b->kind == TS_BACKEND_ROCM && !v->has_gfx ? b->confidence
                                                                 : r->confidence;
  size_t mark = s->nconstraints;
  enum ts_code rc = TS_OK;
  if (b->kind == TS_BACKEND_CUDA && !h->force_cpu)
    rc = gate_cuda(sc, v, b, h, s, b->id, src, err);
  else if (b->kind == TS_BACKEND_ROCM)
    rc = gate_rocm(sc, v->has_gfx ? v->gfx : b->gfx, v->has_gfx ? v->ngfx : b->ngfx,
                   b, h, s, src, err);
  for (size_t i = mark; conf && strcmp(conf, "high") != 0 && i < s->nconstraints; i++)
    if (!s->constraints[i].confidence)
      s->constraints[i].confidence = ts_xstrdup(conf);
  return rc;
}

static enum ts_code gate_release(const struct ts_rules *rules,
                                 const struct ts_rules_release *r,
                                 const struct ts_host *h,
                                 struct ts_constraint_set *s, bool host_terms,
                                 struct spec_memo *memo, struct ts_error *err) {
  struct gate_scope sc;
  scope_of_series(&sc, r->series, memo);
  enum ts_code rc = TS_OK;
  struct ts_rules_variant_table t = ts_rules_release_variants(r, h->machine);
  for (size_t k = 0; k < t.nvariants && rc == TS_OK && host_terms; k++) {
    const struct ts_rules_backend *b = ts_rules_find_backend(rules, t.variants[k].backend);
    if (b)
      rc = gate_variant(&sc, r, &t.variants[k], b, h, s, err);
  }
  return rc;
}

/* ---- builds no rules file lists ----------------------------------------- */

/* Every release newer than `series`: "2.14" → ">=2.15.dev0". */
static bool scope_after(struct gate_scope *sc, const char *series, struct spec_memo *memo) {
  unsigned long maj = 0, min = 0;
  if (sscanf(series, "%lu.%lu", &maj, &min) != 2)
    return false;
  memset(sc, 0, sizeof *sc);
  sc->memo = memo;
  snprintf(sc->spec, sizeof sc->spec, ">=%lu.%lu.dev0", maj, min + 1);
  snprintf(sc->name, sizeof sc->name, "after-%s", series);
  snprintf(sc->shown, sizeof sc->shown, ">%s", series);
  return true;
}

static const char *newest_version(const struct ts_rules_release *r) {
  return r->nversions ? r->versions[r->nversions - 1] : r->series;
}

/* What the gates of an unlisted build were taken from, in words. */
static char *assumed_text(const struct ts_rules_assumption *a,
                          const struct ts_rules_backend *b) {
  bool cuda = b->kind == TS_BACKEND_CUDA;
  if (a->how == TS_ASSUME_NEAREST)
    return ts_xasprintf("the %s of %s+%s", cuda ? "kernels" : "GPU targets",
                        newest_version(a->from), b->id);
  unsigned long major = b->version ? strtoul(b->version, NULL, 10) : 0;
  char *list = cuda ? arch_list_text(a->v) : gfx_list_text(a->v->gfx, a->v->ngfx);
  char *t;
  if (cuda && !a->nrelatives)
    t = ts_xasprintf("no kernels: these rules list no CUDA %lu build for this machine",
                     major);
  else
    t = ts_xasprintf("the %s every %s %lu build in these rules carries (%s)",
                     cuda ? "kernels" : "GPU targets", cuda ? "CUDA" : "ROCm", major,
                     list);
  free(list);
  return t;
}

static enum ts_code record_assumed(struct ts_constraint_set *s, struct spec_memo *memo,
                                   const char *spec, const char *label, char *why,
                                   char *assumed, struct ts_error *err) {
  s->assumed = room_for_one_more(s->assumed, s->nassumed, sizeof *s->assumed);
  struct ts_assumed_build *x = &s->assumed[s->nassumed++];
  x->why = why;
  x->assumed = assumed;
  return make_term_with(memo, &x->subject, "torch", spec, label, err);
}

static enum ts_code gate_assumed(const struct ts_rules *rules,
                                 const struct gate_scope *scope, size_t at,
                                 const struct ts_rules_backend *b,
                                 const struct ts_host *h,
                                 struct ts_constraint_set *s, struct spec_memo *memo,
                                 struct ts_error *err) {
  struct ts_rules_assumption a;
  ts_rules_assume(rules, h->machine, at, b, &a);
  if (a.how == TS_ASSUME_KNOWN) {
    ts_rules_assumption_clear(&a);
    return TS_OK;
  }
  struct gate_scope sc = *scope;
  char *assumed = assumed_text(&a, b);
  sc.assumed = assumed;
  const struct ts_rules_release *r = a.from ? a.from : ts_rules_newest(rules);
  enum ts_code rc = gate_variant(&sc, r, a.v, b, h, s, err);
  char *why = at < rules->nreleases
                  ? ts_xasprintf("is not in these rules (their %s lists no %s build)",
                                 rules->releases[at].series, b->id)
                  : ts_xasprintf("is newer than these rules (%s)",
                                 ts_rules_newest(rules)->series);
  if (rc == TS_OK)
    rc = record_assumed(s, memo, sc.spec, b->id, why, ts_xstrdup(assumed), err);
  else
    free(why);
  free(assumed);
  ts_rules_assumption_clear(&a);
  return rc;
}

/* A (release, variant) pair no rules file lists is judged on the facts of
 * the nearest build that is listed, never let through unchecked: every
 * CUDA and ROCm backend for every listed release that lacks it, and for
 * every release newer than the rules (PyPI's plain wheel as the newest
 * release's). */
static enum ts_code compile_assumed(const struct ts_rules *rules,
                                    const struct ts_host *h,
                                    struct ts_constraint_set *s, struct spec_memo *memo,
                                    struct ts_error *err) {
  const struct ts_rules_release *newest = ts_rules_newest(rules);
  enum ts_code rc = TS_OK;
  for (size_t at = 0; newest && at <= rules->nreleases && rc == TS_OK; at++) {
    struct gate_scope sc;
    if (at < rules->nreleases)
      scope_of_series(&sc, rules->releases[at].series, memo);
    else if (!scope_after(&sc, newest->series, memo))
      break;
    for (size_t k = 0; k < rules->nbackends && rc == TS_OK; k++) {
      const struct ts_rules_backend *b = &rules->backends[k];
      if (b->kind == TS_BACKEND_CUDA || b->kind == TS_BACKEND_ROCM)
        rc = gate_assumed(rules, &sc, at, b, h, s, memo, err);
    }
    struct ts_rules_variant_table t = ts_rules_release_variants(newest, h->machine);
    if (at < rules->nreleases || rc != TS_OK || !t.pypi_default)
      continue;
    char *assumed = ts_xasprintf("the %s build of %s", t.pypi_default,
                                 newest_version(newest));
    sc.assumed = assumed;
    rc = gate_pypi_default(rules, &sc, t,
                           newest->pypi_source ? newest->pypi_source : newest->source,
                           h, s, err);
    if (rc == TS_OK)
      rc = record_assumed(s, memo, sc.spec, "",
                          ts_xasprintf("is newer than these rules (%s)", newest->series),
                          ts_xstrdup(assumed), err);
    free(assumed);
  }
  return rc;
}

/* ---- pairings --------------------------------------------------------- */

static const struct ts_rules_pairing *find_pairing(const struct ts_rules *r,
                                                   const char *project) {
  for (size_t i = 0; i < r->npairings; i++)
    if (strcmp(r->pairings[i].project, project) == 0)
      return &r->pairings[i];
  return NULL;
}

/* On any machine: a companion's label pairs it whatever the host. */
static bool release_has_variant(const struct ts_rules_release *r,
                                const char *b) {
  for (size_t k = 0; k < r->nvariants; k++)
    if (strcmp(r->variants[k].backend, b) == 0)
      return true;
  for (size_t p = 0; p < r->nplatforms; p++)
    for (size_t k = 0; k < r->platforms[p].nvariants; k++)
      if (strcmp(r->platforms[p].variants[k].backend, b) == 0)
        return true;
  return false;
}

/* For companion `version` of `project` built as variant `local` ("" for a
 * PyPI build without a label): torch must be one of the releases it pairs
 * with, from the same variant. */
static enum ts_code pair_one(const struct ts_rules *rules,
                             const struct ts_rules_pairing *p,
                             const char *version, const char *local,
                             struct ts_constraint_set *s, struct spec_memo *memo,
                             struct ts_error *err) {
  struct ts_constraint *c = NULL;
  enum ts_code rc = TS_OK;
  for (size_t i = 0; i < rules->nreleases && rc == TS_OK; i++) {
    const struct ts_rules_release *r = &rules->releases[i];
    /* whether r lists the variant, asked only of a release that pairs
     * with `version` (one or two of them): asking every release for every
     * companion version and variant was 22,000 comparisons a compile */
    int lists_local = local[0] ? -1 : 1;
    for (size_t j = 0; j < r->npairs && rc == TS_OK; j++) {
      const char *cv = strcmp(p->project, "torchvision") == 0
                           ? r->pairs[j].torchvision
                           : r->pairs[j].torchaudio;
      if (!cv || strcmp(cv, version) != 0)
        continue;
      if (lists_local < 0)
        lists_local = release_has_variant(r, local);
      if (!lists_local)
        break;
      if (!c) {
        c = new_constraint(s, TS_CONSTRAINT_REQUIRES, p->id,
                           ts_xstrdup(p->message ? p->message : ""), p->fix, p->source);
        char *spec = ts_xasprintf("==%s", version);
        rc = make_term_with(memo, &c->subject, p->project, spec, local, err);
        free(spec);
        if (rc != TS_OK)
          break;
      }
      char *tspec = ts_xasprintf("==%s", r->pairs[j].torch);
      rc = add_term_with(memo, c, "torch", tspec, local[0] ? local : NULL, err);
      free(tspec);
    }
  }
  return rc;
}

/* Whether `key` is in the sorted set; adds it when not. */
static bool seen_str(char ***seen, size_t *n, const char *key) {
  size_t lo = 0, hi = *n;
  while (lo < hi) {
    size_t mid = lo + (hi - lo) / 2;
    int c = strcmp((*seen)[mid], key);
    if (c == 0)
      return true;
    if (c < 0)
      lo = mid + 1;
    else
      hi = mid;
  }
  *seen = ts_xreallocarray(*seen, *n + 1, sizeof **seen);
  memmove(*seen + lo + 1, *seen + lo, (*n - lo) * sizeof **seen);
  (*seen)[lo] = ts_xstrdup(key);
  (*n)++;
  return false;
}

static enum ts_code compile_pairings(const struct ts_rules *rules,
                                     struct ts_constraint_set *s,
                                     struct spec_memo *memo, struct ts_error *err) {
  static const char *const projects[] = {"torchvision", "torchaudio"};
  enum ts_code rc = TS_OK;
  for (size_t pi = 0; pi < 2 && rc == TS_OK; pi++) {
    const struct ts_rules_pairing *p = find_pairing(rules, projects[pi]);
    if (!p)
      continue;
    char **seen = NULL;
    size_t nseen = 0;
    for (size_t i = 0; i < rules->nreleases && rc == TS_OK; i++) {
      const struct ts_rules_release *r = &rules->releases[i];
      for (size_t j = 0; j < r->npairs && rc == TS_OK; j++) {
        const char *cv = pi == 0 ? r->pairs[j].torchvision : r->pairs[j].torchaudio;
        if (!cv)
          continue;
        /* One constraint per companion version and variant: the companion
         * may be paired with several torch releases (torchaudio 2.11.0). */
        for (size_t k = 0; k <= r->nvariants && rc == TS_OK; k++) {
          /* The platforms' variants are a subset of these in practice;
           * pair_one finds a platform-only one through release_has_variant
           * when another release lists it. */
          const char *local = k < r->nvariants ? r->variants[k].backend : "";
          char key[128];
          snprintf(key, sizeof key, "%s+%s", cv, local);
          if (!seen_str(&seen, &nseen, key))
            rc = pair_one(rules, p, cv, local, s, memo, err);
        }
      }
    }
    ts_strv_free(seen, nseen);
  }
  return rc;
}

/* ---- rules from the file ---------------------------------------------- */

static bool rule_uses_facts(const struct ts_rules_rule *r) {
  if (r->nwhen)
    return true;
  for (size_t i = 0; i < r->nterms; i++)
    if (strncmp(r->terms[i].name, "__", 2) == 0)
      return true;
  return false;
}

static enum ts_code compile_rule(const struct ts_rules_rule *r,
                                 struct ts_constraint_set *s, bool host_terms,
                                 struct spec_memo *memo, struct ts_error *err) {
  if (r->kind == TS_RULES_CUSTOM_BUILD)
    return TS_OK;
  if (!host_terms && rule_uses_facts(r))
    return TS_OK;
  size_t nsub = r->nsubject_locals ? r->nsubject_locals : 1;
  for (size_t k = 0; k < nsub; k++) {
    size_t mark = s->nconstraints;
    struct ts_constraint *c = new_constraint(
        s, r->kind == TS_RULES_REQUIRES ? TS_CONSTRAINT_REQUIRES
                                        : TS_CONSTRAINT_CONFLICTS,
        r->id, ts_xstrdup(r->message ? r->message : ""), r->fix, r->source);
    if (r->confidence && strcmp(r->confidence, "high") != 0)
      c->confidence = ts_xstrdup(r->confidence);
    enum ts_code rc = make_term_with(memo, &c->subject, r->subject_name, r->subject_spec,
                                     r->nsubject_locals ? r->subject_locals[k] : NULL,
                                     err);
    for (size_t i = 0; i < r->nterms && rc == TS_OK; i++)
      rc = add_term_with(memo, c, r->terms[i].name, r->terms[i].spec, r->terms[i].local,
                         err);
    for (size_t i = 0; i < r->nwhen && rc == TS_OK; i++)
      rc = add_when(c, r->when[i].name, r->when[i].spec, err);
    if (rc != TS_OK)
      return rc;
    /* A rule whose `when` fails on this host can never fire: drop it. */
    bool holds = true;
    for (size_t i = 0; i < c->nwhen; i++)
      holds &= ts_rules_term_match_facts(&c->when[i], s);
    if (!holds)
      drop_from(s, mark);
  }
  return TS_OK;
}

/* ---- the backend list ------------------------------------------------- */

static const char *kind_name(enum ts_backend_kind k) {
  switch (k) {
  case TS_BACKEND_CUDA: return "cuda";
  case TS_BACKEND_ROCM: return "rocm";
  case TS_BACKEND_XPU: return "xpu";
  default: return "cpu";
  }
}

struct choice {
  const struct ts_rules_backend *b;
  bool usable;
  int rank; /* smaller is better */
  char *reason, *rule_id;
  char *cand;            /* "2.11.0+cu130": the build judged */
  struct ts_version *v;  /* cand parsed; NULL when not judged */
};

static int cmp_choice(const void *a, const void *b) {
  const struct choice *x = a, *y = b;
  if (x->usable != y->usable)
    return x->usable ? -1 : 1;
  if (x->rank != y->rank)
    return x->rank - y->rank;
  /* Newest CUDA / ROCm first within a rank. */
  int v = ts_host_vercmp(y->b->version ? y->b->version : "0",
                         x->b->version ? x->b->version : "0");
  return v ? v : strcmp(x->b->id, y->b->id);
}

static void choices_free(struct choice *ch, size_t n, bool owned_texts) {
  for (size_t i = 0; i < n; i++) {
    free(ch[i].cand);
    ts_version_free(ch[i].v);
    if (owned_texts) {
      free(ch[i].reason);
      free(ch[i].rule_id);
    }
  }
  free(ch);
}

/* Marks every choice that a constraint of the set excludes on this host,
 * naming the first such constraint (in set order) for each.  The walk is
 * over the constraints, each judged once against the facts and matched
 * against the candidates it could name: the set has hundreds of
 * constraints and a list is made for every release series, so matching
 * each candidate against every constraint was most of a compile. */
static void exclude_by_gates(const struct ts_constraint_set *s, struct choice *ch,
                             size_t n) {
  for (size_t i = 0; i < s->nconstraints; i++) {
    const struct ts_constraint *con = &s->constraints[i];
    /* "torch" has no separator to normalise, so the names PEP 503 makes
     * "torch" are those of its letters in any case */
    if (strcasecmp(con->subject.name, "torch") != 0)
      continue;
    char *why = NULL;
    bool judged = false;
    for (size_t k = 0; k < n; k++) {
      struct choice *c = &ch[k];
      if (!c->usable || !c->v || !ts_rules_term_match_version(&con->subject, c->v))
        continue;
      if (!judged) {
        why = ts_rules_fact_violation(con, s);
        judged = true;
      }
      if (!why)
        break; /* the host meets it: it excludes none of them */
      c->usable = false;
      c->reason = ts_xasprintf("%s: %s (rule %s%s%s)", c->cand, why, con->id,
                               con->confidence ? ", confidence " : "",
                               con->confidence ? con->confidence : "");
      c->rule_id = ts_xstrdup(con->id);
    }
    free(why);
  }
}

static enum ts_code backend_list(const struct ts_rules *rules,
                                 const struct ts_rules_release *r,
                                 const char *version, const struct ts_host *h,
                                 bool host_terms, bool force_cpu,
                                 struct ts_constraint_set *s,
                                 struct ts_error *err) {
  if (!r)
    return TS_OK;
  const char *newest = version ? version : newest_version(r);
  struct ts_rules_variant_table t = ts_rules_release_variants(r, h->machine);
  struct choice *ch = ts_xcalloc(t.nvariants, sizeof *ch);
  size_t n = 0;
  for (size_t k = 0; k < t.nvariants; k++) {
    const struct ts_rules_backend *b = ts_rules_find_backend(rules, t.variants[k].backend);
    if (!b)
      continue;
    struct choice *c = &ch[n++];
    c->b = b;
    c->usable = true;
    /* Preference: CUDA the driver runs natively, CUDA through minor-version
     * compatibility, ROCm, XPU, CPU last. */
    c->rank = b->kind == TS_BACKEND_CUDA ? 0
              : b->kind == TS_BACKEND_ROCM ? 2
              : b->kind == TS_BACKEND_XPU ? 3 : 4;
    if (force_cpu && b->kind != TS_BACKEND_CPU) {
      c->usable = false;
      c->reason = ts_xstrdup("--cpu was given");
      continue;
    }
    if (!host_terms)
      continue;
    c->cand = ts_xasprintf("%s+%s", newest, b->id);
    if (ts_version_parse(c->cand, strlen(c->cand), &c->v, err) != TS_OK) {
      choices_free(ch, n, true);
      return ts_error_wrap(err, "rules: candidate");
    }
  }
  if (host_terms)
    exclude_by_gates(s, ch, n);
  for (size_t k = 0; k < n; k++) {
    struct choice *c = &ch[k];
    if (c->v && c->usable && c->b->kind == TS_BACKEND_CUDA && h->cuda_version &&
        ts_host_vercmp(c->b->version, h->cuda_version) > 0) {
      c->rank = 1;
      c->reason = ts_xasprintf("relies on CUDA minor-version compatibility: "
                                "the driver runs CUDA %s natively",
                                h->cuda_version);
    }
  }
  qsort(ch, n, sizeof *ch, cmp_choice);
  s->backends = ts_xcalloc(n, sizeof *s->backends);
  const char *base = rules->index_base ? rules->index_base : "";
  size_t blen = strlen(base);
  for (size_t i = 0; i < n; i++) {
    struct ts_backend_choice *o = &s->backends[s->nbackends++];
    o->name = ts_xstrdup(ch[i].b->id ? ch[i].b->id : "");
    o->kind = ts_xstrdup(kind_name(ch[i].b->kind));
    o->index_url = ts_xasprintf("%s%s%s/", base,
                                 blen && base[blen - 1] != '/' ? "/" : "",
                                 ch[i].b->index);
    o->usable = ch[i].usable;
    o->reason = ch[i].reason;
    o->rule_id = ch[i].rule_id;
  }
  choices_free(ch, n, false);
  return TS_OK;
}

/* The release a backend list is for: opt->release, the newest by default.
 * A series newer than the rules is judged as "X.Y.0" on the newest
 * release's variant table (the gates of compile_assumed apply to it);
 * *assumed then says so. */
static enum ts_code list_release(const struct ts_rules *rules,
                                 const struct ts_rules_options *opt,
                                 const struct ts_rules_release **rel,
                                 char *version, size_t cap, char **assumed,
                                 struct ts_error *err) {
  const struct ts_rules_release *newest = ts_rules_newest(rules);
  *rel = opt->release ? ts_rules_find_release(rules, opt->release) : newest;
  version[0] = '\0';
  *assumed = NULL;
  if (*rel || !opt->release)
    return TS_OK;
  unsigned long maj, min;
  char tail;
  if (newest && sscanf(opt->release, "%lu.%lu%c", &maj, &min, &tail) == 2 &&
      ts_host_vercmp(opt->release, newest->series) > 0) {
    *rel = newest;
    snprintf(version, cap, "%lu.%lu.0", maj, min);
    *assumed = ts_xasprintf("torch %s is newer than these rules (%s); its builds "
                            "were judged on the facts of %s's (confidence low); "
                            "'torchsolve rules update' may know it",
                            opt->release, newest->series, newest_version(newest));
    return TS_OK;
  }
  return ts_error_set(err, TS_E_NOT_FOUND, "rules: no torch release '%s' in the rules",
                      opt->release);
}

static int backend_rank(const struct ts_rules_backend *b,
                        const struct ts_host *h) {
  switch (b->kind) {
  case TS_BACKEND_CUDA:
    return h && h->cuda_version && b->version &&
                   ts_host_vercmp(b->version, h->cuda_version) > 0
               ? 1
               : 0;
  case TS_BACKEND_ROCM: return 2;
  case TS_BACKEND_XPU: return 3;
  default: return 4;
  }
}

int ts_rules_backend_cmp(const struct ts_rules_backend *a,
                         const struct ts_rules_backend *b,
                         const struct ts_host *host) {
  int ra = backend_rank(a, host), rb = backend_rank(b, host);
  if (ra != rb)
    return ra - rb;
  int v = ts_host_vercmp(b->version ? b->version : "0",
                         a->version ? a->version : "0");
  return v ? v : strcmp(a->id, b->id);
}

enum ts_code ts_rules_compile(const struct ts_rules *rules,
                              const struct ts_host *host,
                              const struct ts_rules_options *opt,
                              struct ts_constraint_set *out,
                              struct ts_error *err) {
  static const struct ts_host empty_host;
  static const struct ts_rules_options defaults;
  memset(out, 0, sizeof *out);
  if (!opt)
    opt = &defaults;
  bool host_terms = !opt->ignore_host;
  const struct ts_host *h = host && host_terms ? host : &empty_host;
  const struct ts_rules_release *rel;
  char version[48], *assumed;
  enum ts_code rc = list_release(rules, opt, &rel, version, sizeof version,
                                 &assumed, err);
  if (rc != TS_OK)
    return rc;
  if (host_terms)
    rc = ts_rules_host_facts(h, out, err);
  char kmd[32], basis[256] = "";
  if (rc == TS_OK && host_terms && !h->force_cpu &&
      ts_rules_kmd_release(rules, h, kmd, sizeof kmd, basis, sizeof basis))
    add_fact(out, "__rocm_kmd", kmd, basis);
  else if (rc == TS_OK && host_terms && !h->force_cpu && basis[0]) {
    /* The kernel's own amdgpu: the installed ROCm's user space runs on it
     * (someone installed it), older ones bundled in wheels do too. */
    char *mm = major_minor(h->rocm_version);
    add_fact(out, "__rocm_intree", mm, basis);
    free(mm);
  }
  /* Backend gates first: they are what most explanations name. */
  for (size_t i = 0; i < rules->nreleases && rc == TS_OK && host_terms; i++) {
    struct ts_rules_variant_table t =
        ts_rules_release_variants(&rules->releases[i], h->machine);
    for (size_t k = 0; k < t.nvariants && rc == TS_OK; k++) {
      const struct ts_rules_backend *b = ts_rules_find_backend(rules, t.variants[k].backend);
      if (b && !backend_gated(out, b->id))
        rc = gate_backend(rules, b, out, err);
    }
  }
  /* ... and of the backends no release lists for this machine */
  for (size_t k = 0; k < rules->nbackends && rc == TS_OK && host_terms; k++)
    if (!backend_gated(out, rules->backends[k].id))
      rc = gate_backend(rules, &rules->backends[k], out, err);
  struct spec_memo memo = {0};
  for (size_t i = 0; i < rules->nreleases && rc == TS_OK; i++)
    rc = gate_release(rules, &rules->releases[i], h, out, host_terms, &memo, err);
  for (size_t i = 0; i < rules->nreleases && rc == TS_OK && host_terms; i++) {
    const struct ts_rules_release *r = &rules->releases[i];
    struct gate_scope sc;
    scope_of_series(&sc, r->series, &memo);
    rc = gate_pypi_default(rules, &sc, ts_rules_release_variants(r, h->machine),
                           r->pypi_source ? r->pypi_source : r->source, h, out, err);
  }
  if (rc == TS_OK && host_terms)
    rc = compile_assumed(rules, h, out, &memo, err);
  /* The ROCm-version gate applies only where ROCm is installed: drop the
   * gates whose `when` fails, keeping the order of the others. */
  if (rc == TS_OK && host_terms) {
    size_t keep = 0;
    struct ts_constraint_set dropped = {0};
    dropped.constraints = ts_xcalloc(out->nconstraints, sizeof *out->constraints);
    for (size_t i = 0; i < out->nconstraints; i++) {
      struct ts_constraint *c = &out->constraints[i];
      bool holds = true;
      for (size_t j = 0; j < c->nwhen; j++)
        holds &= ts_rules_term_match_facts(&c->when[j], out);
      if (holds)
        out->constraints[keep++] = *c;
      else
        dropped.constraints[dropped.nconstraints++] = *c;
    }
    out->nconstraints = keep;
    ts_constraint_set_clear(&dropped);
  }
  if (rc == TS_OK)
    rc = compile_pairings(rules, out, &memo, err);
  for (size_t i = 0; i < rules->nrules && rc == TS_OK; i++)
    rc = compile_rule(&rules->rules[i], out, host_terms, &memo, err);
  spec_memo_clear(&memo);
  if (rc == TS_OK)
    rc = backend_list(rules, rel, version[0] ? version : NULL, h, host_terms,
                      host && host->force_cpu, out, err);
  if (rc == TS_OK) {
    out->release = assumed ? ts_xstrdup(opt->release)
                   : rel   ? ts_xstrdup(rel->series)
                           : NULL;
    out->release_assumed = assumed;
    assumed = NULL;
    out->index_base = ts_xstrdup(rules->index_base ? rules->index_base : "");
    out->routed = ts_xcalloc(rules->nroutes, sizeof *out->routed);
    for (size_t i = 0; i < rules->nroutes; i++)
      out->routed[out->nrouted++] = ts_xstrdup(rules->routes[i]);
  }
  free(assumed);
  if (rc != TS_OK)
    ts_constraint_set_clear(out);
  return rc;
}

enum ts_code ts_rules_release_backends(const struct ts_rules *rules,
                                       const struct ts_host *host,
                                       const struct ts_rules_options *opt,
                                       const struct ts_constraint_set *compiled,
                                       struct ts_constraint_set *out,
                                       struct ts_error *err) {
  static const struct ts_host empty_host;
  memset(out, 0, sizeof *out);
  bool host_terms = !opt->ignore_host;
  const struct ts_host *h = host && host_terms ? host : &empty_host;
  const struct ts_rules_release *rel;
  char version[48], *assumed;
  enum ts_code rc = list_release(rules, opt, &rel, version, sizeof version,
                                 &assumed, err);
  if (rc != TS_OK)
    return rc;
  if (!rel)
    return ts_error_set(err, TS_E_NOT_FOUND, "rules: no torch release in the rules");
  out->release_assumed = assumed;
  /* Borrow the compiled facts and constraints; only the list is ours. */
  struct ts_constraint_set view = *compiled;
  view.backends = NULL;
  view.nbackends = 0;
  rc = backend_list(rules, rel, version[0] ? version : NULL, h, host_terms,
                    host && host->force_cpu, &view, err);
  out->backends = view.backends;
  out->nbackends = view.nbackends;
  return rc;
}
