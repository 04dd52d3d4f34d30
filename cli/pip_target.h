/*
 * cli/pip_target.h — what `torchsolve pip` decides about the target that
 * pip decides itself: the interpreter when no environment is named, and
 * pip's rules for installing or downloading for another interpreter
 * (--python-version, --platform, --implementation, --abi).
 */
#pragma once

#include <stdbool.h>
#include <stddef.h>

/* The interpreter pip would run under when none is named (no --python,
 * --system, $TORCHSOLVE_PYTHON, $VIRTUAL_ENV or ./.venv): the `python`
 * on PATH, else `python3`, resolved to a path (malloc'd); NULL when a venv
 * or a named interpreter decides, or when neither is on PATH. */
char *ts_pip_default_python(const char *named_python, bool system);

/* pip's rules for another interpreter, over torchsolve's final argument
 * vector argv[0..n) (the command name first) and pip's --abi value (NULL
 * when not given) and --implementation (given or not), which torchsolve's
 * arguments do not carry: --abi must name the ABI torchsolve resolves for
 * anyway (cpXY of --python-version, abi3 or none, which CPython's tags
 * always include); with --python-version, --platform, --abi or
 * --implementation, either --no-deps or --only-binary :all: (and no
 * --no-binary but :none:), and for install only into a --target tree or
 * as a --dry-run (pip's check_dist_restriction).  Returns 0, or 2 after a
 * usage error in pip's own words. */
int ts_pip_check_target(char *const *argv, size_t n, bool install, const char *abi,
                        bool implementation);
