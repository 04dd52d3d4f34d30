/*
 * cli/named_backend.h — the torch build the command line names
 * (plan/torch_backend.h): `--torch-backend B`, and PyTorch variant index
 * URLs among the general indexes (`--index-url .../whl/cu126`, pip's
 * `--extra-index-url`, requirement-file lines, PIP_INDEX_URL in pip mode).
 *
 *   struct ts_named_backends nb;
 *   ts_gpu_load_named(&g, &ic.opts, &host, &rules, &nb, &err);  (for ts_gpu_load)
 *   po.torch_backends = nb.names; po.ntorch_backends = nb.n;
 *   ...
 *   ts_named_backends_clear(&nb);
 */
#pragma once

#include <stddef.h>

#include "cli/gpu_options.h"
#include "core/error.h"
#include "host/host.h"
#include "index/client.h"
#include "rules/rules.h"

#define TS_NAMED_BACKENDS_MAX 8

struct ts_named_backends {
  const char *names[TS_NAMED_BACKENDS_MAX]; /* backend ids, owned by the rules */
  size_t n;
  char *torch_url; /* the server a variant index URL names (owned), or NULL */
};

/* Collects the named backends.  A variant index URL also names the server:
 * io->torch_index_url is pointed at it unless --torch-index-url (or its
 * variable) chose one.  With one GPU backend named and no GPU of its kind
 * on `h`, *h is described as a machine of that backend and a note says the
 * build cannot be checked here (none with --ignore-host).  TS_E_INVALID
 * for a --torch-backend that rules.yaml does not know, or one that
 * contradicts a variant index URL.  Clear *out in every case. */
enum ts_code ts_named_backends(const struct ts_gpu_options *g, struct ts_index_options *io,
                               const struct ts_rules *rules, struct ts_host *h,
                               struct ts_named_backends *out, struct ts_error *err);
void ts_named_backends_clear(struct ts_named_backends *nb);

/* ts_gpu_load, then ts_named_backends: all or nothing (on failure the
 * host, the rules and *nb are cleared). */
enum ts_code ts_gpu_load_named(const struct ts_gpu_options *g, struct ts_index_options *io,
                               struct ts_host *h, struct ts_rules **rules,
                               struct ts_named_backends *nb, struct ts_error *err);
