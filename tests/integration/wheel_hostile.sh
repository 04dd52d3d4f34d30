#!/usr/bin/env bash
# Every hostile wheel is refused with a clear error and leaves the venv
# exactly as it was (not even the lock file is created), and nothing lands
# outside it.  The same wheels are refused with --no-cache.
. "$(dirname "$0")/lib.sh"
command -v python3 >/dev/null || ts_skip "no python3"
tmp=$(ts_tmpdir)
export TORCHSOLVE_CACHE_DIR=$tmp/cache
python3 "$TS_SOURCE_DIR/tests/support/make_wheels.py" "$tmp/fx"
V=$tmp/venv
"$TORCHSOLVE" venv "$V" -q || ts_fail "venv"
"$TORCHSOLVE" wheel install --python "$V" -q "$tmp/fx/feat-1.0-py3-none-any.whl" || ts_fail "good wheel"
snapshot() { (cd "$V" && find . -printf '%p %y %s %m %l\n' | sort && find . -type f -exec sha256sum {} + | sort); }
before=$(snapshot)
declare -A expect=(
  [absolute]="absolute path" [backslash]="backslash" [badcrc]="CRC-32"
  [bomb_ratio]="zip bomb" [distinfo_mismatch]="does not match its file name"
  [dotdot]="'..' component" [dotdot_mid]="'..' component" [duplicate]="two entries named"
  [entry_point_slash]="not a safe file name" [file_and_dir]="both a file and a directory"
  [not_in_record]="not listed in RECORD" [record_hash]="RECORD hash"
  [record_missing_file]="which is not in the wheel" [record_no_hash]="no hash"
  [record_size]="RECORD size" [symlink_abs]="absolute or empty path"
  [symlink_dir_write]="both a file and a directory" [symlink_escape]="escapes the target"
  [truncated]="not a zip archive"
  [script_python]="would replace the environment's own" [entry_point_python]="would replace the environment's own"
  [data_python]="would replace the environment's own" [data_pyvenv]="would replace the environment's own"
  [script_activate]="would replace the environment's own"
)
n=0
for w in "$tmp"/fx/hostile_*.whl; do
  case=$(basename "$w" | sed 's/^hostile_//; s/-1\.0-.*//')
  [ -n "${expect[$case]:-}" ] || ts_fail "no expectation for $case"
  for flags in "" "--no-cache"; do
    set +e
    out=$("$TORCHSOLVE" wheel install --python "$V" $flags "$w" 2>&1)
    rc=$?
    set -e
    [ $rc -ne 0 ] || ts_fail "$case was installed"
    [ $rc -ne 70 ] || ts_fail "$case: internal error: $out"
    grep -qF -- "${expect[$case]}" <<<"$out" || ts_fail "$case: unexpected message: $out"
    [ "$(snapshot)" = "$before" ] || ts_fail "$case changed the venv"
  done
  n=$((n + 1))
done
[ $n -ge 24 ] || ts_fail "only $n hostile cases ran"
"$V/bin/python" -c "pass" || ts_fail "the venv's interpreter was replaced"
[ ! -e /tmp/torchsolve-escaped.py ] && [ ! -e "$tmp/escaped.py" ] && [ ! -e "$tmp/fx/escaped.py" ] ||
  ts_fail "a file escaped"
# nothing half-unpacked is left in the cache
[ -z "$(ls -A "$TORCHSOLVE_CACHE_DIR/wheels-v1" | grep '^\.tmp' || true)" ] || ts_fail "cache temp dirs left"
[ "$(ls "$TORCHSOLVE_CACHE_DIR/wheels-v1" | grep -cE "^[0-9a-f]{64}$")" = 1 ] || ts_fail "hostile wheels entered the cache"
[ "$(ls "$TORCHSOLVE_CACHE_DIR/wheels-v1/by-stat" | wc -l)" = 1 ] || ts_fail "hostile wheels entered the stat index"
echo "ok: $n hostile wheels refused"
