/* Which rules file is in force; see origin.h. */
#include "rules/origin.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/alloc.h"
#include "core/buf.h"
#include "core/fs.h"
#include "core/str.h"
#include "pep/version.h"

#define ORIGIN_CAP 8192
#define WARNED_CAP 64
#define DAY_SECONDS (24 * 60 * 60)

char *ts_rules_data_dir(void) {
  const char *xdg = getenv("XDG_DATA_HOME");
  if (xdg && xdg[0] == '/')
    return ts_path_join(xdg, "torchsolve");
  const char *home = getenv("HOME");
  return home && *home ? ts_path_join(home, ".local/share/torchsolve") : NULL;
}

char *ts_rules_updated_path(const char *data_dir) {
  return ts_path_join(data_dir, "rules-v1/rules.yaml");
}

char *ts_rules_origin_path(const char *data_dir) {
  return ts_path_join(data_dir, "rules-v1/origin");
}

void ts_rules_origin_clear(struct ts_rules_origin *o) {
  free(o->version);
  free(o->url);
  free(o->sha256);
  memset(o, 0, sizeof *o);
}

/* The value of a "key value" line of the origin file, or NULL. */
static char *origin_value(const char *text, const char *key) {
  size_t klen = strlen(key);
  for (const char *line = text; line && *line;) {
    const char *nl = strchr(line, '\n');
    size_t len = nl ? (size_t)(nl - line) : strlen(line);
    if (len > klen && strncmp(line, key, klen) == 0 && line[klen] == ' ')
      return ts_xstrndup(line + klen + 1, len - klen - 1);
    line = nl ? nl + 1 : NULL;
  }
  return NULL;
}

enum ts_code ts_rules_origin_read(const char *data_dir, struct ts_rules_origin *out,
                                  struct ts_error *err) {
  memset(out, 0, sizeof *out);
  char *path = ts_rules_origin_path(data_dir);
  struct ts_buf b;
  ts_buf_init(&b, ORIGIN_CAP);
  enum ts_code rc = ts_fs_read_file(path, &b, err);
  if (rc == TS_OK) {
    char *text = ts_xstrndup(b.data, b.len);
    out->version = origin_value(text, "version");
    out->url = origin_value(text, "url");
    out->sha256 = origin_value(text, "sha256");
    free(text);
    if (!out->version) {
      ts_rules_origin_clear(out);
      rc = ts_error_set(err, TS_E_PARSE, "%s: no version line", path);
    }
  }
  ts_buf_clear(&b);
  free(path);
  return rc;
}

enum ts_code ts_rules_origin_store(const char *data_dir, const char *rules,
                                   size_t len, const struct ts_rules_origin *o,
                                   struct ts_error *err) {
  char *dir = ts_path_join(data_dir, "rules-v1");
  char *yaml = ts_rules_updated_path(data_dir);
  char *origin = ts_rules_origin_path(data_dir);
  char *text = ts_xasprintf("version %s\nurl %s\nsha256 %s\n", o->version,
                            o->url ? o->url : "", o->sha256 ? o->sha256 : "");
  enum ts_code rc = ts_fs_mkdirs(dir, err);
  /* The origin goes last: until it names the new version, the old origin
   * (or none) keeps the bundled file in force whenever the versions say
   * so, never a file whose origin is unknown. */
  if (rc == TS_OK)
    rc = ts_fs_write_atomic(yaml, rules, len, err);
  if (rc == TS_OK)
    rc = ts_fs_write_atomic(origin, text, strlen(text), err);
  free(text);
  free(origin);
  free(yaml);
  free(dir);
  return rc;
}

bool ts_rules_file_version(const char *path, char *out, size_t cap) {
  struct ts_buf b;
  struct ts_error ignored = {0};
  ts_buf_init(&b, TS_CAP_RULES_FILE);
  bool found = false;
  if (ts_fs_read_file(path, &b, &ignored) == TS_OK) {
    for (size_t i = 0; i < b.len && !found;) {
      const char *line = b.data + i;
      const char *nl = memchr(line, '\n', b.len - i);
      size_t len = nl ? (size_t)(nl - line) : b.len - i;
      if (len > 8 && strncmp(line, "version:", 8) == 0) {
        size_t s = 8, e = len;
        while (s < e && (line[s] == ' ' || line[s] == '"' || line[s] == '\''))
          s++;
        for (size_t k = s; k < e; k++)
          if (line[k] == '#' || line[k] == '"' || line[k] == '\'' || isspace((unsigned char)line[k]))
            e = k;
        if (e > s && e - s < cap) {
          memcpy(out, line + s, e - s);
          out[e - s] = '\0';
          found = true;
        }
      }
      i += len + 1;
    }
  }
  ts_buf_clear(&b);
  return found;
}

int ts_rules_version_cmp(const char *a, const char *b) {
  struct ts_version *va = NULL, *vb = NULL;
  struct ts_error ignored = {0};
  if (a)
    ts_version_parse(a, strlen(a), &va, &ignored);
  if (b)
    ts_version_parse(b, strlen(b), &vb, &ignored);
  int c = va && vb ? ts_version_cmp(va, vb) : (va != NULL) - (vb != NULL);
  ts_version_free(va);
  ts_version_free(vb);
  return c;
}

void ts_rules_in_force(const char *bundled, const char *data_dir,
                       struct ts_rules_provenance *out) {
  memset(out, 0, sizeof *out);
  char version[64];
  if (ts_rules_file_version(bundled, version, sizeof version))
    out->version = ts_xstrdup(version);
  out->path = ts_xstrdup(bundled);
  struct ts_rules_origin o;
  struct ts_error ignored = {0};
  if (!data_dir || ts_rules_origin_read(data_dir, &o, &ignored) != TS_OK)
    return;
  if (ts_rules_version_cmp(o.version, out->version) > 0) {
    ts_rules_provenance_clear(out);
    out->updated = true;
    out->version = o.version;
    out->url = o.url;
    out->path = ts_rules_updated_path(data_dir);
    o.version = o.url = NULL;
  }
  ts_rules_origin_clear(&o);
}

bool ts_rules_newer_torch_warning_due(const char *data_dir, time_t now) {
  if (!data_dir)
    return true;
  char *path = ts_path_join(data_dir, "newer-torch-warned");
  struct ts_buf b;
  struct ts_error ignored = {0};
  ts_buf_init(&b, WARNED_CAP);
  bool due = true;
  if (ts_fs_read_file(path, &b, &ignored) == TS_OK) {
    char text[WARNED_CAP + 1];
    memcpy(text, b.data, b.len);
    text[b.len] = '\0';
    char *end = NULL;
    long long last = strtoll(text, &end, 10);
    due = end == text || last > (long long)now || (long long)now - last >= DAY_SECONDS;
  }
  ts_buf_clear(&b);
  if (due && ts_fs_mkdirs(data_dir, &ignored) == TS_OK) {
    char stamp[32];
    int n = snprintf(stamp, sizeof stamp, "%lld\n", (long long)now);
    ts_fs_write_atomic(path, stamp, (size_t)n, &ignored);
  }
  free(path);
  return due;
}
