#!/usr/bin/env bash
# Switching torch builds (issue 28, points 7 and 8):
#  - an installed torch that breaks a rule for the facts given (+cu130 under
#    --cuda 12.6, --rocm 7.2 --gfx gfx942) does not satisfy `install torch`:
#    it is replaced, saying which rule it breaks;
#  - the switch removes what only the replaced build needed and the user
#    never asked for (nvidia-*-cu13, cuda-toolkit 13), in the same
#    transaction, and --dry-run says so; what the user asked for stays;
#  - `check` reports two CUDA stacks side by side.
. "$(dirname "$0")/lib.sh"
T=${TORCHSOLVE:?}
ts_isolate_from_host
ts_venv_for_wheels
ts_index_from_spec < <(
  echo "whl/cu130 torch 2.13.0+cu130 $tag nvidia-cublas-cu13;;cuda-toolkit==13.0.2;;numpy"
  echo "whl/cu126 torch 2.13.0+cu126 $tag nvidia-cublas-cu12;;numpy"
  echo "whl/rocm7.2 torch 2.13.0+rocm7.2 $tag numpy"
  echo "whl/cpu torch 2.13.0+cpu $tag numpy"
  echo "simple nvidia-cublas-cu13 13.0.0 $tag nvidia-cuda-runtime-cu13"
  echo "simple nvidia-cuda-runtime-cu13 13.0.1 $tag"
  echo "simple cuda-toolkit 13.0.2 py3-none-any nvidia-cuda-runtime-cu13"
  echo "simple nvidia-cublas-cu12 12.6.4 $tag"
  echo "simple numpy 2.1.0 $tag"
)
export TORCHSOLVE_CACHE_DIR=$work/cache
export TORCHSOLVE_SYSROOT=$TS_SOURCE_DIR/fixtures/sysroot/cpu-only
IX=(--python "$work/venv" -i "$TS_NGINX_URL/simple" --torch-index-url "$TS_NGINX_URL/whl")
site=$("$PY" -c 'import sysconfig; print(sysconfig.get_paths()["purelib"])')
installed() { ls "$site" | sed -n 's/\.dist-info$//p' | sort | tr '\n' ' '; }
fresh_cu130() { # ARGS...: a venv holding torch 2.13.0+cu130 and its stack
  rm -rf "${site:?}"/*
  "$T" install "${IX[@]}" --cuda-driver 580.65.06 "$@" >/dev/null 2>"$work/err" ||
    { cat "$work/err"; ts_fail "installing the cu130 stack"; }
}

# --- 7: an installed build the facts rule out is replaced, saying why ---
fresh_cu130 torch
"$T" install "${IX[@]}" --cuda 12.6 --dry-run torch >"$work/out" 2>"$work/err" ||
  { cat "$work/err"; ts_fail "--cuda 12.6 over +cu130"; }
grep -q '^downgrade torch 2.13.0+cu126 .*(was 2.13.0+cu130)$' "$work/out" ||
  { cat "$work/out" "$work/err"; ts_fail "--cuda 12.6 kept torch 2.13.0+cu130"; }
grep -q 'installed torch 2.13.0+cu130 is replaced: .*rule backend-cu130-driver' "$work/err" ||
  { cat "$work/err"; ts_fail "--cuda 12.6: no reason for the replacement"; }
"$T" install "${IX[@]}" --rocm 7.2 --gfx gfx942 --dry-run torch >"$work/out" 2>"$work/err" ||
  { cat "$work/err"; ts_fail "--rocm 7.2 over +cu130"; }
grep -q '^upgrade torch 2.13.0+rocm7.2 ' "$work/out" || { cat "$work/out"; ts_fail "--rocm 7.2 kept +cu130"; }
"$T" install "${IX[@]}" --cpu --dry-run torch >"$work/out" 2>"$work/err" || { cat "$work/err"; ts_fail "--cpu"; }
grep -q '^downgrade torch 2.13.0+cpu ' "$work/out" || { cat "$work/out"; ts_fail "--cpu kept +cu130"; }
# what runs here is still kept
"$T" install "${IX[@]}" --cuda-driver 580.65.06 --dry-run torch >"$work/out" 2>"$work/err" ||
  { cat "$work/err"; ts_fail "driver 580 over +cu130"; }
grep -q '^keep torch 2.13.0+cu130 ' "$work/out" || { cat "$work/out"; ts_fail "driver 580 replaced a fitting torch"; }

# --- 8: the switch removes what it orphaned --------------------------------
grep -q '^remove nvidia-cublas-cu13 13.0.0 ' <("$T" install "${IX[@]}" --cuda 12.6 --dry-run torch 2>/dev/null) ||
  ts_fail "--dry-run does not show the orphan's removal"
[ "$(installed)" = "cuda_toolkit-13.0.2 numpy-2.1.0 nvidia_cublas_cu13-13.0.0 nvidia_cuda_runtime_cu13-13.0.1 torch-2.13.0+cu130 " ] ||
  ts_fail "a dry run changed the venv: $(installed)"
"$T" install "${IX[@]}" --cuda 12.6 torch >"$work/out" 2>"$work/err" || { cat "$work/err"; ts_fail "switch to cu126"; }
[ "$(installed)" = "numpy-2.1.0 nvidia_cublas_cu12-12.6.4 torch-2.13.0+cu126 " ] ||
  { cat "$work/err"; ts_fail "after the switch: $(installed)"; }
grep -q -- '- nvidia-cublas-cu13==13.0.0 (orphaned)' "$work/err" || { cat "$work/err"; ts_fail "removal not reported"; }
"$T" check --python "$work/venv" --cuda 12.6 >"$work/out" 2>&1 || { cat "$work/out"; ts_fail "check after a clean switch"; }

# what the user asked for stays (and what it needs); check sees two stacks
fresh_cu130 torch cuda-toolkit
"$T" install "${IX[@]}" --cuda 12.6 torch >"$work/out" 2>"$work/err" || { cat "$work/err"; ts_fail "switch (cuda-toolkit asked for)"; }
[ "$(installed)" = "cuda_toolkit-13.0.2 numpy-2.1.0 nvidia_cublas_cu12-12.6.4 nvidia_cuda_runtime_cu13-13.0.1 torch-2.13.0+cu126 " ] ||
  { cat "$work/err"; ts_fail "requested cuda-toolkit: $(installed)"; }
rc=0; "$T" check --python "$work/venv" --cuda 12.6 >"$work/out" 2>&1 || rc=$?
[ "$rc" = 1 ] && grep -q 'CUDA 13: cuda-toolkit 13.0.2 nvidia-cuda-runtime-cu13 13.0.1; CUDA 12: .*(rule cuda-stacks)' "$work/out" ||
  { cat "$work/out"; ts_fail "check: two CUDA stacks not reported (exit $rc)"; }
echo "install_switch: ok"
