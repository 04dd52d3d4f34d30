/*
 * conf_pep_names.c — runs every vector of packaging/names_and_filenames.json
 * (extracted from pypa/packaging 26.3) through pep/name.h and
 * pep/filename.h.
 *
 * Usage: conf_pep_names SHARED_CONFORMANCE_DIR.  Prints "N passed, N failed"
 * per section and in total; exits 77 when the directory is absent, 1 on any
 * failure.  There are no exceptions: every vector must pass.
 */
#include <cjson/cJSON.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "conf_support.h"
#include "pep/filename.h"
#include "pep/name.h"

static const char *str_of(const cJSON *o, const char *key)
{
  const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);
  return cJSON_IsString(v) ? v->valuestring : NULL;
}

static int cmp_str(const void *a, const void *b)
{
  return strcmp(*(char *const *)a, *(char *const *)b);
}

static void report(const char *section, const struct tally *t)
{
  printf("%s: %d passed, %d failed\n", section, t->passed, t->failed);
}

static void run_names(const cJSON *root, struct tally *all)
{
  struct tally t = {0};
  const cJSON *c;
  cJSON_ArrayForEach(c, cJSON_GetObjectItem(root, "canonicalize_name")) {
    const char *in = str_of(c, "input"), *exp = str_of(c, "expected");
    bool valid = cJSON_IsTrue(cJSON_GetObjectItem(c, "valid"));
    char *got = ts_name_normalize(in, strlen(in));
    /* Normalising is also idempotent and agrees with ts_name_eq. */
    char *again = ts_name_normalize(got, strlen(got));
    check(&t, strcmp(got, exp) == 0 &&
                  ts_name_is_valid(in, strlen(in)) == valid &&
                  strcmp(again, got) == 0 &&
                  ts_name_eq(in, strlen(in), exp, strlen(exp)),
          "canonicalize_name", in, "got '%s' (valid %d), expected '%s' (valid %d)",
          got, ts_name_is_valid(in, strlen(in)), exp, valid);
    free(again);
    free(got);
  }
  report("canonicalize_name", &t);
  all->passed += t.passed;
  all->failed += t.failed;

  t = (struct tally){0};
  cJSON_ArrayForEach(c, cJSON_GetObjectItem(root, "is_normalized_name")) {
    const char *in = str_of(c, "name");
    bool exp = cJSON_IsTrue(cJSON_GetObjectItem(c, "is_normalized"));
    check(&t, ts_name_is_normalized(in, strlen(in)) == exp,
          "is_normalized_name", in, "expected %d", exp);
  }
  report("is_normalized_name", &t);
  all->passed += t.passed;
  all->failed += t.failed;
}

static void check_wheel(struct tally *t, const cJSON *c)
{
  const char *fn = str_of(c, "filename");
  struct ts_wheel_filename *w = NULL;
  struct ts_error err = {0};
  if (ts_wheel_filename_parse(fn, strlen(fn), &w, &err) != TS_OK) {
    check(t, false, "wheel_filenames", fn, "rejected: %s", err.detail);
    return;
  }
  bool ok = strcmp(w->normalized_name, str_of(c, "name")) == 0 &&
            strcmp(ts_version_str(w->version), str_of(c, "version")) == 0;
  const cJSON *build = cJSON_GetObjectItem(c, "build");
  if (cJSON_IsNull(build)) {
    ok = ok && w->build == NULL;
  } else {
    const cJSON *num = cJSON_GetArrayItem(build, 0);
    const cJSON *suf = cJSON_GetArrayItem(build, 1);
    ok = ok && w->build && (double)w->build_number == num->valuedouble &&
         strcmp(w->build_suffix, suf->valuestring) == 0;
  }
  const cJSON *tags = cJSON_GetObjectItem(c, "tags");
  size_t n = (size_t)cJSON_GetArraySize(tags);
  if (n != w->ntags) {
    ok = false;
  } else {
    char **got = calloc(n, sizeof *got);
    for (size_t i = 0; i < n; i++)
      got[i] = ts_tag_str(&w->tags[i]);
    qsort(got, n, sizeof *got, cmp_str);
    for (size_t i = 0; i < n; i++) {
      ok = ok && strcmp(got[i], cJSON_GetArrayItem(tags, (int)i)->valuestring) == 0;
      free(got[i]);
    }
    free(got);
  }
  check(t, ok, "wheel_filenames", fn, "name '%s' version '%s' build '%s' %zu tags",
        w->normalized_name, ts_version_str(w->version),
        w->build ? w->build : "(none)", w->ntags);
  ts_wheel_filename_free(w);
}

static void run_filenames(const cJSON *root, struct tally *all)
{
  struct tally t = {0};
  const cJSON *c;
  cJSON_ArrayForEach(c, cJSON_GetObjectItem(root, "wheel_filenames"))
    check_wheel(&t, c);
  cJSON_ArrayForEach(c, cJSON_GetObjectItem(root, "wheel_filenames_unsorted_tag_sets")) {
    struct ts_wheel_filename *w = NULL;
    struct ts_error err = {0};
    enum ts_code rc = ts_wheel_filename_parse(c->valuestring,
                                              strlen(c->valuestring), &w, &err);
    check(&t, rc == TS_OK, "wheel_filenames_unsorted_tag_sets", c->valuestring,
          "rejected: %s", err.detail);
    ts_wheel_filename_free(w);
  }
  cJSON_ArrayForEach(c, cJSON_GetObjectItem(root, "invalid_wheel_filenames")) {
    struct ts_wheel_filename *w = NULL;
    struct ts_error err = {0};
    enum ts_code rc = ts_wheel_filename_parse(c->valuestring,
                                              strlen(c->valuestring), &w, &err);
    check(&t, rc != TS_OK && w == NULL && err.detail[0],
          "invalid_wheel_filenames", c->valuestring, "accepted");
    ts_wheel_filename_free(w);
  }
  report("wheel filenames", &t);
  all->passed += t.passed;
  all->failed += t.failed;

  t = (struct tally){0};
  cJSON_ArrayForEach(c, cJSON_GetObjectItem(root, "sdist_filenames")) {
    const char *fn = str_of(c, "filename");
    struct ts_sdist_filename *sd = NULL;
    struct ts_error err = {0};
    if (ts_sdist_filename_parse(fn, strlen(fn), &sd, &err) != TS_OK) {
      check(&t, false, "sdist_filenames", fn, "rejected: %s", err.detail);
      continue;
    }
    check(&t, strcmp(sd->normalized_name, str_of(c, "name")) == 0 &&
                  strcmp(ts_version_str(sd->version), str_of(c, "version")) == 0,
          "sdist_filenames", fn, "got '%s' '%s'", sd->normalized_name,
          ts_version_str(sd->version));
    ts_sdist_filename_free(sd);
  }
  cJSON_ArrayForEach(c, cJSON_GetObjectItem(root, "invalid_sdist_filenames")) {
    struct ts_sdist_filename *sd = NULL;
    struct ts_error err = {0};
    enum ts_code rc = ts_sdist_filename_parse(c->valuestring,
                                              strlen(c->valuestring), &sd, &err);
    check(&t, rc != TS_OK && sd == NULL, "invalid_sdist_filenames",
          c->valuestring, "accepted");
    ts_sdist_filename_free(sd);
  }
  report("sdist filenames", &t);
  all->passed += t.passed;
  all->failed += t.failed;
}

int main(int argc, char **argv)
{
  struct stat st;
  if (argc < 2 || stat(argv[1], &st) != 0) {
    printf("conformance directory %s absent: skipped\n",
           argc < 2 ? "(none given)" : argv[1]);
    return 77;
  }
  char path[4096];
  snprintf(path, sizeof path, "%s/packaging/names_and_filenames.json", argv[1]);
  cJSON *root = conf_load_json(path, NULL);
  if (!root) {
    printf("%s absent or unreadable\n", path);
    return 1; /* the conformance directory exists: its data must too */
  }
  struct tally all = {0};
  run_names(root, &all);
  run_filenames(root, &all);
  cJSON_Delete(root);
  printf("%d passed, %d failed\n", all.passed, all.failed);
  return all.failed || all.passed == 0 ? 1 : 0;
}
