#!/usr/bin/env bash
# torchsolve detect --json --sysroot fixtures/sysroot/<machine>: every fact
# and the backend list, for each replayed machine; overrides and their
# refusals; HSA_OVERRIDE_GFX_VERSION.
. "$(dirname "$0")/lib.sh"
command -v python3 >/dev/null || ts_skip "python3 missing"
FIX=$TS_SOURCE_DIR/fixtures/sysroot
ts_isolate_from_host
export XDG_CONFIG_HOME=$(ts_tmpdir)
fails=0

# check MACHINE PYTHON-ASSERTIONS [extra args...]: d is the parsed JSON.
check() {
  local machine=$1 asserts=$2
  shift 2
  local out
  if ! out=$("$TORCHSOLVE" detect --json --sysroot "$FIX/$machine" "$@" 2>&1); then
    echo "FAIL $machine: detect exited non-zero: $out"
    fails=$((fails + 1))
    return
  fi
  if ! python3 -c "
import json, sys
d = json.loads(sys.argv[1])
$asserts
" "$out"; then
    echo "FAIL $machine $*: $out" | head -40
    fails=$((fails + 1))
  else
    echo "ok   $machine $*"
  fi
}

check h100-cu130 '
assert d["machine"] == "x86_64"
assert d["glibc"] == "2.39"
assert d["os"]["id"] == "ubuntu" and d["os"]["version"] == "24.04"
assert d["cuda"]["driver_version"] == "580.159.04"
assert d["cuda"]["cuda_version"] == "13.0"
assert d["cuda"]["gpus"] == [{"name": "NVIDIA H100 80GB HBM3", "compute_capability": "9.0"}]
assert d["rocm"] is None and d["xpu"] is False and d["wsl"] is False
assert d["torch_release"] == "2.14"
assert d["backends"] == ["cu130", "cu126", "cu132", "cpu"], d["backends"]
assert d["sources"]["cuda.driver_version"] == "/sys/module/nvidia/version"
assert d["sources"]["glibc"] == "torchsolve-capture/ldd-version"
assert [n["backend"] for n in d["notes"]] == ["cu132"]
'
check rtx4090-drv550 '
assert d["cuda"]["driver_version"] == "550.144.03"
assert d["cuda"]["cuda_version"] == "12.4"
assert d["cuda"]["gpus"][0]["compute_capability"] == "8.9"
assert d["sources"]["cuda.driver_version"] == "/proc/driver/nvidia/version"
assert d["glibc"] == "2.35"
assert d["backends"] == ["cu126", "cpu"], d["backends"]
ex = {e["backend"]: e for e in d["excluded"]}
assert ex["cu130"]["rule"] == "backend-cu130-driver" and "550.144.03" in ex["cu130"]["reason"]
'
check gtx1080-drv580 '
assert d["cuda"]["cuda_version"] == "13.0"
assert d["cuda"]["gpus"][0]["compute_capability"] == "6.1"
assert d["backends"] == ["cu126", "cpu"], d["backends"]
ex = {e["backend"]: e for e in d["excluded"]}
assert ex["cu130"]["rule"] == "cuda-arch-2.14-cu130", ex["cu130"]
assert "6.1" in ex["cu130"]["reason"]
'
check v100-drv580 '
assert len(d["cuda"]["gpus"]) == 2
assert d["cuda"]["gpus"][1]["name"] == "Tesla V100-SXM2-32GB"
assert d["backends"] == ["cu126", "cpu"], d["backends"]
'
check rtx5090-drv570 '
assert d["cuda"]["cuda_version"] == "12.8"
assert d["cuda"]["gpus"][0]["compute_capability"] == "12.0"
assert d["backends"] == ["cpu"], d["backends"]
ex = {e["backend"]: e for e in d["excluded"]}
assert ex["cu126"]["rule"] == "cuda-arch-2.14-cu126"
# the cu129 build of 2.13 (sm_120 too) runs on driver 570 through minor-version compatibility
assert d["gpu_fallback"] == {"torch_release": "2.13", "backends": ["cu129", "cpu"]}, d["gpu_fallback"]
'
check rx7900xt-rocm62 '
assert d["cuda"] is None
assert d["rocm"]["version"] == "6.2.0"
assert d["rocm"]["gpus"] == [{"gfx": "gfx1100"}]
assert d["rocm"]["hsa_override_gfx_version"] is None
assert d["sources"]["rocm.version"] == "/opt/rocm/.info/version"
assert d["backends"] == ["cpu"], d["backends"]
ex = {e["backend"]: e for e in d["excluded"]}
assert ex["rocm7.2"]["rule"] == "backend-rocm7.2-intree", ex["rocm7.2"]
assert "kernel\x27s own amdgpu >=7.0; this host has 6.2" in ex["rocm7.2"]["reason"], ex["rocm7.2"]
# the kernel\x27s own amdgpu: no window of a ROCm release; user space up
# to two releases newer than the installed ROCm 6.2 (rocm6.3, rocm6.4) runs
k = d["rocm"]["kernel_driver"]
assert k["rocm"] is None and "installed ROCm 6.2.0" in k["basis"], k
assert d["rocm"]["amdgpu_version"] is None
assert d["gpu_fallback"] == {"torch_release": "2.9", "backends": ["rocm6.4", "rocm6.3", "cpu"]}, d["gpu_fallback"]
'
check rx7900xt-rocm62 '
assert d["torch_release"] == "2.5"
assert d["backends"] == ["cpu"], d["backends"]
ex = {e["backend"]: e for e in d["excluded"]}
assert ex["rocm6.2"]["rule"] == "hipblaslt-gfx1100", ex["rocm6.2"]
' --release 2.5
check rx7900xt-rocm62 '
assert d["rocm"]["version"] == "6.4"
assert d["sources"]["rocm.version"] == "--rocm"
assert d["rocm"]["kernel_driver"]["rocm"] == "6.4" and "--rocm" in d["rocm"]["kernel_driver"]["basis"]
# the rocm7.2 and rocm7.14 builds of 2.14 are outside the window of the ROCm 6.4 kernel driver
assert d["backends"] == ["cpu"], d["backends"]
assert d["gpu_fallback"] == {"torch_release": "2.13", "backends": ["rocm7.1", "cpu"]}, d["gpu_fallback"]
' --rocm 6.4
check mi300x-rocm64 '
assert d["rocm"]["version"] == "6.4.0"
assert d["rocm"]["gpus"] == [{"gfx": "gfx942"}, {"gfx": "gfx942"}]
assert d["backends"] == ["cpu"], d["backends"]
assert d["gpu_fallback"] == {"torch_release": "2.13", "backends": ["rocm7.1", "cpu"]}, d["gpu_fallback"]
'
check mi25-rocm57 '
assert d["rocm"]["version"] == "5.7.1"
assert d["rocm"]["gpus"] == [{"gfx": "gfx900"}]
# the ROCm 5.7 kernel driver runs rocm5.5 to rocm6.1; gfx900 is in the rocm6.1 build of 2.6
assert d["gpu_fallback"] == {"torch_release": "2.6", "backends": ["rocm6.1", "cpu"]}, d["gpu_fallback"]
'
check cpu-only '
assert d["cuda"] is None and d["rocm"] is None and d["xpu"] is False
assert d["glibc"] == "2.36" and d["os"]["id"] == "debian"
assert d["backends"] == ["cpu"] and d["gpu_fallback"] is None
'
check wsl '
assert d["wsl"] is True and d["sources"]["wsl"] == "/proc/version"
assert d["cuda"]["driver_version"] == "566.36"
assert d["sources"]["cuda.driver_version"] == "torchsolve-capture/nvidia-smi-query-gpu"
assert d["backends"] == ["cu126", "cpu"], d["backends"]
'
check arc-xpu '
assert d["xpu"] is True and "driver xe" in d["sources"]["xpu"]
assert d["backends"] == ["xpu", "cpu"], d["backends"]
'
# Issue 18's machines.  MI50 (gfx906) on ROCm 6.4: the rocBLAS of ROCm >= 6.4
# wheels has no gfx906 Tensile library, so rocm6.3 (torch 2.9) is the last
# family that works; its DKMS amdgpu 6.12.12 is ROCm 6.4's kernel driver.
check mi50-rocm64 '
assert d["rocm"]["gpus"] == [{"gfx": "gfx906"}] and d["rocm"]["amdgpu_version"] == "6.12.12"
k = d["rocm"]["kernel_driver"]
assert k == {"rocm": "6.4", "basis": "amdgpu 6.12.12 from /sys/module/amdgpu/version (mapped with confidence medium)"}, k
assert d["backends"] == ["cpu"], d["backends"]
assert d["gpu_fallback"] == {"torch_release": "2.9", "backends": ["rocm6.3", "cpu"]}, d["gpu_fallback"]
'''
check mi50-rocm64 '
ex = {e["backend"]: e for e in d["excluded"]}
assert ex["rocm7.1"]["rule"] == "rocm-gfx-2.13-rocm7.1" and "gfx906" not in ex["rocm7.1"]["reason"], ex["rocm7.1"]
' --release 2.13
check mi50-rocm64 '
ex = {e["backend"]: e for e in d["excluded"]}
assert ex["rocm6.4"]["rule"] == "rocm-gfx-2.9-rocm6.4", ex["rocm6.4"]
' --release 2.9
"$TORCHSOLVE" detect --sysroot "$FIX/mi50-rocm64" | grep -q "^  kernel driver of ROCm 6.4 (amdgpu 6.12.12 from /sys/module/amdgpu/version" \
  || { echo "FAIL text: the kernel driver line"; fails=$((fails + 1)); }
# MI50 on ROCm 7.2 with the kernel's own amdgpu: that is no ROCm
# release's kernel driver, so the installed ROCm does not stand for it and
# no window applies; the wheels bundle their user space, and the last
# build with gfx906 kernels, 2.9.1+rocm6.3, is what runs (it was CPU).
check mi50-rocm72 '
k = d["rocm"]["kernel_driver"]
assert k["rocm"] is None and "kernel\x27s own amdgpu" in k["basis"] and "7.2.0" in k["basis"], k
assert d["backends"] == ["cpu"], d["backends"]
assert d["gpu_fallback"] == {"torch_release": "2.9", "backends": ["rocm6.3", "cpu"]}, d["gpu_fallback"]
'
check mi50-rocm72 '
assert d["backends"] == ["rocm6.3", "cpu"], d["backends"]
ex = {e["backend"]: e for e in d["excluded"]}
assert ex["rocm6.4"]["rule"] == "rocm-gfx-2.9-rocm6.4", ex["rocm6.4"]
' --release 2.9
"$TORCHSOLVE" detect --sysroot "$FIX/mi50-rocm72" | grep -q "^  kernel driver: the kernel's own amdgpu (no /sys/module/amdgpu/version)" \
  || { echo "FAIL text: the in-tree kernel driver line"; fails=$((fails + 1)); }
# amdgpu 30.x states its user-space range (ROCm/amdgpu-docs): 30.30 (ROCm
# 7.2's) runs 6.3-7.2, so rocm6.3 builds (five releases older) run and
# rocm6.2.4 do not; 30.10 (7.0's) runs 6.2-7.0: rocm6.2.4 runs, rocm7.1 not.
drv=$(ts_tmpdir)
cp -r "$FIX/mi300x-rocm64" "$drv/kmd3030"
mkdir -p "$drv/kmd3030/sys/module/amdgpu"
echo 30.30.1 >"$drv/kmd3030/sys/module/amdgpu/version"
cp -r "$drv/kmd3030" "$drv/kmd3010"
echo 30.10.2 >"$drv/kmd3010/sys/module/amdgpu/version"
FIX=$drv check kmd3030 '
assert d["rocm"]["kernel_driver"]["rocm"] == "7.2", d["rocm"]["kernel_driver"]
assert "rocm6.3" in d["backends"], d["backends"]
ex = {e["backend"]: e for e in d["excluded"]}
assert ex["rocm6.2.4"]["rule"] == "backend-rocm6.2.4-rocm", ex["rocm6.2.4"]
' --release 2.7
FIX=$drv check kmd3010 '
assert d["rocm"]["kernel_driver"]["rocm"] == "7.0", d["rocm"]["kernel_driver"]
assert "rocm6.2.4" in d["backends"] and "rocm6.3" in d["backends"], d["backends"]
' --release 2.7
FIX=$drv check kmd3010 '
ex = {e["backend"]: e for e in d["excluded"]}
assert ex["rocm7.1"]["rule"] == "backend-rocm7.1-rocm", ex["rocm7.1"]
assert d["backends"] == ["rocm7.0", "cpu"], d["backends"]
' --release 2.10
# Jetson AGX Orin (L4T R36.4.3): an integrated GPU, not server-class
# aarch64: the SBSA CUDA wheels do not run on it, so the CPU build, saying
# why; the device tree alone (no /etc/nv_tegra_release) tells it too.
check jetson-orin '
assert d["machine"] == "aarch64" and d["jetson"] == "L4T R36.4.3", d["jetson"]
assert d["sources"]["jetson"] == "/etc/nv_tegra_release", d["sources"]
assert d["backends"] == ["cpu"], d["backends"]
ex = {e["backend"]: e for e in d["excluded"]}
assert ex["cu126"]["rule"] == "backend-cu126-jetson", ex["cu126"]
assert "Jetson" in ex["cu126"]["reason"], ex["cu126"]
' --cuda-driver 580.65.06 --compute-capability 8.7
"$TORCHSOLVE" detect --sysroot "$FIX/jetson-orin" | grep -q "^machine   aarch64 (/proc/sys/kernel/arch), NVIDIA Jetson L4T R36.4.3 (not server-class aarch64" \
  || { echo "FAIL text: the Jetson line"; fails=$((fails + 1)); }
dt=$(ts_tmpdir)
cp -r "$FIX/jetson-orin" "$dt/orin-dt" && rm "$dt/orin-dt/etc/nv_tegra_release"
FIX=$dt check orin-dt '
assert d["jetson"] == "nvidia,tegra234", d["jetson"]
assert d["backends"] == ["cpu"], d["backends"]
' --cuda-driver 580.65.06 --compute-capability 8.7
check aarch64-gh200 '
assert d["jetson"] is None and "cu130" in d["backends"], d
'
# RX 7800 XT (gfx1101) on ROCm 6.2: 2.4 wheels carry no gfx1101 kernels
# (pytorch#141667), the window gives rocm6.4 builds of 2.9.
check rx7800xt-rocm62 '
assert d["rocm"]["gpus"] == [{"gfx": "gfx1101"}]
assert d["gpu_fallback"] == {"torch_release": "2.9", "backends": ["rocm6.4", "rocm6.3", "cpu"]}, d["gpu_fallback"]
'
check rx7800xt-rocm62 '
assert d["backends"] == ["cpu"], d["backends"]
ex = {e["backend"]: e for e in d["excluded"]}
assert ex["rocm6.1"]["rule"] == "rocm-gfx-2.4-rocm6.1" and "gfx1101" not in ex["rocm6.1"]["reason"], ex["rocm6.1"]
' --release 2.4
# aarch64: its own variants and arch lists.  A T4 (sm_75) has kernels in no
# aarch64 build of 2.14 (cu126 there is sm_80;sm_90 only); the cu129 builds
# of 2.11-2.13 start at sm_75 (pytorch#188443).
check aarch64-t4 '
assert d["machine"] == "aarch64" and d["cuda"]["gpus"][0]["compute_capability"] == "7.5"
assert d["backends"] == ["cpu"], d
assert d["gpu_fallback"] == {"torch_release": "2.13", "backends": ["cu129", "cpu"]}, d["gpu_fallback"]
ex = {e["backend"]: e for e in d["excluded"]}
assert ex["cu126"]["rule"] == "cuda-arch-2.14-cu126", ex["cu126"]
'
check aarch64-t4 '
assert d["backends"] == ["cpu"], d["backends"]
assert sorted(e["backend"] for e in d["excluded"]) == ["cu129"], d["excluded"]
' --release 2.8
check aarch64-gh200 '
assert d["machine"] == "aarch64"
assert d["backends"] == ["cu130", "cu126", "cu132", "cpu"], d["backends"]
'
check aarch64-gh200 '
assert d["backends"] == ["cu128", "cpu"], d["backends"]
' --release 2.7
# The driver table has the 11.1-11.6 rows: a 470 driver runs CUDA 11.4.
check cpu-only '
assert d["cuda"]["cuda_version"] == "11.4", d["cuda"]
assert d["sources"]["cuda.cuda_version"] == "driver table (from --cuda-driver)"
' --cuda-driver 470.256.02
"$TORCHSOLVE" detect --sysroot "$FIX/cpu-only" --cuda-driver 470.256.02 | grep -q "^cuda      11.4 " \
  || { echo "FAIL text: --cuda-driver 470.256.02 is not CUDA 11.4"; fails=$((fails + 1)); }
# WSL reports the Windows driver: its own column of the table (570.30 is
# CUDA 12.8 on Linux, 12.6 on Windows).
check wsl '
assert d["cuda"]["cuda_version"] == "12.6", d["cuda"]
' --cuda-driver 570.30
check cpu-only '
assert d["cuda"]["cuda_version"] == "12.8", d["cuda"]
' --cuda-driver 570.30

# Overrides replace facts and name their source.
check cpu-only '
assert d["cuda"]["cuda_version"] == "12.4" and d["sources"]["cuda.cuda_version"] == "--cuda"
assert d["cuda"]["gpus"] == [{"name": None, "compute_capability": "8.6"}]
assert d["backends"] == ["cu126", "cpu"], d["backends"]
' --cuda 12.4 --compute-capability 8.6
check h100-cu130 '
assert d["cuda"] is None and d["backends"] == ["cpu"]
' --cuda none
check h100-cu130 '
assert d["backends"] == ["cpu"]
ex = {e["backend"]: e["reason"] for e in d["excluded"]}
assert ex["cu130"] == "--cpu was given"
' --cpu
check cpu-only '
assert d["rocm"] == {"version": "7.2", "gpus": [], "hsa_override_gfx_version": None, "amdgpu_version": None,
                     "kernel_driver": {"rocm": "7.2", "basis": "ROCm 7.2 from --rocm (stands for the kernel driver too)"}}, d["rocm"]
assert d["backends"] == ["cpu"]
' --rocm 7.2
TORCHSOLVE_GFX=gfx1100,gfx90a check cpu-only '
assert d["rocm"]["gpus"] == [{"gfx": "gfx1100"}, {"gfx": "gfx90a"}], d["rocm"]
assert d["sources"]["rocm.gpus"] == "TORCHSOLVE_GFX"
assert d["backends"] == ["rocm7.14", "rocm7.2", "cpu"], d["backends"]
' --rocm 7.2
# The override maps the target; where the GPU was read (KFD) stays visible.
HSA_OVERRIDE_GFX_VERSION=10.3.0 check rx7900xt-rocm62 '
assert d["rocm"]["gpus"] == [{"gfx": "gfx1030", "real_gfx": "gfx1100"}]
assert d["rocm"]["hsa_override_gfx_version"] == "10.3.0"
assert d["sources"]["rocm.gpus"] == "/sys/class/kfd/kfd/topology/nodes/*/properties", d["sources"]
assert d["sources"]["rocm.hsa_override"] == "HSA_OVERRIDE_GFX_VERSION"
'
TORCHSOLVE_SYSROOT=$FIX/h100-cu130 check rtx4090-drv550 '
assert d["cuda"]["driver_version"] == "550.144.03"
'

# Refusals: --cuda 13.0 on driver 550 (exit 1, as a rule refusal, with a
# fix), unless --ignore-host.
out=$("$TORCHSOLVE" detect --sysroot "$FIX/rtx4090-drv550" --cuda 13.0 2>&1) && rc=0 || rc=$?
if [ "$rc" != 1 ] || ! grep -q "needs NVIDIA driver >= 580.65.06" <<<"$out" || ! grep -q "fix:" <<<"$out"; then
  echo "FAIL --cuda 13.0 on driver 550 not refused (rc=$rc): $out"; fails=$((fails + 1))
else echo "ok   --cuda 13.0 on driver 550 refused"; fi
check rtx4090-drv550 '
assert d["cuda"]["cuda_version"] == "13.0" and d["cuda"]["driver_version"] is None
assert d["backends"] == ["cu132", "cu130", "cu126", "rocm7.14", "rocm7.2", "xpu", "cpu"], d["backends"]
' --cuda 13.0 --ignore-host
for bad in "--cuda banana" "--gfx sm_90" "--compute-capability nine" "--rocm 6.x"; do
  # shellcheck disable=SC2086
  if "$TORCHSOLVE" detect --sysroot "$FIX/cpu-only" $bad >/dev/null 2>&1; then
    echo "FAIL '$bad' accepted"; fails=$((fails + 1))
  else echo "ok   '$bad' refused"; fi
done
if "$TORCHSOLVE" detect --sysroot "$FIX/does-not-exist" >/dev/null 2>&1; then
  echo "FAIL missing sysroot accepted"; fails=$((fails + 1))
fi
# The text form names sources too.
"$TORCHSOLVE" detect --sysroot "$FIX/h100-cu130" | grep -q "driver 580.159.04 (/sys/module/nvidia/version)" \
  || { echo "FAIL text output"; fails=$((fails + 1)); }

# Live mode with fake nvidia-smi / rocm_agent_enumerator / hipconfig on
# PATH (only where the machine has no real GPU stack to shadow them).
if [ ! -e /sys/module/nvidia ] && [ ! -e /sys/class/kfd ] && [ ! -e /opt/rocm ]; then
  bin=$(ts_tmpdir)
  printf '#!/bin/sh\necho "NVIDIA H100 80GB HBM3, 9.0, 580.159.04"\n' >"$bin/nvidia-smi"
  printf '#!/bin/sh\nprintf "gfx000\\ngfx1100\\n"\n' >"$bin/rocm_agent_enumerator"
  printf '#!/bin/sh\necho "6.2.41133-dd7f95766"\n' >"$bin/hipconfig"
  chmod +x "$bin"/*
  out=$(PATH=$bin:$PATH "$TORCHSOLVE" detect --json)
  if python3 -c '
import json, sys
d = json.loads(sys.argv[1])
assert d["cuda"]["driver_version"] == "580.159.04", d["cuda"]
assert d["cuda"]["gpus"] == [{"name": "NVIDIA H100 80GB HBM3", "compute_capability": "9.0"}]
assert d["sources"]["cuda.gpus"] == "nvidia-smi"
assert d["rocm"]["gpus"] == [{"gfx": "gfx1100"}] and d["rocm"]["version"] == "6.2"
assert d["sources"]["rocm.version"] == "hipconfig"
assert d["sources"]["glibc"] == "gnu_get_libc_version()"
' "$out"; then echo "ok   live with fake programs"; else echo "FAIL live: $out"; fails=$((fails + 1)); fi
  out=$(PATH=$bin:$PATH "$TORCHSOLVE" detect --json --no-probe-programs)
  python3 -c 'import json,sys; d=json.loads(sys.argv[1]); assert d["cuda"] is None and d["rocm"] is None' "$out" \
    || { echo "FAIL --no-probe-programs ran programs"; fails=$((fails + 1)); }
  # A hanging nvidia-smi is killed after 10 s instead of hanging detect.
  printf '#!/bin/sh\nexec sleep 60\n' >"$bin/nvidia-smi"
  start=$(date +%s)
  out=$(PATH=$bin:$PATH "$TORCHSOLVE" detect --json)
  took=$(( $(date +%s) - start ))
  if [ "$took" -gt 20 ] || ! python3 -c 'import json,sys; assert json.loads(sys.argv[1])["cuda"] is None' "$out"; then
    echo "FAIL hanging nvidia-smi: ${took}s"; fails=$((fails + 1))
  else echo "ok   hanging nvidia-smi gave up after ${took}s"; fi
fi

# A GPU known only by name (no NVML, no nvidia-smi answer): the user is
# told its builds go unchecked and how to say the compute capability.
nocc=$(mktemp -d)
mkdir -p "$nocc/sys/module/nvidia" "$nocc/proc/driver/nvidia/gpus/0000:01:00.0"
echo 580.65.06 >"$nocc/sys/module/nvidia/version"
printf 'Model: \t\t NVIDIA GeForce GTX 1080\n' >"$nocc/proc/driver/nvidia/gpus/0000:01:00.0/information"
err=$("$TORCHSOLVE" detect --sysroot "$nocc" 2>&1 >/dev/null)
if echo "$err" | grep -q 'GTX 1080.*compute capability unknown.*--compute-capability'; then
  echo "ok   unknown compute capability is warned about"
else echo "FAIL unknown compute capability not warned: $err"; fails=$((fails + 1)); fi
err=$("$TORCHSOLVE" detect --sysroot "$nocc" --compute-capability 6.1 2>&1 >/dev/null)
[ -z "$err" ] || { echo "FAIL warning despite --compute-capability: $err"; fails=$((fails + 1)); }
rm -rf "$nocc"

[ "$fails" = 0 ] || ts_fail "$fails check(s) failed"
echo "all detect checks passed"
