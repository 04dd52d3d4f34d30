/*
 * cli/resolution_notes.h — what install and lock print about a resolution:
 * the summary line, why it failed (ts_cli_report_resolve_failure), and
 * for one that succeeded the warnings pip prints: a yanked file was chosen (PEP 592 allows it only for an == or
 * === pin, and the installer must say so, with the reason), and an extra
 * asked for that the chosen distribution does not provide; and torchsolve's
 * note when torch is held back below the best build this host runs
 * (ts_plan_held_back_note), or why it is a CPU build; the requirements the
 * plan leaves unmet.
 */
#pragma once

#include <stdbool.h>

#include "core/error.h"

struct ts_host;
struct ts_plan_result;
struct ts_rules;

/* What explains a CPU build: the rules and host the plan was made with. */
struct ts_cli_cpu_facts {
  const struct ts_rules *rules;
  const struct ts_host *host;
  bool ignore_host;
};

/* After a successful resolution: "Resolved N packages in T" ("... for
 * profile P" with profile non-NULL), the figures (-v), with cpu non-NULL
 * why a routed project got a CPU build (unless torch is held back: that
 * note says it; -v adds each unusable backend's reason), then
 * ts_cli_warn_resolution, and (with cpu facts, for this host) the
 * once-a-day warning of a torch newer than the rules (rules_cli.h). */
void ts_cli_resolved(const struct ts_plan_result *res, const char *profile,
                     const struct ts_cli_cpu_facts *cpu);

/* A failed ts_plan_resolve (rc): the conflict chain for TS_E_RESOLVE, a failed
 * build's log tail, then the error.  Returns the exit status (never 0). */
int ts_cli_report_resolve_failure(enum ts_code rc, const struct ts_error *err,
                                  const struct ts_plan_result *res);

/* pip's check after resolving (ts_plan_unmet_requirements): one warning
 * line per requirement the plan leaves unmet. */
void ts_cli_warn_unmet(const struct ts_plan_result *res);

/* Prints one warning line per finding on stderr (always, as pip does). */
void ts_cli_warn_resolution(const struct ts_plan_result *res);

/* With -v: what the resolution took (libsolv solves, project pages and
 * METADATA files read), for profiling hard cases. */
void ts_cli_resolution_figures(const struct ts_plan_result *res);

/* The plan's notes (what it passed over on purpose), one warning line
 * each; for a failed resolution too. */
void ts_cli_warn_plan_notes(const struct ts_plan_result *res);
