#!/usr/bin/env bash
# bench/build-sdist.sh — source builds against pip, side by side, with no
# network: a local file:// index holding omegaconf (a wheel) and its
# sdist-only dependency antlr4-python3-runtime 4.9.3 (a setup.py-only
# sdist, as on PyPI), built with Debian's setuptools and wheel wheels from
# /usr/share/python-wheels; target venvs of Debian's /usr/bin/python3.
# Prints one table, median of $RUNS (default 5) wall seconds:
#   cold install     fresh venv, empty caches: metadata, build env, build
#   warm reinstall   fresh venv, warm caches: torchsolve's build cache hit
#                    (no backend, no build environment), pip's wheel cache
#   wheel install    the same two packages both as wheels, warm: the floor
#                    a warm reinstall of a built sdist is measured against
#   build env alone  setuptools + wheel into a fresh build environment,
#                    warm: torchsolve venv + install (hardlinks from its
#                    cache); pip's BuildEnvironment (pip install --prefix
#                    --ignore-installed into a fresh directory)
# Not a test.  Environment: TORCHSOLVE (default build/torchsolve), RUNS,
# WORK (default a temporary directory).  Every PIP_* variable is cleared.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
ts=${TORCHSOLVE:-$here/../build/torchsolve}
runs=${RUNS:-5}
wheels=/usr/share/python-wheels
[ -x "$ts" ] || { echo "no torchsolve binary at $ts (set TORCHSOLVE)" >&2; exit 2; }
[ -x /usr/bin/python3 ] || { echo "needs Debian's /usr/bin/python3" >&2; exit 2; }
ls $wheels/setuptools-*.whl $wheels/wheel-*.whl >/dev/null 2>&1 ||
  { echo "needs python3-setuptools-whl and python3-wheel-whl" >&2; exit 2; }
/usr/bin/python3 -m pip --version >/dev/null 2>&1 || { echo "needs python3-pip" >&2; exit 2; }
work=${WORK:-$(mktemp -d)}
mkdir -p "$work"
cleanup_work=
[ -z "${WORK:-}" ] && cleanup_work=$work
trap '[ -n "$cleanup_work" ] && rm -rf "$cleanup_work"' EXIT
for v in $(env | grep -o '^PIP_[A-Za-z_]*' || true); do unset "$v"; done
for v in $(env | grep -o '^TORCHSOLVE_[A-Za-z_]*' || true); do unset "$v"; done
export PIP_CONFIG_FILE=/dev/null PIP_DISABLE_PIP_VERSION_CHECK=1

python3 "$here/../tests/integration/install_mkindex.py" "$work/sdists" <<'SPEC'
simple omegaconf 2.3.0 py3-none-any antlr4-python3-runtime==4.9.*
simple antlr4-python3-runtime 4.9.3 sdist
SPEC
python3 "$here/../tests/integration/install_mkindex.py" "$work/wheels" <<'SPEC'
simple omegaconf 2.3.0 py3-none-any antlr4-python3-runtime==4.9.*
simple antlr4-python3-runtime 4.9.3 py3-none-any
SPEC

python3 - "$ts" "$work" "$runs" "$wheels" <<'PY'
import os, shutil, statistics, subprocess, sys, time
ts, work, runs, wheels = sys.argv[1], sys.argv[2], int(sys.argv[3]), sys.argv[4]
sdist_ix = ["-i", f"file://{work}/sdists/simple", "-f", wheels]
wheel_ix = ["-i", f"file://{work}/wheels/simple", "-f", wheels]
pip = ["/usr/bin/python3", "-m", "pip"]

def run(cmd, env=None):
    r = subprocess.run(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, env=env)
    if r.returncode:
        sys.exit(f"failed ({r.returncode}): {' '.join(cmd)}\n{r.stderr.decode()[-2000:]}")

def fresh(path, with_pip=False):
    shutil.rmtree(path, ignore_errors=True)
    if with_pip:
        run(["/usr/bin/python3", "-m", "venv", "--without-pip", path])
    else:
        run([ts, "venv", "-q", "--python", "/usr/bin/python3", path])

def timed(prepare, cmd, env=None):
    """median wall seconds of cmd over runs, prepare() before each"""
    out = []
    for _ in range(runs):
        prepare()
        t = time.perf_counter()
        run(cmd, env)
        out.append(time.perf_counter() - t)
    return statistics.median(out)

venv = os.path.join(work, "venv")
ts_cache = os.path.join(work, "ts-cache")
pip_cache = os.path.join(work, "pip-cache")
ts_env = dict(os.environ, TORCHSOLVE_CACHE_DIR=ts_cache)
pip_env = dict(os.environ, PIP_CACHE_DIR=pip_cache)
rows = []

def ts_inst(ix):
    return [ts, "install", "-q", "--python", venv] + ix + ["omegaconf"]

def pip_inst(ix, cache=True):
    return pip + ["--python", f"{venv}/bin/python", "install", "-q"] + ix + \
        ([] if cache else ["--no-cache-dir"]) + ["omegaconf"]

def cold_ts():
    fresh(venv); shutil.rmtree(ts_cache, ignore_errors=True)
def cold_pip():
    fresh(venv, True); shutil.rmtree(pip_cache, ignore_errors=True)
rows.append(("cold install (sdist dep)",
             timed(cold_ts, ts_inst(sdist_ix), ts_env),
             timed(cold_pip, pip_inst(sdist_ix), pip_env)))
rows.append(("warm reinstall (built before)",
             timed(lambda: fresh(venv), ts_inst(sdist_ix), ts_env),
             timed(lambda: fresh(venv, True), pip_inst(sdist_ix), pip_env)))
fresh(venv)
run(ts_inst(wheel_ix), ts_env)  # the wheels into the cache
rows.append(("wheel install (same set, warm)",
             timed(lambda: fresh(venv), ts_inst(wheel_ix), ts_env),
             timed(lambda: fresh(venv, True), pip_inst(wheel_ix), pip_env)))
env_dir = os.path.join(work, "buildenv")
def ts_env_cmd():
    return ["sh", "-c", f"'{ts}' venv -q --python /usr/bin/python3 '{env_dir}' && "
            f"'{ts}' install -q --python '{env_dir}' --no-index -f '{wheels}' "
            "'setuptools>=40.8.0' wheel"]
rows.append(("build env alone (warm)",
             timed(lambda: shutil.rmtree(env_dir, ignore_errors=True), ts_env_cmd(), ts_env),
             timed(lambda: shutil.rmtree(env_dir, ignore_errors=True),
                   pip + ["install", "-q", "--prefix", env_dir, "--ignore-installed",
                          "--no-warn-script-location", "--no-index", "-f", wheels,
                          "setuptools>=40.8.0", "wheel"], pip_env)))
print(f"median of {runs} runs, wall seconds; torchsolve {ts}; "
      f"pip {subprocess.run(pip + ['--version'], capture_output=True, text=True).stdout.split()[1]}")
print(f"{'':34} {'torchsolve':>11} {'pip':>9} {'ratio':>7}")
for name, a, b in rows:
    print(f"{name:34} {a:11.3f} {b:9.3f} {b / a:6.1f}x")
PY
