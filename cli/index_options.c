/* The package-index options shared by commands; see index_options.h. */
#include "core/cachewritable.h"
#include "core/fs.h"
#include "cli/index_options.h"
#include "core/str.h"
#include "request/reqfile.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include "cli/cli.h"
#include "index/cache.h"

const char ts_index_cli_help[] =
    "  -i, --index-url URL      general index (default " TS_INDEX_DEFAULT_URL ")\n"
    "  --extra-index-url URL    further index, asked only for projects the\n"
    "                           earlier ones lack (repeatable)\n"
    "  --no-index               ignore the general indexes\n"
    "  -f, --find-links LOC     flat page URL or local directory (repeatable)\n"
    "  --index-strategy S       first-index (default: a project comes from the\n"
    "                           first index that has it) or unsafe-best-match\n"
    "  --torch-index-url URL    PyTorch server base (default " TS_INDEX_DEFAULT_TORCH_URL "),\n"
    "                           its variant/ folder (PEP 825 wheels) read too\n"
    "  --cache-dir DIR          default $TORCHSOLVE_CACHE_DIR, else\n"
    "                           $XDG_CACHE_HOME/torchsolve, else ~/.cache/torchsolve\n"
    "  --refresh                revalidate every cached page, and ask again for\n"
    "                           pages that answered 404 (remembered 10 minutes)\n"
    "  --offline                use only the cache; name what is missing\n"
    "  --no-cache               neither read nor write the cache\n"
    "  --cert FILE              CA bundle (default $SSL_CERT_FILE, else the system's)\n"
    "  --client-cert FILE       client certificate and private key (one PEM file)\n"
    "  --proxy URL              proxy for every request, [user:pass@]host:port\n"
    "                           (default: the https_proxy, http_proxy variables)\n"
    "  --trusted-host HOST      skip TLS verification for HOST[:PORT] (repeatable)\n"
    "  --concurrency N          parallel transfers (default 16)\n"
    "  --timeout S              seconds one attempt may wait to connect, or with\n"
    "                           no data arriving (default 15 and 30), as pip's;\n"
    "                           each retry waits again, so a dead server costs up\n"
    "                           to (1 + --retries) times S\n"
    "  --retries N              retries on connection errors, stalls, 429 and 5xx\n"
    "                           (default 3; never on other 4xx)\n";

void ts_index_cli_init(struct ts_index_cli *o) {
  memset(o, 0, sizeof *o);
  o->opts.http.retries = -1;
}


/* Appends v to a repeatable option's list. */
static int push(const char **list, size_t *n, const char *v, const char *command,
                const char *flag) {
  if (*n == TS_INDEX_CLI_MAX)
    return ts_cli_usage_error(command, "too many %s", flag), -1;
  list[(*n)++] = v;
  return 1;
}

/* Applies one valued option; `what` names it in messages (the flag, or the
 * environment variable it came from). */
static int apply_value(struct ts_index_cli *o, const char *flag, const char *what,
                       const char *v, const char *command) {
  struct ts_index_options *x = &o->opts;
  long l;
  if (!strcmp(flag, "--index-url") || !strcmp(flag, "-i")) {
    x->index_url = v;
  } else if (!strcmp(flag, "--extra-index-url")) {
    return push(o->extra, &x->nextra_index_urls, v, command, what);
  } else if (!strcmp(flag, "--find-links") || !strcmp(flag, "-f")) {
    return push(o->links, &x->nfind_links, v, command, what);
  } else if (!strcmp(flag, "--trusted-host")) {
    return push(o->trusted, &x->http.ntrusted_hosts, v, command, what);
  } else if (!strcmp(flag, "--index-strategy")) {
    if (!strcmp(v, "first-index"))
      x->strategy = TS_INDEX_FIRST_INDEX;
    else if (!strcmp(v, "unsafe-best-match"))
      x->strategy = TS_INDEX_UNSAFE_BEST_MATCH;
    else
      return ts_cli_usage_error(command, "unknown %s '%s' "
                                "(first-index or unsafe-best-match)", what, v), -1;
    o->set_strategy = true;
  } else if (!strcmp(flag, "--torch-index-url")) {
    x->torch_index_url = v;
  } else if (!strcmp(flag, "--cache-dir")) {
    x->cache_dir = v;
  } else if (!strcmp(flag, "--cert")) {
    x->http.ca_file = v;
  } else if (!strcmp(flag, "--client-cert")) {
    x->http.client_cert = v;
  } else if (!strcmp(flag, "--proxy")) {
    x->http.proxy = v;
  } else if (!strcmp(flag, "--concurrency")) {
    if (ts_cli_parse_long(v, 1, 256, &l))
      return ts_cli_usage_error(command, "%s wants 1..256, not '%s'", what, v), -1;
    x->http.concurrency = (int)l;
  } else if (!strcmp(flag, "--timeout")) {
    if (ts_cli_parse_long(v, 1, 3600, &l))
      return ts_cli_usage_error(command, "%s wants seconds (1..3600), not '%s'", what,
                                v), -1;
    x->http.connect_timeout_s = x->http.read_timeout_s = l;
  } else if (!strcmp(flag, "--retries")) {
    if (ts_cli_parse_long(v, 0, 20, &l))
      return ts_cli_usage_error(command, "%s wants 0..20, not '%s'", what, v), -1;
    x->http.retries = (int)l;
  }
  return 1;
}

int ts_index_cli_parse(struct ts_index_cli *o, const char *command, int argc, char **argv,
                       int *i) {
  struct ts_index_options *x = &o->opts;
  const char *a = argv[*i], *v = NULL;
  if (strcmp(a, "--no-index") == 0) {
    x->no_index = true;
    return 1;
  }
  static const struct {
    const char *flag;
    enum ts_cache_mode mode;
  } modes[] = {{"--refresh", TS_CACHE_REFRESH},
               {"--offline", TS_CACHE_OFFLINE},
               {"--no-cache", TS_CACHE_DISABLED}};
  for (size_t k = 0; k < sizeof modes / sizeof modes[0]; k++)
    if (strcmp(a, modes[k].flag) == 0) {
      x->cache_mode = modes[k].mode;
      o->set_cache_mode = true;
      return 1;
    }
  static const char *const valued[] = {
      "--index-url", "-i", "--extra-index-url", "--find-links", "-f", "--index-strategy",
      "--torch-index-url", "--cache-dir", "--cert", "--client-cert", "--proxy",
      "--trusted-host", "--concurrency", "--timeout", "--retries"};
  for (size_t k = 0; k < sizeof valued / sizeof valued[0]; k++) {
    int m = ts_cli_flag_value(valued[k], argc, argv, i, &v);
    if (m == 0)
      continue;
    if (m < 0)
      return ts_cli_usage_error(command, "%s needs a value", valued[k]), -1;
    return apply_value(o, valued[k], valued[k], v, command);
  }
  return 0;
}

/* pip's PIP_<FLAG> convention: an environment variable stands in for a
 * flag the command line (or a requirements file) did not give.  List
 * variables hold several values separated by whitespace, as
 * PIP_EXTRA_INDEX_URL does; they are split into o->env_values, which the
 * struct owns, so no allocation outlives the command. */
static int apply_env_list(struct ts_index_cli *o, const char *flag, const char *name,
                          const char *v, const char *command) {
  size_t used = o->env_used;
  for (const char *p = v;;) {
    p += strspn(p, " \t\n");
    if (!*p)
      return 0;
    size_t n = strcspn(p, " \t\n");
    if (used + n + 1 > sizeof o->env_values)
      return ts_cli_usage_error(command, "%s is too long", name), -1;
    char *copy = o->env_values + used;
    memcpy(copy, p, n);
    copy[n] = 0;
    used += n + 1;
    o->env_used = used;
    if (apply_value(o, flag, name, copy, command) < 0)
      return -1;
    p += n;
  }
}

static bool env_true(const char *v) {
  return !strcmp(v, "1") || !strcasecmp(v, "true") || !strcasecmp(v, "yes") ||
         !strcasecmp(v, "on");
}

static int apply_environment(struct ts_index_cli *o, const char *command) {
  struct ts_index_options *x = &o->opts;
  static const struct {
    const char *name, *flag;
  } singles[] = {{"TORCHSOLVE_INDEX_URL", "--index-url"},
                 {"TORCHSOLVE_TORCH_INDEX_URL", "--torch-index-url"},
                 {"TORCHSOLVE_INDEX_STRATEGY", "--index-strategy"},
                 {"TORCHSOLVE_CONCURRENCY", "--concurrency"}};
  for (size_t k = 0; k < sizeof singles / sizeof singles[0]; k++) {
    const char *v = getenv(singles[k].name);
    if (!v || !*v)
      continue;
    bool given = (k == 0 && x->index_url) || (k == 1 && x->torch_index_url) ||
                 (k == 2 && o->set_strategy) || (k == 3 && x->http.concurrency);
    if (!given && apply_value(o, singles[k].flag, singles[k].name, v, command) < 0)
      return -1;
  }
  const char *v = getenv("TORCHSOLVE_EXTRA_INDEX_URL");
  if (v && !x->nextra_index_urls &&
      apply_env_list(o, "--extra-index-url", "TORCHSOLVE_EXTRA_INDEX_URL", v, command) < 0)
    return -1;
  v = getenv("TORCHSOLVE_FIND_LINKS");
  if (v && !x->nfind_links &&
      apply_env_list(o, "--find-links", "TORCHSOLVE_FIND_LINKS", v, command) < 0)
    return -1;
  if (!o->set_cache_mode) {
    if ((v = getenv("TORCHSOLVE_OFFLINE")) && env_true(v))
      x->cache_mode = TS_CACHE_OFFLINE;
    else if ((v = getenv("TORCHSOLVE_NO_CACHE")) && env_true(v))
      x->cache_mode = TS_CACHE_DISABLED;
  }
  return 0;
}

/* A cache this run cannot write (read-only, another user's, a full
 * filesystem) is left out with one warning, as pip's "cache has been
 * disabled": the run goes on as --no-cache.  --offline reads it only. */
static void disable_unwritable_cache(struct ts_index_cli *o) {
  if (o->opts.cache_mode == TS_CACHE_DISABLED || o->opts.cache_mode == TS_CACHE_OFFLINE)
    return;
  char *root = ts_index_cli_cache_root(o);
  struct ts_error err = {0};
  if (ts_cache_root_writable(root, &err) != TS_OK) {
    ts_cli_warn("cache disabled: %s; going on without it, as --no-cache", err.detail);
    o->opts.cache_mode = TS_CACHE_DISABLED;
  }
  free(root);
}

int ts_index_cli_finish(struct ts_index_cli *o, const char *command) {
  if (apply_environment(o, command) < 0)
    return -1;
  disable_unwritable_cache(o);
  o->opts.http.cancel = &ts_cli.interrupted;
  o->opts.extra_index_urls = o->extra;
  o->opts.find_links = o->links;
  o->opts.http.trusted_hosts = o->trusted;
  if (o->opts.cache_dir && o->opts.cache_dir[0] != '/') {
    /* a build backend runs elsewhere: "cache" must name one folder for all */
    char *abs = ts_path_absolute(o->opts.cache_dir);
    int n = snprintf(o->cache_dir, sizeof o->cache_dir, "%s", abs);
    free(abs);
    if (n < 0 || (size_t)n >= sizeof o->cache_dir)
      return ts_cli_usage_error(command, "--cache-dir '%s': the path is too long",
                                o->opts.cache_dir), -1;
    o->opts.cache_dir = o->cache_dir;
  }
  /* checked now, not at the first https request (never, on an http index) */
  if (o->opts.http.ca_file && access(o->opts.http.ca_file, R_OK) != 0)
    return ts_cli_usage_error(command, "--cert '%s': %s", o->opts.http.ca_file,
                              strerror(errno)), -1;
  if (o->opts.http.client_cert && access(o->opts.http.client_cert, R_OK) != 0)
    return ts_cli_usage_error(command, "--client-cert '%s': %s",
                              o->opts.http.client_cert, strerror(errno)), -1;
  if (!o->opts.http.ca_file) {
    const char *env = getenv("SSL_CERT_FILE");
    if (env && env[0])
      o->opts.http.ca_file = env;
  }
  return 0;
}

void ts_index_cli_apply_reqfile(struct ts_index_cli *o, const struct ts_reqfile *rf,
                                const char *default_index_url) {
  if (rf->index_url)
    o->opts.index_url = rf->index_url;
  else if (!o->opts.index_url)
    o->opts.index_url = default_index_url;
  if (rf->no_index)
    o->opts.no_index = true;
  for (size_t i = 0; i < rf->nextra_index_urls &&
                     o->opts.nextra_index_urls < TS_INDEX_CLI_MAX; i++)
    o->extra[o->opts.nextra_index_urls++] = rf->extra_index_urls[i];
  for (size_t i = 0; i < rf->nfind_links && o->opts.nfind_links < TS_INDEX_CLI_MAX;
       i++)
    o->links[o->opts.nfind_links++] = rf->find_links[i];
}

char *ts_index_options_cache_root(const struct ts_index_options *o) {
  if (o->cache_mode == TS_CACHE_DISABLED)
    return NULL;
  return o->cache_dir ? ts_xstrdup(o->cache_dir) : ts_cache_root_dir();
}

char *ts_index_cli_cache_root(const struct ts_index_cli *o) {
  return ts_index_options_cache_root(&o->opts);
}
