/*
 * bench_pep_parse — parse throughput of pep/ (versions/s, requirements/s),
 * plus the two hot resolver operations (version compare, specifier
 * contains).  Inputs: the packaging conformance vectors.
 *
 * Usage: bench_pep_parse [SHARED_DIR] [SECONDS_PER_TEST]
 */
#include <cjson/cJSON.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "pep/requirement.h"
#include "pep/specifier.h"
#include "pep/version.h"

struct strs {
  char **v;
  size_t n, cap;
};

static void push(struct strs *s, const char *x) {
  if (s->n == s->cap) {
    s->cap = s->cap ? s->cap * 2 : 256;
    s->v = realloc(s->v, s->cap * sizeof *s->v);
    if (!s->v)
      exit(1);
  }
  s->v[s->n++] = strdup(x);
}

static cJSON *load(const char *dir, const char *name) {
  char path[4096];
  snprintf(path, sizeof path, "%s/conformance/packaging/%s", dir, name);
  FILE *f = fopen(path, "rb");
  if (!f) {
    fprintf(stderr, "bench_pep_parse: cannot open %s\n", path);
    exit(77);
  }
  fseek(f, 0, SEEK_END);
  long n = ftell(f);
  fseek(f, 0, SEEK_SET);
  char *b = malloc((size_t)n + 1);
  if (!b || fread(b, 1, (size_t)n, f) != (size_t)n)
    exit(1);
  fclose(f);
  cJSON *j = cJSON_ParseWithLength(b, (size_t)n);
  free(b);
  return j;
}

static double now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

int main(int argc, char **argv) {
  const char *dir = argc > 1 ? argv[1] : TS_SHARED_DIR;
  double secs = argc > 2 ? strtod(argv[2], NULL) : 1.0;
  struct strs vers = {0}, reqs = {0};
  cJSON *j = load(dir, "pep440_versions.json"), *it;
  cJSON_ArrayForEach(it, cJSON_GetObjectItem(j, "versions_sorted"))
    push(&vers, it->valuestring);
  cJSON_ArrayForEach(it, cJSON_GetObjectItem(j, "normalized"))
    push(&vers, cJSON_GetObjectItem(it, "input")->valuestring);
  cJSON_Delete(j);
  j = load(dir, "pep508_requirements.json");
  cJSON_ArrayForEach(it, cJSON_GetObjectItem(j, "valid"))
    push(&reqs, cJSON_GetObjectItem(it, "input")->valuestring);
  cJSON_Delete(j);

  /* versions/s */
  size_t count = 0, ok = 0;
  double t0 = now(), t;
  do {
    for (size_t i = 0; i < vers.n; i++) {
      struct ts_version *v;
      if (ts_version_parse(vers.v[i], strlen(vers.v[i]), &v, NULL) == TS_OK) {
        ok++;
        ts_version_free(v);
      }
    }
    count += vers.n;
  } while ((t = now() - t0) < secs);
  printf("versions:      %10.0f parses/s (%zu inputs, %zu valid per pass)\n",
         (double)count / t, vers.n, ok * vers.n / count);

  /* requirements/s */
  count = 0;
  ok = 0;
  t0 = now();
  do {
    for (size_t i = 0; i < reqs.n; i++) {
      struct ts_requirement *r;
      if (ts_requirement_parse(reqs.v[i], strlen(reqs.v[i]), &r, NULL) ==
          TS_OK) {
        ok++;
        ts_requirement_free(r);
      }
    }
    count += reqs.n;
  } while ((t = now() - t0) < secs);
  printf("requirements:  %10.0f parses/s (%zu inputs)\n", (double)count / t,
         reqs.n);

  /* compare/s and contains/s over the parsed versions */
  struct ts_version **pv = calloc(vers.n, sizeof *pv);
  size_t np = 0;
  for (size_t i = 0; i < vers.n; i++)
    if (ts_version_parse(vers.v[i], strlen(vers.v[i]), &pv[np], NULL) == TS_OK)
      np++;
  long sink = 0;
  count = 0;
  t0 = now();
  do {
    for (size_t i = 0; i + 1 < np; i++)
      sink += ts_version_cmp(pv[i], pv[i + 1]);
    count += np - 1;
  } while ((t = now() - t0) < secs);
  printf("compare:       %10.0f cmp/s\n", (double)count / t);

  struct ts_specset *set;
  const char *spec = ">=1.0,!=1.5.*,<3,~=2.0";
  if (ts_specset_parse(spec, strlen(spec), &set, NULL) != TS_OK)
    return 1;
  count = 0;
  t0 = now();
  do {
    for (size_t i = 0; i < np; i++)
      sink += ts_specset_contains(set, pv[i], TS_PRE_DEFAULT);
    count += np;
  } while ((t = now() - t0) < secs);
  printf("contains:      %10.0f contains/s ('%s')\n", (double)count / t, spec);
  ts_specset_free(set);
  for (size_t i = 0; i < np; i++)
    ts_version_free(pv[i]);
  free(pv);
  for (size_t i = 0; i < vers.n; i++)
    free(vers.v[i]);
  for (size_t i = 0; i < reqs.n; i++)
    free(reqs.v[i]);
  free(vers.v);
  free(reqs.v);
  return sink == 42 ? 2 : 0; /* keep the work observable */
}
