#!/usr/bin/env bash
# The resolver fixtures (fixtures/resolver/*.test) replayed through the real
# binary: each becomes a file:// index of real wheels (install_mkindex.py),
# `torchsolve install --dry-run --python-version` resolves its @args with
# no rules file routing or constraining anything, and the plan (or the
# explanation of a failure) must be what @expect says.  Fixtures that need
# what a command line cannot give a described target (host facts and
# rules, variant orders, an installed set) or a file the index builder does
# not write (sdists, Requires-Python) are replayed by unit.resolver_fixtures
# only; this script says how many.
. "$(dirname "$0")/lib.sh"
T=${TORCHSOLVE:?}
work=$(ts_tmpdir)
printf 'schema: 1\n' >"$work/no-rules.yaml"
export TORCHSOLVE_BUNDLED_RULES="$work/no-rules.yaml"
python3 - "$T" "$TS_SOURCE_DIR" "$work" <<'PY'
import glob, os, re, shlex, subprocess, sys

T, src, work = sys.argv[1:4]
mkindex = os.path.join(src, "tests/integration/install_mkindex.py")
env = {k: v for k, v in os.environ.items() if not k.startswith(("PIP_", "TORCHSOLVE_"))}
env["TORCHSOLVE_BUNDLED_RULES"] = os.environ["TORCHSOLVE_BUNDLED_RULES"]
replayed = skipped = failed = 0

def parse(path):
    fx = {"packages": [], "python": "3.12", "args": [], "ok": None, "expect": [], "skip": None}
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
            pkg = {"name": name, "version": version, "requires": [], "tags": [], "yanked": False}
            fx["packages"].append(pkg)
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
        elif line.startswith("@python "):
            fx["python"] = ".".join(line.split()[1].split(".")[:2])
            fx["skip"] = fx["skip"] or "a full Python version"
        elif line.startswith("@args "):
            fx["args"] = shlex.split(line[len("@args "):])
        elif line.startswith("@expect "):
            fx["ok"] = line.split()[1] == "ok"
        else:  # @fact, @rule, @variant, @installed, requires-python, sdist-only
            fx["skip"] = fx["skip"] or line.split()[0]
    return fx

for path in sorted(glob.glob(os.path.join(src, "fixtures/resolver/*.test"))):
    name = os.path.basename(path)
    fx = parse(path)
    if fx["skip"]:
        skipped += 1
        continue
    root = os.path.join(work, name)
    spec = ""
    for p in fx["packages"]:
        for tag in p["tags"] or ["py3-none-any"]:
            spec += f"simple {p['name']} {p['version']} {tag}{',yanked=fixture' if p['yanked'] else ''}"
            spec += (" " + ";;".join(p["requires"])) if p["requires"] else ""
            spec += "\n"
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
    cmd = [T, "install", "--dry-run", "--python-version", fx["python"],
           "--platform", "manylinux_2_36_x86_64", "--no-cache",
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
      f"{skipped} need host facts, rules, variants, an installed set, sdists or "
      f"Requires-Python (unit.resolver_fixtures replays them)")
sys.exit(1 if failed or not replayed else 0)
PY
