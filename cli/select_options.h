/*
 * cli/select_options.h — which extras and dependency groups of a lock to
 * install, shared by sync and export (lock/selection.h does the choosing):
 *
 *   --extra NAME (repeatable)   an extra of the lock (its `extras`)
 *   --all-extras                every extra but the GPU profiles
 *   --group NAME (repeatable)   a dependency group (its `dependency-groups`),
 *                               beside the lock's `default-groups`
 *   --all-groups                every dependency group
 *   --no-default-groups         leave the lock's `default-groups` out
 *
 * Usage: ts_select_cli_init(&s, argc); in the option loop
 * `used = ts_select_cli_parse(&s, "sync", argc, argv, &i)` (-1: return 2);
 * then pass &s.request on; ts_select_cli_free(&s).
 */
#pragma once

#include <stdbool.h>

#include "lock/selection.h"

struct ts_select_cli {
  struct ts_lock_request request; /* its name arrays point into argv */
  const char **names;             /* argc slots each for extras and groups */
};

void ts_select_cli_init(struct ts_select_cli *s, int argc);
/* 1 when argv[*i] was one of the options above (advancing *i past a
 * separate value), 0 when not, -1 after a usage error (a missing value). */
int ts_select_cli_parse(struct ts_select_cli *s, const char *command, int argc, char **argv,
                        int *i);
void ts_select_cli_free(struct ts_select_cli *s);
