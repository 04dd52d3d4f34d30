#!/usr/bin/env bash
# The index client against a misbehaving server (tests/support/fault_server.py)
# and hostile pages: retries on 5xx then success, 404 not retried, truncated
# bodies, stalls, wrong Content-Length, wrong content type, redirect loops,
# a 100 MB page, malformed JSON, invalid links.  Every failure is one error
# line naming the URL, a non-zero exit, and nothing written to the cache
# but the 404's not-found entry, which spares the next run the request.
. "$(dirname "$0")/lib.sh"
T=${TORCHSOLVE:?}
command -v python3 >/dev/null || ts_skip "python3 not found"
work=$(ts_tmpdir)
python3 "$TS_SOURCE_DIR/tests/support/fault_server.py" "$work/port" &
srv=$!
ts_on_exit "kill $srv 2>/dev/null"
for _ in $(seq 100); do [ -s "$work/port" ] && break; sleep 0.05; done
[ -s "$work/port" ] || ts_fail "fault server did not start"
F=http://127.0.0.1:$(cat "$work/port")
export TORCHSOLVE_CACHE_DIR=$work/cache
count() { python3 -c 'import json,sys,urllib.request; print(json.load(urllib.request.urlopen(sys.argv[1]+"/count")).get(sys.argv[2],0))' "$F" "$1"; }
no_cache_entries() { [ -z "$(find "$TORCHSOLVE_CACHE_DIR" -type f ! -name '*.lock' ! -name CACHEDIR.TAG 2>/dev/null)" ] || { find "$TORCHSOLVE_CACHE_DIR" -type f; ts_fail "$1: something was cached"; }; }
O=(--retries 3 --timeout 2)

# 5xx twice, then 200: retried and succeeds
TORCHSOLVE_CACHE_DIR=$work/cache-ok "$T" index fetch alpha --index-url "$F/flaky/simple" "${O[@]}" --stats >"$work/out" 2>"$work/err"
grep -q '^alpha: 1 files' "$work/out" || ts_fail "flaky: no page"
[ "$(count /flaky/simple/alpha/)" = 3 ] || ts_fail "flaky: expected 3 requests, got $(count /flaky/simple/alpha/)"
grep -q 'stats: 3 requests, .* 2 retries' "$work/err" || { cat "$work/err"; ts_fail "flaky: stats"; }
# 5xx forever: gives up after 1 + 3 attempts
ts_fails 3 "always500/simple/beta/: HTTP 503" index fetch beta --index-url "$F/always500/simple" "${O[@]}"
[ "$(count /always500/simple/beta/)" = 4 ] || ts_fail "always500: expected 4 requests"
# 404: not retried, "not found"
ts_fails 1 "project 'gamma' not found on $F/missing/simple" index fetch gamma --index-url "$F/missing/simple" "${O[@]}"
[ "$(count /missing/simple/gamma/)" = 1 ] || ts_fail "404 was retried"
gamma=$(grep -ls '"project":"gamma"' "$work"/cache/packs-v1/*.pack || true)
grep -qs '"status":404' $gamma || ts_fail "the 404 was not remembered"
rm -f $gamma $(grep -ls '"project":"index-root"' "$work"/cache/packs-v1/*.pack) # (the "did you mean" root)
# truncated body: retried, then an error, nothing cached
ts_fails 3 "truncate/simple/delta/: truncated response" index fetch delta --index-url "$F/truncate/simple" "${O[@]}"
[ "$(count /truncate/simple/delta/)" = 4 ] || ts_fail "truncation not retried"
# Content-Length larger than the body
ts_fails 3 "wronglen/simple/eps/: truncated response" index fetch eps --index-url "$F/wronglen/simple" --retries 0
# a stalled server: the read timeout fires
start=$(date +%s)
ts_fails 3 "stall/simple/zeta/: no data for 1s (server stalled)" index fetch zeta --index-url "$F/stall/simple" --retries 1 --timeout 1
[ $(($(date +%s) - start)) -lt 20 ] || ts_fail "stall took too long"
# wrong content type
ts_fails 1 "unexpected content type 'application/octet-stream'" index fetch eta --index-url "$F/ctype/simple"
# redirect loop
ts_fails 3 "loop/simple/theta/: redirect loop" index fetch theta --index-url "$F/loop/simple"
# a 100 MB page: refused at the cap
ts_fails 1 "huge/simple/iota/: response larger than the 64 MiB limit" index fetch iota --index-url "$F/huge/simple"
no_cache_entries "fault pages"
# a wheel without an index hash, cut short by a server that sends no
# Content-Length: refused, and not kept in the cache to fail every later run
ts_fails 4 "cutwheel/cut-1.0-py3-none-any.whl: the download is not a whole wheel" index metadata "$F/cutwheel/cut-1.0-py3-none-any.whl"
no_cache_entries "cut wheel"
ts_fails 4 "cutwheel/cut-1.0-py3-none-any.whl: the download is not a whole wheel" index metadata "$F/cutwheel/cut-1.0-py3-none-any.whl"

# hostile pages served by nginx
python3 "$TS_SOURCE_DIR/tests/support/index_fixtures.py" "$work/www"
ts_nginx_start "$work/www"
U=$TS_NGINX_URL
ts_fails 1 "malformed JSON at byte .* of $U/bad/simple/badjson/" index fetch badjson --index-url "$U/bad/simple"
ts_fails 1 "invalid link 'http://\[::1/badlink-1.0.tar.gz' on $U/bad/simple/badlink/" index fetch badlink --index-url "$U/bad/simple"
ts_fails 2 "index URL 'ftp://x/simple' must start with" index fetch x --index-url ftp://x/simple
ts_fails 2 "torch-index-url 'download.pytorch.org/whl' must start with" index fetch torch --torch-index-url download.pytorch.org/whl --torch-variant cu126
no_cache_entries "hostile pages"
echo "index_faults: all checks passed"
