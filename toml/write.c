/*
 * toml/write.c — the canonical TOML writer: a tree to text, the same bytes
 * for the same tree (keys in the tree's order, bare where TOML allows,
 * one escape for each byte, tables after the values of their parent).
 */
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "core/text.h"
#include "toml/chars.h"
#include "toml/toml.h"

enum ts_code ts_toml_write_key(struct ts_buf *out, const char *key,
                               size_t len) {
  bool bare = len > 0;
  for (size_t i = 0; i < len && bare; i++)
    bare = ts_toml_is_bare((unsigned char)key[i]);
  if (bare)
    return ts_buf_append(out, key, len);
  return ts_toml_write_string(out, key, len);
}

enum ts_code ts_toml_write_string(struct ts_buf *out, const char *s,
                                  size_t len) {
  if (ts_utf8_check(s, len) != len)
    return TS_E_INVALID;
  enum ts_code rc = ts_buf_append(out, "\"", 1);
  size_t run = 0;
  for (size_t i = 0; i < len && rc == TS_OK; i++) {
    unsigned char c = (unsigned char)s[i];
    const char *esc = NULL;
    char ubuf[8];
    char letter = ts_toml_escape_letter((char)c);
    if (letter) {
      snprintf(ubuf, sizeof ubuf, "\\%c", letter);
      esc = ubuf;
    } else if (c < 0x20 || c == 0x7F) {
      snprintf(ubuf, sizeof ubuf, "\\u%04X", c);
      esc = ubuf;
    }
    if (!esc)
      continue;
    rc = ts_buf_append(out, s + run, i - run);
    if (rc == TS_OK)
      rc = ts_buf_append_str(out, esc);
    run = i + 1;
  }
  if (rc == TS_OK)
    rc = ts_buf_append(out, s + run, len - run);
  if (rc == TS_OK)
    rc = ts_buf_append(out, "\"", 1);
  return rc;
}

/* A value written after `key = ` (as opposed to under a [header]). */
static bool written_inline(const struct ts_toml_value *v) {
  if (v->type == TS_TOML_TABLE)
    return v->inline_form;
  if (v->type == TS_TOML_ARRAY) {
    if (v->inline_form || v->nitems == 0)
      return true;
    for (size_t i = 0; i < v->nitems; i++)
      if (v->items[i]->type != TS_TOML_TABLE)
        return true;
    return false;
  }
  return true;
}

static enum ts_code write_value(struct ts_buf *out,
                                const struct ts_toml_value *v, bool nested,
                                unsigned depth);

static enum ts_code write_inline_table(struct ts_buf *out,
                                       const struct ts_toml_value *t,
                                       unsigned depth) {
  if (t->nkvs == 0)
    return ts_buf_append_str(out, "{}");
  enum ts_code rc = ts_buf_append_str(out, "{ ");
  for (size_t i = 0; i < t->nkvs && rc == TS_OK; i++) {
    if (i)
      rc = ts_buf_append_str(out, ", ");
    if (rc == TS_OK)
      rc = ts_toml_write_key(out, t->kvs[i].key, t->kvs[i].key_len);
    if (rc == TS_OK)
      rc = ts_buf_append_str(out, " = ");
    if (rc == TS_OK)
      rc = write_value(out, t->kvs[i].value, true, depth + 1);
  }
  if (rc == TS_OK)
    rc = ts_buf_append_str(out, " }");
  return rc;
}

static enum ts_code write_value(struct ts_buf *out,
                                const struct ts_toml_value *v, bool nested,
                                unsigned depth) {
  if (depth > 2 * TS_TOML_MAX_DEPTH + 4)
    return TS_E_TOO_BIG;
  switch (v->type) {
  case TS_TOML_STRING:
    return ts_toml_write_string(out, v->str, v->len);
  case TS_TOML_INTEGER:
    return ts_buf_printf(out, "%lld", v->integer);
  case TS_TOML_BOOL:
    return ts_buf_append_str(out, v->boolean ? "true" : "false");
  case TS_TOML_FLOAT:
  case TS_TOML_DATETIME:
    return ts_buf_append(out, v->str, v->len);
  case TS_TOML_TABLE:
    return write_inline_table(out, v, depth);
  case TS_TOML_ARRAY: {
    /* Arrays of tables or arrays go one item per line at the top of a
     * key/value; inside inline tables TOML 1.0 forbids newlines. */
    bool multiline = false;
    for (size_t i = 0; i < v->nitems && !nested; i++)
      if (v->items[i]->type == TS_TOML_TABLE || v->items[i]->type == TS_TOML_ARRAY)
        multiline = true;
    enum ts_code rc = ts_buf_append_str(out, multiline ? "[\n" : "[");
    for (size_t i = 0; i < v->nitems && rc == TS_OK; i++) {
      if (multiline)
        rc = ts_buf_append_str(out, "    ");
      else if (i)
        rc = ts_buf_append_str(out, ", ");
      if (rc == TS_OK)
        rc = write_value(out, v->items[i], true, depth + 1);
      if (rc == TS_OK && multiline)
        rc = ts_buf_append_str(out, ",\n");
    }
    if (rc == TS_OK)
      rc = ts_buf_append_str(out, "]");
    return rc;
  }
  }
  return TS_E_INVALID;
}

struct path {
  const struct ts_toml_kv *parts[TS_TOML_MAX_DEPTH + 2];
  size_t n;
};

static enum ts_code write_header(struct ts_buf *out, const struct path *path,
                                 bool aot) {
  enum ts_code rc = TS_OK;
  if (out->len)
    rc = ts_buf_append_str(out, "\n");
  if (rc == TS_OK)
    rc = ts_buf_append_str(out, aot ? "[[" : "[");
  for (size_t i = 0; i < path->n && rc == TS_OK; i++) {
    if (i)
      rc = ts_buf_append(out, ".", 1);
    if (rc == TS_OK)
      rc = ts_toml_write_key(out, path->parts[i]->key, path->parts[i]->key_len);
  }
  if (rc == TS_OK)
    rc = ts_buf_append_str(out, aot ? "]]\n" : "]\n");
  return rc;
}

static enum ts_code write_table_body(struct ts_buf *out,
                                     const struct ts_toml_value *t,
                                     struct path *path);

static bool has_leaf(const struct ts_toml_value *t) {
  for (size_t i = 0; i < t->nkvs; i++)
    if (written_inline(t->kvs[i].value))
      return true;
  return false;
}

static enum ts_code write_table_body(struct ts_buf *out,
                                     const struct ts_toml_value *t,
                                     struct path *path) {
  enum ts_code rc = TS_OK;
  for (size_t i = 0; i < t->nkvs && rc == TS_OK; i++) {
    const struct ts_toml_kv *kv = &t->kvs[i];
    if (memchr(kv->key, '\0', kv->key_len))
      return TS_E_INVALID;
    if (!written_inline(kv->value))
      continue;
    rc = ts_toml_write_key(out, kv->key, kv->key_len);
    if (rc == TS_OK)
      rc = ts_buf_append_str(out, " = ");
    if (rc == TS_OK)
      rc = write_value(out, kv->value, false, (unsigned)path->n + 1);
    if (rc == TS_OK)
      rc = ts_buf_append_str(out, "\n");
  }
  for (size_t i = 0; i < t->nkvs && rc == TS_OK; i++) {
    const struct ts_toml_kv *kv = &t->kvs[i];
    if (written_inline(kv->value))
      continue;
    if (path->n == TS_TOML_MAX_DEPTH + 2)
      return TS_E_TOO_BIG;
    path->parts[path->n++] = kv;
    if (kv->value->type == TS_TOML_TABLE) {
      /* A table holding only sub-tables needs no header of its own. */
      bool implicit = kv->value->nkvs > 0 && !has_leaf(kv->value);
      if (!implicit)
        rc = write_header(out, path, false);
      if (rc == TS_OK)
        rc = write_table_body(out, kv->value, path);
    } else {
      for (size_t j = 0; j < kv->value->nitems && rc == TS_OK; j++) {
        rc = write_header(out, path, true);
        if (rc == TS_OK)
          rc = write_table_body(out, kv->value->items[j], path);
      }
    }
    path->n--;
  }
  return rc;
}

enum ts_code ts_toml_write(const struct ts_toml_value *root, struct ts_buf *out,
                           struct ts_error *err) {
  if (!root || root->type != TS_TOML_TABLE)
    return ts_error_set(err, TS_E_INVALID, "a TOML document must be a table");
  struct path path = {.n = 0};
  enum ts_code rc = write_table_body(out, root, &path);
  if (rc == TS_E_INVALID)
    return ts_error_set(err, rc,
                        "cannot write TOML: a key holds U+0000 or a string is "
                        "not UTF-8");
  if (rc == TS_E_TOO_BIG)
    return ts_error_set(err, rc, "cannot write TOML: too large or too deep");
  if (rc != TS_OK)
    return ts_error_set(err, rc, "cannot write TOML: out of memory");
  return TS_OK;
}
