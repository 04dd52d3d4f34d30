/*
 * cli/resolution_notes.h — the warnings pip prints about a resolution that
 * succeeded: a yanked file was chosen (PEP 592 allows it only for an == or
 * === pin, and the installer must say so, with the reason), and an extra
 * asked for that the chosen distribution does not provide; and torchsolve's
 * note when torch is held back below the best build this host runs
 * (ts_plan_held_back_note).
 */
#pragma once

struct ts_plan_result;

/* Prints one warning line per finding on stderr (always, as pip does). */
void ts_cli_warn_resolution(const struct ts_plan_result *res);

/* With -v: what the resolution took (libsolv solves, project pages and
 * METADATA files read), for profiling hard cases. */
void ts_cli_resolution_figures(const struct ts_plan_result *res);

/* The plan's notes (what it passed over on purpose), one warning line
 * each; for a failed resolution too. */
void ts_cli_warn_plan_notes(const struct ts_plan_result *res);
