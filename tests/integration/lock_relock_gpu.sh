#!/usr/bin/env bash
# Re-locking never keeps a worse torch build silently (issue 23, point 3):
# a relock keeps the existing lock's torch release, but the build (and its
# companions') is chosen again for the target; keeping an older release
# says what runs better and how to take it (--upgrade-package torch).
# Repro: a T4 on aarch64 locks 2.13.0+cpu; the same command for a GH200
# into the same file kept 2.13.0+cpu with no word.
. "$(dirname "$0")/lib.sh"
T=${TORCHSOLVE:?}
python3 -c 'import tomllib' 2>/dev/null || ts_skip "python3 lacks tomllib"
ts_isolate_from_host
work=$(ts_tmpdir)
export XDG_CONFIG_HOME=$work/config TORCHSOLVE_CACHE_DIR=$work/cache
tag=cp311-cp311-manylinux_2_28_aarch64
{
  for v in 2.13.0+cpu:cpu 2.13.0+cu126:cu126 2.13.0+cu130:cu130 \
           2.14.0+cpu:cpu 2.14.0+cu130:cu130; do
    echo "whl/${v#*:} torch ${v%:*} $tag"
  done
  echo "whl/cpu torchvision 0.28.0+cpu $tag torch==2.13.0"
  echo "whl/cu130 torchvision 0.28.0+cu130 $tag torch==2.13.0"
  echo "simple numpy 2.0.0 $tag"
} | python3 "$TS_SOURCE_DIR/tests/integration/install_mkindex.py" "$work/full"
# first served without 2.14.0
cp -r "$work/full" "$work/www"
for page in "$work"/www/whl/*/torch/index.html; do
  grep -v -- '-2\.14\.0' "$page" >"$page.new" && mv "$page.new" "$page"
done
ts_nginx_start "$work/www"
IDX=(-i "$TS_NGINX_URL/simple" --torch-index-url "$TS_NGINX_URL/whl"
     --python-version 3.11 --platform manylinux_2_28_aarch64)
T4=(--cuda-driver 575.57.08 --compute-capability 7.5)
GH200=(--cuda-driver 580.95.05 --compute-capability 9.0)
versions() {
  python3 -c 'import sys, tomllib
print(" ".join(p["name"] + "=" + p["version"] for p in tomllib.load(open(sys.argv[1], "rb"))["packages"]))' "$1"
}

"$T" lock "${IDX[@]}" "${T4[@]}" torch torchvision -o "$work/l.toml" 2>"$work/err" || { cat "$work/err"; ts_fail "T4 lock"; }
[ "$(versions "$work/l.toml")" = "torch=2.13.0+cpu torchvision=0.28.0+cpu" ] || ts_fail "T4 lock: $(versions "$work/l.toml")"
echo "ok: a T4 on aarch64 locks the CPU build"
"$T" lock "${IDX[@]}" "${GH200[@]}" torch torchvision -o "$work/l.toml" 2>"$work/err" || { cat "$work/err"; ts_fail "GH200 relock"; }
[ "$(versions "$work/l.toml")" = "torch=2.13.0+cu130 torchvision=0.28.0+cu130" ] ||
  { cat "$work/err"; ts_fail "GH200 relock kept $(versions "$work/l.toml")"; }
echo "ok: the GH200 relock into the same file gets its CUDA build and companion"
"$T" lock "${IDX[@]}" "${GH200[@]}" torch torchvision -o "$work/fresh.toml" 2>/dev/null || ts_fail "GH200 fresh lock"
cmp "$work/l.toml" "$work/fresh.toml" || ts_fail "the relock differs from a fresh lock"
echo "ok: ... as a fresh lock has it"

# 2.14.0 appears: the relock keeps 2.13.0 and says what runs better
for page in "$work"/full/whl/*/torch/index.html; do
  cp "$page" "$work/www/whl/$(basename "$(dirname "$(dirname "$page")")")/torch/index.html"
done
"$T" lock "${IDX[@]}" "${GH200[@]}" torch -o "$work/l.toml" 2>"$work/err" || { cat "$work/err"; ts_fail "relock with 2.14"; }
[ "$(versions "$work/l.toml")" = "torch=2.13.0+cu130" ] || { cat "$work/err"; ts_fail "relock with 2.14: $(versions "$work/l.toml")"; }
grep -qx "note: torch 2.13.0+cu130 is held back: torch 2.14.0+cu130 runs on this host, but the existing lock has torch 2.13.0+cu130 (to take the newer one: --upgrade-package torch)" "$work/err" ||
  { cat "$work/err"; ts_fail "relock with 2.14: the note"; }
echo "ok: a relock keeping an older torch says so, with the fix"
"$T" lock "${IDX[@]}" "${GH200[@]}" torch --upgrade-package torch -o "$work/l.toml" 2>"$work/err" || { cat "$work/err"; ts_fail "--upgrade-package torch"; }
[ "$(versions "$work/l.toml")" = "torch=2.14.0+cu130" ] || ts_fail "--upgrade-package torch: $(versions "$work/l.toml")"
! grep -q '^note:' "$work/err" || { cat "$work/err"; ts_fail "--upgrade-package torch: a note"; }
echo "ok: --upgrade-package torch takes it"
# a pin the user gave keeps the CPU build, and the note says what runs
"$T" lock "${IDX[@]}" "${GH200[@]}" 'torch==2.13.0+cpu' -o "$work/pin.toml" 2>"$work/err" || { cat "$work/err"; ts_fail "pinned CPU build"; }
[ "$(versions "$work/pin.toml")" = "torch=2.13.0+cpu" ] || ts_fail "pinned: $(versions "$work/pin.toml")"
grep -q "^note: torch 2.13.0+cpu is a CPU build: torch 2.14.0+cu130 runs on this host's GPU, but you asked for torch==2.13.0+cpu" "$work/err" ||
  { cat "$work/err"; ts_fail "pinned: the note"; }
echo "ok: a pinned CPU build is kept with a note"
