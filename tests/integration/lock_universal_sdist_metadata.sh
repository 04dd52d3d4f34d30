#!/usr/bin/env bash
# lock --universal needs no interpreter for an sdist's metadata (the lock
# runs with --python naming none): the metadata its wheels of the same
# version agree on, or its static PKG-INFO (Metadata 2.2, nothing Dynamic),
# each with a note; a build only when neither tells (wheels that disagree,
# a Dynamic Requires-Dist), and then the error names the environment that
# needed it.  PEP 658 files are published for wheels only, as PyPI does.
. "$(dirname "$0")/lib.sh"
T=${TORCHSOLVE:?}
python3 -c 'import tomllib' 2>/dev/null || ts_skip "python3 lacks tomllib"
ts_isolate_from_host
work=$(ts_tmpdir)
export XDG_CONFIG_HOME=$work/config TORCHSOLVE_CACHE_DIR=$work/cache
python3 - "$work/www" <<'PY'
import hashlib, io, os, sys, tarfile, zipfile
root = sys.argv[1]
os.makedirs(os.path.join(root, "files"))
def meta(name, reqs, mv="2.1", dynamic=()):
    lines = [f"Metadata-Version: {mv}", f"Name: {name}", "Version: 1.0", "Requires-Python: >=3.10"]
    lines += [f"Dynamic: {d}" for d in dynamic] + [f"Requires-Dist: {r}" for r in reqs]
    return ("\n".join(lines) + "\n").encode()
def wheel(name, tag, m):
    b = io.BytesIO()
    with zipfile.ZipFile(b, "w") as z:
        z.writestr(f"{name}-1.0.dist-info/METADATA", m)
        z.writestr(f"{name}-1.0.dist-info/WHEEL", f"Wheel-Version: 1.0\nRoot-Is-Purelib: true\nTag: {tag}\n")
        z.writestr(f"{name}-1.0.dist-info/RECORD", "")
    return b.getvalue()
def sdist(name, m):
    b = io.BytesIO()
    with tarfile.open(fileobj=b, mode="w:gz") as t:
        for member, body in (("setup.py", b"raise SystemExit('not built here')\n"), ("PKG-INFO", m)):
            i = tarfile.TarInfo(f"{name}-1.0/{member}")
            i.size = len(body)
            t.addfile(i, io.BytesIO(body))
    return b.getvalue()
projects = {
    # wheels for 3.10 and 3.11 that agree; the sdist's PKG-INFO is 2.1
    "wheely": [("cp310-none-any", meta("wheely", ["dep"])), ("cp311-none-any", meta("wheely", ["dep"])),
               (None, meta("wheely", ["other"]))],
    # wheels that disagree: the sdist must be built
    "split": [("cp310-none-any", meta("split", ["dep"])), ("cp311-none-any", meta("split", [])),
              (None, meta("split", ["dep"]))],
    # only an sdist, its PKG-INFO static
    "static": [(None, meta("static", ["dep"], "2.2"))],
    # only an sdist, Requires-Dist Dynamic: must be built
    "dyn": [(None, meta("dyn", ["dep"], "2.2", ["Requires-Dist"]))],
    "dep": [("py3-none-any", meta("dep", []))],
    "other": [("py3-none-any", meta("other", []))],
}
for name, files in projects.items():
    links = []
    for tag, m in files:
        attrs = ""
        if tag:
            fn, data = f"{name}-1.0-{tag}.whl", wheel(name, tag, m)
            open(os.path.join(root, "files", fn + ".metadata"), "wb").write(m)
            attrs = f' data-core-metadata="sha256={hashlib.sha256(m).hexdigest()}"'
        else:
            fn, data = f"{name}-1.0.tar.gz", sdist(name, m)
        open(os.path.join(root, "files", fn), "wb").write(data)
        links.append(f'<a href="../../files/{fn}#sha256={hashlib.sha256(data).hexdigest()}"{attrs}>{fn}</a><br/>')
    os.makedirs(os.path.join(root, "simple", name))
    with open(os.path.join(root, "simple", name, "index.html"), "w") as f:
        f.write("<html><body>\n" + "\n".join(links) + "\n</body></html>\n")
PY
ts_nginx_start "$work/www"
lock() { # NAME: lock it for every environment with no interpreter to build with
  "$T" lock --universal --requires-python '>=3.10' --cpu --python "$work/none/python3" \
    -i "$TS_NGINX_URL/simple" -o "$work/$1.toml" -- "$1" 2>"$work/$1.err"
}
locked() { # LOCK NAME: the versions of NAME the lock lists
  python3 -c 'import sys, tomllib
print(" ".join(sorted(p["version"] for p in tomllib.load(open(sys.argv[1], "rb"))["packages"] if p["name"] == sys.argv[2])))' "$@"
}

# 1. The wheels of wheely 1.0 agree (dep), so the sdist listed for 3.12+
#    is taken to need dep too (its own PKG-INFO, 2.1, says other: it is not
#    read, being no promise), with a note; no build.
lock wheely || { cat "$work/wheely.err"; ts_fail "wheely: the lock needed an interpreter"; }
grep -q "wheely 1.0: the sdist's dependencies are taken from its 2 wheels" "$work/wheely.err" ||
  { cat "$work/wheely.err"; ts_fail "no note saying wheely's metadata came from its wheels"; }
[ "$(locked "$work/wheely.toml" dep)" = 1.0 ] || ts_fail "dep is not locked for wheely"
[ -z "$(locked "$work/wheely.toml" other)" ] || ts_fail "the sdist's own 2.1 PKG-INFO was trusted"
grep -q 'wheely-1.0.tar.gz' "$work/wheely.toml" || ts_fail "the sdist is not listed for 3.12+"

# lock --check of a universal lock needs no --universal (nor its
# --requires-python): the lock records its grid
"$T" lock --check --python "$work/none/python3" -i "$TS_NGINX_URL/simple" \
  -o "$work/wheely.toml" -- wheely 2>"$work/err" ||
  { cat "$work/err"; ts_fail "lock --check of the universal lock without --universal"; }

# 2. A static PKG-INFO (2.2, nothing Dynamic) of an sdist-only project.
lock static || { cat "$work/static.err"; ts_fail "static: the lock needed an interpreter"; }
grep -q "static 1.0: the sdist's dependencies are read from its static PKG-INFO" "$work/static.err" ||
  { cat "$work/static.err"; ts_fail "no note on static's PKG-INFO"; }
[ "$(locked "$work/static.toml" dep)" = 1.0 ] || ts_fail "dep is not locked for static"

# 3. Neither tells: a build, which needs an interpreter; the error names
#    the environment that needed it.
for p in split dyn; do
  lock "$p" && ts_fail "$p was locked without its metadata"
  grep -Eq "error: (CPython|PyPy) 3\.1[0-9] on [a-z0-9]+ [a-z0-9_]+: .*$p-1\.0\.tar\.gz' must be built" "$work/$p.err" ||
    { cat "$work/$p.err"; ts_fail "$p: the error does not name the environment and the sdist"; }
done
echo "ok"
