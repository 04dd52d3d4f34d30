/*
 * torchsolve rules update [--index-url URL] [--refresh] [index options]
 *
 * Takes the newest torchsolve-rules package of the index (plan/rules_update.h)
 * and keeps it as the rules in force; plus what other commands print about
 * the rules in force (rules_cli.h).
 */
#include <cjson/cJSON.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cli/cli.h"
#include "cli/gpu_options.h"
#include "cli/index_options.h"
#include "cli/rules_cli.h"
#include "core/str.h"
#include "plan/plan.h"
#include "plan/rules_update.h"
#include "rules/origin.h"

static void usage(FILE *out) {
  fputs("usage: torchsolve rules update [--index-url URL] [--refresh] [index options]\n\n"
        "Takes the newest torchsolve-rules package (a py3-none-any wheel holding\n"
        "torchsolve_rules/rules.yaml, its version the facts' date) from the index,\n"
        "verifies it against the index's sha256 and its RECORD, validates it as\n"
        "`rules check` does, and keeps it in $XDG_DATA_HOME/torchsolve/ (default\n"
        "~/.local/share/torchsolve): from then on it replaces the bundled rules,\n"
        "as long as it is newer than them.  An invalid package exits 1 and\n"
        "changes nothing.  --refresh asks the index again and takes its newest\n"
        "package even when that version is already in force.\n\n"
        "options:\n",
        out);
  fputs(ts_index_cli_help, out);
}

void ts_cli_print_rules_diags(const char *file, const struct ts_rules_diags *d) {
  for (size_t k = 0; k < d->n; k++)
    if (d->items[k].line)
      fprintf(stderr, "%s:%u:%u: error: %s\n", d->items[k].file, d->items[k].line,
              d->items[k].column, d->items[k].message);
    else
      fprintf(stderr, "%s: error: %s\n", d->items[k].file, d->items[k].message);
  fprintf(stderr, "%s: %zu error%s\n", file, d->n, d->n == 1 ? "" : "s");
}

void ts_cli_print_rules_findings(const struct ts_rules_finding *f, size_t n) {
  for (size_t i = 0; i < n; i++) {
    printf("%s: %s (rule %s)\n  %s\n", f[i].subject, f[i].detail, f[i].id, f[i].message);
    if (f[i].fix)
      printf("  fix: %s\n", f[i].fix);
  }
}

char *ts_cli_rules_in_force(const struct ts_rules *r) {
  const struct ts_rules_provenance *p = &r->provenance;
  const char *v = p->version ? p->version : r->version ? r->version : "(no version)";
  if (p->updated)
    return ts_xasprintf("updated %s (from %s)", v, p->url ? p->url : "an index");
  return ts_xasprintf("bundled %s (%s)", v, p->path ? p->path : ts_gpu_bundled_rules_path());
}

static cJSON *str_or_null(const char *s) {
  return s ? cJSON_CreateString(s) : cJSON_CreateNull();
}

cJSON *ts_cli_rules_in_force_json(const struct ts_rules *r) {
  const struct ts_rules_provenance *p = &r->provenance;
  cJSON *o = cJSON_CreateObject();
  cJSON_AddStringToObject(o, "in_force", p->updated ? "updated" : "bundled");
  cJSON_AddItemToObject(o, "version", str_or_null(p->version ? p->version : r->version));
  cJSON_AddItemToObject(o, "path", str_or_null(p->path));
  cJSON_AddItemToObject(o, "url", str_or_null(p->url));
  return o;
}

void ts_cli_warn_newer_torch(const struct ts_plan_result *res, const struct ts_rules *r) {
  char offered[64], series[64];
  const struct ts_rules_release *newest = r ? ts_rules_newest(r) : NULL;
  if (!newest || !ts_plan_newest_offered(res, "torch", offered, sizeof offered))
    return;
  /* "2.15.0+cu130" -> "2.15": a patch release of a known series is known */
  size_t n = strspn(offered, "0123456789");
  if (offered[n] == '.')
    n += 1 + strspn(offered + n + 1, "0123456789");
  snprintf(series, sizeof series, "%.*s", (int)n, offered);
  offered[strcspn(offered, "+")] = '\0';
  if (ts_rules_version_cmp(series, newest->series) <= 0)
    return;
  char *data = ts_rules_data_dir();
  if (ts_rules_newer_torch_warning_due(data, time(NULL))) {
    char *in_force = ts_cli_rules_in_force(r);
    ts_cli_warn("the index offers torch %s, newer than every release the rules in force "
                "know (%s, newest %s); `torchsolve rules update` fetches newer facts "
                "(this warning is given once a day)",
                offered, in_force, newest->series);
    free(in_force);
  }
  free(data);
}

/* The kernel driver's ROCm release for the window and its basis (the
 * __rocm_kmd fact), or (*rocm NULL) why none: the kernel's own amdgpu. */
bool ts_cli_kernel_driver(const struct ts_constraint_set *s, const struct ts_rules *rules,
                          const struct ts_host *h, const char **rocm, char *basis, size_t cap) {
  char rel[32];
  *rocm = NULL;
  for (size_t i = 0; i < s->nfacts; i++)
    if (strcmp(s->facts[i].name, "__rocm_kmd") == 0) {
      *rocm = s->facts[i].version;
      snprintf(basis, cap, "%s", s->facts[i].source);
      return true;
    }
  return !ts_rules_kmd_release(rules, h, rel, sizeof rel, basis, cap) && basis[0];
}

int ts_cmd_rules_update(int argc, char **argv) {
  struct ts_index_cli ic;
  ts_index_cli_init(&ic);
  for (int i = 0; i < argc; i++) {
    if (strcmp(argv[i], "--help") == 0 || strcmp(argv[i], "-h") == 0) {
      usage(stdout);
      return 0;
    }
    int used = ts_cli_parse_global("rules", argc, argv, &i);
    if (used == 0)
      used = ts_index_cli_parse(&ic, "rules", argc, argv, &i);
    if (used < 0)
      return 2;
    if (!used)
      return ts_cli_usage_error("rules", "update: unknown argument '%s'", argv[i]);
  }
  if (ts_index_cli_finish(&ic, "rules") < 0)
    return 2;
  char *data = ts_rules_data_dir();
  if (!data)
    return ts_cli_usage_error("rules", "update: neither XDG_DATA_HOME nor HOME is set, "
                              "so there is no data folder to keep the rules in");
  struct ts_error err = {0};
  struct ts_index *idx = ts_index_new(&ic.opts, &err);
  if (!idx) {
    free(data);
    return ts_cli_report(&err);
  }
  struct ts_rules_update_options o = {
      .idx = idx, .bundled = ts_gpu_bundled_rules_path(), .data_dir = data,
      .again = ic.opts.cache_mode == TS_CACHE_REFRESH};
  struct ts_rules_update_result r;
  enum ts_code rc = ts_rules_update(&o, &r, &err);
  int status = 0;
  if (rc == TS_E_RULES) {
    ts_cli_print_rules_diags(r.label ? r.label : TS_RULES_PACKAGE, &r.diags);
    ts_error_set(&err, TS_E_RULES, "%s %s is not valid rules; the rules in force (%s) "
                 "are unchanged", TS_RULES_PACKAGE, r.version,
                 r.in_force ? r.in_force : "bundled");
    status = ts_cli_report(&err);
  } else if (rc != TS_OK) {
    ts_error_wrap(&err, "rules update (the rules in force are unchanged)");
    status = ts_cli_report(&err);
  } else if (r.outcome == TS_RULES_UPDATE_OLDER) {
    printf("%s %s from %s is not newer than the bundled rules (%s): nothing changed\n",
           TS_RULES_PACKAGE, r.version, r.url, r.in_force ? r.in_force : "no version");
  } else if (r.outcome == TS_RULES_UPDATE_CURRENT) {
    printf("%s %s from %s is already in force\n", TS_RULES_PACKAGE, r.version, r.url);
  } else {
    printf("%s %s is now in force (was %s): %zu backends, %zu torch releases "
           "(newest %s), %zu rules\n  from %s\n",
           TS_RULES_PACKAGE, r.version, r.in_force ? r.in_force : "no version",
           r.nbackends, r.nreleases, r.newest_series, r.nrules, r.url);
  }
  ts_rules_update_result_clear(&r);
  ts_index_free(idx);
  free(data);
  return status;
}
