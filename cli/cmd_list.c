/* torchsolve list — installed packages, as pip list prints them (columns,
 * freeze or json); --outdated/--uptodate ask the indexes.  The work is in
 * inventory/list.c. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "cli/index_options.h"
#include "core/alloc.h"
#include "inventory/inventory.h"

static const char usage[] =
    "usage: torchsolve list [--format columns|freeze|json] [options]\n"
    "\n"
    "Lists the installed distributions sorted by name, as pip list does.\n"
    "\n"
    "  --format F               columns (default: 'Package Version' table),\n"
    "                           freeze ('name==version') or json (pip's: a\n"
    "                           list of {\"name\", \"version\", ...})\n"
    "  -o, --outdated           only those with a newer version on the\n"
    "                           indexes, with columns Latest and Type\n"
    "  -u, --uptodate           only those at the newest version\n"
    "  --pre                    a pre-release may be the newest version\n"
    "  -e, --editable           only editable installs\n"
    "  --exclude-editable       leave editable installs out\n"
    "  --not-required           only what no other installed package requires\n"
    "  --exclude NAME           leave NAME out (repeatable)\n"
    "  -l, --local              accepted for pip's spelling: only the\n"
    "                           environment's own site-packages are read\n"
    "  -v, --verbose            also each one's Location and Installer (pip's\n"
    "                           columns; \"location\" and \"installer\" in json)\n"
    "  --python PATH            interpreter or venv directory (default\n"
    "                           $TORCHSOLVE_PYTHON, $VIRTUAL_ENV, else ./.venv)\n"
    "  --system                 the python3 on PATH\n"
    "\n"
    "Package indexes (for --outdated and --uptodate):\n";

static const char usage_tail[] =
    "\nExamples:\n"
    "  torchsolve list\n"
    "  torchsolve list --outdated --format json\n"
    "  torchsolve list --not-required --format freeze\n";

/* A JSON string as Python's json.dumps writes it (ensure_ascii: every
 * character past ASCII as \\uXXXX, surrogate pairs above the BMP). */
static void json_str(const char *s) {
  putchar('"');
  const unsigned char *p = (const unsigned char *)s;
  while (*p) {
    unsigned c = *p;
    unsigned cp = c;
    int extra = c >= 0xf0 ? 3 : c >= 0xe0 ? 2 : c >= 0xc0 ? 1 : 0;
    if (extra) {
      cp = c & (0x3fu >> extra);
      for (int k = 1; k <= extra && p[k]; k++)
        cp = (cp << 6) | (p[k] & 0x3fu);
      p += extra;
    }
    p++;
    if (cp == '"' || cp == '\\')
      printf("\\%c", (char)cp);
    else if (cp == '\n')
      printf("\\n");
    else if (cp == '\t')
      printf("\\t");
    else if (cp == '\r')
      printf("\\r");
    else if (cp < 0x20 || (cp >= 0x7f && cp < 0x10000))
      printf("\\u%04x", cp);
    else if (cp >= 0x10000)
      printf("\\u%04x\\u%04x", 0xd800 + ((cp - 0x10000) >> 10),
             0xdc00 + ((cp - 0x10000) & 0x3ff));
    else
      putchar((int)cp);
  }
  putchar('"');
}

/* With -v pip adds where each distribution is and what installed it. */
static void print_json(const struct ts_list_row *rows, size_t n, bool latest, bool verbose) {
  putchar('[');
  for (size_t i = 0; i < n; i++) {
    const struct ts_installed_dist *d = rows[i].dist;
    printf(i ? ", {\"name\": " : "{\"name\": ");
    json_str(d->site->name);
    printf(", \"version\": ");
    json_str(d->version);
    if (d->variant_label) {
      printf(", \"variant\": ");
      json_str(d->variant_label);
    }
    if (verbose) {
      printf(", \"location\": ");
      json_str(d->site->site ? d->site->site : "");
      printf(", \"installer\": ");
      json_str(d->installer ? d->installer : "");
    }
    if (latest && rows[i].latest) {
      printf(", \"latest_version\": ");
      json_str(rows[i].latest);
      printf(", \"latest_filetype\": ");
      json_str(rows[i].latest_type);
    }
    if (d->editable_location) {
      printf(", \"editable_project_location\": ");
      json_str(d->editable_location);
    }
    putchar('}');
  }
  printf("]\n");
}

/* pip's tabulate: each column as wide as its widest cell, one blank
 * between, trailing blanks dropped, a dashed line under the header. */
static void print_columns(const struct ts_list_row *rows, size_t n, bool latest,
                          bool verbose) {
  if (n == 0)
    return;
  bool editable = false, variant = false;
  for (size_t i = 0; i < n; i++) {
    editable |= rows[i].dist->editable_location != NULL;
    variant |= rows[i].dist->variant_label != NULL;
  }
  const char *head[8] = {"Package", "Version"};
  size_t ncol = 2;
  if (variant) /* PEP 825 labels, only when a variant is installed */
    head[ncol++] = "Variant";
  if (latest) {
    head[ncol++] = "Latest";
    head[ncol++] = "Type";
  }
  if (editable)
    head[ncol++] = "Editable project location";
  if (verbose) {
    head[ncol++] = "Location";
    head[ncol++] = "Installer";
  }
  const char **cells = ts_xcalloc((n + 1) * ncol, sizeof *cells);
  for (size_t c = 0; c < ncol; c++)
    cells[c] = head[c];
  for (size_t i = 0; i < n; i++) {
    const char **row = cells + (i + 1) * ncol;
    size_t c = 0;
    row[c++] = rows[i].dist->site->name;
    row[c++] = rows[i].dist->version;
    if (variant)
      row[c++] = rows[i].dist->variant_label ? rows[i].dist->variant_label : "";
    if (latest) {
      row[c++] = rows[i].latest ? rows[i].latest : "";
      row[c++] = rows[i].latest_type ? rows[i].latest_type : "";
    }
    if (editable)
      row[c++] = rows[i].dist->editable_location ? rows[i].dist->editable_location : "";
    if (verbose) {
      row[c++] = rows[i].dist->site->site ? rows[i].dist->site->site : "";
      row[c++] = rows[i].dist->installer ? rows[i].dist->installer : "";
    }
  }
  size_t width[8] = {0};
  for (size_t r = 0; r <= n; r++)
    for (size_t c = 0; c < ncol; c++)
      if (strlen(cells[r * ncol + c]) > width[c])
        width[c] = strlen(cells[r * ncol + c]);
  for (size_t r = 0; r <= n; r++) {
    char line[8192];
    size_t len = 0;
    for (size_t c = 0; c < ncol && len < sizeof line; c++)
      len += (size_t)snprintf(line + len, sizeof line - len, "%s%-*s", c ? " " : "",
                              (int)width[c], cells[r * ncol + c]);
    if (len >= sizeof line)
      len = sizeof line - 1;
    while (len && line[len - 1] == ' ')
      len--;
    printf("%.*s\n", (int)len, line);
    if (r == 0)
      for (size_t c = 0; c < ncol; c++) {
        printf("%s", c ? " " : "");
        for (size_t k = 0; k < width[c]; k++)
          putchar('-');
        if (c + 1 == ncol)
          putchar('\n');
      }
  }
  free(cells);
}

int ts_cmd_list(int argc, char **argv) {
  struct ts_index_cli ic;
  ts_index_cli_init(&ic);
  const char **exclude = ts_xcalloc((size_t)argc, sizeof *exclude);
  struct ts_list_options o = {.exclude = exclude};
  struct ts_cli_env_choice where = {0};
  const char *format = "columns";
  int status = 0;
  for (int i = 1; i < argc && status == 0; i++) {
    const char *a = argv[i], *v = NULL;
    int m;
    if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
      fputs(usage, stdout);
      fputs(ts_index_cli_help, stdout);
      fputs(usage_tail, stdout);
      free(exclude);
      return 0;
    } else if (!strcmp(a, "-o") || !strcmp(a, "--outdated")) {
      o.select = TS_LIST_OUTDATED;
    } else if (!strcmp(a, "-u") || !strcmp(a, "--uptodate")) {
      o.select = TS_LIST_UPTODATE;
    } else if (!strcmp(a, "--pre")) {
      o.pre = true;
    } else if (!strcmp(a, "-e") || !strcmp(a, "--editable")) {
      o.editable_only = true;
    } else if (!strcmp(a, "--exclude-editable")) {
      o.exclude_editable = true;
    } else if (!strcmp(a, "--not-required")) {
      o.not_required = true;
    } else if (!strcmp(a, "-l") || !strcmp(a, "--local")) {
      /* only the environment's site-packages are ever read */
    } else if ((m = ts_cli_env_option("list", &where, argc, argv, &i)) != 0) {
      status = m < 0 ? 2 : 0;
    } else if ((m = ts_cli_flag_value("--exclude", argc, argv, &i, &v)) != 0) {
      if (m < 0)
        status = ts_cli_usage_error("list", "--exclude needs a value");
      exclude[o.nexclude++] = v;
    } else if ((m = ts_cli_flag_value("--format", argc, argv, &i, &v)) != 0) {
      if (m < 0 || (strcmp(v, "columns") && strcmp(v, "freeze") && strcmp(v, "json")))
        status = ts_cli_usage_error("list", "--format must be columns, freeze or json");
      format = v;
    } else {
      int g = ts_cli_parse_global("list", argc, argv, &i);
      if (g == 0)
        g = ts_index_cli_parse(&ic, "list", argc, argv, &i);
      if (g < 0)
        status = 2;
      else if (g == 0)
        status = ts_cli_usage_error("list", a[0] == '-' ? "unknown option '%s'"
                                                        : "unexpected argument '%s'",
                                    a);
    }
  }
  if (status == 0 && o.editable_only && o.exclude_editable)
    status = ts_cli_usage_error("list", "--editable and --exclude-editable exclude each other");
  if (status == 0 && o.select != TS_LIST_ALL && !strcmp(format, "freeze"))
    status = ts_cli_usage_error("list", "--outdated and --uptodate need --format columns or json");
  if (status == 0 && ts_index_cli_finish(&ic, "list") < 0)
    status = 2;
  struct ts_plan_env env;
  if (status == 0)
    status = ts_cli_open_env("list", &where, &env);
  if (status != 0) {
    free(exclude);
    return status;
  }
  o.index = &ic.opts;
  struct ts_list_row *rows = NULL;
  size_t n = 0;
  struct ts_error err = {0};
  if (ts_plan_list(&env, &o, &rows, &n, &err) != TS_OK) {
    status = ts_cli_report(&err);
  } else if (!strcmp(format, "json")) {
    print_json(rows, n, o.select == TS_LIST_OUTDATED, ts_cli.verbosity > 0);
  } else if (!strcmp(format, "freeze")) {
    for (size_t i = 0; i < n; i++)
      printf("%s==%s\n", rows[i].dist->site->name, rows[i].dist->version);
  } else {
    print_columns(rows, n, o.select == TS_LIST_OUTDATED, ts_cli.verbosity > 0);
  }
  ts_plan_list_free(rows, n);
  ts_plan_env_close(&env);
  free(exclude);
  return status;
}
