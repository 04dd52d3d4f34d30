#!/usr/bin/env bash
# Broken mirrors under `torchsolve mirror` and `sync` (issue 27): a lock
# whose files a mirror refuses (401, 403) or cuts short (truncated) stops
# with one error line naming the file and the fix, a non-zero exit, no
# mirror lock, pages or whole-named files written and no package
# installed; a mirror that sends everything with Cache-Control: no-store
# still serves the run.  The fault server
# (tests/support/mirror_fault_server.py) stops by itself.
. "$(dirname "$0")/lib.sh"
T=${TORCHSOLVE:?}
ts_isolate_from_host
work=$(ts_tmpdir)
python3 "$TS_SOURCE_DIR/tests/support/mirror_fault_server.py" "$work/port" &
srv=$!
ts_on_exit "kill $srv 2>/dev/null"
for _ in $(seq 100); do [ -s "$work/port" ] && break; sleep 0.05; done
[ -s "$work/port" ] || ts_fail "fault server did not start"
F=http://127.0.0.1:$(cat "$work/port")
export XDG_CONFIG_HOME=$work/config
ts_make_venv "$work/venv"
TORCHSOLVE_CACHE_DIR=$work/cache-lock "$T" lock --python "$work/venv" -i "$F/ok/simple" alpha \
  -o "$work/ok.toml" 2>"$work/err" || { cat "$work/err"; ts_fail "lock from the good mirror"; }
installed() { "$work/venv/bin/python" -c 'import importlib.metadata as m
print(" ".join(sorted(d.metadata["Name"] for d in m.distributions())))'; }

for fault in auth401 auth403 truncated; do
  sed "s#/ok/files/#/$fault/files/#" "$work/ok.toml" >"$work/$fault.toml"
  grep -q "/$fault/files/alpha" "$work/$fault.toml" || ts_fail "$fault: no lock pointing at it"
  case $fault in
    auth*) why="HTTP ${fault#auth}; check the credentials in the URL or ~/.netrc" ;;
    truncated) why="truncated response" ;;
  esac
  # mirror: one error line, nothing that looks finished
  M=$work/mirror-$fault
  rc=0
  TORCHSOLVE_CACHE_DIR=$work/cache-$fault "$T" mirror "$work/$fault.toml" "$M" --retries 1 \
    2>"$work/err" || rc=$?
  [ $rc != 0 ] || ts_fail "mirror $fault: exit 0"
  [ "$(grep -c '^error: ' "$work/err")" = 1 ] &&
    grep -q "^error: $F/$fault/files/[a-z]*-1.0-py3-none-any.whl: $why" "$work/err" ||
    { cat "$work/err"; ts_fail "mirror $fault: the message"; }
  for f in pylock.toml simple/index.html simple/index.json README.md; do
    [ ! -e "$M/$f" ] || ts_fail "mirror $fault: $f written"
  done
  ! ls "$M"/files/*.whl >/dev/null 2>&1 || ts_fail "mirror $fault: a wheel under its final name"
  # sync from that mirror: one error line, nothing installed
  rc=0
  TORCHSOLVE_CACHE_DIR=$work/cache-sync-$fault "$T" sync "$work/$fault.toml" --python "$work/venv" \
    --retries 1 2>"$work/err" || rc=$?
  [ $rc != 0 ] || ts_fail "sync $fault: exit 0"
  [ "$(grep -c '^error: ' "$work/err")" = 1 ] &&
    grep -q "^error: $F/$fault/files/[a-z]*-1.0-py3-none-any.whl: $why" "$work/err" ||
    { cat "$work/err"; ts_fail "sync $fault: the message"; }
  [ -z "$(installed)" ] || ts_fail "sync $fault: installed $(installed)"
done

# no-store everywhere: the run that fetched the files uses them
sed "s#/ok/files/#/nostore/files/#" "$work/ok.toml" >"$work/nostore.toml"
TORCHSOLVE_CACHE_DIR=$work/cache-nostore "$T" mirror "$work/nostore.toml" "$work/m-nostore" \
  2>"$work/err" || { cat "$work/err"; ts_fail "mirror nostore"; }
[ -s "$work/m-nostore/pylock.toml" ] || ts_fail "mirror nostore: no lock"
TORCHSOLVE_CACHE_DIR=$work/cache-sync-nostore "$T" sync "$work/nostore.toml" --python "$work/venv" \
  2>"$work/err" || { cat "$work/err"; ts_fail "sync nostore"; }
[ "$(installed)" = "alpha beta" ] || ts_fail "sync nostore: installed $(installed)"
echo "fleet_mirror_faults: ok"
