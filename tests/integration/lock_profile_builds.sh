#!/usr/bin/env bash
# A fleet profile is named by its build (issue 27): --profile rocm6.4
# locks +rocm6.4 builds (not the rocm7.1 ones a ROCm 6.4 driver also
# runs), cu121 its +cu121 builds, rocm7.1:gfx=gfx942 +rocm7.1 (not
# +rocm7.2); a user's name serves two pools on one backend
# (mi300x=rocm6.4:gfx=gfx942, radeon=rocm6.4:gfx=gfx1100); re-locking with
# a relaxed requirement keeps every profile's versions; the extras are read
# back by an independent PEP 751 reader (tomllib + pep751_markers.py).
. "$(dirname "$0")/lib.sh"
T=${TORCHSOLVE:?}
python3 -c 'import tomllib' 2>/dev/null || ts_skip "python3 lacks tomllib"
ts_isolate_from_host
ts_venv_for_wheels
export XDG_CONFIG_HOME=$work/config TORCHSOLVE_CACHE_DIR=$work/cache
L=manylinux_2_28_x86_64
ts_index_from_spec < <(
  for v in 2.9.1 2.11.0 2.13.0; do
    for b in cpu cu126; do echo "whl/$b torch $v+$b $cp-$cp-$L"; done
  done
  echo "whl/cu121 torch 2.5.1+cu121 $cp-$cp-$L"
  echo "whl/cpu torch 2.5.1+cpu $cp-$cp-$L"
  echo "whl/rocm6.4 torch 2.9.1+rocm6.4 $cp-$cp-$L"
  echo "whl/rocm7.1 torch 2.11.0+rocm7.1 $cp-$cp-$L"
  echo "whl/rocm7.1 torch 2.13.0+rocm7.1 $cp-$cp-$L"
  echo "whl/rocm7.2 torch 2.13.0+rocm7.2 $cp-$cp-$L"
  echo "simple numpy 2.1.0 $cp-$cp-$L"
)
minor=$("$PY" -c 'import sys; print("%d.%d" % sys.version_info[:2])')
ENV="sys_platform == 'linux' and platform_machine == 'x86_64' and implementation_name == 'cpython'"
lock() {
  "$T" lock --universal --requires-python "==$minor.*" --environment "$ENV" \
    -i "$TS_NGINX_URL/simple" --torch-index-url "$TS_NGINX_URL/whl" "$@"
}
# picks LOCK EXTRA: the torch a PEP 751 installer takes asked for EXTRA
picks() {
  python3 - "$1" "$2" "$minor" <<'PY'
import os, sys, tomllib
sys.path.insert(0, os.environ["TS_SOURCE_DIR"] + "/tests/integration")
from pep751_markers import evaluate
lock = tomllib.load(open(sys.argv[1], "rb"))
env = {"sys_platform": "linux", "platform_machine": "x86_64", "implementation_name": "cpython",
       "platform_python_implementation": "CPython", "python_version": sys.argv[3],
       "python_full_version": sys.argv[3] + ".0", "os_name": "posix", "platform_system": "Linux",
       "platform_release": "", "platform_version": "", "implementation_version": sys.argv[3] + ".0",
       "extras": {sys.argv[2]} if sys.argv[2] else set(), "dependency_groups": set()}
got = [p["version"] for p in lock["packages"] if p["name"] == "torch"
       and (not p.get("marker") or evaluate(p["marker"], env))]
print(" ".join(got))
PY
}
expect() { # LOCK EXTRA WANT
  local got
  got=$(picks "$1" "$2")
  [ "$got" = "$3" ] || ts_fail "$(basename "$1") with extra '$2': torch $got, wanted $3"
}

# 1. The issue's table: each profile locks its own build.
lock --profile cpu --profile cu126 --profile rocm6.4 --profile cu121 \
  --profile rocm7.1:gfx=gfx942 torch -o "$work/a.toml" 2>"$work/err" ||
  { cat "$work/err"; ts_fail "lock with five profiles"; }
expect "$work/a.toml" "" 2.13.0+cpu
expect "$work/a.toml" cu126 2.13.0+cu126
expect "$work/a.toml" rocm6-4 2.9.1+rocm6.4
expect "$work/a.toml" cu121 2.5.1+cu121
expect "$work/a.toml" rocm7-1 2.13.0+rocm7.1

# 2. Two pools on one backend, each under its own name.
lock --profile cpu --profile mi300x=rocm6.4:gfx=gfx942 --profile radeon=rocm6.4:gfx=gfx1100 \
  torch -o "$work/b.toml" 2>"$work/err" || { cat "$work/err"; ts_fail "lock with named profiles"; }
expect "$work/b.toml" mi300x 2.9.1+rocm6.4
expect "$work/b.toml" radeon 2.9.1+rocm6.4
python3 -c 'import sys, tomllib
t = tomllib.load(open(sys.argv[1], "rb"))
assert t["extras"] == ["cpu", "mi300x", "radeon"], t["extras"]
p = t["tool"]["torchsolve"]["profiles"]
assert p["mi300x"]["backend"] == p["radeon"]["backend"] == "rocm6.4", p' "$work/b.toml" ||
  ts_fail "the named profiles are not recorded with their backend"
ts_fails 2 "profile rocm6.4 given twice: name one of them" lock --universal \
  --requires-python "==$minor.*" --profile rocm6.4:gfx=gfx942 --profile rocm6.4:gfx=gfx1100 torch
ts_fails 2 "'bad name!' is no valid name" lock --universal --requires-python "==$minor.*" \
  --profile 'bad name!=rocm6.4' torch

# 3. Re-locking after relaxing torch<2.12 keeps every profile's version.
lock --profile cpu --profile cu126 --profile rocm7.1 'torch<2.12' -o "$work/c.toml" 2>/dev/null ||
  ts_fail "lock torch<2.12"
expect "$work/c.toml" rocm7-1 2.11.0+rocm7.1
lock --profile cpu --profile cu126 --profile rocm7.1 torch -o "$work/c.toml" 2>/dev/null ||
  ts_fail "re-lock torch"
expect "$work/c.toml" "" 2.11.0+cpu
expect "$work/c.toml" cu126 2.11.0+cu126
expect "$work/c.toml" rocm7-1 2.11.0+rocm7.1
echo "ok"
