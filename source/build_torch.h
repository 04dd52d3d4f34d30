/*
 * source/build_torch.h — private to source/build.c: what a build that needs
 * torch is given (see source/build.h, "Torch-matched builds"): whether it needs
 * torch, the environment variables that steer torch extension builds, and
 * the nvcc check.
 */
#pragma once

#include <stdbool.h>
#include <stddef.h>

#include "core/error.h"
#include "host/host.h"
#include "rules/rules.h"
#include "source/source.h"

/* True when the build needs torch: build-system.requires names it, or
 * `project` (any spelling; may be NULL) is in the rules' torch_builds and
 * `location` (the source as given) is where that entry's only_from says
 * the project lives, when it says (git+https://github.com/NVIDIA/apex, not
 * PyPI's unrelated apex).  *nvcc: the rules say its build compiles CUDA
 * code. */
bool ts_build_torch_needed(const struct ts_build_system *bs, const char *project,
                           const char *location, const struct ts_rules *rules, bool *nvcc);

/* The backend of a torch build from its local label ("2.9.1+cu126" →
 * the rules' cu126), or NULL (no label, or one the rules do not know). */
const struct ts_rules_backend *ts_build_torch_backend(const struct ts_rules *rules,
                                                      const char *torch_version);

/* The variables a build against that backend gets, "NAME=VALUE" each,
 * appended to (*env, *n) (malloc'd strings): TORCH_CUDA_ARCH_LIST from
 * the host's compute capabilities ("8.6;9.0") and FORCE_CUDA=1 for CUDA,
 * PYTORCH_ROCM_ARCH from its gfx targets for ROCm.  A variable already
 * set in our environment is left to it (the backend inherits it). */
void ts_build_torch_env(const struct ts_rules_backend *b, const struct ts_host *host,
                        char ***env, size_t *n);

/* Before a CUDA build compiles: the nvcc it would use ($CUDA_HOME/bin,
 * $CUDA_PATH/bin, else PATH) against torch_cuda ("12.6").  torch's own
 * cpp_extension refuses only a CUDA major mismatch, and only for CUDA
 * extensions, so: when `required` (the rules mark the build `nvcc: true`,
 * it compiles CUDA code) a missing nvcc or one of another CUDA major is
 * refused (TS_E_REFUSED naming what was found and the fix) and another
 * minor is a warning; otherwise nothing is refused and another major is a
 * warning.  *warning (malloc'd, or NULL) gets that line; `what` names the
 * project. */
enum ts_code ts_build_torch_check_nvcc(const char *what, const char *torch_version,
                                       const char *torch_cuda, bool required,
                                       char **warning, struct ts_error *err);
