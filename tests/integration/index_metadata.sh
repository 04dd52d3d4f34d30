#!/usr/bin/env bash
# Metadata on demand against nginx: the PEP 658 file (hash checked, cached),
# HTTP range requests into wheels without .metadata files (the access log
# must show only 206 ranges, never a whole wheel — including a wheel whose
# central directory is larger than the first window), the whole-wheel
# fallback when the server ignores ranges (verified, cached), and hash
# mismatches (exit 4, nothing cached).
. "$(dirname "$0")/lib.sh"
T=${TORCHSOLVE:?}
work=$(ts_tmpdir)
python3 "$TS_SOURCE_DIR/tests/support/index_fixtures.py" "$work/www"
TS_NGINX_EXTRA_CONF="location /norange-files/ { alias $work/www/files/; max_ranges 0; }" \
  ts_nginx_start "$work/www"
U=$TS_NGINX_URL
export TORCHSOLVE_CACHE_DIR=$work/cache
man() { python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))[sys.argv[2]][sys.argv[3]])' "$work/www/MANIFEST.json" "$1" "$2"; }
expect_metadata() { # FILE OUTPUT
  python3 -c 'import json,sys; m=json.load(open(sys.argv[1]))[sys.argv[2]]["metadata"]; o=open(sys.argv[3]).read(); sys.exit(0 if o==m else 1)' \
    "$work/www/MANIFEST.json" "$1" "$2" || { cat "$2"; ts_fail "METADATA of $1 differs"; }
}

# --- PEP 658 ------------------------------------------------------------
w=alpha-1.0-py3-none-any.whl
mark=$(ts_nginx_log_mark)
"$T" index metadata "$U/files/$w" --metadata="$(man $w meta_sha)" --sha256 "$(man $w sha256)" >"$work/m1" 2>"$work/m1.err"
expect_metadata $w "$work/m1"
grep -q 'source: pep658' "$work/m1.err" || ts_fail "not read through PEP 658"
ts_nginx_log_since "$mark" >"$work/l1"
grep -q "^200 .*GET /files/$w.metadata " "$work/l1" || ts_fail "no .metadata request"
grep -q "GET /files/$w " "$work/l1" && ts_fail "the wheel itself was fetched"
mark=$(ts_nginx_log_mark)
"$T" index metadata "$U/files/$w" --metadata="$(man $w meta_sha)" --sha256 "$(man $w sha256)" >"$work/m1b" 2>"$work/m1b.err"
expect_metadata $w "$work/m1b"
grep -q 'source: cache' "$work/m1b.err" || ts_fail "verified metadata not cached"
[ "$(ts_nginx_log_since "$mark" | wc -l)" = 0 ] || ts_fail "cached metadata refetched"

# --- PEP 658 hash mismatch: a broken mirror's file is passed over for the
# wheel itself, with a warning naming it -----------------------------------
w=badhash-1.0-py3-none-any.whl
"$T" index metadata "$U/files/$w" --metadata="$(printf '1%.0s' $(seq 64))" >"$work/bad.out" 2>"$work/bad.err" ||
  { cat "$work/bad.err"; ts_fail "metadata hash mismatch: the wheel was not read instead"; }
grep -q "^Name: badhash" "$work/bad.out" || ts_fail "metadata hash mismatch: no METADATA from the wheel"
grep -q "files/$w.metadata: its sha256 differs" "$work/bad.err" || { cat "$work/bad.err"; ts_fail "mismatch warning"; }
[ -z "$(find "$TORCHSOLVE_CACHE_DIR" -path '*badhash*' -type f 2>/dev/null)" ] || ts_fail "unverified metadata cached"

# --- range requests: small wheel, METADATA inside the first tail ---------
for w in gamma-1.0-py3-none-any.whl gamma-2.0-py3-none-any.whl; do
  mark=$(ts_nginx_log_mark)
  "$T" index metadata "$U/files/$w" --sha256 "$(man $w sha256)" >"$work/r" 2>"$work/r.err"
  expect_metadata $w "$work/r"
  grep -q 'source: range' "$work/r.err" || { cat "$work/r.err"; ts_fail "$w: not read with ranges"; }
  ts_nginx_log_since "$mark" >"$work/rl"
  grep -v "GET /files/$w " "$work/rl" && ts_fail "$w: unexpected requests"
  grep -v '^206 ' "$work/rl" && ts_fail "$w: a request was not a 206 range answer"
  grep -q 'range="bytes=-' "$work/rl" || ts_fail "$w: no tail range"
  total=$(awk '{s+=$2} END {print s}' "$work/rl")
  size=$(man $w size)
  n=$(wc -l <"$work/rl")
  echo "$w: $n range requests, $total of $size bytes"
  [ "$total" -lt "$size" ] || ts_fail "$w: ranges transferred the whole wheel"
  find "$TORCHSOLVE_CACHE_DIR" -name "$w" | grep -q . && ts_fail "$w: range metadata must not download the wheel"
done
# gamma-2.0 has a central directory larger than the first window and its
# METADATA far from the end: the window must grow, then the member be read.
[ "$n" -ge 3 ] || ts_fail "gamma-2.0: expected at least 3 range requests, got $n"
# read by range from a wheel with an index sha256: kept, so the next run
# (and --offline) asks nothing
mark=$(ts_nginx_log_mark)
"$T" index metadata "$U/files/$w" --sha256 "$(man $w sha256)" --offline >"$work/r" 2>"$work/r.err" ||
  { cat "$work/r.err"; ts_fail "$w: range-read metadata not cached"; }
expect_metadata $w "$work/r"
grep -q 'source: cache' "$work/r.err" || { cat "$work/r.err"; ts_fail "$w: not answered by the cache"; }
[ -z "$(ts_nginx_log_since "$mark")" ] || ts_fail "$w: the cached metadata was fetched again"
# without an index sha256 the key would be the URL alone: not kept
rm -rf "$TORCHSOLVE_CACHE_DIR/packs-v1"
"$T" index metadata "$U/files/$w" >/dev/null 2>&1 || ts_fail "$w without a hash"
[ "$(python3 "$(dirname "$0")/cache_pack.py" count "$TORCHSOLVE_CACHE_DIR")" = "0 0" ] ||
  ts_fail "$w: metadata of a wheel without an index hash was cached"
rm -rf "$TORCHSOLVE_CACHE_DIR/packs-v1"

# --- whole wheel when the server ignores ranges --------------------------
w=gamma-1.0-py3-none-any.whl
mark=$(ts_nginx_log_mark)
"$T" index metadata "$U/norange-files/$w" --sha256 "$(man $w sha256)" --stats >"$work/w" 2>"$work/w.err"
expect_metadata $w "$work/w"
grep -q 'source: wheel' "$work/w.err" || { cat "$work/w.err"; ts_fail "not read from the whole wheel"; }
# the ignored range request is cut off at the window, not read to the end
# (counted by the client: nginx logs what it pushed into socket buffers)
grep -q '^stats: 2 requests' "$work/w.err" || { cat "$work/w.err"; ts_fail "expected 2 requests"; }
got=$(sed -n 's/^stats: [0-9]* requests, \([0-9]*\) bytes.*/\1/p' "$work/w.err")
[ "$got" -le $(( $(man $w size) + 65536 )) ] || ts_fail "ignored range read too much ($got bytes)"
find "$TORCHSOLVE_CACHE_DIR/wheels-v1" -name "$w" | grep -q . || ts_fail "verified wheel not kept"
mark=$(ts_nginx_log_mark)
"$T" index metadata "$U/norange-files/$w" --sha256 "$(man $w sha256)" >"$work/w2" 2>"$work/w2.err"
grep -q 'source: wheel' "$work/w2.err" || ts_fail "cached wheel not used"
[ "$(ts_nginx_log_since "$mark" | wc -l)" = 0 ] || ts_fail "cached wheel refetched"

# --- whole wheel with a wrong hash ---------------------------------------
w=gamma-2.0-py3-none-any.whl
set +e
"$T" index metadata "$U/norange-files/$w" --sha256 "$(printf '0%.0s' $(seq 64))" 2>"$work/wh.err"
rc=$?
set -e
[ "$rc" = 4 ] || { cat "$work/wh.err"; ts_fail "wheel hash mismatch: exit $rc"; }
grep -q "norange-files/$w: sha256 is" "$work/wh.err" || { cat "$work/wh.err"; ts_fail "mismatch message"; }
find "$TORCHSOLVE_CACHE_DIR" \( -name "$w" -o -name "$w.part" \) | grep . && ts_fail "unverified wheel left in the cache"
echo "index_metadata: all checks passed"
