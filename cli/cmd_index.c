/* torchsolve index fetch|metadata — diagnostic commands over the index
 * client: what the indexes say about projects, and a wheel's METADATA read
 * the way the resolver reads it (PEP 658, range requests, whole wheel). */
#include <cjson/cJSON.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "cli/index_options.h"
#include "cli/usage.h"
#include "core/alloc.h"
#include "index/client.h"
#include "index/page_file.h"
#include "index/project_json.h"
#include "index/torch_route.h"
#include "index/url.h"

struct index_args {
  struct ts_index_cli cli;
  const char *variants[TS_INDEX_TORCH_ROUTE_MAX];
  size_t nvariants;
  struct ts_index_torch_route route;
  struct ts_index *idx;
  bool json, stats;
  const char *sha256, *metadata_sha256, *output;
  bool metadata_flag, progress;
  long repeat;
};

/* Parses options into a; positional arguments are collected in pos. */
static int parse_args(int argc, char **argv, struct index_args *a, const char **pos,
                      size_t *npos) {
  ts_index_cli_init(&a->cli);
  a->repeat = 1;
  *npos = 0;
  for (int i = 2; i < argc; i++) {
    const char *s = argv[i];
    const char *v = i + 1 < argc ? argv[i + 1] : NULL;
    int used = ts_index_cli_parse(&a->cli, "index", argc, argv, &i);
    if (used < 0)
      return 2;
    if (used)
      continue;
#define TAKE(flag) (strcmp(s, flag) == 0 && v && (i++, 1))
    long l;
    if (strcmp(s, "--help") == 0 || strcmp(s, "-h") == 0) {
      ts_cli_index_help(stdout);
      return 1;
    } else if (TAKE("--torch-variant")) {
      if (a->nvariants == TS_INDEX_TORCH_ROUTE_MAX)
        return ts_cli_usage_error("index", "too many --torch-variant");
      a->variants[a->nvariants++] = v;
    } else if (TAKE("--torch-project")) {
      if (a->route.nprojects == TS_INDEX_TORCH_ROUTE_MAX)
        return ts_cli_usage_error("index", "too many --torch-project");
      a->route.projects[a->route.nprojects++] = v;
    } else if (TAKE("-o") || TAKE("--output")) {
      a->output = v;
    } else if (TAKE("--repeat")) {
      if (ts_cli_parse_long(v, 1, 1000000, &l))
        return ts_cli_usage_error("index", "--repeat wants 1..1000000");
      a->repeat = l;
    } else if (strcmp(s, "--progress") == 0) {
      a->progress = true;
    } else if (TAKE("--sha256")) {
      a->sha256 = v;
    } else if (strcmp(s, "--metadata") == 0) {
      a->metadata_flag = true;
    } else if (strncmp(s, "--metadata=", 11) == 0) {
      a->metadata_flag = true;
      a->metadata_sha256 = s + 11;
    } else if (strcmp(s, "--json") == 0) {
      a->json = true;
    } else if (strcmp(s, "--stats") == 0) {
      a->stats = true;
    } else if (strcmp(s, "--") == 0) {
      for (i++; i < argc; i++)
        pos[(*npos)++] = argv[i];
    } else if (s[0] == '-') {
      return ts_cli_usage_error("index", "unknown or incomplete option '%s'", s);
    } else {
      pos[(*npos)++] = s;
    }
#undef TAKE
  }
  if (ts_index_cli_finish(&a->cli, "index") < 0)
    return 2;
  ts_index_torch_route_default_projects(&a->route);
  if (a->nvariants) {
    a->cli.opts.route = ts_index_torch_route;
    a->cli.opts.route_ctx = &a->route;
  }
  return 0;
}

static void print_stats(const struct index_args *a) {
  if (!a->stats || !a->idx)
    return;
  struct ts_http_stats s = ts_index_http_stats(a->idx);
  fprintf(stderr, "stats: %llu requests, %llu bytes, %llu retries, %llu not modified\n",
          (unsigned long long)s.requests, (unsigned long long)s.bytes,
          (unsigned long long)s.retries, (unsigned long long)s.not_modified);
}

static int cmd_fetch(struct index_args *a, const char **names, size_t n) {
  if (!n)
    return ts_cli_usage_error("index", "name at least one project");
  struct ts_index_result *res = ts_xcalloc(n, sizeof *res);
  struct ts_error err = {0};
  enum ts_code c = ts_index_fetch_projects(a->idx, names, n, res, &err);
  int status = 0;
  if (c) {
    status = ts_cli_report(&err);
  } else {
    cJSON *arr = a->json ? cJSON_CreateArray() : NULL;
    for (size_t i = 0; i < n; i++) {
      struct ts_index_result *r = &res[i];
      if (r->code) {
        int s = ts_cli_report(&r->err);
        if (!status)
          status = s;
        continue;
      }
      if (arr) {
        cJSON_AddItemToArray(arr, ts_index_project_json(&r->project));
        continue;
      }
      char *iu = ts_url_redact(r->project.index_url);
      printf("%s: %zu files from %s\n", r->project.name, r->project.nfiles, iu);
      for (size_t k = 0; k < r->project.nfiles; k++) {
        const struct ts_index_file *f = &r->project.files[k];
        printf("  %s sha256=%s metadata=%s", f->filename, f->sha256 ? f->sha256 : "-",
               f->has_metadata ? (f->metadata_sha256 ? "pep658+hash" : "pep658") : "no");
        if (f->requires_python)
          printf(" requires-python=%s", f->requires_python);
        /* the reason is free text from the publisher: quoted, so that it
         * cannot be read as another field */
        if (f->yanked && f->yanked_reason && f->yanked_reason[0])
          printf(" yanked=\"%s\"", f->yanked_reason);
        else if (f->yanked)
          printf(" yanked");
        putchar('\n');
      }
      free(iu);
    }
    if (arr) {
      char *s = cJSON_Print(arr);
      if (s)
        puts(s);
      free(s);
      cJSON_Delete(arr);
    }
  }
  for (size_t i = 0; i < n; i++)
    ts_index_project_clear(&res[i].project);
  free(res);
  return status;
}

static int cmd_metadata(struct index_args *a, const char **pos, size_t n) {
  if (n != 1)
    return ts_cli_usage_error("index", "name exactly one wheel URL");
  struct ts_index_file f = {0};
  f.url = (char *)pos[0];
  f.filename = ts_url_basename(pos[0]);
  f.sha256 = (char *)a->sha256;
  f.has_metadata = a->metadata_flag;
  f.metadata_sha256 = (char *)a->metadata_sha256;
  f.size = -1;
  if (!f.filename) {
    return ts_cli_usage_error("index", "'%s' does not end in a file name", pos[0]);
  }
  struct ts_index_metadata m = {0};
  m.file = &f;
  struct ts_error err = {0};
  enum ts_code c = ts_index_fetch_metadata(a->idx, &m, 1, &err);
  const char *const *warnings = NULL;
  for (size_t i = 0, nw = ts_index_warnings(a->idx, &warnings); i < nw; i++)
    ts_cli_warn("%s", warnings[i]);
  int status = 0;
  if (c)
    status = ts_cli_report(&err);
  else if (m.code)
    status = ts_cli_report(&m.err);
  else {
    fwrite(m.data, 1, m.len, stdout);
    fprintf(stderr, "source: %s\n", ts_index_metadata_source_name(m.source));
  }
  ts_index_metadata_clear(&m);
  free(f.filename);
  return status;
}

/* Parses local page files (as fetched, JSON when the name ends in .json)
 * --repeat times and reports what was found and the parse throughput. */
static int cmd_parse(struct index_args *a, const char **pos, size_t n) {
  if (!n)
    return ts_cli_usage_error("index", "parse wants page files");
  struct ts_index_page_parse acc = {0};
  for (size_t i = 0; i < n; i++) {
    struct ts_error err = {0};
    if (ts_index_parse_page_file(pos[i], a->cli.opts.index_url, a->repeat, &acc, &err))
      return ts_cli_report(&err);
    if (!a->stats)
      printf("%s: %zu files\n", pos[i], acc.nfiles);
  }
  double t = acc.seconds;
  if (a->stats)
    fprintf(stderr, "parse: %llu bytes, %llu files in %.3f s: %.1f MB/s, %.0f files/s\n",
            (unsigned long long)acc.bytes, (unsigned long long)acc.files, t,
            t > 0 ? (double)acc.bytes / t / 1e6 : 0.0, t > 0 ? (double)acc.files / t : 0.0);
  return 0;
}

/* One progress line per MiB is plenty for a diagnostic command. */
#define PROGRESS_STEP (1u << 20)

static void on_progress(void *ctx, uint64_t done, uint64_t total) {
  uint64_t *last = ctx;
  if (done - *last < PROGRESS_STEP && done != total)
    return;
  *last = done;
  fprintf(stderr, "progress: %llu/%llu bytes\n", (unsigned long long)done,
          (unsigned long long)total);
}

static int cmd_download(struct index_args *a, const char **pos, size_t n) {
  if (n != 1 || !a->output)
    return ts_cli_usage_error("index", "download wants one URL and -o DEST");
  uint64_t last = 0;
  struct ts_index_download d = {0};
  d.url = pos[0];
  d.sha256 = a->sha256;
  d.dest = a->output;
  if (a->progress) {
    d.progress = on_progress;
    d.progress_ctx = &last;
  }
  struct ts_error err = {0};
  enum ts_code c = ts_index_download(a->idx, &d, 1, &err);
  if (c)
    return ts_cli_report(&err);
  if (d.code)
    return ts_cli_report(&d.err);
  printf("%s %llu bytes sha256=%s\n", d.dest, (unsigned long long)d.bytes, d.sha256_out);
  return 0;
}

int ts_cmd_index(int argc, char **argv) {
  if (argc < 2 || strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0) {
    ts_cli_index_help(argc < 2 ? stderr : stdout);
    return argc < 2 ? 2 : 0;
  }
  struct index_args *a = ts_xcalloc(1, sizeof *a);
  const char **pos = ts_xcalloc((size_t)argc, sizeof *pos); /* positionals: at most argc */
  size_t npos = 0;
  int status = parse_args(argc, argv, a, pos, &npos);
  if (status) {
    free(a);
    free(pos);
    return status == 1 ? 0 : status;
  }
  struct ts_error err = {0};
  if (strcmp(argv[1], "fetch") != 0 && strcmp(argv[1], "metadata") != 0 &&
      strcmp(argv[1], "download") != 0 && strcmp(argv[1], "parse") != 0) {
    free(a);
    free(pos);
    return ts_cli_usage_error("index", "unknown subcommand '%s'", argv[1]);
  }
  a->idx = ts_index_new(&a->cli.opts, &err);
  if (a->idx)
    ts_index_torch_route_set_variants(&a->route, a->idx, a->variants, a->nvariants);
  if (!a->idx)
    status = ts_cli_report(&err);
  else if (strcmp(argv[1], "fetch") == 0)
    status = cmd_fetch(a, pos, npos);
  else if (strcmp(argv[1], "parse") == 0)
    status = cmd_parse(a, pos, npos);
  else if (strcmp(argv[1], "metadata") == 0)
    status = cmd_metadata(a, pos, npos);
  else
    status = cmd_download(a, pos, npos);
  print_stats(a);
  ts_index_torch_route_clear(&a->route);
  ts_index_free(a->idx);
  free(a);
  free(pos);
  return status;
}
