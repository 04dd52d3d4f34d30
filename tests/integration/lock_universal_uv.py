#!/usr/bin/env python3
"""uv's universal lock scenarios against `torchsolve lock --universal`.

usage: lock_universal_uv.py build ROOT CONFORMANCE_DIR
       lock_universal_uv.py check ROOT URL CONFORMANCE_DIR TORCHSOLVE THRESHOLD

build: one index per scenario of uv/universal-expected.json under
  ROOT/<scenario>/ (PEP 503 pages in simple/<project>/index.html, files in
  files/): packse's layout, as tests/conformance/conf_resolver_uv.c builds
  it in memory: one wheel per tag (py3-none-any when none is given), an
  sdist, Requires-Python on every link and in METADATA, PEP 658 .metadata
  for wheels only (as PyPI), PEP 592 yanks.  An sdist's PKG-INFO is
  Metadata 2.1 (not known static) where the version has wheels and 2.2
  (static, PEP 643) where it is the only file, so a lock must take the
  metadata from the wheels that agree or from the static PKG-INFO.
check: for each scenario, `torchsolve lock --universal` (with no
  interpreter it could build with: --python names none) against
  URL/<scenario>/simple with the scenario's test_root (requires and
  requires-python), then, for every environment of the grid (linux, darwin,
  win32 x x86_64, arm64 x CPython, PyPy x every Python minor that
  requires-python admits up to 3.15), the set of (name, version) a PEP 751
  installer takes from our lock (each [[packages]] entry whose marker holds;
  more than one entry of a name failing the scenario) against the set uv's
  lock installs (its root dependencies and, from each package reached,
  dependencies and the requested extras' optional dependencies whose
  markers hold; a name with several versions picked by the edge's version).
  An unsatisfiable scenario must fail to lock (exit 1).  Scenarios where
  our answer differs from uv's and is also correct are listed in ARGUED
  with the reason and count as passed.  Prints one line per failure and
  "N passed, N failed"; exits 1 when any scenario fails, and when the data
  holds fewer than THRESHOLD scenarios (one dropped from it).  A scenario
  fails unless it was checked: an unsatisfiable one must end in the
  resolver's own failure (not any exit 1), a satisfiable one must be
  compared in at least one environment.

Markers are evaluated with packaging (pip's vendored copy), independent of
torchsolve's own evaluator.
"""
import hashlib
import html
import io
import json
import os
import re
import subprocess
import sys
import tarfile
import tomllib
import zipfile

try:
    from pip._vendor.packaging.markers import Marker
    from pip._vendor.packaging.specifiers import SpecifierSet
    from pip._vendor.packaging.version import Version
except ImportError:  # pragma: no cover - the .sh skips without pip
    sys.exit(77)

NEWEST_MINOR = 15
# what every failed resolution prints (core/error.h, TS_E_RESOLVE)
RESOLVE_HINT = "hint: relax a requirement named above"

# Scenarios where torchsolve's lock installs other packages than uv's in
# some environment and ours is also correct.  An argued scenario passes
# only when, in every environment, what our lock installs is a resolution
# of the scenario there (check_valid: each root requirement and each
# installed package's Requires-Dist whose marker holds is met by the one
# installed version of its name).
PER_ENV = ("uv forks only on the markers of a package's own requirement "
           "edges and gives up when two environments need different "
           "versions of a dependency reached through different packages; "
           "torchsolve resolves each environment and merges, and each "
           "environment's set is a valid resolution")
ARGUED = {
    "preferences-dependent-forking-conflicting":
        "uv's own run locks this scenario although the scenario file says "
        "unsatisfiable, and keeps no snapshot: only satisfiability can be "
        "compared (our lock succeeds as uv's does)",
    "wrong-backtracking-basic":
        "two resolutions exist (a 2.0.0 + b 1.0.0 + too-old, or a 1.0.0 + b "
        "2.0.9); our resolver decides root projects in name order and takes "
        "the newest a, uv decides b first: both are valid, neither is newer "
        "on every project",
    "fork-non-local-fork-marker-direct": PER_ENV,
    "fork-non-local-fork-marker-transitive": PER_ENV,
    "preferences-dependent-forking":
        "bar is unconstrained on Linux and must be 1.0.0 elsewhere: we offer "
        "the version most environments chose to the others, so bar 1.0.0 "
        "is locked once for all; uv's Linux fork keeps bar 2.0.0",
    "preferences-dependent-forking-bistable":
        "as the name says, the answer depends on the order forks are "
        "solved: cleaver 2.0.0 fits every environment (reject-cleaver2==1 "
        "on posix, ==2 elsewhere), so we lock the newest cleaver "
        "everywhere; uv's fork order ends at cleaver 1.0.0",
    "preferences-dependent-forking-tristable":
        "as the name says, the answer depends on the order forks are "
        "solved: we lock the newest cleaver where it fits; uv's fork order "
        "ends at cleaver 1.0.0",
}


def norm(name):
    return re.sub(r"[-_.]+", "-", name).lower()


def dist(name):
    return re.sub(r"[-_.]+", "_", name)


def metadata(name, version, d, metadata_version="2.1"):
    lines = [f"Metadata-Version: {metadata_version}", f"Name: {name}", f"Version: {version}"]
    if d.get("requires_python"):
        lines.append(f"Requires-Python: {d['requires_python']}")
    for r in d.get("requires") or []:
        lines.append(f"Requires-Dist: {r}")
    for extra, reqs in sorted((d.get("extras") or {}).items()):
        lines.append(f"Provides-Extra: {extra}")
        for r in reqs:
            req, _, marker = r.partition(";")
            cond = f'extra == "{extra}"'
            if marker.strip():
                cond = f"({marker.strip()}) and {cond}"
            lines.append(f"Requires-Dist: {req.strip()} ; {cond}")
    return ("\n".join(lines) + "\n").encode()


def wheel_bytes(name, version, tag, meta):
    di = f"{dist(name)}-{version}.dist-info"
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w") as z:
        z.writestr(f"{di}/METADATA", meta)
        z.writestr(f"{di}/WHEEL", f"Wheel-Version: 1.0\nGenerator: test\nRoot-Is-Purelib: true\nTag: {tag}\n")
        z.writestr(f"{di}/RECORD", "")
    return buf.getvalue()


def sdist_bytes(name, version, meta):
    buf = io.BytesIO()
    with tarfile.open(fileobj=buf, mode="w:gz") as t:
        info = tarfile.TarInfo(f"{dist(name)}-{version}/PKG-INFO")
        info.size = len(meta)
        t.addfile(info, io.BytesIO(meta))
    return buf.getvalue()


def load(conf):
    uv = os.path.join(conf, "uv")
    scen = {s["name"]: s for s in json.load(open(os.path.join(uv, "scenarios.json")))["scenarios"]}
    expected = json.load(open(os.path.join(uv, "universal-expected.json")))
    return scen, expected


def build(root, conf):
    scen, expected = load(conf)
    for exp in expected:
        sc = scen[exp["name"]]
        base = os.path.join(root, exp["name"])
        os.makedirs(os.path.join(base, "files"), exist_ok=True)
        for pkg, versions in sc["packages"].items():
            links = []
            for version, d in versions.items():
                meta = metadata(pkg, version, d)
                files = []
                if d.get("wheel", True):
                    for tag in d.get("wheel_tags") or ["py3-none-any"]:
                        files.append((f"{dist(pkg)}-{version}-{tag}.whl", wheel_bytes(pkg, version, tag, meta)))
                if d.get("sdist", True):
                    pkg_info = meta if files else metadata(pkg, version, d, "2.2")
                    files.append((f"{dist(pkg)}-{version}.tar.gz", sdist_bytes(pkg, version, pkg_info)))
                for fname, data in files:
                    with open(os.path.join(base, "files", fname), "wb") as f:
                        f.write(data)
                    attrs = ""
                    if fname.endswith(".whl"):
                        with open(os.path.join(base, "files", fname + ".metadata"), "wb") as f:
                            f.write(meta)
                        attrs = f' data-core-metadata="sha256={hashlib.sha256(meta).hexdigest()}"'
                    if d.get("requires_python"):
                        attrs += f' data-requires-python="{html.escape(d["requires_python"])}"'
                    if d.get("yanked"):
                        attrs += ' data-yanked=""'
                    href = f"../../files/{fname}#sha256={hashlib.sha256(data).hexdigest()}"
                    links.append(f'<a href="{html.escape(href)}"{attrs}>{html.escape(fname)}</a><br/>')
            page = os.path.join(base, "simple", norm(pkg))
            os.makedirs(page, exist_ok=True)
            with open(os.path.join(page, "index.html"), "w") as f:
                f.write("<!DOCTYPE html><html><body>\n" + "\n".join(links) + "\n</body></html>\n")


# ---- the environments ---------------------------------------------------

SYSTEMS = {  # sys_platform: (os_name, platform_system, {arch: platform_machine})
    "linux": ("posix", "Linux", {"x86_64": "x86_64", "arm64": "aarch64"}),
    "darwin": ("posix", "Darwin", {"x86_64": "x86_64", "arm64": "arm64"}),
    "win32": ("nt", "Windows", {"x86_64": "AMD64", "arm64": "ARM64"}),
}


def environments(requires_python):
    spec = SpecifierSet(requires_python)
    for minor in range(0, NEWEST_MINOR + 1):
        full = next((f"3.{minor}.{p}" for p in range(50) if Version(f"3.{minor}.{p}") in spec), None)
        if not full:
            continue
        for plat, (os_name, system, machines) in SYSTEMS.items():
            for arch, machine in machines.items():
                for impl, impl_name in (("cpython", "CPython"), ("pypy", "PyPy")):
                    yield {
                        "implementation_name": impl, "implementation_version": full,
                        "os_name": os_name, "platform_machine": machine,
                        "platform_python_implementation": impl_name,
                        "platform_release": "", "platform_system": system,
                        "platform_version": "", "python_full_version": full,
                        "python_version": f"3.{minor}", "sys_platform": plat, "extra": "",
                    }


def holds(marker, env):
    return not marker or Marker(marker).evaluate(env)


def env_name(env):
    return f"{env['platform_python_implementation']} {env['python_full_version']} on {env['sys_platform']} {env['platform_machine']}"


def ours(lock, env):
    got = {}
    for p in lock.get("packages", []):
        if holds(p.get("marker"), env):
            if p["name"] in got:
                raise ValueError(f"two entries of {p['name']} apply ({got[p['name']]}, {p['version']})")
            got[p["name"]] = p["version"]
    return {(n, str(Version(v))) for n, v in got.items()}


def uvs(exp, env):
    pkgs = {}
    for p in exp["packages"]:
        pkgs.setdefault(p["name"], []).append(p)
    out, todo = set(), []

    def follow(dep):
        if not holds(dep.get("marker") or dep.get("install_marker"), env):
            return
        cands = pkgs.get(dep["name"], [])
        if dep.get("version"):
            cands = [c for c in cands if Version(c["version"]) == Version(dep["version"])]
        if len(cands) != 1:
            raise ValueError(f"uv's lock: {dep['name']} is ambiguous ({len(cands)} candidates)")
        todo.append((cands[0], tuple(dep.get("extra") or ())))

    for d in exp["root_dependencies"] or []:
        follow(d)
    seen = set()
    while todo:
        p, extras = todo.pop()
        key = (p["name"], p["version"], extras)
        if key in seen:
            continue
        seen.add(key)
        out.add((p["name"], str(Version(p["version"]))))
        for d in p.get("dependencies") or []:
            follow(d)
        for e in extras:
            for d in (p.get("optional_dependencies") or {}).get(e, []):
                follow(d)
    return out


def check_valid(sc, requires, installed, env):
    """None when the installed set resolves the scenario in env, else why."""
    from pip._vendor.packaging.requirements import Requirement
    have = dict(installed)
    todo = [(Requirement(r), "the root") for r in requires]
    for name, version in installed:
        for v, d in sc["packages"].get(name, {}).items():
            if Version(v) == Version(version):
                todo += [(Requirement(r), f"{name} {version}") for r in d.get("requires") or []]
    while todo:
        req, by = todo.pop()
        if req.marker and not req.marker.evaluate(env):
            continue
        name = norm(req.name)
        if name not in have or Version(have[name]) not in req.specifier.__class__(str(req.specifier), prereleases=True):
            return f"{by} needs {req}, installed {have.get(name)}"
        for extra in req.extras:
            for v, d in sc["packages"].get(name, {}).items():
                if Version(v) == Version(have[name]):
                    todo += [(Requirement(r), f"{name}[{extra}]") for r in (d.get("extras") or {}).get(extra, [])]
    return None


def check(root, url, conf, torchsolve, threshold):
    scen, expected = load(conf)
    passed = failed = 0
    for exp in expected:
        name = exp["name"]
        sc = scen[name]
        lock_path = os.path.join(root, name, "pylock.toml")
        # uv's pip-compile scenarios (no requires-python in test_root) lock
        # for the running interpreter and newer, as our default does
        rp = exp["test_root"].get("requires_python") or f">={sc['environment']['python']}"
        cmd = [torchsolve, "lock", "--universal", "--requires-python", rp, "--cpu",
               "--python", os.path.join(root, "no-interpreter", "python3"),
               "-i", f"{url}/{name}/simple", "--torch-index-url", f"{url}/{name}/torch",
               "-o", lock_path]
        opts = sc.get("resolver_options") or {}
        if opts.get("resolution"):
            cmd += ["--resolution", opts["resolution"]]
        if opts.get("prereleases"):
            cmd.append("--pre")
        cmd += ["--"] + list(exp["test_root"]["requires"])
        run = subprocess.run(cmd, capture_output=True, text=True)
        why = None
        if not exp["satisfiable"]:
            # exit 1 is also a missing page or an unsupported input: only
            # the resolver's own failure (its hint) is the answer uv gives
            if run.returncode != 1 or RESOLVE_HINT not in run.stderr:
                why = (f"uv finds no resolution; ours exits {run.returncode}: "
                       f"{run.stderr.strip().splitlines()[-1:]}")
        elif run.returncode != 0:
            why = f"lock failed ({run.returncode}): {run.stderr.strip().splitlines()[-1:] }"
        elif exp.get("packages") is not None:
            lock = tomllib.load(open(lock_path, "rb"))
            if not list(environments(rp)):
                why = f"no environment of the grid admits requires-python {rp}: nothing compared"
            for env in environments(rp):
                try:
                    a, b = ours(lock, env), uvs(exp, env)
                except ValueError as e:
                    why = f"{env_name(env)}: {e}"
                    break
                if a != b:
                    why = f"{env_name(env)}: ours {sorted(a - b)} uv's {sorted(b - a)}"
                    break
        if why and name in ARGUED:
            invalid = None
            if run.returncode == 0:
                lock = tomllib.load(open(lock_path, "rb"))
                for env in environments(rp):
                    try:
                        invalid = check_valid(sc, exp["test_root"]["requires"], ours(lock, env), env)
                    except ValueError as e:
                        invalid = str(e)
                    if invalid:
                        invalid = f"{env_name(env)}: {invalid}"
                        break
            if invalid:
                why = f"{why}; argued, but ours is no resolution: {invalid}"
            else:
                print(f"argued {name}: {ARGUED[name]} (differs: {why})")
                why = None
        if why:
            failed += 1
            print(f"FAIL {name}: {why}")
        else:
            passed += 1
    print(f"{passed} passed, {failed} failed")
    # any failing scenario fails the run; so does a data set smaller than
    # the one these checks were written for (a scenario dropped)
    if len(expected) < threshold:
        print(f"FAIL: {len(expected)} scenarios in the data, expected at least {threshold}")
        return 1
    return 0 if failed == 0 and passed == len(expected) else 1


def main():
    if sys.argv[1] == "build":
        build(sys.argv[2], sys.argv[3])
        return 0
    return check(sys.argv[2], sys.argv[3], sys.argv[4], sys.argv[5], int(sys.argv[6]))


sys.exit(main())
