/*
 * request/formatctl.h — pip's --no-binary / --only-binary sets (pip's
 * FormatControl), from the command line and requirements files alike.
 *
 * A value is a comma-separated list of project names, ":all:" or ":none:",
 * applied as pip applies it (handle_mutual_excludes): ":all:" empties both
 * sets and puts ":all:" in this one; ":none:" empties this one; a name
 * joins this set and leaves the other.  Order matters: apply values in the
 * order they were given (command line first, then requirements files, as
 * pip reads them).  The resolver reads the two sets (resolver.h:
 * no_binary, only_binary) as pip's get_allowed_formats: a name beats
 * ":all:", and --only-binary beats --no-binary at the same level.
 */
#pragma once

#include <stdbool.h>
#include <stddef.h>

#include "core/error.h"
#include "request/reqfile.h"

#define TS_FORMATCTL_ALL ":all:"

struct ts_formatctl {
  char **no_binary;   /* normalised names or ":all:", malloc'd */
  size_t nno_binary;
  char **only_binary; /* same */
  size_t nonly_binary;
};

/* Applies one value to the --no-binary set (no_binary true) or the
 * --only-binary set.  TS_E_INVALID for an empty item or one that is no
 * project name ("--no-binary=-x"), naming it; the sets are then unchanged. */
enum ts_code ts_formatctl_add(struct ts_formatctl *fc, const char *value, bool no_binary,
                              struct ts_error *err);

/* Applies a requirements file's --no-binary values, then its --only-binary
 * ones (the file keeps no order between the two). */
enum ts_code ts_formatctl_add_reqfile(struct ts_formatctl *fc, const struct ts_reqfile *rf,
                                      struct ts_error *err);

void ts_formatctl_clear(struct ts_formatctl *fc);
