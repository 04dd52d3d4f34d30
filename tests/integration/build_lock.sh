#!/usr/bin/env bash
# Locking what is built from source, and syncing it back, no network:
# Debian's setuptools and wheel (find-links) fill the build environments.
#  - lock records an sdist ([packages.sdist] path, size, sha256), a project
#    directory ([packages.directory]) and a git checkout ([packages.vcs]
#    with the commit), no version for the trees, each with its build
#    fingerprint ([packages.tool.torchsolve] build-env: the build
#    environment's packages with their sha256);
#  - the same inputs in another order give the same bytes;
#  - export writes lines pip understands (paths, git+...@commit);
#  - sync builds them into a fresh venv; then, nginx stopped and the build
#    cache emptied, sync --offline into another fresh venv rebuilds them
#    from the cache alone, in exactly the locked build environment;
#  - a fingerprint that does not match what the build environment would
#    get is refused (exit 4), nothing installed.
. "$(dirname "$0")/lib.sh"
T=${TORCHSOLVE:?}
command -v git >/dev/null || ts_skip "no git"
ts_build_test_setup

# an sdist (setup.py only, a dependency), a project directory, a git repo
mkdir -p "$work/src/sd/legacy-2.0" "$work/src/proj/hello" "$work/src/repo"
printf 'from setuptools import setup\nsetup(name="legacy", version="2.0", py_modules=["legacy"], install_requires=["beta"])\n' \
  >"$work/src/sd/legacy-2.0/setup.py"
echo 'X = "sdist"' >"$work/src/sd/legacy-2.0/legacy.py"
tar -C "$work/src/sd" -czf "$work/src/legacy-2.0.tar.gz" legacy-2.0
printf 'from setuptools import setup\nsetup(name="hello-proj", version="1.0", packages=["hello"])\n' \
  >"$work/src/proj/setup.py"
echo 'X = "dir"' >"$work/src/proj/hello/__init__.py"
printf 'from setuptools import setup\nsetup(name="gitpkg", version="0.3", py_modules=["gitpkg"])\n' \
  >"$work/src/repo/setup.py"
echo 'X = "v1"' >"$work/src/repo/gitpkg.py"
g() { git -C "$work/src/repo" -c user.email=t@example.com -c user.name=t "$@"; }
g init -q && g add . && g commit -qm one && g tag v1
echo 'X = "head"' >"$work/src/repo/gitpkg.py" && g commit -qam two
commit=$(g rev-parse v1)
mkdir -p "$work/lk"
# relative paths: the lock writes them relative to its own directory
cd "$work"
SD=src/legacy-2.0.tar.gz GIT="gitpkg @ git+file://$work/src/repo@v1"

# --- lock ---------------------------------------------------------------------
"$T" lock --python "$work/venv" "${IX[@]}" -o lk/pylock.toml "$SD" src/proj "$GIT" \
  2>"$work/err" || { cat "$work/err"; ts_fail "lock failed"; }
cat "$work/lk/pylock.toml"
sha=$(sha256sum "$SD" | cut -d' ' -f1)
st_sha=$(sha256sum $WHEELS/setuptools-*.whl | cut -d' ' -f1)
python3 - "$work/lk/pylock.toml" "$sha" "$(stat -c %s "$SD")" "$commit" "$work/src/repo" "$st_sha" <<'PY' ||
import sys, tomllib
lock = tomllib.load(open(sys.argv[1], "rb"))
sha, size, commit, repo, st_sha = sys.argv[2:]
pk = {p["name"]: p for p in lock["packages"]}
sd = pk["legacy"]
assert sd["version"] == "2.0", sd
assert sd["sdist"] == {"name": "legacy-2.0.tar.gz", "path": "../src/legacy-2.0.tar.gz",
                       "size": int(size), "hashes": {"sha256": sha}}, sd["sdist"]
assert sd["dependencies"] == [{"name": "beta"}], sd
d = pk["hello-proj"]
assert "version" not in d and d["directory"] == {"path": "../src/proj", "editable": False}, d
v = pk["gitpkg"]
assert "version" not in v, v
assert v["vcs"] == {"type": "git", "url": "file://" + repo, "requested-revision": "v1",
                    "commit-id": commit}, v["vcs"]
for name in ("legacy", "hello-proj", "gitpkg"):
    env = pk[name]["tool"]["torchsolve"]["build-env"]
    st = [e for e in env if e["name"] == "setuptools"]
    assert st and st[0]["sha256"] == st_sha, env
    assert st[0]["url"].startswith("file:///") and st[0]["url"].endswith(".whl"), env
    assert [e["name"] for e in env] == sorted(e["name"] for e in env), env
assert "wheels" in pk["beta"], pk["beta"]
PY
  ts_fail "the lock does not record the sources as PEP 751 says"

# --- the same inputs in another order: the same bytes -------------------------
"$T" lock --python "$work/venv" "${IX[@]}" -o lk/pylock2.toml "$GIT" ./src/proj "$SD" \
  2>"$work/err" || { cat "$work/err"; ts_fail "second lock failed"; }
cmp "$work/lk/pylock.toml" "$work/lk/pylock2.toml" || ts_fail "permuted inputs gave other bytes"

# --- export: lines pip understands ---------------------------------------------
"$T" export "$work/lk/pylock.toml" --no-header >"$work/req.txt" 2>"$work/err" ||
  { cat "$work/err"; ts_fail "export failed"; }
cat "$work/req.txt"
grep -qx "gitpkg @ git+file://$work/src/repo@$commit" "$work/req.txt" || ts_fail "export: git line"
grep -qx "$work/lk/../src/proj" "$work/req.txt" || ts_fail "export: directory line"
grep -q "^$work/lk/../src/legacy-2.0.tar.gz" "$work/req.txt" || ts_fail "export: sdist line"
grep -q -- "--hash=sha256:$sha" "$work/req.txt" || ts_fail "export: the sdist's hash"

# --- sync into a fresh venv ------------------------------------------------------
check_venv() { # VENV
  [ "$("$1/bin/python" -c 'import legacy, hello, gitpkg, beta; print(legacy.X, hello.X, gitpkg.X)')" = "sdist dir v1" ] ||
    ts_fail "$1: the synced sources are not the locked ones"
}
"$T" venv -q --python /usr/bin/python3 "$work/v1"
"$T" sync "$work/lk/pylock.toml" --python "$work/v1" "${IX[@]}" 2>"$work/err" ||
  { cat "$work/err"; ts_fail "sync failed"; }
check_venv "$work/v1"
SP=$(echo "$work"/v1/lib/python3*/site-packages)
grep -q "\"commit_id\": \"$commit\"" "$SP"/gitpkg-0.3.dist-info/direct_url.json || ts_fail "sync: git direct_url"

# --- offline, nginx gone, no built wheels: rebuilt from the cache --------------
ts_nginx_stop
rm -rf "$work/cache/builds-v1"
"$T" venv -q --python /usr/bin/python3 "$work/v2"
"$T" sync "$work/lk/pylock.toml" --python "$work/v2" --offline "${IX[@]}" 2>"$work/err" ||
  { cat "$work/err"; ts_fail "offline sync failed"; }
grep -q 'Built ' "$work/err" || ts_fail "offline sync did not build: $(cat "$work/err")"
check_venv "$work/v2"

# --- a fingerprint the build environment would not match: refused --------------
sed "s/$st_sha/$(printf '0%.0s' $(seq 64))/" "$work/lk/pylock.toml" >"$work/lk/bad.toml"
"$T" venv -q --python /usr/bin/python3 "$work/v3"
rc=0; "$T" sync "$work/lk/bad.toml" --python "$work/v3" --offline "${IX[@]}" 2>"$work/err" || rc=$?
[ $rc = 4 ] || { cat "$work/err"; ts_fail "a wrong fingerprint: exit $rc, wanted 4"; }
grep -q "setuptools-66.1.1-py3-none-any.whl.*the locked build environment" "$work/err" ||
  ts_fail "wrong fingerprint message: $(cat "$work/err")"
"$work/v3/bin/python" -c 'import legacy' 2>/dev/null && ts_fail "a refused sync installed something"
echo OK
