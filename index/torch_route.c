/* index/torch_route.c — see torch_route.h. */
#include "index/torch_route.h"

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

static const char *const default_torch_projects[] = {
    "torch", "torchvision", "torchaudio", "triton", "pytorch-triton-rocm", "pytorch-triton-xpu"};

void ts_index_torch_route_default_projects(struct ts_index_torch_route *r) {
  if (r->nprojects)
    return;
  for (size_t i = 0; i < sizeof default_torch_projects / sizeof default_torch_projects[0]; i++)
    r->projects[r->nprojects++] = default_torch_projects[i];
}

void ts_index_torch_route_set_variants(struct ts_index_torch_route *r, const struct ts_index *idx,
                                       const char *const *variants, size_t n) {
  for (size_t i = 0; i < n && r->nurls < TS_INDEX_TORCH_ROUTE_MAX; i++)
    r->urls[r->nurls++] = ts_index_torch_url(idx, variants[i]);
}

size_t ts_index_torch_route(void *ctx, const char *name, const char **urls, size_t max) {
  const struct ts_index_torch_route *r = ctx;
  bool routed = false;
  for (size_t i = 0; i < r->nprojects && !routed; i++)
    routed = strcmp(r->projects[i], name) == 0;
  if (!routed)
    return 0;
  size_t n = 0;
  for (size_t i = 0; i < r->nurls && n < max; i++)
    urls[n++] = r->urls[i];
  return n;
}

void ts_index_torch_route_clear(struct ts_index_torch_route *r) {
  for (size_t i = 0; i < r->nurls; i++)
    free(r->urls[i]);
  r->nurls = 0;
}
