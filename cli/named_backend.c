/*
 * cli/named_backend.c — the torch build the command line names; see
 * named_backend.h.
 */
#include "cli/named_backend.h"

#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "cli/index_options.h"
#include "core/str.h"
#include "plan/torch_backend.h"

static void add_name(struct ts_named_backends *nb, const char *id) {
  for (size_t i = 0; i < nb->n; i++)
    if (strcmp(nb->names[i], id) == 0)
      return;
  if (nb->n < TS_NAMED_BACKENDS_MAX)
    nb->names[nb->n++] = id;
}

/* One general index URL: a variant index names its backend and server. */
static enum ts_code from_url(const struct ts_gpu_options *g, const struct ts_rules *rules,
                             const char *url, struct ts_named_backends *nb,
                             const char **source, struct ts_error *err) {
  char *base = NULL;
  const struct ts_rules_backend *b = ts_torch_backend_of_url(rules, url, &base);
  if (!b)
    return TS_OK;
  enum ts_code rc = TS_OK;
  if (g->torch_backend && strcmp(g->torch_backend, b->id) != 0)
    rc = ts_error_set(err, TS_E_INVALID,
                      "--torch-backend %s and the PyTorch index %s name different torch "
                      "builds; drop one of them",
                      g->torch_backend, url);
  else if (nb->torch_url && strcmp(nb->torch_url, base) != 0)
    rc = ts_error_set(err, TS_E_INVALID,
                      "the PyTorch indexes %s/... and %s name two servers; give one "
                      "(or --torch-index-url URL)",
                      nb->torch_url, url);
  if (rc == TS_OK) {
    add_name(nb, b->id);
    *source = url;
    if (!nb->torch_url) {
      nb->torch_url = base;
      base = NULL;
    }
  }
  free(base);
  return rc;
}

enum ts_code ts_named_backends(const struct ts_gpu_options *g, struct ts_index_options *io,
                               const struct ts_rules *rules, struct ts_host *h,
                               struct ts_named_backends *out, struct ts_error *err) {
  memset(out, 0, sizeof *out);
  if (!rules)
    return TS_OK;
  const char *source = NULL;
  if (g->torch_backend) {
    const struct ts_rules_backend *b = ts_rules_find_backend(rules, g->torch_backend);
    if (!b)
      return ts_error_set(err, TS_E_INVALID,
                          "--torch-backend %s: rules.yaml has no such backend; "
                          "'torchsolve rules list' shows them",
                          g->torch_backend);
    add_name(out, b->id);
    source = "--torch-backend";
  }
  enum ts_code rc = TS_OK;
  if (!io->no_index && io->index_url)
    rc = from_url(g, rules, io->index_url, out, &source, err);
  for (size_t i = 0; rc == TS_OK && !io->no_index && i < io->nextra_index_urls; i++)
    rc = from_url(g, rules, io->extra_index_urls[i], out, &source, err);
  if (rc != TS_OK)
    return rc;
  if (out->torch_url && !io->torch_index_url)
    io->torch_index_url = out->torch_url;
  if (out->n != 1)
    return TS_OK;
  const struct ts_rules_backend *b = ts_rules_find_backend(rules, out->names[0]);
  if (!b || ts_torch_backend_checkable(b, h))
    return TS_OK;
  char *why = g->torch_backend ? ts_xasprintf("--torch-backend %s", b->id)
                               : ts_xasprintf("the index %s", source);
  rc = ts_torch_backend_host(b, NULL, NULL, why, h, err);
  if (rc == TS_OK && !g->ov.ignore_host)
    ts_cli_info("note: this host has no %s GPU, so the +%s build cannot be checked "
                "against one; taking it as %s asks",
                b->kind == TS_BACKEND_CUDA ? "NVIDIA" : b->kind == TS_BACKEND_ROCM ? "AMD"
                                                                                  : "Intel",
                b->id, why);
  free(why);
  return rc;
}

void ts_named_backends_clear(struct ts_named_backends *nb) {
  free(nb->torch_url);
  memset(nb, 0, sizeof *nb);
}

enum ts_code ts_gpu_load_named(const struct ts_gpu_options *g, struct ts_index_options *io,
                               struct ts_host *h, struct ts_rules **rules,
                               struct ts_named_backends *nb, struct ts_error *err) {
  memset(nb, 0, sizeof *nb);
  /* The rules files are kept parsed in the cache these options name. */
  struct ts_gpu_options cached = *g;
  char *cache_root = ts_index_options_cache_root(io);
  cached.rules_cache_root = cache_root;
  enum ts_code rc = ts_gpu_load(&cached, h, rules, err);
  free(cache_root);
  if (rc == TS_OK && (rc = ts_named_backends(g, io, *rules, h, nb, err)) != TS_OK) {
    ts_named_backends_clear(nb);
    ts_rules_free(*rules);
    *rules = NULL;
    ts_host_clear(h);
  }
  return rc;
}
