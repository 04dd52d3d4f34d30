#!/usr/bin/env bash
# Choosing the build end to end (seeds 000, 002, 003, 004): a fixture index
# shaped like download.pytorch.org (one folder per variant, local labels,
# real-shaped file names; tiny wheels made here) and a general index,
# served by nginx; captured hosts replayed with --sysroot.
. "$(dirname "$0")/lib.sh"
T=${TORCHSOLVE:?}
S=$TS_SOURCE_DIR/fixtures/sysroot
ts_venv_for_wheels
ts_index_from_spec < <(
  for v in 2.4.1+rocm6.1:rocm6.1 2.5.1+rocm6.2:rocm6.2 2.6.0+rocm6.2.4:rocm6.2.4 \
           2.7.1+rocm6.3:rocm6.3 2.9.1+rocm6.3:rocm6.3 2.9.1+rocm6.4:rocm6.4 \
           2.2.2+cpu:cpu 2.5.1+cpu:cpu 2.9.1+cpu:cpu 2.10.0+cpu:cpu 2.6.0+cu126:cu126 \
           2.9.1+cu126:cu126 2.9.1+cu128:cu128 2.9.1+cu130:cu130 \
           2.10.0+cu126:cu126 2.10.0+cu128:cu128 2.10.0+cu130:cu130; do
    echo "whl/${v#*:} torch ${v%:*} $tag"
  done
  echo "whl/rocm6.1 torchvision 0.19.1+rocm6.1 $tag torch==2.4.1"
  echo "whl/rocm6.4 torchvision 0.24.1+rocm6.4 $tag torch==2.9.1"
  echo "simple numpy 1.26.4 $tag"
  echo "simple numpy 2.1.0 $tag"
  # flash-attn binaries: the label names torch's minor and its C++ ABI
  echo "simple flash-attn 2.7.4+cu12torch2.6cxx11abifalse $tag torch"
  echo "simple flash-attn 2.7.4+cu12torch2.6cxx11abitrue $tag torch"
  echo "whl/cu130 torchvision 0.24.1+cu130 $tag torch==2.9.1"
  echo "simple pymomentum-gpu 0.1.0 $tag torch"
  echo "simple transformers 4.44.0 py3-none-any"
  echo "simple transformers 4.46.0 py3-none-any"
  # the general index also has torch: routed projects must never come from it
  echo "simple torch 2.10.0 $tag"
)
export TORCHSOLVE_CACHE_DIR=$work/cache
run() { # MACHINE ARGS... : dry run; plan on $work/out, stderr on $work/err
  local m=$1; shift
  "$T" install --python "$work/venv" -i "$TS_NGINX_URL/simple" \
    --torch-index-url "$TS_NGINX_URL/whl" --sysroot "$S/$m" --dry-run "$@" \
    >"$work/out" 2>"$work/err"
}
torch_of() { awk '$2 == "torch" { print $3 }' "$work/out"; }

# --- seed 004: RX 7900 XT on ROCm 6.2 ---------------------------------
# AMD's kernel-driver window: the ROCm 6.2 driver runs the rocm6.4 user
# space the 2.9.1 wheels bundle (it used to be 2.4.1+rocm6.1).
run rx7900xt-rocm62 torch || { cat "$work/err"; ts_fail "rx7900xt: torch"; }
cat "$work/out"
[ "$(torch_of)" = 2.9.1+rocm6.4 ] || ts_fail "rx7900xt: picked $(torch_of), wanted 2.9.1+rocm6.4"
grep -q "$TS_NGINX_URL/whl/rocm6.4" "$work/out" || ts_fail "rx7900xt: not from the rocm6.4 index"
rc=0; run rx7900xt-rocm62 'torch==2.5.1+rocm6.2' || rc=$?
cat "$work/err"
[ "$rc" = 1 ] || ts_fail "rx7900xt: torch==2.5.1+rocm6.2 exit $rc, wanted 1"
grep -q 'hipblaslt-gfx1100' "$work/err" || ts_fail "rx7900xt: rule not named"
grep -qi 'fix' "$work/err" || ts_fail "rx7900xt: no fix"
run rx7900xt-rocm62 torch torchvision || { cat "$work/err"; ts_fail "rx7900xt: torch torchvision"; }
grep -q '^install torchvision 0.24.1+rocm6.4 ' "$work/out" || { cat "$work/out"; ts_fail "torchvision pairing"; }

# torch==2.5.1 has no build for gfx1100 on ROCm 6.2: no silent CPU build
# (issue 12): exit 1 with the rule and the ways out; --cpu accepts it
rc=0; run rx7900xt-rocm62 'torch==2.5.1' || rc=$?
cat "$work/err"
[ "$rc" = 1 ] || ts_fail "rx7900xt: torch==2.5.1 exit $rc, wanted 1 (no silent CPU build)"
grep -q 'error: torch==2.5.1 has no GPU build that runs on this host (it would be the CPU build 2.5.1+cpu)' "$work/err" ||
  ts_fail "rx7900xt: torch==2.5.1 refusal"
grep -q 'hipblaslt-gfx1100' "$work/err" || ts_fail "rx7900xt: torch==2.5.1: rule not named"
# the newest torch with a GPU build here is what plain "torch" picks (2.4.1
# while the installed ROCm is the floor; a rocm6.3/6.4 build once the kernel
# driver's window counts)
newest=$(cd "$work" && grep -o 'fix: ask for torch==[^,]*, the newest torch with a GPU build that runs here ([^)]*)' err | sed 's/.*(\(.*\))/\1/')
[ -n "$newest" ] || ts_fail "rx7900xt: torch==2.5.1: no newest-GPU-build fix"
grep -q 'fix: pass --cpu to accept torch 2.5.1+cpu' "$work/err" || ts_fail "rx7900xt: torch==2.5.1: no --cpu fix"
[ ! -s "$work/out" ] || ts_fail "rx7900xt: torch==2.5.1 printed a plan"
run rx7900xt-rocm62 torch || { cat "$work/err"; ts_fail "rx7900xt: torch"; }
[ "$(torch_of)" = "$newest" ] || ts_fail "rx7900xt: the refusal offers $newest, plain torch picks $(torch_of)"
run rx7900xt-rocm62 --cpu 'torch==2.5.1' || { cat "$work/err"; ts_fail "rx7900xt: --cpu torch==2.5.1"; }
[ "$(torch_of)" = 2.5.1+cpu ] || ts_fail "rx7900xt: --cpu torch==2.5.1 picked $(torch_of)"
run rx7900xt-rocm62 'torch==2.5.1+cpu' || { cat "$work/err"; ts_fail "rx7900xt: torch==2.5.1+cpu"; }
[ "$(torch_of)" = 2.5.1+cpu ] || ts_fail "rx7900xt: torch==2.5.1+cpu picked $(torch_of)"

# --- RX 7800 XT (gfx1101) on ROCm 6.2: 2.4 wheels have no gfx1101 kernels
run rx7800xt-rocm62 torch || { cat "$work/err"; ts_fail "rx7800xt: torch"; }
[ "$(torch_of)" = 2.9.1+rocm6.4 ] || ts_fail "rx7800xt: picked $(torch_of), wanted 2.9.1+rocm6.4"
rc=0; run rx7800xt-rocm62 'torch==2.4.1+rocm6.1' || rc=$?
[ "$rc" = 1 ] && grep -q 'rocm-gfx-2.4-rocm6.1' "$work/err" ||
  { cat "$work/err"; ts_fail "rx7800xt: torch==2.4.1+rocm6.1 exit $rc, wanted 1 naming rocm-gfx-2.4-rocm6.1"; }

# --- MI50 (gfx906): no ROCm >= 6.4 wheel works (rocBLAS has no gfx906
# Tensile library); on ROCm 6.4 the rocm6.3 build of 2.9.1, and on ROCm
# 7.2 too (below)
run mi50-rocm64 torch || { cat "$work/err"; ts_fail "mi50 6.4: torch"; }
[ "$(torch_of)" = 2.9.1+rocm6.3 ] || ts_fail "mi50 6.4: picked $(torch_of), wanted 2.9.1+rocm6.3"
rc=0; run mi50-rocm64 'torch==2.9.1+rocm6.4' || rc=$?
[ "$rc" = 1 ] && grep -q 'rocm-gfx-2.9-rocm6.4' "$work/err" ||
  { cat "$work/err"; ts_fail "mi50 6.4: torch==2.9.1+rocm6.4 exit $rc, wanted 1 naming rocm-gfx-2.9-rocm6.4"; }
# MI50 with ROCm 7.2 and the kernel's own amdgpu: the installed ROCm is no
# kernel driver, and 2.9.1+rocm6.3 bundles its own user space: its last
# GPU build, not CPU
run mi50-rocm72 torch || { cat "$work/err"; ts_fail "mi50 7.2: torch"; }
[ "$(torch_of)" = 2.9.1+rocm6.3 ] || ts_fail "mi50 7.2: picked $(torch_of), wanted 2.9.1+rocm6.3"

# --- torch < 2.3 was built against NumPy 1.x --------------------------
run cpu-only 'torch==2.2.2' numpy || { cat "$work/err"; ts_fail "numpy: torch==2.2.2 numpy"; }
grep -q '^install numpy 1.26.4 ' "$work/out" || { cat "$work/out"; ts_fail "torch 2.2.2 got numpy 2"; }
rc=0; run cpu-only 'torch==2.2.2' 'numpy>=2' || rc=$?
[ "$rc" = 1 ] && grep -q 'torch-numpy2' "$work/err" || { cat "$work/err"; ts_fail "numpy>=2 with torch 2.2.2: exit $rc"; }

# --- flash-attn: torch 2.6.0's cu126 build already uses the C++11 ABI
# (pytorch#143423): the cxx11abiTRUE binary, never the FALSE one
run h100-cu130 'torch==2.6.0' flash-attn || { cat "$work/err"; ts_fail "flash-attn: torch==2.6.0 flash-attn"; }
grep -q '^install torch 2.6.0+cu126 ' "$work/out" || { cat "$work/out"; ts_fail "flash-attn: torch 2.6.0 is not the cu126 build"; }
grep -q '^install flash-attn 2.7.4+cu12torch2.6cxx11abitrue ' "$work/out" || { cat "$work/out"; ts_fail "flash-attn ABI label"; }

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
# an override refusal exits as a rule refusal does (help exit-codes)
[ "$rc" = 1 ] || ts_fail "--cuda 13.0 on driver 550: exit $rc, wanted 1 like a rule refusal"
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
# help exit-codes documents that one status
"$T" help exit-codes | grep -q 'a rule of' || ts_fail "help exit-codes does not document rule refusals"
"$T" help exit-codes | grep -q 'TS_E_REFUSED *exit 1 ' || ts_fail "help exit-codes: TS_E_REFUSED is not exit 1"
echo "install_gpu: ok"
