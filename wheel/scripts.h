/*
 * wheel/scripts.h — the scripts a wheel puts in the environment's scripts
 * directory (internal to wheel/): entry_points.txt's console and GUI
 * scripts read and checked, the launcher names pip writes for them, and the
 * names the environment itself owns.
 *
 * The lowest file of wheel/'s installer: unpack.c checks a wheel's entry
 * points and scripts by name before anything is unpacked, install.c writes
 * the launchers; neither is called from here.
 */
#pragma once

#include <stdbool.h>
#include <stddef.h>

#include "core/error.h"

/* One launcher an entry point asks for: its file name in the scripts
 * directory and the callable it runs (module and attribute, trimmed, any
 * [extras] dropped). */
typedef enum ts_code ts_wheel_launcher_fn(void *ctx, const char *name, const char *module,
                                          const char *attr, struct ts_error *err);

/* Walks the console_scripts and gui_scripts of an entry_points.txt: each
 * entry's launcher names for Python major.minor (ts_wheel_launcher_names)
 * are checked (a safe file name, not one the environment owns, a
 * module:attribute value) and handed to fn (NULL: only checked).  Stops at
 * the first error: TS_E_UNSAFE_PATH for a name, TS_E_BAD_WHEEL for a
 * value, or fn's. */
enum ts_code ts_wheel_entry_points_each(const char *text, size_t len, int major, int minor,
                                        ts_wheel_launcher_fn *fn, void *ctx,
                                        struct ts_error *err);

/* ts_wheel_entry_points_each with no launcher written, for a Python of
 * unknown version. */
enum ts_code ts_wheel_check_entry_points(const char *text, size_t len,
                                         struct ts_error *err);

/* The launchers pip writes for the entry point `name` of a target Python
 * major.minor (0: unknown, just `name`): "easy_install" also as
 * "easy_install-X.Y", "pip" also as "pipX" and "pipX.Y", versioned ones
 * the wheel's builder wrote for its own Python (easy_install-2.6, pip3.12)
 * none.  Fills out (malloc'd names), returns how many (at most 3). */
size_t ts_wheel_launcher_names(const char *name, int major, int minor, char *out[3]);

/* The interpreter links and activate scripts that a venv (ours, python -m
 * venv, uv) has in its scripts directory: "python", "python3",
 * "python3.12t", "activate", "activate.fish", "Activate.ps1"...  No
 * distribution owns them, so RECORD ownership cannot protect them; a wheel
 * whose script or entry point has such a name would replace the
 * environment's interpreter. */
bool ts_wheel_protected_script_name(const char *name);
