/*
 * target/venvread.h — a CPython venv read from its files, without running
 * Python.
 *
 * Starting an interpreter for the probe (target.h) costs ~40 ms of CPU,
 * most of a first run's.  For an ordinary venv of a CPython on this glibc
 * machine every fact the probe prints is written down in files: the
 * venv's pyvenv.cfg, the base installation's _sysconfigdata_*.py and
 * patchlevel.h, the interpreter's ELF header, and this process's own
 * uname() and glibc.  This module reads them the way the interpreter would
 * (CPython 3.8-3.13's getpath, site.py and sysconfig) and answers only when
 * every fact is certain; anything it does not recognise exactly is
 * TS_E_UNSUPPORTED with the reason, and the caller runs the probe.
 *
 * Read statically, when all of these hold (otherwise the probe runs):
 *  - the path is absolute and clean (no ".", "..", "//"; printable ASCII),
 *    of the form VENV/bin/NAME, with VENV/pyvenv.cfg and no
 *    VENV/bin/pyvenv.cfg;
 *  - pyvenv.cfg is strictly "key = value" lines with home and
 *    version/version_info (pyfiles.h), a version 3.8 to 3.13;
 *  - NAME is a 64-bit ELF file of this machine's class, endianness and
 *    e_machine whose PT_INTERP is this process's own glibc loader (so its
 *    libc is ours: confstr(_CS_GNU_LIBC_VERSION));
 *  - NAME is a symlink chain ending at HOME/pythonX.Y (textually), or a
 *    copy (same size) of HOME/pythonX.Y;
 *  - the directory getpath starts from (HOME on 3.11+; the symlink's
 *    target directory on 3.8-3.10, HOME for copies) has no build-tree
 *    marker (pybuilddir.txt, Modules/Setup.local), no ._pth file sits
 *    beside the interpreter, and searching up from it finds
 *    lib/pythonX.Y/os.py (or .pyc) with no lib/pythonXY.zip on the way:
 *    that directory is sys.base_prefix (not "/");
 *  - base_prefix/lib/pythonX.Y holds _sysconfigdata_*.py files that are all
 *    one file (Debian links its two names), strictly scanned, with ABIFLAGS
 *    "", VERSION X.Y, EXT_SUFFIX .cpython-XY-*.so, no Py_GIL_DISABLED or
 *    Py_DEBUG, PLATLIBDIR "lib" (3.9+), and, for 3.13, no lib/python3.13t;
 *  - base_prefix/include/pythonX.Y/patchlevel.h's PY_VERSION agrees with
 *    pyvenv.cfg on X.Y.Z (its full text, "3.13.0rc1", is
 *    python_full_version: pyvenv.cfg drops pre-release suffixes);
 *  - the kernel says Linux, and none of _PYTHON_SYSCONFIGDATA_NAME,
 *    _PYTHON_HOST_PLATFORM, _PYTHON_PROJECT_BASE is set (sysconfig reads
 *    them even under -I).
 * So PyPy, GraalPy, free-threaded and debug builds, musl, 32-bit and
 * static interpreters, Fedora's lib64 layout, newer Pythons whose startup
 * rules have not been checked, and every non-venv interpreter keep the
 * real probe.
 */
#pragma once

#include "core/error.h"

/* The JSON the probe script (ts_target_probe_script) would print for the
 * venv interpreter at python_path, read from files; malloc'd into *json.
 * TS_E_UNSUPPORTED (detail: the first fact that was not certain) when the
 * interpreter must be run instead. */
enum ts_code ts_venv_read_probe_json(const char *python_path, char **json,
                                     struct ts_error *err);
