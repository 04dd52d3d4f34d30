#!/usr/bin/env bash
# A refusal names this host's own facts, once (issue 23, point 4):
# torch==2.4.1 on an RX 7800 XT (gfx1101) says the host's GPU is gfx1101
# and which targets 2.4.1's ROCm builds carry, one sentence per rule, and
# never lists the targets it lacks as solver facts ("this host has no
# __gfx900; ... no __gfx906; ..." seven times over).  Its fix fits the
# cause (issue 26): no ROCm upgrade adds gfx1101 kernels to 2.4.1, so it
# names the oldest release whose GPU build runs here; a build held back by
# the driver alone (torch==2.9.1 +cu130 on an RTX 4090 with driver 550)
# gets the driver upgrade.
. "$(dirname "$0")/lib.sh"
T=${TORCHSOLVE:?}
S=$TS_SOURCE_DIR/fixtures/sysroot
ts_isolate_from_host
work=$(ts_tmpdir)
export TORCHSOLVE_CACHE_DIR=$work/cache XDG_CONFIG_HOME=$work/config
tag=cp312-cp312-manylinux_2_28_x86_64
ts_index_from_spec < <(
  for v in 2.4.1+cpu:cpu 2.4.1+rocm6.0:rocm6.0 2.4.1+rocm6.1:rocm6.1 \
           2.6.0+rocm6.2.4:rocm6.2.4 2.9.1+cpu:cpu 2.9.1+rocm6.4:rocm6.4; do
    echo "whl/${v#*:} torch ${v%:*} $tag"
  done
)
# The primary index is a plain simple index: a ".../whl/cpu" URL given as
# -i is PyTorch's own install line and names the CPU build on purpose.
mkdir -p "$work/www/simple"
set +e
"$T" lock -i "$TS_NGINX_URL/simple" --torch-index-url "$TS_NGINX_URL/whl" \
  --python-version 3.12 --platform manylinux_2_28_x86_64 \
  --sysroot "$S/rx7800xt-rocm62" 'torch==2.4.1' -o "$work/l.toml" 2>"$work/err"
rc=$?
set -e
[ "$rc" != 0 ] || ts_fail "torch==2.4.1 on an RX 7800 XT was not refused"
grep -q "^error: torch==2.4.1 has no GPU build that runs on this host" "$work/err" ||
  { cat "$work/err"; ts_fail "the refusal"; }
why=$(grep '^  no GPU build of it runs here: ' "$work/err") || { cat "$work/err"; ts_fail "no reason line"; }
[ "$(grep -o "this host's GPU is gfx1101 (from /sys/class/kfd/kfd/topology/nodes/\*/properties)" <<<"$why" | wc -l)" = 1 ] ||
  ts_fail "the host's GPU is not named once: $why"
for b in rocm6.0 rocm6.1; do
  [ "$(grep -o "torch 2.4.1+$b has no kernels for this host's GPU (rule rocm-gfx-2.4-$b: torch 2.4+$b carries kernels for gfx900 gfx906 gfx908 gfx90a gfx1030 gfx1100 gfx942" <<<"$why" | wc -l)" = 1 ] ||
    ts_fail "$b: not one sentence naming its targets: $why"
done
! grep -q '__gfx' "$work/err" || ts_fail "solver fact names in the refusal: $(cat "$work/err")"
grep -q "^  fix: ask for torch==2.9.1, the newest torch with a GPU build that runs here (2.9.1+rocm6.4)" "$work/err" ||
  { cat "$work/err"; ts_fail "the newest release that runs"; }
grep -q "^  fix: no upgrade of ROCm (the amdgpu kernel driver) adds kernels for this host's GPU to torch==2.4.1: the oldest torch with a GPU build that runs here is 2.6.0 (2.6.0+rocm6.2.4)" "$work/err" ||
  { cat "$work/err"; ts_fail "missing kernels: the fix is another release, named"; }
! grep -q "fix: upgrade ROCm" "$work/err" ||
  { cat "$work/err"; ts_fail "an upgrade offered where no upgrade adds the kernels"; }
echo "ok: the refusal names gfx1101 once and each build's targets once; its fix is a release with kernels"

# the same words in a held-back note: a V100 asking for torch<2.14 on an
# index with a cu129 build (compute capability 7.5 and up)
{
  echo "whl/cu126 torch 2.13.0+cu126 $tag"
  echo "whl/cu129 torch 2.13.0+cu129 $tag"
  echo "whl/cu126 torch 2.14.0+cu126 $tag"
} | python3 "$TS_SOURCE_DIR/tests/integration/install_mkindex.py" "$work/www"
"$T" lock -i "$TS_NGINX_URL/simple" --torch-index-url "$TS_NGINX_URL/whl" \
  --python-version 3.12 --platform manylinux_2_28_x86_64 \
  --sysroot "$S/v100-drv580" 'torch<2.14' -o "$work/v.toml" 2>"$work/err" || { cat "$work/err"; ts_fail "V100 lock"; }
! grep -q '__cc_' "$work/err" || ts_fail "solver fact names in the note: $(cat "$work/err")"
grep -q "^note: .*torch 2.13.0+cu129 has no kernels for this host's GPU (rule cuda-arch-2.13-cu129: .*this host's GPU has compute capability 7.0 (from " "$work/err" || { cat "$work/err"; ts_fail "the note's words"; }
echo "ok: no solver fact names in a held-back note"

# a refusal that the driver alone causes keeps the upgrade fix: torch
# 2.9.1's only GPU build here is +cu130 (driver >= 580; an RTX 4090 has
# kernels in it), the host's driver is 550, and 2.8.0+cu126 runs
{
  echo "whl/cpu torch 2.9.1+cpu $tag"
  echo "whl/cu130 torch 2.9.1+cu130 $tag"
  echo "whl/cu126 torch 2.8.0+cu126 $tag"
} | python3 "$TS_SOURCE_DIR/tests/integration/install_mkindex.py" "$work/www"
set +e
"$T" lock -i "$TS_NGINX_URL/simple" --torch-index-url "$TS_NGINX_URL/whl" \
  --python-version 3.12 --platform manylinux_2_28_x86_64 \
  --sysroot "$S/rtx4090-drv550" 'torch==2.9.1' -o "$work/n.toml" 2>"$work/err"
rc=$?
set -e
[ "$rc" != 0 ] || ts_fail "torch==2.9.1 on driver 550 was not refused"
grep -q "^  fix: upgrade the NVIDIA driver so that a GPU build of torch==2.9.1 runs" "$work/err" ||
  { cat "$work/err"; ts_fail "a driver-bound refusal lost its upgrade fix"; }
! grep -q "adds kernels" "$work/err" || { cat "$work/err"; ts_fail "kernels blamed for a driver rule"; }
echo "ok: a refusal the driver causes offers the driver upgrade"
