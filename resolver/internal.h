/*
 * resolver/internal.h — helpers shared by the resolver's files; not part of
 * the public contract.
 */
#pragma once

#include <stdbool.h>
#include <stddef.h>

#include "core/error.h"
#include "pep/requirement.h"
#include "pep/tags.h"

struct ts_wheel_filename;
struct ts_sdist_filename;

/* What a distribution file name says (borrowed from the parsed name). */
struct ts_rs_fname {
  bool wheel;
  const char *normalized_name;
  const struct ts_version *version;
  struct ts_wheel_filename *wheel_name; /* owned */
  struct ts_sdist_filename *sdist_name; /* owned */
  char *variant_label; /* owned: a PEP 825 variant wheel's label, else NULL */
};

/* Parses a wheel or sdist (.tar.gz/.zip) file name; false when it is
 * neither.  `hint` (or NULL): a version parsed earlier, copied instead of
 * parsed again when a wheel's version field is its text
 * (ts_wheel_filename_parse_hinted).  Free with ts_rs_fname_clear. */
bool ts_rs_fname_parse(const char *filename, const struct ts_version *hint,
                       struct ts_rs_fname *out);
void ts_rs_fname_clear(struct ts_rs_fname *f);
/* f's version, now the caller's (f->version stays readable until
 * ts_rs_fname_clear). */
struct ts_version *ts_rs_fname_take_version(struct ts_rs_fname *f);

/* Best tag priority of a wheel, -1 if the target supports none of its
 * tags. */
long ts_rs_wheel_priority(const struct ts_tagset *tags,
                          const struct ts_rs_fname *f);

/* The dependency fields of a METADATA file, and the whole parse, which a
 * chosen version hands to its ts_resolved (ts_rs_meta_hand_over). */
struct ts_rs_meta {
  struct ts_requirement **requires_dist; /* sorted by their text */
  size_t nrequires_dist;
  char *requires_python;  /* NULL when absent */
  struct ts_metadata *md; /* the file parsed */
  const char *data;       /* the bytes parsed (the provider's) */
  size_t len;
};

/* Parses the header of a core-metadata file (data need not be
 * NUL-terminated).  A Requires-Dist line that does not parse fails the
 * whole file (pip refuses such metadata too). */
enum ts_code ts_rs_meta_parse(const char *data, size_t len,
                              struct ts_rs_meta *out, struct ts_error *err);
void ts_rs_meta_clear(struct ts_rs_meta *m);
/* Moves m's parse and requirements into item (ts_resolved's metadata
 * fields); m keeps only its requires_python. */
struct ts_resolved;
void ts_rs_meta_hand_over(struct ts_rs_meta *m, struct ts_resolved *item);

/* --debug-solver: writes the solve to dir as a libsolv testcase
 * (testcase.c; libsolvext opened only then).  TS_E_UNSUPPORTED without
 * libsolvext, TS_E_IO when it cannot be written. */
struct s_Solver;
enum ts_code ts_rs_write_testcase(struct s_Solver *solv, const char *dir,
                                  struct ts_error *err);
