/*
 * cli/progress.h — the download progress install and sync draw on a
 * terminal (one bar per file still downloading and a total line, redrawn
 * at most every 80 ms; nothing reaches a pipe); the callbacks carry the
 * environment notes of ts_cli_env_callbacks too.
 */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "plan/plan.h"

struct ts_cli_progress {
  bool on;           /* stderr is a terminal and not --quiet */
  const char *noun;  /* "files", "wheels": the total line's word */
  const char *const *names;
  size_t n;
  uint64_t *done, *total;
  size_t drawn;      /* lines on screen */
  double last;
};

void ts_cli_progress_init(struct ts_cli_progress *p, const char *noun);
/* Callbacks drawing into p (which must outlive the plan call). */
struct ts_plan_callbacks ts_cli_progress_callbacks(struct ts_cli_progress *p);
