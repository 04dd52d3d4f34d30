/* REQ arguments and requirements files: see reqargs.h. */
#include "cli/reqargs.h"

#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "cli/cli.h"
#include "core/alloc.h"
#include "core/str.h"

void ts_cli_reqs_init(struct ts_cli_reqs *r, int argc) {
  memset(r, 0, sizeof *r);
  ts_reqfile_init(&r->rf);
  r->args = ts_xcalloc((size_t)argc, sizeof *r->args);
}

static int add_arg(struct ts_cli_reqs *r, const char *command, const char *text,
                   bool editable) {
  struct ts_error err = {0};
  struct ts_reqfile_entry *e = ts_xcalloc(1, sizeof *e);
  enum ts_code rc = ts_reqfile_parse_requirement(text, strlen(text), NULL, e, &err);
  if (rc == TS_OK && editable && (rc = ts_reqfile_mark_editable(e, &err)) != TS_OK)
    ts_reqfile_entry_clear(e);
  if (rc != TS_OK) {
    free(e);
    /* a file that is no wheel is bad input, not bad usage (pip exits 1);
     * its message names it */
    size_t n = strlen(text);
    if (n > 4 && strcasecmp(text + n - 4, ".whl") == 0 && strstr(err.detail, "wheel file name"))
      return ts_cli_report(&err);
    return ts_cli_usage_error(command, "'%s': %s", text, err.detail);
  }
  r->args = ts_xreallocarray(r->args, r->nargs + 1, sizeof *r->args);
  r->args[r->nargs++] = e;
  return 0;
}

int ts_cli_reqs_add_project(struct ts_cli_reqs *r, const char *command,
                            const struct ts_project *p) {
  int status = 0;
  for (size_t i = 0; i < p->nrequires && !status; i++)
    status = add_arg(r, command, p->requires[i], false);
  for (size_t s = 0; s < p->nextras + p->ngroups && !status; s++) {
    const struct ts_project_set *set = s < p->nextras ? &p->extras[s] : &p->groups[s - p->nextras];
    for (size_t i = 0; i < set->nrequires && !status; i++)
      status = add_arg(r, command, set->requires[i], false);
  }
  for (size_t i = 0; i < p->nextra_index_urls; i++) {
    r->rf.extra_index_urls = ts_xreallocarray(r->rf.extra_index_urls,
                                              r->rf.nextra_index_urls + 1,
                                              sizeof *r->rf.extra_index_urls);
    r->rf.extra_index_urls[r->rf.nextra_index_urls++] = ts_xstrdup(p->extra_index_urls[i]);
  }
  return status;
}

int ts_cli_reqs_add_arg(struct ts_cli_reqs *r, const char *command, const char *text) {
  return add_arg(r, command, text, false);
}

int ts_cli_reqs_add_editable(struct ts_cli_reqs *r, const char *command, const char *dir) {
  return add_arg(r, command, dir, true);
}

int ts_cli_reqs_add_file(struct ts_cli_reqs *r, const char *path, bool constraint) {
  struct ts_error err = {0};
  if (ts_reqfile_add_file(&r->rf, path, constraint, NULL, &err) == TS_OK)
    return 0;
  int status = ts_cli_report(&err);
  return status ? status : 1;
}

int ts_cli_reqs_add_binary(struct ts_cli_reqs *r, const char *command, const char *value,
                           bool no_binary) {
  struct ts_error err = {0};
  if (ts_formatctl_add(&r->binary, value, no_binary, &err) != TS_OK)
    return ts_cli_usage_error(command, "%s", err.detail);
  return 0;
}

int ts_cli_reqs_collect(struct ts_cli_reqs *r, const char *command, const char *verb) {
  struct ts_error err = {0};
  if (ts_formatctl_add_reqfile(&r->binary, &r->rf, &err) != TS_OK) {
    int status = ts_cli_report(&err);
    return status ? status : 1;
  }
  free(r->all);
  r->nall = r->nargs + r->rf.nentries;
  r->all = ts_xcalloc(r->nall, sizeof *r->all);
  size_t nroots = 0;
  for (size_t i = 0; i < r->nargs; i++)
    r->all[i] = r->args[i];
  for (size_t i = 0; i < r->rf.nentries; i++)
    r->all[r->nargs + i] = &r->rf.entries[i];
  for (size_t i = 0; i < r->nall; i++)
    nroots += !r->all[i]->is_constraint;
  if (nroots == 0)
    return ts_cli_usage_error(command, "nothing to %s: give REQ or -r FILE", verb);
  return 0;
}

void ts_cli_reqs_free(struct ts_cli_reqs *r) {
  ts_reqfile_clear(&r->rf);
  for (size_t i = 0; i < r->nargs; i++) {
    ts_reqfile_entry_clear(r->args[i]);
    free(r->args[i]);
  }
  free(r->args);
  free(r->all);
  ts_formatctl_clear(&r->binary);
}
