/* A parsed rules file as bytes and back: see rules_codec.h. */
#include "rules/rules_codec.h"

#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "core/alloc.h"
#include "core/str.h"

/* Each structure below is walked field by field; a structure that changes
 * size fails these asserts so that its new fields are not left out of the
 * bytes (raise TS_RULES_CODEC_FORMAT then). */
_Static_assert(sizeof(struct ts_rules) == 256, "rules_cache.c: walk the new ts_rules fields");
_Static_assert(sizeof(struct ts_rules_backend) == 80, "rules_cache.c: ts_rules_backend");
_Static_assert(sizeof(struct ts_rules_arch) == 16, "rules_cache.c: ts_rules_arch");
_Static_assert(sizeof(struct ts_rules_variant) == 72, "rules_cache.c: ts_rules_variant");
_Static_assert(sizeof(struct ts_rules_platform) == 40, "rules_cache.c: ts_rules_platform");
_Static_assert(sizeof(struct ts_rules_pair) == 24, "rules_cache.c: ts_rules_pair");
_Static_assert(sizeof(struct ts_rules_release) == 104, "rules_cache.c: ts_rules_release");
_Static_assert(sizeof(struct ts_rules_term) == 24, "rules_cache.c: ts_rules_term");
_Static_assert(sizeof(struct ts_rules_rule) == 128, "rules_cache.c: ts_rules_rule");
_Static_assert(sizeof(struct ts_rules_pairing) == 40, "rules_cache.c: ts_rules_pairing");
_Static_assert(sizeof(struct ts_rules_amdgpu_map) == 16, "rules_cache.c: ts_rules_amdgpu_map");
_Static_assert(sizeof(struct ts_rules_kmd_driver) == 40, "rules_cache.c: ts_rules_kmd_driver");
_Static_assert(sizeof(struct ts_rules_kmd) == 80, "rules_cache.c: ts_rules_kmd");
_Static_assert(sizeof(struct ts_rules_torch_build) == 32, "rules_cache.c: ts_rules_torch_build");

#define NO_STRING UINT32_MAX

/* One walk of a ts_rules serves both directions, so that what is written
 * and what is read cannot drift apart.  Reading checks every length against
 * what is left and stops at the first inconsistency (`bad`). */
struct codec {
  bool reading;
  struct ts_buf *out;             /* writing */
  const unsigned char *p, *end;   /* reading */
  bool bad;
  const char *file;               /* reading: the path rules are read from */
};

static void c_u32(struct codec *c, uint32_t *v) {
  if (c->bad)
    return;
  if (!c->reading) {
    unsigned char b[4] = {(unsigned char)*v, (unsigned char)(*v >> 8),
                          (unsigned char)(*v >> 16), (unsigned char)(*v >> 24)};
    c->bad = ts_buf_append(c->out, b, 4) != TS_OK;
    return;
  }
  if (c->end - c->p < 4) {
    c->bad = true;
    return;
  }
  *v = (uint32_t)c->p[0] | (uint32_t)c->p[1] << 8 | (uint32_t)c->p[2] << 16 |
       (uint32_t)c->p[3] << 24;
  c->p += 4;
}

static void c_bool(struct codec *c, bool *b) {
  uint32_t v = *b;
  c_u32(c, &v);
  if (c->reading && !c->bad && v > 1)
    c->bad = true;
  *b = v == 1;
}

static void c_unsigned(struct codec *c, unsigned *u) {
  uint32_t v = *u;
  c_u32(c, &v);
  *u = v;
}

static void c_int(struct codec *c, int *i) {
  uint32_t v = (uint32_t)*i;
  c_u32(c, &v);
  *i = (int)v;
}

static void c_str(struct codec *c, char **s) {
  if (!c->reading) {
    size_t n = *s ? strlen(*s) : 0;
    uint32_t len = *s ? (uint32_t)n : NO_STRING;
    c_u32(c, &len);
    if (*s && !c->bad)
      c->bad = ts_buf_append(c->out, *s, n) != TS_OK;
    return;
  }
  *s = NULL;
  uint32_t len = 0;
  c_u32(c, &len);
  if (c->bad || len == NO_STRING)
    return;
  if ((size_t)(c->end - c->p) < len || memchr(c->p, '\0', len)) {
    c->bad = true;
    return;
  }
  *s = ts_xstrndup((const char *)c->p, len);
  c->p += len;
}

/* An array's length, and when reading its (zeroed) storage: every element
 * takes at least 4 bytes, so a length beyond what is left is damage. */
static void c_array(struct codec *c, void **items, size_t *n, size_t size) {
  uint32_t len = (uint32_t)*n;
  c_u32(c, &len);
  if (!c->reading)
    return;
  *items = NULL;
  *n = 0;
  if (c->bad || len == 0)
    return;
  if (len > (size_t)(c->end - c->p) / 4) {
    c->bad = true;
    return;
  }
  *items = ts_xcalloc(len, size);
  *n = len;
}

static void c_strv(struct codec *c, char ***v, size_t *n) {
  c_array(c, (void **)v, n, sizeof **v);
  for (size_t i = 0; i < *n && !c->bad; i++)
    c_str(c, &(*v)[i]);
}

#define WALK_ARRAY(c, items, n, walk)                        \
  do {                                                       \
    c_array((c), (void **)&(items), &(n), sizeof *(items));  \
    for (size_t i_ = 0; i_ < (n) && !(c)->bad; i_++)         \
      walk((c), &(items)[i_]);                               \
  } while (0)

static void walk_backend(struct codec *c, struct ts_rules_backend *b) {
  uint32_t kind = (uint32_t)b->kind;
  c_str(c, &b->id);
  c_u32(c, &kind);
  if (kind > TS_BACKEND_XPU)
    c->bad = true;
  b->kind = (enum ts_backend_kind)kind;
  c_str(c, &b->version);
  c_str(c, &b->index);
  c_str(c, &b->driver_min);
  c_str(c, &b->driver_toolkit);
  c_strv(c, &b->gfx, &b->ngfx);
  c_str(c, &b->source);
  c_str(c, &b->confidence);
}

static void walk_arch(struct codec *c, struct ts_rules_arch *a) {
  c_str(c, &a->cc);
  c_bool(c, &a->ptx);
}

static void walk_variant(struct codec *c, struct ts_rules_variant *v) {
  c_str(c, &v->backend);
  WALK_ARRAY(c, v->archs, v->narchs, walk_arch);
  c_strv(c, &v->gfx, &v->ngfx);
  c_bool(c, &v->has_gfx);
  c_str(c, &v->driver_toolkit);
  c_str(c, &v->source);
  c_str(c, &v->confidence);
}

static void walk_platform(struct codec *c, struct ts_rules_platform *p) {
  c_str(c, &p->machine);
  WALK_ARRAY(c, p->variants, p->nvariants, walk_variant);
  c_str(c, &p->pypi_default);
  c_str(c, &p->source);
}

static void walk_pair(struct codec *c, struct ts_rules_pair *p) {
  c_str(c, &p->torch);
  c_str(c, &p->torchvision);
  c_str(c, &p->torchaudio);
}

static void walk_release(struct codec *c, struct ts_rules_release *r) {
  c_str(c, &r->series);
  c_strv(c, &r->versions, &r->nversions);
  WALK_ARRAY(c, r->variants, r->nvariants, walk_variant);
  WALK_ARRAY(c, r->pairs, r->npairs, walk_pair);
  c_str(c, &r->source);
  c_str(c, &r->confidence);
  c_str(c, &r->pypi_default);
  c_str(c, &r->pypi_source);
  WALK_ARRAY(c, r->platforms, r->nplatforms, walk_platform);
}

static void walk_term(struct codec *c, struct ts_rules_term *t) {
  c_str(c, &t->name);
  c_str(c, &t->spec);
  c_str(c, &t->local);
}

static void walk_rule(struct codec *c, struct ts_rules_rule *r) {
  uint32_t kind = (uint32_t)r->kind;
  c_str(c, &r->id);
  c_u32(c, &kind);
  if (kind > TS_RULES_CUSTOM_BUILD)
    c->bad = true;
  r->kind = (enum ts_rules_kind)kind;
  c_str(c, &r->subject_name);
  c_str(c, &r->subject_spec);
  c_strv(c, &r->subject_locals, &r->nsubject_locals);
  WALK_ARRAY(c, r->terms, r->nterms, walk_term);
  WALK_ARRAY(c, r->when, r->nwhen, walk_term);
  c_str(c, &r->message);
  c_str(c, &r->fix);
  c_str(c, &r->source);
  c_str(c, &r->confidence);
  c_unsigned(c, &r->line);
  /* The file a rule came from is the path it is read from now: one entry
   * serves every copy of the same bytes. */
  if (c->reading)
    r->file = ts_xstrdup(c->file);
}

static void walk_pairing(struct codec *c, struct ts_rules_pairing *p) {
  c_str(c, &p->id);
  c_str(c, &p->project);
  c_str(c, &p->message);
  c_str(c, &p->fix);
  c_str(c, &p->source);
}

static void walk_amdgpu(struct codec *c, struct ts_rules_amdgpu_map *m) {
  c_str(c, &m->amdgpu);
  c_str(c, &m->rocm);
}

static void walk_kmd_driver(struct codec *c, struct ts_rules_kmd_driver *d) {
  c_str(c, &d->amdgpu);
  c_str(c, &d->rocm);
  c_str(c, &d->user_min);
  c_str(c, &d->user_max);
  c_str(c, &d->source);
}

static void walk_kmd(struct codec *c, struct ts_rules_kmd *k) {
  c_unsigned(c, &k->window);
  c_strv(c, &k->releases, &k->nreleases);
  WALK_ARRAY(c, k->amdgpu, k->namdgpu, walk_amdgpu);
  WALK_ARRAY(c, k->drivers, k->ndrivers, walk_kmd_driver);
  c_str(c, &k->source);
  c_str(c, &k->amdgpu_source);
  c_str(c, &k->amdgpu_confidence);
}

static void walk_torch_build(struct codec *c, struct ts_rules_torch_build *t) {
  c_str(c, &t->project);
  c_bool(c, &t->nvcc);
  c_str(c, &t->only_from);
  c_str(c, &t->source);
}

/* The provenance is not the file's: whoever chose the file sets it. */
static void walk_rules(struct codec *c, struct ts_rules *r) {
  c_int(c, &r->schema);
  c_str(c, &r->version);
  c_str(c, &r->index_base);
  WALK_ARRAY(c, r->backends, r->nbackends, walk_backend);
  WALK_ARRAY(c, r->releases, r->nreleases, walk_release);
  c_strv(c, &r->routes, &r->nroutes);
  c_str(c, &r->routes_source);
  WALK_ARRAY(c, r->pairings, r->npairings, walk_pairing);
  WALK_ARRAY(c, r->rules, r->nrules, walk_rule);
  walk_kmd(c, &r->kmd);
  WALK_ARRAY(c, r->torch_builds, r->ntorch_builds, walk_torch_build);
  c_strv(c, &r->without_rules, &r->nwithout_rules);
}

enum ts_code ts_rules_encode(const struct ts_rules *r, struct ts_buf *out) {
  struct codec c = {.out = out};
  /* The writing walk only reads the structure. */
  walk_rules(&c, (struct ts_rules *)r);
  return c.bad ? TS_E_TOO_BIG : TS_OK; /* the buffer's cap */
}

struct ts_rules *ts_rules_decode(const void *data, size_t len, const char *file) {
  const unsigned char *p = data;
  struct codec c = {.reading = true, .p = p, .end = p + len, .file = file};
  struct ts_rules *r = ts_xcalloc(1, sizeof *r);
  walk_rules(&c, r);
  if (c.bad || c.p != c.end) {
    ts_rules_free(r);
    return NULL;
  }
  return r;
}
