/* torchsolve check's judgements: see check.h. */
#include "inventory/check.h"

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "core/alloc.h"
#include "core/str.h"
#include "target/site.h"

/* "…/python3.12/…" → "3.12" into out; false when absent. */
static bool version_from_path(const char *p, char *out, size_t cap) {
  const char *s = p;
  while ((s = strstr(s, "python3."))) {
    const char *v = s + 6;
    size_t n = 2;
    while (v[n] >= '0' && v[n] <= '9')
      n++;
    if (n > 2 && n < cap && (v[n] == '/' || v[n] == '\0')) {
      memcpy(out, v, n);
      out[n] = '\0';
      return true;
    }
    s = v;
  }
  return false;
}

static enum ts_code probe(const char *python, const char *probe_cache_dir,
                          struct ts_target **t, struct ts_error *err) {
  char *py = NULL;
  enum ts_code rc = ts_target_locate(python, &py, err);
  if (rc == TS_OK)
    rc = ts_target_probe(py, probe_cache_dir, t, err);
  if (rc == TS_OK && !(*t)->paths.purelib)
    rc = ts_error_set(err, TS_E_PYTHON, "'%s' reported no site-packages", py);
  free(py);
  return rc;
}

enum ts_code ts_check_site_open(const char *python, const char *path,
                                const char *python_version, const char *probe_cache_dir,
                                struct ts_check_site *out, struct ts_error *err) {
  *out = (struct ts_check_site){0};
  if (!path) {
    enum ts_code rc = probe(python, probe_cache_dir, &out->target, err);
    if (rc != TS_OK)
      return rc;
    const struct ts_target *t = out->target;
    out->dirs[0] = ts_xstrdup(t->paths.purelib);
    out->dirs[1] = ts_xstrdup(t->paths.platlib ? t->paths.platlib : t->paths.purelib);
    out->ndirs = 2;
    return TS_OK;
  }
  char buf[32];
  if (!python_version && version_from_path(path, buf, sizeof buf))
    python_version = buf;
  enum ts_code rc;
  if (python_version) {
    struct ts_target_spec spec = {.python_version = python_version};
    rc = ts_target_from_spec(&spec, &out->target, err);
  } else {
    char *py = NULL;
    rc = ts_target_locate("python3", &py, err);
    if (rc == TS_OK)
      rc = ts_target_probe(py, probe_cache_dir, &out->target, err);
    free(py);
  }
  if (rc == TS_OK) {
    out->dirs[0] = ts_xstrdup(path);
    out->ndirs = 1;
  }
  return rc;
}

void ts_check_site_close(struct ts_check_site *site) {
  free(site->dirs[0]);
  free(site->dirs[1]);
  ts_target_free(site->target);
  *site = (struct ts_check_site){0};
}

static enum ts_code check_custom_torch(const struct ts_constraint_set *s,
                                       const struct ts_check_site *site,
                                       const struct ts_envcheck_result *r,
                                       struct ts_rules_finding **f, size_t *nf,
                                       struct ts_error *err) {
  for (size_t i = 0; i < r->ndists; i++) {
    if (strcmp(r->dists[i].name, "torch") != 0)
      continue;
    if (!ts_rules_is_custom_build(s, r->dists[i].version))
      return TS_OK;
    for (size_t d = 0; d < site->ndirs; d++) {
      char *cuda = ts_site_torch_built_with(site->dirs[d], "cuda");
      char *hip = ts_site_torch_built_with(site->dirs[d], "hip");
      enum ts_code rc = TS_OK;
      if (cuda || hip)
        rc = ts_rules_check_build(s, "torch", r->dists[i].version, cuda, hip, f, nf, err);
      bool found = cuda || hip;
      free(cuda);
      free(hip);
      if (rc != TS_OK || found)
        return rc;
    }
  }
  return TS_OK;
}

enum ts_code ts_check_rules(const struct ts_constraint_set *set,
                            const struct ts_check_site *site,
                            const struct ts_envcheck_result *r,
                            struct ts_rules_finding **f, size_t *nf, struct ts_error *err) {
  struct ts_installed *pk = ts_xcalloc(r->ndists ? r->ndists : 1, sizeof *pk);
  for (size_t i = 0; i < r->ndists; i++)
    pk[i] = (struct ts_installed){r->dists[i].name, r->dists[i].version};
  enum ts_code rc = ts_rules_check_installed(set, pk, r->ndists, f, nf, err);
  if (rc == TS_OK)
    rc = ts_rules_check_cuda_stacks(pk, r->ndists, f, nf, err);
  if (rc == TS_OK)
    rc = check_custom_torch(set, site, r, f, nf, err);
  free(pk);
  return rc;
}
