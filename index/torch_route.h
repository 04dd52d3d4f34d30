/*
 * index/torch_route.h — the routing `torchsolve index` gives --torch-variant:
 * which projects are read from the torch variant indexes instead of the
 * main one (the torch family by default), and those indexes' URLs.
 * A ts_index_route_fn over this struct; plan/ routes resolutions its own way.
 */
#pragma once

#include <stddef.h>

#include "index/client.h"

/* More variants than this cannot be routed (TS_INDEX_MAX_ROUTES bounds a
 * project's sources anyway). */
#define TS_INDEX_TORCH_ROUTE_MAX 64

struct ts_index_torch_route {
  const char *projects[TS_INDEX_TORCH_ROUTE_MAX]; /* borrowed names */
  size_t nprojects;
  char *urls[TS_INDEX_TORCH_ROUTE_MAX]; /* owned: ts_index_torch_route_clear */
  size_t nurls;
};

/* When no project was named: the torch family (torch, torchvision,
 * torchaudio and the triton builds that ship beside them). */
void ts_index_torch_route_default_projects(struct ts_index_torch_route *r);

/* The variant indexes' URLs under idx's torch index (ts_index_torch_url). */
void ts_index_torch_route_set_variants(struct ts_index_torch_route *r, const struct ts_index *idx,
                                       const char *const *variants, size_t n);

/* ts_index_route_fn; ctx is a struct ts_index_torch_route. */
size_t ts_index_torch_route(void *ctx, const char *name, const char **urls, size_t max);

void ts_index_torch_route_clear(struct ts_index_torch_route *r);
