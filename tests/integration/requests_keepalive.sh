#!/usr/bin/env bash
# A first run's batches share keep-alive connections (index/http.h), at
# most 16 transfers at once: 30 projects that all need `mid`, which needs
# 30 leaves, are asked for in batches of 30, 30, 1, 1, 30 and 30 requests
# over at most 16 connections (libcurl's cap on open connections makes a
# transfer wait rather than open more).  Idle connections stay open
# between batches: by default libcurl keeps four per transfer in its
# multi handle, so the batches of one closed most of them and the
# leaves' batches opened them again (21 here before; 29 for a cold pyrax
# resolve of the benchmark world).
. "$(dirname "$0")/lib.sh"
T=${TORCHSOLVE:?}
work=$(ts_tmpdir)
n=30
TS_NGINX_LOG_EXTRA=' conn=$connection' \
  ts_index_from_spec < <(
    for i in $(seq -w 1 $n); do echo "simple proj$i 1.0 py3-none-any mid"; done
    echo "simple mid 1.0 py3-none-any $(seq -f 'leaf%02g' 1 $n | paste -sd ';' | sed 's/;/;;/g')"
    for i in $(seq -w 1 $n); do echo "simple leaf$i 1.0 py3-none-any"; done)
ts_make_venv "$work/venv"
export TORCHSOLVE_CACHE_DIR=$work/cache HOME=$work/home TORCHSOLVE_CONCURRENCY=16
mkdir -p "$HOME"
mark=$(ts_nginx_log_mark)
"$T" install --dry-run --python "$work/venv" --index-url "$TS_NGINX_URL/simple" \
  $(seq -f 'proj%02g' 1 $n) >"$work/out" 2>"$work/err" || { cat "$work/err"; ts_fail "resolve failed"; }
grep -q "leaf$n" "$work/out" || { cat "$work/out"; ts_fail "leaf$n not in the plan"; }
log=$(ts_nginx_log_since "$mark")
requests=$(echo "$log" | grep -c . || true)
connections=$(echo "$log" | sed -n 's/.* conn=\([0-9]*\)$/\1/p' | sort -u | wc -l)
[ "$requests" -ge $((4 * n)) ] || ts_fail "only $requests requests for $((2 * n + 1)) projects"
[ "$connections" -ge 1 ] && [ "$connections" -le 16 ] ||
  ts_fail "$requests requests over $connections connections (16 at once, kept between batches: at most 16)"
echo "requests_keepalive: $requests requests over $connections connections"
