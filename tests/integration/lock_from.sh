#!/usr/bin/env bash
# lock --from (issue 27, point 5): a team's uv.lock becomes a torchsolve
# lock without resolving: every package reached from the project, with
# the marker it is reached under (a dependency marker, an extra, a dev
# group), its index, wheels and sdist hashes; sync installs it.  Another
# tool's PEP 751 lock is read and written back canonically.  A source
# kind it does not take is one error line, exit 1, nothing written.
. "$(dirname "$0")/lib.sh"
T=${TORCHSOLVE:?}
python3 -c 'import tomllib' 2>/dev/null || ts_skip "python3 lacks tomllib"
ts_isolate_from_host
ts_venv_for_wheels
export XDG_CONFIG_HOME=$work/config TORCHSOLVE_CACHE_DIR=$work/cache
ts_index_from_spec < <(
  echo "simple numpy 2.1.0 $tag"
  echo "simple filelock 3.16.1 py3-none-any"
  echo "simple colorama 0.4.6 py3-none-any"
  echo "simple pytest 8.3.0 py3-none-any"
)
# uv.lock as uv 0.9 writes it: the project, numpy always, filelock on
# Linux only through numpy (a marker on the edge), colorama with the extra
# `cli`, pytest in the dev group
python3 - "$work/www/simple" "$TS_NGINX_URL/simple" >"$work/uv.lock" <<'PY'
import hashlib, os, sys
d, url = sys.argv[1], sys.argv[2]
def files(name):
    out = []
    for f in sorted(os.listdir(d)):
        if f.startswith(name + "-") and f.endswith(".whl"):
            data = open(os.path.join(d, f), "rb").read()
            out.append('{ url = "%s/%s", hash = "sha256:%s", size = %d }'
                       % (url, f.replace("+", "%2B"), hashlib.sha256(data).hexdigest(), len(data)))
    return ",\n    ".join(out)
print('''version = 1
revision = 3
requires-python = ">=3.9"

[[package]]
name = "app"
version = "0.1.0"
source = { virtual = "." }
dependencies = [
    { name = "numpy" },
]

[package.optional-dependencies]
cli = [
    { name = "colorama" },
]

[package.dev-dependencies]
dev = [
    { name = "pytest" },
]
''')
for name, version, deps in (("colorama", "0.4.6", ""), ("filelock", "3.16.1", ""),
                            ("numpy", "2.1.0", '''dependencies = [
    { name = "filelock", marker = "sys_platform == 'linux'" },
]
'''), ("pytest", "8.3.0", "")):
    print('''[[package]]
name = "%s"
version = "%s"
source = { registry = "%s" }
%swheels = [
    %s,
]
''' % (name, version, url, deps, files(name)))
PY

"$T" lock --from "$work/uv.lock" -o "$work/pylock.toml" 2>"$work/err" ||
  { cat "$work/err"; ts_fail "lock --from uv.lock"; }
grep -q "^Imported 4 packages from $work/uv.lock into $work/pylock.toml (nothing resolved)" "$work/err" ||
  ts_fail "lock --from: summary $(cat "$work/err")"
python3 - "$work/pylock.toml" "$TS_NGINX_URL/simple" <<'PY' || ts_fail "the imported lock"
import sys, tomllib
lock = tomllib.load(open(sys.argv[1], "rb"))
assert lock["lock-version"] == "1.0" and lock["created-by"] == "torchsolve", lock
assert lock["requires-python"] == ">=3.9", lock
assert lock["extras"] == ["cli"] and lock["dependency-groups"] == ["dev"], lock
assert lock["default-groups"] == ["dev"], lock
got = {p["name"]: (p["version"], p.get("marker"), p["index"]) for p in lock["packages"]}
assert got == {
    "numpy": ("2.1.0", None, sys.argv[2]),
    "filelock": ("3.16.1", "sys_platform == 'linux'", sys.argv[2]),
    "colorama": ("0.4.6", "'cli' in extras", sys.argv[2]),
    "pytest": ("8.3.0", "'dev' in dependency_groups", sys.argv[2]),
}, got
for p in lock["packages"]:
    assert p["wheels"] and all(len(w["hashes"]["sha256"]) == 64 and w["size"] > 0 for w in p["wheels"]), p
print("uv.lock imported: markers, extras, groups, files")
PY
# sync installs it: the dev group by default, no extra
"$T" sync "$work/pylock.toml" --python "$work/venv" 2>"$work/err" || { cat "$work/err"; ts_fail "sync"; }
got=$("$PY" -c 'import importlib.metadata as m
print(" ".join(sorted(d.metadata["Name"] for d in m.distributions())))')
[ "$got" = "filelock numpy pytest" ] || ts_fail "sync of the imported lock: $got"

# another tool's PEP 751 lock: read, checked, written back as torchsolve's
"$T" lock --from "$TS_SOURCE_DIR/fixtures/lock/pylock.pip-style.toml" -o "$work/pip.toml" \
  2>"$work/err" || { cat "$work/err"; ts_fail "lock --from a pip lock"; }
python3 - "$TS_SOURCE_DIR/fixtures/lock/pylock.pip-style.toml" "$work/pip.toml" <<'PY' ||
import sys, tomllib
a, b = (tomllib.load(open(f, "rb")) for f in sys.argv[1:])
assert b["created-by"] == "torchsolve", b["created-by"]
key = lambda l: sorted((p["name"], p.get("version"), p.get("marker")) for p in l["packages"])
assert key(a) == key(b), (key(a), key(b))
PY
  ts_fail "the pip lock was not kept"

# what it does not take: one line, exit 1, nothing written
sed 's|source = { registry = "[^"]*" }|source = { url = "https://example.org/x.tar.gz" }|' \
  "$work/uv.lock" >"$work/url.lock"
ts_fails 1 "lock --from takes registry, git, directory and editable sources (this one is url)" \
  lock --from "$work/url.lock" -o "$work/url.toml"
[ ! -e "$work/url.toml" ] || ts_fail "a refused import wrote a lock"
ts_fails 2 "--from takes only -o FILE" lock --from "$work/uv.lock" torch
echo "lock_from: ok"
