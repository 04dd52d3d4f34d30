/*
 * pep/version.c — PEP 440 versions, matching packaging 26's Version.
 *
 * A parsed version is ONE allocation: the fixed header, the release numbers,
 * the local segments, then the strings.  Everything is addressed by offsets,
 * so ts_version_dup is a memcpy, and ts_version_cmp touches no allocator
 * (the resolver sorts and compares versions millions of times).
 */
#include "pep/version.h"

#include <fnmatch.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "core/str.h"

#include "pep/version_internal.h"

struct ts_vlocal {
  struct ts_vnum num; /* numeric segment value, or off/len of the text */
  uint32_t is_num;
};

struct ts_version {
  uint32_t size;      /* bytes of the whole allocation */
  uint32_t nrel;      /* release numbers as written (with trailing zeros) */
  uint32_t nrel_trim; /* without trailing zeros: what ordering uses */
  uint32_t nlocal;
  uint32_t local_arr_off; /* byte offset of struct ts_vlocal[nlocal] */
  uint32_t text_off;      /* byte offset of the strings */
  /* offsets inside the strings area */
  uint32_t s_str, s_orig, s_pub, s_base, s_local;
  char pre_kind; /* 0, 'a', 'b', 'r' */
  bool has_post;
  bool has_dev;
  bool has_local;
  struct ts_vnum epoch, pre, post, dev;
  struct ts_vnum rel[]; /* nrel entries; then locals; then text */
};

/* ---- text helpers shared with the other PEP modules ------------------ */

size_t ts_pep_ws_at(const char *s, size_t len, size_t i) {
  if (i >= len)
    return 0;
  unsigned char c = (unsigned char)s[i];
  if ((c >= 0x09 && c <= 0x0d) || (c >= 0x1c && c <= 0x20))
    return 1;
  if (c == 0xc2 && i + 1 < len) {
    unsigned char d = (unsigned char)s[i + 1];
    return (d == 0x85 || d == 0xa0) ? 2 : 0;
  }
  if (i + 2 >= len)
    return 0;
  unsigned char d = (unsigned char)s[i + 1], e = (unsigned char)s[i + 2];
  if (c == 0xe1 && d == 0x9a && e == 0x80)
    return 3; /* U+1680 */
  if (c == 0xe2 && d == 0x80 &&
      ((e >= 0x80 && e <= 0x8a) || e == 0xa8 || e == 0xa9 || e == 0xaf))
    return 3; /* U+2000..200A, 2028, 2029, 202F */
  if (c == 0xe2 && d == 0x81 && e == 0x9f)
    return 3; /* U+205F */
  if (c == 0xe3 && d == 0x80 && e == 0x80)
    return 3; /* U+3000 */
  return 0;
}

size_t ts_pep_ws_before(const char *s, size_t end) {
  if (end == 0)
    return 0;
  unsigned char c = (unsigned char)s[end - 1];
  if (c < 0x80)
    return ts_pep_ws_at(s, end, end - 1);
  if (end >= 2 && ts_pep_ws_at(s, end, end - 2) == 2)
    return 2;
  if (end >= 3 && ts_pep_ws_at(s, end, end - 3) == 3)
    return 3;
  return 0;
}

void ts_pep_trim(const char *s, size_t *b, size_t *e) {
  size_t n;
  while (*b < *e && (n = ts_pep_ws_at(s, *e, *b)) > 0)
    *b += n;
  while (*e > *b && (n = ts_pep_ws_before(s, *e)) > 0 && *e - n >= *b)
    *e -= n;
}

void ts_pep_excerpt(const char *s, size_t len, char *out, size_t outsz) {
  static const char hex[] = "0123456789abcdef";
  size_t o = 0;
  if (outsz == 0)
    return;
  for (size_t i = 0; i < len; i++) {
    unsigned char c = (unsigned char)s[i];
    if (o + 8 >= outsz) { /* room for "\xNN" + "..." + NUL */
      memcpy(out + o, "...", 3);
      o += 3;
      break;
    }
    if (c >= 0x20 && c < 0x7f && c != '\\') {
      out[o++] = (char)c;
    } else {
      out[o++] = '\\';
      out[o++] = 'x';
      out[o++] = hex[c >> 4];
      out[o++] = hex[c & 15];
    }
  }
  out[o] = '\0';
}

bool ts_pep_ieq(const char *a, size_t alen, const char *b, size_t blen) {
  if (alen != blen)
    return false;
  for (size_t i = 0; i < alen; i++) {
    unsigned char x = (unsigned char)a[i], y = (unsigned char)b[i];
    if (x >= 'A' && x <= 'Z')
      x = (unsigned char)(x + 32);
    if (y >= 'A' && y <= 'Z')
      y = (unsigned char)(y + 32);
    if (x != y)
      return false;
  }
  return true;
}

/* ---- parsing ----------------------------------------------------------- */

static bool is_digit(char c) { return c >= '0' && c <= '9'; }
static bool is_sep(char c) { return c == '.' || c == '_' || c == '-'; }
static bool is_alnum_ascii(char c) {
  return is_digit(c) || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
}
static char lower(char c) {
  return (c >= 'A' && c <= 'Z') ? (char)(c + 32) : c;
}

/* A digit run in the input: [b, e). */
struct span {
  size_t b, e;
};

struct parts {
  bool has_epoch;
  struct span epoch;
  struct span release; /* digits and dots */
  size_t nrel;
  char pre_kind;
  struct span pre_n; /* empty = 0 */
  bool has_post;
  struct span post_n;
  bool has_dev;
  struct span dev_n;
  bool has_local;
  struct span local;
  size_t nlocal;
  bool wildcard;
};

/* Case-insensitive match of word at s[p..e); returns its length or 0. */
static size_t match_word(const char *s, size_t p, size_t e, const char *w) {
  size_t n = strlen(w);
  if (e - p < n)
    return 0;
  for (size_t i = 0; i < n; i++)
    if (lower(s[p + i]) != w[i])
      return 0;
  return n;
}

static size_t digits(const char *s, size_t p, size_t e) {
  size_t q = p;
  while (q < e && is_digit(s[q]))
    q++;
  return q - p;
}

/* Mirrors packaging's VERSION_PATTERN (possessive quantifiers, alternatives
 * tried in order) as a prefix match from b: returns the end of the match,
 * or SIZE_MAX when there is no release number.  A '+' not followed by a
 * valid local label ends the match before the '+'. */
static size_t scan_parts(const char *s, size_t b, size_t e, struct parts *pt,
                         bool allow_local, bool allow_wildcard) {
  memset(pt, 0, sizeof *pt);
  size_t p = b;
  if (p < e && lower(s[p]) == 'v')
    p++;
  size_t n = digits(s, p, e);
  if (n > 0 && p + n < e && s[p + n] == '!') {
    pt->has_epoch = true;
    pt->epoch = (struct span){p, p + n};
    p += n + 1;
  }
  /* release */
  n = digits(s, p, e);
  if (n == 0)
    return SIZE_MAX;
  pt->release.b = p;
  pt->nrel = 1;
  p += n;
  while (p + 1 < e && s[p] == '.' && is_digit(s[p + 1])) {
    p += 1 + digits(s, p + 1, e);
    pt->nrel++;
  }
  pt->release.e = p;
  if (allow_wildcard && p + 1 < e && s[p] == '.' && s[p + 1] == '*') {
    pt->wildcard = true;
    return p + 2;
  }

  /* pre-release */
  {
    static const struct {
      const char *w;
      char kind;
    } pre_words[] = {{"alpha", 'a'}, {"a", 'a'},       {"beta", 'b'},
                     {"b", 'b'},     {"preview", 'r'}, {"pre", 'r'},
                     {"c", 'r'},     {"rc", 'r'}};
    size_t q = p;
    if (q < e && is_sep(s[q]))
      q++;
    for (size_t i = 0; i < sizeof pre_words / sizeof pre_words[0]; i++) {
      size_t w = match_word(s, q, e, pre_words[i].w);
      if (w) {
        q += w;
        pt->pre_kind = pre_words[i].kind;
        if (q < e && is_sep(s[q]))
          q++;
        n = digits(s, q, e);
        pt->pre_n = (struct span){q, q + n};
        p = q + n;
        break;
      }
    }
  }
  /* post-release */
  if (p + 1 < e && s[p] == '-' && is_digit(s[p + 1])) {
    n = digits(s, p + 1, e);
    pt->has_post = true;
    pt->post_n = (struct span){p + 1, p + 1 + n};
    p += 1 + n;
  } else {
    static const char *const post_words[] = {"post", "rev", "r"};
    size_t q = p;
    if (q < e && is_sep(s[q]))
      q++;
    for (size_t i = 0; i < 3; i++) {
      size_t w = match_word(s, q, e, post_words[i]);
      if (w) {
        q += w;
        pt->has_post = true;
        if (q < e && is_sep(s[q]))
          q++;
        n = digits(s, q, e);
        pt->post_n = (struct span){q, q + n};
        p = q + n;
        break;
      }
    }
  }
  /* dev release */
  {
    size_t q = p;
    if (q < e && is_sep(s[q]))
      q++;
    size_t w = match_word(s, q, e, "dev");
    if (w) {
      q += w;
      pt->has_dev = true;
      if (q < e && is_sep(s[q]))
        q++;
      n = digits(s, q, e);
      pt->dev_n = (struct span){q, q + n};
      p = q + n;
    }
  }
  /* local label: [a-z0-9]+ ([-_.][a-z0-9]+)* */
  if (allow_local && p + 1 < e && s[p] == '+' && is_alnum_ascii(s[p + 1])) {
    size_t q = p + 1;
    pt->has_local = true;
    pt->local.b = q;
    for (;;) {
      while (q < e && is_alnum_ascii(s[q]))
        q++;
      pt->nlocal++;
      if (q + 1 < e && is_sep(s[q]) && is_alnum_ascii(s[q + 1])) {
        q++;
        continue;
      }
      break;
    }
    pt->local.e = q;
    p = q;
  }
  return p;
}

/* Full match of [b, e): NULL on success, else the reason; *at is where
 * matching stopped. */
static const char *parse_parts(const char *s, size_t b, size_t e,
                               struct parts *pt, size_t *at) {
  size_t p = scan_parts(s, b, e, pt, true, false);
  if (p == SIZE_MAX) {
    p = b;
    if (p < e && lower(s[p]) == 'v')
      p++;
    size_t n = digits(s, p, e);
    if (n > 0 && p + n < e && s[p + n] == '!')
      p += n + 1;
    *at = p;
    return "expected a release number";
  }
  *at = p;
  if (p == e)
    return NULL;
  if (s[p] == '+')
    return "invalid local version label";
  return "unexpected text";
}

size_t ts_version_scan(const char *s, size_t len, size_t p, bool allow_local,
                       bool allow_wildcard, size_t *nrel) {
  struct parts pt;
  size_t end = scan_parts(s, p, len, &pt, allow_local, allow_wildcard);
  if (end == SIZE_MAX)
    return p;
  if (nrel)
    *nrel = pt.nrel;
  return end;
}

/* Builds the canonical string into out (NULL = only measure).  When v is
 * non-NULL, records number and local segment offsets (relative to the
 * canonical string's start). */
struct emitter {
  char *out;
  size_t n;
};

static void emit_bytes(struct emitter *em, const char *s, size_t len) {
  if (em->out)
    memcpy(em->out + em->n, s, len);
  em->n += len;
}

static void emit_num(struct emitter *em, const char *s, struct span sp,
                     struct ts_vnum *num) {
  size_t b = sp.b;
  while (b < sp.e && s[b] == '0')
    b++;
  size_t len = sp.e - b;
  if (num) {
    num->off = (uint32_t)em->n;
    num->len = (uint32_t)len;
    uint64_t v = 0;
    bool ovf = false;
    for (size_t i = b; i < sp.e; i++) {
      unsigned d = (unsigned)(s[i] - '0');
      if (v > (UINT64_MAX - d) / 10) {
        ovf = true;
        break;
      }
      v = v * 10 + d;
    }
    num->v = ovf ? UINT64_MAX : v;
  }
  if (len == 0)
    emit_bytes(em, "0", 1);
  else
    emit_bytes(em, s + b, len);
}

static void emit_canonical(struct emitter *em, const char *s,
                           const struct parts *pt, struct ts_version *v,
                           struct ts_vlocal *loc, size_t *base_len,
                           size_t *pub_len) {
  struct ts_vnum scratch;
  if (pt->has_epoch) {
    size_t b = pt->epoch.b;
    while (b < pt->epoch.e && s[b] == '0')
      b++;
    if (b < pt->epoch.e) { /* epoch 0 is not written */
      emit_num(em, s, pt->epoch, v ? &v->epoch : &scratch);
      emit_bytes(em, "!", 1);
    }
  }
  size_t p = pt->release.b, i = 0;
  while (p < pt->release.e) {
    size_t q = p;
    while (q < pt->release.e && s[q] != '.')
      q++;
    if (i > 0)
      emit_bytes(em, ".", 1);
    emit_num(em, s, (struct span){p, q}, v ? &v->rel[i] : &scratch);
    i++;
    p = q + 1;
  }
  *base_len = em->n;
  if (pt->pre_kind) {
    const char *k = pt->pre_kind == 'a' ? "a" : pt->pre_kind == 'b' ? "b" : "rc";
    emit_bytes(em, k, strlen(k));
    emit_num(em, s, pt->pre_n, v ? &v->pre : &scratch);
  }
  if (pt->has_post) {
    emit_bytes(em, ".post", 5);
    emit_num(em, s, pt->post_n, v ? &v->post : &scratch);
  }
  if (pt->has_dev) {
    emit_bytes(em, ".dev", 4);
    emit_num(em, s, pt->dev_n, v ? &v->dev : &scratch);
  }
  *pub_len = em->n;
  if (pt->has_local) {
    emit_bytes(em, "+", 1);
    size_t j = 0;
    p = pt->local.b;
    while (p < pt->local.e) {
      size_t q = p;
      while (q < pt->local.e && !is_sep(s[q]))
        q++;
      if (j > 0)
        emit_bytes(em, ".", 1);
      if (digits(s, p, q) == q - p) {
        if (loc)
          loc[j].is_num = 1;
        emit_num(em, s, (struct span){p, q}, loc ? &loc[j].num : &scratch);
      } else {
        if (loc) {
          loc[j].is_num = 0;
          loc[j].num.off = (uint32_t)em->n;
          loc[j].num.len = (uint32_t)(q - p);
          loc[j].num.v = 0;
        }
        if (em->out)
          for (size_t k = p; k < q; k++)
            em->out[em->n + k - p] = lower(s[k]);
        em->n += q - p;
      }
      j++;
      p = q + 1;
    }
  }
}

static struct ts_vlocal *locals_of(const struct ts_version *v) {
  return (struct ts_vlocal *)((char *)v + v->local_arr_off);
}
static const char *text_of(const struct ts_version *v) {
  return (const char *)v + v->text_off;
}

enum ts_code ts_version_parse(const char *s, size_t len,
                              struct ts_version **out, struct ts_error *err) {
  char ex[160];
  *out = NULL;
  if (len > TS_VERSION_MAX_LEN) {
    return ts_error_set(err, TS_E_TOO_BIG,
                        "invalid version: %zu bytes, longer than the %d-byte "
                        "limit",
                        len, TS_VERSION_MAX_LEN);
  }
  size_t b = 0, e = len;
  ts_pep_trim(s, &b, &e);
  struct parts pt;
  size_t at;
  const char *why = parse_parts(s, b, e, &pt, &at);
  if (why) {
    ts_pep_excerpt(s + b, e - b, ex, sizeof ex);
    return ts_error_set(err, TS_E_PARSE,
                        "invalid version '%s': %s at position %zu", ex, why,
                        at - b);
  }
  struct emitter em = {NULL, 0};
  size_t base_len, pub_len;
  emit_canonical(&em, s, &pt, NULL, NULL, &base_len, &pub_len);
  size_t clen = em.n;
  size_t local_len = pt.has_local ? clen - pub_len - 1 : 0;
  size_t olen = e - b;

  size_t hdr = sizeof(struct ts_version) + pt.nrel * sizeof(struct ts_vnum);
  hdr = (hdr + 7) & ~(size_t)7;
  size_t local_arr_off = hdr;
  size_t text_off = hdr + pt.nlocal * sizeof(struct ts_vlocal);
  size_t text_len = (clen + 1) + (olen + 1) + (pub_len + 1) + (base_len + 1) +
                    (local_len + 1);
  size_t total = text_off + text_len;
  struct ts_version *v = ts_xcalloc(1, total);
  v->size = (uint32_t)total;
  v->nrel = (uint32_t)pt.nrel;
  v->nlocal = (uint32_t)pt.nlocal;
  v->local_arr_off = (uint32_t)local_arr_off;
  v->text_off = (uint32_t)text_off;
  v->pre_kind = pt.pre_kind;
  v->has_post = pt.has_post;
  v->has_dev = pt.has_dev;
  v->has_local = pt.has_local;

  char *text = (char *)v + text_off;
  em = (struct emitter){text, 0};
  emit_canonical(&em, s, &pt, v, locals_of(v), &base_len, &pub_len);
  text[clen] = '\0';
  size_t o = clen + 1;
  v->s_str = 0;
  v->s_orig = (uint32_t)o;
  memcpy(text + o, s + b, olen);
  text[o + olen] = '\0';
  o += olen + 1;
  v->s_pub = (uint32_t)o;
  memcpy(text + o, text, pub_len);
  text[o + pub_len] = '\0';
  o += pub_len + 1;
  v->s_base = (uint32_t)o;
  memcpy(text + o, text, base_len);
  text[o + base_len] = '\0';
  o += base_len + 1;
  v->s_local = (uint32_t)o;
  if (pt.has_local)
    memcpy(text + o, text + pub_len + 1, local_len);
  text[o + local_len] = '\0';

  size_t t = v->nrel;
  while (t > 0 && v->rel[t - 1].len == 0)
    t--;
  v->nrel_trim = (uint32_t)t;
  *out = v;
  return TS_OK;
}

void ts_version_free(struct ts_version *v) { free(v); }

struct ts_version *ts_version_dup(const struct ts_version *v) {
  if (!v)
    return NULL;
  struct ts_version *d = ts_xmalloc(v->size);
  memcpy(d, v, v->size);
  return d;
}

/* ---- ordering ------------------------------------------------------------ */

int ts_vnum_cmp(const struct ts_version *a, const struct ts_vnum *x,
                const struct ts_version *b, const struct ts_vnum *y) {
  if (x->len != y->len)
    return x->len < y->len ? -1 : 1;
  if (x->len <= 19)
    return x->v < y->v ? -1 : x->v > y->v;
  int c = memcmp(text_of(a) + x->off, text_of(b) + y->off, x->len);
  return c < 0 ? -1 : c > 0;
}

static const struct ts_vnum zero_num = {0, 0, 0};

int ts_version_release_cmp_at(const struct ts_version *a, size_t i,
                              const struct ts_version *b, size_t j) {
  const struct ts_vnum *x = i < a->nrel ? &a->rel[i] : &zero_num;
  const struct ts_vnum *y = j < b->nrel ? &b->rel[j] : &zero_num;
  return ts_vnum_cmp(a, x, b, y);
}

/* Rank of the pre-release slot in packaging's _cmpkey: a bare dev release
 * sorts before any pre-release (-inf), no pre-release after all (+inf). */
static int pre_slot(const struct ts_version *v) {
  if (v->pre_kind)
    return 1;
  if (!v->has_post && v->has_dev)
    return 0;
  return 2;
}

static int cmp_public(const struct ts_version *a, const struct ts_version *b) {
  int c = ts_vnum_cmp(a, &a->epoch, b, &b->epoch);
  if (c)
    return c;
  size_t n = a->nrel_trim > b->nrel_trim ? a->nrel_trim : b->nrel_trim;
  for (size_t i = 0; i < n; i++) {
    const struct ts_vnum *x = i < a->nrel_trim ? &a->rel[i] : &zero_num;
    const struct ts_vnum *y = i < b->nrel_trim ? &b->rel[i] : &zero_num;
    c = ts_vnum_cmp(a, x, b, y);
    if (c)
      return c;
  }
  int pa = pre_slot(a), pb = pre_slot(b);
  if (pa != pb)
    return pa < pb ? -1 : 1;
  if (pa == 1) {
    if (a->pre_kind != b->pre_kind)
      return a->pre_kind < b->pre_kind ? -1 : 1;
    c = ts_vnum_cmp(a, &a->pre, b, &b->pre);
    if (c)
      return c;
  }
  if (a->has_post != b->has_post)
    return a->has_post ? 1 : -1;
  if (a->has_post) {
    c = ts_vnum_cmp(a, &a->post, b, &b->post);
    if (c)
      return c;
  }
  if (a->has_dev != b->has_dev)
    return a->has_dev ? -1 : 1;
  if (a->has_dev) {
    c = ts_vnum_cmp(a, &a->dev, b, &b->dev);
    if (c)
      return c;
  }
  return 0;
}

int ts_version_cmp_public(const struct ts_version *a,
                          const struct ts_version *b) {
  return cmp_public(a, b);
}

int ts_version_cmp(const struct ts_version *a, const struct ts_version *b) {
  int c = cmp_public(a, b);
  if (c)
    return c;
  if (a->has_local != b->has_local)
    return a->has_local ? 1 : -1;
  if (!a->has_local)
    return 0;
  /* Local segments: numbers sort above strings; strings compare as text. */
  const struct ts_vlocal *la = locals_of(a), *lb = locals_of(b);
  size_t n = a->nlocal < b->nlocal ? a->nlocal : b->nlocal;
  for (size_t i = 0; i < n; i++) {
    if (la[i].is_num != lb[i].is_num)
      return la[i].is_num ? 1 : -1;
    if (la[i].is_num) {
      c = ts_vnum_cmp(a, &la[i].num, b, &lb[i].num);
    } else {
      size_t m = la[i].num.len < lb[i].num.len ? la[i].num.len : lb[i].num.len;
      c = memcmp(text_of(a) + la[i].num.off, text_of(b) + lb[i].num.off, m);
      c = c < 0 ? -1 : c > 0;
      if (!c && la[i].num.len != lb[i].num.len)
        c = la[i].num.len < lb[i].num.len ? -1 : 1;
    }
    if (c)
      return c;
  }
  if (a->nlocal != b->nlocal)
    return a->nlocal < b->nlocal ? -1 : 1;
  return 0;
}

/* ---- accessors -------------------------------------------------------------- */

const char *ts_version_str(const struct ts_version *v) {
  return text_of(v) + v->s_str;
}
const char *ts_version_original(const struct ts_version *v) {
  return text_of(v) + v->s_orig;
}
const char *ts_version_public(const struct ts_version *v) {
  return text_of(v) + v->s_pub;
}
const char *ts_version_base(const struct ts_version *v) {
  return text_of(v) + v->s_base;
}
const char *ts_version_local(const struct ts_version *v) {
  return v->has_local ? text_of(v) + v->s_local : NULL;
}
bool ts_local_label_matches(const char *pattern, const char *label) {
  char first = pattern[0];
  if (first != '*' && first != '?' && first != '[' && first != '\\' && first != label[0])
    return false;
  if (!strpbrk(pattern, "*?[\\"))
    return strcmp(pattern, label) == 0;
  return fnmatch(pattern, label, 0) == 0;
}
bool ts_version_is_prerelease(const struct ts_version *v) {
  return v->pre_kind != 0 || v->has_dev;
}
bool ts_version_is_devrelease(const struct ts_version *v) {
  return v->has_dev;
}
bool ts_version_is_postrelease(const struct ts_version *v) {
  return v->has_post;
}
bool ts_version_has_local(const struct ts_version *v) { return v->has_local; }
bool ts_version_has_pre(const struct ts_version *v) {
  return v->pre_kind != 0;
}
unsigned long long ts_version_epoch(const struct ts_version *v) {
  return v->epoch.v;
}
size_t ts_version_release_count(const struct ts_version *v) {
  return v->nrel;
}
unsigned long long ts_version_release_at(const struct ts_version *v,
                                         size_t i) {
  return i < v->nrel ? v->rel[i].v : 0;
}
const struct ts_vnum *ts_version_release_nums(const struct ts_version *v,
                                              size_t *n) {
  *n = v->nrel;
  return v->rel;
}
bool ts_version_pre(const struct ts_version *v, char *kind,
                    unsigned long long *num) {
  if (!v->pre_kind)
    return false;
  if (kind)
    *kind = v->pre_kind;
  if (num)
    *num = v->pre.v;
  return true;
}
bool ts_version_post(const struct ts_version *v, unsigned long long *num) {
  if (num)
    *num = v->has_post ? v->post.v : 0;
  return v->has_post;
}
bool ts_version_dev(const struct ts_version *v, unsigned long long *num) {
  if (num)
    *num = v->has_dev ? v->dev.v : 0;
  return v->has_dev;
}

char *ts_version_canonicalize(const char *s, size_t len,
                              bool strip_trailing_zero) {
  struct ts_version *v;
  if (ts_version_parse(s, len, &v, NULL) != TS_OK) {
    return ts_xstrndup(s, len);
  }
  char *res = ts_version_canonical(v, strip_trailing_zero);
  ts_version_free(v);
  return res;
}

char *ts_version_canonical(const struct ts_version *v, bool strip_trailing_zero) {
  const char *str = ts_version_str(v);
  size_t slen = strlen(str);
  char *res = ts_xmalloc(slen + 1);
  if (!strip_trailing_zero || v->nrel_trim == v->nrel) {
    memcpy(res, str, slen + 1);
  } else {
    /* Keep at least one release number ("0.0" -> "0"). */
    size_t keep = v->nrel_trim ? v->nrel_trim : 1;
    const char *base = ts_version_base(v);
    size_t base_len = strlen(base);
    /* The release ends where the `keep`-th number ends. */
    size_t cut = v->rel[keep - 1].off + (v->rel[keep - 1].len ? v->rel[keep - 1].len : 1);
    memcpy(res, str, cut);
    memcpy(res + cut, str + base_len, slen - base_len + 1);
  }
  return res;
}

/* ---- helpers for specifier.c -------------------------------------------- */

int ts_version_epoch_cmp(const struct ts_version *a,
                         const struct ts_version *b) {
  return ts_vnum_cmp(a, &a->epoch, b, &b->epoch);
}

bool ts_version_release_prefix_eq(const struct ts_version *v,
                                  const struct ts_version *s, size_t k) {
  for (size_t i = 0; i < k; i++)
    if (ts_version_release_cmp_at(v, i, s, i) != 0)
      return false;
  return true;
}

bool ts_version_same_release(const struct ts_version *a,
                             const struct ts_version *b) {
  if (a->nrel_trim != b->nrel_trim)
    return false;
  return ts_version_release_prefix_eq(a, b, a->nrel_trim);
}

bool ts_version_same_pre(const struct ts_version *a,
                         const struct ts_version *b) {
  if (a->pre_kind != b->pre_kind)
    return false;
  return !a->pre_kind || ts_vnum_cmp(a, &a->pre, b, &b->pre) == 0;
}
