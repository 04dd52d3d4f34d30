/*
 * inventory/check.h — what `torchsolve check` judges below cli/: the
 * site-packages it reads (an interpreter's, or a directory named with
 * --path) and the rules of rules.yaml its installed set breaks, custom
 * torch builds included.  pip check's own half is envcheck.h.
 */
#pragma once

#include <stddef.h>

#include "core/error.h"
#include "inventory/envcheck.h"
#include "rules/rules.h"
#include "target/target.h"

struct ts_check_site {
  struct ts_target *target; /* the markers the requirements are read with */
  char *dirs[2];            /* purelib, platlib (or --path alone) */
  size_t ndirs;
};

/* python (ts_target_locate's rules) names the environment, or path a
 * site-packages directory: its interpreter is then described from
 * python_version, else from a "python3.X" in the path, else the python3
 * on PATH is probed.  Probes are cached under probe_cache_dir.  TS_E_PYTHON
 * for an interpreter that reports no site-packages.  Close with
 * ts_check_site_close (also after an error). */
enum ts_code ts_check_site_open(const char *python, const char *path,
                                const char *python_version, const char *probe_cache_dir,
                                struct ts_check_site *out, struct ts_error *err);
void ts_check_site_close(struct ts_check_site *site);

/* The rules the installed set r (read from site) breaks, appended to
 * *f / *nf: the set's rules, mixed CUDA stacks, and a torch whose local
 * label is no variant of the PyTorch server (2.9.1a0+gitd38164a) judged
 * by what its torch/version.py says it was built with. */
enum ts_code ts_check_rules(const struct ts_constraint_set *set,
                            const struct ts_check_site *site,
                            const struct ts_envcheck_result *r,
                            struct ts_rules_finding **f, size_t *nf, struct ts_error *err);
