/*
 * inventory/report.c — pip installation report: built as a cJSON tree, printed
 * by our own printer to match Python's json.dump(indent=2,
 * ensure_ascii=False) byte for byte (cJSON's printer uses tabs).
 */
#include "core/str.h"
#include "core/text.h"
#include "inventory/report.h"

#include <cjson/cJSON.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

/* pip's METADATA_FIELDS (src/pip/_internal/metadata/_json.py), in order. */
static const struct {
  const char *field;
  bool multi;
} fields[] = {
    {"Metadata-Version", false}, {"Name", false},
    {"Version", false},          {"Dynamic", true},
    {"Platform", true},          {"Supported-Platform", true},
    {"Summary", false},          {"Description", false},
    {"Description-Content-Type", false}, {"Keywords", false},
    {"Home-page", false},        {"Download-URL", false},
    {"Author", false},           {"Author-email", false},
    {"Maintainer", false},       {"Maintainer-email", false},
    {"License", false},          {"License-Expression", false},
    {"License-File", true},      {"Classifier", true},
    {"Requires-Dist", true},     {"Requires-Python", false},
    {"Requires-External", true}, {"Project-URL", true},
    {"Provides-Extra", true},    {"Provides-Dist", true},
    {"Obsoletes-Dist", true},
};

static bool field_eq(const char *a, const char *b) {
  /* the first letters first: each field is looked for in every line */
  return a && (a[0] | 0x20) == (b[0] | 0x20) && strcasecmp(a, b) == 0;
}

static void json_name(const char *field, char *out, size_t cap) {
  size_t i = 0;
  for (; field[i] && i + 1 < cap; i++) {
    char c = field[i];
    out[i] = c == '-' ? '_' : (c >= 'A' && c <= 'Z') ? (char)(c - 'A' + 'a') : c;
  }
  out[i] = '\0';
}

static bool is_ws(char c) {
  return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' ||
         c == '\v';
}

/* Keywords: split on ',' (items stripped) when there is one, else on
 * whitespace, as pip. */
static cJSON *keywords(const char *v) {
  cJSON *a = cJSON_CreateArray();
  if (!a)
    return NULL;
  bool comma = strchr(v, ',') != NULL;
  const char *p = v;
  for (;;) {
    if (comma) {
      const char *e = strchr(p, ',');
      const char *end = e ? e : p + strlen(p);
      const char *s = p;
      while (s < end && is_ws(*s))
        s++;
      const char *t = end;
      while (t > s && is_ws(t[-1]))
        t--;
      char *item = ts_xstrndup(s, (size_t)(t - s));
      if (!cJSON_AddItemToArray(a, cJSON_CreateString(item))) {
        free(item);
        cJSON_Delete(a);
        return NULL;
      }
      free(item);
      if (!e)
        break;
      p = e + 1;
    } else {
      while (*p && is_ws(*p))
        p++;
      if (!*p)
        break;
      const char *s = p;
      while (*p && !is_ws(*p))
        p++;
      char *item = ts_xstrndup(s, (size_t)(p - s));
      if (!cJSON_AddItemToArray(a, cJSON_CreateString(item))) {
        free(item);
        cJSON_Delete(a);
        return NULL;
      }
      free(item);
    }
  }
  return a;
}

static cJSON *metadata_json(const struct ts_report_item *it) {
  cJSON *m = cJSON_CreateObject();
  if (!m)
    return NULL;
  if (it->nmetadata == 0) {
    if (!cJSON_AddStringToObject(m, "name", it->name) ||
        !cJSON_AddStringToObject(m, "version", it->version ? it->version : "")) {
      cJSON_Delete(m);
      return NULL;
    }
    return m;
  }
  for (size_t f = 0; f < sizeof fields / sizeof fields[0]; f++) {
    char key[64];
    json_name(fields[f].field, key, sizeof key);
    cJSON *val = NULL;
    for (size_t i = 0; i < it->nmetadata; i++) {
      const struct ts_report_kv *kv = &it->metadata[i];
      if (!field_eq(kv->key, fields[f].field) || !kv->value)
        continue;
      if (fields[f].multi) {
        if (!val && !(val = cJSON_CreateArray()))
          goto oom;
        if (!cJSON_AddItemToArray(val, cJSON_CreateString(kv->value)))
          goto oom_val;
        continue;
      }
      /* a single-use field: the first one counts, as email's get() */
      val = strcmp(key, "keywords") == 0 ? keywords(kv->value)
                                         : cJSON_CreateString(kv->value);
      if (!val)
        goto oom;
      break;
    }
    if (val && !cJSON_AddItemToObject(m, key, val))
      goto oom_val;
    continue;
  oom_val:
    cJSON_Delete(val);
  oom:
    cJSON_Delete(m);
    return NULL;
  }
  return m;
}

static cJSON *download_info(const struct ts_report_item *it) {
  cJSON *d = cJSON_CreateObject();
  if (!d)
    return NULL;
  bool ok = cJSON_AddStringToObject(d, "url", it->url ? it->url : "") != NULL;
  if (ok && it->subdirectory)
    ok = cJSON_AddStringToObject(d, "subdirectory", it->subdirectory) != NULL;
  /* the info object goes in first, so d owns it whatever fails next */
  const char *which = it->vcs ? "vcs_info" : it->is_dir ? "dir_info"
                                                       : "archive_info";
  cJSON *info = ok ? cJSON_AddObjectToObject(d, which) : NULL;
  ok = ok && info;
  if (ok && it->vcs) {
    ok = cJSON_AddStringToObject(info, "vcs", it->vcs) != NULL;
    if (ok && it->requested_revision)
      ok = cJSON_AddStringToObject(info, "requested_revision",
                                   it->requested_revision) != NULL;
    if (ok)
      ok = cJSON_AddStringToObject(info, "commit_id",
                                   it->commit_id ? it->commit_id : "") != NULL;
  } else if (ok && it->is_dir) {
    if (it->editable)
      ok = cJSON_AddBoolToObject(info, "editable", true) != NULL;
  } else if (ok && it->sha256) {
    char legacy[160];
    snprintf(legacy, sizeof legacy, "sha256=%s", it->sha256);
    cJSON *hs = NULL;
    ok = cJSON_AddStringToObject(info, "hash", legacy) != NULL &&
         (hs = cJSON_AddObjectToObject(info, "hashes")) != NULL &&
         cJSON_AddStringToObject(hs, "sha256", it->sha256) != NULL;
  }
  if (!ok) {
    cJSON_Delete(d);
    return NULL;
  }
  return d;
}

/* ---- printing as Python's json.dump(indent=2, ensure_ascii=False) ---- */

/* What json.dump escapes besides the control characters. */
static bool needs_escape(unsigned char c) { return c < 0x20 || c == '"' || c == '\\'; }

/* Whether the 8 bytes at p are all printable ASCII other than '"' and
 * '\\' (a word at a time: a report carries every METADATA description,
 * megabytes of text that needs neither escaping nor a UTF-8 check). */
static bool plain8(const unsigned char *p) {
  const uint64_t ones = 0x0101010101010101u, high = 0x8080808080808080u;
  uint64_t x;
  memcpy(&x, p, sizeof x);
  uint64_t quote = x ^ (ones * '"'), backslash = x ^ (ones * '\\');
  uint64_t special = (x - ones * 0x20) | ((quote - ones) & ~quote) |
                     ((backslash - ones) & ~backslash) | x;
  return (special & high) == 0;
}

/* One pass: runs of plain text appended whole, escapes as json.dump
 * writes them, other bytes checked as UTF-8 sequences (TS_E_INVALID). */
static enum ts_code put_string(struct ts_buf *o, const char *s) {
  const unsigned char *u = (const unsigned char *)s;
  size_t len = strlen(s), run = 0, i = 0;
  enum ts_code rc = ts_buf_append(o, "\"", 1);
  while (i < len && rc == TS_OK) {
    if (len - i >= 8 && plain8(u + i)) {
      i += 8;
      continue;
    }
    unsigned char c = u[i];
    if (c >= 0x80) {
      size_t k = ts_utf8_seq_len(u + i, len - i);
      if (k == 0)
        return TS_E_INVALID;
      i += k;
      continue;
    }
    if (!needs_escape(c)) {
      i++;
      continue;
    }
    const char *esc;
    char hex[8];
    switch (c) {
    case '"': esc = "\\\""; break;
    case '\\': esc = "\\\\"; break;
    case '\n': esc = "\\n"; break;
    case '\r': esc = "\\r"; break;
    case '\t': esc = "\\t"; break;
    case '\b': esc = "\\b"; break;
    case '\f': esc = "\\f"; break;
    default:
      snprintf(hex, sizeof hex, "\\u%04x", c);
      esc = hex;
    }
    rc = ts_buf_append(o, s + run, i - run);
    if (rc == TS_OK)
      rc = ts_buf_append_str(o, esc);
    run = ++i;
  }
  if (rc == TS_OK)
    rc = ts_buf_append(o, s + run, len - run);
  if (rc == TS_OK)
    rc = ts_buf_append(o, "\"", 1);
  return rc;
}

static enum ts_code indent(struct ts_buf *o, unsigned level) {
  enum ts_code rc = ts_buf_append(o, "\n", 1);
  for (unsigned i = 0; i < level && rc == TS_OK; i++)
    rc = ts_buf_append(o, "  ", 2);
  return rc;
}

static enum ts_code put_json(struct ts_buf *o, const cJSON *v, unsigned level) {
  if (cJSON_IsTrue(v))
    return ts_buf_append_str(o, "true");
  if (cJSON_IsFalse(v))
    return ts_buf_append_str(o, "false");
  if (cJSON_IsNull(v))
    return ts_buf_append_str(o, "null");
  if (cJSON_IsString(v))
    return put_string(o, v->valuestring);
  if (cJSON_IsNumber(v))
    return ts_buf_printf(o, "%lld", (long long)v->valuedouble);
  bool obj = cJSON_IsObject(v);
  if (!v->child)
    return ts_buf_append_str(o, obj ? "{}" : "[]");
  enum ts_code rc = ts_buf_append_str(o, obj ? "{" : "[");
  for (const cJSON *c = v->child; c && rc == TS_OK; c = c->next) {
    rc = indent(o, level + 1);
    if (rc == TS_OK && obj) {
      rc = put_string(o, c->string);
      if (rc == TS_OK)
        rc = ts_buf_append_str(o, ": ");
    }
    if (rc == TS_OK)
      rc = put_json(o, c, level + 1);
    if (rc == TS_OK && c->next)
      rc = ts_buf_append(o, ",", 1);
  }
  if (rc == TS_OK)
    rc = indent(o, level);
  if (rc == TS_OK)
    rc = ts_buf_append_str(o, obj ? "}" : "]");
  return rc;
}

static bool add_environment(cJSON *root, const struct ts_report_kv *kv, size_t n) {
  cJSON *env = cJSON_AddObjectToObject(root, "environment");
  bool ok = env != NULL;
  for (size_t i = 0; ok && i < n; i++)
    ok = cJSON_AddStringToObject(env, kv[i].key, kv[i].value ? kv[i].value : "") != NULL;
  return ok;
}

/* Writes root (then frees it) as pip's json.dump(indent=2). */
static enum ts_code finish(cJSON *root, bool ok, struct ts_buf *out,
                           struct ts_error *err) {
  if (!ok) {
    cJSON_Delete(root);
    return ts_error_set(err, TS_E_NOMEM, "out of memory");
  }
  enum ts_code rc = put_json(out, root, 0);
  if (rc == TS_OK)
    rc = ts_buf_append(out, "\n", 1);
  cJSON_Delete(root);
  if (rc == TS_E_INVALID)
    return ts_error_set(err, rc, "report holds a string that is not UTF-8");
  if (rc != TS_OK)
    return ts_error_set(err, rc, "cannot write the report: out of memory");
  return TS_OK;
}

static cJSON *str_or_null(const char *s) {
  return s ? cJSON_CreateString(s) : cJSON_CreateNull();
}

static bool add_rules(cJSON *ts, const struct ts_report_rules *rules) {
  cJSON *o = cJSON_AddObjectToObject(ts, "rules");
  return o && cJSON_AddStringToObject(o, "in_force", rules->updated ? "updated" : "bundled") &&
         cJSON_AddItemToObject(o, "version", str_or_null(rules->version)) &&
         cJSON_AddItemToObject(o, "path", str_or_null(rules->path)) &&
         cJSON_AddItemToObject(o, "url", str_or_null(rules->url));
}

/* A PEP 825 variant item's "torchsolve": {"variant", "variant_why"}. */
static bool add_variants(cJSON *install, const struct ts_report *r) {
  for (size_t i = 0; i < r->nitems; i++) {
    const struct ts_report_item *it = &r->items[i];
    cJSON *ts = it->variant_label ? cJSON_AddObjectToObject(
                                        cJSON_GetArrayItem(install, (int)i), "torchsolve")
                                  : NULL;
    if (it->variant_label &&
        !(ts && cJSON_AddStringToObject(ts, "variant", it->variant_label) &&
          cJSON_AddItemToObject(ts, "variant_why", str_or_null(it->variant_why))))
      return false;
  }
  return true;
}

enum ts_code ts_report_write(const struct ts_report *r, struct ts_buf *out,
                             struct ts_error *err) {
  if (!r)
    return ts_error_set(err, TS_E_INVALID, "no report");
  for (size_t i = 0; i < r->nitems; i++)
    if (!r->items[i].nmetadata && !r->items[i].name)
      return ts_error_set(err, TS_E_INVALID,
                          "report item %zu has neither metadata nor a name",
                          i);
  cJSON *root = cJSON_CreateObject();
  bool ok = root && cJSON_AddStringToObject(root, "version", "1") &&
            cJSON_AddStringToObject(root, "pip_version",
                                    r->tool_version ? r->tool_version
                                                    : "torchsolve");
  cJSON *install = ok ? cJSON_AddArrayToObject(root, "install") : NULL;
  ok = ok && install;
  for (size_t i = 0; ok && i < r->nitems; i++) {
    const struct ts_report_item *it = &r->items[i];
    cJSON *o = cJSON_CreateObject();
    if (!o || !cJSON_AddItemToArray(install, o)) {
      cJSON_Delete(o);
      ok = false;
      break;
    }
    cJSON *di = download_info(it);
    ok = di && cJSON_AddItemToObject(o, "download_info", di);
    if (!ok) {
      cJSON_Delete(di);
      break;
    }
    ok = cJSON_AddBoolToObject(o, "is_direct", it->is_direct) &&
         cJSON_AddBoolToObject(o, "is_yanked", it->is_yanked) &&
         cJSON_AddBoolToObject(o, "requested", it->requested);
    cJSON *md = ok ? metadata_json(it) : NULL;
    ok = ok && md && cJSON_AddItemToObject(o, "metadata", md);
    if (!ok) {
      cJSON_Delete(md);
      break;
    }
    if (it->requested && it->nrequested_extras) {
      /* pip writes sorted(extras) */
      const char **ex = ts_xreallocarray(NULL, it->nrequested_extras, sizeof *ex);
      for (size_t k = 0; k < it->nrequested_extras; k++) {
        size_t j = k;
        while (j > 0 && strcmp(ex[j - 1], it->requested_extras[k]) > 0) {
          ex[j] = ex[j - 1];
          j--;
        }
        ex[j] = it->requested_extras[k];
      }
      cJSON *arr = cJSON_AddArrayToObject(o, "requested_extras");
      ok = arr != NULL;
      for (size_t k = 0; ok && k < it->nrequested_extras; k++)
        ok = cJSON_AddItemToArray(arr, cJSON_CreateString(ex[k]));
      free(ex);
    }
  }
  ok = ok && add_variants(install, r);
  ok = ok && add_environment(root, r->environment, r->nenvironment);
  if (ok && r->nconflicts) {
    cJSON *c = cJSON_AddArrayToObject(root, "conflicts");
    ok = c != NULL;
    for (size_t i = 0; ok && i < r->nconflicts; i++)
      ok = cJSON_AddItemToArray(c, cJSON_CreateString(r->conflicts[i]));
  }
  cJSON *ts = ok && (r->nnotes || r->rules) ? cJSON_AddObjectToObject(root, "torchsolve") : NULL;
  ok = ok && (ts || !(r->nnotes || r->rules));
  if (ok && r->nnotes) {
    cJSON *notes = cJSON_AddArrayToObject(ts, "notes");
    ok = notes != NULL;
    for (size_t i = 0; ok && i < r->nnotes; i++)
      ok = cJSON_AddItemToArray(notes, cJSON_CreateString(r->notes[i]));
  }
  if (ok && r->rules)
    ok = add_rules(ts, r->rules);
  return finish(root, ok, out, err);
}

size_t ts_report_env_from_markers(const struct ts_marker_env *env,
                                  struct ts_report_kv out[TS_REPORT_ENV_KEYS]) {
#define V(x) (env && env->x ? env->x : "")
  const struct ts_report_kv kv[TS_REPORT_ENV_KEYS] = {
      {"implementation_name", V(implementation_name)},
      {"implementation_version", V(implementation_version)},
      {"os_name", V(os_name)},
      {"platform_machine", V(platform_machine)},
      {"platform_release", V(platform_release)},
      {"platform_system", V(platform_system)},
      {"platform_version", V(platform_version)},
      {"python_full_version", V(python_full_version)},
      {"platform_python_implementation", V(platform_python_implementation)},
      {"python_version", V(python_version)},
      {"sys_platform", V(sys_platform)},
  };
#undef V
  memcpy(out, kv, sizeof kv);
  return TS_REPORT_ENV_KEYS;
}

struct ts_report_kv *ts_report_metadata_kvs(const struct ts_metadata *md, size_t *n) {
  struct ts_report_kv *kv = ts_xcalloc(md->nfields + 1, sizeof *kv);
  bool has_description_header = false;
  *n = 0;
  for (size_t i = 0; i < md->nfields; i++) {
    const struct ts_metadata_field *f = &md->fields[i];
    has_description_header |= strcasecmp(f->name, "Description") == 0;
    kv[(*n)++] = (struct ts_report_kv){f->name, f->value};
  }
  if (md->description && !has_description_header)
    kv[(*n)++] = (struct ts_report_kv){"Description", md->description};
  return kv;
}

enum ts_code ts_report_write_inspect(const struct ts_inspect *r, struct ts_buf *out,
                                     struct ts_error *err) {
  cJSON *root = cJSON_CreateObject();
  bool ok = root && cJSON_AddStringToObject(root, "version", "1") &&
            cJSON_AddStringToObject(root, "pip_version", r->tool_version);
  cJSON *arr = ok ? cJSON_AddArrayToObject(root, "installed") : NULL;
  ok = ok && arr;
  for (size_t i = 0; ok && i < r->nitems; i++) {
    const struct ts_inspect_item *it = &r->items[i];
    cJSON *o = cJSON_CreateObject();
    ok = o && cJSON_AddItemToArray(arr, o);
    if (!ok) {
      cJSON_Delete(o);
      break;
    }
    struct ts_report_item as_report = {.name = it->name, .version = it->version,
                                       .metadata = it->metadata,
                                       .nmetadata = it->nmetadata};
    cJSON *md = metadata_json(&as_report);
    ok = md && cJSON_AddItemToObject(o, "metadata", md);
    if (!ok) {
      cJSON_Delete(md);
      break;
    }
    ok = cJSON_AddStringToObject(o, "metadata_location", it->metadata_location) != NULL;
    if (ok && it->direct_url_json) {
      cJSON *du = cJSON_Parse(it->direct_url_json);
      if (cJSON_IsObject(du))
        ok = cJSON_AddItemToObject(o, "direct_url", du);
      else
        cJSON_Delete(du); /* not JSON: left out */
    }
    if (ok && it->installer)
      ok = cJSON_AddStringToObject(o, "installer", it->installer) != NULL;
    ok = ok && cJSON_AddBoolToObject(o, "requested", it->requested);
  }
  ok = ok && add_environment(root, r->environment, r->nenvironment);
  return finish(root, ok, out, err);
}
