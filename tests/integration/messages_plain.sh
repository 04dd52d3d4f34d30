#!/usr/bin/env bash
# What a user reads: the solver's fact names never ("NVIDIA driver", "ROCm
# kernel driver", "GPU target gfx1100", not __cuda_driver, __rocm_kmd,
# __gfx1100); a long refusal keeps its reason; a git URL git cannot clone
# shows git's "fatal:" line and is not called a build failure; a corrupt
# sdist is not called a wheel; --timeout says what it bounds; a no-op
# install into a read-only venv succeeds (nothing to write).
. "$(dirname "$0")/lib.sh"
T=${TORCHSOLVE:?}
command -v python3 >/dev/null || ts_skip "no python3"
work=$(ts_tmpdir)
ts_isolate_from_host
export TORCHSOLVE_CACHE_DIR=$work/cache
cp=$(python3 -c 'import sys; print("cp%d%d" % sys.version_info[:2])')
{
  echo "simple solo 1.0 py3-none-any"
  for v in 2.10.0+cpu:cpu 2.10.0+cu126:cu126 2.10.0+rocm7.1:rocm7.1; do
    echo "whl/${v#*:} torch ${v%:*} $cp-$cp-manylinux_2_28_x86_64"
  done
} | python3 "$TS_SOURCE_DIR/tests/integration/install_mkindex.py" "$work/www"
ts_make_venv "$work/v"
I=(--python "$work/v" -i "file://$work/www/simple" --torch-index-url "file://$work/www/whl")

plain() { # WHAT WANT...: $work/err names each WANT and no solver fact name
  local what=$1 w; shift
  ! grep -q '__[a-z]' "$work/err" || ts_fail "$what: a solver fact name: $(cat "$work/err")"
  for w in "$@"; do
    grep -qF -- "$w" "$work/err" || ts_fail "$what: no '$w': $(cat "$work/err")"
  done
}
"$T" install --dry-run "${I[@]}" --cuda-driver 450.80.02 'torch==2.10.0+cu126' 2>"$work/err" &&
  ts_fail "cu126 on driver 450 planned"
plain "old driver" "needs NVIDIA driver >=" "this host has NVIDIA driver 450.80.02"
"$T" install --dry-run "${I[@]}" --rocm 6.4 --gfx gfx1100 'torch==2.10.0+cu126' 2>"$work/err" &&
  ts_fail "cu126 on an AMD host planned"
plain "no driver" "this host has no NVIDIA driver"
"$T" install --dry-run "${I[@]}" --rocm 6.2 --gfx gfx1100 'torch==2.10.0+rocm7.1' 2>"$work/err" &&
  ts_fail "rocm7.1 on ROCm 6.2 planned"
plain "kernel driver" "needs ROCm kernel driver " "this host has ROCm kernel driver 6.2"
"$T" install --dry-run "${I[@]}" --rocm 7.1 --gfx gfx803 'torch==2.10.0+rocm7.1' 2>"$work/err" &&
  ts_fail "rocm7.1 on gfx803 planned"
plain "gfx" "has no kernels for this host's GPU" "this host's GPU is gfx803"

# A refusal longer than the error line keeps its end: here the way out of
# PEP 668 after a long interpreter path and a long Error= text.
ts_managed_python "$work/sys"
deep=$work/$(printf 'interpreter-directory-%03d/' $(seq 1 14))
mkdir -p "$deep"
ln -s "$TS_MANAGED_PY" "$deep/python3" # the interpreter as a long path names it
printf '[externally-managed]\nError=%s\n' "$(printf 'This Python belongs to the test distribution. %.0s' $(seq 1 9))" \
  >"$TS_MANAGED_MARKER"
"$T" install --python "$deep/python3" -i "file://$work/www/simple" solo 2>"$work/err" &&
  ts_fail "the managed interpreter was installed into"
[ "$(wc -c <"$work/err")" -gt 1000 ] || ts_fail "the refusal is not long: $(cat "$work/err")"
grep -q '^error: .*or pass --break-system-packages$' "$work/err" ||
  ts_fail "a long refusal lost its way out: $(cat "$work/err")"

# git: git's own fatal line, not a build failure, no build log.
rc=0; "$T" install --python "$work/v" "solo @ git+file://$work/no-such-repo@v1" \
  2>"$work/err" || rc=$?
[ $rc = 1 ] || ts_fail "git clone of nothing: exit $rc: $(cat "$work/err")"
grep -q "^error: git clone file://$work/no-such-repo failed (git exit 128): fatal: .*does not appear to be a git repository" \
  "$work/err" || ts_fail "not git's fatal line: $(cat "$work/err")"
! grep -q 'build' "$work/err" || ts_fail "a failed clone called a build failure: $(cat "$work/err")"

# A corrupt sdist is an sdist, not "the wheel".
head -c 2000 /dev/urandom >"$work/broken-1.0.tar.gz"
rc=0; "$T" install --python "$work/v" "$work/broken-1.0.tar.gz" 2>"$work/err" || rc=$?
[ $rc = 1 ] || ts_fail "corrupt sdist: exit $rc: $(cat "$work/err")"
grep -q "cannot unpack the sdist '$work/broken-1.0.tar.gz'" "$work/err" ||
  ts_fail "corrupt sdist: $(cat "$work/err")"
! grep -qi 'wheel' "$work/err" || ts_fail "a corrupt sdist called a wheel: $(cat "$work/err")"

# --timeout bounds one attempt (as pip's); the error says so when retries
# made the wait longer.  A server that accepts and never answers:
port_file=$work/port
python3 - "$port_file" >/dev/null 2>&1 <<'PY' &
import socket, sys, time
s = socket.socket(); s.bind(("127.0.0.1", 0)); s.listen(16)
open(sys.argv[1], "w").write(str(s.getsockname()[1]))
held = []
while True:
    c, _ = s.accept(); held.append(c)
PY
ts_on_exit "kill $!"
for _ in $(seq 50); do [ -s "$port_file" ] && break; sleep 0.1; done
start=$(date +%s)
rc=0; "$T" install --dry-run --python "$work/v" -i "http://127.0.0.1:$(cat "$port_file")/simple" \
  --timeout 1 --retries 1 solo 2>"$work/err" || rc=$?
took=$(($(date +%s) - start))
[ $rc = 3 ] || ts_fail "stalled server: exit $rc: $(cat "$work/err")"
grep -q "on each of 2 attempts: --timeout bounds one attempt, --retries how many" "$work/err" ||
  ts_fail "--timeout does not say what it bounds: $(cat "$work/err")"
[ "$took" -lt 10 ] || ts_fail "--timeout 1 --retries 1 took ${took}s"
# (the help captured first: grep -q leaving early must not SIGPIPE a slow binary)
help=$("$T" install --help)
grep -q -- "--timeout S              seconds one attempt may wait" <<<"$help" ||
  ts_fail "--help does not say what --timeout bounds"

# Nothing to do in a read-only venv: success, nothing written.  A read-only
# bind mount (skipped where mounting is not allowed).
"$T" install -q "${I[@]}" solo || ts_fail "install solo"
if mount --bind "$work/v" "$work/v" 2>/dev/null; then
  ts_on_exit "umount -l '$work/v'"
  mount -o remount,ro,bind "$work/v" || ts_fail "remount read-only"
  "$T" install "${I[@]}" solo >"$work/out" 2>"$work/err" ||
    ts_fail "a no-op install into a read-only venv failed: $(cat "$work/err")"
  grep -q 'Nothing to install' "$work/err" || ts_fail "read-only no-op: $(cat "$work/err")"
  "$T" install "${I[@]}" --force-reinstall solo >"$work/out" 2>"$work/err" &&
    ts_fail "a change to a read-only venv succeeded"
  grep -q 'Read-only file system' "$work/err" || ts_fail "read-only change: $(cat "$work/err")"
fi
echo "ok: plain messages"
