/*
 * cli/index_options.h — the package-index options shared by index, install,
 * lock and sync: which indexes, the cache mode and HTTP behaviour.
 *
 *   --index-url URL, -i URL   general index (default https://pypi.org/simple)
 *   --extra-index-url URL     further general index (repeatable)
 *   --no-index                no general index (find-links, routed indexes)
 *   --find-links LOC, -f LOC  flat page URL or local directory (repeatable)
 *   --index-strategy first-index|unsafe-best-match
 *   --torch-index-url URL     PyTorch wheel server base
 *                             (default https://download.pytorch.org/whl)
 *   --cache-dir DIR           TORCHSOLVE_CACHE_DIR, XDG_CACHE_HOME, ~/.cache
 *   --refresh | --offline | --no-cache
 *   --cert FILE               SSL_CERT_FILE       CA bundle
 *   --client-cert FILE        client certificate + key (PEM), pip's spelling
 *   --proxy URL               proxy for every request (beats *_proxy)
 *   --trusted-host HOST[:PORT] (repeatable)       no TLS verification
 *   --concurrency N           parallel transfers (default 16)
 *   --timeout S               connect and stall timeout
 *   --retries N               on connection errors, stalls, 429, 5xx (default 3)
 * Both "--flag VALUE" and "--flag=VALUE" are accepted.
 * Environment variables stand in for flags not given (on the command line
 * or in a requirements file), as pip's PIP_* do: TORCHSOLVE_INDEX_URL,
 * TORCHSOLVE_EXTRA_INDEX_URL and TORCHSOLVE_FIND_LINKS (whitespace-separated
 * lists), TORCHSOLVE_TORCH_INDEX_URL, TORCHSOLVE_INDEX_STRATEGY,
 * TORCHSOLVE_CONCURRENCY, TORCHSOLVE_OFFLINE and TORCHSOLVE_NO_CACHE
 * (1/true/yes/on); TORCHSOLVE_CACHE_DIR is read by the index module.
 *
 * Usage from a command:
 *   struct ts_index_cli o;
 *   ts_index_cli_init(&o);
 *   for (...) { int used = ts_index_cli_parse(&o, "install", argc, argv, &i);
 *               if (used < 0) return 2; if (used) continue; ... }
 *   if (ts_index_cli_finish(&o, "install") < 0) return 2;
 *                                       (environment defaults, pointers)
 *   idx = ts_index_new(&o.opts, &err);  (set o.opts.route first if needed)
 */
#pragma once

#include <stdbool.h>
#include <stddef.h>

#include "index/client.h"

#define TS_INDEX_CLI_MAX 64

struct ts_index_cli {
  struct ts_index_options opts; /* strings borrowed from argv / environ */
  const char *extra[TS_INDEX_CLI_MAX];
  const char *links[TS_INDEX_CLI_MAX];
  const char *trusted[TS_INDEX_CLI_MAX];
  bool set_strategy, set_cache_mode; /* given as flags */
  char env_values[4096];             /* split list variables, NUL-separated */
  char cache_dir[4096];              /* --cache-dir made absolute */
  size_t env_used;
};

/* The option lines above, for a command's --help. */
extern const char ts_index_cli_help[];

void ts_index_cli_init(struct ts_index_cli *o);

/* Tries argv[*i] as one of the options above.  Returns 1 when consumed
 * (advancing *i past a separate value), 0 when it is not ours, -1 after
 * printing a usage error for `command`. */
int ts_index_cli_parse(struct ts_index_cli *o, const char *command, int argc,
                       char **argv, int *i);

/* Applies the environment variables above and SSL_CERT_FILE for what no
 * flag set, and points opts at the collected lists.  Returns 0, or -1
 * after printing a usage error naming the bad variable. */
int ts_index_cli_finish(struct ts_index_cli *o, const char *command);

/* The cache root these options name: --cache-dir, else the default
 * ($TORCHSOLVE_CACHE_DIR, $XDG_CACHE_HOME/torchsolve, ~/.cache/torchsolve);
 * NULL with --no-cache.  Pages, unpacked wheels and interpreter probes all
 * live under it, so --cache-dir moves all of them.  malloc'd. */
char *ts_index_cli_cache_root(const struct ts_index_cli *o);
/* The same from the options alone. */
char *ts_index_options_cache_root(const struct ts_index_options *o);

/* Index lines of requirements files, as pip reads them: a file's -i
 * replaces the flags' index URL (so PyTorch's own install line,
 * --index-url .../whl/cu126, names its build and server), and
 * --extra-index-url, --no-index and -f add to the flags'; without
 * either, default_index_url (a project's [tool.torchsolve] index-url; may be
 * NULL).  Call before finish; the strings stay owned by rf and the caller,
 * who must let them outlive o. */
struct ts_reqfile;
void ts_index_cli_apply_reqfile(struct ts_index_cli *o, const struct ts_reqfile *rf,
                                const char *default_index_url);
