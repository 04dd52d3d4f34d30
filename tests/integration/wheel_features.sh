#!/usr/bin/env bash
# Fixture wheels for each wheel-spec feature: .data/ schemes, #!python
# rewriting, console/gui launchers, Root-Is-Purelib false, symlinks inside
# the tree, upgrades through RECORD, shared namespace files, link modes,
# --no-cache, --compile, the cache reused on a second install, the lock.
. "$(dirname "$0")/lib.sh"
command -v python3 >/dev/null || ts_skip "no python3"
ts_clear_pip_env
tmp=$(ts_tmpdir)
export TORCHSOLVE_CACHE_DIR=$tmp/cache
python3 "$TS_SOURCE_DIR/tests/support/make_wheels.py" "$tmp/fx"
FX=$tmp/fx V=$tmp/venv
"$TORCHSOLVE" venv "$V" -q || ts_fail "venv"
# an existing venv is kept unless --clear; a non-venv directory never goes
touch "$V/lib/marker"
rc=0; "$TORCHSOLVE" venv "$V" -q 2>"$tmp/err" || rc=$?
[ $rc = 2 ] && grep -q 'already a virtual environment.*--clear' "$tmp/err" || ts_fail "venv over a venv: exit $rc"
[ -e "$V/lib/marker" ] || ts_fail "venv without --clear touched the existing one"
"$TORCHSOLVE" venv "$V" -q --clear || ts_fail "venv --clear"
[ ! -e "$V/lib/marker" ] && [ -x "$V/bin/python" ] || ts_fail "venv --clear did not replace it"
mkdir -p "$tmp/mine" && touch "$tmp/mine/keep"
rc=0; "$TORCHSOLVE" venv "$tmp/mine" -q --clear 2>/dev/null || rc=$?
[ $rc = 2 ] && [ -e "$tmp/mine/keep" ] || ts_fail "venv --clear on a non-venv directory: exit $rc"
SITE=$(echo "$V"/lib/python3*/site-packages)
PYV=$(basename "$(dirname "$SITE")")

"$TORCHSOLVE" wheel install --python "$V" "$FX/feat-1.0-py3-none-any.whl" || ts_fail "install feat 1.0"
[ -f "$SITE/feat/old_only.py" ] || ts_fail "package files"
[ "$(readlink "$SITE/feat/link.py")" = sub/mod.py ] || ts_fail "internal symlink"
[ -f "$SITE/feat_extra.py" ] && [ -f "$SITE/feat_plat.py" ] || ts_fail ".data/purelib, platlib"
[ -f "$V/include/site/$PYV/feat/feat.h" ] || ts_fail ".data/headers"
[ -f "$V/share/feat/data.txt" ] || ts_fail ".data/data"
[ -x "$SITE/feat/tool.sh" ] || ts_fail "executable bit kept"
head -1 "$V/bin/feat-script" | grep -qx "#!$V/bin/python" || ts_fail "#!python rewrite"
[ -x "$V/bin/feat-script" ] && [ -x "$V/bin/plain-script" ] || ts_fail "scripts executable"
[ "$("$V/bin/feat-script")" = "script 1.0" ] || ts_fail "rewritten script runs"
[ "$("$V/bin/plain-script")" = plain ] || ts_fail "plain script"
[ "$("$V/bin/feat" a b)" = "feat main ['a', 'b']" ] || ts_fail "console_scripts launcher"
[ "$("$V/bin/feat-sub")" = "method ok" ] || ts_fail "launcher for obj.method"
[ -x "$V/bin/feat-gui" ] || ts_fail "gui_scripts launcher"
[ ! -e "$V/bin/x" ] || ts_fail "non-script entry point groups must not make launchers"
grep -q '^../../../bin/feat,sha256=' "$SITE/feat-1.0.dist-info/RECORD" || ts_fail "launcher in RECORD"
grep -q "^../../../include/site/$PYV/feat/feat.h,sha256=" "$SITE/feat-1.0.dist-info/RECORD" || ts_fail "header in RECORD"
grep -q '^feat-1.0.dist-info/RECORD,,$' "$SITE/feat-1.0.dist-info/RECORD" || ts_fail "RECORD row for RECORD"
ls "$TORCHSOLVE_CACHE_DIR"/wheels-v1/ | grep -qE '^[0-9a-f]{64}$' || ts_fail "cache entry"

# Upgrade: 1.0's own files go, 2.0's arrive; launchers stay.
out=$("$TORCHSOLVE" wheel install --python "$V" "$FX/feat-2.0-py3-none-any.whl" 2>&1) || ts_fail "upgrade: $out"
grep -q -- '- feat==1.0' <<<"$out" && grep -q -- '+ feat==2.0' <<<"$out" || ts_fail "upgrade summary: $out"
[ ! -e "$SITE/feat/old_only.py" ] && [ -f "$SITE/feat/new_only.py" ] || ts_fail "upgrade files"
[ ! -e "$SITE/feat-1.0.dist-info" ] && [ -d "$SITE/feat-2.0.dist-info" ] || ts_fail "upgrade dist-info"
[ "$("$V/bin/feat-script")" = "script 2.0" ] || ts_fail "script after upgrade"
[ ! -e "$SITE/.torchsolve-txn" ] || ts_fail "transaction directory left behind"

# Root-Is-Purelib: false, a non-normalised name, namespace sharing.
"$TORCHSOLVE" wheel install --python "$V" "$FX/platty-1.0-cp311-cp311-linux_x86_64.whl" \
  "$FX/Odd.Name-1.0-py3-none-any.whl" "$FX/nsa-1.0-py3-none-any.whl" "$FX/nsb-1.0-py3-none-any.whl" ||
  ts_fail "install platty, Odd.Name, nsa, nsb"
"$V/bin/python" -c 'import platty, odd_name, ns.nsa, ns.nsb' || ts_fail "imports"
"$TORCHSOLVE" wheel uninstall --python "$V" odd-name nsa || ts_fail "uninstall by other spelling"
"$V/bin/python" -c 'import ns.nsb' || ts_fail "nsb broken by removing nsa"
[ ! -e "$SITE/ns/nsa" ] && [ ! -e "$SITE/odd_name" ] || ts_fail "uninstall left files"

# Uninstall everything: nothing remains (the lock is at the venv's root).
"$TORCHSOLVE" wheel uninstall --python "$V" feat platty nsb || ts_fail "uninstall all"
left=$(cd "$SITE" && ls -A)
[ -z "$left" ] || ts_fail "site-packages not empty: $left"
[ ! -e "$V/include/site/$PYV/feat" ] && [ ! -e "$V/share/feat" ] || ts_fail "data/headers dirs not pruned"
[ -z "$(ls "$V/bin" | grep feat || true)" ] || ts_fail "launchers left"

# A broken environment with two dist-infos of one project: both go.
"$TORCHSOLVE" wheel install -q --python "$V" "$FX/feat-1.0-py3-none-any.whl"
mkdir "$SITE/feat-0.9.dist-info"
printf 'Metadata-Version: 2.1\nName: feat\nVersion: 0.9\n' >"$SITE/feat-0.9.dist-info/METADATA"
printf 'feat/stale.py,,\nfeat-0.9.dist-info/METADATA,,\nfeat-0.9.dist-info/RECORD,,\n' >"$SITE/feat-0.9.dist-info/RECORD"
touch "$SITE/feat/stale.py"
"$TORCHSOLVE" wheel uninstall -q --python "$V" feat || ts_fail "uninstall two copies"
[ ! -e "$SITE/feat-0.9.dist-info" ] && [ ! -e "$SITE/feat-1.0.dist-info" ] && [ ! -e "$SITE/feat" ] ||
  ts_fail "second dist-info copy left: $(ls "$SITE")"

# Link modes, --no-cache, --compile; and the cache is not modified by compile.
for mode in copy clone hardlink; do
  "$TORCHSOLVE" wheel install --python "$V" --link-mode $mode "$FX/feat-1.0-py3-none-any.whl" ||
    ts_fail "link mode $mode"
  n=$(stat -c %h "$SITE/feat/cli.py")
  if [ $mode = hardlink ]; then [ "$n" -ge 2 ] || ts_fail "hardlink expected"; else [ "$n" = 1 ] || ts_fail "$mode made a hardlink"; fi
  "$TORCHSOLVE" wheel uninstall --python "$V" feat -q
done
rm -rf "$TORCHSOLVE_CACHE_DIR"
"$TORCHSOLVE" wheel install --python "$V" --no-cache --compile "$FX/feat-1.0-py3-none-any.whl" || ts_fail "--no-cache --compile"
[ -z "$(ls "$TORCHSOLVE_CACHE_DIR/wheels-v1" 2>/dev/null)" ] || ts_fail "--no-cache wrote to the cache"
ls "$SITE"/feat/__pycache__/cli.*.pyc >/dev/null || ts_fail "no bytecode"
grep -q '^feat/__pycache__/cli\..*\.pyc,sha256=' "$SITE/feat-1.0.dist-info/RECORD" || ts_fail "pyc not in RECORD"
"$TORCHSOLVE" wheel uninstall --python "$V" feat -q
[ ! -e "$SITE/feat" ] || ts_fail "pycache not removed: $(find "$SITE/feat")"
# second install is served from the cache
"$TORCHSOLVE" wheel install --python "$V" "$FX/feat-1.0-py3-none-any.whl" -q
"$TORCHSOLVE" wheel uninstall --python "$V" feat -q
"$TORCHSOLVE" wheel install --python "$V" --compile "$FX/feat-1.0-py3-none-any.whl" -q || ts_fail "compile from cache"
[ -z "$(find "$TORCHSOLVE_CACHE_DIR" -name __pycache__)" ] || ts_fail "compile wrote into the cache"

# The stat index never serves stale bytes: a wheel rewritten in place (here
# with another version's content) is read again and refused.
mkdir -p "$tmp/re" && cp "$FX/feat-1.0-py3-none-any.whl" "$tmp/re/"
"$TORCHSOLVE" wheel install -q --python "$V" "$tmp/re/feat-1.0-py3-none-any.whl" || ts_fail "install copy"
cp "$FX/feat-2.0-py3-none-any.whl" "$tmp/re/feat-1.0-py3-none-any.whl"
out=$("$TORCHSOLVE" wheel install --python "$V" "$tmp/re/feat-1.0-py3-none-any.whl" 2>&1) &&
  ts_fail "rewritten wheel served from the cache"
grep -q "does not match its file name" <<<"$out" || ts_fail "rewritten wheel: $out"

# $VIRTUAL_ENV and ./.venv are found without --python; none is an error.
VIRTUAL_ENV=$V "$TORCHSOLVE" wheel uninstall feat -q || ts_fail "VIRTUAL_ENV target"
(cd "$tmp" && mkdir -p empty && cd empty && env -u VIRTUAL_ENV "$TORCHSOLVE" wheel install x-1.0-py3-none-any.whl 2>/dev/null) &&
  ts_fail "no environment must be an error"

# The lock: a second run waits and says so.
python3 - "$V/.torchsolve.lock" "$tmp/locked" <<'PY' &
import fcntl, sys, time
f = open(sys.argv[1], "a"); fcntl.flock(f, fcntl.LOCK_EX)
open(sys.argv[2], "w").close(); time.sleep(1.5)
PY
for i in $(seq 1 100); do [ -e "$tmp/locked" ] && break; sleep 0.1; done
[ -e "$tmp/locked" ] || ts_fail "the lock holder did not start"
out=$("$TORCHSOLVE" wheel install --python "$V" "$FX/feat-1.0-py3-none-any.whl" 2>&1) || ts_fail "install under lock: $out"
grep -q "waiting for another torchsolve" <<<"$out" || ts_fail "no waiting message: $out"
wait
echo ok
