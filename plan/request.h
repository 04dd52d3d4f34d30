/*
 * plan/request.h — an install or a download as the user asked for it,
 * settled into what the plan does: which interpreter, whether the
 * installed set is read and the environment locked, whether anything is
 * installed at all, and where (the environment, a --target or --prefix
 * tree, a download directory).  cli/ fills the request from its options;
 * every decision about what those options mean together is made here.
 */
#pragma once

#include <signal.h>
#include <stdbool.h>
#include <stddef.h>

#include "core/error.h"
#include "inventory/inventory.h"
#include "plan/plan.h"

struct ts_plan_request {
  bool download;               /* place the files in dest, install nothing */
  const char *dest;            /* download: the directory (NULL: ".") */
  const char *python;          /* --python, or NULL */
  bool system;                 /* --system: the python3 on PATH */
  const char *python_version;  /* --python-version: plan for an absent interpreter */
  const char *platform;        /* --platform (needs python_version) */
  const char *target_dir;      /* --target: pip's home-scheme tree */
  const char *prefix_dir;      /* --prefix: the interpreter's layout under DIR */
  bool user;                   /* --user: the interpreter's user site (tree.h) */
  /* The first option given that only install has (named in download's
   * refusal), or NULL. */
  const char *install_only;
  bool dry_run, upgrade, eager, force_reinstall, no_deps, pre, prefer_binary;
  bool ignore_installed, require_hashes, compile, allow_overwrite;
  bool verify_cache;           /* see ts_wheel_options.verify_cache */
  bool break_system_packages, no_wait;
  enum ts_resolution_mode resolution;
  enum ts_wheel_link_mode link_mode;
  struct ts_target_spec spec_;  /* storage for ts_plan_request_options */
  struct ts_plan_install_options runtime_io_; /* and for its runtime_install */
};

/* Options that exclude or need each other: TS_E_USAGE with the sentence
 * to show ("--platform needs --python-version"), else TS_OK. */
enum ts_code ts_plan_request_check(const struct ts_plan_request *q, struct ts_error *err);

/* What the options imply: --system is the python3 on PATH; a --target or
 * --prefix tree, or a download, with no interpreter named (--python,
 * $TORCHSOLVE_PYTHON, $VIRTUAL_ENV, ./.venv) is for the python3 on PATH,
 * as pip's; an install for --python-version is a dry run (there is
 * nothing to install into). */
void ts_plan_request_settle(struct ts_plan_request *q);

/* Sets the target and resolution fields of *po from the settled request
 * (python, spec, resolution, pre, prefer_binary, dry_run, upgrade,
 * force_reinstall, no_deps, break_system_packages, no_wait,
 * runtime_install for an install into the environment): the installed set is read unless it is
 * a download, -I or a --target tree (a --prefix tree counts it, as pip
 * does), and the environment locked only for a real install into it.
 * The other fields of *po are left as they are. */
void ts_plan_request_options(struct ts_plan_request *q, struct ts_plan_options *po);

/* ts_plan_resolve, or ts_plan_resolve_eager for -U with the eager
 * strategy; same results and errors. */
enum ts_code ts_plan_request_resolve(const struct ts_plan_request *q,
                                     const struct ts_plan_options *po,
                                     struct ts_plan_result **out, struct ts_error *err);

/* How many items the resolution changes (anything but keep). */
size_t ts_plan_count_changes(const struct ts_plan_result *r);

/* What carrying out a resolution did. */
struct ts_plan_outcome {
  size_t changed;              /* distributions installed, or files saved */
  struct ts_plan_notes kept;   /* --target entries kept, in pip's words */
};
void ts_plan_outcome_clear(struct ts_plan_outcome *o);

/* Carries out a resolution (not for a dry run): a download saves the
 * verified files in dest; a --target or --prefix tree is made when
 * anything changes, installed into and, for --target, moved into DIR;
 * --user installs into the interpreter's user site, refused in a venv and,
 * as pip, for an externally managed interpreter (PEP 668) unless
 * break_system_packages; an install goes into the environment.  Errors as
 * ts_plan_install and inventory/tree.h; *out holds what was done so far
 * (clear it anyway). */
enum ts_code ts_plan_request_carry_out(const struct ts_plan_request *q,
                                       struct ts_plan_result *r,
                                       const struct ts_plan_callbacks *cb,
                                       const volatile sig_atomic_t *cancel,
                                       struct ts_plan_outcome *out, struct ts_error *err);
