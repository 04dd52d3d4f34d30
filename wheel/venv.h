/*
 * wheel/venv.h — creating virtual environments natively (no `python -m
 * venv`, no pip: milliseconds) and finding an environment's install paths.
 */
#pragma once

#include <stdbool.h>

#include "core/error.h"
#include "wheel/wheel.h"

/* What a venv needs to know about its base interpreter. */
struct ts_venv_base {
  char *executable;   /* absolute path of the base interpreter (not of a
                         venv's python: probing a venv's gives its base) */
  char *version;      /* "3.11.7" */
  int major, minor;
};

/* Runs `python -c` once for version and base executable.  TS_E_PYTHON when
 * it cannot be run.  Clear with ts_venv_base_clear. */
enum ts_code ts_venv_probe_base(const char *python, struct ts_venv_base *out,
                                struct ts_error *err);
void ts_venv_base_clear(struct ts_venv_base *b);

/* Creates a venv at dir (which must not exist or be empty): pyvenv.cfg,
 * bin/python{,3,3.X} symlinks, lib/python3.X/site-packages, lib64 -> lib,
 * activate scripts for bash/zsh, fish and csh, and a .gitignore.
 * `command` is recorded in pyvenv.cfg (may be NULL). */
enum ts_code ts_venv_create(const char *dir, const struct ts_venv_base *base,
                            const char *command, struct ts_error *err);

/* Install paths of an interpreter or an environment.  Owns its strings;
 * `paths` points into them.  Clear with ts_venv_target_clear. */
struct ts_venv_target {
  struct ts_wheel_paths paths;
  char *storage_[7];
  int major, minor;
};

/* Paths of a venv laid out by ts_venv_create, computed without running
 * Python. */
void ts_venv_target_for_layout(const char *dir, int major, int minor,
                               struct ts_venv_target *out);

void ts_venv_target_clear(struct ts_venv_target *t);
