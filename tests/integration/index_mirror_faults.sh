#!/usr/bin/env bash
# A client that survives broken mirrors (issue 27): PEP 658 metadata
# advertised but answered 404, 503 or with bytes of another hash is passed
# over for the wheel itself, and the user is warned once per index (two
# wheels broken, one warning); a mirror serving it correctly gets no
# warning.  Pages sent with Cache-Control: no-store answer the run that
# fetched them (and are not kept); a page that is HTML sent as JSON, or
# JSON sent as text/html, is read as what it is; 401/403 from an extra
# index is that index not having the project (one warning), from the
# primary an error naming the index; truncated downloads are retried,
# then a clear error and no lock.  The fault server (tests/support/mirror_fault_server.py) stops
# by itself.
. "$(dirname "$0")/lib.sh"
T=${TORCHSOLVE:?}
python3 -c 'import tomllib' 2>/dev/null || ts_skip "python3 lacks tomllib"
ts_isolate_from_host
work=$(ts_tmpdir)
python3 "$TS_SOURCE_DIR/tests/support/mirror_fault_server.py" "$work/port" &
srv=$!
ts_on_exit "kill $srv 2>/dev/null"
for _ in $(seq 100); do [ -s "$work/port" ] && break; sleep 0.05; done
[ -s "$work/port" ] || ts_fail "fault server did not start"
F=http://127.0.0.1:$(cat "$work/port")
export XDG_CONFIG_HOME=$work/config

for fault in meta404 meta503 metahash ok; do
  TORCHSOLVE_CACHE_DIR=$work/cache-$fault "$T" lock --python-version 3.12 --cpu --retries 0 \
    -i "$F/$fault/simple" alpha -o "$work/$fault.toml" 2>"$work/$fault.err" ||
    { cat "$work/$fault.err"; ts_fail "$fault: lock failed"; }
  python3 -c 'import sys, tomllib
names = sorted(p["name"] for p in tomllib.load(open(sys.argv[1], "rb"))["packages"])
assert names == ["alpha", "beta"], names' "$work/$fault.toml" ||
    ts_fail "$fault: alpha's dependency beta was not read from the wheel"
  n=$(grep -c "advertises PEP 658 metadata it does not serve" "$work/$fault.err" || true)
  if [ "$fault" = ok ]; then want=0; else want=1; fi
  [ "$n" = "$want" ] || { cat "$work/$fault.err"; ts_fail "$fault: $n warnings, wanted $want"; }
done
grep -q "stale" "$work/metahash.toml" && ts_fail "metahash: the stale metadata was used"
grep -q "HTTP 503" "$work/meta503.err" || { cat "$work/meta503.err"; ts_fail "meta503: the warning does not say what was wrong"; }

lock() { # NAME ARGS...: lock alpha into $work/NAME.toml, stderr in $work/NAME.err
  local name=$1
  shift
  TORCHSOLVE_CACHE_DIR=$work/cache-$name "$T" lock --python-version 3.12 --cpu --retries 1 \
    "$@" alpha -o "$work/$name.toml" 2>"$work/$name.err"
}
locked() { # NAME: the lock holds alpha and its dependency beta
  python3 -c 'import sys, tomllib
names = sorted(p["name"] for p in tomllib.load(open(sys.argv[1], "rb"))["packages"])
assert names == ["alpha", "beta"], names' "$work/$1.toml" || ts_fail "$1: not alpha and beta"
}
for fault in nostore htmlasjson jsonashtml; do
  lock "$fault" -i "$F/$fault/simple" || { cat "$work/$fault.err"; ts_fail "$fault: lock failed"; }
  locked "$fault"
done
# the no-store pages were used, not kept: --offline finds none
rc=0; lock nostore -i "$F/nostore/simple" --offline || rc=$?
[ $rc != 0 ] && grep -q "not in the cache (--offline)" "$work/nostore.err" ||
  { cat "$work/nostore.err"; ts_fail "nostore: a no-store page was cached"; }

# 403 from an extra index: no such project there, said once
lock extra403 -i "$F/ok/simple" --extra-index-url "$F/auth403/simple" \
  --index-strategy unsafe-best-match ||
  { cat "$work/extra403.err"; ts_fail "extra index 403: lock failed"; }
locked extra403
n=$(grep -c "the extra index $F/auth403/simple answers HTTP 403 for 'alpha': taken as not having it" \
  "$work/extra403.err" || true)
[ "$n" = 1 ] || { cat "$work/extra403.err"; ts_fail "extra index 403: $n warnings, wanted 1"; }
# 401 from the primary: an error naming the index and the fix, no lock
rc=0; lock primary401 -i "$F/auth401/simple" || rc=$?
[ $rc != 0 ] && [ ! -e "$work/primary401.toml" ] || ts_fail "primary 401: exit $rc"
grep -q "^error: the index $F/auth401/simple answers HTTP 401 for 'alpha'; check the credentials in the URL or ~/.netrc" \
  "$work/primary401.err" || { cat "$work/primary401.err"; ts_fail "primary 401: the message"; }

# truncated metadata and wheels: retried once, then one clear error, no lock
rc=0; lock truncated -i "$F/truncated/simple" || rc=$?
[ $rc != 0 ] && [ ! -e "$work/truncated.toml" ] || ts_fail "truncated: exit $rc"
[ "$(grep -c '^error: ' "$work/truncated.err")" = 1 ] &&
  grep -q "^error: .*$F/truncated/files/alpha-1.0-py3-none-any.whl[.a-z]*: truncated response" "$work/truncated.err" ||
  { cat "$work/truncated.err"; ts_fail "truncated: the message"; }
echo "index_mirror_faults: ok"
