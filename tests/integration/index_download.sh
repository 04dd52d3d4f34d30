#!/usr/bin/env bash
# Verified downloads (the installer's path) and concurrency: streaming
# sha256, resume of a .part with a Range request, restart when the server
# ignores ranges, a poisoned .part caught by the hash, progress reports;
# several torchsolve processes sharing one cache, and downloading the same
# file to the same place at once (one transfer, the others wait for it);
# links on a redirected page resolved against the final URL.
. "$(dirname "$0")/lib.sh"
T=${TORCHSOLVE:?}
work=$(ts_tmpdir)
python3 "$TS_SOURCE_DIR/tests/support/index_fixtures.py" "$work/www"
head -c 3000000 /dev/urandom >"$work/www/files/big.bin"
TS_NGINX_EXTRA_CONF="location /norange-files/ { alias $work/www/files/; max_ranges 0; }
    location /slow-files/ { alias $work/www/files/; limit_rate 2m; }
    location /deep/ { rewrite ^/deep/a/b/(.*)\$ /idx1/\$1 redirect; }" \
  ts_nginx_start "$work/www"
U=$TS_NGINX_URL
export TORCHSOLVE_CACHE_DIR=$work/cache
man() { python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))[sys.argv[2]][sys.argv[3]])' "$work/www/MANIFEST.json" "$1" "$2"; }
w=gamma-1.0-py3-none-any.whl
sha=$(man $w sha256)
size=$(man $w size)
src=$work/www/files/$w

# plain download with progress
"$T" index download "$U/files/$w" -o "$work/d1.whl" --sha256 "$sha" --progress >"$work/out" 2>"$work/err"
cmp -s "$src" "$work/d1.whl" || ts_fail "download differs"
grep -q "sha256=$sha" "$work/out" || ts_fail "digest not reported"
grep -q "^progress: $size/$size bytes" "$work/err" || { cat "$work/err"; ts_fail "no final progress report"; }
[ -e "$work/d1.whl.part" ] && ts_fail ".part left behind"

# resume: the first 100000 bytes are already there
head -c 100000 "$src" >"$work/d2.whl.part"
mark=$(ts_nginx_log_mark)
"$T" index download "$U/files/$w" -o "$work/d2.whl" --sha256 "$sha" >/dev/null
cmp -s "$src" "$work/d2.whl" || ts_fail "resumed download differs"
ts_nginx_log_since "$mark" | grep -q "^206 $((size - 100000)) .*range=\"bytes=100000-\"" ||
  { ts_nginx_log_since "$mark"; ts_fail "not resumed with a range"; }

# resume against a server that ignores ranges: starts over, still verified
head -c 100000 "$src" >"$work/d3.whl.part"
mark=$(ts_nginx_log_mark)
"$T" index download "$U/norange-files/$w" -o "$work/d3.whl" --sha256 "$sha" >/dev/null
cmp -s "$src" "$work/d3.whl" || ts_fail "restarted download differs"
ts_nginx_log_since "$mark" | grep -q "^200 $size " || ts_fail "expected a full 200 answer"

# a poisoned .part: the hash catches it, nothing is renamed, .part removed
head -c 100000 /dev/zero >"$work/d4.whl.part"
set +e
"$T" index download "$U/files/$w" -o "$work/d4.whl" --sha256 "$sha" 2>"$work/err4"
rc=$?
set -e
[ "$rc" = 4 ] || ts_fail "poisoned .part: exit $rc, expected 4"
grep -q "sha256 is .* but the index says $sha; the file was deleted" "$work/err4" || { cat "$work/err4"; ts_fail "hash message"; }
[ -e "$work/d4.whl" ] || [ -e "$work/d4.whl.part" ] && ts_fail "unverified file kept"
"$T" index download "$U/files/$w" -o "$work/d4.whl" --sha256 "$sha" >/dev/null
cmp -s "$src" "$work/d4.whl" || ts_fail "retry after a poisoned .part"

# several processes, one cache: pages, PEP 658 metadata and whole wheels
pids=()
for i in 1 2 3 4; do
  ( "$T" index fetch alpha shared --index-url "$U/idx1/simple" >"$work/p$i.out" 2>&1 &&
    "$T" index metadata "$U/norange-files/$w" --sha256 "$sha" >"$work/m$i.out" 2>&1 &&
    "$T" index metadata "$U/files/alpha-1.0-py3-none-any.whl" --sha256 "$(man alpha-1.0-py3-none-any.whl sha256)" \
      --metadata="$(man alpha-1.0-py3-none-any.whl meta_sha)" >>"$work/m$i.out" 2>&1 ) &
  pids+=($!)
done
for i in 0 1 2 3; do wait "${pids[$i]}" || { cat "$work/p$((i + 1)).out" "$work/m$((i + 1)).out"; ts_fail "concurrent run $((i + 1)) failed"; }; done
for i in 1 2 3 4; do
  grep -q '^alpha: 3 files' "$work/p$i.out" || ts_fail "concurrent run $i: wrong page"
  [ "$(grep -c '^Name: ' "$work/m$i.out")" = 2 ] || { cat "$work/m$i.out"; ts_fail "concurrent run $i: wrong metadata"; }
done
cached=$(find "$TORCHSOLVE_CACHE_DIR/wheels-v1" -name "$w")
[ "$(echo "$cached" | wc -l)" = 1 ] || ts_fail "wheel cached more than once"
cmp -s "$cached" "$src" || ts_fail "cached wheel differs"
[ -z "$(find "$TORCHSOLVE_CACHE_DIR" -name '*.part' -o -name '*.tmp.*')" ] || ts_fail "temporary files left"

# the same file to the same destination from four processes at once: all
# succeed (before: each wrote into the shared .part, and all but the first
# failed to rename it), and the file is transferred once
bsha=$(sha256sum "$work/www/files/big.bin" | cut -d' ' -f1)
mark=$(ts_nginx_log_mark)
pids=()
for i in 1 2 3 4; do
  "$T" index download "$U/slow-files/big.bin" -o "$work/same.bin" --sha256 "$bsha" >"$work/s$i.out" 2>&1 &
  pids+=($!)
done
for i in 0 1 2 3; do wait "${pids[$i]}" || { cat "$work/s$((i + 1)).out"; ts_fail "concurrent download $((i + 1)) failed"; }; done
cmp -s "$work/www/files/big.bin" "$work/same.bin" || ts_fail "concurrent downloads: file differs"
[ "$(ts_nginx_log_since "$mark" | grep -c 'GET /slow-files/big.bin')" = 1 ] ||
  { ts_nginx_log_since "$mark"; ts_fail "concurrent downloads: not one transfer"; }
[ -e "$work/same.bin.part" ] && ts_fail "concurrent downloads: .part left"

# links on a redirected page resolve against the final URL
"$T" index fetch alpha --index-url "$U/deep/a/b/simple" --json --no-cache >"$work/redir.json"
grep -q "\"url\":.*\"$U/files/alpha-1.0-py3-none-any.whl\"" "$work/redir.json" || { cat "$work/redir.json"; ts_fail "relative links after a redirect"; }
echo "index_download: all checks passed"
