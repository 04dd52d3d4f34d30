#!/usr/bin/env bash
# lock --platform (and install --python-platform) that finds no wheel for a
# project names the target's tag and the tags the project's wheels carry.
. "$(dirname "$0")/lib.sh"
T=${TORCHSOLVE:?}
command -v python3 >/dev/null || ts_skip "no python3"
work=$(ts_tmpdir)
export TORCHSOLVE_CACHE_DIR=$work/cache
python3 "$TS_SOURCE_DIR/tests/integration/install_mkindex.py" "$work/www" <<'SPEC'
simple alpha 1.0 cp311-cp311-win_amd64
simple alpha 1.0 py3-none-macosx_11_0_arm64
simple alpha 1.0 cp311-cp311-win_amd64
SPEC
U=file://$work/www/simple
rc=0; "$T" lock -i "$U" --python-version 3.12 --platform manylinux_2_28_x86_64 alpha \
  -o "$work/pylock.toml" >/dev/null 2>"$work/err" || rc=$?
cat "$work/err"
[ $rc = 1 ] || ts_fail "lock without a fitting wheel: exit $rc, want 1"
grep -q "alpha 1.0 would fit but has no wheel for this Python and platform: the target's best tag is cp312-cp312-manylinux_2_28_x86_64 (of [0-9]* it takes); its wheels are tagged cp311-cp311-win_amd64, py3-none-macosx_11_0_arm64$" "$work/err" ||
  ts_fail "the refusal does not name the target's tag and the wheels' tags"
[ ! -e "$work/pylock.toml" ] || ts_fail "a lock was written"
"$T" venv -q "$work/v"
rc=0; "$T" install --dry-run --python "$work/v" -i "$U" --python-version 3.12 --python-platform aarch64-manylinux_2_28 alpha \
  >/dev/null 2>"$work/err" || rc=$?
cat "$work/err"
[ $rc = 1 ] || ts_fail "install --python-platform without a fitting wheel: exit $rc, want 1"
grep -q "best tag is cp312-cp312-manylinux_2_28_aarch64 .*its wheels are tagged cp311-cp311-win_amd64, py3-none-macosx_11_0_arm64$" "$work/err" ||
  ts_fail "install --python-platform does not name the tags"
echo ok
