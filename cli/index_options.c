/* The package-index options shared by commands; see index_options.h. */
#include "cli/index_options.h"
#include "lock/reqfile.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"

const char ts_index_cli_help[] =
    "  -i, --index-url URL      general index (default " TS_INDEX_DEFAULT_URL ")\n"
    "  --extra-index-url URL    further index, asked only for projects the\n"
    "                           earlier ones lack (repeatable)\n"
    "  --no-index               ignore the general indexes\n"
    "  -f, --find-links LOC     flat page URL or local directory (repeatable)\n"
    "  --index-strategy S       first-index (default: a project comes from the\n"
    "                           first index that has it) or unsafe-best-match\n"
    "  --torch-index-url URL    PyTorch server base (default " TS_INDEX_DEFAULT_TORCH_URL ")\n"
    "  --cache-dir DIR          default $TORCHSOLVE_CACHE_DIR, else\n"
    "                           $XDG_CACHE_HOME/torchsolve, else ~/.cache/torchsolve\n"
    "  --refresh                revalidate every cached page\n"
    "  --offline                use only the cache; name what is missing\n"
    "  --no-cache               neither read nor write the cache\n"
    "  --cert FILE              CA bundle (default $SSL_CERT_FILE, else the system's)\n"
    "  --trusted-host HOST      skip TLS verification for HOST[:PORT] (repeatable)\n"
    "  --concurrency N          parallel transfers (default 16)\n"
    "  --timeout S              connect and stall timeout in seconds (default 15/30)\n"
    "  --retries N              retries on connection errors, stalls, 429 and 5xx\n"
    "                           (default 3; never on other 4xx)\n";

void ts_index_cli_init(struct ts_index_cli *o) {
  memset(o, 0, sizeof *o);
  o->opts.http.retries = -1;
}

static int parse_long(const char *s, long lo, long hi, long *out) {
  char *end;
  errno = 0;
  long v = strtol(s, &end, 10);
  if (errno || *end || end == s || v < lo || v > hi)
    return -1;
  *out = v;
  return 0;
}

/* Matches "--name VALUE" or "--name=VALUE"; sets *v. */
static int push(const char **list, size_t *n, const char *v, const char *command,
                const char *flag) {
  if (*n == TS_INDEX_CLI_MAX)
    return ts_cli_usage_error(command, "too many %s", flag), -1;
  list[(*n)++] = v;
  return 1;
}

int ts_index_cli_parse(struct ts_index_cli *o, const char *command, int argc, char **argv,
                       int *i) {
  struct ts_index_options *x = &o->opts;
  const char *a = argv[*i], *v = NULL;
  long l;
  if (strcmp(a, "--no-index") == 0) {
    x->no_index = true;
    return 1;
  }
  if (strcmp(a, "--refresh") == 0) {
    x->cache_mode = TS_CACHE_REFRESH;
    return 1;
  }
  if (strcmp(a, "--offline") == 0) {
    x->cache_mode = TS_CACHE_OFFLINE;
    return 1;
  }
  if (strcmp(a, "--no-cache") == 0) {
    x->cache_mode = TS_CACHE_DISABLED;
    return 1;
  }
  static const char *const valued[] = {
      "--index-url", "-i", "--extra-index-url", "--find-links", "-f", "--index-strategy",
      "--torch-index-url", "--cache-dir", "--cert", "--trusted-host", "--concurrency",
      "--timeout", "--retries"};
  for (size_t k = 0; k < sizeof valued / sizeof valued[0]; k++) {
    int m = ts_cli_flag_value(valued[k], argc, argv, i, &v);
    if (m == 0)
      continue;
    const char *f = valued[k];
    if (m < 0)
      return ts_cli_usage_error(command, "%s needs a value", f), -1;
    if (!strcmp(f, "--index-url") || !strcmp(f, "-i")) {
      x->index_url = v;
    } else if (!strcmp(f, "--extra-index-url")) {
      return push(o->extra, &x->nextra_index_urls, v, command, f);
    } else if (!strcmp(f, "--find-links") || !strcmp(f, "-f")) {
      return push(o->links, &x->nfind_links, v, command, f);
    } else if (!strcmp(f, "--trusted-host")) {
      return push(o->trusted, &x->http.ntrusted_hosts, v, command, f);
    } else if (!strcmp(f, "--index-strategy")) {
      if (!strcmp(v, "first-index"))
        x->strategy = TS_INDEX_FIRST_INDEX;
      else if (!strcmp(v, "unsafe-best-match"))
        x->strategy = TS_INDEX_UNSAFE_BEST_MATCH;
      else
        return ts_cli_usage_error(command, "unknown --index-strategy '%s' "
                                  "(first-index or unsafe-best-match)", v), -1;
    } else if (!strcmp(f, "--torch-index-url")) {
      x->torch_index_url = v;
    } else if (!strcmp(f, "--cache-dir")) {
      x->cache_dir = v;
    } else if (!strcmp(f, "--cert")) {
      x->http.ca_file = v;
    } else if (!strcmp(f, "--concurrency")) {
      if (parse_long(v, 1, 256, &l))
        return ts_cli_usage_error(command, "--concurrency wants 1..256"), -1;
      x->http.concurrency = (int)l;
    } else if (!strcmp(f, "--timeout")) {
      if (parse_long(v, 1, 3600, &l))
        return ts_cli_usage_error(command, "--timeout wants seconds (1..3600)"), -1;
      x->http.connect_timeout_s = x->http.read_timeout_s = l;
    } else if (!strcmp(f, "--retries")) {
      if (parse_long(v, 0, 20, &l))
        return ts_cli_usage_error(command, "--retries wants 0..20"), -1;
      x->http.retries = (int)l;
    }
    return 1;
  }
  return 0;
}

void ts_index_cli_finish(struct ts_index_cli *o) {
  o->opts.extra_index_urls = o->extra;
  o->opts.find_links = o->links;
  o->opts.http.trusted_hosts = o->trusted;
  if (!o->opts.http.ca_file) {
    const char *env = getenv("SSL_CERT_FILE");
    if (env && env[0])
      o->opts.http.ca_file = env;
  }
}

void ts_index_cli_apply_reqfile(struct ts_index_cli *o,
                                const struct ts_reqfile *rf) {
  if (!o->opts.index_url && rf->index_url)
    o->opts.index_url = rf->index_url;
  if (rf->no_index)
    o->opts.no_index = true;
  for (size_t i = 0; i < rf->nextra_index_urls &&
                     o->opts.nextra_index_urls < TS_INDEX_CLI_MAX; i++)
    o->extra[o->opts.nextra_index_urls++] = rf->extra_index_urls[i];
  for (size_t i = 0; i < rf->nfind_links && o->opts.nfind_links < TS_INDEX_CLI_MAX;
       i++)
    o->links[o->opts.nfind_links++] = rf->find_links[i];
}
