#!/usr/bin/env bash
# Where packages come from (issue 13, "Safety, round 2"):
# - a --find-links file of a project rules.yaml routes to the PyTorch
#   server never beats the server's builds (a look-alike torch 99.0.0);
#   naming the file's path is how to install it;
# - a local custom torch build (seed 003: torch-2.9.1a0+gitd38164a, whose
#   torch/version.py says HIP 7.1 or CUDA 12.8) is checked against the host
#   at install time, as 'check' does: refused with the rule and its fix,
#   --ignore-host to force;
# - --report carries the sha256 of a local or find-links file, as pip's.
. "$(dirname "$0")/lib.sh"
T=${TORCHSOLVE:?}
S=$TS_SOURCE_DIR/fixtures/sysroot
ts_venv_for_wheels
{
  echo "whl/cpu torch 2.9.1+cpu $tag"
  echo "whl/rocm6.1 torch 2.4.1+rocm6.1 $tag"
  echo "simple numpy 2.1.0 py3-none-any"
} | python3 "$TS_SOURCE_DIR/tests/integration/install_mkindex.py" "$work/www"
# the folder: a look-alike torch and two custom builds
mkdir -p "$work/fl" "$work/rocm" "$work/cuda"
python3 - "$work" "$tag" <<'PY'
import base64, hashlib, os, sys, zipfile
work, tag = sys.argv[1:]
def wheel(dest, version, version_py):
    dist = f"torch-{version}.dist-info"
    files = {
        "torch/__init__.py": b"",
        "torch/version.py": version_py.encode(),
        f"{dist}/METADATA": f"Metadata-Version: 2.1\nName: torch\nVersion: {version}\n".encode(),
        f"{dist}/WHEEL": f"Wheel-Version: 1.0\nGenerator: test\nRoot-Is-Purelib: false\nTag: {tag}\n".encode(),
    }
    rec = "".join(f"{p},sha256={base64.urlsafe_b64encode(hashlib.sha256(d).digest()).rstrip(b'=').decode()},{len(d)}\n"
                  for p, d in files.items()) + f"{dist}/RECORD,,\n"
    files[f"{dist}/RECORD"] = rec.encode()
    with zipfile.ZipFile(os.path.join(dest, f"torch-{version}-{tag}.whl"), "w") as z:
        for p, d in files.items():
            z.writestr(p, d)
wheel(f"{work}/fl", "99.0.0", "__version__ = '99.0.0'\ncuda = None\nhip = None\n")
# as PyTorch's setup.py writes it for a ROCm build
wheel(f"{work}/rocm", "2.9.1a0+gitd38164a",
      "from typing import Optional\n__version__ = '2.9.1a0+gitd38164a'\n"
      "debug = False\ncuda: Optional[str] = None\ngit_version = 'd38164a'\n"
      "hip: Optional[str] = '7.1.52802-26aae437f6'\nxpu: Optional[str] = None\n")
wheel(f"{work}/cuda", "2.9.1a0+gitd38164a",
      "from typing import Optional\n__version__ = '2.9.1a0+gitd38164a'\n"
      "cuda: Optional[str] = '12.8'\nhip: Optional[str] = None\n")
PY
ts_nginx_start "$work/www"
export TORCHSOLVE_CACHE_DIR=$work/cache
unset TORCHSOLVE_INDEX_URL TORCHSOLVE_PYTHON VIRTUAL_ENV TORCHSOLVE_FIND_LINKS
I=(--python "$work/venv" -i "$TS_NGINX_URL/simple" --torch-index-url "$TS_NGINX_URL/whl")
LOOK=$work/fl/torch-99.0.0-$tag.whl
ROCM=$work/rocm/torch-2.9.1a0+gitd38164a-$tag.whl
CUDA=$work/cuda/torch-2.9.1a0+gitd38164a-$tag.whl

# --- a look-alike in --find-links never beats the PyTorch server ---------
"$T" install "${I[@]}" --sysroot "$S/cpu-only" -f "$work/fl" --dry-run torch \
  >"$work/out" 2>"$work/err" || { cat "$work/err"; ts_fail "find-links torch"; }
grep -q '^install torch 2.9.1+cpu cpu ' "$work/out" || ts_fail "find-links torch: $(cat "$work/out")"
grep -q "warning: torch-99.0.0-$tag.whl from --find-links is passed over: rules.yaml routes torch" \
  "$work/err" || ts_fail "no note about the passed-over file: $(cat "$work/err")"
# the same through the environment variable and a requirements file
printf -- '-f %s\ntorch\n' "$work/fl" >"$work/req.txt"
"$T" install "${I[@]}" --sysroot "$S/cpu-only" -r "$work/req.txt" --dry-run >"$work/out" 2>"$work/err" ||
  { cat "$work/err"; ts_fail "find-links torch from a requirements file"; }
grep -q '^install torch 2.9.1+cpu ' "$work/out" || ts_fail "requirements file: $(cat "$work/out")"
"$T" lock "${I[@]}" --sysroot "$S/cpu-only" -f "$work/fl" -o "$work/pylock.toml" torch 2>"$work/err" ||
  { cat "$work/err"; ts_fail "lock with a find-links torch"; }
! grep -q '99.0.0' "$work/pylock.toml" || ts_fail "the lock took the look-alike"
# a pin on the look-alike fails, and the note says why and what to do
ts_fails 1 "cannot be met" install "${I[@]}" --sysroot "$S/cpu-only" -f "$work/fl" --dry-run 'torch==99.0.0'
grep -q "to install that file, name its path" "$work/err" || ts_fail "pin: no note: $(cat "$work/err")"
# a non-routed project from --find-links is still taken as pip would
cp "$work/www/simple/numpy-2.1.0-py3-none-any.whl" "$work/fl/"
mv "$work/fl/numpy-2.1.0-py3-none-any.whl" "$work/fl/numpy-9.0-py3-none-any.whl"
"$T" install "${I[@]}" --sysroot "$S/cpu-only" -f "$work/fl" --dry-run numpy torch >"$work/out" 2>"$work/err" ||
  { cat "$work/err"; ts_fail "numpy from find-links"; }
grep -q '^install numpy 9.0 ' "$work/out" || ts_fail "numpy from find-links: $(cat "$work/out")"
# the only thing named, as a path: that file
"$T" install "${I[@]}" --sysroot "$S/cpu-only" --dry-run "$LOOK" >"$work/out" 2>"$work/err" ||
  { cat "$work/err"; ts_fail "the look-alike by path"; }
grep -q '^install torch 99.0.0 ' "$work/out" || ts_fail "path: $(cat "$work/out")"

# --- a custom build is checked against the host --------------------------
# HIP 7.1 on an RX 7900 XT with ROCm 6.2: refused, exit 5, rule and fix
ts_fails 5 "torch 2.9.1a0+gitd38164a (torch-2.9.1a0+gitd38164a-$tag.whl, HIP 7.1.52802-26aae437f6) cannot run on this host" \
  install "${I[@]}" --sysroot "$S/rx7900xt-rocm62" --dry-run "$ROCM"
grep -q '(rule backend-rocm7.1-intree: ' "$work/err" || ts_fail "rocm: no rule: $(cat "$work/err")"
grep -q 'fix: ' "$work/err" || ts_fail "rocm: no fix: $(cat "$work/err")"
# the real install is refused the same way, the venv untouched
before=$(ls "$work"/venv/lib/python3*/site-packages)
ts_fails 5 "cannot run on this host" install "${I[@]}" --sysroot "$S/rx7900xt-rocm62" "$ROCM"
[ "$(ls "$work"/venv/lib/python3*/site-packages)" = "$before" ] || ts_fail "a refused install changed the venv"
# CUDA 12.8 on a host without an NVIDIA driver
ts_fails 5 "CUDA 12.8) cannot run on this host" install "${I[@]}" --sysroot "$S/cpu-only" --dry-run "$CUDA"
# --ignore-host installs it anyway; a host that can run it needs nothing
"$T" install "${I[@]}" --sysroot "$S/rx7900xt-rocm62" --ignore-host "$ROCM" 2>"$work/err" ||
  { cat "$work/err"; ts_fail "--ignore-host"; }
"$PY" -c 'import torch.version as v; assert v.hip.startswith("7.1")' || ts_fail "custom build not installed"
"$T" install "${I[@]}" --sysroot "$S/h100-cu130" --dry-run "$CUDA" >"$work/out" 2>"$work/err" ||
  { cat "$work/err"; ts_fail "CUDA 12.8 build on a CUDA 13.0 driver"; }

# --- --report: the sha256 of local files ---------------------------------
report_sha() { # ARGS...: the archive_info sha256 of the report's torch
  "$T" install "${I[@]}" --sysroot "$S/cpu-only" --dry-run --report - "$@" 2>"$work/err" |
    python3 -c 'import json, sys
d = json.load(sys.stdin)
(it,) = [i for i in d["install"] if i["metadata"]["name"] == sys.argv[1]]
ai = it["download_info"]["archive_info"]
assert ai["hash"] == "sha256=" + ai["hashes"]["sha256"], ai
print(ai["hashes"]["sha256"])' "$1"
}
want=$(sha256sum "$LOOK" | cut -c1-64)
[ "$(report_sha torch "$LOOK")" = "$want" ] || ts_fail "--report of a path: no sha256: $(cat "$work/err")"
want=$(sha256sum "$work/fl/numpy-9.0-py3-none-any.whl" | cut -c1-64)
[ "$(report_sha numpy -f "$work/fl" numpy)" = "$want" ] ||
  ts_fail "--report of a find-links file: no sha256: $(cat "$work/err")"
echo "safety_sources: ok"
