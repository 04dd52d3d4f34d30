/*
 * source/build.h — wheels built from source for install and lock: a local
 * project directory (editable or not), an sdist file or URL, a git URL.
 *
 * The build environment is a venv made by wheel/venv.h (milliseconds) and
 * filled from the same indexes by the caller's provider (struct
 * ts_source_env_provider: plan/'s resolver and installer, which sit above
 * this room, so no file here calls back up), its packages hardlinks from
 * the wheel cache; the backend then runs through the hook runner
 * (source.h).  Without isolation the target's own
 * interpreter builds, with what it has installed.
 *
 * The build cache: <cache>/builds-v1/<key>/<wheel>, where the key hashes
 * every input that decides the wheel: the source (sdist sha256, git
 * commit, or the hash of a local tree's files), the target's interpreter
 * and platform tags, the build environment's resolved set (name, version,
 * file sha256), the config settings, and the environment variables that
 * steer extension builds (TORCH_CUDA_ARCH_LIST, FORCE_CUDA, MAX_JOBS,
 * CUDA_HOME, CC, CXX, CFLAGS, CXXFLAGS, LDFLAGS) with the values the
 * backend gets.  A hit runs no backend.  The cache is asked BEFORE a
 * build environment is made or an sdist unpacked (or downloaded, when its
 * sha256 is known): a source's project name, [build-system] requires and
 * METADATA are remembered per source and target (builds-v1/<key without
 * the environment>/), so a warm install only resolves the build
 * requirements to know the wheel's key.  Editables and
 * --no-build-isolation builds are never cached.
 *
 * One environment per source and run: the build environment (and the
 * unpacked tree) made for a source's prepare_metadata_for_build_wheel is
 * kept in o->kept, and the wheel of the same source (same source inputs,
 * same torch) is built in it, without making, filling or asking the
 * backend for its requirements again, as pip does.
 *
 * Torch-matched builds.  A build needs torch when build-system.requires
 * names it or rules.yaml's torch_builds lists the project (its setup.py
 * imports torch undeclared).  Its isolated environment then gets exactly
 * the torch build the runtime resolution chose (runtime_torch: version and
 * local label, from the PyTorch server through the rules' routes, with
 * the CUDA/ROCm companions that build depends on), and the backend gets
 * TORCH_CUDA_ARCH_LIST from the host's compute capabilities (or
 * PYTORCH_ROCM_ARCH from its gfx targets) and, for a CUDA build,
 * FORCE_CUDA=1 (values set in the environment win).  Before a CUDA build
 * compiles, nvcc ($CUDA_HOME/bin/nvcc, $CUDA_PATH/bin/nvcc, else PATH)
 * must report torch.version.cuda's major.minor when torch_builds says
 * nvcc: true (none at all is refused too), its major otherwise (when one
 * is found): TS_E_REFUSED with the fix.  --ignore-host (ignore_host)
 * takes nothing from the host: no arch list, no nvcc check.
 *
 * Without isolation (--no-build-isolation, --no-build-isolation-package)
 * a build that needs torch builds against the target's own torch, with
 * the same variables and nvcc check: target_torch names the torch build
 * the target has when the backend runs, installing the plan's runtime
 * torch into it first when it lacks it or has another build (the two
 * phases of plan.h's runtime_install).  A target without torch, for a
 * plan that brings none, is refused with the fix.
 */
#pragma once

#include <signal.h>
#include <stdbool.h>
#include <stddef.h>

#include "core/error.h"
#include "index/client.h"
#include "host/host.h"
#include "request/reqfile.h"
#include "rules/rules.h"
#include "target/target.h"

/* Build environments kept for the rest of a run (see "One environment
 * per source" above); ts_source_build_kept_free removes their directories. */
struct ts_source_build_kept;
struct ts_source_build_kept *ts_source_build_kept_new(void);
void ts_source_build_kept_free(struct ts_source_build_kept *k);

struct ts_source_build_callbacks {
  void *ctx;
  /* A backend is about to run for `what` (a project name or location). */
  void (*build_begin)(void *ctx, const char *what);
  /* It finished after ms milliseconds; ok false when it failed. */
  void (*build_end)(void *ctx, const char *what, double ms, bool ok);
  /* torch `version` was installed into the target in ms milliseconds,
   * before `project` is built there without isolation (target_torch). */
  void (*installed_first)(void *ctx, const char *version, const char *project, double ms);
  /* A check found something worth saying that does not stop the build
   * (an nvcc of another CUDA release than torch's): one line. */
  void (*warning)(void *ctx, const char *line);
};

/* A build in progress, and the build whose environment needs it: a build
 * requirement that exists only as an sdist is built for another build's
 * environment, and so on, as pip does. */
struct ts_source_build_link {
  const char *name;       /* the project, when known */
  const char *location;   /* what is built */
  const struct ts_source_build_link *outer;
};

struct ts_resolution;
struct ts_source_build_options;

/* A file of a locked build environment, fetched and checked against its
 * sha256. */
struct ts_source_env_file {
  const char *project; /* normalised */
  const char *filename;
  const char *url;
  const char *sha256;
};

/* How a build environment is filled: given by plan/ (ts_plan_env_provider),
 * the way resolver/resolver.h takes its pages from a provider. */
struct ts_source_env_provider {
  /* Resolves ents[0..n) (build requirements, then the build constraints)
   * for the interpreter `python`; read_installed: against what its
   * environment has; torch_matched: with the rules' routes, not the host
   * (o->rules, o->host), so that torch and its companions come from the
   * PyTorch server as the runtime's do.  Sdists among the candidates are
   * built with o (nested builds).  *env (released with release, also
   * after an error) holds the resolution *res, which stays set on
   * TS_E_RESOLVE to explain it. */
  enum ts_code (*resolve)(const struct ts_source_build_options *o, const char *python,
                          bool read_installed, const struct ts_reqfile_entry *const *ents,
                          size_t n, bool torch_matched, void **env,
                          const struct ts_resolution **res, struct ts_error *err);
  /* Installs what env resolved that its environment lacks. */
  enum ts_code (*install)(void *env, const volatile sig_atomic_t *cancel,
                          struct ts_error *err);
  void (*release)(void *env);
  /* Fetches files[0..n) (the wheel cache serves them under --offline),
   * checks each against its sha256 (TS_E_HASH) and installs them into
   * the environment of `python` as one transaction. */
  enum ts_code (*install_files)(struct ts_index *idx, const char *python,
                                const char *probe_cache_dir,
                                const struct ts_source_env_file *files, size_t n,
                                const volatile sig_atomic_t *cancel, struct ts_error *err);
};

/* How deep build environments may nest sdist builds. */
#define TS_SOURCE_BUILD_MAX_NESTING 16

struct ts_source_build_options {
  /* fills build environments (plan/build_env.h's ts_plan_env_provider) */
  const struct ts_source_env_provider *env;
  const struct ts_index_options *index; /* the indexes of the build envs */
  const char *cache_root;     /* NULL: no build cache (--no-cache) */
  const char *probe_cache_dir;
  const char *runner;         /* pep517_runner.py */
  const char *const *config_settings; /* "KEY=VALUE" (-C) */
  size_t nconfig_settings;
  /* --build-constraint entries (is_constraint set), borrowed */
  const struct ts_reqfile_entry *const *build_constraints;
  size_t nbuild_constraints;
  bool no_isolation;          /* build with the target's interpreter */
  const char *const *no_isolation_packages; /* these projects too */
  size_t nno_isolation_packages;
  unsigned timeout_s;         /* per backend call, 0: none */
  bool stream;                /* -v: the backend's output on stderr too */
  const volatile sig_atomic_t *cancel;
  struct ts_source_build_callbacks cb;
  /* Torch-matched builds (set by ts_plan_resolve from its own options;
   * all may be NULL: no build is torch-matched).  runtime_torch gives the
   * torch build the runtime resolution chooses ("2.9.1+cu126", malloc'd),
   * asked only when a build needs torch; ts_plan_resolve sets it unless
   * the caller gives one.  target_torch (NULL: non-isolated builds are
   * not torch-matched) gives the torch build the target has once it is
   * ready for a non-isolated build of `project` (see above), NULL in
   * *version for none. */
  const struct ts_rules *rules;
  const struct ts_host *host;
  bool ignore_host;
  enum ts_code (*runtime_torch)(void *ctx, char **version, struct ts_error *err);
  enum ts_code (*target_torch)(void *ctx, const char *project, char **version,
                               struct ts_error *err);
  void *runtime_ctx;
  /* sync of a locked build: the build environment is exactly this set
   * (a lock's build fingerprint, ts_source_built.build_env's form): each
   * file fetched from its URL (the wheel cache serves it under
   * --offline) and checked against its sha256 (TS_E_HASH), nothing
   * resolved; build-system.requires and the runtime torch are not
   * consulted (the locked torch is the build's).  NULL: resolved as usual. */
  const char *locked_env;
  /* Where metadata builds leave their environment for the wheel's build
   * (ts_plan_resolve makes one for its builds when NULL); NULL: none. */
  struct ts_source_build_kept *kept;
  /* A resolution whose target environments have no interpreter and may be
   * of any Python and platform (lock --universal): an sdist's METADATA is
   * prepared by this interpreter (a path); NULL: by pythonX.Y from PATH
   * when it is one of the target's (--python-version), else refused. */
  const char *metadata_python;
  /* The builds this one is nested in (set by the builds themselves; NULL
   * for a build the user asked for).  Building a project that is already
   * being built is refused with pip's "X is already being built" (a build
   * that needs itself, a fork bomb), as is nesting deeper than
   * TS_SOURCE_BUILD_MAX_NESTING. */
  const struct ts_source_build_link *building;
};

enum ts_source_kind {
  TS_SOURCE_DIR,     /* a project directory */
  TS_SOURCE_ARCHIVE, /* a local sdist (.tar.gz, .zip, ...) */
  TS_SOURCE_URL,     /* an sdist at http(s):// or file:// */
  TS_SOURCE_VCS,     /* git+...: checked out with the system git */
};

struct ts_source_spec {
  enum ts_source_kind kind;
  const char *location;   /* path or URL as given */
  const char *sha256;     /* expected sha256 of an archive (--hash), or NULL */
  const char *name;       /* the project's name when known ("x @ url", an
                             index sdist), or NULL */
  const char *label;      /* for progress lines ("name 1.0"), or NULL: the
                             location */
  bool editable;          /* PEP 660 (DIR only) */
};

/* What a build produced. */
struct ts_source_built {
  char *wheel;            /* path of the wheel (cache or work directory) */
  char *direct_url;       /* PEP 610 JSON for direct_url.json */
  char *source_hash;      /* sdist sha256, tree hash, or git commit */
  char *log;              /* the build log (kept when a build failed) */
  bool cached;            /* no backend ran */
  char *torch;            /* the torch build it was built against, or NULL */
  /* The build environment it was built in: "name==version sha256 url\n"
   * per package, sorted (kept beside a cached wheel, so a hit says the
   * same); "" when it needed nothing, NULL without isolation. */
  char *build_env;
  enum ts_source_kind kind;
  long long source_size;  /* an sdist's size in bytes, -1 otherwise */
  char *workdir;          /* removed by ts_source_built_clear */
};

/* -C settings in the order that decides a build (the cache key, a lock's
 * config-settings): by key, the values of one key in the order given (a
 * backend sees a repeated key's values as a list, in that order).  A
 * malloc'd array of the n borrowed strings. */
const char **ts_source_config_settings_sorted(const char *const *cs, size_t n);

/* Classifies a path or URL requirement: a directory, an sdist archive, a
 * git URL.  False for wheels and anything else. */
bool ts_source_of(const struct ts_reqfile_entry *e, struct ts_source_spec *out);

/* Builds (or finds in the build cache) the wheel of `src` for `target`.
 * A target without an interpreter (--python-version) builds with
 * pythonX.Y from PATH when it is one of the target's version,
 * implementation and platform (TS_E_UNSUPPORTED with the fix otherwise);
 * this and ts_source_build_metadata alike.
 * idx downloads sdist URLs.  TS_E_BUILD for a failing backend: out->log
 * names the full log, which stays. */
enum ts_code ts_source_build(const struct ts_source_build_options *o,
                           const struct ts_target *target, struct ts_index *idx,
                           const struct ts_source_spec *src, struct ts_source_built *out,
                           struct ts_error *err);
void ts_source_built_clear(struct ts_source_built *b);

/* The METADATA that building `src` would give, for resolving: from the
 * cache, else the backend's prepare_metadata_for_build_wheel in the build
 * environment (a backend without that hook builds the wheel, which is
 * cached for the install).  *data malloc'd.  TS_E_BUILD: *log names the
 * full log (malloc'd), else *log is NULL. */
enum ts_code ts_source_build_metadata(const struct ts_source_build_options *o,
                                    const struct ts_target *target, struct ts_index *idx,
                                    const struct ts_source_spec *src, char **data,
                                    size_t *len, char **log, struct ts_error *err);

/* The build environment the wheel of `src` would be built in, in
 * ts_source_built.build_env's form (a lock's build fingerprint), without
 * building it: the cached wheel's when there is one, else the isolated
 * environment made and filled as for the build, get_requires_for_build_wheel
 * answered in it, then the backend is not asked to build (no nvcc check
 * either: nothing compiles).  *build_env (malloc'd) is "" for an empty
 * environment, NULL when `src` builds without isolation.  TS_E_BUILD: *log names the full log. */
enum ts_code ts_source_build_env(const struct ts_source_build_options *o,
                               const struct ts_target *target, struct ts_index *idx,
                               const struct ts_source_spec *src, char **build_env, char **log,
                               struct ts_error *err);
