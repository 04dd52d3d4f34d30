#!/usr/bin/env bash
# bench_index.sh WORLD [TORCHSOLVE] — index-client figures on the shared bench
# world (../shared/bench: ./make-world WORLD).  Serves WORLD with the test
# harness's nginx (pages with max-age=600, like PyPI) and measures:
#   - every PyPI-side project page fetched + parsed: cold (empty cache),
#     warm (fresh cache: no request), revalidated (--refresh: 304s);
#   - requests and bytes per run (from torchsolve --stats and nginx's log);
#   - HTML and JSON parse throughput over every page of the world.
set -euo pipefail
world=${1:?usage: bench_index.sh WORLD [TORCHSOLVE]}
T=${2:-${TORCHSOLVE:-torchsolve}}
here=$(cd "$(dirname "$0")" && pwd)
export TS_NGINX_PAGE_MAXAGE=600
. "$here/../integration/lib.sh"
ts_nginx_start "$world"
U=$TS_NGINX_URL
work=$(ts_tmpdir)
export TORCHSOLVE_CACHE_DIR=$work/cache
mapfile -t projects < <(find "$world/pypi/simple" -mindepth 1 -maxdepth 1 -type d -printf '%f\n' | sort)
n=${#projects[@]}

run() { # LABEL ARGS...
  local label=$1 mark t0 t1
  shift
  mark=$(ts_nginx_log_mark)
  t0=$(date +%s.%N)
  "$T" index fetch "${projects[@]}" --index-url "$U/pypi/simple" --stats "$@" >/dev/null 2>"$work/stats"
  t1=$(date +%s.%N)
  local reqs bytes
  reqs=$(ts_nginx_log_since "$mark" | wc -l)
  bytes=$(ts_nginx_log_since "$mark" | awk '{s+=$2} END {print s+0}')
  python3 -c 'import sys; l,n,t0,t1,r,b=sys.argv[1:]; t=float(t1)-float(t0); print(f"{l:12s} {int(n)} pages in {t:.3f} s = {int(n)/t:8.0f} pages/s; {r} requests, {int(b)/1024:.0f} KiB (server log)")' \
    "$label" "$n" "$t0" "$t1" "$reqs" "$bytes"
  sed 's/^/             /' "$work/stats"
}
echo "world: $world ($n PyPI projects); torchsolve: $T"
run cold
run warm
run revalidate --refresh
rm -rf "$TORCHSOLVE_CACHE_DIR"
run no-cache --no-cache
run "cold c=4" --concurrency 4
rm -rf "$TORCHSOLVE_CACHE_DIR"
run "cold c=64" --concurrency 64

# The PyTorch side: six projects routed to every variant index, merged.
mapfile -t variants < <(find "$world/pytorch/whl" -mindepth 1 -maxdepth 1 -type d -printf '%f\n' | sort)
vargs=()
for v in "${variants[@]}"; do vargs+=(--torch-variant "$v"); done
tprojects=(torch torchvision torchaudio triton pytorch-triton-rocm pytorch-triton-xpu)
for label in torch-cold torch-warm; do
  mark=$(ts_nginx_log_mark)
  t0=$(date +%s.%N)
  "$T" index fetch "${tprojects[@]}" --index-url "$U/pypi/simple" --torch-index-url "$U/pytorch/whl" \
    "${vargs[@]}" --stats >"$work/torch.out" 2>"$work/stats"
  t1=$(date +%s.%N)
  python3 -c 'import sys; l,t0,t1,r,b,f=sys.argv[1:]; t=float(t1)-float(t0); print(f"{l:12s} {r} requests ({int(b)/1024:.0f} KiB) for 6 projects x {len(sys.argv)} variants in {t:.3f} s; {f} files")' \
    "$label" "$t0" "$t1" "$(ts_nginx_log_since "$mark" | wc -l)" \
    "$(ts_nginx_log_since "$mark" | awk '{s+=$2} END {print s+0}')" "$(grep -c '^  ' "$work/torch.out")" |
    sed "s/x [0-9]* variants/x ${#variants[@]} variants/"
done

mapfile -t htmls < <(find "$world" -name index.html -path '*/simple/*/*' -o -name index.html -path '*/whl/*/*/*' | sort)
mapfile -t jsons < <(find "$world" -name index.json -path '*/simple/*/*' -o -name index.json -path '*/whl/*/*/*' | sort)
echo "parse HTML (${#htmls[@]} pages, 5 rounds):"
"$T" index parse "${htmls[@]}" --index-url "$U/pypi/simple/x/" --repeat 5 --stats 2>&1 >/dev/null | grep '^parse'
echo "parse JSON (${#jsons[@]} pages, 5 rounds):"
"$T" index parse "${jsons[@]}" --index-url "$U/pypi/simple/x/" --repeat 5 --stats 2>&1 >/dev/null | grep '^parse'
