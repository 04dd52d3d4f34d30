/*
 * torchsolve check [--python PATH | --path SITE_PACKAGES_DIR] [--json]
 *                  [--python-version X.Y] [GPU options]
 *
 * What `pip check` reports (inventory/envcheck.h), plus every rule of rules.yaml
 * that the installed set or the host breaks (inventory/check.h).
 * Exit 0 only when both are clean.
 */
#include <cjson/cJSON.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "cli/gpu_options.h"
#include "cli/rules_cli.h"
#include "core/fs.h"
#include "inventory/check.h"
#include "inventory/envcheck.h"
#include "rules/rules.h"
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

/* --json: pip check's problems, the broken rules and the unreadable
 * distributions as one object. */
static void print_json(const char *path, const struct ts_envcheck_result *r,
                       const struct ts_rules_finding *f, size_t nf) {
  cJSON *o = cJSON_CreateObject();
  cJSON_AddStringToObject(o, "path", path);
  cJSON_AddNumberToObject(o, "checked", (double)r->ndists);
  cJSON *pa = cJSON_AddArrayToObject(o, "problems");
  for (size_t i = 0; i < r->nproblems; i++) {
    const struct ts_envcheck_problem *p = &r->problems[i];
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
  for (size_t i = 0; i < r->nskipped; i++)
    cJSON_AddItemToArray(sa, cJSON_CreateString(r->skipped[i]));
  cJSON_AddBoolToObject(o, "ok", r->nproblems == 0 && nf == 0 && r->nskipped == 0);
  char *text = cJSON_Print(o);
  cJSON_Delete(o);
  if (!text)
    abort();
  puts(text);
  free(text);
}

static void print_text(const struct ts_envcheck_result *r, const struct ts_rules_finding *f,
                       size_t nf) {
  for (size_t i = 0; i < r->nskipped; i++)
    ts_cli_warn("error parsing requirements for %s", r->skipped[i]);
  for (size_t i = 0; i < r->nproblems; i++)
    puts(r->problems[i].message);
  ts_cli_print_rules_findings(f, nf);
  if (r->nproblems == 0 && nf == 0 && r->nskipped == 0)
    puts("No broken requirements found.");
  char unreadable[64] = "";
  if (r->nskipped)
    snprintf(unreadable, sizeof unreadable, ", %zu unreadable", r->nskipped);
  ts_cli_info("%zu distribution%s checked, %zu broken requirement%s, "
              "%zu broken rule%s%s",
              r->ndists, r->ndists == 1 ? "" : "s", r->nproblems,
              r->nproblems == 1 ? "" : "s", nf, nf == 1 ? "" : "s", unreadable);
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

  struct ts_error err = {0};
  struct ts_check_site site;
  char *cache = ts_cache_root_dir();
  enum ts_code opened = ts_check_site_open(python, path, pyver, cache, &site, &err);
  free(cache);
  if (opened != TS_OK) {
    ts_check_site_close(&site);
    return ts_cli_report(&err);
  }
  int st = 0;
  struct ts_envcheck_result r;
  struct ts_rules *rules = NULL;
  struct ts_host h;
  struct ts_constraint_set s;
  bool have_host = false, have_set = false;
  struct ts_rules_finding *f = NULL;
  size_t nf = 0;
  if (ts_envcheck_run_dirs((const char *const *)site.dirs, site.ndirs, &site.target->markers,
                           &r, &err) != TS_OK) {
    st = ts_cli_report(&err);
    goto out_target;
  }
  struct ts_rules_options ro = {.ignore_host = g.ignore_host};
  if (ts_gpu_rules(&g, &rules, &err) != TS_OK ||
      !(have_host = ts_gpu_host(&g, &h, &err) == TS_OK) ||
      !(have_set = ts_rules_compile(rules, &h, &ro, &s, &err) == TS_OK) ||
      ts_check_rules(&s, &site, &r, &f, &nf, &err) != TS_OK) {
    st = ts_cli_report(&err);
    goto out;
  }

  if (json)
    print_json(site.dirs[0], &r, f, nf);
  else
    print_text(&r, f, nf);
  /* pip check fails on metadata it cannot parse too (its parsing_probs) */
  st = (r.nproblems || nf || r.nskipped) ? 1 : 0;
out:
  ts_rules_findings_free(f, nf);
  if (have_set)
    ts_constraint_set_clear(&s);
  if (have_host)
    ts_host_clear(&h);
  ts_rules_free(rules);
  ts_envcheck_result_clear(&r);
out_target:
  ts_check_site_close(&site);
  return st;
}
