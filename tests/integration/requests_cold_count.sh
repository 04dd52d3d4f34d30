#!/usr/bin/env bash
# What a first run (empty cache) asks the server, counted, never timed
# (index/client.h, resolver/README.md "Lazy metadata"):
# - no URL is asked twice in one run (a page, a METADATA file, a range of
#   a wheel): every answer is kept for the run;
# - a resolve that backtracks asks for no more than its lazy METADATA
#   needs: `app` pins `pin==1.0` while lib 5-24 require pin>=2, so the
#   solver walks lib down from 24 to 4.  It asks for lib 24's METADATA
#   (the first choice), then, having seen lib move, the next 16 versions
#   at once and, moving again, the rest: 24 METADATA files of lib, one
#   each for app, pin and the 10 leaves, and 13 project pages.  Each
#   METADATA file here is read from its small wheel with one range request
#   (no PEP 658 file, and no probe for one), so the bound is 13 + 36: a run
#   that asks for a METADATA file twice, probes for files the page does not
#   list, or prefetches further fails it (lib 1-3, below the answer, are
#   the last prefetch's share of guessing).
# - a longer walk: `deep` 120-62 require pin>=2, so the solver walks deep
#   down from 120 to 61, past its first window of 40 versions.  Each round
#   in which deep moves again prefetches 16 more versions than the last
#   (16, 32, 48: what the solver will look at next, not a doubling that
#   overshoots): deep 120; 119 and 16 more; 102 and 32 more, down to the
#   window's end (81); the windows grow; 80 and 48 more (down to 32).
#   89 METADATA files of deep, one each for app2 and pin, 3 pages: 94
#   requests (doubling asked for 64 in the last round: 110).
. "$(dirname "$0")/lib.sh"
T=${TORCHSOLVE:?}
work=$(ts_tmpdir)
{
  echo "simple app 1.0 py3-none-any lib;;pin==1.0$(for i in $(seq -w 1 10); do printf ';;leaf%s' "$i"; done)"
  for v in 1.0 2.0 3.0; do echo "simple pin $v py3-none-any"; done
  for i in $(seq 1 24); do
    if [ "$i" -ge 5 ]; then echo "simple lib $i.0 py3-none-any pin>=2"; else echo "simple lib $i.0 py3-none-any pin"; fi
  done
  for i in $(seq -w 1 10); do
    for v in 1.0 2.0; do echo "simple leaf$i $v py3-none-any"; done
  done
  echo "simple app2 1.0 py3-none-any deep;;pin==1.0"
  for i in $(seq 1 120); do
    if [ "$i" -ge 62 ]; then echo "simple deep $i.0 py3-none-any pin>=2"; else echo "simple deep $i.0 py3-none-any pin"; fi
  done
} | python3 "$TS_SOURCE_DIR/tests/integration/install_mkindex.py" "$work/www"
ts_nginx_start "$work/www"
ts_make_venv "$work/venv"
export TORCHSOLVE_CACHE_DIR=$work/cache HOME=$work/home
mkdir -p "$HOME"
mark=$(ts_nginx_log_mark)
"$T" install --dry-run --python "$work/venv" --index-url "$TS_NGINX_URL/simple" app \
  >"$work/out" 2>"$work/err" || { cat "$work/err"; ts_fail "resolve failed"; }
grep -q 'lib.*4\.0' "$work/out" || { cat "$work/out"; ts_fail "lib 4.0 not in the plan"; }
log=$(ts_nginx_log_since "$mark")
requests=$(echo "$log" | grep -c . || true)
# the same request twice: same URL and same range
twice=$(echo "$log" | awk '{print $3, $4, $6}' | sort | uniq -d)
[ -z "$twice" ] || { echo "$twice" | head -5; ts_fail "a cold run asked the server the same thing twice"; }
pages=$(echo "$log" | grep -cE '"GET /simple/[a-z0-9-]+/ ' || true)
[ "$pages" -eq 13 ] || { echo "$log" | grep -E '"GET /simple/[a-z0-9-]+/ '; ts_fail "$pages project pages asked for (13 projects)"; }
limit=$((13 + 24 + 12))
[ "$requests" -le "$limit" ] || { echo "$log" | sed -n 's/.*"GET \([^ ]*\) .*range="\([^"]*\)".*/\1 \2/p' | sort | head -80; ts_fail "$requests requests for a cold resolve (at most $limit)"; }

export TORCHSOLVE_CACHE_DIR=$work/cache2
mark=$(ts_nginx_log_mark)
"$T" install --dry-run --python "$work/venv" --index-url "$TS_NGINX_URL/simple" app2 \
  >"$work/out2" 2>"$work/err2" || { cat "$work/err2"; ts_fail "resolve of app2 failed"; }
grep -q 'deep.*61\.0' "$work/out2" || { cat "$work/out2"; ts_fail "deep 61.0 not in the plan"; }
deep=$(ts_nginx_log_since "$mark" | grep -c . || true)
[ "$deep" -le 94 ] || ts_fail "$deep requests for a walk of 60 versions (at most 94)"
echo "ok: $requests requests ($pages pages), none twice; $deep for the deep walk"
