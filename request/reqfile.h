/*
 * request/reqfile.h — pip requirements files (-r) and constraints files (-c).
 *
 * Lines are read as pip's req_file.py reads them: str.splitlines() line
 * ends, backslash continuations joined (a comment line never continues),
 * comments removed ("#" at the start or after whitespace, so URL fragments
 * survive), then ${VAR} expanded (only that form, names [A-Z0-9_]; unset or
 * empty variables stay as written), then the line is split at the first
 * token starting with "-" into a requirement and options (shlex rules).
 *
 * Supported options: -r/--requirement, -c/--constraint (nested files are
 * relative to the including file; cycles and depth are caught), -i/
 * --index-url, --extra-index-url, --no-index, -f/--find-links, --pre,
 * --require-hashes, --prefer-binary, --only-binary, --no-binary,
 * --trusted-host, --use-feature (ignored), and per requirement --hash
 * (repeatable; sha256, sha384, sha512 as pip), --config-settings and
 * --global-option (accepted and ignored: torchsolve installs wheels only).
 * Long options may be abbreviated to a unique prefix, as optparse allows.
 * -e/--editable PATH marks the entry editable (a local project directory).
 *
 * Stricter than pip, on purpose: an option pip would silently ignore (an
 * index option on a requirement line, a stray argument after an option)
 * is an error; every -r/-c on a line is followed, not only the first.
 *
 * Errors read "FILE:LINE: what is wrong".  Reading goes through a reader
 * callback, so tests and fuzzing feed content from memory.
 */
#pragma once

#include <stdbool.h>
#include <stddef.h>

#include "core/error.h"
#include "pep/requirement.h"

#define TS_REQFILE_MAX_DEPTH 32            /* nesting of -r / -c */
#define TS_REQFILE_MAX_FILES 1024          /* files read per parse, in all */
#define TS_REQFILE_MAX_BYTES (16u * 1024 * 1024) /* one file */
#define TS_REQFILE_MAX_TOTAL (64u * 1024 * 1024) /* all files together */
#define TS_REQFILE_MAX_LINE (1u * 1024 * 1024)   /* a line after ${VAR} */
#define TS_REQFILE_MAX_ENV_NAME 255  /* a longer ${NAME} is left as written */

/* The parser's only windows on the file system.
 * read: reads the file `path` (as given or joined with the including
 * file's directory) into *data, malloc'd, which the parser frees; *len its
 * size.  Returns TS_E_NOT_FOUND / TS_E_IO / TS_E_TOO_BIG with err set.
 * is_dir: whether a requirement that looks like a path ("./src/pkg",
 * relative to the working directory, as pip) names a directory; pip takes
 * such a line as a path only then, else as a PEP 508 requirement.  NULL:
 * nothing is a directory. */
struct ts_reqfile_reader {
  enum ts_code (*read)(void *ctx, const char *path, char **data, size_t *len,
                       struct ts_error *err);
  bool (*is_dir)(void *ctx, const char *path);
  void *ctx;
};

struct ts_reqfile_opts {
  /* NULL: read real files, capped at TS_REQFILE_MAX_BYTES. */
  const struct ts_reqfile_reader *reader;
  /* ${VAR} lookup; NULL: the process environment (getenv).  Return NULL
   * for unset. */
  const char *(*getenv)(void *ctx, const char *name);
  void *getenv_ctx;
};

enum ts_reqfile_kind {
  TS_REQFILE_NAMED, /* PEP 508: "torch>=2.4", "foo[x] @ https://..." */
  TS_REQFILE_URL,   /* a bare URL: "https://host/foo-1.0-py3-none-any.whl" */
  TS_REQFILE_PATH,  /* a local archive or directory: "./foo-1.0-....whl" */
};

struct ts_reqfile_entry {
  enum ts_reqfile_kind kind;
  char *text;                 /* the requirement part of the line */
  struct ts_requirement *req; /* NAMED: the parsed requirement; else NULL */
  char *url;                  /* URL: the URL (marker removed) */
  char *path;                 /* PATH: as written (relative to the working
                                 directory, as pip), extras removed */
  /* URL/PATH: what the file name or #egg= says; NULL when unknown. */
  char *name;                 /* normalised */
  char *version;              /* from a wheel or sdist file name */
  char **extras;              /* URL/PATH "[x,y]" suffix, normalised */
  size_t nextras;
  char *marker;               /* URL/PATH: marker text after ';' */
  char **hashes;              /* "sha256:<hex>", in line order */
  size_t nhashes;
  bool is_constraint;         /* came from a -c file */
  bool editable;              /* -e: a PEP 660 editable install of a local
                                 project directory */
  char *file;                 /* the file it came from */
  unsigned line;              /* its first line there */
};

struct ts_reqfile {
  struct ts_reqfile_entry *entries;
  size_t nentries;
  char *index_url;            /* last -i wins; NULL: not given */
  bool no_index;
  char **extra_index_urls;
  size_t nextra_index_urls;
  char **find_links;          /* as written (relative: to the file's dir
                                 if it exists there, as pip; left to the
                                 caller, who may check) */
  size_t nfind_links;
  char **trusted_hosts;
  size_t ntrusted_hosts;
  char **no_binary;
  size_t nno_binary;
  char **only_binary;
  size_t nonly_binary;
  bool pre;
  bool require_hashes;
  bool prefer_binary;
  /* internal: files read and bytes read in all (caps) */
  size_t files_read, bytes_read;
};

void ts_reqfile_init(struct ts_reqfile *rf);
/* Frees everything and leaves an empty, reusable struct. */
void ts_reqfile_clear(struct ts_reqfile *rf);

/* Parses `path` and the files it includes, appending to rf (several -r and
 * -c from the command line accumulate into one rf).  On error rf keeps
 * what was appended before the failing line; err reads "FILE:LINE: ...". */
enum ts_code ts_reqfile_add_file(struct ts_reqfile *rf, const char *path,
                                 bool is_constraint,
                                 const struct ts_reqfile_opts *opts,
                                 struct ts_error *err);
/* Same, with the top file's content given (name used in errors and as the
 * base for relative includes). */
enum ts_code ts_reqfile_add_buffer(struct ts_reqfile *rf, const char *name,
                                   const char *data, size_t len,
                                   bool is_constraint,
                                   const struct ts_reqfile_opts *opts,
                                   struct ts_error *err);

/* Classifies and parses one requirement as pip does for a line or a
 * command-line argument (markers, URL/path detection, wheel file names);
 * the entry's file/line/hashes stay empty.  opts (may be NULL) gives the
 * is_dir check.  Caller frees with ts_reqfile_entry_clear. */
/* Marks a parsed entry editable (-e): TS_E_INVALID unless it names a
 * local directory. */
enum ts_code ts_reqfile_mark_editable(struct ts_reqfile_entry *e,
                                      struct ts_error *err);

enum ts_code ts_reqfile_parse_requirement(const char *s, size_t len,
                                          const struct ts_reqfile_opts *opts,
                                          struct ts_reqfile_entry *out,
                                          struct ts_error *err);
void ts_reqfile_entry_clear(struct ts_reqfile_entry *e);

/* The default reader (real files, TS_REQFILE_MAX_BYTES cap; stat). */
enum ts_code ts_reqfile_read_real(void *ctx, const char *path, char **data,
                                  size_t *len, struct ts_error *err);
bool ts_reqfile_is_dir_real(void *ctx, const char *path);
