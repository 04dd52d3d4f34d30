#!/usr/bin/env bash
# NVML is looked for only where an NVIDIA driver shows itself (host/
# host_detect.c): on a machine with no kernel module, no /dev/nvidiactl and
# no WSL, a live `detect` makes no attempt to open libnvidia-ml.so.1 (the
# failed dlopen searched every library folder: about 60 system calls, half
# a millisecond of every run).  nvidia-smi is still asked where it is on
# PATH (integration.gpu_detect's fake programs).
. "$(dirname "$0")/lib.sh"
T=${TORCHSOLVE:?}
command -v strace >/dev/null || ts_skip "strace not installed"
strace -f -qq -e trace=openat -o /dev/null true 2>/dev/null || ts_skip "strace cannot trace here"
if [ -e /sys/module/nvidia ] || [ -e /proc/driver/nvidia ] || [ -e /dev/nvidiactl ] ||
   [ -e /dev/dxg ] || grep -qi microsoft /proc/version 2>/dev/null; then
  ts_skip "this machine has an NVIDIA driver or WSL: NVML is rightly tried"
fi
work=$(ts_tmpdir)
ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0" \
  strace -f -qq -e trace=openat,open,stat,newfstatat,access -o "$work/trace" \
  "$T" detect --json >"$work/out" 2>"$work/err" || { cat "$work/err"; ts_fail "detect failed"; }
python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); assert d["cuda"] is None, d["cuda"]' "$work/out" ||
  ts_fail "detect reported CUDA on a machine without a driver: $(cat "$work/out")"
looks=$(grep -c 'libnvidia-ml' "$work/trace" || true)
[ "$looks" = 0 ] || { grep 'libnvidia-ml' "$work/trace" | head -3; ts_fail "libnvidia-ml.so.1 looked for $looks times without a driver"; }
grep -q '/dev/nvidiactl' "$work/trace" || ts_fail "the driver's device node was not checked"
echo "ok   no NVML search without a driver"
