/*
 * lock/pylock.h — PEP 751 lock files (pylock.toml): data model, validating
 * reader, deterministic writer.
 *
 * The reader accepts what the specification allows and what `pip lock` and
 * `uv export --format pylock.toml` write, and checks it as packaging's
 * pylock module does (required keys, types, normalised names, PEP 440
 * versions, PEP 508 markers, specifier sets, wheel and sdist file names,
 * "exactly one source" per package, lock-version 1.x), plus two checks an
 * installer needs: every hash value is hex of the right length for its
 * algorithm, and a wheel's file name names the package (and its version,
 * when the package has one).  Errors read
 * "LINE:COL: packages[2].wheels[0].hashes: at least one hash is required".
 *
 * The writer gives identical bytes for identical content: packages sorted
 * by name then PEP 440 version, wheels by file name, hashes by algorithm,
 * keys in the specification's order, torchsolve's own facts under
 * [tool.torchsolve] (host facts sorted by key, rule ids sorted, unique;
 * a fleet lock's profiles under [tool.torchsolve.profiles.NAME], the
 * default one named by `default-profile`; a universal lock's grid under
 * [tool.torchsolve.universal]).
 */
#pragma once

#include <stdbool.h>
#include <stddef.h>

#include "core/buf.h"
#include "core/error.h"
#include "toml/toml.h"

/* Lock files this module reads and writes: 1.x (1.0 written). */
#define TS_PYLOCK_VERSION "1.0"
/* Hostile-input bound on [[packages]] entries and wheels per package. */
#define TS_PYLOCK_MAX_PACKAGES 100000
#define TS_PYLOCK_MAX_WHEELS 10000

struct ts_pylock_hash {
  char *algo;  /* "sha256" */
  char *value; /* lower-case hex as written */
};

/* A wheel, an sdist or an archive: the file-like sources. */
struct ts_pylock_file {
  char *name;        /* file name; may be NULL for an archive */
  char *url;         /* at least one of url/path */
  char *path;
  long long size;    /* -1: unknown */
  char *upload_time; /* TOML date-time text, or NULL */
  char *subdirectory;/* archives only */
  struct ts_pylock_hash *hashes; /* at least one */
  size_t nhashes;
};

struct ts_pylock_vcs {
  char *type;               /* "git" */
  char *url;                /* at least one of url/path */
  char *path;
  char *requested_revision;
  char *commit_id;          /* required */
  char *subdirectory;
};

struct ts_pylock_directory {
  char *path;       /* required */
  int editable;     /* -1 unset, 0, 1 */
  char *subdirectory;
};

struct ts_pylock_package {
  char *name;            /* normalised (PEP 503) */
  char *version;         /* as written; NULL when absent */
  char *marker;          /* as written; NULL when absent */
  char *requires_python;
  char *index;
  /* Sources: wheels and/or sdist, or exactly one of vcs/directory/archive. */
  struct ts_pylock_file *wheels;
  size_t nwheels;
  struct ts_pylock_file *sdist;
  struct ts_pylock_file *archive;
  /* PEP 825's [packages.variants-json]: the release's
   * `{name}-{version}-variants.json` (name, url, hashes) when the lock
   * lists its variant wheels; NULL otherwise.  Set through the struct. */
  struct ts_pylock_file *variants_json;
  struct ts_pylock_vcs *vcs;
  struct ts_pylock_directory *directory;
  /* Kept as TOML: arrays of tables, and the package's [tool] table. */
  struct ts_toml_value *dependencies;          /* array or NULL */
  struct ts_toml_value *attestation_identities;/* array or NULL */
  struct ts_toml_value *tool;                  /* table or NULL */
};

struct ts_pylock_kv {
  char *key;
  char *value;
};

/* A GPU profile of a fleet lock (lock --profile): the extra that selects
 * its entries and the facts and rule ids it was resolved with. */
struct ts_pylock_profile {
  char *name;             /* "rocm6-4", a normalised extra name */
  char *backend;          /* the rules.yaml backend id, "rocm6.4"; may be NULL */
  struct ts_pylock_kv *host_facts;
  size_t nhost_facts;
  char **rule_ids;
  size_t nrule_ids;
};

/* [tool.torchsolve.universal] of a universal lock (lock --universal):
 * the grid of environments it was resolved for, with the lock's
 * requires-python and environments; each dimension's values in the grid's
 * order, written as given. */
struct ts_pylock_grid {
  char **systems;         /* sys_platform values: "linux", "darwin", "win32" */
  size_t nsystems;
  char **machines;        /* "x86_64", "arm64" */
  size_t nmachines;
  char **implementations; /* "cpython", "pypy" */
  size_t nimplementations;
  char **pythons;         /* "3.12", or "3.10.1" where requires-python starts there */
  size_t npythons;
};

struct ts_pylock {
  char *lock_version;     /* "1.0" */
  bool newer_minor;       /* read a 1.x newer than 1.0: warn the user */
  char **environments;    /* marker strings */
  size_t nenvironments;
  char *requires_python;
  char **extras;
  size_t nextras;
  char **dependency_groups;
  size_t ndependency_groups;
  char **default_groups;
  size_t ndefault_groups;
  char *created_by;       /* required */
  struct ts_pylock_package *packages;
  size_t npackages;
  /* [tool.torchsolve]: host facts (key -> value) under
   * [tool.torchsolve.host] and rule ids used as `rules = [...]`; other
   * keys there are ignored on reading (and so not written back). */
  struct ts_pylock_kv *host_facts;
  size_t nhost_facts;
  char **rule_ids;
  size_t nrule_ids;
  /* [tool.torchsolve.profiles.NAME] with `default-profile`: the profiles
   * of a fleet lock, the default one (selected without an extra) first,
   * then by name as written.  None for a one-environment lock. */
  struct ts_pylock_profile *profiles;
  size_t nprofiles;
  struct ts_pylock_grid *grid; /* NULL: a lock of one environment */
  /* Other tools' tables, without "torchsolve" (table or NULL). */
  struct ts_toml_value *tool;
};

/* Reads and validates a lock file held in memory.  `source` names it in
 * errors (a file name, or NULL).  Caller frees *out with ts_pylock_free.
 * TS_E_PARSE for TOML errors and spec violations, TS_E_UNSUPPORTED for a
 * lock-version other than 1.x, TS_E_TOO_BIG above the caps. */
enum ts_code ts_pylock_parse(const char *data, size_t len, const char *source,
                             struct ts_pylock **out, struct ts_error *err);
/* Reads a file (capped at TS_CAP_LOCKFILE) and parses it. */
enum ts_code ts_pylock_read_file(const char *path, struct ts_pylock **out,
                                 struct ts_error *err);
/* Validates and converts an already parsed TOML tree (root table). */
enum ts_code ts_pylock_from_toml(const struct ts_toml_value *root,
                                 struct ts_pylock **out, struct ts_error *err);

/* An empty lock: lock-version 1.0, created-by "torchsolve" (no version, so
 * that upgrading torchsolve does not change the bytes of a lock).
 * Never NULL.  Fill it with the setters below or directly (every string
 * is owned by the lock and freed with it). */
struct ts_pylock *ts_pylock_new(void);
void ts_pylock_free(struct ts_pylock *lock);

/* Appends a zeroed package (size fields -1) and returns it, or NULL. */
struct ts_pylock_package *ts_pylock_add_package(struct ts_pylock *lock,
                                                const char *name,
                                                const char *version);
/* Appends a wheel with one sha256 hash; url or path may be NULL (not
 * both); upload_time may be NULL; size -1 when unknown.  Returns the wheel
 * or NULL on an invalid argument. */
struct ts_pylock_file *ts_pylock_add_wheel(struct ts_pylock_package *pkg,
                                           const char *filename,
                                           const char *url, const char *path,
                                           long long size,
                                           const char *upload_time,
                                           const char *sha256_hex);
/* Sets (replaces) the package's sdist (`sdist` true) or archive, with
 * one sha256 hash, as ts_pylock_add_wheel; NULL on an invalid
 * argument.  A vcs or directory source is set through the struct. */
struct ts_pylock_file *ts_pylock_set_source_file(struct ts_pylock_package *pkg, bool sdist,
                                                 const char *filename, const char *url,
                                                 const char *path, long long size,
                                                 const char *sha256_hex);
/* Sets (replaces) a host fact / adds a rule id (duplicates dropped when
 * written). */
enum ts_code ts_pylock_set_host_fact(struct ts_pylock *lock, const char *key,
                                     const char *value);
enum ts_code ts_pylock_add_rule_id(struct ts_pylock *lock, const char *id);
/* Appends a profile (the first one added is the default); NULL when
 * the name is taken.  Set its backend (owned) directly; its facts
 * and rule ids as the lock's. */
struct ts_pylock_profile *ts_pylock_add_profile(struct ts_pylock *lock, const char *name);
enum ts_code ts_pylock_profile_set_fact(struct ts_pylock_profile *p, const char *key,
                                        const char *value);
enum ts_code ts_pylock_profile_add_rule_id(struct ts_pylock_profile *p, const char *id);
/* Sets (replaces) the lock's grid with copies of g's strings. */
void ts_pylock_set_grid(struct ts_pylock *lock, const struct ts_pylock_grid *g);
/* The profile of that name, or NULL. */
const struct ts_pylock_profile *ts_pylock_find_profile(const struct ts_pylock *lock,
                                                       const char *name);
/* Whether two entries are the same entry: the same text when written
 * (name, version, marker, sources, hashes, dependencies, tool...). */
bool ts_pylock_package_equal(const struct ts_pylock_package *a,
                             const struct ts_pylock_package *b);
/* Appends a deep copy of src to lock and returns it; NULL when src
 * would not be read back (the writer's and the reader's checks). */
struct ts_pylock_package *ts_pylock_copy_package(struct ts_pylock *lock,
                                                 const struct ts_pylock_package *src);
/* Adds a `{name = dep}` entry to a package's dependencies. */
enum ts_code ts_pylock_add_dependency(struct ts_pylock_package *pkg,
                                      const char *name);

/* Validates the model as the reader would (writing it, then reading it). */
enum ts_code ts_pylock_validate(const struct ts_pylock *lock,
                                struct ts_error *err);

/* Sorts packages, wheels, hashes, host facts and rule ids in place into
 * the writer's order (the writer sorts a copy; this is for callers that
 * want to walk the lock in that order). */
void ts_pylock_sort(struct ts_pylock *lock);

/* The writer's package order as a malloc'd array of npackages indexes
 * (caller frees with free); NULL when there are no packages. */
size_t *ts_pylock_sorted_order(const struct ts_pylock *lock);

/* Appends the TOML text to out.  Deterministic: identical content gives
 * identical bytes whatever the order it was added in. */
enum ts_code ts_pylock_write(const struct ts_pylock *lock, struct ts_buf *out,
                             struct ts_error *err);
/* Writes to path as ts_output_write_file does (lock/output.h): atomically
 * for files, in place for /dev/stdout, FIFOs and other devices. */
enum ts_code ts_pylock_write_file(const struct ts_pylock *lock,
                                  const char *path, struct ts_error *err);

/* Looks up a host fact; NULL when absent. */
const char *ts_pylock_host_fact(const struct ts_pylock *lock, const char *key);
/* The sha256 of a file entry, or NULL. */
const char *ts_pylock_file_sha256(const struct ts_pylock_file *f);
/* A file's `path` as PEP 751 wants it, relative to the lock file's
 * directory: `to` and `from_dir` are absolute and normalized (realpath);
 * gives "./x.whl", "sub/../" never, "../../w/x.whl".  malloc'd; NULL when
 * either is not absolute. */
char *ts_pylock_relative_path(const char *from_dir, const char *to);
/* The file name of a wheel/sdist entry: name, else the last path or URL
 * component.  Owned by f or pointing into its strings; NULL if none. */
const char *ts_pylock_file_name(const struct ts_pylock_file *f, size_t *len);
/* The same name as a string, percent-decoded when it comes from a URL
 * ("torch-2.9.1%2Bcu130-..." as the PyTorch index writes it).  malloc'd;
 * NULL when there is none. */
char *ts_pylock_file_decoded_name(const struct ts_pylock_file *f);
