#!/usr/bin/env bash
# Locking sdists that come from an index, and -C settings, no network:
# Debian's setuptools and wheel (find-links) fill the build environments,
# the target venvs use Debian's /usr/bin/python3.
#  - lock of a wheel depending on an sdist-only project (hydra's
#    antlr4-python3-runtime==4.9.*): [packages.sdist] with url, size and
#    sha256, its index, and the build fingerprint
#    ([packages.tool.torchsolve] build-env) of the environment its wheel
#    would be built in, made at lock time without building the wheel;
#  - -C KEY=VALUE given to lock is recorded per built package
#    (config-settings, by key, a repeated key's values in order), an
#    in-tree backend (backend-path) with an empty build environment
#    (build-env = []);
#  - the same inputs in another order (-C too) give the same bytes;
#  - export writes name==version with the sdist's --hash, which pip
#    downloads and verifies;
#  - sync builds both in a fresh venv with the locked settings (the wheel
#    says so), pip check passes; then, nginx stopped and the build cache
#    emptied, sync --offline into another fresh venv rebuilds them from the
#    cache alone;
#  - sync -C repeating the lock's settings (in another order) reuses the
#    cached wheel; sync -C contradicting them is refused (exit 2), nothing
#    installed;
#  - lock --universal lists the sdist for every environment (its METADATA
#    prepared by the lock's interpreter), with no fingerprint; sync builds
#    it in a build environment it resolves, with sync's -C.
. "$(dirname "$0")/lib.sh"
T=${TORCHSOLVE:?}
ts_debian_build_wheels
ts_index_from_spec <<'SPEC'
simple omegaconf 2.3.0 py3-none-any antlr4-python3-runtime==4.9.*
simple antlr4-python3-runtime 4.9.3 sdist
simple antlr4-python3-runtime 4.8 sdist
simple cfgpkg 1.0 sdist,intree beta
simple beta 1.0 py3-none-any
SPEC
export TORCHSOLVE_CACHE_DIR=$work/cache TS_TEST_COUNTER=$work/counter
: >"$TS_TEST_COUNTER"
ts_clear_pip_env
IX=(-i "$TS_NGINX_URL/simple" -f "$WHEELS")
"$T" venv -q --python /usr/bin/python3 "$work/venv"
builds() { wc -l <"$TS_TEST_COUNTER" | tr -d ' '; }

# --- lock -----------------------------------------------------------------------
"$T" lock --python "$work/venv" "${IX[@]}" -o "$work/pylock.toml" omegaconf cfgpkg \
  -C mode=fast -C flag=a -C flag=b 2>"$work/err" || { cat "$work/err"; ts_fail "lock failed"; }
cat "$work/pylock.toml"
grep -q '^Built antlr4' "$work/err" && ts_fail "lock built the sdist's wheel: $(cat "$work/err")"
[ "$(builds)" = 0 ] || ts_fail "lock ran the in-tree backend's build_wheel"
sd=$work/www/simple/antlr4_python3_runtime-4.9.3.tar.gz
python3 - "$work/pylock.toml" "$TS_NGINX_URL" "$(sha256sum "$sd" | cut -d' ' -f1)" \
  "$(stat -c %s "$sd")" "$(sha256sum $WHEELS/setuptools-*.whl | cut -d' ' -f1)" <<'PY' ||
import sys, tomllib
lock = tomllib.load(open(sys.argv[1], "rb"))
url, sha, size, st_sha = sys.argv[2:]
pk = {p["name"]: p for p in lock["packages"]}
a = pk["antlr4-python3-runtime"]
assert a["version"] == "4.9.3" and "wheels" not in a, a
assert a["index"] == url + "/simple", a
assert a["sdist"] == {"name": "antlr4_python3_runtime-4.9.3.tar.gz",
                      "url": url + "/simple/antlr4_python3_runtime-4.9.3.tar.gz",
                      "size": int(size), "hashes": {"sha256": sha}}, a["sdist"]
ours = a["tool"]["torchsolve"]
env = {e["name"]: e for e in ours["build-env"]}
assert sorted(env) == ["setuptools", "wheel"], env
assert env["setuptools"]["sha256"] == st_sha, env
assert env["setuptools"]["url"].startswith("file:///"), env
settings = ["flag=a", "flag=b", "mode=fast"]
assert ours["config-settings"] == settings, ours
c = pk["cfgpkg"]["tool"]["torchsolve"]
assert c == {"build-env": [], "config-settings": settings}, c
assert pk["cfgpkg"]["dependencies"] == [{"name": "beta"}], pk["cfgpkg"]
assert "tool" not in pk["omegaconf"] and "wheels" in pk["omegaconf"], pk["omegaconf"]
PY
  ts_fail "the lock does not record the index sdists as PEP 751 says"

# --- the same inputs in another order: the same bytes --------------------------
"$T" lock --python "$work/venv" "${IX[@]}" -o "$work/pylock2.toml" -C flag=a cfgpkg \
  -C mode=fast omegaconf -C flag=b 2>"$work/err" || { cat "$work/err"; ts_fail "second lock failed"; }
cmp "$work/pylock.toml" "$work/pylock2.toml" || ts_fail "permuted inputs gave other bytes"

# --- export: a line pip understands, with the sdist's hash -----------------------
"$T" export "$work/pylock.toml" --no-header >"$work/req.txt" 2>"$work/err" ||
  { cat "$work/err"; ts_fail "export failed"; }
cat "$work/req.txt"
tr -d '\\\n' <"$work/req.txt" | grep -q "antlr4-python3-runtime==4.9.3 *--hash=sha256:$(sha256sum "$sd" | cut -d' ' -f1)" ||
  ts_fail "export: no 'antlr4-python3-runtime==4.9.3 --hash=sha256:' line"
awk '/^[^ ]/ { keep = /^antlr4-python3-runtime==/ } keep' "$work/req.txt" >"$work/req-antlr.txt"
/usr/bin/python3 -m pip download -q --no-deps --no-build-isolation -r "$work/req-antlr.txt" \
  -i "$TS_NGINX_URL/simple" -d "$work/dl" >"$work/pip.out" 2>&1 ||
  { cat "$work/pip.out"; ts_fail "pip does not take the exported sdist line"; }
cmp "$work/dl/antlr4_python3_runtime-4.9.3.tar.gz" "$sd" || ts_fail "pip downloaded another file"

# --- lock --universal: the sdist listed, no fingerprint -------------------------
"$T" lock --python "$work/venv" "${IX[@]}" -o "$work/universal.toml" --universal \
  --requires-python '>=3.11' --environment "sys_platform == 'linux'" omegaconf cfgpkg \
  2>"$work/err" || { cat "$work/err"; ts_fail "universal lock failed"; }
python3 - "$work/universal.toml" <<'PY' || ts_fail "the universal lock does not list the sdists"
import sys, tomllib
pk = {p["name"]: p for p in tomllib.load(open(sys.argv[1], "rb"))["packages"]}
for name in ("antlr4-python3-runtime", "cfgpkg"):
    p = pk[name]
    assert "marker" not in p and "wheels" not in p and "tool" not in p, p
    assert p["sdist"]["hashes"]["sha256"], p
PY

# --- sync into a fresh venv: built with the locked settings --------------------
check_venv() { # VENV
  "$1/bin/python" - <<'PY' || ts_fail "$1: the synced sources are not the locked ones"
import json, antlr4_python3_runtime as a, cfgpkg, omegaconf
assert a.__version__ == "4.9.3" and a.BUILT == "sdist", a.__file__
assert json.loads(cfgpkg.CONFIG) == {"flag": ["a", "b"], "mode": "fast"}, cfgpkg.CONFIG
PY
  python3 -m pip --python "$1/bin/python" check >/dev/null || ts_fail "$1: pip check"
  local sp
  sp=$(echo "$1"/lib/python3*/site-packages)
  [ -e "$sp"/antlr4_python3_runtime-4.9.3.dist-info/direct_url.json ] &&
    ts_fail "$1: an index sdist got a direct_url.json"
  return 0
}
"$T" venv -q --python /usr/bin/python3 "$work/v1"
"$T" sync "$work/pylock.toml" --python "$work/v1" "${IX[@]}" 2>"$work/err" ||
  { cat "$work/err"; ts_fail "sync failed"; }
check_venv "$work/v1"
[ "$(builds)" = 1 ] || ts_fail "sync: $(builds) in-tree builds, wanted 1"

# --- the universal lock: no fingerprint, so sync's -C and a resolved environment
# (the same settings and environment: the wheel just built is reused)
"$T" venv -q --python /usr/bin/python3 "$work/v5"
"$T" sync "$work/universal.toml" --python "$work/v5" "${IX[@]}" -C mode=fast -C flag=a -C flag=b \
  2>"$work/err" || { cat "$work/err"; ts_fail "sync of the universal lock failed"; }
check_venv "$work/v5"
[ "$(builds)" = 1 ] || ts_fail "sync of the universal lock: $(builds) in-tree builds, wanted 1"

# --- offline, nginx gone, no built wheels: rebuilt from the cache ---------------
ts_nginx_stop
rm -rf "$work/cache/builds-v1"
"$T" venv -q --python /usr/bin/python3 "$work/v2"
"$T" sync "$work/pylock.toml" --python "$work/v2" --offline "${IX[@]}" 2>"$work/err" ||
  { cat "$work/err"; ts_fail "offline sync failed"; }
grep -q '^Built antlr4-python3-runtime 4.9.3 in' "$work/err" || ts_fail "offline sync did not build: $(cat "$work/err")"
check_venv "$work/v2"
[ "$(builds)" = 2 ] || ts_fail "offline sync: $(builds) in-tree builds, wanted 2"

# --- sync -C: the lock's settings again reuse the wheel; others are refused -----
"$T" venv -q --python /usr/bin/python3 "$work/v3"
"$T" sync "$work/pylock.toml" --python "$work/v3" --offline "${IX[@]}" \
  -C mode=fast -C flag=a -C flag=b 2>"$work/err" || { cat "$work/err"; ts_fail "sync -C (the lock's) failed"; }
check_venv "$work/v3"
[ "$(builds)" = 2 ] || ts_fail "sync -C with the lock's settings did not reuse the cached wheel"
"$T" venv -q --python /usr/bin/python3 "$work/v4"
rc=0; "$T" sync "$work/pylock.toml" --python "$work/v4" --offline "${IX[@]}" -C mode=slow \
  2>"$work/err" || rc=$?
[ $rc = 2 ] || { cat "$work/err"; ts_fail "sync -C against the lock: exit $rc, wanted 2"; }
grep -q "antlr4-python3-runtime was locked with config settings flag=a flag=b mode=fast, not -C mode=slow" "$work/err" ||
  ts_fail "sync -C against the lock: $(cat "$work/err")"
[ -z "$(ls "$work"/v4/lib/python3*/site-packages)" ] || ts_fail "a refused sync installed something"
[ "$(builds)" = 2 ] || ts_fail "a refused sync built"
echo OK
