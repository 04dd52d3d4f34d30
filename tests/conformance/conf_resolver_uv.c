/*
 * conf_resolver_uv: uv's resolver scenarios (shared/conformance/uv/
 * scenarios.json), every non-universal one, through the public resolver API
 * with an in-memory index built from the scenario (packse's layout: one
 * wheel per tag, an sdist, Requires-Python on every file, PEP 592 yanks).
 * sdists are candidates, as for install (which builds them), and uv's
 * no_build list is pip's --only-binary.
 *
 * Checked: satisfiability, and every expected package at exactly the
 * expected version.  argv[1] = shared conformance dir; exit 77 when absent.
 * Differences we keep on purpose are listed in `argued[]` with the reason;
 * they are reported as skipped, anything else fails the run.
 */
#include <cjson/cJSON.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "core/fs.h"
#include "resolver_mem.h"

#define PIP_PRE                                                             \
  "pip (and PEP 440 on the combined specifier) admits pre-releases only "   \
  "when no final release fits the specifiers; a final fits here, so pip "   \
  "fails as we do, while uv falls back to a pre-release after the solver "  \
  "rejects every final"

struct argued {
  const char *name;
  const char *why;
};

/* Scenarios where torchsolve deliberately differs from uv. */
static const struct argued argued[] = {
    {"python-less-than-current",
     "uv ignores upper bounds of Requires-Python (<=3.8 with Python 3.9); "
     "pip refuses the version ('requires a different Python') and so do we"},
    /* pip decides pre-releases on the combined specifier of a project:
     * `c>=1.0.0` admits the final c 1.0.0, so pip never considers c's
     * pre-releases and reports ResolutionImpossible.  uv falls back to a
     * pre-release when every final is rejected later by the solver. */
    {"prerelease-fallback-after-stable-rejected", PIP_PRE},
    {"prerelease-capped-union-alternate-parent", PIP_PRE},
    {"prerelease-capped-union-backtrack", PIP_PRE},
};

static const char *argued_reason(const char *name) {
  for (size_t i = 0; i < sizeof argued / sizeof *argued; i++)
    if (strcmp(argued[i].name, name) == 0)
      return argued[i].why;
  return NULL;
}

static const char **str_array(const cJSON *arr, size_t *n) {
  *n = (size_t)cJSON_GetArraySize(arr);
  const char **v = calloc(*n + 1, sizeof *v);
  if (!v)
    abort();
  size_t i = 0;
  const cJSON *it;
  cJSON_ArrayForEach(it, arr) v[i++] = cJSON_GetStringValue(it);
  return v;
}

static void build_index(const cJSON *packages, struct mem_index *ix) {
  const cJSON *pkg;
  cJSON_ArrayForEach(pkg, packages) {
    struct mem_proj *p = mem_project(ix, pkg->string);
    char *dist = mem_dist_name(pkg->string);
    const cJSON *ver;
    cJSON_ArrayForEach(ver, pkg) {
      const char *v = ver->string;
      const char *rp =
          cJSON_GetStringValue(cJSON_GetObjectItem(ver, "requires_python"));
      bool yanked = cJSON_IsTrue(cJSON_GetObjectItem(ver, "yanked"));
      char fname[1024];
      if (cJSON_IsTrue(cJSON_GetObjectItem(ver, "wheel"))) {
        const cJSON *tag;
        cJSON_ArrayForEach(tag, cJSON_GetObjectItem(ver, "wheel_tags")) {
          snprintf(fname, sizeof fname, "%s-%s-%s.whl", dist, v,
                   cJSON_GetStringValue(tag));
          mem_add_file(p, fname, rp, yanked);
        }
      }
      if (cJSON_IsTrue(cJSON_GetObjectItem(ver, "sdist"))) {
        snprintf(fname, sizeof fname, "%s-%s.tar.gz", dist, v);
        mem_add_file(p, fname, rp, yanked);
      }
      size_t nreqs;
      const char **reqs = str_array(cJSON_GetObjectItem(ver, "requires"),
                                    &nreqs);
      const char *xn[256], *xr[256];
      size_t nx = 0;
      const cJSON *ex;
      cJSON_ArrayForEach(ex, cJSON_GetObjectItem(ver, "extras")) {
        if (cJSON_GetArraySize(ex) == 0 && nx < 256) {
          xn[nx] = ex->string;
          xr[nx++] = NULL;
        }
        const cJSON *r;
        cJSON_ArrayForEach(r, ex) {
          if (nx < 256) {
            xn[nx] = ex->string;
            xr[nx++] = cJSON_GetStringValue(r);
          }
        }
      }
      mem_add_meta(p, v,
                   mem_metadata(pkg->string, v, rp, reqs, nreqs, xn, xr, nx));
      free(reqs);
    }
    free(dist);
  }
}

static bool version_eq(const char *a, const char *b) {
  struct ts_version *x = NULL, *y = NULL;
  bool eq = false;
  if (ts_version_parse(a, strlen(a), &x, NULL) == TS_OK &&
      ts_version_parse(b, strlen(b), &y, NULL) == TS_OK)
    eq = ts_version_cmp(x, y) == 0 &&
         strcmp(ts_version_local(x) ? ts_version_local(x) : "",
                ts_version_local(y) ? ts_version_local(y) : "") == 0;
  ts_version_free(x);
  ts_version_free(y);
  return eq;
}

/* Returns NULL when the scenario passes, else a malloc'd reason. */
static char *run_scenario(const cJSON *sc, bool verbose) {
  const cJSON *ro = cJSON_GetObjectItem(sc, "resolver_options");
  const cJSON *env = cJSON_GetObjectItem(sc, "environment");
  const cJSON *expected = cJSON_GetObjectItem(sc, "expected");
  const char *python =
      cJSON_GetStringValue(cJSON_GetObjectItem(ro, "python"));
  if (!python)
    python = cJSON_GetStringValue(cJSON_GetObjectItem(env, "python"));
  const char *plat =
      cJSON_GetStringValue(cJSON_GetObjectItem(ro, "python_platform"));
  /* uv's test machines: x86_64 glibc Linux; manylinux2014 = glibc 2.17 */
  int glibc_minor = plat ? 17 : 35;
  struct mem_target tg;
  if (!mem_target_init(&tg, python, 2, glibc_minor, "x86_64"))
    return mem_strdup("cannot build target");

  struct mem_index ix = {0};
  build_index(cJSON_GetObjectItem(sc, "packages"), &ix);

  size_t nroots;
  const char **roots =
      str_array(cJSON_GetObjectItem(cJSON_GetObjectItem(sc, "root"),
                                    "requires"),
                &nroots);
  struct ts_requirement **reqs = calloc(nroots + 1, sizeof *reqs);
  char *fail = NULL;
  struct ts_error err = {0};
  for (size_t i = 0; i < nroots && !fail; i++)
    if (ts_requirement_parse(roots[i], strlen(roots[i]), &reqs[i], &err) !=
        TS_OK) {
      size_t n = strlen(err.detail) + 64;
      fail = malloc(n);
      snprintf(fail, n, "bad root requirement: %s", err.detail);
    }
  size_t nnb, nnbuild;
  const char **no_binary =
      str_array(cJSON_GetObjectItem(ro, "no_binary"), &nnb);
  /* uv's --no-build-package is pip's --only-binary */
  const char **no_build =
      str_array(cJSON_GetObjectItem(ro, "no_build"), &nnbuild);
  const char *resolution =
      cJSON_GetStringValue(cJSON_GetObjectItem(ro, "resolution"));
  struct ts_resolver_request req = {
      .requirements = (const struct ts_requirement *const *)reqs,
      .nrequirements = nroots,
      .no_binary = no_binary,
      .nno_binary = nnb,
      .only_binary = no_build,
      .nonly_binary = nnbuild,
      .sdists = true, /* the CLI builds them (source/build.h) */
      .pre = cJSON_IsTrue(cJSON_GetObjectItem(ro, "prereleases")),
      .prefetch = 2,
      .resolution = !resolution                     ? TS_RESOLUTION_HIGHEST
                    : !strcmp(resolution, "lowest") ? TS_RESOLUTION_LOWEST
                    : !strcmp(resolution, "lowest-direct")
                        ? TS_RESOLUTION_LOWEST_DIRECT
                        : TS_RESOLUTION_HIGHEST,
  };
  struct ts_resolver_provider prov = {.ctx = &ix, .get_pages = mem_get_pages,
                                      .get_metadata = mem_get_metadata};
  struct ts_resolution *res = NULL;
  enum ts_code c = TS_OK;
  if (!fail)
    c = ts_resolver_resolve(&req, &tg.target, &prov, &res, &err);
  bool sat = cJSON_IsTrue(cJSON_GetObjectItem(expected, "satisfiable"));
  char buf[2048];
  buf[0] = '\0';
  if (fail) {
    /* already set */
  } else if (c != TS_OK && c != TS_E_RESOLVE) {
    snprintf(buf, sizeof buf, "error %s: %s", ts_code_name(c), err.detail);
  } else if (sat && c != TS_OK) {
    snprintf(buf, sizeof buf, "expected a resolution, got: %s",
             res && res->why.nlines ? res->why.lines[0] : err.detail);
  } else if (!sat && c == TS_OK) {
    size_t len = (size_t)snprintf(buf, sizeof buf, "expected failure, got:");
    for (size_t i = 0; i < res->nitems && len < sizeof buf - 64; i++)
      len += (size_t)snprintf(buf + len, sizeof buf - len, " %s==%s",
                              res->items[i].name, res->items[i].version);
  } else if (sat) {
    const cJSON *pkg;
    cJSON_ArrayForEach(pkg, cJSON_GetObjectItem(expected, "packages")) {
      char *norm = ts_name_normalize(pkg->string, strlen(pkg->string));
      const char *want = cJSON_GetStringValue(pkg);
      const char *got = NULL;
      for (size_t i = 0; i < res->nitems; i++)
        if (strcmp(res->items[i].name, norm) == 0)
          got = res->items[i].version;
      free(norm);
      if (!got || !version_eq(got, want)) {
        snprintf(buf, sizeof buf, "%s: expected %s, got %s", pkg->string,
                 want, got ? got : "(not installed)");
        break;
      }
    }
  }
  if (buf[0] && !fail)
    fail = mem_strdup(buf);
  if (verbose && res) {
    for (size_t i = 0; i < res->nitems; i++)
      fprintf(stderr, "    %s %s\n", res->items[i].name,
              res->items[i].version);
    for (size_t i = 0; i < res->why.nlines; i++)
      fprintf(stderr, "    | %s\n", res->why.lines[i]);
  }
  ts_resolution_free(res);
  for (size_t i = 0; i < nroots; i++)
    ts_requirement_free(reqs[i]);
  free(reqs);
  free(roots);
  free(no_binary);
  free(no_build);
  mem_free(&ix);
  mem_target_free(&tg);
  return fail;
}

int main(int argc, char **argv) {
  if (argc < 2)
    return 77;
  char path[4096];
  snprintf(path, sizeof path, "%s/uv/scenarios.json", argv[1]);
  FILE *f = fopen(path, "rb");
  if (!f) {
    fprintf(stderr, "skip: %s not found\n", path);
    return 77;
  }
  fseek(f, 0, SEEK_END);
  long sz = ftell(f);
  fseek(f, 0, SEEK_SET);
  char *text = malloc((size_t)sz + 1);
  if (!text || fread(text, 1, (size_t)sz, f) != (size_t)sz)
    return 1;
  text[sz] = '\0';
  fclose(f);
  cJSON *root = cJSON_Parse(text);
  free(text);
  if (!root)
    return 1;
  const char *only = argc > 2 ? argv[2] : NULL;
  int passed = 0, failed = 0, skipped = 0;
  const cJSON *sc;
  cJSON_ArrayForEach(sc, cJSON_GetObjectItem(root, "scenarios")) {
    const cJSON *ro = cJSON_GetObjectItem(sc, "resolver_options");
    if (cJSON_IsTrue(cJSON_GetObjectItem(ro, "universal")))
      continue;
    const char *name = cJSON_GetStringValue(cJSON_GetObjectItem(sc, "name"));
    if (only && strcmp(only, name) != 0)
      continue;
    char *why = run_scenario(sc, only != NULL);
    if (!why) {
      passed++;
      continue;
    }
    const char *reason = argued_reason(name);
    if (reason) {
      skipped++;
      printf("ARGUED %s: %s\n  (because: %s)\n", name, why, reason);
    } else {
      failed++;
      printf("FAIL %s: %s\n", name, why);
    }
    free(why);
  }
  cJSON_Delete(root);
  printf("%d passed, %d failed, %d skipped\n", passed, failed, skipped);
  return failed || passed == 0 ? 1 : 0; /* no case run = the data moved */
}
