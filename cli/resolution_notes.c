/* Warnings about a successful resolution; see resolution_notes.h. */
#include "cli/resolution_notes.h"

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "cli/build_options.h"
#include "cli/cli.h"
#include "cli/rules_cli.h"
#include "pep/metadata.h"
#include "pep/name.h"
#include "plan/plan.h"

static bool provides(const struct ts_metadata *md, const char *extra) {
  bool found = false;
  for (size_t i = 0; i < md->nprovides_extra && !found; i++) {
    const char *p = md->provides_extra[i];
    char *norm = ts_name_normalize(p, strlen(p));
    found = norm && strcmp(norm, extra) == 0;
    free(norm);
  }
  return found;
}

void ts_cli_warn_resolution(const struct ts_plan_result *res) {
  for (size_t i = 0; res->res && i < res->res->nignored; i++)
    ts_cli_warn("%s", res->res->ignored[i]);
  char *note = ts_plan_held_back_note(res);
  if (note)
    ts_cli_info("note: %s", note);
  free(note);
  for (size_t i = 0; res->res && i < res->res->nitems; i++) {
    const struct ts_plan_item *it = &res->items[i];
    const struct ts_resolved *x = it->r;
    char *assumed = strcmp(x->name, "torch") == 0
                        ? ts_rules_assumed_warning(&res->rules, x->version)
                        : NULL;
    if (assumed)
      ts_cli_warn("%s", assumed);
    free(assumed);
    if (x->file && x->file->yanked)
      ts_cli_warn("%s %s is yanked (%s): it was chosen because a requirement pins it",
                  x->name, x->version,
                  x->file->yanked_reason ? x->file->yanked_reason : "no reason given");
    if (!x->nextras || !it->metadata)
      continue;
    struct ts_metadata *md = NULL;
    struct ts_error ignore = {0};
    if (ts_metadata_parse(it->metadata, it->metadata_len, &md, &ignore) != TS_OK)
      continue;
    for (size_t k = 0; k < x->nextras; k++)
      if (!provides(md, x->extras[k]))
        ts_cli_warn("%s %s does not provide the extra '%s'", x->name, x->version,
                    x->extras[k]);
    ts_metadata_free(md);
  }
}

void ts_cli_resolution_figures(const struct ts_plan_result *res) {
  if (ts_cli.verbosity > 0 && res->res)
    ts_cli_info("  %zu solve%s, %zu project page%s, %zu METADATA file%s",
                res->res->solves, ts_cli_plural(res->res->solves),
                res->res->pages_fetched, ts_cli_plural(res->res->pages_fetched),
                res->res->metadata_fetched, ts_cli_plural(res->res->metadata_fetched));
}

void ts_cli_warn_plan_notes(const struct ts_plan_result *res) {
  for (size_t i = 0; res && i < res->nnotes; i++)
    ts_cli_warn("%s", res->notes[i]);
}

/* When a routed project ends up with a CPU build, say why no GPU build. */
static void explain_cpu(const struct ts_plan_result *r, const struct ts_cli_cpu_facts *f) {
  struct ts_plan_cpu_note n;
  if (!ts_plan_explain_cpu(r, f->rules, f->host, f->ignore_host, &n))
    return;
  char *text = ts_plan_cpu_note_text(&n);
  ts_cli_info("note: %s", text);
  free(text);
  for (size_t j = 0; j < n.backends->nbackends && ts_cli.verbosity > 0; j++)
    if (!n.backends->backends[j].usable && n.backends->backends[j].reason)
      ts_cli_info("  %s: %s", n.backends->backends[j].name, n.backends->backends[j].reason);
  ts_plan_cpu_note_clear(&n);
}

void ts_cli_resolved(const struct ts_plan_result *res, const char *profile,
                     const struct ts_cli_cpu_facts *cpu) {
  char el[32];
  ts_cli_info("Resolved %zu package%s%s%s in %s", res->res->nitems,
              ts_cli_plural(res->res->nitems), profile ? " for profile " : "",
              profile ? profile : "", ts_cli_elapsed(res->resolve_ms, el));
  ts_cli_resolution_figures(res);
  for (size_t i = 0; i < res->res->nitems; i++)
    if (res->items[i].variant_why)
      ts_cli_info("variant %s", res->items[i].variant_why);
  if (cpu && !res->res->held_back)
    explain_cpu(res, cpu);
  ts_cli_warn_resolution(res);
  if (cpu)
    ts_cli_warn_newer_torch(res, cpu->rules);
}

int ts_cli_report_resolve_failure(enum ts_code rc, const struct ts_error *err,
                                  const struct ts_plan_result *res) {
  if (rc == TS_E_RESOLVE && res && res->res)
    return ts_cli_report_explained(err, res->res->why.lines, res->res->why.nlines);
  /* a git URL that cannot be cloned (not found, network) ran no build:
   * its detail is git's own line, and no build log is shown */
  if (res && rc != TS_E_NOT_FOUND && rc != TS_E_NETWORK)
    ts_build_cli_print_log_tail(res->build_log);
  int status = ts_cli_report(err);
  return status ? status : 1;
}

void ts_cli_warn_unmet(const struct ts_plan_result *res) {
  char **unmet = NULL;
  size_t n = ts_plan_unmet_requirements(res, &unmet);
  for (size_t i = 0; i < n; i++) {
    ts_cli_warn("%s", unmet[i]);
    free(unmet[i]);
  }
  free(unmet);
}
