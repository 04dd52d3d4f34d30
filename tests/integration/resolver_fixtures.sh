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
mkindex = os.path.join(src, "tests/integration/install_mkindex.py")
env = {k: v for k, v in os.environ.items() if not k.startswith(("PIP_", "TORCHSOLVE_"))}
replayed = skipped = failed = 0

def parse(path):
    fx = {"packages": [], "python": "3.12", "args": [], "ok": None, "expect": [],
          "skip": None, "installed": [], "pages": [], "rules": [], "facts": [], "routes": []}
    pkg = None
    for raw in open(path):
        line = raw.split("#", 1)[0].strip() if not raw.lstrip().startswith("~") else raw.strip()
        if not line:
            continue
        if fx["ok"] is not None:
            fx["expect"].append(line[2:] if line.startswith("~ ") else line)
            continue
        if line.startswith("@package "):
            _, name, version = line.split()
            pkg = {"name": name, "version": version, "requires": [], "tags": [],
                   "yanked": False, "sdist": False, "rp": None}
            fx["packages"].append(pkg)
        elif line.startswith("requires-python "):
            pkg["rp"] = line[len("requires-python "):].strip()
        elif line.startswith("requires "):
            pkg["requires"].append(line[len("requires "):])
        elif line.startswith("extra "):
            x, req = line[len("extra "):].split(":", 1)
            req, _, marker = req.strip().partition(";")
            m = f'extra == "{x.strip()}"'
            pkg["requires"].append(f"{req.strip()}; ({marker.strip()}) and {m}" if marker else f"{req.strip()}; {m}")
        elif line.startswith("tag "):
            pkg["tags"].append(line[4:].strip())
        elif line == "yanked":
            pkg["yanked"] = True
        elif line == "sdist-only":
            pkg["sdist"] = True
        elif line == "sdist":
            pkg["sdist_too"] = True
        elif line.startswith("@link "):
            _, project, fname = line.split()
            fx["pages"].append(f"simple {project} - link={fname}")
        elif line.startswith("@page "):
            fx["pages"].append(f"simple {line.split()[1]} - none")
        elif line.startswith("@installed "):
            fx["installed"].append(tuple(line.split()[1:3]))
        elif line.startswith("@python "):
            fx["python"] = line.split()[1]
        elif line.startswith("@args "):
            fx["args"] = shlex.split(line[len("@args "):])
            if "--build" in fx["args"]:
                fx["skip"] = "--build"  # sources to build: build_index_sdists.sh's
            if "--ignore-host" in fx["args"]:
                # the facts reach the binary as override options, which
                # --ignore-host keeps (gpu_explicit tests that): detected
                # facts dropped by it are the unit replay's
                fx["skip"] = "--ignore-host"
        elif line.startswith("@expect "):
            fx["ok"] = line.split()[1] == "ok"
        elif line.split()[0] in ("@prefetch", "@requests", "@solves"):
            pass  # what the resolver asked its provider: the unit replay's
        elif line.startswith("@rule "):
            fx["rules"].append(rule_yaml(line[len("@rule "):]))
        elif line.startswith("@fact "):
            flag = fact_flag(line.split()[1:])
            if flag:
                fx["facts"].append(flag)
            else:
                fx["skip"] = fx["skip"] or line
        elif line.startswith("@priority "):
            # the binary decides routed projects first: route them
            fx["routes"] += line.split()[1:]
        else:  # @variant
            fx["skip"] = fx["skip"] or line.split()[0]
    return fx

def term_yaml(term):
    """name[SPEC][@LOCALGLOB] as a rules.yaml mapping."""
    term, _, local = term.partition("@")
    m = re.match(r"([A-Za-z0-9_.\-]+)(.*)", term)
    out = [f"name: {json.dumps(m.group(1))}"]
    if m.group(2):
        out.append(f"version: {json.dumps(m.group(2))}")
    if local:
        out.append(f"local: {json.dumps(local)}")
    return "{" + ", ".join(out) + "}"

def rule_yaml(text):
    """@rule KIND ID: SUBJECT -> TERM | TERM [when FACT & FACT] [fix: TEXT]"""
    text, _, fix = text.partition(" fix: ")
    kind, rule_id, rest = text.split(None, 2)
    subject, _, rest = rest.partition(" -> ")
    terms, _, when = rest.partition(" when ")
    y = (f"  - id: {rule_id.rstrip(':')}\n    kind: {kind}\n"
         f"    subject: {term_yaml(subject.strip())}\n"
         f"    terms: [{', '.join(term_yaml(t) for t in terms.split() if t != '|')}]\n")
    if when:
        y += f"    when: [{', '.join(term_yaml(t) for t in when.split() if t != '&')}]\n"
    return y + (f"    message: fixture rule\n    fix: {json.dumps(fix or 'none')}\n"
                f"    source: https://example.org/fixture\n")

def fact_flag(words):
    """A host fact as the override option that sets it, or None."""
    name, version = words[0], (words[1] if len(words) > 1 else None)
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
    fx = parse(path)
    if fx["skip"]:
        skipped += 1
        continue
    root = os.path.join(work, name)
    spec = ""
    for p in fx["packages"]:
        tags = ["sdist"] if p["sdist"] else p["tags"] or ["py3-none-any"]
        for tag in tags + (["sdist"] if p.get("sdist_too") else []):
            spec += f"simple {p['name']} {p['version']} {tag}{',yanked=fixture' if p['yanked'] else ''}"
            spec += f",requires-python={p['rp']}" if p["rp"] else ""
            spec += (" " + ";;".join(p["requires"])) if p["requires"] else ""
            spec += "\n"
    spec += "".join(line + "\n" for line in fx["pages"])
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
        f.write("schema: 1\n" + ("rules:\n" + "".join(fx["rules"]) if fx["rules"] else ""))
        if fx["routes"]:
            f.write(f"routes:\n  source: https://example.org/fixture\n"
                    f"  projects: [{', '.join(fx['routes'])}]\n")
    os.makedirs(os.path.join(root, "sysroot"), exist_ok=True)
    gfx = [f[1] for f in fx["facts"] if f[0] == "--gfx"]
    facts = [w for f in fx["facts"] if f[0] != "--gfx" for w in f]
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
    if fx["ok"]:
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
