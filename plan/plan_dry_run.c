/* The --dry-run plan lines: see dry_run.h. */
#include "plan/dry_run.h"

#include <stdlib.h>
#include <string.h>

#include "core/str.h"
#include "index/url.h"
#include "pep/version.h"
#include "variant/label.h"

char *ts_plan_dry_run_line(const char *action, const char *name, const char *version,
                           const char *index, const char *was) {
  const char *plus = strchr(version, '+');
  char *idx = index ? ts_url_without_userinfo(index) : NULL;
  char *line = ts_xasprintf("%s %s %s %s %s%s%s%s", action, name, version,
                            plus ? plus + 1 : "-", idx ? idx : "-", was ? " (was " : "",
                            was ? was : "", was ? ")" : "");
  free(idx);
  return line;
}

void ts_plan_dry_run_lines(const struct ts_plan_result *r, struct ts_plan_notes *out) {
  for (size_t i = 0; r->res && i < r->res->nitems; i++) {
    const struct ts_resolved *x = &r->res->items[i];
    /* the version replaced: a variant switch (2.10.0+cpu -> 2.10.0+cu126)
     * reads as "upgrade torch 2.10.0+cu126" without it */
    const char *was = x->installed_version && x->action != TS_ACTION_KEEP &&
                              x->action != TS_ACTION_INSTALL
                          ? x->installed_version
                          : NULL;
    char *line = ts_plan_dry_run_line(ts_resolved_action_name(x->action), x->name,
                                      x->version, r->items[i].index, was);
    if (r->items[i].variant_label) { /* a PEP 825 variant: its label in the variant column */
      char *idx = r->items[i].index ? ts_url_without_userinfo(r->items[i].index) : NULL;
      free(line);
      line = ts_xasprintf("%s %s %s [%s] %s%s%s%s", ts_resolved_action_name(x->action),
                          x->name, x->version, r->items[i].variant_label, idx ? idx : "-",
                          was ? " (was " : "", was ? was : "", was ? ")" : "");
      free(idx);
    }
    if (x->sdist && x->action != TS_ACTION_KEEP) { /* built from its sdist */
      char *built = ts_xasprintf("%s (would build)", line);
      free(line);
      line = built;
    }
    ts_plan_notes_add(out, line);
  }
  for (size_t i = 0; i < r->norphans; i++) {
    char *line = ts_plan_dry_run_line("remove", r->orphans[i], r->orphan_versions[i], NULL,
                                      NULL);
    char *why = ts_xasprintf("%s (orphaned by the switch of builds)", line);
    free(line);
    ts_plan_notes_add(out, why);
  }
}

/* upgrade or downgrade, as install --dry-run names a change */
static const char *change_name(const struct ts_sync_item *it) {
  struct ts_version *a = NULL, *b = NULL;
  const char *what = it->source ? "rebuild" : "change"; /* versions that do not parse */
  if (it->new_version && ts_version_parse(it->old_version, strlen(it->old_version), &a, NULL) == TS_OK &&
      ts_version_parse(it->new_version, strlen(it->new_version), &b, NULL) == TS_OK) {
    int c = ts_version_cmp(b, a);
    what = c > 0 ? "upgrade" : c < 0 ? "downgrade" : "reinstall";
  }
  ts_version_free(a);
  ts_version_free(b);
  return what;
}

/* The PEP 825 label of a locked wheel (malloc'd), or NULL. */
static char *locked_label(const struct ts_pylock_file *wheel) {
  char *name = wheel ? ts_pylock_file_decoded_name(wheel) : NULL;
  char *plain = NULL, *label = NULL;
  if (name && ts_variant_split_filename(name, strlen(name), &plain, &label, NULL) != TS_OK)
    label = NULL;
  free(plain);
  free(name);
  return label;
}

/* "install nvlib 1.0 - URL" → "install nvlib 1.0 [cu13] URL": the column
 * after the version holds the label. */
static char *with_label(char *line, const char *action, const char *name, const char *version,
                        const char *label) {
  size_t head = strlen(action) + strlen(name) + strlen(version) + 2;
  if (strlen(line) < head + 3 || strncmp(line + head, " - ", 3) != 0)
    return line;
  char *labelled = ts_xasprintf("%.*s [%s]%s", (int)head, line, label, line + head + 2);
  free(line);
  return labelled;
}

void ts_plan_sync_dry_run_lines(const struct ts_sync_plan *plan, struct ts_plan_notes *out) {
  for (size_t i = 0; i < plan->n; i++) {
    const struct ts_sync_item *it = &plan->items[i];
    const char *version = it->action == TS_SYNC_REMOVE ? it->old_version
                          : it->new_version                 ? it->new_version
                                                            : "-"; /* a source tree */
    const char *action = it->action == TS_SYNC_INSTALL  ? "install"
                         : it->action == TS_SYNC_KEEP   ? "keep"
                         : it->action == TS_SYNC_REMOVE ? "remove"
                                                        : change_name(it);
    char *line = ts_plan_dry_run_line(action, it->name, version, it->pkg ? it->pkg->index : NULL,
                                      it->action == TS_SYNC_CHANGE ? it->old_version : NULL);
    char *label = it->action != TS_SYNC_REMOVE ? locked_label(it->wheel) : NULL;
    if (label) /* the variant the lock's wheel is, in the variant column as install shows it */
      line = with_label(line, action, it->name, version, label);
    free(label);
    ts_plan_notes_add(out, line);
  }
}
