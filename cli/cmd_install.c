/* torchsolve install — resolve requirements against the indexes and the GPU
 * rules, then download and install them as one transaction.  The work is in
 * plan/; this file parses flags, draws progress and prints the outcome. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli/build_options.h"
#include "cli/cli.h"
#include "cli/gpu_options.h"
#include "cli/index_options.h"
#include "cli/progress.h"
#include "cli/reqargs.h"
#include "cli/resolution_notes.h"
#include "core/alloc.h"
#include "core/buf.h"
#include "index/url.h"
#include "lock/output.h"
#include "plan/plan.h"
#include "plan/tree.h"
#include "plan/upgrade.h"

static const char install_head[] =
    "usage: torchsolve install [REQ...] [-r FILE]... [-c FILE]... [options]\n"
    "\n"
    "Resolves the requirements for the target environment and this machine's\n"
    "GPU stack (the PyTorch build it can run: see 'torchsolve detect'), then\n"
    "downloads and installs them as one transaction.  REQ is a PEP 508\n"
    "requirement ('torch>=2.6', 'foo[x]'), 'name @ URL', a path to a .whl\n"
    "file, an sdist (.tar.gz, .zip) or a project directory ('.'), or a git URL\n"
    "('name @ git+https://host/repo@v1.0#subdirectory=pkg').  Sources are\n"
    "built into wheels first (cached: the same inputs never build twice).\n"
    "'--' ends the options.\n";
static const char download_head[] =
    "usage: torchsolve download [-d DIR] [REQ...] [-r FILE]... [options]\n"
    "\n"
    "Resolves the requirements as install does (this machine's GPU stack or\n"
    "the overrides below; --python-version and --platform for another\n"
    "machine), as if nothing were installed, downloads every file with its\n"
    "sha256 checked (the index's and any --hash), and places them in DIR:\n"
    "the files for an offline or air-gapped install, which\n"
    "'torchsolve install --no-index -f DIR REQ...' then installs.\n"
    "\n"
    "  -d, --dest DIR           where the files go (default: the current\n"
    "                           directory; a file of the same name is replaced)\n";

static const char usage[] =
    "\n"
    "Target:\n"
    "  --python PATH            interpreter or venv directory (default\n"
    "                           $TORCHSOLVE_PYTHON, $VIRTUAL_ENV, else ./.venv)\n"
    "  --system                 the python3 on PATH (uv's spelling; refused when\n"
    "                           it is externally managed, PEP 668)\n"
    "  --python-version X.Y     plan for an absent interpreter (install: implies\n"
    "                           --dry-run; overrides --python)\n"
    "  --platform PLAT          with --python-version: manylinux_2_28_x86_64...\n"
    "  --python-platform P      uv's spelling of --platform: linux and\n"
    "                           ARCH-unknown-linux-gnu (manylinux_2_28),\n"
    "                           ARCH-unknown-linux-musl (musllinux_1_2),\n"
    "                           ARCH-manylinux_2_28, ARCH-manylinux2014...\n"
    "  -t, --target DIR         install: into DIR as pip does (DIR/PKG, DIR/bin;\n"
    "                           no environment, nothing installed elsewhere read);\n"
    "                           an entry already in DIR is kept, with a warning,\n"
    "                           unless --upgrade replaces it\n"
    "  --prefix DIR             install: under DIR in the interpreter's layout\n"
    "                           (DIR/lib/pythonX.Y/site-packages, DIR/bin)\n"
    "\n"
    "Requirements and resolution:\n"
    "  -r, --requirement FILE   requirements file (repeatable)\n"
    "  -c, --constraint FILE    constraints file (repeatable)\n"
    "  -e, --editable DIR       install the project in DIR editable (PEP 660):\n"
    "                           its source edits take effect without reinstalling\n"
    "  -U, --upgrade            upgrade the named packages to the best version\n"
    "  --upgrade-strategy S     only-if-needed (default: -U moves what is named,\n"
    "                           dependencies only when needed) or eager (the\n"
    "                           dependencies of what is installed move too)\n"
    "  --upgrade-package P      allow upgrading P only (repeatable)\n"
    "  --force-reinstall        reinstall everything needed, even if current\n"
    "  -I, --ignore-installed   install: resolve as if nothing were installed,\n"
    "                           then replace what is\n"
    "  --no-deps                install exactly what is named, no dependencies\n"
    "  --pre                    allow pre-releases\n"
    "  --resolution MODE        highest (default), lowest, lowest-direct\n"
    "  --require-hashes         every file needs a --hash in a requirements file\n"
    "  --no-binary P            never use wheels of P: build it from its sdist\n"
    "                           (repeatable; comma-separated names, :all: or\n"
    "                           :none:, as pip)\n"
    "  --only-binary P          never build P from source, wheels only (P, :all:,\n"
    "                           :none:); a version with only an sdist is then\n"
    "                           no candidate, and one no wheel fits is named\n"
    "  --no-build               uv's spelling of --only-binary :all:\n"
    "  --prefer-binary          a version with a wheel before a newer one with\n"
    "                           only an sdist (default: the newest version, built\n"
    "                           from its sdist when it has no wheel for the target)\n"
    "  --debug-solver DIR       write the last solver problem as a libsolv testcase\n"
    "\n"
    "Output and installation:\n"
    "  --dry-run                print the plan on stdout, change nothing: one line\n"
    "                           per package: action name version variant index,\n"
    "                           and for a change of what is installed, (was OLD)\n"
    "  --report FILE|-          install: write pip's installation report (JSON)\n"
    "  --link-mode MODE         install: hardlink (default), copy or clone\n"
    "  --compile, --compile-bytecode\n"
    "                           install: byte-compile installed .py files\n"
    "  --allow-overwrite        install: let a package replace a file that another\n"
    "                           installed package owns with other content\n"
    "                           (refused by default: exit 1 naming both, the path)\n"
    "  --no-wait                when another torchsolve is changing the\n"
    "                           environment, exit 6 instead of waiting for it\n"
    "  --break-system-packages  install: into an interpreter its distribution\n"
    "                           manages (PEP 668 EXTERNALLY-MANAGED) anyway\n"
    "  -q, --quiet / -v, --verbose\n"
    "\n";

static const char install_tail[] =
    "\nExit status: 0 success, 1 resolution or install failure, 2 usage error,\n"
    "other codes as 'torchsolve help' documents (host refused, network...).\n"
    "\nExamples:\n"
    "  torchsolve install torch torchvision\n"
    "  torchsolve install --dry-run 'torch==2.5.1+rocm6.2'\n"
    "  torchsolve install -r requirements.txt --require-hashes\n"
    "  torchsolve install ./torch-2.9.1a0+gitd38164a-cp311-cp311-linux_x86_64.whl\n"
    "      (a custom build: checked against this host by its torch/version.py)\n"
    "  torchsolve install --python-version 3.12 --platform manylinux_2_28_x86_64 \\\n"
    "      --cuda 12.6 --report - torch\n"
    "  torchsolve install --target /install -r requirements.txt\n"
    "  torchsolve install --torch-backend cu126 torch\n";

static const char download_tail[] =
    "\nExit status: 0 success, 1 resolution or download failure, 2 usage error,\n"
    "4 a file whose sha256 is not the expected one (it is not kept).\n"
    "\nExamples:\n"
    "  torchsolve download -d wheels/ torch torchvision\n"
    "  torchsolve download -d wheels/ --python-version 3.12 \\\n"
    "      --platform manylinux_2_28_x86_64 --torch-backend cu126 -r requirements.txt\n"
    "  torchsolve install --no-index -f wheels/ -r requirements.txt   # offline\n";

static void print_help(FILE *out, bool download) {
  fputs(download ? download_head : install_head, out);
  fputs(usage, out);
  fputs(ts_build_cli_help, out);
  fputs("\nPackage indexes:\n", out);
  fputs(ts_index_cli_help, out);
  fputc('\n', out);
  ts_gpu_options_help(out);
  fputs(download ? download_tail : install_tail, out);
}

/* ---- report --------------------------------------------------------- */

static int write_report(const char *dest, const struct ts_plan_result *r) {
  struct ts_buf b;
  ts_buf_init(&b, 256u << 20);
  struct ts_error err = {0};
  enum ts_code rc = ts_plan_report(r, &b, &err);
  if (rc == TS_OK) {
    if (strcmp(dest, "-") == 0)
      fwrite(b.data, 1, b.len, stdout);
    else
      rc = ts_output_write_file(dest, b.data, b.len, &err);
  }
  ts_buf_clear(&b);
  return rc == TS_OK ? 0 : ts_cli_report(&err);
}

/* ---- plan output ---------------------------------------------------- */

static const char *variant_of(const char *version) {
  const char *plus = strchr(version, '+');
  return plus ? plus + 1 : "-";
}

static void print_plan(const struct ts_plan_result *r) {
  for (size_t i = 0; i < r->res->nitems; i++) {
    const struct ts_resolved *x = &r->res->items[i];
    const char *from = r->items[i].index;
    char *idx = from ? ts_url_without_userinfo(from) : NULL;
    printf("%s %s %s %s %s", ts_resolved_action_name(x->action), x->name, x->version,
           variant_of(x->version), idx ? idx : "-");
    /* the version replaced: a variant switch (2.10.0+cpu -> 2.10.0+cu126)
     * reads as "upgrade torch 2.10.0+cu126" without it */
    if (x->installed_version && x->action != TS_ACTION_KEEP &&
        x->action != TS_ACTION_INSTALL)
      printf(" (was %s)", x->installed_version);
    if (x->sdist && x->action != TS_ACTION_KEEP)
      printf(" (would build)");
    putchar('\n');
    free(idx);
  }
}

/* When a routed project ends up with a CPU build, say why no GPU build. */
static void explain_cpu(const struct ts_plan_result *r, const struct ts_rules *rules,
                        const struct ts_host *h, bool ignore_host) {
  struct ts_plan_cpu_note n;
  if (!ts_plan_explain_cpu(r, rules, h, ignore_host, &n))
    return;
  const struct ts_resolved *x = n.item;
  if (n.why == TS_PLAN_CPU_RULED_OUT)
    ts_cli_info("note: %s %s is a CPU build: no GPU build fits the other "
                "requirements", x->name, x->version);
  else if (n.why == TS_PLAN_CPU_OLDER_SERIES)
    ts_cli_info("note: %s %s is a CPU build: torch %s has no build for this "
                "host's GPU; the newest torch with one is %s, which the "
                "other requirements rule out (see 'torchsolve detect')",
                x->name, x->version, n.series, n.newest_gpu_series);
  else
    ts_cli_info("note: %s %s is a CPU build: this host has no usable GPU "
                "backend (see 'torchsolve detect')", x->name, x->version);
  for (size_t j = 0; j < n.backends->nbackends && ts_cli.verbosity > 0; j++)
    if (!n.backends->backends[j].usable && n.backends->backends[j].reason)
      ts_cli_info("  %s: %s", n.backends->backends[j].name, n.backends->backends[j].reason);
  ts_plan_cpu_note_clear(&n);
}

/* ---- main ----------------------------------------------------------- */

struct args {
  struct ts_cli_reqs reqs;
  const char **upgrade_pkgs;
  size_t nupgrade;
  struct ts_build_cli build;
};

static void args_free(struct args *a) {
  ts_cli_reqs_free(&a->reqs);
  free(a->upgrade_pkgs);
  ts_build_cli_free(&a->build);
}

/* Whether the resolution installs anything (a tree is made only then, as
 * pip makes none when everything is satisfied). */
static bool changes_any(const struct ts_plan_result *r) {
  for (size_t i = 0; i < r->res->nitems; i++)
    if (r->res->items[i].action != TS_ACTION_KEEP)
      return true;
  return false;
}

/* install and download share everything up to what is done with the
 * resolution: installed, or the files placed in a directory. */
static int install_or_download(int argc, char **argv, bool download) {
  const char *cmd = download ? "download" : "install";
  struct ts_gpu_options g;
  struct ts_index_cli ic;
  ts_gpu_options_init(&g);
  ts_index_cli_init(&ic);
  struct args a = {0};
  ts_cli_reqs_init(&a.reqs, argc);
  a.upgrade_pkgs = ts_xcalloc((size_t)argc, sizeof *a.upgrade_pkgs);
  ts_build_cli_init(&a.build, argc);
  const char *python = NULL, *pyver = NULL, *platform = NULL, *report = NULL;
  const char *debug_dir = NULL, *target_dir = NULL, *prefix_dir = NULL;
  const char *dest = ".", *install_only = NULL;
  bool dry = false, upgrade = false, force = false, no_deps = false, pre = false;
  bool require_hashes = false, compile = false, break_system = false, no_wait = false;
  bool allow_overwrite = false, prefer_binary = false;
  bool system = false, ignore_installed = false, eager = false;
  char uv_platform[64];
  enum ts_resolution_mode mode = TS_RESOLUTION_HIGHEST;
  enum ts_wheel_link_mode link = TS_WHEEL_LINK_HARDLINK;
  const char *link_mode = NULL;
  struct ts_error err = {0};
  int status = 0;
  bool opts_done = false;

  for (int i = 1; i < argc; i++) {
    const char *s = argv[i], *v = NULL;
    int m;
    if (!opts_done && s[0] == '-' && s[1]) {
      if (!strcmp(s, "--")) {
        opts_done = true;
        continue;
      }
      if (!strcmp(s, "--help") || !strcmp(s, "-h")) {
        print_help(stdout, download);
        args_free(&a);
        return 0;
      }
      int g_used = ts_cli_parse_global(cmd, argc, argv, &i);
      if (g_used < 0) {
        args_free(&a);
        return 2;
      }
      if (g_used)
        continue;
      int used = ts_gpu_options_parse(&g, cmd, argc, argv, &i);
      if (used == 0)
        used = ts_index_cli_parse(&ic, cmd, argc, argv, &i);
      if (used == 0)
        used = ts_build_cli_parse(&a.build, cmd, argc, argv, &i);
      if (used < 0) {
        args_free(&a);
        return 2;
      }
      if (used)
        continue;
      if (!strcmp(s, "--dry-run")) { dry = true; continue; }
      if (!strcmp(s, "--upgrade") || !strcmp(s, "-U")) { upgrade = true; continue; }
      if (!strcmp(s, "--force-reinstall")) { force = true; continue; }
      if (!strcmp(s, "--no-deps")) { no_deps = true; continue; }
      if (!strcmp(s, "--pre")) { pre = true; continue; }
      if (!strcmp(s, "--require-hashes")) { require_hashes = true; continue; }
      if (!strcmp(s, "--system")) { system = true; continue; }
      if (!strcmp(s, "--prefer-binary")) { prefer_binary = true; continue; }
      if (!strcmp(s, "--no-build")) {
        if ((status = ts_cli_reqs_add_binary(&a.reqs, cmd, ":all:", false)) != 0) {
          args_free(&a);
          return status;
        }
        continue;
      }
      if (!strcmp(s, "--ignore-installed") || !strcmp(s, "-I")) {
        ignore_installed = true;
        install_only = s;
        continue;
      }
      if (!strcmp(s, "--compile") || !strcmp(s, "--compile-bytecode")) {
        compile = true;
        install_only = s;
        continue;
      }
      if (!strcmp(s, "--no-wait")) { no_wait = true; continue; }
      if (!strcmp(s, "--allow-overwrite")) {
        allow_overwrite = true;
        install_only = s;
        continue;
      }
      if (!strcmp(s, "--break-system-packages")) {
        break_system = true;
        install_only = s;
        continue;
      }
      static const char *const valued[] = {
          "--python", "--python-version", "--platform", "--report", "--requirement",
          "-r", "--constraint", "-c", "--upgrade-package", "--resolution",
          "--link-mode", "--debug-solver", "--no-binary", "--only-binary", "--editable",
          "-e", "--target", "-t", "--prefix", "--python-platform", "--upgrade-strategy",
          "--dest", "-d"};
      bool matched = false;
      for (size_t k = 0; k < sizeof valued / sizeof valued[0] && !matched; k++) {
        m = ts_cli_flag_value(valued[k], argc, argv, &i, &v);
        if (m == 0)
          continue;
        matched = true;
        const char *f = valued[k];
        if (m < 0) {
          status = ts_cli_usage_error(cmd, "%s needs a value", f);
          break;
        }
        if (!strcmp(f, "--python")) python = v;
        else if (!strcmp(f, "--python-version")) pyver = v;
        else if (!strcmp(f, "--platform")) platform = v;
        else if (!strcmp(f, "--report")) { report = v; install_only = f; }
        else if (!strcmp(f, "--target") || !strcmp(f, "-t")) target_dir = install_only = v;
        else if (!strcmp(f, "--prefix")) prefix_dir = install_only = v;
        else if (!strcmp(f, "--dest") || !strcmp(f, "-d")) {
          dest = v;
          if (!download)
            status = ts_cli_usage_error(cmd, "%s is download's option", f);
        } else if (!strcmp(f, "--python-platform")) {
          if (ts_cli_uv_platform(v, uv_platform, sizeof uv_platform) != 0)
            status = ts_cli_usage_error(cmd, "--python-platform '%s': torchsolve "
                                        "knows linux, ARCH-unknown-linux-gnu, "
                                        "ARCH-unknown-linux-musl, ARCH-manylinux_X_Y, "
                                        "ARCH-manylinux2014, ARCH-musllinux_X_Y", v);
          platform = uv_platform;
        } else if (!strcmp(f, "--upgrade-strategy")) {
          if (!strcmp(v, "eager")) eager = true;
          else if (!strcmp(v, "only-if-needed")) eager = false;
          else status = ts_cli_usage_error(cmd, "--upgrade-strategy must be "
                                           "only-if-needed or eager, not '%s'", v);
        }
        else if (!strcmp(f, "--debug-solver")) debug_dir = v;
        else if (!strcmp(f, "--upgrade-package")) a.upgrade_pkgs[a.nupgrade++] = v;
        else if (!strcmp(f, "--no-binary") || !strcmp(f, "--only-binary")) {
          status = ts_cli_reqs_add_binary(&a.reqs, cmd, v, !strcmp(f, "--no-binary"));
        } else if (!strcmp(f, "--editable") || !strcmp(f, "-e")) {
          status = ts_cli_reqs_add_editable(&a.reqs, cmd, v);
        }
        else if (!strcmp(f, "--requirement") || !strcmp(f, "-r") ||
                 !strcmp(f, "--constraint") || !strcmp(f, "-c")) {
          status = ts_cli_reqs_add_file(&a.reqs, v, f[1] == 'c' || f[2] == 'c');
        } else if (!strcmp(f, "--resolution")) {
          if (!strcmp(v, "highest")) mode = TS_RESOLUTION_HIGHEST;
          else if (!strcmp(v, "lowest")) mode = TS_RESOLUTION_LOWEST;
          else if (!strcmp(v, "lowest-direct")) mode = TS_RESOLUTION_LOWEST_DIRECT;
          else status = ts_cli_usage_error(cmd, "unknown --resolution '%s'", v);
        } else if (!strcmp(f, "--link-mode")) {
          link_mode = install_only = v;
        }
      }
      if (status) {
        args_free(&a);
        return status;
      }
      if (!matched) {
        args_free(&a);
        return ts_cli_usage_error(cmd, "unknown option '%s'", s);
      }
      continue;
    }
    if ((status = ts_cli_reqs_add_arg(&a.reqs, cmd, s)) != 0) {
      args_free(&a);
      return status;
    }
  }
  if (status == 0 && download && install_only)
    status = ts_cli_usage_error(cmd, "'%s' is an install option: download only places "
                                "the files in --dest", install_only);
  if (status == 0 && platform && !pyver)
    status = ts_cli_usage_error(cmd, "--platform needs --python-version");
  if (status == 0 && system && python)
    status = ts_cli_usage_error(cmd, "--system and --python name two interpreters: give one");
  if (status == 0 && target_dir && prefix_dir)
    status = ts_cli_usage_error(cmd, "--target and --prefix exclude each other");
  if (status == 0 && (target_dir || prefix_dir) && pyver)
    status = ts_cli_usage_error(cmd, "--target and --prefix install for an interpreter: "
                                "drop --python-version");
  if (status) {
    args_free(&a);
    return status;
  }
  if (system)
    python = "python3"; /* the interpreter on PATH; PEP 668 still applies */
  /* A tree outside any environment (multi-stage images) or a download:
   * with no venv to name the interpreter, the python3 on PATH, as pip's. */
  if ((target_dir || prefix_dir || download) && !python && !getenv("TORCHSOLVE_PYTHON") &&
      !getenv("VIRTUAL_ENV") && access(".venv/bin/python", X_OK) != 0)
    python = "python3";
  /* --python-version plans for that interpreter (this host's platform
   * unless --platform): --python is then ignored, nothing is installed. */
  if (pyver && !download)
    dry = true; /* nothing to install into */
  if (ts_gpu_options_env(&g) < 0 || ts_cli_link_mode(cmd, link_mode, &link) < 0) {
    args_free(&a);
    return 2;
  }
  /* Index settings from requirements files fill what flags did not set. */
  ts_index_cli_apply_reqfile(&ic, &a.reqs.rf);
  if (a.reqs.rf.pre)
    pre = true;
  if (a.reqs.rf.require_hashes)
    require_hashes = true;
  if (ts_index_cli_finish(&ic, cmd) < 0) {
    args_free(&a);
    return 2;
  }

  if ((status = ts_cli_reqs_collect(&a.reqs, cmd, cmd)) != 0) {
    args_free(&a);
    return status;
  }
  const struct ts_reqfile_entry *const *ents = a.reqs.all;
  size_t nent = a.reqs.nall;
  /* Before resolving, as pip does: a named requirement without a hash. */
  if (ts_plan_check_requirement_hashes(ents, nent, &require_hashes, &err) != TS_OK) {
    args_free(&a);
    return ts_cli_report(&err);
  }

  struct ts_host host;
  struct ts_rules *rules = NULL;
  g.ov.platform = platform;
  enum ts_code rc = ts_gpu_host(&g, &host, &err);
  if (rc != TS_OK) {
    args_free(&a);
    return ts_cli_report(&err);
  }
  rc = ts_gpu_rules(&g, &rules, &err);
  if (rc != TS_OK) {
    ts_host_clear(&host);
    args_free(&a);
    return ts_cli_report(&err);
  }
  struct ts_target_spec spec = {.python_version = pyver, .platform = platform};
  char *cache = ts_index_cli_cache_root(&ic);
  struct ts_plan_build_options bo;
  const struct ts_reqfile_entry **build_cons = NULL;
  ts_build_cli_options(&a.build, &ic.opts, cache, &bo, &build_cons);
  struct ts_plan_options po = {
      .build = &bo,
      .python = python, .spec = pyver ? &spec : NULL, .host = &host, .rules = rules,
      .ignore_host = g.ignore_host, .index = &ic.opts, .entries = ents,
      .nentries = nent, .upgrade_packages = a.upgrade_pkgs,
      .nupgrade_packages = a.nupgrade,
      .no_binary = (const char *const *)a.reqs.binary.no_binary,
      .nno_binary = a.reqs.binary.nno_binary,
      .only_binary = (const char *const *)a.reqs.binary.only_binary,
      .nonly_binary = a.reqs.binary.nonly_binary, .prefer_binary = prefer_binary,
      .dry_run = dry,
      .resolution = mode, .pre = pre, .upgrade = upgrade,
      .force_reinstall = force, .no_deps = no_deps,
      /* a download or a --target tree: what the interpreter has installed
       * is not what the files are for (a --prefix tree counts it, as pip) */
      .read_installed = !download && !ignore_installed && !target_dir,
      .lock_env = !dry && !download && !target_dir && !prefix_dir, .no_wait = no_wait,
      .break_system_packages = break_system,
      .lock_cb = ts_cli_env_callbacks(),
      .debug_solver_dir = debug_dir, .probe_cache_dir = cache};
  struct ts_plan_result *res = NULL;
  struct ts_plan_tree tree = {0};
  rc = eager && upgrade ? ts_plan_resolve_eager(&po, &res, &err)
                        : ts_plan_resolve(&po, &res, &err);
  ts_cli_warn_plan_notes(res);
  if (rc == TS_E_RESOLVE && res && res->res) {
    status = ts_cli_report_explained(&err, res->res->why.lines, res->res->why.nlines);
  } else if (rc != TS_OK) {
    if (res)
      ts_build_cli_print_log_tail(res->build_log);
    status = ts_cli_report(&err);
    if (status == 0)
      status = 1;
  } else {
    char el[32];
    ts_cli_info("Resolved %zu package%s in %s", res->res->nitems,
                ts_cli_plural(res->res->nitems), ts_cli_elapsed(res->resolve_ms, el));
    ts_cli_resolution_figures(res);
    if (!res->res->held_back)
      explain_cpu(res, rules, &host, g.ignore_host);
    ts_cli_warn_resolution(res);
    char **unmet = NULL;
    size_t nunmet = ts_plan_unmet_requirements(res, &unmet);
    for (size_t i = 0; i < nunmet; i++) {
      ts_cli_warn("%s", unmet[i]);
      free(unmet[i]);
    }
    free(unmet);
    if (report)
      status = write_report(report, res);
    if (dry && status == 0 && ts_plan_check_hashes(res, require_hashes, &err) != TS_OK)
      status = ts_cli_report(&err);
    if (dry && status == 0) {
      if (!report || strcmp(report, "-") != 0)
        print_plan(res);
      size_t c = 0, b = 0;
      for (size_t i = 0; i < res->res->nitems; i++) {
        c += res->res->items[i].action != TS_ACTION_KEEP;
        b += res->res->items[i].action != TS_ACTION_KEEP && res->res->items[i].sdist;
      }
      for (size_t i = 0; i < res->res->nitems; i++)
        if (res->res->items[i].action != TS_ACTION_KEEP && res->res->items[i].sdist)
          ts_cli_info("Would build %s %s from source", res->res->items[i].name,
                      res->res->items[i].version);
      ts_cli_info("Would change %zu package%s (dry run)%s", c, ts_cli_plural(c),
                  b ? "; no wheel was built" : "");
    } else if (status == 0 && (target_dir || prefix_dir) && changes_any(res) &&
               (rc = target_dir ? ts_plan_tree_target(res->target, target_dir, &tree, &err)
                                : ts_plan_tree_prefix(res->target, prefix_dir, &tree, &err)) !=
                   TS_OK) {
      status = ts_cli_report(&err);
    } else if (status == 0) {
      struct ts_cli_progress bars;
      ts_cli_progress_init(&bars, "files");
      struct ts_plan_install_options io = {
          .require_hashes = require_hashes, .break_system_packages = break_system,
          .link_mode = link, .compile = compile, .allow_overwrite = allow_overwrite,
          .cancel = &ts_cli.interrupted,
          .cb = ts_cli_progress_callbacks(&bars),
          .paths = tree.dir ? &tree.paths : NULL, .save_dir = download ? dest : NULL};
      double t0 = ts_cli_now_ms();
      size_t changed = 0;
      rc = ts_plan_install(res, &io, &changed, &err);
      struct ts_plan_notes kept = {0};
      if (rc == TS_OK && tree.stage)
        rc = ts_plan_tree_target_finish(&tree, upgrade, &kept, &err);
      for (size_t k = 0; k < kept.n; k++)
        ts_cli_warn("%s", kept.lines[k]);
      ts_plan_notes_clear(&kept);
      if (rc != TS_OK) {
        ts_build_cli_print_log_tail(res->build_log);
        status = ts_cli_report(&err);
        if (status == 0)
          status = 1;
      } else if (download) {
        ts_cli_info("Saved %zu file%s to %s in %s", changed, ts_cli_plural(changed), dest,
                    ts_cli_elapsed(ts_cli_now_ms() - t0, el));
      } else if (changed == 0) {
        ts_cli_info("Nothing to install: every requirement is satisfied");
      } else {
        ts_cli_info("Installed %zu package%s in %s", changed, ts_cli_plural(changed),
                    ts_cli_elapsed(ts_cli_now_ms() - t0, el));
        for (size_t i = 0; i < res->res->nitems; i++) {
          const struct ts_resolved *x = &res->res->items[i];
          if (x->action == TS_ACTION_KEEP)
            continue;
          if (x->installed_version)
            ts_cli_info(" - %s==%s", x->name, x->installed_version);
          ts_cli_info(" + %s==%s", x->name, x->version);
        }
      }
    }
  }
  ts_plan_tree_free(&tree);
  ts_plan_result_free(res);
  free(build_cons);
  free(cache);
  ts_rules_free(rules);
  ts_host_clear(&host);
  args_free(&a);
  return status;
}

int ts_cmd_install(int argc, char **argv) { return install_or_download(argc, argv, false); }

int ts_cmd_download(int argc, char **argv) { return install_or_download(argc, argv, true); }
