/*
 * cli/rules_cli.h — what commands print about the rules themselves:
 * `rules update`, a file's problems as `rules check` prints them, which
 * rules are in force, and the once-a-day warning that an index offers a
 * torch release newer than them.
 */
#pragma once

#include <stdio.h>

#include "cli/gpu_options.h"
#include "rules/rules.h"

struct ts_plan_result;

/* torchsolve rules update [--index-url URL] [--refresh] [index options]. */
int ts_cmd_rules_update(int argc, char **argv);
/* torchsolve rules audit (cmd_rules_audit.c). */
int ts_cmd_rules_audit(int argc, char **argv);

/* The GPU and global options of a `rules` subcommand (cmd names it in
 * messages; json, when non-NULL, takes --json) and the rules in force
 * into *rules.  The other arguments are compacted to the front of argv,
 * --dist-info and --built-with with their values; *first_arg is their
 * count.  Returns 0, or the exit status after the message. */
int ts_cli_rules_load(struct ts_gpu_options *g, int argc, char **argv, const char *cmd,
                      bool *json, struct ts_rules **rules, int *first_arg);

/* Every problem as FILE:LINE:COLUMN: error: MESSAGE on stderr, then the
 * count. */
void ts_cli_print_rules_diags(const char *file, const struct ts_rules_diags *d);

/* Each finding as "SUBJECT: DETAIL (rule ID)", its message and its fix
 * on lines of their own, on stdout (check, rules audit). */
void ts_cli_print_rules_findings(const struct ts_rules_finding *f, size_t n);

/* "bundled 2026.11.28 (PATH)" or "updated 2026.12.01 (from URL)":
 * malloc'd. */
char *ts_cli_rules_in_force(const struct ts_rules *r);

/* The same as {"in_force": "bundled"|"updated", "version", "path", "url"}. */
struct cJSON;
struct cJSON *ts_cli_rules_in_force_json(const struct ts_rules *r);

/* The kernel driver's ROCm release the AMD window is reckoned from and
 * its basis (the set's __rocm_kmd fact), or (*rocm NULL) why there is
 * none: the kernel's own amdgpu runs.  False when neither applies. */
bool ts_cli_kernel_driver(const struct ts_constraint_set *s, const struct ts_rules *rules,
                          const struct ts_host *h, const char **rocm, char *basis, size_t cap);

/* After a resolution that read torch's page: a warning, at most once a
 * day (state in the data folder), when it offers a release newer than
 * every series the rules in force know. */
void ts_cli_warn_newer_torch(const struct ts_plan_result *res, const struct ts_rules *r);
