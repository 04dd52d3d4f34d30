/*
 * pep/tags.c — supported-tag generation in packaging.tags.sys_tags order.
 *
 * The order below is the order pip and packaging use; each block says which
 * packaging function it mirrors so a difference can be looked up.
 */
#include "core/alloc.h"
#include "core/str.h"
#include "core/vec.h"
#include "pep/tags.h"


#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#define TAG_PART_MAX 128 /* longer components are not tags anyone ships */

struct ts_tagset {
  struct ts_tag *tags;
  size_t n, alloc;
  /* Interned component strings: tags point into these. */
  char **strs;
  size_t nstrs, astrs;
  /* Open-addressing table of string indexes + 1 (0 = empty). */
  size_t *str_slots;
  size_t nstr_slots;
  /* Open-addressing table of tag indexes + 1 (0 = empty). */
  size_t *slots;
  size_t nslots;
};

static uint64_t hash_part(uint64_t h, const char *s)
{
  for (; *s; s++) {
    unsigned char c = (unsigned char)*s;
    if (c >= 'A' && c <= 'Z')
      c = (unsigned char)(c - 'A' + 'a');
    h ^= c;
    h *= 1099511628211ull;
  }
  h ^= '-';
  h *= 1099511628211ull;
  return h;
}

static uint64_t hash_tag(const char *py, const char *abi, const char *plat)
{
  uint64_t h = 14695981039346656037ull;
  h = hash_part(h, py);
  h = hash_part(h, abi);
  return hash_part(h, plat);
}

static uint64_t hash_str(const char *s, size_t len)
{
  uint64_t h = 14695981039346656037ull;
  for (size_t i = 0; i < len; i++) {
    unsigned char c = (unsigned char)s[i];
    if (c >= 'A' && c <= 'Z')
      c = (unsigned char)(c - 'A' + 'a');
    h = (h ^ c) * 1099511628211ull;
  }
  return h;
}

static void str_slots_insert(struct ts_tagset *set, size_t idx)
{
  const char *t = set->strs[idx];
  size_t mask = set->nstr_slots - 1;
  size_t i = hash_str(t, strlen(t)) & mask;
  while (set->str_slots[i])
    i = (i + 1) & mask;
  set->str_slots[i] = idx + 1;
}

/* Interning keeps ~1000 tags down to ~60 distinct strings.  Each tag looks
 * up three, so they are found by hash: a linear search of the pool was
 * two thirds of building the set (3 M instructions a run). */
static char *intern(struct ts_tagset *set, const char *s, size_t len)
{
  if (set->nstr_slots) {
    size_t mask = set->nstr_slots - 1;
    for (size_t i = hash_str(s, len) & mask; set->str_slots[i]; i = (i + 1) & mask) {
      char *t = set->strs[set->str_slots[i] - 1];
      if (strlen(t) == len && strncasecmp(t, s, len) == 0)
        return t;
    }
  }
  set->strs = ts_vec_grow(set->strs, &set->astrs, set->nstrs + 1, sizeof *set->strs);
  char *t = set->strs[set->nstrs++] = ts_xstrndup_lower(s, len);
  if (set->nstrs * 2 > set->nstr_slots) {
    free(set->str_slots);
    set->nstr_slots = set->nstr_slots ? set->nstr_slots * 2 : 64;
    set->str_slots = ts_xcalloc(set->nstr_slots, sizeof *set->str_slots);
    for (size_t i = 0; i < set->nstrs; i++)
      str_slots_insert(set, i);
  } else {
    str_slots_insert(set, set->nstrs - 1);
  }
  return t;
}

static long lookup(const struct ts_tagset *set, const char *py,
                   const char *abi, const char *plat)
{
  if (!set->nslots)
    return -1;
  size_t mask = set->nslots - 1;
  for (size_t i = hash_tag(py, abi, plat) & mask;; i = (i + 1) & mask) {
    size_t v = set->slots[i];
    if (!v)
      return -1;
    const struct ts_tag *t = &set->tags[v - 1];
    if (strcasecmp(t->python, py) == 0 && strcasecmp(t->abi, abi) == 0 &&
        strcasecmp(t->platform, plat) == 0)
      return (long)(v - 1);
  }
}

static void slots_insert(struct ts_tagset *set, size_t idx)
{
  const struct ts_tag *t = &set->tags[idx];
  size_t mask = set->nslots - 1;
  size_t i = hash_tag(t->python, t->abi, t->platform) & mask;
  while (set->slots[i])
    i = (i + 1) & mask;
  set->slots[i] = idx + 1;
}

static void grow_slots(struct ts_tagset *set)
{
  size_t n = set->nslots ? set->nslots * 2 : 256;
  free(set->slots);
  set->slots = ts_xcalloc(n, sizeof *set->slots);
  set->nslots = n;
  for (size_t i = 0; i < set->n; i++)
    slots_insert(set, i);
}

/* Appends a tag unless already present: the first occurrence keeps the
 * better priority, as a dict built from sys_tags() would. */
static void add_tag(struct ts_tagset *set, const char *py, const char *abi,
                    const char *plat)
{
  if (lookup(set, py, abi, plat) >= 0)
    return;
  set->tags = ts_vec_grow(set->tags, &set->alloc, set->n + 1, sizeof *set->tags);
  struct ts_tag *t = &set->tags[set->n];
  t->python = intern(set, py, strlen(py));
  t->abi = intern(set, abi, strlen(abi));
  t->platform = intern(set, plat, strlen(plat));
  set->n++;
  if ((set->n) * 2 > set->nslots)
    grow_slots(set);
  else
    slots_insert(set, set->n - 1);
}

static struct ts_tagset *tagset_new(void)
{
  struct ts_tagset *set = ts_xcalloc(1, sizeof *set);
  return set;
}

void ts_tagset_free(struct ts_tagset *set)
{
  if (!set)
    return;
  ts_strv_free(set->strs, set->nstrs);
  free(set->str_slots);
  free(set->tags);
  free(set->slots);
  free(set);
}

size_t ts_tagset_count(const struct ts_tagset *set) { return set->n; }

const struct ts_tag *ts_tagset_at(const struct ts_tagset *set, size_t i)
{
  return i < set->n ? &set->tags[i] : NULL;
}

long ts_tagset_priority(const struct ts_tagset *set, const char *python,
                        const char *abi, const char *platform)
{
  return lookup(set, python, abi, platform);
}

long ts_tagset_best_priority(const struct ts_tagset *set,
                             const struct ts_tag *tags, size_t n)
{
  long best = -1;
  for (size_t i = 0; i < n; i++) {
    long p = lookup(set, tags[i].python, tags[i].abi, tags[i].platform);
    if (p >= 0 && (best < 0 || p < best))
      best = p;
  }
  return best;
}

char *ts_tag_str(const struct ts_tag *tag)
{
  size_t n = strlen(tag->python) + strlen(tag->abi) + strlen(tag->platform) + 3;
  char *s = ts_xrealloc(NULL, n);
  snprintf(s, n, "%s-%s-%s", tag->python, tag->abi, tag->platform);
  return s;
}

/* ---- platform tags (packaging.tags._linux_platforms) ---------------- */

static bool valid_component(const char *s)
{
  size_t n = 0;
  for (; s[n]; n++) {
    char c = s[n];
    if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
          (c >= '0' && c <= '9') || c == '_'))
      return false;
  }
  return n > 0 && n < TAG_PART_MAX / 2;
}

static bool arch_in(const char *arch, const char *const *list)
{
  for (; *list; list++)
    if (strcmp(arch, *list) == 0)
      return true;
  return false;
}

/* packaging's _manylinux._have_compatible_abi: manylinux wheels exist only
 * for these architectures (armv7l/i686 need a hard-float / 32-bit ELF,
 * which the probe reports through the arch it gives us). */
static bool manylinux_arch(const char *arch)
{
  static const char *const ok[] = {"x86_64", "aarch64", "ppc64", "ppc64le",
                                   "s390x", "loongarch64", "riscv64",
                                   "armv7l", "i686", NULL};
  return arch_in(arch, ok);
}

struct strlist {
  TS_VEC_MEMBERS(char *);
};

static void strlist_push(struct strlist *l, const char *s)
{
  ts_vec_push(l, ts_xstrndup_lower(s, strlen(s)));
}

static void strlist_free(struct strlist *l)
{
  ts_strv_free(l->items, l->n);
}

static void linux_platforms(const struct ts_tag_target *t, struct strlist *out)
{
  /* armv8l userlands run armv7l wheels too. */
  char buf[TAG_PART_MAX];
  const char *archs[2] = {t->arch, NULL};
  size_t narchs = 1;
  if (strcmp(t->arch, "armv8l") == 0) {
    archs[1] = "armv7l";
    narchs = 2;
  }

  if (t->libc == TS_LIBC_GLIBC && t->libc_major >= 2) {
    for (size_t a = 0; a < narchs; a++) {
      const char *arch = archs[a];
      if (!manylinux_arch(arch))
        continue;
      /* PEP 600: manylinux_2_N down to the oldest glibc anyone built
       * for: 2.5 on x86 (manylinux1), 2.17 elsewhere (manylinux2014). */
      int too_old = (strcmp(arch, "x86_64") == 0 || strcmp(arch, "i686") == 0)
                        ? 4 : 16;
      for (int major = t->libc_major; major >= 2; major--) {
        /* Older majors are walked from packaging's guess of their last
         * minor (50); only glibc 2 exists, so this is future-proofing. */
        int max_minor = major == t->libc_major ? t->libc_minor : 50;
        int min_minor = major == 2 ? too_old : -1;
        for (int minor = max_minor; minor > min_minor; minor--) {
          snprintf(buf, sizeof buf, "manylinux_%d_%d_%s", major, minor, arch);
          strlist_push(out, buf);
          /* Legacy aliases follow their PEP 600 equivalent. */
          const char *legacy = NULL;
          if (major == 2 && minor == 17)
            legacy = "manylinux2014";
          else if (major == 2 && minor == 12)
            legacy = "manylinux2010";
          else if (major == 2 && minor == 5)
            legacy = "manylinux1";
          if (legacy) {
            snprintf(buf, sizeof buf, "%s_%s", legacy, arch);
            strlist_push(out, buf);
          }
        }
      }
    }
  }
  if (t->libc == TS_LIBC_MUSL) {
    /* PEP 656: musllinux_1_N for N from the target's minor down to 0. */
    for (size_t a = 0; a < narchs; a++)
      for (int minor = t->libc_minor; minor >= 0; minor--) {
        snprintf(buf, sizeof buf, "musllinux_%d_%d_%s", t->libc_major, minor,
                 archs[a]);
        strlist_push(out, buf);
      }
  }
  for (size_t a = 0; a < narchs; a++) {
    snprintf(buf, sizeof buf, "linux_%s", archs[a]);
    strlist_push(out, buf);
  }
}

/* packaging.tags._mac_binary_formats for x86_64 and arm64. */
static void mac_formats(struct strlist *out, int major, int minor, const char *arch)
{
  char buf[TAG_PART_MAX];
  static const char *const x86[] = {"x86_64", "intel", "fat64", "fat32", "universal2",
                                    "universal", NULL};
  static const char *const arm[] = {"arm64", "universal2", NULL};
  const char *const *fmts = strcmp(arch, "x86_64") == 0 ? x86 : arm;
  for (; *fmts; fmts++) {
    snprintf(buf, sizeof buf, "macosx_%d_%d_%s", major, minor, *fmts);
    strlist_push(out, buf);
  }
}

/* packaging.tags.mac_platforms: from the target's release down; macOS 11
 * and later count majors only; x86_64 then runs every 10.x from 10.16 to
 * 10.4, arm64 only 10.x universal2 builds. */
static void mac_platforms(const struct ts_tag_target *t, struct strlist *out)
{
  char buf[TAG_PART_MAX];
  bool x86 = strcmp(t->arch, "x86_64") == 0;
  if (t->macos_major >= 11) {
    for (int major = t->macos_major; major >= 11; major--)
      mac_formats(out, major, 0, t->arch);
    for (int minor = 16; minor >= 4; minor--) {
      if (x86) {
        mac_formats(out, 10, minor, t->arch);
      } else {
        snprintf(buf, sizeof buf, "macosx_10_%d_universal2", minor);
        strlist_push(out, buf);
      }
    }
    return;
  }
  for (int minor = t->macos_minor; minor >= 4 && x86; minor--)
    mac_formats(out, 10, minor, t->arch);
}

size_t ts_tags_linux_platforms(const struct ts_tag_target *t, char **out,
                               size_t cap)
{
  struct strlist l = {0};
  if (t->arch && valid_component(t->arch))
    linux_platforms(t, &l);
  size_t n = l.n;
  for (size_t i = 0; i < l.n; i++) {
    if (i < cap) {
      out[i] = l.items[i];
      l.items[i] = NULL;
    }
  }
  strlist_free(&l);
  return n;
}

/* ---- interpreter tags ----------------------------------------------- */

static void add_for_platforms(struct ts_tagset *set, const char *py,
                              const char *abi, const struct strlist *plats)
{
  for (size_t i = 0; i < plats->n; i++)
    add_tag(set, py, abi, plats->items[i]);
}

/* packaging.tags.cpython_tags */
static void cpython_tags(struct ts_tagset *set, const struct ts_tag_target *t,
                         const struct strlist *plats)
{
  char interp[32], abi[64], abi2[64];
  const char *flags = t->abi_flags ? t->abi_flags : "";
  bool threaded = strchr(flags, 't') != NULL;
  bool debug = strchr(flags, 'd') != NULL;
  int major = t->python_major, minor = t->python_minor;

  snprintf(interp, sizeof interp, "cp%d%d", major, minor);
  /* _cpython_abis: the exact ABI first; a debug build (>= 3.8) also loads
   * release-build extensions. */
  snprintf(abi, sizeof abi, "cp%d%d%s", major, minor, flags);
  add_for_platforms(set, interp, abi, plats);
  if (debug && (major > 3 || (major == 3 && minor >= 8))) {
    snprintf(abi2, sizeof abi2, "cp%d%d%s", major, minor, threaded ? "t" : "");
    add_for_platforms(set, interp, abi2, plats);
  }
  /* _abi3_applies: the stable ABI exists from 3.2, not for free-threaded
   * builds. */
  bool use_abi3 = (major > 3 || (major == 3 && minor >= 2)) && !threaded;
  if (use_abi3)
    add_for_platforms(set, interp, "abi3", plats);
  add_for_platforms(set, interp, "none", plats);
  if (use_abi3) {
    for (int m = minor - 1; m >= 2; m--) {
      snprintf(interp, sizeof interp, "cp%d%d", major, m);
      add_for_platforms(set, interp, "abi3", plats);
    }
  }
}

/* packaging.tags.generic_tags for other implementations. */
static void generic_tags(struct ts_tagset *set, const struct ts_tag_target *t,
                         const struct strlist *plats)
{
  char interp[64];
  snprintf(interp, sizeof interp, "%s%d%d", t->implementation,
           t->python_major, t->python_minor);
  if (t->abi_tag && valid_component(t->abi_tag) &&
      strcmp(t->abi_tag, "none") != 0)
    add_for_platforms(set, interp, t->abi_tag, plats);
  add_for_platforms(set, interp, "none", plats);
}

/* One of _py_interpreter_range's tags: for m from minor down to -1,
 * pyXY, then pyX, then pyX(m+1): py312, py3, py311 ... py30. */
static const char *py_range_tag(char *v, size_t n, int major, int minor, int m) {
  if (m == minor)
    snprintf(v, n, "py%d%d", major, minor);
  else if (m == minor - 1)
    snprintf(v, n, "py%d", major);
  else
    snprintf(v, n, "py%d%d", major, m + 1);
  return v;
}

/* packaging.tags.compatible_tags: py3X-none-<plat> for X from the target
 * down to 0 (py3 right after the target's own), then <interp>-none-any,
 * then py3X-none-any in the same order. */
static void compatible_tags(struct ts_tagset *set,
                            const struct ts_tag_target *t, const char *interp,
                            const struct strlist *plats)
{
  char v[32];
  int major = t->python_major, minor = t->python_minor;
  /* _py_interpreter_range: pyXY, pyX, pyX(Y-1) ... pyX0 */
  for (int m = minor; m >= -1; m--)
    add_for_platforms(set, py_range_tag(v, sizeof v, major, minor, m), "none", plats);
  if (interp)
    add_tag(set, interp, "none", "any");
  for (int m = minor; m >= -1; m--)
    add_tag(set, py_range_tag(v, sizeof v, major, minor, m), "none", "any");
}

enum ts_code ts_tagset_build(const struct ts_tag_target *t,
                             struct ts_tagset **out, struct ts_error *err)
{
  *out = NULL;
  if (t->python_major < 2 || t->python_major > 99 || t->python_minor < 0 ||
      t->python_minor > 999)
    return ts_error_set(err, TS_E_INVALID, "invalid Python version %d.%d",
                        t->python_major, t->python_minor);
  const char *impl = t->implementation ? t->implementation : "cp";
  if (!valid_component(impl))
    return ts_error_set(err, TS_E_INVALID, "invalid implementation '%s'",
                        impl);
  if (!t->arch || !valid_component(t->arch))
    return ts_error_set(err, TS_E_INVALID, "invalid architecture '%s'",
                        t->arch ? t->arch : "(none)");
  const char *flags = t->abi_flags ? t->abi_flags : "";
  if (strspn(flags, "tdmu") != strlen(flags) || strlen(flags) > 4)
    return ts_error_set(err, TS_E_INVALID, "invalid ABI flags '%s'", flags);
  if (t->libc != TS_LIBC_NONE &&
      (t->libc_major < 0 || t->libc_major > 99 || t->libc_minor < 0 ||
       t->libc_minor > 999))
    return ts_error_set(err, TS_E_INVALID, "invalid libc version %d.%d",
                        t->libc_major, t->libc_minor);

  struct strlist plats = {0};
  if (t->os == TS_OS_MACOS) {
    mac_platforms(t, &plats);
  } else if (t->os == TS_OS_WINDOWS) {
    char buf[TAG_PART_MAX];
    snprintf(buf, sizeof buf, "win_%s", t->arch);
    strlist_push(&plats, buf);
  } else if (t->os == TS_OS_LINUX) {
    linux_platforms(t, &plats);
  }
  struct ts_tagset *set = tagset_new();
  char interp[64];
  const char *compat_interp = NULL;
  if (strcmp(impl, "cp") == 0) {
    cpython_tags(set, t, &plats);
    snprintf(interp, sizeof interp, "cp%d%d", t->python_major,
             t->python_minor);
    compat_interp = interp;
  } else {
    generic_tags(set, t, &plats);
    if (strcmp(impl, "pp") == 0) {
      snprintf(interp, sizeof interp, "pp%d", t->python_major);
      compat_interp = interp;
    }
  }
  compatible_tags(set, t, compat_interp, &plats);
  strlist_free(&plats);
  *out = set;
  return TS_OK;
}

/* ---- explicit lists ---------------------------------------------------- */

/* Splits s at '.' and checks each piece. */
static bool split_set(const char *s, size_t len, const char **piece,
                      size_t *plen, size_t max, size_t *n)
{
  *n = 0;
  size_t start = 0;
  for (size_t i = 0; i <= len; i++) {
    if (i == len || s[i] == '.') {
      if (i == start || *n == max)
        return false;
      for (size_t k = start; k < i; k++) {
        char c = s[k];
        if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
              (c >= '0' && c <= '9') || c == '_'))
          return false;
      }
      piece[*n] = s + start;
      plen[*n] = i - start;
      (*n)++;
      start = i + 1;
    }
  }
  return true;
}

enum ts_code ts_tagset_from_strings(const char *const *tags, size_t n,
                                   struct ts_tagset **out,
                                   struct ts_error *err)
{
  *out = NULL;
  struct ts_tagset *set = tagset_new();
  for (size_t i = 0; i < n; i++) {
    const char *s = tags[i];
    const char *d1 = strchr(s, '-');
    const char *d2 = d1 ? strchr(d1 + 1, '-') : NULL;
    if (!d1 || !d2 || strchr(d2 + 1, '-')) {
      ts_tagset_free(set);
      return ts_error_set(err, TS_E_PARSE,
                          "invalid tag '%.200s': expected python-abi-platform",
                          s);
    }
    enum { MAXP = 16 };
    const char *pp[3][MAXP];
    size_t pl[3][MAXP], pn[3];
    const char *starts[3] = {s, d1 + 1, d2 + 1};
    size_t lens[3] = {(size_t)(d1 - s), (size_t)(d2 - d1 - 1), strlen(d2 + 1)};
    for (int k = 0; k < 3; k++) {
      if (lens[k] >= TAG_PART_MAX ||
          !split_set(starts[k], lens[k], pp[k], pl[k], MAXP, &pn[k])) {
        ts_tagset_free(set);
        return ts_error_set(err, TS_E_PARSE, "invalid tag '%.200s'", s);
      }
    }
    char a[TAG_PART_MAX], b[TAG_PART_MAX], c[TAG_PART_MAX];
    for (size_t x = 0; x < pn[0]; x++)
      for (size_t y = 0; y < pn[1]; y++)
        for (size_t z = 0; z < pn[2]; z++) {
          snprintf(a, sizeof a, "%.*s", (int)pl[0][x], pp[0][x]);
          snprintf(b, sizeof b, "%.*s", (int)pl[1][y], pp[1][y]);
          snprintf(c, sizeof c, "%.*s", (int)pl[2][z], pp[2][z]);
          add_tag(set, a, b, c);
        }
  }
  *out = set;
  return TS_OK;
}
