/*
 * plan/custom_build.c — a local torch wheel no variant of the PyTorch
 * server labels (a custom build) judged by what it was built with
 * (plan_internal.h).
 */
#include "plan/plan_internal.h"

#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/buf.h"
#include "index/url.h"
#include "target/site.h"
#include "zip/zip.h"

/* What a local wheel's torch/version.py says it was built with (cuda,
 * hip: malloc'd or NULL).  An unreadable wheel says nothing here: the
 * install reads it again and reports what is wrong with it. */
static void wheel_built_with(const char *path, char **cuda, char **hip) {
  *cuda = *hip = NULL;
  int fd = open(path, O_RDONLY | O_CLOEXEC);
  if (fd < 0)
    return;
  struct ts_error ignore = {0};
  struct ts_zip_archive *a = NULL;
  if (ts_zip_open_fd(fd, &a, &ignore) == TS_OK) {
    static const char member[] = "torch/version.py";
    const struct ts_zip_entry *e = ts_zip_find(a, member, sizeof member - 1);
    struct ts_buf b;
    ts_buf_init(&b, TS_CAP_SMALL_FILE);
    if (e && ts_zip_read_member(a, e, &b, &ignore) == TS_OK && b.data) {
      *cuda = ts_site_torch_version_value(b.data, b.len, "cuda");
      *hip = ts_site_torch_version_value(b.data, b.len, "hip");
    }
    ts_buf_clear(&b);
  }
  ts_zip_close(a);
  close(fd);
}

/* A local torch wheel with a label no variant has (seed 003:
 * torch-2.9.1a0+gitd38164a, a ROCm 7.1 build) is judged, as `check` judges
 * it once installed, by what its torch/version.py says it was built with:
 * TS_E_HOST naming the rule and its fix when this host cannot run it. */
enum ts_code ts_plan_check_custom_builds(const struct ts_plan_result *r,
                                         const struct ts_constraint_set *set,
                                         struct ts_error *err) {
  for (size_t i = 0; i < r->res->nitems; i++) {
    const struct ts_resolved *x = &r->res->items[i];
    if (x->action == TS_ACTION_KEEP || !x->file || strcmp(x->name, "torch") != 0 ||
        !ts_rules_is_custom_build(set, x->version))
      continue;
    char *path = ts_url_file_path(x->file->url);
    if (!path)
      continue; /* not downloaded yet: nothing to read */
    char *cuda, *hip;
    wheel_built_with(path, &cuda, &hip);
    struct ts_rules_finding *f = NULL;
    size_t nf = 0;
    enum ts_code rc = ts_rules_check_build(set, x->name, x->version, cuda, hip, &f, &nf, err);
    if (rc == TS_OK && nf)
      rc = ts_error_set(err, TS_E_HOST,
                        "%s %s (%s, %s %s) cannot run on this host: %s (rule %s: %s)%s%s; "
                        "pass --ignore-host to install it anyway",
                        x->name, x->version, x->file->filename, hip ? "HIP" : "CUDA",
                        hip ? hip : cuda, f[0].detail, f[0].id, f[0].message,
                        f[0].fix ? "; fix: " : "", f[0].fix ? f[0].fix : "");
    ts_rules_findings_free(f, nf);
    free(cuda);
    free(hip);
    free(path);
    if (rc != TS_OK)
      return rc;
  }
  return TS_OK;
}
