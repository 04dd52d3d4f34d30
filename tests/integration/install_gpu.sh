#!/usr/bin/env bash
# Choosing the build end to end (seeds 000, 002, 003, 004): a fixture index
# shaped like download.pytorch.org (one folder per variant, local labels,
# real-shaped file names; tiny wheels made here) and a general index,
# served by nginx; captured hosts replayed with --sysroot.
. "$(dirname "$0")/lib.sh"
T=${TORCHSOLVE:?}
S=$TS_SOURCE_DIR/fixtures/sysroot
work=$(ts_tmpdir)
ts_make_venv "$work/venv"
PY=$work/venv/bin/python
cp=$("$PY" -c 'import sys; print("cp%d%d" % sys.version_info[:2])')
tag="$cp-$cp-manylinux_2_28_x86_64"
{
  for v in 2.4.1+rocm6.1:rocm6.1 2.5.1+rocm6.2:rocm6.2 2.6.0+rocm6.2.4:rocm6.2.4 \
           2.7.1+rocm6.3:rocm6.3 2.5.1+cpu:cpu 2.9.1+cpu:cpu 2.10.0+cpu:cpu \
           2.9.1+cu126:cu126 2.9.1+cu128:cu128 2.9.1+cu130:cu130 \
           2.10.0+cu126:cu126 2.10.0+cu128:cu128 2.10.0+cu130:cu130; do
    echo "whl/${v#*:} torch ${v%:*} $tag"
  done
  echo "whl/rocm6.1 torchvision 0.19.1+rocm6.1 $tag torch==2.4.1"
  echo "whl/cu130 torchvision 0.24.1+cu130 $tag torch==2.9.1"
  echo "simple pymomentum-gpu 0.1.0 $tag torch"
  echo "simple transformers 4.44.0 py3-none-any"
  echo "simple transformers 4.46.0 py3-none-any"
  # the general index also has torch: routed projects must never come from it
  echo "simple torch 2.10.0 $tag"
} | python3 "$TS_SOURCE_DIR/tests/integration/install_mkindex.py" "$work/www"
ts_nginx_start "$work/www"
export TORCHSOLVE_CACHE_DIR=$work/cache
run() { # MACHINE ARGS... : dry run; plan on $work/out, stderr on $work/err
  local m=$1; shift
  "$T" install --python "$work/venv" -i "$TS_NGINX_URL/simple" \
    --torch-index-url "$TS_NGINX_URL/whl" --sysroot "$S/$m" --dry-run "$@" \
    >"$work/out" 2>"$work/err"
}
torch_of() { awk '$2 == "torch" { print $3 }' "$work/out"; }

# --- seed 004: RX 7900 XT on ROCm 6.2 ---------------------------------
run rx7900xt-rocm62 torch || { cat "$work/err"; ts_fail "rx7900xt: torch"; }
cat "$work/out"
[ "$(torch_of)" = 2.4.1+rocm6.1 ] || ts_fail "rx7900xt: picked $(torch_of), wanted 2.4.1+rocm6.1"
grep -q "$TS_NGINX_URL/whl/rocm6.1" "$work/out" || ts_fail "rx7900xt: not from the rocm6.1 index"
rc=0; run rx7900xt-rocm62 'torch==2.5.1+rocm6.2' || rc=$?
cat "$work/err"
[ "$rc" = 1 ] || ts_fail "rx7900xt: torch==2.5.1+rocm6.2 exit $rc, wanted 1"
grep -q 'hipblaslt-gfx1100' "$work/err" || ts_fail "rx7900xt: rule not named"
grep -qi 'fix' "$work/err" || ts_fail "rx7900xt: no fix"
run rx7900xt-rocm62 torch torchvision || { cat "$work/err"; ts_fail "rx7900xt: torch torchvision"; }
grep -q '^install torchvision 0.19.1+rocm6.1 ' "$work/out" || { cat "$work/out"; ts_fail "torchvision pairing"; }

# torch==2.5.1 has no build for gfx1100 on ROCm 6.2: the CPU build, and the
# note says so (it said "this host has no usable GPU backend")
run rx7900xt-rocm62 'torch==2.5.1' || { cat "$work/err"; ts_fail "rx7900xt: torch==2.5.1"; }
[ "$(torch_of)" = 2.5.1+cpu ] || ts_fail "rx7900xt: torch==2.5.1 picked $(torch_of)"
grep -q 'torch 2.5 has no build for this host.s GPU; the newest torch with one is 2.4' "$work/err" ||
  { cat "$work/err"; ts_fail "rx7900xt: torch==2.5.1 CPU note"; }

# --- H100 on driver 580 (CUDA 13.0) -----------------------------------
run h100-cu130 torch || { cat "$work/err"; ts_fail "h100: torch"; }
[ "$(torch_of)" = 2.10.0+cu130 ] || ts_fail "h100: picked $(torch_of), wanted 2.10.0+cu130"

# --- V100 on driver 580: among builds of one torch, the newest CUDA that
# has sm_70 (2.9's cu128), although the newest torch's list (2.13: cu126)
# has no cu128 (it used to come out as +cu126)
run v100-drv580 'torch==2.9.1' || { cat "$work/err"; ts_fail "v100: torch==2.9.1"; }
[ "$(torch_of)" = 2.9.1+cu128 ] || ts_fail "v100: picked $(torch_of), wanted 2.9.1+cu128"

# --- RTX 4090 on driver 550: never a CUDA 13 build --------------------
run rtx4090-drv550 torch || { cat "$work/err"; ts_fail "rtx4090: torch"; }
case $(torch_of) in *cu130* | *cpu* | "") ts_fail "rtx4090: picked '$(torch_of)'" ;; esac
echo "rtx4090-drv550 -> torch $(torch_of)"
rc=0; run rtx4090-drv550 --cuda 13.0 torch || rc=$?
cat "$work/err"
[ "$rc" != 0 ] || ts_fail "--cuda 13.0 on driver 550 accepted"
grep -qi '550' "$work/err" || ts_fail "--cuda 13.0 refusal does not name the driver"
run rtx4090-drv550 --cuda 13.0 --ignore-host torch || { cat "$work/err"; ts_fail "--ignore-host refused"; }

# --- CPU only: the CPU build, with a reason ---------------------------
run cpu-only torch || { cat "$work/err"; ts_fail "cpu-only: torch"; }
case $(torch_of) in *+cpu) ;; *) ts_fail "cpu-only: picked $(torch_of)" ;; esac
grep -q 'CPU build' "$work/err" || ts_fail "cpu-only: no reason given"

# --- seed 002: pymomentum-gpu 0.1.x needs torch < 2.10 ----------------
run h100-cu130 pymomentum-gpu || { cat "$work/err"; ts_fail "seed 002"; }
cat "$work/out"
[ "$(torch_of)" = 2.9.1+cu130 ] || ts_fail "seed 002: picked torch $(torch_of), wanted 2.9.1+cu130"

# --- seed 000: torch 2.10 with transformers<4.45 refused --------------
rc=0; run h100-cu130 'torch==2.10.0' 'transformers<4.45' || rc=$?
cat "$work/err"
[ "$rc" = 1 ] || ts_fail "seed 000: exit $rc, wanted 1"
grep -q 'hf-stack-torch-2.10' "$work/err" || ts_fail "seed 000: rule not named"

# --- seed 003: a local custom build by path ---------------------------
mkdir "$work/local"
echo "local torch 2.9.1a0+gitd38164a $cp-$cp-linux_x86_64" |
  python3 "$TS_SOURCE_DIR/tests/integration/install_mkindex.py" "$work/local"
whl=$work/local/local/torch-2.9.1a0+gitd38164a-$cp-$cp-linux_x86_64.whl
[ -f "$whl" ] || ts_fail "fixture wheel missing"
"$T" install --python "$work/venv" -i "$TS_NGINX_URL/simple" --torch-index-url "$TS_NGINX_URL/whl" \
  --sysroot "$S/h100-cu130" "$whl" 2>"$work/err" || { cat "$work/err"; ts_fail "seed 003 install"; }
cat "$work/err"
python3 -m pip --python "$PY" list --format=freeze >"$work/list"
grep -qx 'torch==2.9.1a0+gitd38164a' "$work/list" || { cat "$work/list"; ts_fail "seed 003 not installed"; }
site=$(echo "$work/venv"/lib/python*/site-packages)
grep -q '"file://' "$site"/torch-2.9.1a0+gitd38164a.dist-info/direct_url.json || ts_fail "seed 003: no direct_url.json"
echo "install_gpu: ok"
