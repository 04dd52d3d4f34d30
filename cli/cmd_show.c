/* torchsolve show — installed distributions' metadata, as pip show
 * prints it.  The work is in inventory/show.c. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "core/alloc.h"
#include "inventory/inventory.h"

static const char usage[] =
    "usage: torchsolve show NAME... [-f] [options]\n"
    "\n"
    "Prints, for each installed NAME, pip show's fields: Name, Version,\n"
    "Summary, Home-page, Author, Author-email, License, Location, Editable\n"
    "project location (editable installs), Requires (the dependencies that\n"
    "apply here) and Required-by (installed distributions that require it);\n"
    "records are separated by '---'.  A name that is not installed is\n"
    "warned about; the exit status is 1 when none is.\n"
    "\n"
    "  -f, --files              list the files of its RECORD\n"
    "  --python PATH            interpreter or venv directory (default\n"
    "                           $TORCHSOLVE_PYTHON, $VIRTUAL_ENV, else ./.venv)\n"
    "  --system                 the python3 on PATH\n"
    "\n"
    "Examples:\n"
    "  torchsolve show torch\n"
    "  torchsolve show -f numpy | grep '\\.so$'\n";

static void join(const char *label, char *const *items, size_t n) {
  printf("%s:", label);
  for (size_t i = 0; i < n; i++)
    printf("%s%s", i ? ", " : " ", items[i]);
  /* pip writes "Requires: " with the blank even when the list is empty */
  printf(n ? "\n" : " \n");
}

static void field(const char *label, const char *value) {
  printf("%s: %s\n", label, value ? value : "");
}

static void print_info(const struct ts_show_info *s, bool files) {
  const struct ts_installed_dist *d = s->dist;
  field("Name", d->site->name);
  field("Version", d->version);
  if (d->variant_label) /* PEP 825 */
    field("Variant", d->variant_label);
  field("Summary", ts_metadata_get(d->md, "Summary"));
  field("Home-page", ts_metadata_get(d->md, "Home-page"));
  field("Author", ts_metadata_get(d->md, "Author"));
  field("Author-email", ts_metadata_get(d->md, "Author-email"));
  field("License", ts_metadata_get(d->md, "License"));
  field("Location", d->site->site);
  if (d->editable_location)
    field("Editable project location", d->editable_location);
  join("Requires", s->requires, s->nrequires);
  join("Required-by", s->required_by, s->nrequired_by);
  if (!files)
    return;
  printf("Files:\n");
  if (!s->has_record)
    printf("Cannot locate RECORD or installed-files.txt\n");
  for (size_t i = 0; i < s->nfiles; i++)
    printf("  %s\n", s->files[i]);
}

int ts_cmd_show(int argc, char **argv) {
  const char **names = ts_xcalloc((size_t)argc, sizeof *names);
  size_t n = 0;
  struct ts_cli_env_choice where = {0};
  bool files = false;
  int status = 0;
  for (int i = 1; i < argc && status == 0; i++) {
    const char *a = argv[i];
    int m;
    if (a[0] != '-' || !a[1]) {
      names[n++] = a;
    } else if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
      fputs(usage, stdout);
      free(names);
      return 0;
    } else if (!strcmp(a, "-f") || !strcmp(a, "--files")) {
      files = true;
    } else if ((m = ts_cli_env_option("show", &where, argc, argv, &i)) != 0) {
      status = m < 0 ? 2 : 0;
    } else {
      int g = ts_cli_parse_global("show", argc, argv, &i);
      if (g < 0)
        status = 2;
      else if (g == 0)
        status = ts_cli_usage_error("show", "unknown option '%s'", a);
    }
  }
  if (status == 0 && n == 0)
    status = ts_cli_usage_error("show", "give the NAME of an installed package");
  struct ts_plan_env env;
  if (status == 0)
    status = ts_cli_open_env("show", &where, &env);
  if (status != 0) {
    free(names);
    return status;
  }
  struct ts_show_info *info = NULL;
  size_t ninfo = 0;
  struct ts_plan_notes missing = {0};
  struct ts_error err = {0};
  enum ts_code rc = ts_plan_show(&env, names, n, files, &info, &ninfo, &missing, &err);
  if (missing.n) {
    /* pip's one warning line: "Package(s) not found: a, b" */
    fprintf(stderr, "warning: Package(s) not found: ");
    for (size_t k = 0; k < missing.n; k++)
      fprintf(stderr, "%s%s", k ? ", " : "", missing.lines[k]);
    fputc('\n', stderr);
  }
  if (rc != TS_OK) {
    status = ts_cli_report(&err);
  } else {
    for (size_t k = 0; k < ninfo; k++) {
      if (k)
        printf("---\n");
      print_info(&info[k], files);
    }
    status = ninfo ? 0 : 1;
  }
  ts_plan_show_free(info, ninfo);
  ts_plan_notes_clear(&missing);
  ts_plan_env_close(&env);
  free(names);
  return status;
}
