/*
 * torchsolve check [--python PATH | --path SITE_PACKAGES_DIR] [--json]
 *                  [--python-version X.Y] [GPU options]
 *
 * What `pip check` reports (inventory/envcheck.h), plus every rule of rules.yaml
 * that the installed set or the host breaks (ts_rules_check_installed).
 * Exit 0 only when both are clean.
 */
#include <cjson/cJSON.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "cli/gpu_options.h"
#include "core/alloc.h"
#include "core/fs.h"
#include "core/str.h"
#include "inventory/envcheck.h"
#include "rules/rules.h"
#include "target/site.h"
#include "target/target.h"
#include "wheel/wheel.h"

static void usage(FILE *out) {
  fprintf(out,
          "usage: torchsolve check [--python PATH | --path SITE_PACKAGES_DIR]\n"
          "                        [--python-version X.Y] [--json] [GPU options]\n"
          "\n"
          "Reports what 'pip check' would for an environment — each installed\n"
          "distribution whose requirement (markers evaluated for the target, extra\n"
          "\"\") is not installed or not satisfied — in pip's wording:\n"
          "  X 1.0 requires y, which is not installed.\n"
          "  X 1.0 has requirement y>=2, but you have y 1.0.\n"
          "plus every rule of rules.yaml that the installed set or this host breaks\n"
          "(a CUDA build the driver cannot run, torchvision built for another torch,\n"
          "a known-broken pairing), each with its rule id and fix.  A custom torch\n"
          "build (a local label that is no variant) is judged by the cuda/hip values\n"
          "of its torch/version.py.\n"
          "\n"
          "  --python PATH         interpreter or venv to check (default:\n"
          "                        $TORCHSOLVE_PYTHON, $VIRTUAL_ENV, then ./.venv);\n"
          "                        markers from its probe\n"
          "  --path DIR            a site-packages directory (*.dist-info in it); markers\n"
          "                        for Linux and the Python version of --python-version,\n"
          "                        else the 'pythonX.Y' component of DIR, else python3\n"
          "  --python-version X.Y  Python version for markers with --path\n"
          "  --json                print one JSON object: checked, problems, rules, skipped\n"
          "  -h, --help            this help\n"
          "\n");
  ts_gpu_options_help(out);
  fprintf(out,
          "\nExit status: 0 clean, 1 problems, broken rules or unreadable metadata,\n"
          "2 usage error, others as for every command.\n"
          "\nExamples:\n"
          "  torchsolve check\n"
          "  torchsolve check --python .venv --json\n"
          "  torchsolve check --path /opt/env/lib/python3.12/site-packages --cuda 12.6\n");
}

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

static int make_target(const char *python, const char *path,
                       const char *pyver, struct ts_target **t, char **site,
                       char **site2) {
  struct ts_error err = {0};
  char *cache = ts_cache_root_dir();
  char buf[32];
  int st = 0;
  if (path) {
    if (!pyver && version_from_path(path, buf, sizeof buf))
      pyver = buf;
    if (pyver) {
      struct ts_target_spec spec = {.python_version = pyver};
      if (ts_target_from_spec(&spec, t, &err) != TS_OK)
        st = ts_cli_report(&err);
    } else {
      char *py = NULL;
      if (ts_target_locate("python3", &py, &err) != TS_OK ||
          ts_target_probe(py, cache, t, &err) != TS_OK)
        st = ts_cli_report(&err);
      free(py);
    }
    if (!st)
      *site = ts_xstrdup(path);
  } else {
    char *py = NULL;
    if (ts_target_locate(python, &py, &err) != TS_OK ||
        ts_target_probe(py, cache, t, &err) != TS_OK) {
      st = ts_cli_report(&err);
    } else if (!(*t)->paths.purelib) {
      ts_error_set(&err, TS_E_PYTHON, "'%s' reported no site-packages", py);
      st = ts_cli_report(&err);
    } else {
      *site = ts_xstrdup((*t)->paths.purelib);
      *site2 = ts_xstrdup((*t)->paths.platlib ? (*t)->paths.platlib : (*t)->paths.purelib);
    }
    free(py);
  }
  free(cache);
  return st;
}

/* A torch whose local label is no variant of the PyTorch server (seed 003:
 * 2.9.1a0+gitd38164a) is judged by what torch/version.py says it was built
 * with. */
static enum ts_code check_custom_torch(const struct ts_constraint_set *s,
                                       const char *const *dirs, size_t ndirs,
                                       const struct ts_envcheck_result *r,
                                       struct ts_rules_finding **f, size_t *nf,
                                       struct ts_error *err) {
  for (size_t i = 0; i < r->ndists; i++) {
    if (strcmp(r->dists[i].name, "torch") != 0)
      continue;
    if (!ts_rules_is_custom_build(s, r->dists[i].version))
      return TS_OK;
    for (size_t d = 0; d < ndirs; d++) {
      char *cuda = ts_site_torch_built_with(dirs[d], "cuda");
      char *hip = ts_site_torch_built_with(dirs[d], "hip");
      enum ts_code rc = TS_OK;
      if (cuda || hip)
        rc = ts_rules_check_build(s, "torch", r->dists[i].version, cuda, hip, f,
                                  nf, err);
      bool found = cuda || hip;
      free(cuda);
      free(hip);
      if (rc != TS_OK || found)
        return rc;
    }
  }
  return TS_OK;
}

int ts_cmd_check(int argc, char **argv) {
  struct ts_gpu_options g;
  ts_gpu_options_init(&g);
  const char *python = NULL, *path = NULL, *pyver = NULL;
  bool json = false;
  for (int i = 1; i < argc; i++) {
    const char *a = argv[i];
    int used = ts_gpu_options_parse(&g, "check", argc, argv, &i);
    if (used < 0)
      return 2;
    if (used)
      continue;
    used = ts_cli_parse_global("check", argc, argv, &i);
    if (used < 0)
      return 2;
    if (used)
      continue;
    const char **slot = NULL;
    const char *val = NULL;
    if (strcmp(a, "-h") == 0 || strcmp(a, "--help") == 0) {
      usage(stdout);
      return 0;
    } else if (strcmp(a, "--json") == 0) {
      json = true;
      continue;
    } else if (strcmp(a, "--python") == 0 || strncmp(a, "--python=", 9) == 0) {
      slot = &python;
    } else if (strcmp(a, "--path") == 0 || strncmp(a, "--path=", 7) == 0) {
      slot = &path;
    } else if (strcmp(a, "--python-version") == 0 ||
               strncmp(a, "--python-version=", 17) == 0) {
      slot = &pyver;
    } else {
      return ts_cli_usage_error("check", "unknown argument '%s'", a);
    }
    const char *eq = strchr(a, '=');
    if (eq)
      val = eq + 1;
    else if (i + 1 < argc)
      val = argv[++i];
    else
      return ts_cli_usage_error("check", "%s needs a value", a);
    *slot = val;
  }
  if (python && path)
    return ts_cli_usage_error("check", "--python and --path exclude each other");
  if (ts_gpu_options_env(&g) < 0)
    return 2;

  struct ts_target *t = NULL;
  char *site = NULL, *site2 = NULL;
  int st = make_target(python, path, pyver, &t, &site, &site2);
  if (st)
    return st;
  struct ts_error err = {0};
  struct ts_envcheck_result r;
  struct ts_rules *rules = NULL;
  struct ts_host h;
  struct ts_constraint_set s;
  bool have_host = false, have_set = false;
  struct ts_rules_finding *f = NULL;
  size_t nf = 0;
  struct ts_installed *pk = NULL;
  const char *dirs[2] = {site, site2};
  if (ts_envcheck_run_dirs(dirs, site2 ? 2 : 1, &t->markers, &r, &err) != TS_OK) {
    st = ts_cli_report(&err);
    goto out_target;
  }
  if (ts_gpu_rules(&g, &rules, &err) != TS_OK ||
      !(have_host = ts_gpu_host(&g, &h, &err) == TS_OK)) {
    st = ts_cli_report(&err);
    goto out;
  }
  struct ts_rules_options ro = {.ignore_host = g.ignore_host};
  if (!(have_set = ts_rules_compile(rules, &h, &ro, &s, &err) == TS_OK)) {
    st = ts_cli_report(&err);
    goto out;
  }
  pk = ts_xcalloc(r.ndists ? r.ndists : 1, sizeof *pk);
  for (size_t i = 0; i < r.ndists; i++)
    pk[i] = (struct ts_installed){r.dists[i].name, r.dists[i].version};
  if (ts_rules_check_installed(&s, pk, r.ndists, &f, &nf, &err) != TS_OK ||
      ts_rules_check_cuda_stacks(pk, r.ndists, &f, &nf, &err) != TS_OK ||
      check_custom_torch(&s, dirs, site2 ? 2 : 1, &r, &f, &nf, &err) != TS_OK) {
    st = ts_cli_report(&err);
    goto out;
  }

  if (json) {
    cJSON *o = cJSON_CreateObject();
    cJSON_AddStringToObject(o, "path", site);
    cJSON_AddNumberToObject(o, "checked", (double)r.ndists);
    cJSON *pa = cJSON_AddArrayToObject(o, "problems");
    for (size_t i = 0; i < r.nproblems; i++) {
      const struct ts_envcheck_problem *p = &r.problems[i];
      cJSON *e = cJSON_CreateObject();
      cJSON_AddStringToObject(e, "kind", p->kind == TS_ENVCHECK_MISSING
                                             ? "missing" : "conflict");
      cJSON_AddStringToObject(e, "project", p->project);
      cJSON_AddStringToObject(e, "version", p->version);
      cJSON_AddStringToObject(e, "requirement", p->requirement);
      cJSON_AddStringToObject(e, "dependency", p->dep_name);
      if (p->dep_version)
        cJSON_AddStringToObject(e, "installed", p->dep_version);
      cJSON_AddStringToObject(e, "message", p->message);
      cJSON_AddItemToArray(pa, e);
    }
    cJSON *ra = cJSON_AddArrayToObject(o, "rules");
    for (size_t i = 0; i < nf; i++) {
      cJSON *e = cJSON_CreateObject();
      cJSON_AddStringToObject(e, "id", f[i].id);
      cJSON_AddStringToObject(e, "subject", f[i].subject);
      cJSON_AddStringToObject(e, "detail", f[i].detail);
      cJSON_AddStringToObject(e, "message", f[i].message);
      if (f[i].fix)
        cJSON_AddStringToObject(e, "fix", f[i].fix);
      if (f[i].source)
        cJSON_AddStringToObject(e, "source", f[i].source);
      cJSON_AddItemToArray(ra, e);
    }
    cJSON *sa = cJSON_AddArrayToObject(o, "skipped");
    for (size_t i = 0; i < r.nskipped; i++)
      cJSON_AddItemToArray(sa, cJSON_CreateString(r.skipped[i]));
    cJSON_AddBoolToObject(o, "ok", r.nproblems == 0 && nf == 0 && r.nskipped == 0);
    char *text = cJSON_Print(o);
    cJSON_Delete(o);
    if (!text)
      abort();
    puts(text);
    free(text);
  } else {
    for (size_t i = 0; i < r.nskipped; i++)
      ts_cli_warn("error parsing requirements for %s", r.skipped[i]);
    for (size_t i = 0; i < r.nproblems; i++)
      puts(r.problems[i].message);
    for (size_t i = 0; i < nf; i++) {
      printf("%s: %s (rule %s)\n  %s\n", f[i].subject, f[i].detail, f[i].id,
             f[i].message);
      if (f[i].fix)
        printf("  fix: %s\n", f[i].fix);
    }
    if (r.nproblems == 0 && nf == 0 && r.nskipped == 0)
      puts("No broken requirements found.");
    char unreadable[64] = "";
    if (r.nskipped)
      snprintf(unreadable, sizeof unreadable, ", %zu unreadable", r.nskipped);
    ts_cli_info("%zu distribution%s checked, %zu broken requirement%s, "
                "%zu broken rule%s%s",
                r.ndists, r.ndists == 1 ? "" : "s", r.nproblems,
                r.nproblems == 1 ? "" : "s", nf, nf == 1 ? "" : "s", unreadable);
  }
  /* pip check fails on metadata it cannot parse too (its parsing_probs) */
  st = (r.nproblems || nf || r.nskipped) ? 1 : 0;
out:
  ts_rules_findings_free(f, nf);
  free(pk);
  if (have_set)
    ts_constraint_set_clear(&s);
  if (have_host)
    ts_host_clear(&h);
  ts_rules_free(rules);
  ts_envcheck_result_clear(&r);
out_target:
  free(site);
  free(site2);
  ts_target_free(t);
  return st;
}
