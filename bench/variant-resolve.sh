#!/usr/bin/env bash
# bench/variant-resolve.sh — resolve time with and without PEP 825
# variants on the same index: the fixture index of integration.variant_select
# (torch 2.10.0 with six variant wheels, a plain wheel and variants.json
# on <torch-index-url>/variant/; nvlib with two variants and a plain
# wheel), and the same index with the variant wheels and JSON files
# removed.  `install --dry-run torch nvlib` for an RTX 4090 host
# (--cuda-driver 570.86.10 --compute-capability 8.9) on a warm cache;
# prints the median wall ms of $RUNS (default 15) runs of each and the
# resolver's own figure ("Resolved ... in N ms").  Not a test.
#
# Environment: TORCHSOLVE (default: build/torchsolve), RUNS.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
export TS_SOURCE_DIR=${TS_SOURCE_DIR:-$here/..}
export TORCHSOLVE=${TORCHSOLVE:-$here/../build/torchsolve}
runs=${RUNS:-15}
. "$TS_SOURCE_DIR/tests/integration/lib.sh"
ts_isolate_from_host
ts_venv_for_wheels
python3 "$TS_SOURCE_DIR/tests/integration/variant_mkindex.py" "$work/with" "$tag"
cp -r "$work/with" "$work/without"
# the same index without variants: plain wheels only, pages rewritten
find "$work/without" \( -name '*-variants.json' -o -name '*-*-*-*-*-[a-z]*.whl' \) -delete
for d in "$work"/without/whl/variant/torch "$work"/without/simple/nvlib; do
  python3 - "$d" <<'PY'
import hashlib, os, sys
d = sys.argv[1]
links = [f'<a href="{f}#sha256={hashlib.sha256(open(os.path.join(d, f), "rb").read()).hexdigest()}">{f}</a>'
         for f in sorted(os.listdir(d)) if f.endswith(".whl")]
open(os.path.join(d, "index.html"), "w").write("<html><body>\n" + "\n".join(links) + "\n</body></html>\n")
PY
done
ts_nginx_start "$work"
export TORCHSOLVE_SYSROOT=$TS_SOURCE_DIR/fixtures/sysroot/cpu-only
measure() { # WHICH
  local url=$TS_NGINX_URL/$1 times=() resolved=()
  export TORCHSOLVE_CACHE_DIR=$work/cache-$1
  for i in $(seq 0 "$runs"); do
    local t0 t1
    t0=$(date +%s%N)
    "$TORCHSOLVE" install --python "$work/venv" -i "$url/simple" --torch-index-url "$url/whl" \
      --dry-run --cuda-driver 570.86.10 --compute-capability 8.9 torch nvlib >"$work/out" 2>"$work/err"
    t1=$(date +%s%N)
    [ "$i" = 0 ] && continue # the cold run fills the cache
    times+=($(((t1 - t0) / 1000000)))
    resolved+=("$(sed -n 's/^Resolved .* in \([0-9.]*\) *ms.*/\1/p' "$work/err")")
  done
  local med res
  med=$(printf '%s\n' "${times[@]}" | sort -n | sed -n "$(((runs + 1) / 2))p")
  res=$(printf '%s\n' "${resolved[@]}" | sort -n | sed -n "$(((runs + 1) / 2))p")
  printf '%-8s wall %4s ms (median of %s warm runs), resolve %s ms; torch: %s\n' "$1" "$med" "$runs" \
    "${res:-?}" "$(awk '$2 == "torch" { print $3, $4 }' "$work/out")"
}
measure with
measure without
