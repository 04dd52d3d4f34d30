#!/usr/bin/env bash
# Source builds end to end with real backends and no network: Debian's
# setuptools and wheel wheels (/usr/share/python-wheels, served as a
# find-links index) fill the build environments; the target venvs use
# Debian's /usr/bin/python3, which those patched wheels need.
# Covers: a local project ([project] metadata, a dependency from the index,
# a console script); a second install that runs no backend (build cache);
# a source edit that rebuilds; the project editable (an edit seen without
# reinstalling, pip list --editable, freeze's -e git+URL@COMMIT#egg=NAME
# for one in a git checkout, as pip's); a setup.py-only sdist; a git
# repository at a tag (direct_url.json records the commit); an in-tree
# backend (backend-path) receiving -C settings and SOURCE_DATE_EPOCH in a
# clean environment, and as an sdist its metadata and wheel built in one
# build environment; --build-constraint; a failing backend (exit 1, its
# output, the log's path, the venv byte-identical).
. "$(dirname "$0")/lib.sh"
T=${TORCHSOLVE:?}
command -v git >/dev/null || ts_skip "no git"
ts_build_test_setup
SP=$(echo "$work"/venv/lib/python3*/site-packages)
inst() { "$T" install --python "$work/venv" "${IX[@]}" "$@"; }

# --- a local project: metadata, a dependency, a console script ----------
mkdir -p "$work/proj/src/hello"
cat >"$work/proj/pyproject.toml" <<'TOML'
[build-system]
requires = ["setuptools>=61"]
build-backend = "setuptools.build_meta"

[project]
name = "hello-proj"
version = "1.0"
dependencies = ["beta>=1.0"]

[project.scripts]
hello = "hello:main"
TOML
echo 'def main(): print("hello v1")' >"$work/proj/src/hello/__init__.py"
inst "$work/proj" 2>"$work/err" || { cat "$work/err"; ts_fail "installing a project directory failed"; }
grep -q 'Built .*proj in' "$work/err" || ts_fail "no 'Built' line: $(cat "$work/err")"
[ "$("$work/venv/bin/hello")" = "hello v1" ] || ts_fail "console script"
[ -d "$SP"/beta-1.0.dist-info ] || ts_fail "the dependency beta was not installed"
python3 - "$SP/hello_proj-1.0.dist-info/direct_url.json" "$work/proj" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
assert d == {"url": "file://" + sys.argv[2], "dir_info": {}}, d
PY
[ -f "$SP/hello_proj-1.0.dist-info/REQUESTED" ] || ts_fail "no REQUESTED"

# --- the same inputs again: no backend runs -----------------------------
inst --force-reinstall "$work/proj" 2>"$work/err" || { cat "$work/err"; ts_fail "reinstall failed"; }
grep -q 'Built' "$work/err" && ts_fail "the cached build ran the backend again: $(cat "$work/err")"
[ "$("$work/venv/bin/hello")" = "hello v1" ] || ts_fail "cached reinstall"

# --- a changed file is a new build --------------------------------------
echo 'def main(): print("hello v2")' >"$work/proj/src/hello/__init__.py"
inst "$work/proj" 2>"$work/err" || { cat "$work/err"; ts_fail "rebuild failed"; }
grep -q 'Built' "$work/err" || ts_fail "an edited tree was not rebuilt"
[ "$("$work/venv/bin/hello")" = "hello v2" ] || ts_fail "the rebuilt project is not installed"

# --- editable (PEP 660) --------------------------------------------------
inst -e "$work/proj" 2>"$work/err" || { cat "$work/err"; ts_fail "-e failed"; }
echo 'def main(): print("hello v3")' >"$work/proj/src/hello/__init__.py"
[ "$("$work/venv/bin/hello")" = "hello v3" ] || ts_fail "editable: the edit is not seen"
grep -q '"editable": true' "$SP/hello_proj-1.0.dist-info/direct_url.json" || ts_fail "editable direct_url"
python3 -m pip --python "$work/venv/bin/python" list --editable 2>/dev/null | grep -q "^hello-proj .*$work/proj" ||
  ts_fail "pip list --editable does not see it"
# editables are never cached: a second -e runs the backend
inst -e "$work/proj" 2>"$work/err" || ts_fail "second -e failed"
grep -q 'Built' "$work/err" || ts_fail "an editable came from the cache"
# a requirements file may say -e too
echo "-e $work/proj" >"$work/req.txt"
inst -r "$work/req.txt" 2>"$work/err" || { cat "$work/err"; ts_fail "-e in a requirements file"; }
# freeze names an editable in a git checkout as pip does: a comment
# without a remote, "-e git+URL@COMMIT#egg=NAME" with one
pf() { python3 -m pip --python "$work/venv/bin/python" freeze 2>/dev/null; }
tf() { "$T" freeze --python "$work/venv"; }
gp() { git -C "$work/proj" -c user.email=t@example.com -c user.name=t "$@"; }
[ "$(tf)" = "$(pf)" ] || ts_fail "freeze of an editable: $(tf) / pip: $(pf)"
gp init -q && gp add pyproject.toml src/hello/__init__.py && gp commit -qm one
[ "$(tf)" = "$(pf)" ] || ts_fail "freeze of a git editable without a remote: $(tf) / pip: $(pf)"
gp remote add origin https://example.com/hello.git
tf | grep -qx -- "-e git+https://example.com/hello.git@$(gp rev-parse HEAD)#egg=hello_proj" ||
  ts_fail "freeze of a git editable: $(tf)"
[ "$(tf)" = "$(pf)" ] || ts_fail "freeze of a git editable: $(tf) / pip: $(pf)"
rm -rf "$work/proj/.git"
# -e of an archive is refused
"$T" install --python "$work/venv" -e "$work/x-1.0.tar.gz" 2>"$work/err" && ts_fail "-e archive accepted"
grep -q 'editable installs need a local project directory' "$work/err" || ts_fail "-e archive: $(cat "$work/err")"

# --- a setup.py-only sdist -------------------------------------------------
mkdir -p "$work/sd/legacy-2.0"
printf 'from setuptools import setup\nsetup(name="legacy", version="2.0", py_modules=["legacy"])\n' \
  >"$work/sd/legacy-2.0/setup.py"
echo 'X = "sdist"' >"$work/sd/legacy-2.0/legacy.py"
tar -C "$work/sd" -czf "$work/legacy-2.0.tar.gz" legacy-2.0
inst "$work/legacy-2.0.tar.gz" 2>"$work/err" || { cat "$work/err"; ts_fail "sdist install failed"; }
[ "$("$work/venv/bin/python" -c 'import legacy; print(legacy.X)')" = sdist ] || ts_fail "sdist content"
sha=$(sha256sum "$work/legacy-2.0.tar.gz" | cut -d' ' -f1)
grep -q "\"sha256\": \"$sha\"" "$SP/legacy-2.0.dist-info/direct_url.json" || ts_fail "sdist direct_url"

# --- a git repository at a tag ---------------------------------------------
mkdir -p "$work/repo/sub"
cp "$work/sd/legacy-2.0/"* "$work/repo/sub/"
g() { git -C "$work/repo" -c user.email=t@example.com -c user.name=t "$@"; }
g init -q && g add . && g commit -qm one && g tag v1
echo 'X = "head"' >"$work/repo/sub/legacy.py" && g commit -qam two
commit=$(g rev-parse v1)
inst "legacy @ git+file://$work/repo@v1#subdirectory=sub" 2>"$work/err" ||
  { cat "$work/err"; ts_fail "git install failed"; }
[ "$("$work/venv/bin/python" -c 'import legacy; print(legacy.X)')" = sdist ] || ts_fail "git: not the tag's tree"
python3 - "$SP/legacy-2.0.dist-info/direct_url.json" "$commit" "$work/repo" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
assert d["url"] == "file://" + sys.argv[3], d
assert d["vcs_info"] == {"vcs": "git", "commit_id": sys.argv[2], "requested_revision": "v1"}, d
assert d["subdirectory"] == "sub", d
PY
inst "other @ git+file://$work/repo@v1#subdirectory=sub" 2>"$work/err" && ts_fail "a wrong name was accepted"
grep -q "asked for as 'other' but builds 'legacy'" "$work/err" || ts_fail "wrong name: $(cat "$work/err")"

# --- an in-tree backend: backend-path, -C, a clean environment -------------
mkdir -p "$work/intree/_backend"
cat >"$work/intree/pyproject.toml" <<'TOML'
[build-system]
requires = []
build-backend = "tinyback"
backend-path = ["_backend"]
TOML
cat >"$work/intree/_backend/tinyback.py" <<'PY'
import base64, hashlib, json, os, sys, zipfile

def _log(hook):
    if os.environ.get("TS_TEST_HOOKS"):
        with open(os.environ["TS_TEST_HOOKS"], "a") as f:
            f.write("%s %s\n" % (hook, sys.prefix))

def get_requires_for_build_wheel(config_settings=None):
    _log("get_requires")
    return []

def prepare_metadata_for_build_wheel(metadata_directory, config_settings=None):
    _log("prepare_metadata")
    os.makedirs(os.path.join(metadata_directory, "intree-0.1.dist-info"))
    with open(os.path.join(metadata_directory, "intree-0.1.dist-info/METADATA"), "w") as f:
        f.write("Metadata-Version: 2.1\nName: intree\nVersion: 0.1\n")
    return "intree-0.1.dist-info"

def _rec(data):
    d = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()
    return "sha256=" + d

def build_wheel(wheel_directory, config_settings=None, metadata_directory=None):
    _log("build_wheel")
    with open(os.environ["TS_TEST_COUNTER"], "a") as f:
        f.write("build\n")
    seen = {"config": config_settings, "epoch": os.environ.get("SOURCE_DATE_EPOCH"),
            "leaked": sorted(k for k in os.environ
                             if k.startswith("TORCHSOLVE_") or "TOKEN" in k)}
    files = {"intree.py": ("SEEN = %r\n" % json.dumps(seen, sort_keys=True)).encode(),
             "intree-0.1.dist-info/METADATA": b"Metadata-Version: 2.1\nName: intree\nVersion: 0.1\n",
             "intree-0.1.dist-info/WHEEL": b"Wheel-Version: 1.0\nGenerator: tinyback\nRoot-Is-Purelib: true\nTag: py3-none-any\n"}
    name = "intree-0.1-py3-none-any.whl"
    with zipfile.ZipFile(os.path.join(wheel_directory, name), "w") as z:
        record = ""
        for path, data in files.items():
            z.writestr(path, data)
            record += "%s,%s,%d\n" % (path, _rec(data), len(data))
        record += "intree-0.1.dist-info/RECORD,,\n"
        z.writestr("intree-0.1.dist-info/RECORD", record)
    return name
PY
export TS_TEST_COUNTER=$work/counter
: >"$TS_TEST_COUNTER"
TORCHSOLVE_OFFLINE= GITHUB_TOKEN=secret inst -C mode=fast -C flag=a -C flag=b "$work/intree" 2>"$work/err" ||
  { cat "$work/err"; ts_fail "in-tree backend failed"; }
"$work/venv/bin/python" - <<'PY' || ts_fail "in-tree backend saw the wrong inputs"
import json, intree
seen = json.loads(intree.SEEN)
assert seen["config"] == {"mode": "fast", "flag": ["a", "b"]}, seen
assert seen["epoch"] == "315532800", seen
assert seen["leaked"] == [], seen
PY
[ "$(wc -l <"$TS_TEST_COUNTER")" = 1 ] || ts_fail "backend calls: $(cat "$TS_TEST_COUNTER")"
# same settings in another order: cached; other settings: built again
inst --force-reinstall -C flag=a -C mode=fast -C flag=b "$work/intree" 2>/dev/null || ts_fail "cached in-tree"
[ "$(wc -l <"$TS_TEST_COUNTER")" = 1 ] || ts_fail "the reordered -C settings were not a cache hit"
inst --force-reinstall -C mode=slow "$work/intree" 2>/dev/null || ts_fail "in-tree, other -C"
[ "$(wc -l <"$TS_TEST_COUNTER")" = 2 ] || ts_fail "other -C settings reused the cached wheel"
# as an sdist (from --find-links): the environment made for its metadata
# is the one its wheel is built in, asked for its requirements once
mkdir -p "$work/fl"
tar -C "$work" --transform 's,^intree,intree-0.1,' -czf "$work/fl/intree-0.1.tar.gz" intree
export TS_TEST_HOOKS=$work/hooks
: >"$TS_TEST_HOOKS"
"$T" venv -q --python /usr/bin/python3 "$work/venv2"
"$T" install --python "$work/venv2" "${IX[@]}" -f "$work/fl" intree 2>"$work/err" ||
  { cat "$work/err"; ts_fail "the in-tree sdist"; }
python3 - "$TS_TEST_HOOKS" <<'PY' || ts_fail "one build environment per sdist: $(cat "$TS_TEST_HOOKS")"
import sys
calls = [l.split() for l in open(sys.argv[1])]
assert [c[0] for c in calls] == ["get_requires", "prepare_metadata", "build_wheel"], calls
assert len({c[1] for c in calls}) == 1, calls
PY
unset TS_TEST_HOOKS
# a backend-path outside the tree is refused
sed -i 's/backend-path = \["_backend"\]/backend-path = ["..\/"]/' "$work/intree/pyproject.toml"
inst "$work/intree" 2>"$work/err" && ts_fail "backend-path outside the tree accepted"
grep -q "backend-path '../' is not a directory inside" "$work/err" || ts_fail "backend-path: $(cat "$work/err")"

# --- --build-constraint applies to the build environment -------------------
echo 'setuptools<40' >"$work/bc.txt"
echo 'def main(): print("hello v4")' >"$work/proj/src/hello/__init__.py"
inst --build-constraint "$work/bc.txt" "$work/proj" 2>"$work/err" && ts_fail "--build-constraint ignored"
grep -q 'setuptools' "$work/err" || ts_fail "--build-constraint: $(cat "$work/err")"

# --- a failing backend: exit 1, its output, the log, nothing changed --------
mkdir -p "$work/bad"
printf 'print("compiling the thing")\nraise SystemExit("error: the compiler exploded")\n' >"$work/bad/setup.py"
before=$(cd "$work/venv" && find . -printf '%p %s %m\n' | sort; find . -type f -exec sha256sum {} + | sort)
set +e
inst "$work/bad" >"$work/out" 2>"$work/err"
rc=$?
set -e
[ $rc = 1 ] || ts_fail "a failing build exited $rc"
grep -q 'compiling the thing' "$work/err" || ts_fail "the backend's output is not shown"
grep -q 'the compiler exploded' "$work/err" || ts_fail "the error is not shown"
log=$(grep -o 'full log: [^ ;]*' "$work/err" | head -1 | cut -d' ' -f3)
[ -f "$log" ] || ts_fail "the full log '$log' is missing"
after=$(cd "$work/venv" && find . -printf '%p %s %m\n' | sort; find . -type f -exec sha256sum {} + | sort)
[ "$before" = "$after" ] || ts_fail "a failed build changed the venv"

echo OK
