#!/usr/bin/env bash
# Debian's pip, setuptools and wheel wheels installed by torchsolve into a
# venv torchsolve created; then pip itself must read what we wrote: pip
# --version, check, list, uninstall; the entry points must run; torchsolve
# must remove a distribution pip installed; upgrades go through RECORD.
. "$(dirname "$0")/lib.sh"
WHEELS=/usr/share/python-wheels
ls $WHEELS/pip-*.whl $WHEELS/setuptools-*.whl $WHEELS/wheel-*.whl >/dev/null 2>&1 ||
  ts_skip "Debian's python3-{pip,setuptools,wheel}-whl are not installed"
command -v python3 >/dev/null || ts_skip "no python3"
ts_clear_pip_env
export PIP_CONFIG_FILE=/dev/null PIP_NO_INDEX=1 PIP_DISABLE_PIP_VERSION_CHECK=1
tmp=$(ts_tmpdir)
export TORCHSOLVE_CACHE_DIR=$tmp/cache
V=$tmp/venv

"$TORCHSOLVE" venv "$V" || ts_fail "venv creation failed"
[ -f "$V/pyvenv.cfg" ] && [ -x "$V/bin/python" ] && [ -L "$V/bin/python3" ] ||
  ts_fail "venv layout incomplete"
[ -f "$V/bin/activate" ] && [ -f "$V/bin/activate.fish" ] && [ -f "$V/bin/activate.csh" ] ||
  ts_fail "activate scripts missing"
# activate works in bash and deactivate restores PATH
out=$(bash -c ". '$V/bin/activate'; echo \"\$VIRTUAL_ENV|\$(command -v python)\"; deactivate; echo \"\$PATH\"")
grep -q "^$V|$V/bin/python$" <<<"$out" || ts_fail "activate: $out"
"$V/bin/python" -c 'import sys; assert sys.prefix != sys.base_prefix' || ts_fail "not a venv"
"$V/bin/python" -m pip --version 2>/dev/null && ts_fail "a fresh venv must have no pip"

"$TORCHSOLVE" wheel install --python "$V" $WHEELS/pip-*.whl $WHEELS/setuptools-*.whl \
  $WHEELS/wheel-*.whl || ts_fail "install failed"
"$V/bin/python" -m pip --version || ts_fail "pip --version"
"$V/bin/python" -m pip check || ts_fail "pip check"
list=$("$V/bin/python" -m pip list --format=freeze) || ts_fail "pip list"
for n in pip setuptools wheel; do grep -q "^$n==" <<<"$list" || ts_fail "pip list lacks $n: $list"; done
"$V/bin/pip" --version | grep -q "from $V/" || ts_fail "bin/pip launcher"
"$V/bin/wheel" version | grep -q '^wheel ' || ts_fail "bin/wheel launcher"
head -1 "$V/bin/pip" | grep -qx "#!$V/bin/python" || ts_fail "launcher shebang: $(head -1 "$V/bin/pip")"
di=$(echo "$V"/lib/python3*/site-packages/pip-*.dist-info)
[ "$(cat "$di/INSTALLER")" = torchsolve ] || ts_fail "INSTALLER"
[ -f "$di/REQUESTED" ] || ts_fail "REQUESTED"
grep -q '"url": "file:///usr/share/python-wheels/pip-' "$di/direct_url.json" || ts_fail "direct_url.json"
"$V/bin/python" - "$di" <<'PY' || ts_fail "RECORD does not match the installed files"
import base64, csv, hashlib, os, sys
di = sys.argv[1]; site = os.path.dirname(di); n = 0
for path, h, size in csv.reader(open(os.path.join(di, "RECORD"))):
    full = os.path.normpath(os.path.join(site, path))
    assert os.path.exists(full), full
    if h:
        algo, val = h.split("=", 1)
        data = open(full, "rb").read()
        assert base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode() == val, full
        assert int(size) == len(data), full
        n += 1
assert n > 400, n
PY
# pip reads our RECORD to uninstall
"$V/bin/python" -m pip uninstall -y setuptools || ts_fail "pip uninstall setuptools"
[ ! -e "$V"/lib/python3*/site-packages/setuptools ] || ts_fail "setuptools left behind"
[ ! -e "$V"/lib/python3*/site-packages/pkg_resources ] || ts_fail "pkg_resources left behind"
"$V/bin/python" -m pip check || ts_fail "pip check after uninstall"
# we read pip's RECORD: pip installs setuptools, torchsolve removes it
"$V/bin/python" -m pip install --no-deps --no-index -q $WHEELS/setuptools-*.whl || ts_fail "pip install"
"$TORCHSOLVE" wheel uninstall --python "$V" SetupTools || ts_fail "torchsolve uninstall of a pip install"
[ -z "$(ls -d "$V"/lib/python3*/site-packages/setuptools* "$V"/lib/python3*/site-packages/_distutils_hack 2>/dev/null)" ] ||
  ts_fail "files of pip-installed setuptools left"
grep -q "^setuptools==" <<<"$("$V/bin/python" -m pip list --format=freeze)" && ts_fail "setuptools still listed"
# torchsolve removes its own install: wheel and its launcher
"$TORCHSOLVE" wheel uninstall --python "$V" wheel || ts_fail "uninstall wheel"
[ ! -e "$V/bin/wheel" ] || ts_fail "bin/wheel left"
"$TORCHSOLVE" wheel uninstall --python "$V" wheel 2>/dev/null && ts_fail "uninstalling a missing dist must fail"
# reinstall over an existing install (same version) keeps a consistent RECORD
"$TORCHSOLVE" wheel install --python "$V" $WHEELS/pip-*.whl || ts_fail "reinstall"
"$V/bin/python" -m pip --version >/dev/null || ts_fail "pip after reinstall"
# venv --seed installs pip with our installer
"$TORCHSOLVE" venv --seed "$tmp/seeded" || ts_fail "venv --seed"
"$tmp/seeded/bin/python" -m pip --version || ts_fail "seeded pip"
"$tmp/seeded/bin/pip" --version >/dev/null || ts_fail "seeded bin/pip"
# venv refuses a non-empty directory
"$TORCHSOLVE" venv "$V" 2>/dev/null && ts_fail "venv over a non-empty dir must fail"
echo "ok"
