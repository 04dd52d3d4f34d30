/*
 * pep/filename.c — wheel and sdist file names.
 */
#include "pep/filename.h"

#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "core/alloc.h"
#include "pep/name.h"
#include "core/str.h"
#include "core/text.h"

/* Compressed tag sets are tiny in practice ("manylinux_2_17_x86_64.
 * manylinux2014_x86_64"); these caps only bound hostile names. */
#define TAG_SET_MAX 64
#define TAG_PRODUCT_MAX 4096

static bool is_digit(char c) { return c >= '0' && c <= '9'; }
static bool is_alpha(char c)
{
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
}
static bool is_tag_char(char c) { return is_alpha(c) || is_digit(c) || c == '_'; }

static bool ends_with(const char *s, size_t len, const char *suffix)
{
  size_t n = strlen(suffix);
  return len >= n && memcmp(s + len - n, suffix, n) == 0;
}

/* Control characters, spaces, path separators and NUL never belong in a
 * distribution file name; refusing them early keeps every later message
 * printable. */
static bool has_forbidden_byte(const char *s, size_t len)
{
  for (size_t i = 0; i < len; i++) {
    unsigned char c = (unsigned char)s[i];
    if (c <= 0x20 || c == 0x7f || c == '/' || c == '\\')
      return true;
  }
  return false;
}

/* The escaped project name of a wheel: packaging checks
 * ^[\w\d._]*$ without "__"; non-ASCII letters are \w too, so any valid
 * UTF-8 beyond ASCII is taken as a letter. */
static bool wheel_name_ok(const char *s, size_t len)
{
  if (len == 0)
    return false;
  for (size_t i = 0; i < len;) {
    char c = s[i];
    if (c == '_' && i + 1 < len && s[i + 1] == '_')
      return false;
    if ((unsigned char)c >= 0x80) {
      size_t n = ts_utf8_seq_len((const unsigned char *)s + i, len - i);
      if (!n)
        return false;
      i += n;
      continue;
    }
    if (!is_alpha(c) && !is_digit(c) && c != '_' && c != '.')
      return false;
    i++;
  }
  return true;
}

struct piece {
  const char *s;
  size_t len;
};

/* Splits a compressed tag set at '.', checks each piece, drops duplicate
 * pieces (packaging returns a frozenset).  Python tags must be
 * identifiers: "2.7.6" is a version written where the tag belongs, not
 * the set {2, 7, 6} (packaging 26). */
static bool split_tag_set(const char *s, size_t len, bool identifier,
                          struct piece *out, size_t *n)
{
  *n = 0;
  size_t start = 0;
  for (size_t i = 0; i <= len; i++) {
    if (i < len && s[i] != '.')
      continue;
    size_t plen = i - start;
    const char *p = s + start;
    if (plen == 0)
      return false;
    for (size_t k = 0; k < plen; k++)
      if (!is_tag_char(p[k]))
        return false;
    if (identifier && is_digit(p[0]))
      return false;
    bool dup = false;
    for (size_t k = 0; k < *n && !dup; k++)
      dup = out[k].len == plen && strncasecmp(out[k].s, p, plen) == 0;
    if (!dup) {
      if (*n == TAG_SET_MAX)
        return false;
      out[(*n)++] = (struct piece){p, plen};
    }
    start = i + 1;
  }
  return true;
}

static bool label_ok(const char *s, size_t len)
{
  if (len == 0 || len > TS_VARIANT_LABEL_MAX)
    return false;
  for (size_t i = 0; i < len; i++) {
    char c = s[i];
    if (!((c >= 'a' && c <= 'z') || is_digit(c) || c == '_' || c == '.'))
      return false;
  }
  return true;
}

#define MAX_PARTS 8

/* Splits the stem at '-'; returns the number of parts or 0 when there are
 * more than MAX_PARTS. */
static size_t split_dashes(const char *s, size_t len, struct piece *parts)
{
  size_t n = 0, start = 0;
  for (size_t i = 0; i <= len; i++) {
    if (i < len && s[i] != '-')
      continue;
    if (n == MAX_PARTS)
      return 0;
    parts[n++] = (struct piece){s + start, i - start};
    start = i + 1;
  }
  return n;
}

static bool tags_ok(const struct piece *p)
{
  struct piece tmp[TAG_SET_MAX];
  size_t n;
  return split_tag_set(p[0].s, p[0].len, true, tmp, &n) &&
         split_tag_set(p[1].s, p[1].len, false, tmp, &n) &&
         split_tag_set(p[2].s, p[2].len, false, tmp, &n);
}

/* The variant check on a stem already split at '-' (n parts). */
static bool variant_parts(const char *s, const struct piece *parts, size_t n,
                          size_t *label_off, size_t *label_len)
{
  /* name-ver-py-abi-plat-label (6 parts) or with a build tag (7).  With 6
   * parts, the third is a build tag when it starts with a digit and a
   * python tag otherwise (python tags are identifiers). */
  if (n == 6 && parts[2].len && is_digit(parts[2].s[0]))
    return false;
  if (n != 6 && n != 7)
    return false;
  if (n == 7 && !(parts[2].len && is_digit(parts[2].s[0])))
    return false;
  const struct piece *label = &parts[n - 1];
  if (!label_ok(label->s, label->len) || !tags_ok(&parts[n - 4]))
    return false;
  if (label_off)
    *label_off = (size_t)(label->s - s);
  if (label_len)
    *label_len = label->len;
  return true;
}

bool ts_wheel_filename_is_variant(const char *s, size_t len,
                                  size_t *label_off, size_t *label_len)
{
  struct piece parts[MAX_PARTS];
  if (len > TS_FILENAME_MAX || !ends_with(s, len, ".whl"))
    return false;
  size_t n = split_dashes(s, len - 4, parts);
  return variant_parts(s, parts, n, label_off, label_len);
}

void ts_wheel_filename_free(struct ts_wheel_filename *w)
{
  if (!w)
    return;
  /* every string and the tags live in w's own allocation */
  ts_version_free(w->version);
  free(w);
}

static enum ts_code fail(struct ts_error *err, enum ts_code code,
                         const char *s, size_t len, const char *why)
{
  /* Names reaching here contain no control bytes except in the
   * has_forbidden_byte case, where we do not echo the name. */
  if (code == TS_E_PARSE && has_forbidden_byte(s, len))
    return ts_error_set(err, code, "invalid wheel filename: %s", why);
  return ts_error_set(err, code, "invalid wheel filename '%.*s': %s",
                      (int)(len > TS_ERROR_QUOTE_MAX ? TS_ERROR_QUOTE_MAX : len), s, why);
}

/* A piece copied into the allocation at *at (lowercased when asked),
 * NUL-terminated; *at moves past it. */
static char *place(char **at, const char *s, size_t len, bool lower)
{
  char *out = *at;
  memcpy(out, s, len);
  if (lower)
    for (size_t i = 0; i < len; i++)
      if (out[i] >= 'A' && out[i] <= 'Z')
        out[i] = (char)(out[i] - 'A' + 'a');
  out[len] = '\0';
  *at += len + 1;
  return out;
}

static void parse_build(struct ts_wheel_filename *w, const struct piece *b, char **at)
{
  size_t nd = 0;
  while (nd < b->len && is_digit(b->s[nd]))
    nd++;
  size_t z = 0;
  while (z + 1 < nd && b->s[z] == '0')
    z++;
  w->build = place(at, b->s, b->len, false);
  w->build_digits = place(at, b->s + z, nd - z, false);
  w->build_suffix = place(at, b->s + nd, b->len - nd, false);
  unsigned long long v = 0;
  for (size_t i = z; i < nd; i++) {
    unsigned d = (unsigned)(b->s[i] - '0');
    if (v > (ULLONG_MAX - d) / 10) {
      v = ULLONG_MAX;
      break;
    }
    v = v * 10 + d;
  }
  w->build_number = v;
}

static size_t pieces_size(const struct piece *p, size_t n)
{
  size_t size = 0;
  for (size_t i = 0; i < n; i++)
    size += p[i].len + 1;
  return size;
}

/* The lowercased pieces placed at *at, into out[]. */
static void place_pieces(char **at, const struct piece *p, size_t n, char **out)
{
  for (size_t i = 0; i < n; i++)
    out[i] = place(at, p[i].s, p[i].len, true);
}

enum ts_code ts_wheel_filename_parse(const char *s, size_t len,
                                     struct ts_wheel_filename **out,
                                     struct ts_error *err)
{
  return ts_wheel_filename_parse_hinted(s, len, NULL, out, err);
}

/* Whether the version field is the hint's text: then its parse is the
 * hint's (a parse depends on the text alone). */
static bool hint_fits(const struct ts_version *hint, const struct piece *field)
{
  if (!hint)
    return false;
  const char *t = ts_version_original(hint);
  return strlen(t) == field->len && memcmp(t, field->s, field->len) == 0;
}

enum ts_code ts_wheel_filename_parse_hinted(const char *s, size_t len,
                                            const struct ts_version *hint,
                                            struct ts_wheel_filename **out,
                                            struct ts_error *err)
{
  *out = NULL;
  if (len == 0)
    return ts_error_set(err, TS_E_PARSE, "invalid wheel filename: empty");
  if (len > TS_FILENAME_MAX)
    return ts_error_set(err, TS_E_PARSE,
                        "invalid wheel filename: longer than %d bytes",
                        TS_FILENAME_MAX);
  if (has_forbidden_byte(s, len))
    return fail(err, TS_E_PARSE, s, len,
                "contains a space, control character or path separator");
  if (!ends_with(s, len, ".whl"))
    return fail(err, TS_E_PARSE, s, len, "extension must be '.whl'");

  struct piece parts[MAX_PARTS];
  size_t n = split_dashes(s, len - 4, parts);
  size_t label_off, label_len;
  if (variant_parts(s, parts, n, &label_off, &label_len))
    return ts_error_set(err, TS_E_UNSUPPORTED,
                        "'%.*s' is a PEP 825 variant wheel (label '%.*s'); "
                        "variant wheels are not supported yet",
                        (int)(len > TS_ERROR_QUOTE_MAX ? TS_ERROR_QUOTE_MAX : len), s, (int)label_len,
                        s + label_off);

  if (n != 5 && n != 6)
    return fail(err, TS_E_PARSE, s, len,
                "expected name-version(-build)?-python-abi-platform.whl");
  if (!wheel_name_ok(parts[0].s, parts[0].len))
    return fail(err, TS_E_PARSE, s, len, "invalid project name");
  if (n == 6 && !(parts[2].len && is_digit(parts[2].s[0])))
    return fail(err, TS_E_PARSE, s, len,
                "build tag must start with a digit");

  struct piece py[TAG_SET_MAX], abi[TAG_SET_MAX], plat[TAG_SET_MAX];
  size_t npy, nabi, nplat;
  const struct piece *tp = &parts[n - 3];
  if (!split_tag_set(tp[0].s, tp[0].len, true, py, &npy))
    return fail(err, TS_E_PARSE, s, len, "invalid python tag");
  if (!split_tag_set(tp[1].s, tp[1].len, false, abi, &nabi))
    return fail(err, TS_E_PARSE, s, len, "invalid abi tag");
  if (!split_tag_set(tp[2].s, tp[2].len, false, plat, &nplat))
    return fail(err, TS_E_PARSE, s, len, "invalid platform tag");
  if (npy * nabi * nplat > TAG_PRODUCT_MAX)
    return fail(err, TS_E_TOO_BIG, s, len, "too many tags");

  struct ts_version *version = NULL;
  if (hint_fits(hint, &parts[1]))
    version = ts_version_dup(hint);
  else if (ts_version_parse(parts[1].s, parts[1].len, &version, NULL) != TS_OK) {
    /* the error's words only on this path: a ts_error is large to clear */
    struct ts_error verr = {0};
    ts_version_parse(parts[1].s, parts[1].len, &version, &verr);
    return ts_error_set(err, TS_E_PARSE, "invalid wheel filename '%.*s': %s",
                        (int)(len > TS_ERROR_QUOTE_MAX ? TS_ERROR_QUOTE_MAX : len), s, verr.detail);
  }

  /* one allocation: the struct, its tags, then every string (the tags
   * share the lowercased pieces of the sets) */
  size_t ntags = npy * nabi * nplat;
  size_t tags_at = (sizeof(struct ts_wheel_filename) + _Alignof(struct ts_tag) - 1) /
                   _Alignof(struct ts_tag) * _Alignof(struct ts_tag);
  size_t strings_at = tags_at + ntags * sizeof(struct ts_tag);
  size_t size = strings_at + 2 * (parts[0].len + 1) +
                (n == 6 ? 3 * (parts[2].len + 1) : 0) + tp[0].len + tp[1].len +
                tp[2].len + 3 + pieces_size(py, npy) + pieces_size(abi, nabi) +
                pieces_size(plat, nplat);
  char *block = ts_xmalloc(size);
  struct ts_wheel_filename *w = (struct ts_wheel_filename *)(void *)block;
  memset(w, 0, sizeof *w);
  char *at = block + strings_at;
  w->version = version;
  w->name = place(&at, parts[0].s, parts[0].len, false);
  w->normalized_name = at;
  at += ts_name_normalize_into(parts[0].s, parts[0].len, at) + 1;
  if (n == 6)
    parse_build(w, &parts[2], &at);
  w->python_tags = place(&at, tp[0].s, tp[0].len, true);
  w->abi_tags = place(&at, tp[1].s, tp[1].len, true);
  w->platform_tags = place(&at, tp[2].s, tp[2].len, true);
  char *pys[TAG_SET_MAX], *abis[TAG_SET_MAX], *plats[TAG_SET_MAX];
  place_pieces(&at, py, npy, pys);
  place_pieces(&at, abi, nabi, abis);
  place_pieces(&at, plat, nplat, plats);
  w->ntags = ntags;
  w->tags = (struct ts_tag *)(void *)(block + tags_at);
  size_t k = 0;
  for (size_t a = 0; a < npy; a++)
    for (size_t b = 0; b < nabi; b++)
      for (size_t c = 0; c < nplat; c++, k++)
        w->tags[k] = (struct ts_tag){pys[a], abis[b], plats[c]};
  *out = w;
  return TS_OK;
}

int ts_wheel_build_cmp(const struct ts_wheel_filename *a,
                       const struct ts_wheel_filename *b)
{
  if (!a->build || !b->build)
    return (a->build != NULL) - (b->build != NULL);
  size_t la = strlen(a->build_digits), lb = strlen(b->build_digits);
  if (la != lb)
    return la < lb ? -1 : 1;
  int c = strcmp(a->build_digits, b->build_digits);
  if (c)
    return c < 0 ? -1 : 1;
  c = strcmp(a->build_suffix, b->build_suffix);
  return (c > 0) - (c < 0);
}

enum ts_dist_kind ts_dist_kind_of(const char *s, size_t len)
{
  if (ends_with(s, len, ".whl"))
    return TS_DIST_WHEEL;
  if (ends_with(s, len, ".tar.gz") || ends_with(s, len, ".zip"))
    return TS_DIST_SDIST;
  return TS_DIST_UNKNOWN;
}

enum ts_dist_kind ts_archive_kind_of(const char *s, size_t len)
{
  static const char *const sdist[] = {".zip", ".tar.bz2", ".tbz", ".tar.xz", ".txz", ".tlz",
                                      ".tar.lz", ".tar.lzma", ".tar.gz", ".tgz", ".tar"};
  if (len >= 4 && strncasecmp(s + len - 4, ".whl", 4) == 0)
    return TS_DIST_WHEEL;
  for (size_t i = 0; i < sizeof sdist / sizeof sdist[0]; i++) {
    size_t n = strlen(sdist[i]);
    if (len >= n && strncasecmp(s + len - n, sdist[i], n) == 0)
      return TS_DIST_SDIST;
  }
  return TS_DIST_UNKNOWN;
}

void ts_sdist_filename_free(struct ts_sdist_filename *sd)
{
  if (!sd)
    return;
  free(sd->name);
  free(sd->normalized_name);
  ts_version_free(sd->version);
  free(sd);
}

enum ts_code ts_sdist_filename_parse(const char *s, size_t len,
                                     struct ts_sdist_filename **out,
                                     struct ts_error *err)
{
  *out = NULL;
  int shown = (int)(len > TS_ERROR_QUOTE_MAX ? TS_ERROR_QUOTE_MAX : len);
  if (len == 0 || len > TS_FILENAME_MAX)
    return ts_error_set(err, TS_E_PARSE, "invalid sdist filename: %s",
                        len ? "too long" : "empty");
  if (has_forbidden_byte(s, len))
    return ts_error_set(err, TS_E_PARSE,
                        "invalid sdist filename: contains a space, control "
                        "character or path separator");
  const char *ext;
  if (ends_with(s, len, ".tar.gz"))
    ext = ".tar.gz";
  else if (ends_with(s, len, ".zip"))
    ext = ".zip";
  else
    return ts_error_set(err, TS_E_PARSE,
                        "invalid sdist filename '%.*s': extension must be "
                        "'.tar.gz' or '.zip'", shown, s);
  size_t stem = len - strlen(ext);
  /* PEP 440 versions contain no '-', so the name ends at the last one. */
  size_t dash = stem;
  while (dash > 0 && s[dash - 1] != '-')
    dash--;
  if (dash == 0)
    return ts_error_set(err, TS_E_PARSE,
                        "invalid sdist filename '%.*s': expected "
                        "name-version%s", shown, s, ext);
  size_t nlen = dash - 1;
  if (!ts_name_is_valid(s, nlen))
    return ts_error_set(err, TS_E_PARSE,
                        "invalid sdist filename '%.*s': invalid project name",
                        shown, s);
  struct ts_error verr = {0};
  struct ts_version *v = NULL;
  if (ts_version_parse(s + dash, stem - dash, &v, &verr) != TS_OK)
    return ts_error_set(err, TS_E_PARSE, "invalid sdist filename '%.*s': %s",
                        shown, s, verr.detail);
  struct ts_sdist_filename *sd = ts_xcalloc(1, sizeof *sd);
  sd->name = ts_xstrndup(s, nlen);
  sd->normalized_name = ts_name_normalize(s, nlen);
  sd->version = v;
  sd->extension = ext;
  *out = sd;
  return TS_OK;
}
