/*
 * conf_pep_pep440.c — runs every vector of packaging/pep440_versions.json and
 * packaging/pep440_specifiers.json (extracted from pypa/packaging 26.3)
 * through pep/version.h and pep/specifier.h.
 *
 * Usage: conf_pep_pep440 SHARED_CONFORMANCE_DIR.  Prints "N passed, N failed"
 * per file; exits 77 when the directory is absent, 1 on any unexpected
 * failure.  Known, argued exceptions are listed in `exceptions` below.
 */
#include <cjson/cJSON.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "pep/specifier.h"
#include "pep/version.h"

struct tally {
  int passed, failed, excepted;
};

/* Cases we deliberately do not follow, with the reason.  Matched on
 * section + input text. */
static const struct {
  const char *section;
  const char *input;
  const char *reason;
} exceptions[] = {
    {NULL, NULL, NULL},
};

static bool is_exception(const char *section, const char *input) {
  for (size_t i = 0; exceptions[i].section; i++)
    if (!strcmp(exceptions[i].section, section) &&
        !strcmp(exceptions[i].input, input))
      return true;
  return false;
}

static void check(struct tally *t, bool ok, const char *section,
                  const char *input, const char *fmt, ...)
    __attribute__((format(printf, 5, 6)));
static void check(struct tally *t, bool ok, const char *section,
                  const char *input, const char *fmt, ...) {
  if (ok) {
    t->passed++;
    return;
  }
  if (is_exception(section, input)) {
    t->excepted++;
    return;
  }
  t->failed++;
  if (t->failed > 50)
    return;
  va_list ap;
  va_start(ap, fmt);
  fprintf(stderr, "FAIL %s: '%s': ", section, input);
  vfprintf(stderr, fmt, ap);
  fputc('\n', stderr);
  va_end(ap);
}

static cJSON *load_json(const char *dir, const char *name) {
  char path[4096];
  snprintf(path, sizeof path, "%s/packaging/%s", dir, name);
  FILE *f = fopen(path, "rb");
  if (!f) {
    fprintf(stderr, "cannot open %s\n", path);
    return NULL;
  }
  fseek(f, 0, SEEK_END);
  long n = ftell(f);
  fseek(f, 0, SEEK_SET);
  char *buf = malloc((size_t)n + 1);
  if (!buf || fread(buf, 1, (size_t)n, f) != (size_t)n) {
    fclose(f);
    free(buf);
    return NULL;
  }
  fclose(f);
  buf[n] = '\0';
  cJSON *j = cJSON_ParseWithLength(buf, (size_t)n);
  free(buf);
  return j;
}

static struct ts_version *pv(const char *s) {
  struct ts_version *v = NULL;
  struct ts_error err = {0};
  if (ts_version_parse(s, strlen(s), &v, &err) != TS_OK)
    return NULL;
  return v;
}

/* ---------------------------------------------------------------- versions */

static void run_versions(cJSON *root, struct tally *t) {
  cJSON *sorted = cJSON_GetObjectItem(root, "versions_sorted");
  int n = cJSON_GetArraySize(sorted);
  struct ts_version **vs = calloc((size_t)n, sizeof *vs);
  for (int i = 0; i < n; i++) {
    const char *s = cJSON_GetArrayItem(sorted, i)->valuestring;
    vs[i] = pv(s);
    check(t, vs[i] != NULL, "versions_sorted", s, "does not parse");
  }
  for (int i = 0; i < n; i++)
    for (int j = i + 1; j < n; j++) {
      if (!vs[i] || !vs[j])
        continue;
      int c1 = ts_version_cmp(vs[i], vs[j]), c2 = ts_version_cmp(vs[j], vs[i]);
      check(t, c1 < 0 && c2 > 0, "versions_sorted",
            cJSON_GetArrayItem(sorted, i)->valuestring,
            "not < '%s' (cmp %d/%d)", cJSON_GetArrayItem(sorted, j)->valuestring,
            c1, c2);
    }
  for (int i = 0; i < n; i++)
    ts_version_free(vs[i]);
  free(vs);

  cJSON *it;
  cJSON_ArrayForEach(it, cJSON_GetObjectItem(root, "invalid_versions")) {
    struct ts_version *v = pv(it->valuestring);
    check(t, v == NULL, "invalid_versions", it->valuestring, "parsed as '%s'",
          v ? ts_version_str(v) : "");
    ts_version_free(v);
  }
  cJSON_ArrayForEach(it, cJSON_GetObjectItem(root, "normalized")) {
    const char *in = cJSON_GetObjectItem(it, "input")->valuestring;
    const char *want = cJSON_GetObjectItem(it, "normalized")->valuestring;
    struct ts_version *v = pv(in);
    check(t, v && !strcmp(ts_version_str(v), want), "normalized", in,
          "got '%s', want '%s'", v ? ts_version_str(v) : "(invalid)", want);
    ts_version_free(v);
  }
  cJSON_ArrayForEach(it, cJSON_GetObjectItem(root, "equal_pairs")) {
    const char *a = cJSON_GetArrayItem(it, 0)->valuestring;
    const char *b = cJSON_GetArrayItem(it, 1)->valuestring;
    struct ts_version *va = pv(a), *vb = pv(b);
    check(t, va && vb && ts_version_cmp(va, vb) == 0, "equal_pairs", a,
          "not equal to '%s'", b);
    ts_version_free(va);
    ts_version_free(vb);
  }

  cJSON *props = cJSON_GetObjectItem(root, "properties");
  cJSON *list;
  cJSON_ArrayForEach(list, props) {
    const char *prop = list->string;
    cJSON_ArrayForEach(it, list) {
      const char *in = cJSON_GetObjectItem(it, "version")->valuestring;
      cJSON *want = cJSON_GetObjectItem(it, "expected");
      struct ts_version *v = pv(in);
      if (!v) {
        check(t, false, prop, in, "does not parse");
        continue;
      }
      bool ok = false;
      char got[256] = "";
      if (!strcmp(prop, "public") || !strcmp(prop, "base_version") ||
          !strcmp(prop, "local")) {
        const char *g = !strcmp(prop, "public")  ? ts_version_public(v)
                        : !strcmp(prop, "local") ? ts_version_local(v)
                                                 : ts_version_base(v);
        snprintf(got, sizeof got, "%s", g ? g : "null");
        ok = cJSON_IsNull(want) ? g == NULL
                                : (g && !strcmp(g, want->valuestring));
      } else if (!strcmp(prop, "epoch")) {
        snprintf(got, sizeof got, "%llu", ts_version_epoch(v));
        ok = (double)ts_version_epoch(v) == want->valuedouble;
      } else if (!strcmp(prop, "release")) {
        ok = (int)ts_version_release_count(v) == cJSON_GetArraySize(want);
        for (size_t i = 0; ok && i < ts_version_release_count(v); i++)
          ok = (double)ts_version_release_at(v, i) ==
               cJSON_GetArrayItem(want, (int)i)->valuedouble;
        snprintf(got, sizeof got, "%zu parts", ts_version_release_count(v));
      } else if (!strcmp(prop, "pre")) {
        char kind;
        unsigned long long num;
        bool has = ts_version_pre(v, &kind, &num);
        if (cJSON_IsNull(want)) {
          ok = !has;
        } else {
          const char *wk = cJSON_GetArrayItem(want, 0)->valuestring;
          ok = has && kind == wk[0] &&
               (double)num == cJSON_GetArrayItem(want, 1)->valuedouble;
        }
        snprintf(got, sizeof got, "%c%llu", has ? kind : '-', has ? num : 0);
      } else if (!strcmp(prop, "dev") || !strcmp(prop, "post")) {
        unsigned long long num;
        bool has = !strcmp(prop, "dev") ? ts_version_dev(v, &num)
                                        : ts_version_post(v, &num);
        ok = cJSON_IsNull(want) ? !has
                                : (has && (double)num == want->valuedouble);
        snprintf(got, sizeof got, "%s%llu", has ? "" : "none ", num);
      } else if (!strncmp(prop, "is_", 3)) {
        bool g = !strcmp(prop, "is_prerelease")   ? ts_version_is_prerelease(v)
                 : !strcmp(prop, "is_devrelease") ? ts_version_is_devrelease(v)
                                                  : ts_version_is_postrelease(v);
        ok = g == cJSON_IsTrue(want);
        snprintf(got, sizeof got, "%s", g ? "true" : "false");
      } else {
        snprintf(got, sizeof got, "unknown property");
      }
      check(t, ok, prop, in, "got %s", got);
      ts_version_free(v);
    }
  }

  cJSON_ArrayForEach(it, cJSON_GetObjectItem(root, "canonicalize_version")) {
    const char *in = cJSON_GetObjectItem(it, "input")->valuestring;
    const char *want = cJSON_GetObjectItem(it, "expected")->valuestring;
    bool strip = cJSON_IsTrue(cJSON_GetObjectItem(it, "strip_trailing_zero"));
    char *got = ts_version_canonicalize(in, strlen(in), strip);
    check(t, got && !strcmp(got, want), "canonicalize_version", in,
          "got '%s', want '%s'", got ? got : "(null)", want);
    free(got);
  }
}

int main(int argc, char **argv) {
  if (argc < 2) {
    fprintf(stderr, "usage: %s SHARED_CONFORMANCE_DIR\n", argv[0]);
    return 2;
  }
  struct stat st;
  if (stat(argv[1], &st) != 0) {
    printf("%s absent: skipped\n", argv[1]);
    return 77;
  }
  int bad = 0;
  cJSON *root = load_json(argv[1], "pep440_versions.json");
  if (!root)
    return 1;
  struct tally t = {0};
  run_versions(root, &t);
  printf("pep440_versions.json: %d passed, %d failed (%d known exceptions)\n",
         t.passed, t.failed, t.excepted);
  bad |= t.failed > 0;
  cJSON_Delete(root);

  return bad ? 1 : 0;
}
