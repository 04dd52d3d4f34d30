#!/usr/bin/env bash
# lock --from a uv.lock whose resolution forked (issue 27, point 5): uv
# locks numpy and pandas at two versions, each under its
# `resolution-markers`; once with the fork markers on the edges, as uv
# writes them, once with them left implied on the versioned edges.  Each
# version must come out under its own marker, so that an
# independent PEP 751 reader finds exactly one numpy per environment, the
# right one; sync on this Linux host installs the non-Windows fork.
. "$(dirname "$0")/lib.sh"
T=${TORCHSOLVE:?}
python3 -c 'import tomllib' 2>/dev/null || ts_skip "python3 lacks tomllib"
ts_isolate_from_host
ts_venv_for_wheels
export XDG_CONFIG_HOME=$work/config TORCHSOLVE_CACHE_DIR=$work/cache
ts_index_from_spec < <(
  echo "simple numpy 1.26.4 py3-none-any"
  echo "simple numpy 2.1.0 py3-none-any"
  echo "simple pandas 2.0.3 py3-none-any"
  echo "simple pandas 2.2.3 py3-none-any"
  echo "simple winhelper 1.0 py3-none-any"
)
# uv.lock as uv writes a forked resolution: numpy and pandas at two
# versions, each with its resolution-markers; the project's edges carry
# the fork markers; pandas and winhelper reach numpy by version alone
python3 - "$work/www/simple" "$TS_NGINX_URL/simple" >"$work/uv.lock" <<'PY'
import hashlib, os, sys
d, url = sys.argv[1], sys.argv[2]
W, NW = "sys_platform == 'win32'", "sys_platform != 'win32'"
def files(name, version):
    out = []
    for f in sorted(os.listdir(d)):
        if f.startswith("%s-%s-" % (name, version)) and f.endswith(".whl"):
            data = open(os.path.join(d, f), "rb").read()
            out.append('{ url = "%s/%s", hash = "sha256:%s", size = %d }'
                       % (url, f, hashlib.sha256(data).hexdigest(), len(data)))
    return ",\n    ".join(out)
def dep(name, version=None, marker=None):
    s = '{ name = "%s"' % name
    if version:
        s += ', version = "%s", source = { registry = "%s" }' % (version, url)
    if marker:
        s += ', marker = "%s"' % marker
    return s + " }"
print('''version = 1
revision = 3
requires-python = ">=3.9"
resolution-markers = [
    "%s",
    "%s",
]

[[package]]
name = "app"
version = "0.1.0"
source = { virtual = "." }
dependencies = [
    %s,
    %s,
    %s,
    %s,
    %s,
]
''' % (W, NW, dep("numpy", "1.26.4", W), dep("numpy", "2.1.0", NW), dep("pandas", "2.0.3", W),
       dep("pandas", "2.2.3", NW), dep("winhelper", marker=W)))
for name, version, fork, deps in (
        ("numpy", "1.26.4", W, []), ("numpy", "2.1.0", NW, []),
        ("pandas", "2.0.3", W, [dep("numpy", "1.26.4")]),
        ("pandas", "2.2.3", NW, [dep("numpy", "2.1.0")]),
        ("winhelper", "1.0", None, [dep("numpy", "1.26.4")])):
    print('[[package]]\nname = "%s"\nversion = "%s"\nsource = { registry = "%s" }' % (name, version, url))
    if fork:
        print('resolution-markers = [\n    "%s",\n]' % fork)
    if deps:
        print("dependencies = [\n    %s,\n]" % ",\n    ".join(deps))
    print("wheels = [\n    %s,\n]\n" % files(name, version))
PY

# the same lock with the fork left implied on the versioned edges: the
# packages' resolution-markers alone tell the forks apart
sed "/version = /s/, marker = \"sys_platform [!=]= 'win32'\"//" "$work/uv.lock" >"$work/implied.lock"
! grep -q "version = .*marker" "$work/implied.lock" || ts_fail "the implied-fork fixture kept a marker"
for f in uv implied; do
"$T" lock --from "$work/$f.lock" -o "$work/pylock.toml" 2>"$work/err" ||
  { cat "$work/err"; ts_fail "lock --from a forked $f.lock"; }
PYTHONPATH=$TS_SOURCE_DIR/tests/integration python3 - "$work/pylock.toml" <<'PY' || { cat "$work/pylock.toml"; ts_fail "$f.lock: the forks' markers"; }
import sys, tomllib
from pep751_markers import evaluate
lock = tomllib.load(open(sys.argv[1], "rb"))
for platform, want in (("win32", {"numpy": "1.26.4", "pandas": "2.0.3", "winhelper": "1.0"}),
                       ("linux", {"numpy": "2.1.0", "pandas": "2.2.3"})):
    env = {"sys_platform": platform, "extras": set(), "dependency_groups": set()}
    got = {}
    for p in lock["packages"]:
        if "marker" not in p or evaluate(p["marker"], env):
            assert p["name"] not in got, (platform, p["name"], got[p["name"]], p["version"])
            got[p["name"]] = p["version"]
    assert got == want, (platform, got, want)
print("each fork's versions under its marker")
PY
done
"$T" sync "$work/pylock.toml" --python "$work/venv" 2>"$work/err" || { cat "$work/err"; ts_fail "sync"; }
got=$("$PY" -c 'import importlib.metadata as m
print(" ".join(sorted("%s==%s" % (d.metadata["Name"], d.version) for d in m.distributions())))')
[ "$got" = "numpy==2.1.0 pandas==2.2.3" ] || ts_fail "sync of the imported forked lock: $got"
echo "lock_from_forks: ok"
