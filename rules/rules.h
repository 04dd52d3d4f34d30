/*
 * rules/rules.h — rules.yaml: load and validate it (line:column errors),
 * merge a user file over it by id, and compile it against the host into the
 * constraint set the resolver encodes (rules/constraint.h).
 *
 * The schema is documented in doc/rules.md.  A loaded `struct ts_rules` is
 * immutable data; every string in it is owned by it.
 */
#pragma once

#include <stdbool.h>
#include <stddef.h>

#include "core/error.h"
#include "host/host.h"
#include "rules/constraint.h"

#define TS_RULES_SCHEMA 1
/* A rules file is hand-written; anything larger is a mistake or an attack. */
#define TS_CAP_RULES_FILE (4u * 1024 * 1024)
/* A backend or rule id ("cu130") is a short name: it becomes a local
 * version label and a lock key. */
#define TS_RULES_ID_MAX 100

enum ts_backend_kind {
  TS_BACKEND_CPU,
  TS_BACKEND_CUDA,
  TS_BACKEND_ROCM,
  TS_BACKEND_XPU,
};

struct ts_rules_backend {
  char *id;             /* "cu130": also the local version label */
  enum ts_backend_kind kind;
  char *version;        /* CUDA "13.0" or ROCm "6.2.4"; NULL for cpu/xpu */
  char *index;          /* path under index_base: "cu130" */
  char *driver_min;     /* CUDA: minor-version-compatibility floor */
  char *driver_toolkit; /* CUDA: toolkit driver (native, PTX JIT) */
  char **gfx;           /* ROCm: targets with kernels */
  size_t ngfx;
  char *source;
  char *confidence;     /* NULL (high), "medium", "low" */
};

struct ts_rules_arch {
  char *cc;  /* "8.6" */
  bool ptx;  /* "12.0+PTX": PTX that newer GPUs JIT-compile */
};

struct ts_rules_variant {
  char *backend;              /* backend id */
  struct ts_rules_arch *archs; /* CUDA: TORCH_CUDA_ARCH_LIST */
  size_t narchs;
  char **gfx;                 /* ROCm: overrides the backend's list */
  size_t ngfx;
  bool has_gfx;
  /* CUDA: the toolkit driver of the update this release was built with
   * (13.0.2 from 2.11), overriding the backend's; NULL = the backend's. */
  char *driver_toolkit;
  char *source;
  char *confidence;
};

/* The variants a release was published with for one machine other than
 * x86_64 (aarch64 builds have their own arch lists and variant set). */
struct ts_rules_platform {
  char *machine; /* "aarch64" */
  struct ts_rules_variant *variants;
  size_t nvariants;
  /* The CUDA variant PyPI's wheel for this machine is, label stripped;
   * NULL when PyPI serves a CPU build there. */
  char *pypi_default;
  char *source;
};

struct ts_rules_pair {
  char *torch, *torchvision, *torchaudio; /* torchaudio may be NULL */
};

struct ts_rules_release {
  char *series;   /* "2.13" */
  char **versions;
  size_t nversions;
  struct ts_rules_variant *variants;
  size_t nvariants;
  struct ts_rules_pair *pairs;
  size_t npairs;
  char *source;
  char *confidence;
  /* The variant whose wheel PyPI serves without a label on Linux x86_64
   * ("cu130" for 2.11+), or NULL. */
  char *pypi_default;
  char *pypi_source;
  /* Other machines; one without an entry gets the cpu variant only. */
  struct ts_rules_platform *platforms;
  size_t nplatforms;
};

/* The variant table of `r` that a host of `machine` can install: the
 * release's own (`variants`, Linux x86_64) for x86_64 or an unknown
 * machine (NULL), the `platforms` entry of another machine, or just the
 * cpu variant for a machine without one. */
struct ts_rules_variant_table {
  const struct ts_rules_variant *variants;
  size_t nvariants;
  const char *pypi_default;
};
struct ts_rules_variant_table ts_rules_release_variants(
    const struct ts_rules_release *r, const char *machine);

/* A term as written: name + specifier text + local pattern (any NULL). */
struct ts_rules_term {
  char *name;    /* normalised project name, or "__fact" */
  char *spec;    /* ">=2.8,<2.10" or NULL */
  char *local;   /* fnmatch pattern or NULL */
};

enum ts_rules_kind {
  TS_RULES_REQUIRES,
  TS_RULES_CONFLICTS,
  TS_RULES_CUSTOM_BUILD, /* documents accepted custom local builds */
};

struct ts_rules_rule {
  char *id;
  enum ts_rules_kind kind;
  char *subject_name, *subject_spec;
  char **subject_locals; /* one constraint per pattern; none = any */
  size_t nsubject_locals;
  struct ts_rules_term *terms;
  size_t nterms;
  struct ts_rules_term *when;
  size_t nwhen;
  char *message, *fix, *source, *confidence;
  unsigned line; /* 1-based position of the rule in its file */
  char *file;
};

struct ts_rules_pairing {
  char *id, *project, *message, *fix, *source;
};

/* AMD's user/kernel-space support window: a ROCm user space (what a
 * +rocmX.Y wheel bundles) runs on the kernel driver (KMD) of a ROCm release
 * at most `window` releases older or newer. */
struct ts_rules_amdgpu_map {
  char *amdgpu; /* DKMS amdgpu version prefix, "6.8" (/sys/module/amdgpu/version) */
  char *rocm;   /* the ROCm release that ships it, "6.2" */
};
/* An amdgpu driver release whose supported user-space range AMD states
 * outright (from 30.10, ROCm 7.0's): it replaces the ±window for the
 * kernel driver of that ROCm release, in both directions. */
struct ts_rules_kmd_driver {
  char *amdgpu;   /* "30.10": also a /sys/module/amdgpu/version prefix */
  char *rocm;     /* the ROCm release it ships with, "7.0" (in `releases`) */
  char *user_min; /* oldest ROCm user space it supports, "6.2" */
  char *user_max; /* newest, "7.0" */
  char *source;
};
struct ts_rules_kmd {
  unsigned window;   /* 2; 0 with no `rocm_kmd` section (installed ROCm gates) */
  char **releases;   /* ROCm releases, oldest first: "6.1", "6.2", ... */
  size_t nreleases;
  struct ts_rules_amdgpu_map *amdgpu;
  size_t namdgpu;
  struct ts_rules_kmd_driver *drivers;
  size_t ndrivers;
  char *source, *amdgpu_source, *amdgpu_confidence;
};

/* A project whose build imports torch without declaring it in
 * build-system.requires (its setup.py runs `import torch`): its build
 * environment gets the runtime torch as if it were declared. */
struct ts_rules_torch_build {
  char *project; /* normalised name */
  bool nvcc;     /* it compiles CUDA code: nvcc must match torch.version.cuda */
  /* Only a source whose location names this host and path is that
   * project ("github.com/NVIDIA/apex": PyPI's `apex` is an unrelated
   * project); NULL: any source of the name. */
  char *only_from;
  char *source;
};

/* Which rules file is in force and where it came from (what `detect`,
 * `rules list` and --report say): the bundled file, or the newer one
 * `torchsolve rules update` kept in the data folder (rules/origin.h). */
struct ts_rules_provenance {
  bool updated;  /* false: the bundled file */
  char *version; /* the file's `version:` ("2026.11.28"), or NULL */
  char *path;    /* the file read */
  char *url;     /* updated: the torchsolve-rules wheel it came from */
};

struct ts_rules {
  int schema;
  /* The facts' date as a version ("2026.11.28"): the version of the
   * torchsolve-rules package that carries them; NULL when not given. */
  char *version;
  struct ts_rules_provenance provenance; /* set by whoever chose the file */
  char *index_base;  /* "https://download.pytorch.org/whl/" */
  struct ts_rules_backend *backends;
  size_t nbackends;
  struct ts_rules_release *releases; /* sorted oldest → newest series */
  size_t nreleases;
  char **routes;                     /* normalised project names */
  size_t nroutes;
  char *routes_source;
  struct ts_rules_pairing *pairings;
  size_t npairings;
  struct ts_rules_rule *rules;
  size_t nrules;
  struct ts_rules_kmd kmd;
  struct ts_rules_torch_build *torch_builds;
  size_t ntorch_builds;
  /* A user file's `without_rules:` patterns: rules of the files it is
   * merged over that it removes (ts_rules_merge applies them). */
  char **without_rules;
  size_t nwithout_rules;
};

/* One problem found while loading, with its position ("rules.yaml:12:5"). */
struct ts_rules_diag {
  char *file;
  unsigned line, column; /* 1-based; 0 when unknown */
  char *message;
};

struct ts_rules_diags {
  struct ts_rules_diag *items;
  size_t n;
};
void ts_rules_diags_clear(struct ts_rules_diags *d);

/* Parses and validates a rules document.  `name` is used in positions.
 * On any problem returns TS_E_RULES with the first one in err
 * ("rules.yaml:12:5: backend 'cu130': driver_min must be a version") and,
 * when diags is non-NULL, appends every problem found there.  On success
 * *out is a new object the caller frees with ts_rules_free. */
enum ts_code ts_rules_parse(const char *data, size_t len, const char *name,
                            struct ts_rules **out, struct ts_rules_diags *diags,
                            struct ts_error *err);
/* ts_rules_parse of a file (capped at TS_CAP_RULES_FILE). */
enum ts_code ts_rules_load_file(const char *path, struct ts_rules **out,
                                struct ts_rules_diags *diags,
                                struct ts_error *err);
void ts_rules_free(struct ts_rules *r);
void ts_rules_provenance_clear(struct ts_rules_provenance *p);

/* What `torchsolve rules check` does to one file, and what `rules update`
 * does to a downloaded one: ts_rules_load_file with every problem in
 * diags, then, for a file other than `bundled` (NULL: none), a merge over
 * a copy of the bundled rules (what --rules FILE would do), whose failure
 * is one more diagnostic "(merged over BUNDLED)".  *out is the file's own
 * rules on success (caller frees). */
enum ts_code ts_rules_validate_file(const char *path, const char *bundled,
                                    struct ts_rules **out,
                                    struct ts_rules_diags *diags,
                                    struct ts_error *err);

/* Merges `over` into `base`: first over's `without_rules` patterns remove
 * base's rules (TS_E_RULES when a pattern matches none); then entries with
 * an id already in base replace it (backends by id, releases by series,
 * rules and pairings by id, torch_builds by project), others are added;
 * routes are added.  `over` is
 * left empty (its entries move). */
enum ts_code ts_rules_merge(struct ts_rules *base, struct ts_rules *over,
                            struct ts_error *err);

const struct ts_rules_backend *ts_rules_find_backend(const struct ts_rules *r,
                                                     const char *id);
const struct ts_rules_release *ts_rules_find_release(const struct ts_rules *r,
                                                     const char *series);
/* The torch_builds entry of a project (normalised name), or NULL. */
const struct ts_rules_torch_build *ts_rules_find_torch_build(const struct ts_rules *r,
                                                             const char *project);
/* The newest release series (the last one). NULL when there are none. */
const struct ts_rules_release *ts_rules_newest(const struct ts_rules *r);

/* Removes the rules whose id matches `pattern` (fnmatch: "hf-stack-*"),
 * as --without-rule asks; only `rules:` entries, never the facts of
 * backends and releases.  Returns how many were removed. */
size_t ts_rules_drop(struct ts_rules *r, const char *pattern);

/* The ROCm release whose kernel driver (KMD) this host runs, for the
 * window: the DKMS amdgpu module's version mapped through `kmd.amdgpu`
 * or `kmd.drivers`, else a ROCm override (--rocm X.Y) standing for it.
 * The kernel's own (in-tree) amdgpu is no ROCm release's driver, so an
 * installed ROCm does not stand for it: false then, with basis saying
 * why (the wheels bundle their user space and no window applies), as
 * when nothing is known (basis "").  Writes the release ("6.2") to rel
 * and what it was read from to basis. */
bool ts_rules_kmd_release(const struct ts_rules *r, const struct ts_host *h,
                          char *rel, size_t relcap, char *basis,
                          size_t basiscap);

/* ---- compiling against the host ------------------------------------- */

struct ts_rules_options {
  /* --ignore-host: no host facts and no host-dependent constraints; every
   * variant stays possible (for building images for other machines). */
  bool ignore_host;
  /* Release series the backend list is for ("2.11"); NULL = newest. */
  const char *release;
};

/* Fills *out (zeroed first): host facts from `host`; constraints for the
 * variants (driver floors, compute capabilities and gfx targets the host's
 * GPUs need, installed ROCm), the pairings and every rule whose `when`
 * holds on the host; the backend list for the release, usable ones best
 * first (the newest CUDA the driver runs natively, then builds relying on
 * CUDA minor-version compatibility, ROCm newest first, XPU, CPU), followed
 * by the excluded ones with the reason; and the routed projects.
 * The caller clears *out with ts_constraint_set_clear. */
enum ts_code ts_rules_compile(const struct ts_rules *rules,
                              const struct ts_host *host,
                              const struct ts_rules_options *opt,
                              struct ts_constraint_set *out,
                              struct ts_error *err);

/* The backend list of another release (opt->release) against a set that
 * ts_rules_compile already built for the same rules, host and ignore_host:
 * the gates do not depend on the release, so this costs one list instead
 * of a full compile.  *out (zeroed first) receives only `backends`; the
 * caller clears it with ts_constraint_set_clear. */
enum ts_code ts_rules_release_backends(const struct ts_rules *rules,
                                       const struct ts_host *host,
                                       const struct ts_rules_options *opt,
                                       const struct ts_constraint_set *compiled,
                                       struct ts_constraint_set *out,
                                       struct ts_error *err);

/* How two backends rank on this host, as every backend list orders its
 * usable entries: CUDA the driver runs natively, CUDA through minor-version
 * compatibility, ROCm, XPU, CPU; the newest CUDA or ROCm first within each.
 * Negative when `a` is preferred.  `host` may be NULL (no driver: every
 * CUDA build counts as native).  Lets one order serve every release. */
int ts_rules_backend_cmp(const struct ts_rules_backend *a,
                         const struct ts_rules_backend *b,
                         const struct ts_host *host);

/* A host fact in the words a user reads, never the solver's name:
 * "__cuda_driver" → "NVIDIA driver", "__rocm_kmd" → "ROCm kernel driver",
 * "__gfx1100" → "GPU target gfx1100", "__cc_8.6" → "a GPU of compute
 * capability 8.6", "__python" → "Python"; another name as it is.
 * malloc'd. */
char *ts_rules_fact_words(const char *name);

/* When torch `version` ("2.15.0+cu130") is a build no rules file lists,
 * judged on assumed facts (ts_constraint_set.assumed): the one-line
 * warning naming it and what was assumed; NULL for a listed build.  The
 * caller frees it. */
char *ts_rules_assumed_warning(const struct ts_constraint_set *set,
                               const char *version);

/* Builds the host facts alone (what ts_rules_compile puts first). */
enum ts_code ts_rules_host_facts(const struct ts_host *host,
                                 struct ts_constraint_set *out,
                                 struct ts_error *err);

/* ---- checking what is installed -------------------------------------- */

struct ts_installed {
  const char *name;    /* as in METADATA; normalised when compared */
  const char *version; /* "2.5.1+rocm6.2" */
};

struct ts_rules_finding {
  char *id;       /* rule id */
  char *subject;  /* "torch 2.5.1+rocm6.2" */
  char *detail;   /* what breaks it: "__gfx1100 is present", "torch 2.10.0" */
  char *message;
  char *fix;      /* may be NULL */
  char *source;
};

/* Evaluates every constraint of `set` against the installed distributions
 * and the set's host facts; appends one finding per broken constraint and
 * subject.  The caller frees with ts_rules_findings_free. */
enum ts_code ts_rules_check_installed(const struct ts_constraint_set *set,
                                      const struct ts_installed *pkgs,
                                      size_t npkgs,
                                      struct ts_rules_finding **out,
                                      size_t *nout, struct ts_error *err);
void ts_rules_findings_free(struct ts_rules_finding *f, size_t n);

/* Two CUDA stacks in one environment (nvidia-*-cu12 beside cuda-toolkit
 * 13 and nvidia-*-cu13, left by a switch of torch builds): appends one
 * finding (id "cuda-stacks") listing each stack's distributions.  A
 * distribution's stack is the NN of nvidia-*-cuNN, cuda-toolkit's major
 * version, or the CUDA major of a +cuNNN label. */
enum ts_code ts_rules_check_cuda_stacks(const struct ts_installed *pkgs, size_t npkgs,
                                        struct ts_rules_finding **out, size_t *nout,
                                        struct ts_error *err);

/* A custom build (seed 003: torch-2.9.1a0+gitd38164a from a path or
 * --find-links) is no variant of the PyTorch server, so no variant gate
 * matches its label.  Where its wheel says what it was built with
 * (torch/version.py: cuda = "12.8", hip = "7.1.52802"), judge it as the
 * variant the server would have labelled it (cu128, rocm7.1) against the
 * host facts, and append a finding per constraint it breaks; with neither
 * given there is nothing to check.  Caller frees with
 * ts_rules_findings_free. */
enum ts_code ts_rules_check_build(const struct ts_constraint_set *set,
                                  const char *name, const char *version,
                                  const char *built_cuda,
                                  const char *built_rocm,
                                  struct ts_rules_finding **out, size_t *nout,
                                  struct ts_error *err);

/* Whether `version` carries a local label that is no backend of the set
 * ("2.9.1a0+gitd38164a": a custom build; "2.9.1+cu128" is a variant). */
bool ts_rules_is_custom_build(const struct ts_constraint_set *set, const char *version);

/* `rules audit`: ts_rules_check_installed over pkgs, then every custom
 * build among them judged by ts_rules_check_build as built with
 * built_cuda / built_rocm (what the user says; both NULL: not judged). */
enum ts_code ts_rules_audit(const struct ts_constraint_set *set, const struct ts_installed *pkgs,
                            size_t npkgs, const char *built_cuda, const char *built_rocm,
                            struct ts_rules_finding **out, size_t *nout,
                            struct ts_error *err);

/* True when `term` matches a distribution of that name and version; host
 * facts match the set's facts.  Exposed for the resolver's tests. */
bool ts_rules_term_matches(const struct ts_term *term, const char *name,
                           const char *version);

/* Version of the libyaml we run with. */
const char *ts_rules_libyaml_version(void);
