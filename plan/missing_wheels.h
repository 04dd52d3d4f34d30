/*
 * plan/missing_wheels.h — a universal lock's environments that no wheel of
 * a package fits, said once per package: every environment x profile x
 * package line ("CPython 3.11 on darwin arm64: no wheel of hf-xet 1.6.0
 * fits") was thousands of identical-shaped warnings.
 */
#pragma once

#include <stddef.h>

struct ts_missing_wheels;

struct ts_missing_wheels *ts_missing_wheels_new(void);
void ts_missing_wheels_free(struct ts_missing_wheels *m);

/* One environment (its system, machine and "CPython 3.12") where `name`
 * `version` has no wheel and the lock lists `listed` (its sdist, or
 * another tag's file) instead.  Repeats (another profile) count once. */
void ts_missing_wheels_add(struct ts_missing_wheels *m, const char *name, const char *version,
                           const char *listed, const char *system, const char *machine,
                           const char *python);

/* One line per package, in name order: "no wheel of hf-xet 1.6.0 for
 * darwin, win32 (x86_64, arm64; CPython 3.11, CPython 3.15): the lock
 * lists hf_xet-1.6.0.tar.gz there", appended to *lines (malloc'd each). */
void ts_missing_wheels_lines(const struct ts_missing_wheels *m, char ***lines, size_t *n);
