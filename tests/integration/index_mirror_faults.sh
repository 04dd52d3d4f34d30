#!/usr/bin/env bash
# A client that survives broken mirrors (issue 27): PEP 658 metadata
# advertised but answered 404, 503 or with bytes of another hash is passed
# over for the wheel itself, and the user is warned once per index (two
# wheels broken, one warning); a mirror serving it correctly gets no
# warning.  The fault server (tests/support/mirror_fault_server.py) stops
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
echo "index_mirror_faults: ok"
