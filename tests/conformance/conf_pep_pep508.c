/*
 * conf_pep_pep508.c — runs every vector of packaging/pep508_requirements.json
 * and packaging/pep508_markers.json (from pypa/packaging 26.3) through
 * pep/requirement.h.
 *
 * Usage: conf_pep_pep508 SHARED_CONFORMANCE_DIR.  Prints "N passed, N failed"
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

#include "conf_support.h"
#include "pep/requirement.h"

/* Cases we deliberately do not follow, with the reason (section + input). */
static const struct conf_exception exceptions[] = {
    {NULL, NULL, NULL},
};

static struct ts_requirement *pr(const char *s, struct ts_error *err) {
  struct ts_requirement *r = NULL;
  if (ts_requirement_parse(s, strlen(s), &r, err) != TS_OK)
    return NULL;
  return r;
}

static struct ts_marker *pm(const char *s) {
  struct ts_marker *m = NULL;
  if (ts_marker_parse(s, strlen(s), &m, NULL) != TS_OK)
    return NULL;
  return m;
}

static const char *jstr(cJSON *o, const char *k) {
  cJSON *j = cJSON_GetObjectItem(o, k);
  return cJSON_IsString(j) ? j->valuestring : NULL;
}

/* ------------------------------------------------------------ requirements */

static bool same_specifiers(const struct ts_specset *got, const char *want) {
  struct ts_specset *w = NULL;
  if (ts_specset_parse(want, strlen(want), &w, NULL) != TS_OK)
    return false;
  bool ok = !strcmp(ts_specset_str(got), ts_specset_str(w));
  ts_specset_free(w);
  return ok;
}

static void run_requirements(cJSON *root, struct tally *t) {
  cJSON *it;
  cJSON_ArrayForEach(it, cJSON_GetObjectItem(root, "valid")) {
    const char *in = jstr(it, "input");
    struct ts_error err = {0};
    struct ts_requirement *r = pr(in, &err);
    if (!r) {
      check(t, false, "valid", in, "rejected: %s", err.detail);
      continue;
    }
    const char *url = jstr(it, "url"), *marker = jstr(it, "marker");
    cJSON *extras = cJSON_GetObjectItem(it, "extras");
    bool ok = !strcmp(r->name, jstr(it, "name"));
    const char *why = ok ? NULL : "name";
    if (ok && (int)r->nextras_written != cJSON_GetArraySize(extras)) {
      ok = false;
      why = "extras count";
    }
    for (size_t i = 0; ok && i < r->nextras_written; i++)
      if (strcmp(r->extras_written[i],
                 cJSON_GetArrayItem(extras, (int)i)->valuestring)) {
        ok = false;
        why = "extras";
      }
    if (ok && ((url == NULL) != (r->url == NULL) || (url && strcmp(url, r->url)))) {
      ok = false;
      why = "url";
    }
    if (ok && !same_specifiers(r->specifier, jstr(it, "specifier"))) {
      ok = false;
      why = "specifier";
    }
    if (ok && ((marker == NULL) != (r->marker == NULL) ||
               (marker && strcmp(marker, ts_marker_str(r->marker))))) {
      ok = false;
      why = "marker";
    }
    check(t, ok, "valid", in, "%s differs (specifier '%s', marker '%s')",
          why ? why : "", ts_specset_str(r->specifier),
          r->marker ? ts_marker_str(r->marker) : "(none)");
    ts_requirement_free(r);
  }
  cJSON_ArrayForEach(it, cJSON_GetObjectItem(root, "valid_markers_in_requirement")) {
    struct ts_error err = {0};
    struct ts_requirement *r = pr(it->valuestring, &err);
    check(t, r != NULL, "valid_markers_in_requirement", it->valuestring,
          "rejected: %s", err.detail);
    ts_requirement_free(r);
  }
  cJSON_ArrayForEach(it, cJSON_GetObjectItem(root, "invalid")) {
    const char *in = jstr(it, "input");
    struct ts_error err = {0};
    struct ts_requirement *r = pr(in, &err);
    check(t, r == NULL && strstr(err.detail, "position") != NULL, "invalid",
          in, "accepted, or no position in '%s'", err.detail);
    ts_requirement_free(r);
  }
  cJSON_ArrayForEach(it, cJSON_GetObjectItem(root, "normalized_str")) {
    const char *in = jstr(it, "input"), *want = jstr(it, "expected");
    struct ts_requirement *r = pr(in, NULL);
    char *got = r ? ts_requirement_str(r) : NULL;
    check(t, got && !strcmp(got, want), "normalized_str", in,
          "got '%s', want '%s'", got ? got : "(invalid)", want);
    /* The canonical text parses back to an equal requirement. */
    struct ts_requirement *again = got ? pr(got, NULL) : NULL;
    check(t, again && ts_requirement_equal(r, again), "normalized_str roundtrip",
          in, "'%s' does not parse back equal", got ? got : "");
    ts_requirement_free(again);
    free(got);
    ts_requirement_free(r);
  }
  for (int pass = 0; pass < 2; pass++) {
    const char *sec = pass ? "different_pairs" : "equal_pairs";
    cJSON_ArrayForEach(it, cJSON_GetObjectItem(root, sec)) {
      const char *a = cJSON_GetArrayItem(it, 0)->valuestring;
      const char *b = cJSON_GetArrayItem(it, 1)->valuestring;
      struct ts_requirement *ra = pr(a, NULL), *rb = pr(b, NULL);
      bool ok = ra && rb && ts_requirement_equal(ra, rb) == !pass &&
                ts_requirement_equal(rb, ra) == !pass;
      check(t, ok, sec, a, "vs '%s'", b);
      ts_requirement_free(ra);
      ts_requirement_free(rb);
    }
  }
}

/* ---------------------------------------------------------------- markers */

/* The base environment (a Linux CPython 3.12 host); each case overrides it. */
static void default_env(struct ts_marker_env *e) {
  e->implementation_name = "cpython";
  e->implementation_version = "3.12.3";
  e->os_name = "posix";
  e->platform_machine = "x86_64";
  e->platform_python_implementation = "CPython";
  e->platform_release = "6.1.0-13-amd64";
  e->platform_system = "Linux";
  e->platform_version = "#1 SMP PREEMPT_DYNAMIC Debian 6.1.55-1";
  e->python_full_version = "3.12.3";
  e->python_version = "3.12";
  e->sys_platform = "linux";
}

static void run_evaluate(cJSON *it, struct tally *t) {
  const char *marker = jstr(it, "marker");
  const char *ctx = jstr(it, "context");
  const char *error = jstr(it, "error");
  bool want = cJSON_IsTrue(cJSON_GetObjectItem(it, "expected"));
  struct ts_marker *m = pm(marker);
  if (!m) {
    check(t, false, "evaluate", marker, "does not parse");
    return;
  }
  struct ts_marker_env env;
  default_env(&env);
  struct ts_marker_eval_opts o = {TS_MARKER_METADATA, NULL, NULL, 0, NULL, 0};
  if (ctx && !strcmp(ctx, "requirement"))
    o.context = TS_MARKER_REQUIREMENT;
  else if (ctx && !strcmp(ctx, "lock_file"))
    o.context = TS_MARKER_LOCK_FILE;
  const char *extras[16], *groups[16];
  cJSON *kv;
  cJSON_ArrayForEach(kv, cJSON_GetObjectItem(it, "environment")) {
    const char *k = kv->string, *v = cJSON_IsString(kv) ? kv->valuestring : NULL;
    if (!strcmp(k, "extra")) o.extra = v;
    else if (!strcmp(k, "implementation_name")) env.implementation_name = v;
    else if (!strcmp(k, "implementation_version")) env.implementation_version = v;
    else if (!strcmp(k, "os_name")) env.os_name = v;
    else if (!strcmp(k, "platform_machine")) env.platform_machine = v;
    else if (!strcmp(k, "platform_python_implementation")) env.platform_python_implementation = v;
    else if (!strcmp(k, "platform_release")) env.platform_release = v;
    else if (!strcmp(k, "platform_system")) env.platform_system = v;
    else if (!strcmp(k, "platform_version")) env.platform_version = v;
    else if (!strcmp(k, "python_full_version")) env.python_full_version = v;
    else if (!strcmp(k, "python_version")) env.python_version = v;
    else if (!strcmp(k, "sys_platform")) env.sys_platform = v;
    else if (!strcmp(k, "extras") || !strcmp(k, "dependency_groups")) {
      const char **dst = !strcmp(k, "extras") ? extras : groups;
      size_t n = 0;
      cJSON *x;
      cJSON_ArrayForEach(x, kv) if (n < 16) dst[n++] = x->valuestring;
      if (dst == extras) {
        o.extras = extras;
        o.nextras = n;
      } else {
        o.dependency_groups = groups;
        o.ngroups = n;
      }
    }
    /* other keys (upstream's {"a": "a"}) name no PEP 508 variable */
  }
  bool got = false;
  struct ts_error err = {0};
  enum ts_code rc = ts_marker_evaluate(m, &env, &o, &got, &err);
  if (error) {
    const char *needle = !strcmp(error, "UndefinedComparison")
                             ? "undefined comparison"
                             : "undefined environment name";
    check(t, rc == TS_E_INVALID && strstr(err.detail, needle), "evaluate",
          marker, "want %s, got rc %d '%s'", error, rc, err.detail);
  } else {
    check(t, rc == TS_OK && got == want, "evaluate", marker,
          "want %d, got %d (rc %d: %s)", want, got, rc, err.detail);
  }
  ts_marker_free(m);
}

static void run_markers(cJSON *root, struct tally *t) {
  static const char *const valid_sections[] = {
      "valid", "valid_legacy_pep345", "valid_legacy_setuptools"};
  cJSON *it;
  for (size_t s = 0; s < 3; s++)
    cJSON_ArrayForEach(it, cJSON_GetObjectItem(root, valid_sections[s])) {
      struct ts_error err = {0};
      struct ts_marker *m = NULL;
      enum ts_code rc = ts_marker_parse(it->valuestring,
                                        strlen(it->valuestring), &m, &err);
      check(t, rc == TS_OK, valid_sections[s], it->valuestring,
            "rejected: %s", err.detail);
      /* The printed form parses back to the same text. */
      struct ts_marker *again = m ? pm(ts_marker_str(m)) : NULL;
      check(t, !m || (again && !strcmp(ts_marker_str(again), ts_marker_str(m))),
            "marker roundtrip", it->valuestring, "'%s' does not round-trip",
            m ? ts_marker_str(m) : "");
      ts_marker_free(again);
      ts_marker_free(m);
    }
  cJSON_ArrayForEach(it, cJSON_GetObjectItem(root, "invalid")) {
    struct ts_error err = {0};
    struct ts_marker *m = NULL;
    enum ts_code rc = ts_marker_parse(it->valuestring,
                                      strlen(it->valuestring), &m, &err);
    check(t, rc == TS_E_PARSE && strstr(err.detail, "position"), "invalid",
          it->valuestring, "accepted or no position: %s", err.detail);
    ts_marker_free(m);
  }
  cJSON_ArrayForEach(it, cJSON_GetObjectItem(root, "normalized_str")) {
    const char *in = jstr(it, "input"), *want = jstr(it, "expected");
    struct ts_marker *m = pm(in);
    check(t, m && !strcmp(ts_marker_str(m), want), "normalized_str", in,
          "got '%s', want '%s'", m ? ts_marker_str(m) : "(invalid)", want);
    ts_marker_free(m);
  }
  cJSON_ArrayForEach(it, cJSON_GetObjectItem(root, "different_pairs")) {
    const char *a = cJSON_GetArrayItem(it, 0)->valuestring;
    const char *b = cJSON_GetArrayItem(it, 1)->valuestring;
    struct ts_marker *ma = pm(a), *mb = pm(b);
    check(t, ma && mb && strcmp(ts_marker_str(ma), ts_marker_str(mb)),
          "different_pairs", a, "equal to '%s'", b);
    ts_marker_free(ma);
    ts_marker_free(mb);
  }
  cJSON_ArrayForEach(it, cJSON_GetObjectItem(root, "evaluate"))
    run_evaluate(it, t);
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
  cJSON *root = conf_load_json(argv[1], "packaging/pep508_requirements.json");
  if (!root)
    return 1;
  struct tally t = {.exceptions = exceptions};
  run_requirements(root, &t);
  printf("pep508_requirements.json: %d passed, %d failed (%d known "
         "exceptions)\n",
         t.passed, t.failed, t.excepted);
  bad |= t.failed > 0 || t.passed == 0; /* no case run = the data moved */
  cJSON_Delete(root);

  root = conf_load_json(argv[1], "packaging/pep508_markers.json");
  if (!root)
    return 1;
  t = (struct tally){.exceptions = exceptions};
  run_markers(root, &t);
  printf("pep508_markers.json: %d passed, %d failed (%d known exceptions)\n",
         t.passed, t.failed, t.excepted);
  bad |= t.failed > 0 || t.passed == 0; /* no case run = the data moved */
  cJSON_Delete(root);
  return bad ? 1 : 0;
}
