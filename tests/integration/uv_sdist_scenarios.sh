#!/usr/bin/env bash
# uv's sdist scenarios (shared/conformance/uv/scenarios.json) through the
# real binary: each scenario's packages become a local index (its wheels
# with their tags, its sdists as setup.py sdists that setuptools builds),
# uv's no_binary / no_build become --no-binary / --only-binary, and
# `torchsolve install` must succeed exactly when uv's expectation is
# satisfiable, with the expected versions, building from the sdist when
# the scenario says the sdist is used and never when it says the wheel is.
# Requires-Python is left out: the scenarios are written for Python 3.12
# and the backends here need Debian's 3.11 (the resolver-level runner,
# conformance.resolver_uv, checks them with it).  Not replayed: the
# incompatible-python-compatible-override-* family, whose target Python
# (uv's --python-version) differs from the interpreter that would build;
# torchsolve builds only for an interpreter it installs into.
. "$(dirname "$0")/lib.sh"
T=${TORCHSOLVE:?}
ts_debian_build_wheels
scenarios=${TS_SHARED_DIR:-$TS_SOURCE_DIR/../shared}/conformance/uv/scenarios.json
[ -f "$scenarios" ] || ts_skip "no $scenarios"
work=$(ts_tmpdir)
export TORCHSOLVE_CACHE_DIR=$work/cache
ts_clear_pip_env
python3 - "$T" "$scenarios" "$work" "$WHEELS" "$TS_SOURCE_DIR" <<'PY'
import json, os, shutil, subprocess, sys
ts, path, work, wheels, src = sys.argv[1:]
mkindex = os.path.join(src, "tests/integration/install_mkindex.py")
# the scenario, and what its explanation says about the file to install
replayed = {"no-binary": "sdist", "no-build": "wheel", "no-wheels": "sdist",
            "no-wheels-with-matching-platform": "sdist", "no-wheels-no-build": None,
            "only-wheels-no-binary": None}
passed = failed = 0
for sc in json.load(open(path))["scenarios"]:
    name = sc["name"]
    if name not in replayed:
        continue
    root = os.path.join(work, name)
    spec = ""
    for pkg, versions in sc["packages"].items():
        for v, info in versions.items():
            reqs = ";;".join(info["requires"])
            if info["wheel"]:
                for tag in info["wheel_tags"]:
                    spec += f"simple {pkg} {v} {tag} {reqs}\n"
            if info["sdist"]:
                spec += f"simple {pkg} {v} sdist {reqs}\n"
    subprocess.run([sys.executable, mkindex, root], input=spec.encode(), check=True)
    venv = os.path.join(root, "venv")
    subprocess.run([ts, "venv", "-q", "--python", "/usr/bin/python3", venv], check=True)
    ro = sc["resolver_options"]
    args = [ts, "install", "--python", venv, "-i", f"file://{root}/simple", "-f", wheels]
    for p in ro["no_binary"]:
        args += ["--no-binary", p]
    for p in ro["no_build"]:
        args += ["--only-binary", p]
    args += sc["root"]["requires"]
    r = subprocess.run(args, capture_output=True, text=True)
    want = sc["expected"]["satisfiable"]
    why = None
    if (r.returncode == 0) != want:
        why = f"exit {r.returncode}, expected {'success' if want else 'failure'}: {r.stderr.strip()}"
    elif want:
        py = os.path.join(venv, "bin/python")
        for pkg, v in sc["expected"]["packages"].items():
            got = subprocess.run([py, "-c", f"import importlib.metadata as m; print(m.version({pkg!r}))"],
                                 capture_output=True, text=True).stdout.strip()
            if got != v:
                why = f"{pkg}: expected {v}, got {got or 'nothing'}"
        built = "Built a " in r.stderr
        if replayed[name] == "sdist" and not built:
            why = why or f"the sdist was not built: {r.stderr.strip()}"
        if replayed[name] == "wheel" and built:
            why = why or f"the sdist was built where the wheel is used: {r.stderr.strip()}"
    if why:
        failed += 1
        print(f"FAIL {name}: {why}")
    else:
        passed += 1
    shutil.rmtree(root)
print(f"uv sdist scenarios through the CLI: {passed} passed, {failed} failed")
sys.exit(1 if failed or passed != len(replayed) else 0)
PY
