/* torchsolve rules audit [--dist-info DIR] [--built-with cuda=X.Y|rocm=X.Y]
 * [NAME==VERSION...] [GPU options]: which rules the distributions named
 * break on this host (rules/rules.h's ts_rules_audit), with fixes. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "cli/gpu_options.h"
#include "cli/rules_cli.h"
#include "core/alloc.h"
#include "core/str.h"
#include "rules/rules.h"
#include "target/site.h"

/* The installed distributions of a site-packages directory (target/site.h,
 * the reader install and sync use) appended to names/versions. */
static size_t read_dist_info(const char *dir, char ***names, char ***versions,
                             size_t n) {
  struct ts_site site;
  struct ts_error err = {0};
  if (ts_site_read(&dir, 1, &site, &err) == TS_OK)
    for (size_t i = 0; i < site.n; i++) {
      if (!site.dists[i].version)
        continue;
      *names = ts_xreallocarray(*names, n + 1, sizeof **names);
      *versions = ts_xreallocarray(*versions, n + 1, sizeof **versions);
      (*names)[n] = ts_xstrdup(site.dists[i].name);
      (*versions)[n] = ts_xstrdup(site.dists[i].version);
      n++;
    }
  ts_site_clear(&site);
  return n;
}

int ts_cmd_rules_audit(int argc, char **argv) {
  struct ts_gpu_options g;
  struct ts_rules *r = NULL;
  int npos;
  int st = ts_cli_rules_load(&g, argc, argv, "rules", NULL, &r, &npos);
  if (st)
    return st;
  char **names = NULL, **versions = NULL;
  size_t n = 0;
  const char *built_cuda = NULL, *built_rocm = NULL;
  for (int i = 0; i < npos; i++) {
    if (strcmp(argv[i], "--dist-info") == 0 && i + 1 < npos) {
      n = read_dist_info(argv[++i], &names, &versions, n);
      continue;
    }
    if (strcmp(argv[i], "--built-with") == 0 && i + 1 < npos) {
      const char *v = argv[++i];
      if (strncmp(v, "cuda=", 5) == 0)
        built_cuda = v + 5;
      else if (strncmp(v, "rocm=", 5) == 0 || strncmp(v, "hip=", 4) == 0)
        built_rocm = strchr(v, '=') + 1;
      else {
        ts_rules_free(r);
        return ts_cli_usage_error("rules", "--built-with takes cuda=X.Y or rocm=X.Y");
      }
      continue;
    }
    const char *eq = strstr(argv[i], "==");
    if (!eq) {
      ts_rules_free(r);
      return ts_cli_usage_error("rules", "'%s' is not NAME==VERSION", argv[i]);
    }
    names = ts_xreallocarray(names, n + 1, sizeof *names);
    versions = ts_xreallocarray(versions, n + 1, sizeof *versions);
    names[n] = ts_xstrndup(argv[i], (size_t)(eq - argv[i]));
    versions[n] = ts_xstrdup(eq + 2);
    n++;
  }
  struct ts_error err = {0};
  struct ts_host h;
  struct ts_constraint_set s;
  int status = 0;
  if (ts_gpu_host(&g, &h, &err) != TS_OK) {
    status = ts_cli_report(&err);
    goto out;
  }
  struct ts_rules_options ro = {.ignore_host = g.ignore_host};
  if (ts_rules_compile(r, &h, &ro, &s, &err) != TS_OK) {
    ts_host_clear(&h);
    status = ts_cli_report(&err);
    goto out;
  }
  struct ts_installed *pk = ts_xcalloc(n ? n : 1, sizeof *pk);
  for (size_t i = 0; i < n; i++)
    pk[i] = (struct ts_installed){names[i], versions[i]};
  struct ts_rules_finding *f = NULL;
  size_t nf = 0;
  if (ts_rules_audit(&s, pk, n, built_cuda, built_rocm, &f, &nf, &err) != TS_OK)
    status = ts_cli_report(&err);
  ts_cli_print_rules_findings(f, nf);
  if (status == 0) {
    ts_cli_info("%zu distribution%s checked, %zu broken rule%s", n,
                n == 1 ? "" : "s", nf, nf == 1 ? "" : "s");
    status = nf ? 1 : 0;
  }
  ts_rules_findings_free(f, nf);
  free(pk);
  ts_constraint_set_clear(&s);
  ts_host_clear(&h);
out:
  for (size_t i = 0; i < n; i++) {
    free(names[i]);
    free(versions[i]);
  }
  free(names);
  free(versions);
  ts_rules_free(r);
  return status;
}
