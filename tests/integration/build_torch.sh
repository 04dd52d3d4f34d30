#!/usr/bin/env bash
# Torch-matched source builds end to end, no network: a PyTorch-shaped
# index (tiny torch wheels with +cu126/+cu128/+cpu labels and a
# torch/version.py) and a general index that has a look-alike torch too,
# Debian's setuptools for the build environments, captured hosts through
# --sysroot.  A torch extension sdist whose setup.py imports torch and
# writes torch.__version__, TORCH_CUDA_ARCH_LIST and FORCE_CUDA into the
# package it builds shows what its build environment had:
#  - built with exactly the runtime torch build (version and label), from
#    the PyTorch index, with the host's compute capabilities and FORCE_CUDA;
#  - another torch build is another build (the cache keys the torch
#    variant), the first one's inputs again are a cache hit;
#  - a changed TORCH_CUDA_ARCH_LIST, MAX_JOBS or -C setting builds again;
#  - a runtime with an sdist-only project (its metadata built normally)
#    is resolved first all the same;
#  - a project in rules.yaml's torch_builds (flash-attn) that imports torch
#    without declaring it gets it too; its nvcc (a fake one on PATH) must
#    match torch.version.cuda: a mismatch is one line with the fix, exit 1,
#    nothing installed;
#  - --no-build-isolation(-package): the build in the target against its
#    torch, the plan's installed there first when it differs (two phases),
#    the same variables and nvcc check; no torch at all is one line with
#    the fix; a --dry-run cannot install the first phase;
#  - on a CPU-only host: the +cpu build, no CUDA variables, no nvcc check.
. "$(dirname "$0")/lib.sh"
T=${TORCHSOLVE:?}
ts_debian_build_wheels
S=$TS_SOURCE_DIR/fixtures/sysroot
work=$(ts_tmpdir)
cp=$(/usr/bin/python3 -c 'import sys; print("cp%d%d" % sys.version_info[:2])')
tag="$cp-$cp-manylinux_2_28_x86_64"
ts_index_from_spec <<SPEC
whl/cu126 torch 2.9.1+cu126 $tag,cuda=12.6
whl/cu128 torch 2.9.1+cu128 $tag,cuda=12.8
whl/cpu torch 2.9.1+cpu $tag
simple torch 2.10.0 $tag
simple beta 1.0 py3-none-any
simple sdonly 1.0 sdist
SPEC
export TORCHSOLVE_CACHE_DIR=$work/cache
ts_clear_pip_env
unset TORCH_CUDA_ARCH_LIST FORCE_CUDA MAX_JOBS CUDA_HOME CUDA_PATH PYTORCH_ROCM_ARCH
"$T" venv -q --python /usr/bin/python3 "$work/venv"
mkdir -p "$work/bin"
fake_nvcc() { # RELEASE: an nvcc on PATH that says it is CUDA RELEASE
  printf '#!/bin/sh\necho "nvcc: NVIDIA (R) Cuda compiler driver"\necho "Cuda compilation tools, release %s, V%s.77"\n' \
    "$1" "$1" >"$work/bin/nvcc"
  chmod +x "$work/bin/nvcc"
}
fake_nvcc 12.6
export PATH=$work/bin:$PATH
inst() { # SYSROOT ARGS...
  local m=$1; shift
  "$T" install --python "$work/venv" -i "$TS_NGINX_URL/simple" -f "$WHEELS" \
    --torch-index-url "$TS_NGINX_URL/whl" --sysroot "$S/$m" "$@"
}
# an sdist (NAME VERSION DECLARE): setup.py imports torch and records it
mksdist() {
  local name=$1 version=$2 declare=$3 d=$work/sd/$1-$2 pkg=${1//-/_}
  mkdir -p "$d/$pkg"
  printf 'Metadata-Version: 2.1\nName: %s\nVersion: %s\n' "$name" "$version" >"$d/PKG-INFO"
  if [ "$declare" = declare ]; then
    printf '[build-system]\nrequires = ["setuptools>=40.8.0", "torch"]\nbuild-backend = "setuptools.build_meta"\n' \
      >"$d/pyproject.toml"
  fi
  cat >"$d/setup.py" <<PY
import os
import torch
from setuptools import setup
with open(os.path.join("$pkg", "built_with.py"), "w") as f:
    f.write("TORCH = %r\nARCH = %r\nFORCE_CUDA = %r\nMAX_JOBS = %r\n" % (
        torch.__version__, os.environ.get("TORCH_CUDA_ARCH_LIST"),
        os.environ.get("FORCE_CUDA"), os.environ.get("MAX_JOBS")))
setup(name="$name", version="$version", packages=["$pkg"], install_requires=["torch"])
PY
  : >"$d/$pkg/__init__.py"
  tar -C "$work/sd" -czf "$work/$name-$version.tar.gz" "$name-$version"
}
mksdist torchext 1.0 declare
mksdist flash-attn 2.8.3 undeclared
# what the installed package was built with, and the installed torch
built_with() { # MODULE
  "$work/venv/bin/python" -c "import $1.built_with as b, torch; print(b.TORCH, b.ARCH, b.FORCE_CUDA, b.MAX_JOBS, torch.__version__)"
}
SD=$work/torchext-1.0.tar.gz

# --- H100: the pinned runtime torch is the build's torch --------------------
inst h100-cu130 "$SD" 'torch==2.9.1+cu126' 2>"$work/err" || { cat "$work/err"; ts_fail "torchext + cu126"; }
grep -q 'Built ' "$work/err" || ts_fail "no build: $(cat "$work/err")"
[ "$(built_with torchext)" = "2.9.1+cu126 9.0 1 None 2.9.1+cu126" ] ||
  ts_fail "built with / runtime: $(built_with torchext)"

# --- another torch build is another build -----------------------------------
inst h100-cu130 "$SD" 'torch==2.9.1+cu128' 2>"$work/err" || { cat "$work/err"; ts_fail "torchext + cu128"; }
grep -q 'Built ' "$work/err" || ts_fail "the cu126 build was reused for cu128: $(cat "$work/err")"
[ "$(built_with torchext)" = "2.9.1+cu128 9.0 1 None 2.9.1+cu128" ] ||
  ts_fail "cu128: built with / runtime: $(built_with torchext)"
# the cu126 inputs again: the cache's wheel, no backend
inst h100-cu130 --force-reinstall "$SD" 'torch==2.9.1+cu126' 2>"$work/err" ||
  { cat "$work/err"; ts_fail "torchext + cu126 again"; }
grep -q 'Built ' "$work/err" && ts_fail "the same inputs ran the backend again: $(cat "$work/err")"
[ "$(built_with torchext)" = "2.9.1+cu126 9.0 1 None 2.9.1+cu126" ] ||
  ts_fail "cu126 again: $(built_with torchext)"

# --- the steering variables and -C are in the cache key ----------------------
TORCH_CUDA_ARCH_LIST=8.6 inst h100-cu130 --force-reinstall "$SD" 'torch==2.9.1+cu126' 2>"$work/err" ||
  { cat "$work/err"; ts_fail "TORCH_CUDA_ARCH_LIST=8.6"; }
grep -q 'Built ' "$work/err" || ts_fail "a changed TORCH_CUDA_ARCH_LIST reused the cached wheel"
[ "$(built_with torchext)" = "2.9.1+cu126 8.6 1 None 2.9.1+cu126" ] ||
  ts_fail "the user's TORCH_CUDA_ARCH_LIST did not win: $(built_with torchext)"
MAX_JOBS=3 inst h100-cu130 --force-reinstall "$SD" 'torch==2.9.1+cu126' 2>"$work/err" ||
  { cat "$work/err"; ts_fail "MAX_JOBS=3"; }
grep -q 'Built ' "$work/err" || ts_fail "a changed MAX_JOBS reused the cached wheel"
[ "$(built_with torchext)" = "2.9.1+cu126 9.0 1 3 2.9.1+cu126" ] || ts_fail "MAX_JOBS: $(built_with torchext)"
inst h100-cu130 --force-reinstall -C opt=1 "$SD" 'torch==2.9.1+cu126' 2>"$work/err" ||
  { cat "$work/err"; ts_fail "-C opt=1"; }
grep -q 'Built ' "$work/err" || ts_fail "a -C setting reused the cached wheel"

# --- a runtime that itself needs an index sdist is resolved first all the same:
# sdonly's metadata built normally, then torchext against the runtime torch
inst h100-cu130 --force-reinstall -C opt=runtime-sdist "$SD" 'torch==2.9.1+cu126' sdonly 2>"$work/err" ||
  { cat "$work/err"; ts_fail "torchext + an sdist-only runtime"; }
grep -q '^Built metadata of sdonly 1.0 in' "$work/err" && grep -q '^Built sdonly 1.0 in' "$work/err" &&
  grep -q '^Built .*torchext-1.0.tar.gz in' "$work/err" || ts_fail "sdist-only runtime: $(cat "$work/err")"
[ "$(built_with torchext)" = "2.9.1+cu126 9.0 1 None 2.9.1+cu126" ] ||
  ts_fail "sdist-only runtime: built with / runtime: $(built_with torchext)"
[ "$("$work/venv/bin/python" -c 'import sdonly; print(sdonly.BUILT)')" = sdist ] ||
  ts_fail "sdonly is not installed from its sdist"

# --- undeclared: flash-attn is in rules.yaml's torch_builds ------------------
FA=$work/flash-attn-2.8.3.tar.gz
inst h100-cu130 "$FA" 'torch==2.9.1+cu126' 2>"$work/err" || { cat "$work/err"; ts_fail "flash-attn + cu126"; }
[ "$(built_with flash_attn)" = "2.9.1+cu126 9.0 1 None 2.9.1+cu126" ] ||
  ts_fail "flash-attn: $(built_with flash_attn)"
# flash-attn compiles CUDA code (nvcc: true): nvcc 13.0 against torch cu128
# (torch.version.cuda 12.8), another major, is refused before compiling
fake_nvcc 13.0
before=$(cd "$work/venv" && find . -type f -exec sha256sum {} + | sort)
rc=0; inst h100-cu130 "$FA" 'torch==2.9.1+cu128' >"$work/out" 2>"$work/err" || rc=$?
[ $rc = 1 ] || { cat "$work/err"; ts_fail "nvcc mismatch: exit $rc, wanted 1"; }
[ "$(head -1 "$work/err")" = "error: flash-attn: nvcc is CUDA 13.0 ($work/bin/nvcc) but torch 2.9.1+cu128 is built with CUDA 12.8, another major; fix: install the CUDA 12.8 toolkit and set CUDA_HOME to it (or put its nvcc first on PATH)" ] ||
  ts_fail "nvcc mismatch message: $(cat "$work/err")"
after=$(cd "$work/venv" && find . -type f -exec sha256sum {} + | sort)
[ "$before" = "$after" ] || ts_fail "the nvcc refusal changed the venv"

# flash-attn needs nvcc (nvcc: true): none at all is refused as well
rm "$work/bin/nvcc"
no_nvcc_path=$(printf '%s\n' "$PATH" | tr ':' '\n' | while read -r d; do [ -x "$d/nvcc" ] || printf '%s:' "$d"; done)
rc=0; PATH=${no_nvcc_path%:} inst h100-cu130 "$FA" 'torch==2.9.1+cu128' 2>"$work/err" || rc=$?
[ $rc = 1 ] && grep -q 'compiles CUDA code against torch 2.9.1+cu128 (CUDA 12.8) and no nvcc was found' "$work/err" ||
  { cat "$work/err"; ts_fail "no nvcc: exit $rc"; }
# the matching one builds
fake_nvcc 12.8
inst h100-cu130 "$FA" 'torch==2.9.1+cu128' 2>"$work/err" || { cat "$work/err"; ts_fail "flash-attn + cu128"; }
[ "$(built_with flash_attn)" = "2.9.1+cu128 9.0 1 None 2.9.1+cu128" ] ||
  ts_fail "flash-attn cu128: $(built_with flash_attn)"
# ... another minor (12.6 against 12.8) is what torch itself accepts: a
# warning (-C makes it another build, not the cached one)
fake_nvcc 12.6
inst h100-cu130 -C minor=1 "$FA" 'torch==2.9.1+cu128' 2>"$work/err" || { cat "$work/err"; ts_fail "flash-attn, nvcc 12.6 + cu128 refused"; }
grep -q "^warning: flash-attn: nvcc is CUDA 12.6 ($work/bin/nvcc) but torch 2.9.1+cu128 is built with CUDA 12.8; the build goes on (torch refuses only another major)" "$work/err" ||
  { cat "$work/err"; ts_fail "nvcc minor mismatch: no warning"; }

# a declared torch build that the rules do not mark nvcc: true (a C++-only
# extension, say) is never refused for its nvcc: another major is a warning
# (it was refused: nvcc 13 with torch cu126 stopped every such build)
fake_nvcc 13.0
inst h100-cu130 --force-reinstall -C opt=2 "$SD" 'torch==2.9.1+cu126' 2>"$work/err" ||
  { cat "$work/err"; ts_fail "nvcc 13.0 for torchext + cu126 refused"; }
grep -q "^warning: torchext: nvcc is CUDA 13.0 ($work/bin/nvcc) but torch 2.9.1+cu126 is built with CUDA 12.6, another major; the build goes on" "$work/err" ||
  { cat "$work/err"; ts_fail "nvcc 13.0 for torchext: no warning"; }
fake_nvcc 12.6
inst h100-cu130 --force-reinstall -C opt=2 "$SD" 'torch==2.9.1+cu128' 2>"$work/err" ||
  { cat "$work/err"; ts_fail "nvcc 12.6 for torchext + cu128 (same major)"; }

# --- --no-build-isolation: the target's torch, made the plan's first ----------
# (the target has the build backend; torch comes in a first phase when the
# plan brings one, with the same variables and nvcc check)
fake_nvcc 12.6
rm -rf "$work/venv" && "$T" venv -q --python /usr/bin/python3 "$work/venv"
inst h100-cu130 --compile setuptools wheel 2>"$work/err" || { cat "$work/err"; ts_fail "setuptools into the target"; }
# no torch in the target, none in the plan: one line with the fix, nothing changed
before=$(cd "$work/venv" && find . -type f -exec sha256sum {} + | sort)
rc=0; inst h100-cu130 --no-build-isolation "$SD" 2>"$work/err" || rc=$?
[ $rc = 1 ] && [ "$(head -1 "$work/err")" = "error: torchext: its build needs torch and --no-build-isolation builds it with the target's ($work/venv/bin/python), which has none, nor does this install bring one; fix: add torch to this install, or install torch first, or drop --no-build-isolation" ] ||
  { cat "$work/err"; ts_fail "no torch anywhere: exit $rc"; }
after=$(cd "$work/venv" && find . -type f -exec sha256sum {} + | sort)
[ "$before" = "$after" ] || { diff <(echo "$before") <(echo "$after") | head; ts_fail "the refusal changed the venv"; }
# a dry run cannot install the first phase
rc=0; inst h100-cu130 --dry-run --no-build-isolation "$SD" 'torch==2.9.1+cu126' 2>"$work/err" || rc=$?
[ $rc = 1 ] && grep -q '^error: torchext: --no-build-isolation builds it against the target.s torch, which must first be torch 2.9.1+cu126, and a --dry-run installs nothing; fix: install torch==2.9.1+cu126 first' "$work/err" ||
  { cat "$work/err"; ts_fail "dry run: exit $rc"; }
# the plan's torch installed first, the build in the target against it
inst h100-cu130 --no-build-isolation "$SD" 'torch==2.9.1+cu126' 2>"$work/err" || { cat "$work/err"; ts_fail "no isolation + cu126"; }
grep -q '^Installed torch 2.9.1+cu126 first in .*: torchext builds against it without isolation$' "$work/err" ||
  ts_fail "no line for the first phase: $(cat "$work/err")"
[ "$(built_with torchext)" = "2.9.1+cu126 9.0 1 None 2.9.1+cu126" ] ||
  ts_fail "no isolation: built with / runtime: $(built_with torchext)"
# nothing named: the target's torch (no first phase), a fresh build (never cached)
inst h100-cu130 --no-build-isolation --force-reinstall "$SD" 2>"$work/err" || { cat "$work/err"; ts_fail "no isolation, the target's torch"; }
grep -q 'Built ' "$work/err" || ts_fail "no isolation: no build: $(cat "$work/err")"
grep -q 'first in' "$work/err" && ts_fail "a first phase for the target's own torch: $(cat "$work/err")"
[ "$(built_with torchext)" = "2.9.1+cu126 9.0 1 None 2.9.1+cu126" ] ||
  ts_fail "no isolation, the target's torch: $(built_with torchext)"
# another torch build named: it replaces the target's before the build
inst h100-cu130 --no-build-isolation-package torchext --force-reinstall "$SD" 'torch==2.9.1+cu128' 2>"$work/err" ||
  { cat "$work/err"; ts_fail "no isolation + cu128"; }
[ "$(built_with torchext)" = "2.9.1+cu128 9.0 1 None 2.9.1+cu128" ] ||
  ts_fail "no isolation, cu128: $(built_with torchext)"
# from an index (find-links) while resolving, under the environment's
# lock: its metadata needs the plan's torch in the target first too (with
# --no-cache the runtime resolved first prepares it as well, isolated)
mkdir -p "$work/fl" && cp "$SD" "$work/fl/"
inst h100-cu130 --no-cache --no-build-isolation --force-reinstall -f "$work/fl" torchext 'torch==2.9.1+cu126' 2>"$work/err" ||
  { cat "$work/err"; ts_fail "no isolation, an index sdist + cu126"; }
[ "$(built_with torchext)" = "2.9.1+cu126 9.0 1 None 2.9.1+cu126" ] ||
  ts_fail "no isolation, an index sdist: $(built_with torchext)"
inst h100-cu130 --no-build-isolation 'torch==2.9.1+cu128' 2>"$work/err" || { cat "$work/err"; ts_fail "back to cu128"; }
# flash-attn in the target: nvcc 13.0 against its torch's CUDA 12.8 is refused
fake_nvcc 13.0
before=$(cd "$work/venv" && find . -type f -exec sha256sum {} + | sort)
rc=0; inst h100-cu130 --no-build-isolation "$FA" 2>"$work/err" || rc=$?
[ $rc = 1 ] && [ "$(head -1 "$work/err")" = "error: flash-attn: nvcc is CUDA 13.0 ($work/bin/nvcc) but torch 2.9.1+cu128 is built with CUDA 12.8, another major; fix: install the CUDA 12.8 toolkit and set CUDA_HOME to it (or put its nvcc first on PATH)" ] ||
  { cat "$work/err"; ts_fail "no isolation, nvcc mismatch: exit $rc"; }
after=$(cd "$work/venv" && find . -type f -exec sha256sum {} + | sort)
[ "$before" = "$after" ] || ts_fail "the nvcc refusal changed the venv (no isolation)"
fake_nvcc 12.8
inst h100-cu130 --no-build-isolation "$FA" 2>"$work/err" || { cat "$work/err"; ts_fail "no isolation, flash-attn + cu128"; }
[ "$(built_with flash_attn)" = "2.9.1+cu128 9.0 1 None 2.9.1+cu128" ] ||
  ts_fail "no isolation, flash-attn: $(built_with flash_attn)"

# --- a CPU-only host: the +cpu build, nothing CUDA ---------------------------
fake_nvcc 11.0
rm -rf "$work/venv" && "$T" venv -q --python /usr/bin/python3 "$work/venv"
inst cpu-only "$SD" torch 2>"$work/err" || { cat "$work/err"; ts_fail "cpu-only"; }
[ "$(built_with torchext)" = "2.9.1+cpu None None None 2.9.1+cpu" ] || ts_fail "cpu-only: $(built_with torchext)"

# --- torch_builds: mmcv builds against torch; PyPI's apex is not NVIDIA's ----
mksdist mmcv 2.2.0 undeclared
fake_nvcc 12.8
inst h100-cu130 "$work/mmcv-2.2.0.tar.gz" 'torch==2.9.1+cu128' 2>"$work/err" || { cat "$work/err"; ts_fail "mmcv"; }
[ "$(built_with mmcv)" = "2.9.1+cu128 9.0 1 None 2.9.1+cu128" ] || ts_fail "mmcv: $(built_with mmcv)"
# an apex that does not come from github.com/NVIDIA/apex (PyPI's, an
# unrelated project whose setup.py never imports torch) gets no torch
d=$work/sd/apex-0.9.10.dev0 && mkdir -p "$d/apex"
printf 'Metadata-Version: 2.1\nName: apex\nVersion: 0.9.10.dev0\n' >"$d/PKG-INFO"
cat >"$d/setup.py" <<'PY'
import importlib.util, os
from setuptools import setup
with open(os.path.join("apex", "built_with.py"), "w") as f:
    f.write("TORCH = %r\nFORCE_CUDA = %r\n" % (importlib.util.find_spec("torch") is not None,
                                              os.environ.get("FORCE_CUDA")))
setup(name="apex", version="0.9.10.dev0", packages=["apex"])
PY
: >"$d/apex/__init__.py"
tar -C "$work/sd" -czf "$work/apex-0.9.10.dev0.tar.gz" apex-0.9.10.dev0
inst h100-cu130 "$work/apex-0.9.10.dev0.tar.gz" 2>"$work/err" || { cat "$work/err"; ts_fail "PyPI's apex"; }
[ "$("$work/venv/bin/python" -c 'import apex.built_with as b; print(b.TORCH, b.FORCE_CUDA)')" = "False None" ] ||
  ts_fail "PyPI's apex was built as a torch extension"
echo OK
