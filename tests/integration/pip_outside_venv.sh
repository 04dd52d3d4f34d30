#!/usr/bin/env bash
# 'torchsolve pip' outside a venv acts as pip does (alias pip='torchsolve
# pip' in a FROM python:3.12 image or a setup-python job): the target is
# the python on PATH; an interpreter its distribution manages (PEP 668) is
# refused unless --break-system-packages, --user included; --user installs
# into that interpreter's user site ($PYTHONUSERBASE, else ~/.local) and
# counts only what is there; --user in a venv is pip's refusal.  The
# "system" interpreter is made here (ts_managed_python) and HOME points
# into the test's folder: nothing outside it is touched.
. "$(dirname "$0")/lib.sh"
T=${TORCHSOLVE:?}
work=$(ts_tmpdir)
command -v python3 >/dev/null || ts_skip "no python3"
ts_index_from_spec <<'SPEC'
simple solo 1.0 py3-none-any
simple other 2.0 py3-none-any
SPEC
ts_clear_pip_env
ts_isolate_from_host
export TORCHSOLVE_CACHE_DIR=$work/cache HOME=$work/home PIP_CONFIG_FILE=/dev/null
unset PYTHONUSERBASE
mkdir -p "$HOME" "$work/cwd"
cd "$work/cwd" # no ./.venv here

sys=$work/sys
ts_managed_python "$sys"
ln -s python3 "$sys/bin/python" # the `python` of a python:3.12 image
export PATH=$sys/bin:$PATH
ver=$("$TS_MANAGED_PY" -c 'import sys; print("%d.%d" % sys.version_info[:2])')
U=$TS_NGINX_URL/simple

run() { # WANT ARGS...: torchsolve pip ARGS, exit WANT; output in $work/err
  local want=$1 rc=0; shift
  "$T" pip "$@" >"$work/out" 2>"$work/err" || rc=$?
  [ "$rc" = "$want" ] || ts_fail "pip $*: exit $rc, want $want: $(cat "$work/err")"
}

# PEP 668: the python on PATH is managed, so install and --user are refused.
for user in "" --user; do
  run 1 install $user -i "$U" solo
  grep -q "is externally managed (\"Managed by the test distribution.\")" "$work/err" ||
    ts_fail "install $user: not the PEP 668 refusal: $(cat "$work/err")"
  grep -q -- "--break-system-packages" "$work/err" || ts_fail "install $user: no way out named"
done
[ -z "$(ls -A "$TS_MANAGED_SITE")" ] || ts_fail "a refused install wrote into the interpreter"
[ ! -e "$HOME/.local" ] || ts_fail "a refused --user install made ~/.local"

# The way out: into the interpreter's own site-packages, then freeze and
# uninstall with no venv, as pip's.
run 0 install --break-system-packages -i "$U" solo
[ -d "$TS_MANAGED_SITE/solo-1.0.dist-info" ] || ts_fail "not installed into the python on PATH"
run 0 freeze
grep -qx 'solo==1.0' "$work/out" || ts_fail "freeze outside a venv: $(cat "$work/out")"
run 1 uninstall -y solo
grep -q 'externally managed' "$work/err" || ts_fail "uninstall not refused: $(cat "$work/err")"
run 0 uninstall -y --break-system-packages solo
[ ! -e "$TS_MANAGED_SITE/solo-1.0.dist-info" ] || ts_fail "uninstall left solo"

# --user: ~/.local of this HOME, then $PYTHONUSERBASE.
run 0 install --user --break-system-packages -i "$U" solo
[ -d "$HOME/.local/lib/python$ver/site-packages/solo-1.0.dist-info" ] ||
  ts_fail "--user did not install into ~/.local: $(find "$HOME" | head)"
[ ! -e "$TS_MANAGED_SITE/solo-1.0.dist-info" ] || ts_fail "--user wrote into the interpreter"
export PYTHONUSERBASE=$work/userbase
run 0 install --user --break-system-packages -i "$U" other
[ -d "$PYTHONUSERBASE/lib/python$ver/site-packages/other-2.0.dist-info" ] ||
  ts_fail "--user ignored PYTHONUSERBASE"

# An interpreter nobody manages needs no flag; a second --user install
# finds what the user site has.
rm "$TS_MANAGED_MARKER"
run 0 install --user -i "$U" solo
[ -d "$PYTHONUSERBASE/lib/python$ver/site-packages/solo-1.0.dist-info" ] ||
  ts_fail "--user into an unmanaged interpreter"
run 0 install --user -i "$U" solo
grep -q 'Nothing to install' "$work/err" || ts_fail "second --user install: $(cat "$work/err")"
PIP_USER=1 run 0 install -i "$U" solo
grep -q 'Nothing to install' "$work/err" || ts_fail "PIP_USER=1: $(cat "$work/err")"

# In a venv, --user is pip's refusal, and nothing is written.
ts_make_venv "$work/venv"
VIRTUAL_ENV=$work/venv run 1 install --user -i "$U" other
grep -q "Can not perform a '--user' install. User site-packages are not visible in this virtualenv" \
  "$work/err" || ts_fail "--user in a venv: $(cat "$work/err")"
run 2 install --user --target "$work/t" -i "$U" other
grep -q "Can not combine '--user' and '--target'" "$work/err" || ts_fail "--user --target: $(cat "$work/err")"
echo "ok: pip outside a venv"
