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
# conformance.resolver_uv, checks them with it).
# The incompatible-python-compatible-override family resolves for a target
# Python (uv's --python-version 3.11) that is not the interpreter uv runs
# on (3.9): replayed as `install --dry-run --python-version 3.11` with
# Requires-Python kept and PATH holding only what the scenario's
# environment has: a python3.11 (Debian's) when it lists one as
# additional_python, which then prepares the sdist's metadata (uv builds
# with it too); none otherwise, where uv reads the sdist's static metadata
# without building, and the same metadata comes from the index as PEP 658
# (mkindex's pep658 flag, whose extra Requires-Dist pep658-marker the
# index serves) and must be read without a build.
. "$(dirname "$0")/lib.sh"
T=${TORCHSOLVE:?}
ts_debian_build_wheels
scenarios=${TS_SHARED_DIR:-$TS_SOURCE_DIR/../shared}/conformance/uv/scenarios.json
[ -f "$scenarios" ] || ts_skip "no $scenarios"
work=$(ts_tmpdir)
export TORCHSOLVE_CACHE_DIR=$work/cache
ts_clear_pip_env
python3 - "$T" "$scenarios" "$work" "$WHEELS" "$TS_SOURCE_DIR" <<'PY'
import json, os, re, shutil, subprocess, sys
ts, path, work, wheels, src = sys.argv[1:]
mkindex = os.path.join(src, "tests/integration/install_mkindex.py")
# the scenario, and what its explanation says about the file to install
replayed = {"no-binary": "sdist", "no-build": "wheel", "no-wheels": "sdist",
            "no-wheels-with-matching-platform": "sdist", "no-wheels-no-build": None,
            "only-wheels-no-binary": None}
family = "incompatible-python-compatible-override"
nfamily = passed = failed = 0
for sc in json.load(open(path))["scenarios"]:
    name = sc["name"]
    ro = sc["resolver_options"]
    target = ro["python"] if name.startswith(family) else None
    if name not in replayed and not target:
        continue
    nfamily += target is not None
    root = os.path.join(work, name)
    # no interpreter of the target's version: the sdists' static metadata
    static = target and target not in sc["environment"]["additional_python"]
    spec = "simple pep658-marker 1.0 py3-none-any\n" if static else ""
    for pkg, versions in sc["packages"].items():
        for v, info in versions.items():
            reqs = ";;".join(info["requires"])
            rp = f",requires-python={info['requires_python']}" if target else ""
            if info["wheel"]:
                for tag in info["wheel_tags"]:
                    spec += f"simple {pkg} {v} {tag}{rp} {reqs}\n"
            if info["sdist"]:
                spec += f"simple {pkg} {v} sdist{',pep658' if static else ''}{rp} {reqs}\n"
    subprocess.run([sys.executable, mkindex, root], input=spec.encode(), check=True)
    env = None
    if target:
        bindir = os.path.join(root, "bin")
        os.makedirs(bindir)
        if not static:
            os.symlink(f"/usr/bin/python{target}", os.path.join(bindir, f"python{target}"))
        env = dict(os.environ, PATH=bindir)
        args = [ts, "install", "--dry-run", "--python-version", target]
    else:
        venv = os.path.join(root, "venv")
        subprocess.run([ts, "venv", "-q", "--python", "/usr/bin/python3", venv], check=True)
        args = [ts, "install", "--python", venv]
    args += ["-i", f"file://{root}/simple", "-f", wheels]
    for p in ro["no_binary"]:
        args += ["--no-binary", p]
    for p in ro["no_build"]:
        args += ["--only-binary", p]
    args += sc["root"]["requires"]
    r = subprocess.run(args, capture_output=True, text=True, env=env)
    want = sc["expected"]["satisfiable"]
    why = None
    if (r.returncode == 0) != want:
        why = f"exit {r.returncode}, expected {'success' if want else 'failure'}: {r.stderr.strip()}"
    elif target:
        # the plan: "install NAME VERSION - INDEX[ (would build)]"
        plan = {m[0]: (m[1], bool(m[2])) for m in
                re.findall(r"^\s*install (\S+) (\S+) - \S+( \(would build\))?$", r.stdout, re.M)}
        for pkg, v in sc["expected"]["packages"].items():
            if plan.get(pkg, (None,))[0] != v:
                why = f"{pkg}: expected {v}, the plan has {plan.get(pkg)}: {r.stdout.strip()}"
        if not plan:
            why = why or f"no plan: {r.stdout.strip()}"
        built = "Built metadata of" in r.stderr
        if static and built:
            why = why or f"static metadata was there, yet a backend ran: {r.stderr.strip()}"
        if not static and any(wb for _, wb in plan.values()) and not built:
            why = why or f"the sdist's metadata was not prepared by python{target}: {r.stderr.strip()}"
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
print(f"uv sdist scenarios through the CLI: {passed} passed, {failed} failed "
      f"({nfamily} of the {family} family)")
sys.exit(1 if failed or nfamily != 5 or passed != len(replayed) + nfamily else 0)
PY
