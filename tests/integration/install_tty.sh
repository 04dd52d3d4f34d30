#!/usr/bin/env bash
# Progress bars: drawn on a terminal (a pty here), never when stderr is a
# pipe or with -q.
. "$(dirname "$0")/lib.sh"
T=${TORCHSOLVE:?}
ts_index_from_spec <<'SPEC'
simple alpha 1.0 py3-none-any beta
simple beta 1.0 py3-none-any
SPEC
export TORCHSOLVE_CACHE_DIR=$work/cache
ts_make_venv "$work/tty"
ts_make_venv "$work/pipe"
# Runs argv under a pty; everything the terminal shows goes to stdout.
under_pty() {
  python3 - "$@" <<'PY'
import os, pty, sys
pid, fd = pty.fork()
if pid == 0:
    os.execvp(sys.argv[1], sys.argv[1:])
out = bytearray()
while True:
    try:
        data = os.read(fd, 65536)
    except OSError:
        break
    if not data:
        break
    out.extend(data)
_, status = os.waitpid(pid, 0)
sys.stdout.buffer.write(bytes(out))
sys.exit(os.waitstatus_to_exitcode(status))
PY
}
under_pty "$T" install --python "$work/tty" -i "$TS_NGINX_URL/simple" alpha >"$work/tty.out" ||
  { cat "$work/tty.out"; ts_fail "install under a pty failed"; }
cat -v "$work/tty.out"
grep -q 'Downloading 2 files' "$work/tty.out" || ts_fail "no progress total line on a tty"
grep -q '\[##############################\]' "$work/tty.out" || ts_fail "no full bar on a tty"
grep -q "$(printf '\r')" "$work/tty.out" || ts_fail "bars not redrawn with CR"
grep -q 'Installed 2 packages' "$work/tty.out" || ts_fail "no summary on a tty"

"$T" install --python "$work/pipe" -i "$TS_NGINX_URL/simple" alpha >"$work/pipe.out" 2>&1 ||
  { cat "$work/pipe.out"; ts_fail "piped install failed"; }
cat "$work/pipe.out"
grep -q 'Installed 2 packages' "$work/pipe.out" || ts_fail "no summary when piped"
if grep -q -e 'Downloading' -e '\[#' -e "$(printf '\033')" "$work/pipe.out"; then
  ts_fail "progress output when piped"
fi
ts_make_venv "$work/quiet"
under_pty "$T" -q install --python "$work/quiet" -i "$TS_NGINX_URL/simple" alpha >"$work/q.out" ||
  ts_fail "quiet install failed"
grep -q 'Downloading' "$work/q.out" && ts_fail "progress with -q"
echo "install_tty: ok"
