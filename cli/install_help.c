/* The --help texts of install and download: see install_help.h. */
#include "cli/install_help.h"

#include "cli/build_options.h"
#include "cli/gpu_options.h"
#include "cli/index_options.h"

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

void ts_cli_install_help(FILE *out, bool download) {
  fputs(download ? download_head : install_head, out);
  fputs(usage, out);
  fputs(ts_build_cli_help, out);
  fputs("\nPackage indexes:\n", out);
  fputs(ts_index_cli_help, out);
  fputc('\n', out);
  ts_gpu_options_help(out);
  fputs(download ? download_tail : install_tail, out);
}
