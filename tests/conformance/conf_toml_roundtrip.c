/*
 * conf_toml_roundtrip.c — every TOML file under the shared conformance folder
 * (the PEP 751 example and the packse/uv resolver scenarios, 338 files,
 * written by other people's tools and hands) through toml/toml.h: each
 * must parse, write, parse back to an equal tree and write the same bytes
 * again.  The PEP 751 example must also pass lock/pylock.h.
 *
 * With --dump FILE...: one JSON line per file, {"ok": VALUE} or {"error":
 * "..."}, VALUE tagged so that nothing is lost ({"s": string}, {"i":
 * "123"}, {"f": float text}, {"d": date-time text}, true/false, [...],
 * {"t": {key: VALUE}}).  tests/integration/toml_tomllib.sh compares
 * that with Python's tomllib value for value, on these files and on random
 * mutations of them.
 *
 * Usage: conf_toml_roundtrip SHARED_CONFORMANCE_DIR.  Prints "N passed, N
 * failed"; exits 77 when the directory is absent, 1 on any failure.
 */
#include <ftw.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "core/fs.h"
#include "lock/pylock.h"
#include "toml/toml.h"

static int passed, failed;

static void fail(const char *path, const char *what, const char *detail) {
  failed++;
  fprintf(stderr, "FAIL %s: %s%s%s\n", path, what, detail ? ": " : "",
          detail ? detail : "");
}

static void check_file(const char *path) {
  struct ts_buf in, w1, w2;
  ts_buf_init(&in, TS_CAP_LOCKFILE);
  ts_buf_init(&w1, 0);
  ts_buf_init(&w2, 0);
  struct ts_error err = {0};
  struct ts_toml_value *a = NULL, *b = NULL;
  if (ts_fs_read_file(path, &in, &err) != TS_OK) {
    fail(path, "read", err.detail);
    goto out;
  }
  if (ts_toml_parse(in.data ? in.data : "", in.len, &a, &err) != TS_OK) {
    fail(path, "parse", err.detail);
    goto out;
  }
  if (ts_toml_write(a, &w1, &err) != TS_OK) {
    fail(path, "write", err.detail);
    goto out;
  }
  if (ts_toml_parse(w1.data ? w1.data : "", w1.len, &b, &err) != TS_OK) {
    fail(path, "parse of the written text", err.detail);
    goto out;
  }
  if (!ts_toml_equal(a, b)) {
    fail(path, "written text reads back different", NULL);
    goto out;
  }
  if (ts_toml_write(b, &w2, &err) != TS_OK || w1.len != w2.len ||
      (w1.len && memcmp(w1.data, w2.data, w1.len) != 0)) {
    fail(path, "second write differs", NULL);
    goto out;
  }
  if (strstr(path, "pylock")) {
    struct ts_pylock *l = NULL;
    if (ts_pylock_from_toml(a, &l, &err) != TS_OK) {
      fail(path, "pylock", err.detail);
      goto out;
    }
    ts_pylock_free(l);
  }
  passed++;
out:
  ts_toml_free(a);
  ts_toml_free(b);
  ts_buf_clear(&in);
  ts_buf_clear(&w1);
  ts_buf_clear(&w2);
}

static int visit(const char *path, const struct stat *st, int flag,
                 struct FTW *ftw) {
  (void)st;
  (void)ftw;
  size_t n = strlen(path);
  if (flag == FTW_F && n > 5 && strcmp(path + n - 5, ".toml") == 0)
    check_file(path);
  return 0;
}

static void dump_string(const char *s, size_t n) {
  putchar('"');
  for (size_t i = 0; i < n; i++) {
    unsigned char c = (unsigned char)s[i];
    if (c == '"' || c == '\\')
      printf("\\%c", c);
    else if (c < 0x20 || c == 0x7f)
      printf("\\u%04x", c);
    else
      putchar(c);
  }
  putchar('"');
}

static void dump_value(const struct ts_toml_value *v) {
  switch (v->type) {
  case TS_TOML_STRING:
    fputs("{\"s\": ", stdout);
    dump_string(v->str, v->len);
    putchar('}');
    break;
  case TS_TOML_INTEGER:
    printf("{\"i\": \"%lld\"}", v->integer);
    break;
  case TS_TOML_FLOAT:
  case TS_TOML_DATETIME:
    printf("{\"%c\": ", v->type == TS_TOML_FLOAT ? 'f' : 'd');
    dump_string(v->str, v->len);
    putchar('}');
    break;
  case TS_TOML_BOOL:
    fputs(v->boolean ? "true" : "false", stdout);
    break;
  case TS_TOML_ARRAY:
    putchar('[');
    for (size_t i = 0; i < v->nitems; i++) {
      if (i)
        fputs(", ", stdout);
      dump_value(v->items[i]);
    }
    putchar(']');
    break;
  case TS_TOML_TABLE:
    fputs("{\"t\": {", stdout);
    for (size_t i = 0; i < v->nkvs; i++) {
      if (i)
        fputs(", ", stdout);
      dump_string(v->kvs[i].key, v->kvs[i].key_len);
      fputs(": ", stdout);
      dump_value(v->kvs[i].value);
    }
    fputs("}}", stdout);
    break;
  }
}

static int dump_files(int n, char **paths) {
  for (int i = 0; i < n; i++) {
    struct ts_buf in;
    ts_buf_init(&in, TS_CAP_LOCKFILE);
    struct ts_error err = {0};
    struct ts_toml_value *v = NULL;
    if (ts_fs_read_file(paths[i], &in, &err) != TS_OK ||
        ts_toml_parse(in.data ? in.data : "", in.len, &v, &err) != TS_OK) {
      fputs("{\"error\": ", stdout);
      dump_string(err.detail, strlen(err.detail));
      puts("}");
    } else {
      fputs("{\"ok\": ", stdout);
      dump_value(v);
      puts("}");
    }
    ts_toml_free(v);
    ts_buf_clear(&in);
  }
  return 0;
}

int main(int argc, char **argv) {
  if (argc >= 2 && strcmp(argv[1], "--dump") == 0)
    return dump_files(argc - 2, argv + 2);
  struct stat st;
  if (argc < 2 || stat(argv[1], &st) != 0 || !S_ISDIR(st.st_mode)) {
    fprintf(stderr, "conformance data absent; skipped\n");
    return 77;
  }
  if (nftw(argv[1], visit, 16, FTW_PHYS) != 0) {
    fprintf(stderr, "cannot walk %s\n", argv[1]);
    return 1;
  }
  printf("toml: %d passed, %d failed\n", passed, failed);
  printf("%d passed, %d failed\n", passed, failed);
  return failed || passed == 0 ? 1 : 0;
}
