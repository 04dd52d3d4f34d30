/*
 * plan/torch_backend.c — a torch build the user names (see torch_backend.h).
 */
#include <stdlib.h>
#include <string.h>

#include "core/alloc.h"
#include "core/buf.h"
#include "core/str.h"
#include "plan/torch_backend.h"

const struct ts_rules_backend *ts_torch_backend_of_url(const struct ts_rules *rules,
                                                       const char *url, char **base) {
  if (base)
    *base = NULL;
  if (!rules || !url)
    return NULL;
  const char *path = strstr(url, "://");
  path = path ? strchr(path + 3, '/') : NULL;
  if (!path || strpbrk(path, "?#"))
    return NULL;
  size_t end = strlen(url);
  while (end > (size_t)(path - url) && url[end - 1] == '/')
    end--;
  size_t start = end;
  while (start > (size_t)(path - url) && url[start - 1] != '/')
    start--;
  if (start == end || start <= (size_t)(path - url))
    return NULL;
  char id[64];
  if (end - start >= sizeof id)
    return NULL;
  memcpy(id, url + start, end - start);
  id[end - start] = '\0';
  const struct ts_rules_backend *b = ts_rules_find_backend(rules, id);
  if (!b)
    return NULL;
  /* a "whl" segment above it: PyTorch's layout, not any folder of that name */
  bool whl = false;
  for (const char *s = path; s && s < url + start && !whl; s = strchr(s + 1, '/'))
    whl = strncmp(s, "/whl/", 5) == 0 && s + 4 < url + start;
  if (!whl)
    return NULL;
  if (base)
    *base = ts_xstrndup(url, start - 1);
  return b;
}

bool ts_torch_backend_checkable(const struct ts_rules_backend *b, const struct ts_host *h) {
  switch (b->kind) {
  case TS_BACKEND_CUDA:
    return h->cuda_driver || h->ncuda_gpus;
  case TS_BACKEND_ROCM:
    return h->nrocm_gpus > 0;
  case TS_BACKEND_XPU:
    return h->xpu;
  default:
    return true;
  }
}

enum ts_code ts_torch_backend_host(const struct ts_rules_backend *b, const char *cc,
                                   const char *gfx_list, const char *source,
                                   struct ts_host *h, struct ts_error *err) {
  struct ts_host_overrides ov = {.ignore_host = true};
  char *gfx = NULL;
  switch (b->kind) {
  case TS_BACKEND_CPU:
    ov.cpu = true;
    break;
  case TS_BACKEND_CUDA:
    ov.cuda = TS_HOST_SET;
    ov.cuda_version = b->version;
    ov.cuda_source = source;
    ov.compute_capabilities = cc;
    ov.compute_capabilities_source = source;
    break;
  case TS_BACKEND_ROCM: {
    ov.rocm = TS_HOST_SET;
    ov.rocm_version = b->version;
    ov.rocm_source = source;
    struct ts_buf list;
    ts_buf_init(&list, 0);
    for (size_t i = 0; !gfx_list && i < b->ngfx; i++)
      ts_buf_xprintf(&list, "%s%s", i ? "," : "", b->gfx[i]);
    gfx = ts_buf_take(&list, NULL);
    ov.gfx = gfx_list ? gfx_list : *gfx ? gfx : NULL;
    ov.gfx_source = source;
    break;
  }
  case TS_BACKEND_XPU:
    ov.xpu = true;
    break;
  default:
    break;
  }
  enum ts_code rc = ts_host_apply_overrides(h, &ov, err);
  free(gfx);
  return rc;
}
