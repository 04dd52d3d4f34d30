/*
 * plan/torch_backend.h — a torch build the user names: `--torch-backend
 * rocm6.4` (uv's flag), or a PyTorch variant index given as an index URL
 * (`--index-url https://mirror/whl/cu126`, PyTorch's own install line,
 * `--extra-index-url` lines of requirements files and of what `export
 * --emit-index-url` writes).  Either is the user's choice of build: install
 * and lock take torch (and what the rules route with it) from that variant
 * only (ts_plan_options.torch_backends), from the server the URL names.
 *
 * On a machine without a GPU of the backend's kind (an image builder) the
 * build cannot be checked against one: the host is described as a machine
 * of that backend (as `lock --profile NAME` does: cuXYZ a driver running
 * CUDA X.Y, rocmX.Y an installed ROCm X.Y with every target its builds
 * carry, xpu an Intel GPU), so the rules let the named build through, and
 * the caller says so.  Where such a GPU is there, its facts stay and the
 * rules still refuse a build it cannot run (with the fix).
 */
#pragma once

#include <stdbool.h>
#include <stddef.h>

#include "core/error.h"
#include "host/host.h"
#include "rules/rules.h"

/* The backend of a PyTorch variant index URL: one whose last path segment
 * is a backend id of `rules` ("cu126", "rocm6.4", "cpu", "xpu") under a
 * `whl` segment (".../whl/cu126", ".../whl/nightly/cu126", trailing slash
 * or not).  Writes the server base (the URL without that segment, no
 * trailing slash; malloc'd) to *base when base is non-NULL.  NULL for
 * any other URL. */
const struct ts_rules_backend *ts_torch_backend_of_url(const struct ts_rules *rules,
                                                       const char *url, char **base);

/* Whether `h` has a GPU of b's kind to check its builds against: an NVIDIA
 * driver or compute capability for CUDA, a gfx target for ROCm, an Intel
 * GPU for XPU; always true for cpu. */
bool ts_torch_backend_checkable(const struct ts_rules_backend *b, const struct ts_host *h);

/* Describes `h` as a machine of backend `b` (see above), each fact's
 * source being `source` ("--torch-backend rocm6.4", "--profile cu126"):
 * its GPUs have the compute capabilities `cc` (a comma list, or NULL:
 * none given) or the gfx targets `gfx` (NULL: every target b's builds
 * carry).  One description for a named backend and a fleet profile.
 * TS_E_INVALID when the backend's version or a list is malformed. */
enum ts_code ts_torch_backend_host(const struct ts_rules_backend *b, const char *cc,
                                   const char *gfx, const char *source,
                                   struct ts_host *h, struct ts_error *err);
