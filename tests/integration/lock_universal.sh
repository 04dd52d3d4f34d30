#!/usr/bin/env bash
# torchsolve lock --universal: one multi-use PEP 751 lock for the grid of
# environments (Linux/macOS/Windows x x86_64/arm64 x CPython/PyPy x the
# Pythons of requires-python), read back by an independent reader (tomllib
# + pip's packaging markers): in every environment exactly one entry of
# each package applies and it is the version that environment needs;
# wheels for every covered environment's tags (none for tags no
# environment has), the sdist where no wheel fits; byte-identical from
# permuted inputs; --environment narrows the grid; the default
# requires-python comes from the interpreter; sync installs this machine's
# part; usage errors.
. "$(dirname "$0")/lib.sh"
T=${TORCHSOLVE:?}
python3 -c 'import tomllib, pip._vendor.packaging.markers' 2>/dev/null ||
  ts_skip "python3 lacks tomllib or pip's packaging"
ts_isolate_from_host
ts_venv_for_wheels
export XDG_CONFIG_HOME=$work/config TORCHSOLVE_CACHE_DIR=$work/cache
ts_index_from_spec < <(
  echo "simple alpha 1.0 py3-none-any beta;; colorama ; sys_platform == 'win32'"
  echo "simple beta 1.0 py3-none-any"
  echo "simple beta 2.0 py3-none-any"
  echo "simple colorama 0.4 py3-none-any"
  for t in cp312-cp312-manylinux_2_28_x86_64 cp312-cp312-macosx_11_0_arm64 \
           cp312-cp312-win_amd64 cp312-cp312-manylinux_2_28_ppc64le py3-none-any; do
    echo "simple gamma 1.0 $t"
  done
  echo "simple delta 1.0 cp312-cp312-manylinux_2_28_x86_64"
)
# delta's sdist, with its METADATA beside it (PEP 658), on delta's page
python3 - "$work/www/simple" <<'PY'
import hashlib, io, os, sys, tarfile
root = sys.argv[1]
meta = b"Metadata-Version: 2.1\nName: delta\nVersion: 1.0\n"
buf = io.BytesIO()
with tarfile.open(fileobj=buf, mode="w:gz") as t:
    info = tarfile.TarInfo("delta-1.0/PKG-INFO")
    info.size = len(meta)
    t.addfile(info, io.BytesIO(meta))
data = buf.getvalue()
open(os.path.join(root, "delta-1.0.tar.gz"), "wb").write(data)
open(os.path.join(root, "delta-1.0.tar.gz.metadata"), "wb").write(meta)
page = os.path.join(root, "delta", "index.html")
html = open(page).read().replace("</body>",
    f'<a href="../delta-1.0.tar.gz#sha256={hashlib.sha256(data).hexdigest()}" '
    f'data-core-metadata="sha256={hashlib.sha256(meta).hexdigest()}">delta-1.0.tar.gz</a><br/>\n</body>')
open(page, "w").write(html)
PY
IDX=(-i "$TS_NGINX_URL/simple" --torch-index-url "$TS_NGINX_URL/whl" --cpu)
REQS=(alpha gamma delta "beta>=2; sys_platform == 'linux'" "beta<2; sys_platform == 'darwin'")

# 1. One lock for Python 3.12 everywhere; the same bytes from permuted inputs.
"$T" lock --universal --requires-python '==3.12.*' "${IDX[@]}" "${REQS[@]}" \
  -o "$work/u1.toml" 2>"$work/err" || { cat "$work/err"; ts_fail "lock --universal"; }
cat "$work/u1.toml" "$work/err"
"$T" lock --universal --requires-python '==3.12.*' "${IDX[@]}" "${REQS[4]}" "${REQS[3]}" delta gamma alpha \
  -o "$work/u2.toml" 2>/dev/null || ts_fail "lock --universal (permuted)"
cmp "$work/u1.toml" "$work/u2.toml" || ts_fail "permuted requirements gave other bytes"

cat >"$work/read.py" <<'PY'
"""An independent PEP 751 reader: the entries whose marker holds, per environment."""
import sys, tomllib
from pip._vendor.packaging.markers import Marker
SYSTEMS = {"linux": ("posix", "Linux", {"x86_64": "x86_64", "arm64": "aarch64"}),
           "darwin": ("posix", "Darwin", {"x86_64": "x86_64", "arm64": "arm64"}),
           "win32": ("nt", "Windows", {"x86_64": "AMD64", "arm64": "ARM64"})}
def envs(minors):
    for minor in minors:
        for plat, (os_name, system, machines) in SYSTEMS.items():
            for arch, machine in machines.items():
                for impl, name in (("cpython", "CPython"), ("pypy", "PyPy")):
                    yield {"implementation_name": impl, "implementation_version": f"3.{minor}.0",
                           "os_name": os_name, "platform_machine": machine,
                           "platform_python_implementation": name, "platform_release": "",
                           "platform_system": system, "platform_version": "",
                           "python_full_version": f"3.{minor}.0", "python_version": f"3.{minor}",
                           "sys_platform": plat, "extra": ""}
def installs(lock, env):
    got = {}
    for p in lock["packages"]:
        if "marker" not in p or Marker(p["marker"]).evaluate(env):
            assert p["name"] not in got, (env, p["name"], "two entries apply")
            got[p["name"]] = p
    return got
PY

python3 - "$work/u1.toml" "$work/read.py" <<'PY' || ts_fail "universal lock content"
import sys
exec(open(sys.argv[2]).read())
lock = tomllib.load(open(sys.argv[1], "rb"))
assert lock["requires-python"] == "==3.12.*" and "environments" not in lock, lock
# what it was locked for: the grid, no one host's facts
ts = lock["tool"]["torchsolve"]
assert "host" not in ts, ts
assert ts["universal"] == {"systems": ["linux", "darwin", "win32"], "machines": ["x86_64", "arm64"],
                           "implementations": ["cpython", "pypy"], "pythons": ["3.12"]}, ts
n = 0
for env in envs([12]):
    got = installs(lock, env)
    want = {"alpha", "beta", "gamma", "delta"} | ({"colorama"} if env["sys_platform"] == "win32" else set())
    assert set(got) == want, (env, sorted(got))
    beta = got["beta"]["version"]
    assert beta == {"linux": "2.0", "darwin": "1.0"}.get(env["sys_platform"], beta), (env, beta)
    n += 1
assert n == 12, n
gamma, = [p for p in lock["packages"] if p["name"] == "gamma"]
names = sorted(w["name"] for w in gamma["wheels"])
assert names == ["gamma-1.0-cp312-cp312-macosx_11_0_arm64.whl", "gamma-1.0-cp312-cp312-manylinux_2_28_x86_64.whl",
                 "gamma-1.0-cp312-cp312-win_amd64.whl", "gamma-1.0-py3-none-any.whl"], names
assert "sdist" not in gamma, gamma
delta, = [p for p in lock["packages"] if p["name"] == "delta"]
assert delta["sdist"]["name"] == "delta-1.0.tar.gz" and len(delta["sdist"]["hashes"]["sha256"]) == 64, delta
assert [w["name"] for w in delta["wheels"]] == ["delta-1.0-cp312-cp312-manylinux_2_28_x86_64.whl"], delta
colorama, = [p for p in lock["packages"] if p["name"] == "colorama"]
assert colorama["marker"] == "sys_platform == 'win32'", colorama
print("12 environments: one entry each, the right beta; wheels per tags; delta's sdist")
PY

# 2. --environment narrows the grid: no macOS entry, the markers recorded.
"$T" lock --universal --requires-python '>=3.12' --environment "sys_platform == 'linux'" \
  "${IDX[@]}" "${REQS[@]}" -o "$work/linux.toml" 2>"$work/err" || { cat "$work/err"; ts_fail "--environment"; }
python3 - "$work/linux.toml" <<'PY' || ts_fail "--environment content"
import sys, tomllib
lock = tomllib.load(open(sys.argv[1], "rb"))
assert lock["environments"] == ["sys_platform == 'linux'"], lock
assert sorted((p["name"], p["version"]) for p in lock["packages"]) == [
    ("alpha", "1.0"), ("beta", "2.0"), ("delta", "1.0"), ("gamma", "1.0")], lock["packages"]
assert all("marker" not in p for p in lock["packages"]), lock["packages"]
assert lock["tool"]["torchsolve"]["universal"]["systems"] == ["linux"], lock["tool"]
assert lock["tool"]["torchsolve"]["universal"]["pythons"] == ["3.12", "3.13", "3.14", "3.15"], lock["tool"]
PY
grep -q "Resolved 16 environments" "$work/err" || { cat "$work/err"; ts_fail "linux x 2 machines x 2 implementations x 3.12-3.15"; }

# 3. The default requires-python is >= the interpreter's minor; sync
#    installs this machine's part of the lock.
"$T" lock --universal --python "$work/venv" "${IDX[@]}" alpha "beta>=2; sys_platform == 'linux'" \
  "beta<2; sys_platform == 'darwin'" -o "$work/venv.toml" 2>"$work/err" || { cat "$work/err"; ts_fail "default requires-python"; }
minor=$("$PY" -c 'import sys; print("%d.%d" % sys.version_info[:2])')
grep -qx "requires-python = \">=$minor\"" "$work/venv.toml" || ts_fail "requires-python is not >=$minor"
"$T" sync "$work/venv.toml" --python "$work/venv" --cpu 2>"$work/err" || { cat "$work/err"; ts_fail "sync"; }
got=$("$PY" -c 'import importlib.metadata as m; print(sorted((d.metadata["Name"], d.version) for d in m.distributions()))')
[ "$got" = "[('alpha', '1.0'), ('beta', '2.0')]" ] || ts_fail "sync installed $got"

# 4. Usage errors: one line, exit 2.
ts_fails 2 "--requires-python needs --universal" lock --requires-python '>=3.10' alpha
ts_fails 2 "drop --python-version" lock --universal --python-version 3.12 alpha
ts_fails 2 "not a PEP 508 marker" lock --universal --requires-python '>=3.12' --environment "sys_platform =" \
  "${IDX[@]}" alpha
ts_fails 2 "admits no Python" lock --universal --requires-python '<3' "${IDX[@]}" alpha
echo "lock --universal: ok"
