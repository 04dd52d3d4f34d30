/*
 * pep/specifier.c — PEP 440 specifier sets with packaging 26's semantics.
 *
 * packaging 26 models every specifier as version ranges with two kinds of
 * boundary ("after V's local labels", "after V's post-releases").  Each
 * range test below is the same predicate written directly against the
 * version fields, so that contains() costs a few comparisons and never
 * allocates (the resolver calls it millions of times):
 *
 *   >=V    v >= V
 *   <=V    v <= V, or v is V+local
 *   >V     v > V, except V+local and (when V is final or a pre-release)
 *          V's post-releases
 *   <V     v < V.dev0 when V is not a pre-release (excludes V's
 *          pre-releases), else v < V
 *   ==V    v == V ignoring v's local label, unless V has one
 *   ==V.*  same epoch and v's release, zero-padded, starts with V's
 *   ~=V    v >= V and ==P.* where P is V's release minus its last number
 *   !=     the complement of ==
 *   ===V   the item's text equals V, ignoring ASCII case
 */
#include "core/str.h"
#include "pep/specifier.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "pep/version_internal.h"

struct ts_spec {
  enum ts_spec_op op;
  bool wildcard;  /* ==V.* / !=V.* */
  bool has_local; /* V has a local label (== / != only) */
  bool names_pre; /* packaging's Specifier.prereleases is True */
  size_t prefix_k;           /* release numbers compared for .* and ~= */
  struct ts_version *v;      /* V (the prefix for .*); NULL for === */
  struct ts_version *bound;  /* <V: V.dev0 when V is final; else NULL */
  char *text;                /* version text after the operator */
  char *str;                 /* operator + text */
  char *canon;               /* canonical version text, for equality */
};

/* How many sets use one set's specifiers, order and text (its copies). */
struct spec_share {
  size_t refs;
};

struct ts_specset {
  size_t n;
  struct ts_spec *specs;
  size_t ncanon;
  size_t *canon_order; /* sorted by str, canonical duplicates dropped */
  bool has_arbitrary;
  bool names_pre;
  enum ts_prereleases explicit_pre; /* each copy's own */
  char *str;
  /* NULL: specs, canon_order and str are this set's alone; else they are
   * shared with its copies and go with the last of them */
  struct spec_share *share;
};

static const char *const op_text[] = {
    [TS_OP_COMPATIBLE] = "~=", [TS_OP_EQ] = "==", [TS_OP_NE] = "!=",
    [TS_OP_LE] = "<=",         [TS_OP_GE] = ">=", [TS_OP_LT] = "<",
    [TS_OP_GT] = ">",          [TS_OP_ARBITRARY] = "===",
};

static char *concat2(const char *a, const char *b) {
  size_t la = strlen(a), lb = strlen(b);
  char *d = ts_xmalloc(la + lb + 1);
  memcpy(d, a, la);
  memcpy(d + la, b, lb + 1);
  return d;
}

static void spec_clear(struct ts_spec *sp) {
  ts_version_free(sp->v);
  ts_version_free(sp->bound);
  free(sp->text);
  free(sp->str);
  free(sp->canon);
  memset(sp, 0, sizeof *sp);
}

/* ---- parsing ------------------------------------------------------------ */

static enum ts_code spec_error(struct ts_error *err, const char *s,
                               size_t len, size_t pos, const char *what) {
  char ex[160];
  ts_pep_excerpt(s, len, ex, sizeof ex);
  return ts_error_set(err, TS_E_PARSE,
                      "invalid specifier '%s': %s at position %zu", ex, what,
                      pos);
}

static bool has_ws(const char *s, size_t b, size_t e) {
  for (size_t i = b; i < e; i++)
    if (ts_pep_ws_at(s, e, i))
      return true;
  return false;
}

/* Parses the specifier in s[b, e) (already trimmed); positions in errors
 * are relative to s (the whole set). */
static enum ts_code spec_parse(const char *s, size_t slen, size_t b, size_t e,
                               struct ts_spec *sp, struct ts_error *err) {
  memset(sp, 0, sizeof *sp);
  size_t p = b;
  size_t n = e - b;
  if (n >= 3 && !memcmp(s + p, "===", 3)) {
    sp->op = TS_OP_ARBITRARY;
    p += 3;
  } else if (n >= 2 && (!memcmp(s + p, "~=", 2) || !memcmp(s + p, "==", 2) ||
                        !memcmp(s + p, "!=", 2) || !memcmp(s + p, "<=", 2) ||
                        !memcmp(s + p, ">=", 2))) {
    sp->op = s[p] == '~'   ? TS_OP_COMPATIBLE
             : s[p] == '=' ? TS_OP_EQ
             : s[p] == '!' ? TS_OP_NE
             : s[p] == '<' ? TS_OP_LE
                           : TS_OP_GE;
    p += 2;
  } else if (n >= 1 && (s[p] == '<' || s[p] == '>')) {
    sp->op = s[p] == '<' ? TS_OP_LT : TS_OP_GT;
    p += 1;
  } else {
    return spec_error(err, s, slen, p,
                      "expected an operator (~=, ==, !=, <=, >=, <, >, ===)");
  }
  size_t w;
  while (p < e && (w = ts_pep_ws_at(s, e, p)) > 0)
    p += w;

  if (sp->op == TS_OP_ARBITRARY) {
    /* packaging: `===\s*[^\s;)]*` -- anything but whitespace, ';' and ')'. */
    for (size_t i = p; i < e; i++)
      if (s[i] == ';' || s[i] == ')' || ts_pep_ws_at(s, e, i))
        return spec_error(err, s, slen, i,
                          "unexpected character in an arbitrary version");
  } else if (p == e) {
    return spec_error(err, s, slen, p, "expected a version");
  } else if (e - p >= 2 && s[e - 2] == '.' && s[e - 1] == '*') {
    if (sp->op != TS_OP_EQ && sp->op != TS_OP_NE)
      return spec_error(err, s, slen, e - 2,
                        "'.*' is only allowed with == and !=");
    size_t pe = e - 2;
    if (pe == p || s[pe - 1] < '0' || s[pe - 1] > '9' || has_ws(s, p, pe) ||
        ts_version_parse(s + p, pe - p, &sp->v, NULL) != TS_OK)
      return spec_error(err, s, slen, p, "expected a release before '.*'");
    if (ts_version_is_prerelease(sp->v) || ts_version_is_postrelease(sp->v) ||
        ts_version_has_local(sp->v)) {
      spec_clear(sp);
      return spec_error(err, s, slen, p,
                        "'.*' must follow a plain release number");
    }
    sp->wildcard = true;
    sp->prefix_k = ts_version_release_count(sp->v);
  } else {
    if (has_ws(s, p, e) ||
        ts_version_parse(s + p, e - p, &sp->v, NULL) != TS_OK)
      return spec_error(err, s, slen, p, "expected a PEP 440 version");
    sp->has_local = ts_version_has_local(sp->v);
    if (sp->has_local && sp->op != TS_OP_EQ && sp->op != TS_OP_NE) {
      spec_clear(sp);
      return spec_error(err, s, slen, p,
                        "a local version label is only allowed with == and "
                        "!=");
    }
    if (sp->op == TS_OP_COMPATIBLE) {
      if (ts_version_release_count(sp->v) < 2) {
        spec_clear(sp);
        return spec_error(err, s, slen, p,
                          "~= needs at least two release numbers");
      }
      sp->prefix_k = ts_version_release_count(sp->v) - 1;
    }
  }

  sp->text = ts_xstrndup(s + p, e - p);
  sp->str = concat2(op_text[sp->op], sp->text);
  if (sp->op == TS_OP_ARBITRARY || sp->wildcard)
    sp->canon = ts_xstrdup(sp->text);
  else
    sp->canon = ts_version_canonical(sp->v, sp->op != TS_OP_COMPATIBLE);

  /* packaging's Specifier.prereleases (autodetection). */
  if (sp->op == TS_OP_NE || sp->wildcard) {
    sp->names_pre = false;
  } else if (sp->op == TS_OP_ARBITRARY) {
    struct ts_version *av = NULL;
    if (ts_version_parse(s + p, e - p, &av, NULL) == TS_OK)
      sp->names_pre = ts_version_is_prerelease(av);
    ts_version_free(av);
  } else {
    sp->names_pre = ts_version_is_prerelease(sp->v);
  }

  if (sp->op == TS_OP_LT && !ts_version_is_prerelease(sp->v)) {
    /* <V excludes V's pre-releases: the bound is V.dev0 (V has no dev and
     * no local here, so appending ".dev0" is V.replace(dev=0)). */
    char *t = concat2(ts_version_str(sp->v), ".dev0");
    enum ts_code rc = ts_version_parse(t, strlen(t), &sp->bound, err);
    free(t);
    if (rc != TS_OK) {
      spec_clear(sp);
      return rc;
    }
  }
  return TS_OK;
}

static bool spec_canon_eq(const struct ts_spec *a, const struct ts_spec *b) {
  return a->op == b->op && !strcmp(a->canon, b->canon);
}

/* Sorting context for qsort without globals: sort pointers. */
static int cmp_spec_ptr(const void *x, const void *y) {
  const struct ts_spec *a = *(const struct ts_spec *const *)x;
  const struct ts_spec *b = *(const struct ts_spec *const *)y;
  int c = strcmp(a->str, b->str);
  if (c)
    return c;
  /* stable: fall back to position */
  return a < b ? -1 : a > b;
}

/* Computes canon_order and str: specifiers sorted by their text (Python's
 * sorted(key=str), stable), canonical duplicates dropped, comma-joined. */
static void set_finish(struct ts_specset *set) {
  set->has_arbitrary = false;
  set->names_pre = false;
  for (size_t i = 0; i < set->n; i++) {
    set->has_arbitrary |= set->specs[i].op == TS_OP_ARBITRARY;
    set->names_pre |= set->specs[i].names_pre;
  }
  free(set->canon_order);
  free(set->str);
  set->canon_order = NULL;
  set->str = NULL;
  set->ncanon = 0;
  /* the usual set has a specifier or two: its scratch lives on the stack */
  enum { SMALL = 8, SMALL_TABLE = 16 };
  struct ts_spec *ptrs_small[SMALL];
  size_t table_small[SMALL_TABLE];
  struct ts_spec **ptrs =
      set->n <= SMALL ? ptrs_small : ts_xcalloc(set->n, sizeof *ptrs);
  set->canon_order = ts_xcalloc(set->n, sizeof *set->canon_order);
  for (size_t i = 0; i < set->n; i++)
    ptrs[i] = &set->specs[i];
  if (set->n > 1)
    qsort(ptrs, set->n, sizeof *ptrs, cmp_spec_ptr);
  /* Open-addressing hash of (operator, canonical text) drops duplicates in
   * O(n): hostile metadata may carry thousands of specifiers. */
  size_t hsize = SMALL_TABLE;
  while (hsize < 2 * set->n)
    hsize *= 2;
  size_t *table = hsize == SMALL_TABLE ? table_small
                                       : ts_xreallocarray(NULL, hsize, sizeof *table);
  for (size_t i = 0; i < hsize; i++)
    table[i] = SIZE_MAX;
  size_t total = 1;
  for (size_t i = 0; i < set->n; i++) {
    uint64_t h = 1469598103934665603ULL ^ (uint64_t)ptrs[i]->op;
    for (const char *c = ptrs[i]->canon; *c; c++)
      h = (h ^ (unsigned char)*c) * 1099511628211ULL;
    size_t slot = (size_t)h & (hsize - 1);
    bool dup = false;
    while (table[slot] != SIZE_MAX) {
      if (spec_canon_eq(&set->specs[table[slot]], ptrs[i])) {
        dup = true;
        break;
      }
      slot = (slot + 1) & (hsize - 1);
    }
    if (dup)
      continue;
    table[slot] = (size_t)(ptrs[i] - set->specs);
    set->canon_order[set->ncanon++] = (size_t)(ptrs[i] - set->specs);
    total += strlen(ptrs[i]->str) + 1;
  }
  if (table != table_small)
    free(table);
  if (ptrs != ptrs_small)
    free(ptrs);
  set->str = ts_xmalloc(total);
  size_t o = 0;
  for (size_t j = 0; j < set->ncanon; j++) {
    const char *t = set->specs[set->canon_order[j]].str;
    size_t l = strlen(t);
    if (j)
      set->str[o++] = ',';
    memcpy(set->str + o, t, l);
    o += l;
  }
  set->str[o] = '\0';
}

enum ts_code ts_specset_parse(const char *s, size_t len,
                              struct ts_specset **out, struct ts_error *err) {
  *out = NULL;
  if (len > TS_SPECSET_MAX_LEN)
    return ts_error_set(err, TS_E_TOO_BIG,
                        "specifier set of %zu bytes is longer than the "
                        "%d-byte limit",
                        len, TS_SPECSET_MAX_LEN);
  const char *nul = len ? memchr(s, '\0', len) : NULL;
  if (nul)
    return spec_error(err, s, len, (size_t)(nul - s), "NUL byte");
  size_t cap = 1;
  for (size_t i = 0; i < len; i++)
    cap += s[i] == ',';
  struct ts_specset *set = ts_xcalloc(1, sizeof *set);
  set->specs = ts_xcalloc(cap, sizeof *set->specs);
  set->explicit_pre = TS_PRE_DEFAULT;
  size_t b = 0;
  while (b <= len) {
    size_t e = b;
    while (e < len && s[e] != ',')
      e++;
    size_t tb = b, te = e;
    ts_pep_trim(s, &tb, &te);
    if (tb < te) {
      enum ts_code rc = spec_parse(s, len, tb, te, &set->specs[set->n], err);
      if (rc != TS_OK) {
        ts_specset_free(set);
        return rc;
      }
      set->n++;
    }
    b = e + 1;
  }
  set_finish(set);
  *out = set;
  return TS_OK;
}

void ts_specset_free(struct ts_specset *set) {
  if (!set)
    return;
  if (set->share) {
    if (--set->share->refs > 0) {
      free(set);
      return;
    }
    free(set->share);
  }
  for (size_t i = 0; i < set->n; i++)
    spec_clear(&set->specs[i]);
  free(set->specs);
  free(set->canon_order);
  free(set->str);
  free(set);
}

static void spec_copy(struct ts_spec *d, const struct ts_spec *s) {
  *d = *s;
  d->v = ts_version_dup(s->v);
  d->bound = ts_version_dup(s->bound);
  d->text = ts_xstrdup(s->text);
  d->str = ts_xstrdup(s->str);
  d->canon = ts_xstrdup(s->canon);
}

static struct ts_specset *set_concat(const struct ts_specset *a,
                                     const struct ts_specset *b) {
  size_t n = a->n + (b ? b->n : 0);
  struct ts_specset *set = ts_xcalloc(1, sizeof *set);
  set->specs = ts_xcalloc(n, sizeof *set->specs);
  set->explicit_pre = a->explicit_pre;
  for (size_t i = 0; i < n; i++) {
    const struct ts_spec *src = i < a->n ? &a->specs[i] : &b->specs[i - a->n];
    spec_copy(&set->specs[i], src);
    set->n++;
  }
  set_finish(set);
  return set;

}

/* A copy shares the original's specifiers, order and text, which no set
 * changes once made (only the pre-release override, a copy's own, can be
 * set): the rules' compile copies a memoised parse 1,230 times a run, and
 * a deep copy was ten allocations each, and as many frees at the end.
 * The share count is bookkeeping beside the shared parts, not part of the
 * set's value, hence the cast. */
struct ts_specset *ts_specset_dup(const struct ts_specset *set) {
  if (!set)
    return NULL;
  struct ts_specset *src = (struct ts_specset *)set;
  if (!src->share) {
    src->share = ts_xmalloc(sizeof *src->share);
    src->share->refs = 1;
  }
  src->share->refs++;
  struct ts_specset *d = ts_xmalloc(sizeof *d);
  *d = *src;
  return d;
}

struct ts_specset *ts_specset_and(const struct ts_specset *a,
                                  const struct ts_specset *b) {
  enum ts_prereleases pre;
  if (a->explicit_pre == TS_PRE_DEFAULT || a->explicit_pre == b->explicit_pre)
    pre = b->explicit_pre;
  else if (b->explicit_pre == TS_PRE_DEFAULT)
    pre = a->explicit_pre;
  else
    return NULL; /* True and False overrides cannot be combined */
  struct ts_specset *set = set_concat(a, b);
  if (set)
    set->explicit_pre = pre;
  return set;
}

/* ---- accessors -------------------------------------------------------- */

size_t ts_specset_count(const struct ts_specset *set) { return set->n; }
enum ts_spec_op ts_specset_op_at(const struct ts_specset *set, size_t i) {
  return set->specs[i].op;
}
const char *ts_specset_version_at(const struct ts_specset *set, size_t i) {
  return set->specs[i].text;
}
const char *ts_specset_str(const struct ts_specset *set) { return set->str; }
bool ts_specset_names_prerelease(const struct ts_specset *set) {
  if (set->explicit_pre != TS_PRE_DEFAULT)
    return set->explicit_pre == TS_PRE_INCLUDE;
  return set->names_pre;
}
void ts_specset_set_prereleases(struct ts_specset *set,
                                enum ts_prereleases pre) {
  set->explicit_pre = pre;
}
enum ts_prereleases ts_specset_get_prereleases(const struct ts_specset *set) {
  return set->explicit_pre;
}

bool ts_specset_equal(const struct ts_specset *a, const struct ts_specset *b) {
  if (a->ncanon != b->ncanon)
    return false;
  for (size_t i = 0; i < a->ncanon; i++)
    if (!spec_canon_eq(&a->specs[a->canon_order[i]],
                       &b->specs[b->canon_order[i]]))
      return false;
  return true;
}

/* ---- matching --------------------------------------------------------- */

/* v is in V's "post family": same epoch, release and pre-release, and
 * either no dev part or a post-release -- what >V skips over. */
static bool in_post_family(const struct ts_version *v,
                           const struct ts_version *s) {
  return ts_version_epoch_cmp(v, s) == 0 && ts_version_same_release(v, s) &&
         ts_version_same_pre(v, s) &&
         (!ts_version_is_devrelease(v) || ts_version_is_postrelease(v));
}

static bool eq_match(const struct ts_spec *sp, const struct ts_version *v) {
  if (sp->wildcard)
    return ts_version_epoch_cmp(v, sp->v) == 0 &&
           ts_version_release_prefix_eq(v, sp->v, sp->prefix_k);
  if (sp->has_local)
    return ts_version_cmp(v, sp->v) == 0;
  return ts_version_cmp_public(v, sp->v) == 0;
}

/* Whether v satisfies one standard specifier, pre-release policy aside. */
static bool spec_match(const struct ts_spec *sp, const struct ts_version *v) {
  const struct ts_version *s = sp->v;
  switch (sp->op) {
  case TS_OP_GE:
    return ts_version_cmp(v, s) >= 0;
  case TS_OP_LE:
    return ts_version_cmp_public(v, s) <= 0;
  case TS_OP_LT:
    return ts_version_cmp(v, sp->bound ? sp->bound : s) < 0;
  case TS_OP_GT:
    if (ts_version_cmp(v, s) <= 0)
      return false;
    if (ts_version_is_devrelease(s) || ts_version_is_postrelease(s))
      return ts_version_cmp_public(v, s) != 0; /* skip V+local only */
    return !in_post_family(v, s);
  case TS_OP_EQ:
    return eq_match(sp, v);
  case TS_OP_NE:
    return !eq_match(sp, v);
  case TS_OP_COMPATIBLE:
    return ts_version_cmp(v, s) >= 0 && ts_version_epoch_cmp(v, s) == 0 &&
           ts_version_release_prefix_eq(v, s, sp->prefix_k);
  case TS_OP_ARBITRARY:
    break;
  }
  return false;
}

static bool arbitrary_match(const struct ts_spec *sp, const char *text,
                            size_t len) {
  return ts_pep_ieq(text, len, sp->text, strlen(sp->text));
}

/* Every specifier admits the item, pre-releases allowed. */
static bool set_match(const struct ts_specset *set,
                      const struct ts_spec_item *it) {
  for (size_t i = 0; i < set->n; i++) {
    const struct ts_spec *sp = &set->specs[i];
    if (sp->op == TS_OP_ARBITRARY) {
      const char *t = it->text;
      size_t l = it->len;
      if (!t) {
        if (!it->version)
          return false;
        t = ts_version_str(it->version);
        l = strlen(t);
      }
      if (!arbitrary_match(sp, t, l))
        return false;
    } else if (!it->version || !spec_match(sp, it->version)) {
      return false;
    }
  }
  return true;
}

/* The policy packaging applies: the call's argument, else the set's
 * override, else "include" when a specifier names a pre-release. */
static enum ts_prereleases effective_pre(const struct ts_specset *set,
                                         enum ts_prereleases pre) {
  if (pre != TS_PRE_DEFAULT)
    return pre;
  if (set->explicit_pre != TS_PRE_DEFAULT)
    return set->explicit_pre;
  return set->names_pre ? TS_PRE_INCLUDE : TS_PRE_DEFAULT;
}

bool ts_specset_contains_ex(const struct ts_specset *set,
                            const struct ts_version *v, const char *text,
                            size_t len, enum ts_prereleases pre,
                            bool installed) {
  pre = effective_pre(set, pre);
  if (v && installed && ts_version_is_prerelease(v))
    pre = TS_PRE_INCLUDE;
  /* One item: the PEP 440 default keeps a matching pre-release, since no
   * final release competes with it (packaging >= 26). */
  if (pre == TS_PRE_EXCLUDE && v && ts_version_is_prerelease(v))
    return false;
  if (!v && !set->has_arbitrary && set->n > 0)
    return false;
  struct ts_spec_item it = {v, text, len};
  return set_match(set, &it);
}

bool ts_specset_contains(const struct ts_specset *set,
                         const struct ts_version *v, enum ts_prereleases pre) {
  pre = effective_pre(set, pre);
  if (pre == TS_PRE_EXCLUDE && ts_version_is_prerelease(v))
    return false;
  if (set->has_arbitrary) {
    struct ts_spec_item it = {v, NULL, 0};
    return set_match(set, &it);
  }
  for (size_t i = 0; i < set->n; i++)
    if (!spec_match(&set->specs[i], v))
      return false;
  return true;
}

size_t ts_specset_filter_items(const struct ts_specset *set,
                               const struct ts_spec_item *items, size_t n,
                               enum ts_prereleases pre, size_t *keep) {
  pre = effective_pre(set, pre);
  size_t k = 0;
  bool found_final = false;
  for (size_t i = 0; i < n; i++) {
    const struct ts_version *v = items[i].version;
    if (!v && !set->has_arbitrary && set->n > 0)
      continue; /* standard operators never match a non-version */
    if (!set_match(set, &items[i]))
      continue;
    bool is_pre = v && ts_version_is_prerelease(v);
    if (pre == TS_PRE_EXCLUDE && is_pre)
      continue;
    if (v && !is_pre)
      found_final = true;
    keep[k++] = i;
  }
  if (pre != TS_PRE_DEFAULT || !found_final)
    return k;
  /* PEP 440 default: pre-releases only when no final release matched. */
  size_t m = 0;
  for (size_t j = 0; j < k; j++) {
    const struct ts_version *v = items[keep[j]].version;
    if (!(v && ts_version_is_prerelease(v)))
      keep[m++] = keep[j];
  }
  return m;
}

size_t ts_specset_filter(const struct ts_specset *set,
                         const struct ts_version *const *versions, size_t n,
                         enum ts_prereleases pre, size_t *keep) {
  pre = effective_pre(set, pre);
  size_t k = 0;
  bool found_final = false;
  for (size_t i = 0; i < n; i++) {
    if (!ts_specset_contains(set, versions[i], TS_PRE_INCLUDE))
      continue;
    bool is_pre = ts_version_is_prerelease(versions[i]);
    if (pre == TS_PRE_EXCLUDE && is_pre)
      continue;
    found_final |= !is_pre;
    keep[k++] = i;
  }
  if (pre != TS_PRE_DEFAULT || !found_final)
    return k;
  size_t m = 0;
  for (size_t j = 0; j < k; j++)
    if (!ts_version_is_prerelease(versions[keep[j]]))
      keep[m++] = keep[j];
  return m;
}
