/*
 * target/pyfiles.h — strict readers of the files a CPython installation
 * and its venvs are made of, for reading a venv without running Python
 * (target/venvread.h).
 *
 * Each reader accepts only the exact shape the tools that write the file
 * produce and says TS_E_UNSUPPORTED, with what it did not expect, for
 * anything else: the caller then asks the interpreter instead of guessing.
 */
#pragma once

#include <stdbool.h>
#include <stddef.h>

#include "core/error.h"

/* pyvenv.cfg as venv, virtualenv and uv write it: every line "key = value\n"
 * (one space either side of '=', a lowercase key of [a-z0-9_.-], a value
 * without surrounding blanks, the last line ending in '\n' too: CPython
 * 3.8-3.10's reader ignores an unterminated last line) or empty; each key
 * once.  Only the keys Python itself reads are kept. */
struct ts_pyvenv_cfg {
  char *home;          /* the base interpreter's directory (required) */
  int major, minor, micro; /* "version" or "version_info" (one required;
                           * both must agree); "3.12.1" or virtualenv's
                           * "3.12.1.final.0" */
  bool system_site;    /* include-system-site-packages = true */
};

enum ts_code ts_pyvenv_cfg_parse(const char *text, size_t len, struct ts_pyvenv_cfg *out,
                                 struct ts_error *err);
void ts_pyvenv_cfg_clear(struct ts_pyvenv_cfg *cfg);

/* The values of lib/pythonX.Y/_sysconfigdata_*.py (sysconfig's build_time_vars)
 * that a target is made of.  The file must be what CPython generates: the
 * comment line, "build_time_vars = {", one "'KEY': value" per line (pprint's
 * layout or 3.13's), string continuation lines, and the closing '}' — no other
 * statement.  A key read here must have a one-line literal value and appear
 * once.  Lowercase keys that would replace a sysconfig install-scheme
 * variable (base, platbase, installed_base, platlibdir, abiflags, ...) are
 * refused, since get_paths() would then not be what the scheme says. */
struct ts_sysconfigdata {
  char *abiflags;    /* ABIFLAGS (required) */
  char *ext_suffix;  /* EXT_SUFFIX (required) */
  char *multiarch;   /* MULTIARCH (required) */
  char *platlibdir;  /* PLATLIBDIR; NULL before 3.9 */
  char *version;     /* VERSION "X.Y" (required) */
  int gil_disabled;  /* Py_GIL_DISABLED; 0 when absent */
  int debug;         /* Py_DEBUG; 0 when absent */
};

enum ts_code ts_sysconfigdata_scan(const char *text, size_t len, struct ts_sysconfigdata *out,
                                   struct ts_error *err);
void ts_sysconfigdata_clear(struct ts_sysconfigdata *d);

/* include/pythonX.Y/patchlevel.h: the text of its one
 * `#define PY_VERSION "..."` line, which must be "X.Y.Z" or
 * "X.Y.Z{a,b,rc}N" (what sys.version starts with); written into out. */
enum ts_code ts_patchlevel_version(const char *text, size_t len, char out[32],
                                   struct ts_error *err);

/* The ELF facts that decide which C library a program runs with. */
struct ts_elf_facts {
  unsigned char elf_class;  /* ELFCLASS32 / ELFCLASS64 */
  unsigned char data;       /* ELFDATA2LSB / ELFDATA2MSB */
  unsigned machine;         /* e_machine */
  char interp[256];         /* PT_INTERP, "" for a static program */
};

/* Reads the header and PT_INTERP of the ELF file at path (following
 * symlinks).  TS_E_UNSUPPORTED for a file that is not a native-endian ELF
 * executable or shared object, or whose headers do not fit the file;
 * TS_E_IO when it cannot be read. */
enum ts_code ts_elf_read_facts(const char *path, struct ts_elf_facts *out, struct ts_error *err);
