#!/usr/bin/env bash
# A torch build no rules file lists is never trusted blindly (issue 23,
# point 1): a release newer than the rules (2.15.0) or a variant its
# release does not list is judged on the facts of the nearest listed build,
# and choosing one prints a warning naming it and what was assumed; held-
# back notes name only builds that pass the same checks as the choice.  And
# the audit's facts: the cu129 builds of 2.11-2.13 start at compute
# capability 7.5, and 2.14.0 has cu126, cu130 and cu132.
. "$(dirname "$0")/lib.sh"
T=${TORCHSOLVE:?}
S=$TS_SOURCE_DIR/fixtures/sysroot
ts_isolate_from_host
work=$(ts_tmpdir)
tag=cp312-cp312-manylinux_2_28_x86_64
ts_index_from_spec < <(
  for v in 2.13.0+cpu:cpu 2.14.0+cpu:cpu 2.15.0+cpu:cpu \
           2.13.0+cu126:cu126 2.14.0+cu126:cu126 \
           2.13.0+cu129:cu129 \
           2.13.0+cu130:cu130 2.14.0+cu130:cu130 2.15.0+cu130:cu130 \
           2.14.0+cu132:cu132 2.15.0+cu132:cu132; do
    echo "whl/${v#*:} torch ${v%:*} $tag"
  done
  echo "simple numpy 2.0.0 $tag"
)
export TORCHSOLVE_CACHE_DIR=$work/cache XDG_CONFIG_HOME=$work/config
# The lock of one described machine; stderr on $work/err.
lock() { # CC DRIVER ARGS...
  local cc=$1 drv=$2
  shift 2
  rm -f "$work/l.toml" # a fresh lock each time: no earlier versions preferred
  "$T" lock -i "$TS_NGINX_URL/simple" --torch-index-url "$TS_NGINX_URL/whl" \
    --python-version 3.12 --platform manylinux_2_28_x86_64 \
    --cuda-driver "$drv" --compute-capability "$cc" "$@" -o "$work/l.toml" 2>"$work/err"
}
torch_of() {
  python3 -c 'import sys, tomllib
print([p["version"] for p in tomllib.load(open(sys.argv[1], "rb"))["packages"] if p["name"] == "torch"][0])' "$work/l.toml"
}
python3 -c 'import tomllib' 2>/dev/null || ts_skip "python3 lacks tomllib"

# V100 (cc 7.0) on driver 580: 2.15's builds are CUDA 13 only, which have
# no sm_70 kernels (assumed from 2.14's): 2.14.0+cu126, with no word about
# 2.15, and no note claiming a 2.15 build runs here.
lock 7.0 580.95.05 torch || { cat "$work/err"; ts_fail "V100"; }
[ "$(torch_of)" = 2.14.0+cu126 ] || { cat "$work/err"; ts_fail "V100: torch $(torch_of)"; }
! grep -q '2\.15' "$work/err" || { cat "$work/err"; ts_fail "V100: a 2.15 build named"; }
echo "ok: V100 gets 2.14.0+cu126"
# torch<2.14: 2.13.0+cu129 has no sm_70 kernels (cu129 starts at 7.5)
lock 7.0 580.95.05 'torch<2.14' || { cat "$work/err"; ts_fail "V100 torch<2.14"; }
[ "$(torch_of)" = 2.13.0+cu126 ] || { cat "$work/err"; ts_fail "V100 torch<2.14: torch $(torch_of)"; }
grep -q '^note: torch 2.13.0+cu126 is held back: torch 2.14.0+cu126 runs on this host' "$work/err" ||
  { cat "$work/err"; ts_fail "V100 torch<2.14: the held-back note"; }
! grep -q '2\.15\|cu129 runs\|cu13[02] runs' "$work/err" || { cat "$work/err"; ts_fail "V100 torch<2.14: names a build that does not run"; }
echo "ok: V100 with torch<2.14 gets 2.13.0+cu126, never cu129"
# a T4 (cc 7.5) on driver 575 runs the cu129 build
lock 7.5 575.57.08 'torch<2.14' || { cat "$work/err"; ts_fail "T4 torch<2.14"; }
[ "$(torch_of)" = 2.13.0+cu129 ] || { cat "$work/err"; ts_fail "T4 torch<2.14: torch $(torch_of)"; }
echo "ok: T4 on driver 575 gets 2.13.0+cu129"

# H100 (cc 9.0) on driver 580: takes 2.15.0 with a warning naming it and
# what its facts were assumed from
lock 9.0 580.95.05 torch || { cat "$work/err"; ts_fail "H100"; }
[ "$(torch_of)" = 2.15.0+cu130 ] || { cat "$work/err"; ts_fail "H100: torch $(torch_of)"; }
grep -qx "warning: torch 2.15.0+cu130 is newer than these rules (2.14); assumed the kernels of 2.14.0+cu130 (confidence low); 'torchsolve rules update' may know it" "$work/err" ||
  { cat "$work/err"; ts_fail "H100: the warning"; }
echo "ok: H100 takes 2.15.0+cu130 with a warning"
# a listed build: no warning
lock 9.0 580.95.05 'torch<2.15' || { cat "$work/err"; ts_fail "H100 torch<2.15"; }
[ "$(torch_of)" = 2.14.0+cu130 ] || { cat "$work/err"; ts_fail "H100 torch<2.15: torch $(torch_of)"; }
! grep -q '^warning: torch' "$work/err" || { cat "$work/err"; ts_fail "H100 torch<2.15: a warning for a listed build"; }
echo "ok: no warning for a listed build"

# detect judges a release newer than the rules the same way, and says so
"$T" detect --sysroot "$S/v100-drv580" --release 2.15 >"$work/out" 2>"$work/err" ||
  { cat "$work/err"; ts_fail "detect --release 2.15"; }
grep -q "^warning: torch 2.15 is newer than these rules (2.14); its builds were judged on the facts of 2.14.0's (confidence low)" "$work/err" ||
  { cat "$work/err"; ts_fail "detect --release 2.15: the warning"; }
"$T" detect --json --sysroot "$S/h100-cu130" --release 2.15 2>/dev/null >"$work/d.json" ||
  ts_fail "detect --json --release 2.15"
python3 - "$work/d.json" <<'PY' || ts_fail "detect --json --release 2.15"
import json, sys
d = json.load(open(sys.argv[1]))
assert d["torch_release"] == "2.15", d["torch_release"]
assert d["torch_release_assumed"].startswith("torch 2.15 is newer than these rules"), d
assert d["backends"][0] == "cu130", d["backends"]
PY
"$T" detect --json --sysroot "$S/v100-drv580" --release 2.15 2>/dev/null >"$work/d.json" ||
  ts_fail "detect --json --release 2.15 (V100)"
python3 - "$work/d.json" <<'PY' || ts_fail "detect --release 2.15 on the V100"
import json, sys
d = json.load(open(sys.argv[1]))
assert "cu130" not in d["backends"] and "cu132" not in d["backends"], d["backends"]
PY
echo "ok: detect --release 2.15"
