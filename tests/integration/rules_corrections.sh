#!/usr/bin/env bash
# The audit's corrections of rules.yaml (issue 23), each through the real
# binary: flash-attn's C++ ABI label (torch 2.6.0's cu126/rocm6.2.4/xpu
# builds use the new ABI), its torch 2.9/2.10 pins and CUDA major, and
# which ROCm versions each bitsandbytes release has libraries for.
. "$(dirname "$0")/lib.sh"
T=${TORCHSOLVE:?}
ts_isolate_from_host
export XDG_CONFIG_HOME=$(ts_tmpdir)

# audit WANT_RULE|ok NAME==VERSION...: the rule broken (exit 1), or none.
audit() {
  local want=$1 rc=0 out
  shift
  out=$("$T" rules audit --ignore-host "$@" 2>&1) || rc=$?
  if [ "$want" = ok ]; then
    [ $rc -eq 0 ] || ts_fail "$*: refused: $out"
  else
    [ $rc -eq 1 ] && grep -q "(rule $want)" <<<"$out" || ts_fail "$*: wanted rule $want: $out"
  fi
}

# flash-attn's cxx11abi label
audit ok torch==2.6.0+cu126 flash-attn==2.7.4+cu12torch2.6cxx11abiTRUE
audit flash-attn-cxx11abi-false torch==2.6.0+cu126 flash-attn==2.7.4+cu12torch2.6cxx11abiFALSE
audit flash-attn-cxx11abi-false torch==2.6.0+rocm6.2.4 flash-attn==2.7.4+cu12torch2.6cxx11abiFALSE
audit flash-attn-cxx11abi-false torch==2.6.0+xpu flash-attn==2.7.4+cu12torch2.6cxx11abiFALSE
audit ok torch==2.6.0+cu124 flash-attn==2.7.4+cu12torch2.6cxx11abiFALSE
audit flash-attn-cxx11abi-true torch==2.6.0+cu124 flash-attn==2.7.4+cu12torch2.6cxx11abiTRUE
audit flash-attn-cxx11abi-true torch==2.6.0 flash-attn==2.7.4+cu12torch2.6cxx11abiTRUE
audit flash-attn-cxx11abi-false torch==2.7.1+cu126 flash-attn==2.8.0+cu12torch2.7cxx11abiFALSE
# torch 2.9/2.10 pins, CUDA major of the label
audit ok torch==2.9.1+cu128 flash-attn==2.8.3+cu12torch2.9cxx11abiTRUE
audit flash-attn-torch-2.9 torch==2.10.0+cu128 flash-attn==2.8.3+cu12torch2.9cxx11abiTRUE
audit flash-attn-torch-2.10 torch==2.9.1+cu128 flash-attn==2.8.3+cu12torch2.10cxx11abiTRUE
audit flash-attn-cuda12 torch==2.9.1+cu130 flash-attn==2.8.3+cu12torch2.9cxx11abiTRUE
audit ok torch==2.9.1+cu130 flash-attn==2.8.3+cu13torch2.9cxx11abiTRUE
audit flash-attn-cuda13 torch==2.10.0+cu126 flash-attn==2.8.3+cu13torch2.10cxx11abiTRUE

# bitsandbytes: no ROCm library before 0.49; 0.49.x up to ROCm 7.1; 0.50 from 6.4
audit bitsandbytes-rocm torch==2.9.1+rocm6.4 bitsandbytes==0.48.2
audit ok torch==2.9.1+rocm6.4 bitsandbytes==0.49.0
audit ok torch==2.10.0+rocm7.1 bitsandbytes==0.49.1
audit bitsandbytes-0.49-rocm-max torch==2.11.0+rocm7.2 bitsandbytes==0.49.1
audit bitsandbytes-0.50-rocm-min torch==2.9.1+rocm6.3 bitsandbytes==0.50.0
audit ok torch==2.11.0+rocm7.2 bitsandbytes==0.50.0
audit ok torch==2.9.1+cu128 bitsandbytes==0.48.2
echo "rules corrections: ok"
