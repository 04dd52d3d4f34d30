/*
 * inventory/report.c — pip installation report, written as it goes by
 * core/json.h's writer to match Python's json.dump(indent=2,
 * ensure_ascii=False) byte for byte; cJSON only reads a direct_url.json.
 */
#include "core/alloc.h"
#include "core/json.h"
#include "core/str.h"
#include "inventory/report.h"

#include <cjson/cJSON.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

/* pip's METADATA_FIELDS (src/pip/_internal/metadata/_json.py), in order. */
#define F(name, multi) {name, sizeof name - 1, multi}
static const struct {
  const char *field;
  size_t len;
  bool multi;
} fields[] = {
    F("Metadata-Version", false), F("Name", false),
    F("Version", false), F("Dynamic", true),
    F("Platform", true), F("Supported-Platform", true),
    F("Summary", false), F("Description", false),
    F("Description-Content-Type", false), F("Keywords", false),
    F("Home-page", false), F("Download-URL", false),
    F("Author", false), F("Author-email", false),
    F("Maintainer", false), F("Maintainer-email", false),
    F("License", false), F("License-Expression", false),
    F("License-File", true), F("Classifier", true),
    F("Requires-Dist", true), F("Requires-Python", false),
    F("Requires-External", true), F("Project-URL", true),
    F("Provides-Extra", true), F("Provides-Dist", true),
    F("Obsoletes-Dist", true),
};
#undef F

/* The index in fields[] of a METADATA key (any case), -1 for one pip
 * drops. */
static int field_index(const char *key) {
  size_t n = strlen(key);
  for (size_t f = 0; f < sizeof fields / sizeof fields[0]; f++)
    if (fields[f].len == n && (key[0] | 0x20) == (fields[f].field[0] | 0x20) &&
        strcasecmp(key, fields[f].field) == 0)
      return (int)f;
  return -1;
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

static void str_n(struct ts_json_writer *w, const char *s, size_t n) {
  char *item = ts_xstrndup(s, n);
  ts_json_str(w, item);
  free(item);
}

/* Keywords: split on ',' (items stripped) when there is one, else on
 * whitespace, as pip. */
static void keywords(struct ts_json_writer *w, const char *v) {
  ts_json_open(w, '[');
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
      str_n(w, s, (size_t)(t - s));
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
      str_n(w, s, (size_t)(p - s));
    }
  }
  ts_json_close(w, ']');
}

#define NFIELDS (sizeof fields / sizeof fields[0])

/* The item's "metadata" object: pip's fields in pip's order, a
 * multiple-use field as the list of its values in file order, a
 * single-use one as its first value (email's get()). */
static void metadata_json(struct ts_json_writer *w, const struct ts_report_item *it) {
  ts_json_open(w, '{');
  if (it->nmetadata == 0) {
    ts_json_key(w, "name");
    ts_json_str(w, it->name);
    ts_json_key(w, "version");
    ts_json_str(w, it->version ? it->version : "");
    ts_json_close(w, '}');
    return;
  }
  /* each field's values chained in file order: one pass over the keys */
  size_t head[NFIELDS], tail[NFIELDS];
  size_t *next = ts_xreallocarray(NULL, it->nmetadata, sizeof *next);
  const size_t none = (size_t)-1;
  for (size_t f = 0; f < NFIELDS; f++)
    head[f] = tail[f] = none;
  for (size_t i = 0; i < it->nmetadata; i++) {
    const struct ts_report_kv *kv = &it->metadata[i];
    int f = kv->key && kv->value ? field_index(kv->key) : -1;
    if (f < 0)
      continue;
    next[i] = none;
    if (tail[f] == none)
      head[f] = i;
    else
      next[tail[f]] = i;
    tail[f] = i;
  }
  for (size_t f = 0; f < NFIELDS; f++) {
    if (head[f] == none)
      continue;
    char key[64];
    json_name(fields[f].field, key, sizeof key);
    ts_json_key(w, key);
    const char *first = it->metadata[head[f]].value;
    if (fields[f].multi) {
      ts_json_open(w, '[');
      for (size_t i = head[f]; i != none; i = next[i])
        ts_json_str(w, it->metadata[i].value);
      ts_json_close(w, ']');
    } else if (strcmp(key, "keywords") == 0) {
      keywords(w, first);
    } else {
      ts_json_str(w, first);
    }
  }
  free(next);
  ts_json_close(w, '}');
}

static void download_info(struct ts_json_writer *w, const struct ts_report_item *it) {
  ts_json_open(w, '{');
  ts_json_key(w, "url");
  ts_json_str(w, it->url ? it->url : "");
  if (it->subdirectory) {
    ts_json_key(w, "subdirectory");
    ts_json_str(w, it->subdirectory);
  }
  ts_json_key(w, it->vcs ? "vcs_info" : it->is_dir ? "dir_info" : "archive_info");
  ts_json_open(w, '{');
  if (it->vcs) {
    ts_json_key(w, "vcs");
    ts_json_str(w, it->vcs);
    if (it->requested_revision) {
      ts_json_key(w, "requested_revision");
      ts_json_str(w, it->requested_revision);
    }
    ts_json_key(w, "commit_id");
    ts_json_str(w, it->commit_id ? it->commit_id : "");
  } else if (it->is_dir) {
    if (it->editable) {
      ts_json_key(w, "editable");
      ts_json_bool(w, true);
    }
  } else if (it->sha256) {
    char legacy[160];
    snprintf(legacy, sizeof legacy, "sha256=%s", it->sha256);
    ts_json_key(w, "hash");
    ts_json_str(w, legacy);
    ts_json_key(w, "hashes");
    ts_json_open(w, '{');
    ts_json_key(w, "sha256");
    ts_json_str(w, it->sha256);
    ts_json_close(w, '}');
  }
  ts_json_close(w, '}');
  ts_json_close(w, '}');
}

/* A parsed JSON value (a direct_url.json) written as json.dump would. */
static void cjson_value(struct ts_json_writer *w, const cJSON *v) {
  if (cJSON_IsTrue(v) || cJSON_IsFalse(v)) {
    ts_json_bool(w, cJSON_IsTrue(v));
  } else if (cJSON_IsString(v)) {
    ts_json_str(w, v->valuestring);
  } else if (cJSON_IsNumber(v)) {
    ts_json_int(w, (long long)v->valuedouble);
  } else if (cJSON_IsObject(v) || cJSON_IsArray(v)) {
    char open = cJSON_IsObject(v) ? '{' : '[';
    ts_json_open(w, open);
    for (const cJSON *c = v->child; c; c = c->next) {
      if (open == '{')
        ts_json_key(w, c->string);
      cjson_value(w, c);
    }
    ts_json_close(w, open == '{' ? '}' : ']');
  } else {
    ts_json_null(w);
  }
}

static void environment(struct ts_json_writer *w, const struct ts_report_kv *kv, size_t n) {
  ts_json_key(w, "environment");
  ts_json_open(w, '{');
  for (size_t i = 0; i < n; i++) {
    ts_json_key(w, kv[i].key);
    ts_json_str(w, kv[i].value ? kv[i].value : "");
  }
  ts_json_close(w, '}');
}

static void str_list(struct ts_json_writer *w, const char *key, const char *const *v, size_t n) {
  ts_json_key(w, key);
  ts_json_open(w, '[');
  for (size_t i = 0; i < n; i++)
    ts_json_str(w, v[i]);
  ts_json_close(w, ']');
}

/* The document closed, with its newline; out back as it was on failure. */
static enum ts_code finish(struct ts_json_writer *w, size_t start, struct ts_error *err) {
  ts_json_close(w, '}');
  enum ts_code rc = ts_json_finish(w);
  if (rc == TS_OK && (rc = ts_buf_append(w->out, "\n", 1)) == TS_OK)
    return TS_OK;
  w->out->len = start;
  if (w->out->data)
    w->out->data[start] = '\0';
  if (rc == TS_E_INVALID)
    return ts_error_set(err, rc, "report holds a string that is not UTF-8");
  return ts_error_set(err, rc, "cannot write the report: out of memory");
}

static void header(struct ts_json_writer *w, struct ts_buf *out, const char *tool_version) {
  ts_json_writer_init(w, out);
  ts_json_open(w, '{');
  ts_json_key(w, "version");
  ts_json_str(w, "1");
  ts_json_key(w, "pip_version");
  ts_json_str(w, tool_version);
}

static void report_item(struct ts_json_writer *w, const struct ts_report_item *it) {
  ts_json_open(w, '{');
  ts_json_key(w, "download_info");
  download_info(w, it);
  ts_json_key(w, "is_direct");
  ts_json_bool(w, it->is_direct);
  ts_json_key(w, "is_yanked");
  ts_json_bool(w, it->is_yanked);
  ts_json_key(w, "requested");
  ts_json_bool(w, it->requested);
  ts_json_key(w, "metadata");
  metadata_json(w, it);
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
    str_list(w, "requested_extras", ex, it->nrequested_extras);
    free(ex);
  }
  /* a PEP 825 variant item's "torchsolve": {"variant", "variant_why"} */
  if (it->variant_label) {
    ts_json_key(w, "torchsolve");
    ts_json_open(w, '{');
    ts_json_key(w, "variant");
    ts_json_str(w, it->variant_label);
    ts_json_key(w, "variant_why");
    ts_json_str_or_null(w, it->variant_why);
    ts_json_close(w, '}');
  }
  ts_json_close(w, '}');
}

static void torchsolve_section(struct ts_json_writer *w, const struct ts_report *r) {
  if (!r->nnotes && !r->rules)
    return;
  ts_json_key(w, "torchsolve");
  ts_json_open(w, '{');
  if (r->nnotes)
    str_list(w, "notes", r->notes, r->nnotes);
  if (r->rules) {
    ts_json_key(w, "rules");
    ts_json_open(w, '{');
    ts_json_key(w, "in_force");
    ts_json_str(w, r->rules->updated ? "updated" : "bundled");
    ts_json_key(w, "version");
    ts_json_str_or_null(w, r->rules->version);
    ts_json_key(w, "path");
    ts_json_str_or_null(w, r->rules->path);
    ts_json_key(w, "url");
    ts_json_str_or_null(w, r->rules->url);
    ts_json_close(w, '}');
  }
  ts_json_close(w, '}');
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
  size_t start = out->len;
  struct ts_json_writer w;
  header(&w, out, r->tool_version ? r->tool_version : "torchsolve");
  ts_json_key(&w, "install");
  ts_json_open(&w, '[');
  for (size_t i = 0; i < r->nitems; i++)
    report_item(&w, &r->items[i]);
  ts_json_close(&w, ']');
  environment(&w, r->environment, r->nenvironment);
  if (r->nconflicts)
    str_list(&w, "conflicts", r->conflicts, r->nconflicts);
  torchsolve_section(&w, r);
  return finish(&w, start, err);
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
  size_t start = out->len;
  struct ts_json_writer w;
  header(&w, out, r->tool_version);
  ts_json_key(&w, "installed");
  ts_json_open(&w, '[');
  for (size_t i = 0; i < r->nitems; i++) {
    const struct ts_inspect_item *it = &r->items[i];
    ts_json_open(&w, '{');
    struct ts_report_item as_report = {.name = it->name, .version = it->version,
                                       .metadata = it->metadata,
                                       .nmetadata = it->nmetadata};
    ts_json_key(&w, "metadata");
    metadata_json(&w, &as_report);
    ts_json_key(&w, "metadata_location");
    ts_json_str(&w, it->metadata_location);
    cJSON *du = it->direct_url_json ? cJSON_Parse(it->direct_url_json) : NULL;
    if (cJSON_IsObject(du)) { /* not JSON: left out */
      ts_json_key(&w, "direct_url");
      cjson_value(&w, du);
    }
    cJSON_Delete(du);
    if (it->installer) {
      ts_json_key(&w, "installer");
      ts_json_str(&w, it->installer);
    }
    ts_json_key(&w, "requested");
    ts_json_bool(&w, it->requested);
    ts_json_close(&w, '}');
  }
  ts_json_close(&w, ']');
  environment(&w, r->environment, r->nenvironment);
  return finish(&w, start, err);
}
