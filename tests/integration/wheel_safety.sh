#!/usr/bin/env bash
# `wheel install` refuses what `install` refuses: a wheel built for another
# interpreter or platform (its file-name tags match none of the target's),
# exit 1 with pip's words, the venv untouched.
. "$(dirname "$0")/lib.sh"
T=${TORCHSOLVE:?}
command -v python3 >/dev/null || ts_skip "no python3"
work=$(ts_tmpdir)
export TORCHSOLVE_CACHE_DIR=$work/cache
python3 "$TS_SOURCE_DIR/tests/integration/install_mkindex.py" "$work/www" <<'SPEC'
simple winonly 1.0 cp39-cp39-win_amd64
simple oldpy 1.0 py2-none-any
simple fine 1.0 py3-none-any
SPEC
W=$work/www/simple
V=$work/venv
"$T" venv -q "$V"
state() { (cd "$V" && find . ! -name .torchsolve.lock -printf '%p %s\n' | sort | md5sum); }
before=$(state)

# --- tags -------------------------------------------------------------------
for whl in winonly-1.0-cp39-cp39-win_amd64.whl oldpy-1.0-py2-none-any.whl; do
  rc=0
  "$T" wheel install --python "$V" "$W/fine-1.0-py3-none-any.whl" "$W/$whl" 2>"$work/err" || rc=$?
  [ $rc = 1 ] || { cat "$work/err"; ts_fail "$whl: exit $rc, want 1"; }
  grep -q "$whl: not a supported wheel on this platform: its tags" "$work/err" ||
    { cat "$work/err"; ts_fail "$whl: no tag refusal"; }
  [ "$(state)" = "$before" ] || ts_fail "$whl: the venv changed"
done
"$T" wheel install -q --python "$V" "$W/fine-1.0-py3-none-any.whl" || ts_fail "a py3 wheel was refused"
echo ok
