/*
 * pep/metadata.c — core metadata parser.
 */
#include "pep/metadata.h"

#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "core/alloc.h"
#include "core/buf.h"
#include "core/str.h"
#include "core/vec.h"
#include "pep/name.h"

static bool is_blank(char c) { return c == ' ' || c == '\t'; }

void ts_metadata_free(struct ts_metadata *md)
{
  if (!md)
    return;
  free(md->legacy_version);
  for (size_t i = 0; i < md->nfields; i++) {
    free(md->fields[i].name);
    free(md->fields[i].value);
  }
  free(md->fields);
  free(md->metadata_version);
  free(md->name);
  free(md->normalized_name);
  ts_version_free(md->version);
  free(md->summary);
  free(md->requires_python);
  free(md->license_expression);
  free(md->description_content_type);
  free(md->description);
  ts_strv_free(md->requires_dist, md->nrequires_dist);
  ts_strv_free(md->provides_extra, md->nprovides_extra);
  ts_strv_free(md->dynamic, md->ndynamic);
  free(md);
}

/* A header name as email's headerRE accepts it: printable ASCII but ':'. */
static bool header_name_ok(const char *s, size_t n)
{
  if (n == 0)
    return false;
  for (size_t i = 0; i < n; i++) {
    unsigned char c = (unsigned char)s[i];
    if (c < 0x21 || c > 0x7e || c == ':')
      return false;
  }
  return true;
}

/* Unfolds a raw value: "\n" plus the continuation's leading blanks becomes
 * one space; the ends are trimmed. */
static char *unfold(const char *raw)
{
  size_t n = strlen(raw);
  char *out = ts_xrealloc(NULL, n + 1);
  size_t o = 0;
  for (size_t i = 0; i < n; i++) {
    if (raw[i] == '\n') {
      while (i + 1 < n && is_blank(raw[i + 1]))
        i++;
      out[o++] = ' ';
    } else {
      out[o++] = raw[i];
    }
  }
  size_t start = 0;
  while (start < o && is_blank(out[start]))
    start++;
  while (o > start && is_blank(out[o - 1]))
    o--;
  memmove(out, out + start, o - start);
  out[o - start] = '\0';
  return out;
}

/* Metadata 1.x put the long description in a header, each continuation
 * line prefixed with 8 spaces, or 7 spaces and '|' (setuptools), or 8
 * spaces and '|'; this removes the prefix so the text reads as written. */
static char *unescape_description(const char *raw)
{
  size_t n = strlen(raw);
  char *out = ts_xrealloc(NULL, n + 1);
  size_t o = 0;
  bool line_start = false;
  for (size_t i = 0; i < n;) {
    if (line_start) {
      line_start = false;
      if (n - i >= 9 && memcmp(raw + i, "        |", 9) == 0)
        i += 9;
      else if (n - i >= 8 && memcmp(raw + i, "       |", 8) == 0)
        i += 8;
      else if (n - i >= 8 && memcmp(raw + i, "        ", 8) == 0)
        i += 8;
      continue;
    }
    out[o++] = raw[i];
    if (raw[i] == '\n')
      line_start = true;
    i++;
  }
  out[o] = '\0';
  return out;
}

static void push_str(char ***v, size_t *n, char *s)
{
  *v = ts_xrealloc(*v, (*n + 1) * sizeof **v);
  (*v)[(*n)++] = s;
}

static bool name_is(const struct ts_metadata_field *f, const char *name)
{
  return strcasecmp(f->name, name) == 0;
}

/* Sets *slot from the first occurrence only: packaging treats a repeated
 * single-use field as unparseable; we keep the first and the multi-map
 * keeps all. */
static void set_once(char **slot, const char *raw)
{
  if (!*slot)
    *slot = unfold(raw);
}

static enum ts_code check_metadata_version(const char *v, struct ts_error *err)
{
  size_t i = 0;
  unsigned major = 0;
  while (v[i] >= '0' && v[i] <= '9' && major < 1000)
    major = major * 10 + (unsigned)(v[i++] - '0');
  if (i == 0 || (v[i] != '.' && v[i] != '\0'))
    return ts_error_set(err, TS_E_PARSE, "invalid Metadata-Version '%.40s'",
                        v);
  if (major > 2)
    return ts_error_set(err, TS_E_UNSUPPORTED,
                        "Metadata-Version %.40s is newer than this torchsolve "
                        "understands (2.x)", v);
  if (major < 1)
    return ts_error_set(err, TS_E_PARSE, "invalid Metadata-Version '%.40s'",
                        v);
  return TS_OK;
}

/* Whether field f is `name` (case-insensitive), given f's name length:
 * most fields are Classifier lines, so the length decides nearly every
 * comparison without a strcasecmp. */
static bool field_is(const struct ts_metadata_field *f, size_t len, const char *name,
                     size_t name_len)
{
  return len == name_len && strcasecmp(f->name, name) == 0;
}

#define FIELD_IS(f, len, lit) field_is((f), (len), (lit), sizeof(lit) - 1)

/* Extracts the typed fields from the multi-map and validates them. */
static enum ts_code extract(struct ts_metadata *md, bool keep_legacy, struct ts_error *err)
{
  char *desc_header = NULL;
  for (size_t i = 0; i < md->nfields; i++) {
    const struct ts_metadata_field *f = &md->fields[i];
    size_t len = strlen(f->name);
    if (FIELD_IS(f, len, "Metadata-Version"))
      set_once(&md->metadata_version, f->value);
    else if (FIELD_IS(f, len, "Name"))
      set_once(&md->name, f->value);
    else if (FIELD_IS(f, len, "Summary"))
      set_once(&md->summary, f->value);
    else if (FIELD_IS(f, len, "Requires-Python"))
      set_once(&md->requires_python, f->value);
    else if (FIELD_IS(f, len, "License-Expression"))
      set_once(&md->license_expression, f->value);
    else if (FIELD_IS(f, len, "Description-Content-Type"))
      set_once(&md->description_content_type, f->value);
    else if (FIELD_IS(f, len, "Description") && !desc_header)
      desc_header = unescape_description(f->value);
    else if (FIELD_IS(f, len, "Requires-Dist"))
      push_str(&md->requires_dist, &md->nrequires_dist, unfold(f->value));
    else if (FIELD_IS(f, len, "Provides-Extra"))
      push_str(&md->provides_extra, &md->nprovides_extra, unfold(f->value));
    else if (FIELD_IS(f, len, "Dynamic"))
      push_str(&md->dynamic, &md->ndynamic, unfold(f->value));
  }
  if (!md->description)
    md->description = desc_header;
  else
    free(desc_header);

  if (!md->metadata_version)
    return ts_error_set(err, TS_E_PARSE, "METADATA has no Metadata-Version");
  enum ts_code rc = check_metadata_version(md->metadata_version, err);
  if (rc != TS_OK)
    return rc;
  if (!md->name)
    return ts_error_set(err, TS_E_PARSE, "METADATA has no Name");
  if (!ts_name_is_valid(md->name, strlen(md->name)))
    return ts_error_set(err, TS_E_PARSE, "METADATA Name '%.200s' is not a "
                        "valid project name", md->name);
  md->normalized_name = ts_name_normalize(md->name, strlen(md->name));

  const char *version = NULL;
  for (size_t i = 0; i < md->nfields && !version; i++)
    if (name_is(&md->fields[i], "Version"))
      version = md->fields[i].value;
  if (!version)
    return ts_error_set(err, TS_E_PARSE, "METADATA of '%.200s' has no Version",
                        md->name);
  char *v = unfold(version);
  struct ts_error verr = {0};
  rc = ts_version_parse(v, strlen(v), &md->version, &verr);
  if (rc != TS_OK && keep_legacy && v[0]) {
    md->legacy_version = v;
    v = NULL;
    rc = TS_OK;
  }
  free(v);
  if (rc != TS_OK)
    return ts_error_set(err, TS_E_PARSE, "METADATA of '%.200s': %s", md->name,
                        verr.detail);

  for (size_t i = 0; i < md->ndynamic; i++) {
    const char *d = md->dynamic[i];
    if (!strcasecmp(d, "Name") || !strcasecmp(d, "Version") ||
        !strcasecmp(d, "Metadata-Version"))
      return ts_error_set(err, TS_E_PARSE,
                          "METADATA of '%.200s': Dynamic may not list %s",
                          md->name, d);
  }
  return TS_OK;
}

static enum ts_code parse(const char *data, size_t len, bool keep_legacy,
                          struct ts_metadata **out, struct ts_error *err)
{
  *out = NULL;
  if (len > TS_CAP_METADATA)
    return ts_error_set(err, TS_E_TOO_BIG,
                        "METADATA is %zu bytes, above the %u-byte limit", len,
                        TS_CAP_METADATA);
  struct ts_metadata *md = ts_xcalloc(1, sizeof *md);
  size_t cap_fields = 0;
  size_t pos = 0, lineno = 0;
  bool have_body = false;
  size_t body = len;
  struct ts_metadata_field *cur = NULL;
  size_t cur_len = 0;

  /* A UTF-8 byte-order mark is not part of the first header's name. */
  if (len >= 3 && memcmp(data, "\xef\xbb\xbf", 3) == 0)
    pos = 3;
  while (pos < len) {
    const char *line = data + pos;
    const char *nl = memchr(line, '\n', len - pos);
    size_t n = nl ? (size_t)(nl - line) : len - pos;
    size_t next = pos + n + (nl ? 1 : 0);
    lineno++;
    if (n > 0 && line[n - 1] == '\r')
      n--;
    if (memchr(line, '\0', n)) {
      ts_metadata_free(md);
      return ts_error_set(err, TS_E_PARSE, "METADATA line %zu: NUL byte",
                          lineno);
    }
    if (n == 0) {
      have_body = true;
      body = next;
      break;
    }
    if (is_blank(line[0])) {
      if (!cur) {
        ts_metadata_free(md);
        return ts_error_set(err, TS_E_PARSE,
                            "METADATA line %zu: continuation line before any "
                            "header", lineno);
      }
      cur->value = ts_xrealloc(cur->value, cur_len + 1 + n + 1);
      cur->value[cur_len] = '\n';
      memcpy(cur->value + cur_len + 1, line, n);
      cur_len += 1 + n;
      cur->value[cur_len] = '\0';
      pos = next;
      continue;
    }
    const char *colon = memchr(line, ':', n);
    if (!colon || !header_name_ok(line, (size_t)(colon - line))) {
      /* As email does: a line that is no header ends the headers and
       * starts the body (a missing blank separator line). */
      have_body = true;
      body = pos;
      break;
    }
    md->fields = ts_vec_grow(md->fields, &cap_fields, md->nfields + 1, sizeof *md->fields);

    cur = &md->fields[md->nfields++];
    cur->name = ts_xstrndup(line, (size_t)(colon - line));
    const char *v = colon + 1;
    while (v < line + n && is_blank(*v))
      v++;
    cur_len = (size_t)(line + n - v);
    cur->value = ts_xstrndup(v, cur_len);
    pos = next;
  }
  if (have_body && body < len)
    md->description = ts_xstrndup(data + body, len - body);

  enum ts_code rc = extract(md, keep_legacy, err);
  if (rc != TS_OK) {
    ts_metadata_free(md);
    return rc;
  }
  *out = md;
  return TS_OK;
}

enum ts_code ts_metadata_parse(const char *data, size_t len,
                               struct ts_metadata **out, struct ts_error *err)
{
  return parse(data, len, false, out, err);
}

enum ts_code ts_metadata_parse_installed(const char *data, size_t len,
                                         struct ts_metadata **out, struct ts_error *err)
{
  return parse(data, len, true, out, err);
}

const char *ts_metadata_get(const struct ts_metadata *md, const char *name)
{
  for (size_t i = 0; i < md->nfields; i++)
    if (name_is(&md->fields[i], name))
      return md->fields[i].value;
  return NULL;
}

size_t ts_metadata_get_all(const struct ts_metadata *md, const char *name,
                           const char **out, size_t cap)
{
  size_t n = 0;
  for (size_t i = 0; i < md->nfields; i++) {
    if (!name_is(&md->fields[i], name))
      continue;
    if (n < cap)
      out[n] = md->fields[i].value;
    n++;
  }
  return n;
}

bool ts_metadata_has_extra(const struct ts_metadata *md, const char *extra)
{
  for (size_t i = 0; i < md->nprovides_extra; i++)
    if (ts_name_eq(md->provides_extra[i], strlen(md->provides_extra[i]), extra,
                   strlen(extra)))
      return true;
  return false;
}

char *ts_metadata_header_value(const char *data, size_t len, const char *field)
{
  size_t fl = strlen(field);
  const char *s = data, *end = data + len;
  while (s < end) {
    const char *nl = memchr(s, '\n', (size_t)(end - s));
    const char *le = nl ? nl : end;
    if (le == s || (le == s + 1 && *s == '\r'))
      break; /* end of headers */
    if ((size_t)(le - s) > fl + 1 && strncasecmp(s, field, fl) == 0 && s[fl] == ':') {
      const char *v = s + fl + 1;
      while (v < le && (*v == ' ' || *v == '\t'))
        v++;
      const char *ve = le;
      while (ve > v && (ve[-1] == '\r' || ve[-1] == ' '))
        ve--;
      return ts_xstrndup(v, (size_t)(ve - v));
    }
    s = le + 1;
  }
  return NULL;
}
