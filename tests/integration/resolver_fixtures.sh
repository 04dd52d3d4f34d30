#!/usr/bin/env bash
# The resolver fixtures (fixtures/resolver/*.test) replayed through the real
# binary: each becomes a file:// index of real wheels and sdists
# (install_mkindex.py), a rules.yaml of its @rule lines (its @priority
# projects routed, as the binary decides routed projects first) and host
# facts given as the GPU override options over an empty sysroot; then
# `torchsolve install --dry-run` resolves its @args for --python-version
# (or, with @installed, for a venv holding those distributions, unpacked
# from the index's wheels), and the plan (or the explanation of a failure)
# must be what @expect says.  The provider counts (@prefetch, @requests,
# @solves) are unit.resolver_fixtures' alone; fixtures with a @variant
# order are replayed by it only (fixtures/resolver/README.md says why);
# this script says how many.
. "$(dirname "$0")/lib.sh"
T=${TORCHSOLVE:?}
work=$(ts_tmpdir)
python3 - "$T" "$TS_SOURCE_DIR" "$work" <<'PY'
import glob, json, os, re, shlex, subprocess, sys, zipfile

T, src, work = sys.argv[1:4]
FIXTURE_JSON = os.environ["TS_RESOLVER_FIXTURE_JSON"]
mkindex = os.path.join(src, "tests/integration/install_mkindex.py")
env = {k: v for k, v in os.environ.items() if not k.startswith(("PIP_", "TORCHSOLVE_"))}
replayed = skipped = failed = 0

def read(path):
    """The fixture as tests/support/resolver_fixture.c reads it (the
    format's one reader, which unit.resolver_fixtures links): JSON from
    resolver_fixture_json."""
    r = subprocess.run([FIXTURE_JSON, path], capture_output=True, text=True)
    if r.returncode != 0:
        sys.exit(f"FAIL {os.path.basename(path)}: {r.stderr.strip()}")
    return json.loads(r.stdout)

def skip_reason(fx):
    """Why the binary cannot replay the fixture (None: it can)."""
    if fx["variants"]:
        return "@variant"
    if "--build" in fx["args"]:
        return "--build"  # sources to build: build_index_sdists.sh's
    if "--ignore-host" in fx["args"]:
        # the facts reach the binary as override options, which
        # --ignore-host keeps (gpu_explicit tests that): detected facts
        # dropped by it are the unit replay's
        return "--ignore-host"
    for name, version in fx["facts"]:
        if not fact_flag(name, version):
            return f"@fact {name}"
    return None

def term_yaml(term):
    """A rules term as a rules.yaml mapping."""
    out = [f"name: {json.dumps(term['name'])}"]
    if term["spec"]:
        out.append(f"version: {json.dumps(term['spec'])}")
    if term["local"]:
        out.append(f"local: {json.dumps(term['local'])}")
    return "{" + ", ".join(out) + "}"

def rule_yaml(rule):
    y = (f"  - id: {rule['id']}\n    kind: {rule['kind']}\n"
         f"    subject: {term_yaml(rule['subject'])}\n"
         f"    terms: [{', '.join(term_yaml(t) for t in rule['terms'])}]\n")
    if rule["when"]:
        y += f"    when: [{', '.join(term_yaml(t) for t in rule['when'])}]\n"
    return y + (f"    message: fixture rule\n    fix: {json.dumps(rule['fix'] or 'none')}\n"
                f"    source: https://example.org/fixture\n")

def fact_flag(name, version):
    """A host fact as the override option that sets it, or None."""
    if name.startswith("__gfx"):
        return ["--gfx", name[2:]]
    if name.startswith("__cc_"):
        return ["--compute-capability", name[5:]]
    flags = {"__rocm": "--rocm", "__cuda_driver": "--cuda-driver", "__cuda": "--cuda"}
    return [flags[name], version] if name in flags and version else None

def make_venv(root, installed):
    """A venv holding each (name, version): its index wheel unpacked, or
    a dist-info with only its METADATA when the index has none."""
    venv = os.path.join(root, "venv")
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", venv], check=True)
    site = subprocess.run([os.path.join(venv, "bin/python"), "-c",
                           "import sysconfig; print(sysconfig.get_path('purelib'))"],
                          capture_output=True, text=True, check=True).stdout.strip()
    for name, version in installed:
        dist = re.sub(r"[-_.]+", "_", name)
        whl = [f for f in glob.glob(os.path.join(root, "simple", "*.whl"))
               if os.path.basename(f).lower().startswith(f"{dist.lower()}-{version}-")]
        if whl:
            with zipfile.ZipFile(whl[0]) as z:
                z.extractall(site)
        else:  # not on the index: a dist-info with its name and version only
            os.makedirs(os.path.join(site, f"{dist}-{version}.dist-info"))
            with open(os.path.join(site, f"{dist}-{version}.dist-info", "METADATA"), "w") as f:
                f.write(f"Metadata-Version: 2.1\nName: {name}\nVersion: {version}\n")
        for d in glob.glob(os.path.join(site, "*.dist-info")):
            if os.path.basename(d).lower().startswith(f"{dist.lower()}-{version}."):
                with open(os.path.join(d, "INSTALLER"), "w") as f:
                    f.write("pip\n")
    return venv

for path in sorted(glob.glob(os.path.join(src, "fixtures/resolver/*.test"))):
    name = os.path.basename(path)
    fx = read(path)
    if skip_reason(fx):
        skipped += 1
        continue
    root = os.path.join(work, name)
    spec = ""
    for p in fx["packages"]:
        tags = ["sdist"] if p["sdist_only"] else p["tags"] or ["py3-none-any"]
        for tag in tags + (["sdist"] if p["sdist"] else []):
            spec += f"simple {p['name']} {p['version']} {tag}{',yanked=fixture' if p['yanked'] else ''}"
            spec += f",requires-python={p['requires_python']}" if p["requires_python"] else ""
            spec += (" " + ";;".join(p["requires_dist"])) if p["requires_dist"] else ""
            spec += "\n"
    spec += "".join(f"simple {project} - link={fname}\n" for project, fname in fx["links"])
    spec += "".join(f"simple {project} - none\n" for project in fx["pages"])
    subprocess.run([sys.executable, mkindex, root], input=spec.encode(), check=True)
    args, cons = [], []
    it = iter(fx["args"])
    for a in it:
        if a == "-c":  # a constraint on the command line becomes a -c file
            cons.append(next(it))
        else:
            args.append(a)
    if cons:
        with open(os.path.join(root, "constraints.txt"), "w") as f:
            f.write("\n".join(cons) + "\n")
        args += ["-c", os.path.join(root, "constraints.txt")]
    target = ["--python-version", fx["python"], "--platform", "manylinux_2_36_x86_64"]
    if fx["installed"]:
        target = ["--python", make_venv(root, fx["installed"])]
    # the fixture's rules alone, and the host only its facts (an empty
    # sysroot: nothing of this machine's GPU stack)
    rules = os.path.join(root, "rules.yaml")
    with open(rules, "w") as f:
        f.write("schema: 1\n" + ("rules:\n" + "".join(rule_yaml(r) for r in fx["rules"])
                                  if fx["rules"] else ""))
        # the binary decides routed projects first: route the @priority ones
        if fx["priority"]:
            f.write(f"routes:\n  source: https://example.org/fixture\n"
                    f"  projects: [{', '.join(fx['priority'])}]\n")
    os.makedirs(os.path.join(root, "sysroot"), exist_ok=True)
    flags = [fact_flag(name, version) for name, version in fx["facts"]]
    gfx = [f[1] for f in flags if f[0] == "--gfx"]
    facts = [w for f in flags if f[0] != "--gfx" for w in f]
    facts += ["--gfx", ",".join(gfx)] if gfx else []
    target += ["--sysroot", os.path.join(root, "sysroot"), *facts]
    env["TORCHSOLVE_BUNDLED_RULES"] = rules
    env["XDG_CONFIG_HOME"] = root  # no user rules.yaml either
    # the unit replay's resolver takes wheels only: so does the binary here
    # (sdists as candidates are build_index_sdists.sh's)
    cmd = [T, "install", "--dry-run", "--only-binary", ":all:", *target, "--no-cache",
           "--index-url", f"file://{root}/simple", *args]
    r = subprocess.run(cmd, capture_output=True, text=True, env=env)
    replayed += 1
    why = None
    if fx["expect_ok"]:
        got = sorted(f"{w[1]} {w[2]} {w[0]}" for w in (l.split() for l in r.stdout.splitlines()) if len(w) >= 3)
        if r.returncode != 0:
            why = f"exit {r.returncode}: {r.stderr.strip()}"
        elif got != sorted(fx["expect"]):
            why = f"expected {sorted(fx['expect'])}, got {got}"
    elif r.returncode != 1:
        why = f"expected exit 1, got {r.returncode}: {r.stderr.strip()}"
    else:
        missing = [e for e in fx["expect"] if e not in r.stderr]
        if missing:
            why = f"explanation lacks {missing}: {r.stderr.strip()}"
    if why:
        failed += 1
        print(f"FAIL {name}: {why}\n  {' '.join(shlex.quote(c) for c in cmd)}")
print(f"resolver fixtures through the binary: {replayed} replayed, {failed} failed; "
      f"{skipped} state a variant order, sources to build or --ignore-host "
      f"(unit.resolver_fixtures replays them)")
sys.exit(1 if failed or not replayed else 0)
PY
