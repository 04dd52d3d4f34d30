#!/usr/bin/env bash
# `wheel install` refuses what `install` refuses: a wheel built for another
# interpreter or platform (its file-name tags match none of the target's),
# exit 1 with pip's words, the venv untouched.
# Two distributions that install one path: refused by default (exit 1,
# both named with the path, the venv untouched) by wheel install, install
# and in one transaction; identical content is no conflict; --allow-overwrite
# lets the new one win; removing one never deletes a file the other lists.
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

# --- two distributions, one file --------------------------------------------
python3 - "$work/fx" "$TS_SOURCE_DIR/tests/support" <<'PY'
import os, sys
sys.path.insert(0, sys.argv[2])
from make_wheels import build
out = sys.argv[1]
os.makedirs(out)
for name, content in (("ownera", b"A\n"), ("ownerb", b"B\n"), ("ownerc", b"A\n")):
    build(f"{out}/{name}-1.0-py3-none-any.whl", name, "1.0",
          [("shared/data.txt", content), (f"{name}/__init__.py", b"")])
PY
X=$work/fx
SHARED=$(echo "$V"/lib/python3*/site-packages)/shared/data.txt
"$T" wheel install -q --python "$V" "$X/ownera-1.0-py3-none-any.whl" || ts_fail "ownera"
before=$(state)
refused() { # WHAT CMD...
  local what=$1 rc=0; shift
  "$@" 2>"$work/err" || rc=$?
  [ $rc = 1 ] || { cat "$work/err"; ts_fail "$what: exit $rc, want 1"; }
  grep -q "ownerb 1.0 and ownera 1.0 both install '$SHARED': refusing to overwrite ownera 1.0's file" "$work/err" ||
    { cat "$work/err"; ts_fail "$what: the conflict is not named"; }
  grep -q -- "--allow-overwrite" "$work/err" || ts_fail "$what: no way out named"
  [ "$(state)" = "$before" ] || ts_fail "$what: the venv changed"
}
refused "wheel install" "$T" wheel install --python "$V" "$X/ownerb-1.0-py3-none-any.whl"
refused "install" "$T" install --python "$V" --no-index "$X/ownerb-1.0-py3-none-any.whl"
V2=$work/venv2
"$T" venv -q "$V2"
rc=0; "$T" wheel install --python "$V2" "$X/ownera-1.0-py3-none-any.whl" "$X/ownerb-1.0-py3-none-any.whl" 2>"$work/err" || rc=$?
[ $rc = 1 ] && grep -q "both install" "$work/err" || { cat "$work/err"; ts_fail "one transaction, two owners: exit $rc"; }

# identical content: no conflict; the file stays while one owner is left
"$T" wheel install -q --python "$V" "$X/ownerc-1.0-py3-none-any.whl" || ts_fail "identical content refused"
"$T" wheel uninstall -q --python "$V" ownera || ts_fail "uninstall ownera"
[ "$(cat "$SHARED")" = A ] || ts_fail "uninstalling ownera deleted ownerc's file"
"$T" wheel uninstall -q --python "$V" ownerc || ts_fail "uninstall ownerc"
[ -e "$SHARED" ] && ts_fail "the last owner's uninstall left the file"

# --allow-overwrite: the new one wins; the file stays until both are gone
"$T" wheel install -q --python "$V" "$X/ownera-1.0-py3-none-any.whl"
"$T" wheel install -q --python "$V" --allow-overwrite "$X/ownerb-1.0-py3-none-any.whl" ||
  ts_fail "--allow-overwrite refused"
[ "$(cat "$SHARED")" = B ] || ts_fail "--allow-overwrite: the new file did not win"
"$T" wheel uninstall -q --python "$V" ownerb
[ -e "$SHARED" ] || ts_fail "uninstalling ownerb deleted the file ownera lists"
echo ok
