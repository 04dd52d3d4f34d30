#!/usr/bin/env bash
# PEP 668: an interpreter outside a venv whose stdlib holds
# EXTERNALLY-MANAGED (Debian's /usr/bin/python3) is refused by install,
# sync and wheel install with one line naming the file and the ways out,
# exit 1 and nothing written; --break-system-packages installs anyway;
# a dry run and a venv are unaffected.  The "system" interpreter is made
# here (ts_managed_python), so nothing outside it is touched.
. "$(dirname "$0")/lib.sh"
T=${TORCHSOLVE:?}
work=$(ts_tmpdir)
command -v python3 >/dev/null || ts_skip "no python3"
ts_index_from_spec <<'SPEC'
simple solo 1.0 py3-none-any
SPEC
export TORCHSOLVE_CACHE_DIR=$work/cache
unset TORCHSOLVE_INDEX_URL TORCHSOLVE_PYTHON VIRTUAL_ENV

sys=$work/sys
ts_managed_python "$sys"
PY=$TS_MANAGED_PY site=$TS_MANAGED_SITE
snapshot() { (cd "$sys" && find . -printf '%p %y %s\n' | sort); } # links not followed
before=$(snapshot)

refused() { # WHAT ARGS...
  local what=$1 rc=0; shift
  "$T" "$@" >"$work/out" 2>"$work/err" || rc=$?
  [ $rc = 1 ] || ts_fail "$what: exit $rc, want 1: $(cat "$work/err")"
  grep -q "is externally managed (\"Managed by the test distribution.\") (PEP 668, $TS_MANAGED_MARKER)" "$work/err" ||
    ts_fail "$what: message: $(cat "$work/err")"
  grep -q -- "--break-system-packages" "$work/err" || ts_fail "$what: no way out named"
  [ "$(grep -c '^error' "$work/err")" = 1 ] || ts_fail "$what: not one error line"
  [ "$(snapshot)" = "$before" ] || ts_fail "$what: the interpreter's prefix changed"
  [ -z "$(ls -A "$site")" ] || ts_fail "$what: something was installed"
}
U=$TS_NGINX_URL/simple
refused install install --python "$PY" -i "$U" solo
refused "wheel install" wheel install --python "$PY" "$work/www/simple/solo-1.0-py3-none-any.whl"
"$T" lock --python "$PY" -i "$U" solo -o "$work/pylock.toml" -q || ts_fail "lock for the managed interpreter"
refused sync sync "$work/pylock.toml" --python "$PY"

# A dry run changes nothing: allowed.
"$T" install --python "$PY" -i "$U" --dry-run solo >"$work/out" 2>"$work/err" ||
  ts_fail "dry run refused: $(cat "$work/err")"
grep -q '^install solo 1.0' "$work/out" || ts_fail "dry run plan: $(cat "$work/out")"

# The way out, as pip's flag.
"$T" install --python "$PY" -i "$U" --break-system-packages solo 2>"$work/err" ||
  ts_fail "--break-system-packages: $(cat "$work/err")"
[ -d "$site/solo-1.0.dist-info" ] || ts_fail "--break-system-packages did not install"
"$T" wheel uninstall --python "$PY" --break-system-packages solo -q || ts_fail "wheel uninstall --break-system-packages"
echo "ok: externally managed interpreters refused"
