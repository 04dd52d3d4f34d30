#!/usr/bin/env bash
# PEP 668: an interpreter outside a venv whose stdlib holds
# EXTERNALLY-MANAGED (Debian's /usr/bin/python3) is refused by install,
# sync and wheel install with one line naming the file and the ways out,
# exit 1 and nothing written; --break-system-packages installs anyway;
# a dry run and a venv are unaffected.  The "system" interpreter is made
# here: a copy of python3's binary in a temporary prefix whose
# lib/pythonX.Y links the real stdlib, so nothing outside it is touched.
. "$(dirname "$0")/lib.sh"
T=${TORCHSOLVE:?}
work=$(ts_tmpdir)
command -v python3 >/dev/null || ts_skip "no python3"
python3 "$TS_SOURCE_DIR/tests/integration/install_mkindex.py" "$work/www" <<'SPEC'
simple solo 1.0 py3-none-any
SPEC
ts_nginx_start "$work/www"
export TORCHSOLVE_CACHE_DIR=$work/cache
unset TORCHSOLVE_INDEX_URL TORCHSOLVE_PYTHON VIRTUAL_ENV

read -r exe std ver < <(python3 -I -c 'import os, sys, sysconfig
print(os.path.realpath(sys.executable), sysconfig.get_path("stdlib"), "%d.%d" % sys.version_info[:2])')
sys=$work/sys
mkdir -p "$sys/bin" "$sys/lib/python$ver/site-packages"
cp "$exe" "$sys/bin/python3"
for e in "$std"/*; do
  case ${e##*/} in site-packages|dist-packages|EXTERNALLY-MANAGED) continue ;; esac
  ln -s "$e" "$sys/lib/python$ver/"
done
printf '[externally-managed]\nError=Managed by the test distribution.\n more lines\n' \
  >"$sys/lib/python$ver/EXTERNALLY-MANAGED"
PY=$sys/bin/python3
site=$("$PY" -I -c 'import sys, sysconfig
print(sysconfig.get_paths()["purelib"] if sys.prefix == sys.base_prefix == sys.argv[1] else "")' "$sys" 2>/dev/null) || true
case $site in "$sys"/*) ;; *) ts_skip "cannot build a stand-alone interpreter from $exe (purelib '$site')" ;; esac
mkdir -p "$site"
snapshot() { (cd "$sys" && find . -printf '%p %y %s\n' | sort); } # links not followed
before=$(snapshot)

refused() { # WHAT ARGS...
  local what=$1 rc=0; shift
  "$T" "$@" >"$work/out" 2>"$work/err" || rc=$?
  [ $rc = 1 ] || ts_fail "$what: exit $rc, want 1: $(cat "$work/err")"
  grep -q "is externally managed (\"Managed by the test distribution.\") (PEP 668, $sys/lib/python$ver/EXTERNALLY-MANAGED)" "$work/err" ||
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
