#!/usr/bin/env python3
"""pip's own test corpus, rewritten: install what pip installs, refuse what
pip refuses.

usage: pip_corpus.py TORCHSOLVE WORK WHEELS [CASE...]

pypa/pip's tests/data and the functional tests that use it
(tests/functional/test_install*.py, test_invalid_versions_and_specifiers.py)
say what pip does with odd inputs collected over fifteen years.  Each case
here writes its own fixture of the same shape (small wheels, sdists,
folders, index pages), runs `torchsolve` on it into a fresh venv of
Debian's python3, and checks pip's outcome: success or refusal, the message
pip gives where it matters, the versions installed, and every installed
file against the RECORDs (each RECORD path exists, each file in the venv
but the interpreter's own belongs to a RECORD).  Where the pip wheel of
/usr/share/python-wheels behaves as today's pip does, the same fixture is
also given to that pip (PIP_* cleared) to confirm the expectation.
Prints one line per failure and "pip corpus: N passed, N failed".
"""
import base64
import hashlib
import io
import json
import lzma
import os
import re
import shutil
import subprocess
import sys
import tarfile
import zipfile

TS, WORK, WHEELS = sys.argv[1:4]
ONLY = sys.argv[4:]
PIP_WHEEL = next((os.path.join(WHEELS, f) for f in sorted(os.listdir(WHEELS))
                  if f.startswith("pip-") and f.endswith(".whl")), None)
CACHE = os.path.join(WORK, "cache")


class Failed(Exception):
    pass


def check(ok, why):
    if not ok:
        raise Failed(why)


# ---- fixtures -----------------------------------------------------------

def rec_hash(data):
    d = hashlib.sha256(data).digest()
    return "sha256=" + base64.urlsafe_b64encode(d).rstrip(b"=").decode()


def wheel(dest, name, version, tag="py3-none-any", requires=(), extra=None,
          wheel_version="1.0", entry_points=None, build=None, bad_record=False,
          filename=None):
    """A wheel with a RECORD (bad_record: one hash wrong)."""
    dist = re.sub(r"[-_.]+", "_", name)
    di = f"{dist}-{version}.dist-info"
    meta = f"Metadata-Version: 2.1\nName: {name}\nVersion: {version}\n"
    meta += "".join(f"Requires-Dist: {r}\n" for r in requires)
    files = {f"{dist.lower()}/__init__.py": f"VERSION = {version!r}\n".encode()}
    files.update(extra or {})
    files[f"{di}/METADATA"] = meta.encode()
    files[f"{di}/WHEEL"] = (f"Wheel-Version: {wheel_version}\nGenerator: corpus\n"
                            f"Root-Is-Purelib: true\nTag: {tag}\n").encode()
    if entry_points:
        files[f"{di}/entry_points.txt"] = entry_points.encode()
    record = ""
    for p, d in files.items():
        h = rec_hash(d + b"x" if bad_record and p.endswith("__init__.py") else d)
        record += f"{p},{h},{len(d)}\n"
    files[f"{di}/RECORD"] = (record + f"{di}/RECORD,,\n").encode()
    fname = filename or f"{dist}-{version}{'-' + build if build else ''}-{tag}.whl"
    os.makedirs(dest, exist_ok=True)
    with zipfile.ZipFile(os.path.join(dest, fname), "w", zipfile.ZIP_DEFLATED) as z:
        for p, d in files.items():
            z.writestr(p, d)
    return os.path.join(dest, fname)


def project_files(name, version, build_requires=None, requires=()):
    """A setuptools project: setup.py, and a pyproject.toml when it has
    build requirements."""
    pkg = re.sub(r"[-_.]+", "_", name).lower()
    files = {f"{pkg}/__init__.py": f"VERSION = {version!r}\n",
             "setup.py": "from setuptools import setup\n"
                         f"setup(name={name!r}, version={version!r}, packages=[{pkg!r}], "
                         f"install_requires={list(requires)!r})\n"}
    if build_requires is not None:
        reqs = ", ".join(json.dumps(r) for r in build_requires)
        files["pyproject.toml"] = (f"[build-system]\nrequires = [{reqs}]\n"
                                   'build-backend = "setuptools.build_meta"\n')
    return files


def write_tree(root, files):
    for p, d in files.items():
        path = os.path.join(root, p)
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(path, "wb") as f:
            f.write(d.encode() if isinstance(d, str) else d)
    return root


def tar_bytes(top, files):
    buf = io.BytesIO()
    with tarfile.open(fileobj=buf, mode="w") as t:
        for p, d in sorted(files.items()):
            data = d.encode() if isinstance(d, str) else d
            info = tarfile.TarInfo(f"{top}/{p}" if top else p)
            info.size = len(data)
            info.mode = 0o644
            t.addfile(info, io.BytesIO(data))
    return buf.getvalue()


def sdist(dest, fname, top, files, compress="gz"):
    raw = tar_bytes(top, files)
    data = {"gz": lambda b: __import__("gzip").compress(b, mtime=0),
            "xz": lambda b: lzma.compress(b, format=lzma.FORMAT_XZ),
            "lzma": lambda b: lzma.compress(b, format=lzma.FORMAT_ALONE)}[compress](raw)
    os.makedirs(dest, exist_ok=True)
    with open(os.path.join(dest, fname), "wb") as f:
        f.write(data)
    return os.path.join(dest, fname)


def index(root, files):
    """A PEP 503 index of the files (paths) under root/simple."""
    by = {}
    for f in files:
        b = os.path.basename(f)
        m = re.match(r"(.+?)-\d", b)
        by.setdefault(re.sub(r"[-_.]+", "-", m.group(1)).lower(), []).append(f)
    for proj, fs in by.items():
        d = os.path.join(root, "simple", proj)
        os.makedirs(d, exist_ok=True)
        links = ""
        for f in fs:
            shutil.copy(f, d)
            b = os.path.basename(f)
            with open(f, "rb") as fh:
                h = hashlib.sha256(fh.read()).hexdigest()
            links += f'<a href="{b}#sha256={h}">{b}</a><br>\n'
        with open(os.path.join(d, "index.html"), "w") as fh:
            fh.write(f"<html><body>{links}</body></html>\n")
    return os.path.join(root, "simple")


# ---- running ------------------------------------------------------------

def venv(path):
    subprocess.run([TS, "venv", "-q", "--python", "/usr/bin/python3", path], check=True)
    return path


def run(args, cwd=None, env=None):
    e = dict(os.environ, TORCHSOLVE_CACHE_DIR=CACHE)
    e.update(env or {})
    r = subprocess.run([TS] + args, capture_output=True, text=True, cwd=cwd, env=e)
    return r.returncode, r.stdout, r.stderr


def pip(v, args, cwd=None):
    """The pip wheel of this machine run by the venv's interpreter."""
    env = {k: x for k, x in os.environ.items() if not k.startswith("PIP_")}
    env.update(PIP_DISABLE_PIP_VERSION_CHECK="1", PIP_NO_CACHE_DIR="1",
               PIP_NO_INPUT="1")
    r = subprocess.run([os.path.join(v, "bin/python"), os.path.join(PIP_WHEEL, "pip")] + args,
                       capture_output=True, text=True, cwd=cwd, env=env)
    return r.returncode, r.stdout, r.stderr


def site(v):
    return next(os.path.join(v, "lib", d, "site-packages")
                for d in os.listdir(os.path.join(v, "lib")) if d.startswith("python"))


def installed(v):
    """{normalised name: version} from the venv's dist-info folders."""
    out = {}
    for d in os.listdir(site(v)):
        if d.endswith(".dist-info"):
            meta = open(os.path.join(site(v), d, "METADATA")).read()
            n = re.search(r"^Name: (.+)$", meta, re.M).group(1).strip()
            out[re.sub(r"[-_.]+", "-", n).lower()] = re.search(
                r"^Version: (.+)$", meta, re.M).group(1).strip()
    return out


# what a venv of ours holds that no distribution installed
OWN = re.compile(r"^(pyvenv\.cfg|\.torchsolve\.lock|\.gitignore|CACHEDIR\.TAG|lib64|"
                 r"bin/(python[0-9.]*|activate.*|Activate\.ps1))$")


def check_record(v):
    """Each RECORD path exists; each file of the venv is in a RECORD."""
    listed = set()
    sp = site(v)
    for d in os.listdir(sp):
        if not d.endswith(".dist-info"):
            continue
        for row in open(os.path.join(sp, d, "RECORD")).read().splitlines():
            p = os.path.normpath(os.path.join(sp, row.rsplit(",", 2)[0]))
            check(os.path.lexists(p), f"{d}/RECORD lists {p}, which is not there")
            listed.add(p)
    for top, dirs, files in os.walk(v):
        dirs[:] = [d for d in dirs if d != "__pycache__"]
        for f in files:
            p = os.path.join(top, f)
            rel = os.path.relpath(p, v)
            if not OWN.match(rel) and p not in listed:
                raise Failed(f"{rel} is in the venv but in no RECORD")


def succeeds(r, what):
    check(r[0] == 0, f"{what}: exit {r[0]}: {r[2].strip()[-600:]}")


def refuses(r, what, pattern, code=1):
    check(r[0] == code, f"{what}: exit {r[0]}, pip exits {code}: {r[2].strip()[-400:]}")
    errors = [l for l in r[2].splitlines() if l.startswith("error: ")]
    check(len(errors) == 1, f"{what}: {len(errors)} error lines: {r[2].strip()}")
    check(re.search(pattern, r[2]), f"{what}: no '{pattern}' in: {r[2].strip()}")


def untouched(v, before, what):
    check(installed(v) == before, f"{what}: the venv changed: {installed(v)}")


# ---- the cases: pip's expected outcome for each -------------------------

def case_non_project_archives(w):
    """test_tar.tgz / test_zip.zip: archives holding no project; pip:
    'does not appear to be a Python project'."""
    v = venv(f"{w}/v")
    tgz = f"{w}/test_tar.tgz"
    with open(tgz, "wb") as f:
        import gzip
        f.write(gzip.compress(tar_bytes("dir", {"file.txt": "x\n"})))
    zp = f"{w}/test_zip.zip"
    with zipfile.ZipFile(zp, "w") as z:
        z.writestr("dir/file.txt", "x\n")
    for a in (tgz, zp):
        refuses(run(["install", "--python", v, a]), a,
                r"does not appear to be a Python project: neither 'setup.py' nor "
                r"'pyproject.toml' found")
    untouched(v, {}, "non-projects")
    if PIP_WHEEL:
        for a in (tgz, zp):
            check(pip(v, ["install", "--no-index", a])[0] != 0, f"pip installed {a}")


def case_non_project_folder(w):
    """indexes/simple and any folder with neither setup.py nor
    pyproject.toml: refused, and never written to."""
    v = venv(f"{w}/v")
    d = write_tree(f"{w}/simple", {"simple/index.html": "<html></html>\n"})
    before = sorted(os.listdir(d))
    refuses(run(["install", "--python", v, d]), d,
            r"does not appear to be a Python project")
    refuses(run(["install", "--python", v, "-e", d]), "-e " + d,
            r"does not appear to be a Python project")
    check(sorted(os.listdir(d)) == before, f"the folder was written to: {os.listdir(d)}")
    untouched(v, {}, "non-project folder")
    if PIP_WHEEL:
        r = pip(v, ["install", "--no-index", d])
        check(r[0] != 0 and "setup.py" in r[2], f"pip installed {d}: {r}")


def case_source_folder_untouched(w):
    """A setup.py folder is built, but no build/ or *.egg-info is left
    in it."""
    v = venv(f"{w}/v")
    d = write_tree(f"{w}/proj", project_files("folderproj", "1.0"))
    before = sorted(os.listdir(d))
    succeeds(run(["install", "--python", v, "--no-index", "-f", WHEELS, d]), d)
    check(installed(v).get("folderproj") == "1.0", f"installed {installed(v)}")
    check(sorted(os.listdir(d)) == before, f"the build wrote into the source folder: "
          f"{sorted(set(os.listdir(d)) - set(before))}")
    check_record(v)


def case_build_requirement_sdist_only(w):
    """pep518_with_extra_and_markers: a build requirement published only
    as an sdist is built for the build environment."""
    helper = project_files("buildhelper", "1.0")
    sd = sdist(f"{w}/files", "buildhelper-1.0.tar.gz", "buildhelper-1.0", helper)
    ix = index(f"{w}/www", [sd])
    d = write_tree(f"{w}/proj", project_files("needshelper", "1.0",
                                              ["setuptools", "wheel", "buildhelper"]))
    v = venv(f"{w}/v")
    succeeds(run(["install", "--python", v, "-i", "file://" + ix, "-f", WHEELS, d]), d)
    check(installed(v) == {"needshelper": "1.0"}, f"installed {installed(v)}")
    check_record(v)


def case_fork_bomb(w):
    """pep518_forkbomb: a project whose build needs itself; pip: '... is
    already being built'."""
    bomb = project_files("forkbomb", "235", ["setuptools", "forkbomb"])
    sd = sdist(f"{w}/files", "forkbomb-235.tar.gz", "forkbomb-235", bomb)
    ix = index(f"{w}/www", [sd])
    v = venv(f"{w}/v")
    refuses(run(["install", "--python", v, "-i", "file://" + ix, "-f", WHEELS, "forkbomb"]),
            "forkbomb", r"(\S+/forkbomb-235\.tar\.gz) is already being built: forkbomb "
            r"from \1")
    untouched(v, {}, "fork bomb")


def case_build_requirement_unmet(w):
    """A build requirement no version fits: the whole explanation, each
    line of it, not its first line alone."""
    files = [wheel(f"{w}/f", "helpertoo", "1.0")]
    ix = index(f"{w}/www", files)
    d = write_tree(f"{w}/proj", project_files("needsnewer", "1.0",
                                              ["setuptools", "helpertoo>=2"]))
    v = venv(f"{w}/v")
    r = run(["install", "--python", v, "-i", "file://" + ix, "-f", WHEELS, d])
    refuses(r, d, r"build requirements cannot be met: .*helpertoo>=2.*; .*helpertoo has 1\.0")
    untouched(v, {}, "unmet build requirement")


def case_wheel_version(w):
    """complex_dist, simple.dist: Wheel-Version 0.1 installs; a newer
    minor installs with a warning; a newer major is refused."""
    v = venv(f"{w}/v")
    old = wheel(f"{w}/f", "olddist", "0.1", wheel_version="0.1")
    succeeds(run(["install", "--python", v, old]), old)
    minor = wheel(f"{w}/f", "minordist", "1.0", wheel_version="1.9")
    r = run(["install", "--python", v, minor])
    succeeds(r, minor)
    check(re.search(r"warning: .*minordist.*Wheel-Version", r[2]), f"no warning: {r[2]}")
    major = wheel(f"{w}/f", "majordist", "1.0", wheel_version="2.0")
    refuses(run(["install", "--python", v, major]), major, r"Wheel-Version 2\.0")
    check(installed(v) == {"olddist": "0.1", "minordist": "1.0"}, f"installed {installed(v)}")
    check_record(v)
    if PIP_WHEEL:
        pv = venv(f"{w}/pv")
        check(pip(pv, ["install", "--no-index", old])[0] == 0, "pip refused Wheel-Version 0.1")
        check(pip(pv, ["install", "--no-index", major])[0] != 0, "pip took Wheel-Version 2.0")


def case_relative_cache(w):
    """--cache-dir cache and TORCHSOLVE_CACHE_DIR=cache: a source build
    works from any current folder."""
    sd = sdist(f"{w}/files", "relcache-1.0.tar.gz", "relcache-1.0",
               project_files("relcache", "1.0"))
    v1, v2 = venv(f"{w}/v1"), venv(f"{w}/v2")
    succeeds(run(["install", "--python", v1, "--cache-dir", "cache", "--no-index", "-f", WHEELS, sd],
                 cwd=w), "--cache-dir cache")
    succeeds(run(["install", "--python", v2, "--no-index", "-f", WHEELS, sd], cwd=w,
                 env={"TORCHSOLVE_CACHE_DIR": "cache"}), "TORCHSOLVE_CACHE_DIR=cache")
    for v in (v1, v2):
        check(installed(v) == {"relcache": "1.0"}, f"installed {installed(v)}")
        check_record(v)
    check(os.path.isdir(f"{w}/cache/builds-v1"), "no build cache in ./cache")


def case_invalid_metadata_version(w):
    """test_install_from_index_with_invalid_specifier: 1.0 requires
    'invalid-version ==2010i'; pip skips it with a warning, installs 0.1."""
    files = [wheel(f"{w}/f", "require-invalid-version", "1.0",
                   requires=["invalid-version ==2010i"]),
             wheel(f"{w}/f", "require-invalid-version", "0.1")]
    ix = index(f"{w}/www", files)
    v = venv(f"{w}/v")
    r = run(["install", "--python", v, "-i", "file://" + ix, "require-invalid-version"])
    succeeds(r, "require-invalid-version")
    check(re.search(r"Ignoring version 1\.0 of require-invalid-version since it has "
                    r"invalid metadata", r[2]), f"no warning: {r[2]}")
    check(installed(v) == {"require-invalid-version": "0.1"}, f"installed {installed(v)}")
    check_record(v)


def case_bad_record_fallback(w):
    """simplewheel==2.0: the build-tagged wheel (preferred) has a wrong
    RECORD, the plain one of the same version is intact."""
    files = [wheel(f"{w}/f", "simplewheel", "2.0", build="1", bad_record=True),
             wheel(f"{w}/f", "simplewheel", "2.0")]
    ix = index(f"{w}/www", files)
    v = venv(f"{w}/v")
    r = run(["install", "--python", v, "-i", "file://" + ix, "simplewheel==2.0"])
    succeeds(r, "simplewheel==2.0")
    check(re.search(r"warning: .*simplewheel-2\.0-1-py3-none-any\.whl", r[2]),
          f"no warning naming the bad file: {r[2]}")
    check(installed(v) == {"simplewheel": "2.0"}, f"installed {installed(v)}")
    check_record(v)
    bad = wheel(f"{w}/g", "onlybad", "1.0", bad_record=True)
    refuses(run(["install", "--python", v, bad]), bad, r"RECORD|sha256", code=4)


def case_lzma_sdists(w):
    """singlemodule-0.0.1.tar.lzma / .tar.xz, and pip's other xz names."""
    v = venv(f"{w}/v")
    made = []
    for i, (ext, how) in enumerate([(".tar.lzma", "lzma"), (".tlz", "lzma"), (".txz", "xz"),
                                    (".tar.xz", "xz")]):
        name = f"single{i}"
        made.append(sdist(f"{w}/files", f"{name}-0.0.1{ext}", f"{name}-0.0.1",
                          project_files(name, "0.0.1"), how))
    for sd in made:
        succeeds(run(["install", "--python", v, "--no-index", "-f", WHEELS, sd]), sd)
    check(installed(v) == {f"single{i}": "0.0.1" for i in range(4)},
          f"installed {installed(v)}")
    check_record(v)


def case_space_in_index_url(w):
    """indexes/in dex: a file:// index URL with a literal space."""
    ix = index(f"{w}/in dex", [wheel(f"{w}/f", "spaced", "1.0")])
    v = venv(f"{w}/v")
    succeeds(run(["install", "--python", v, "-i", "file://" + ix, "spaced"]), "in dex")
    check(installed(v) == {"spaced": "1.0"}, f"installed {installed(v)}")
    check_record(v)
    if PIP_WHEEL:
        pv = venv(f"{w}/pv")
        check(pip(pv, ["install", "-i", "file://" + ix, "spaced"])[0] == 0,
              "pip refused the index with a space")


def case_installed_invalid_version(w):
    """invalid_version-2010i unpacked into site-packages: freeze, list,
    show and uninstall see it."""
    v = venv(f"{w}/v")
    whl = wheel(f"{w}/f", "invalid_version", "2010i")
    with zipfile.ZipFile(whl) as z:
        z.extractall(site(v))
    r = run(["freeze", "--python", v])
    succeeds(r, "freeze")
    check("invalid-version===2010i\n" in r[1] or "invalid_version===2010i\n" in r[1],
          f"freeze: {r[1]!r}")
    r = run(["list", "--python", v])
    succeeds(r, "list")
    check(re.search(r"invalid[-_]version\s+2010i", r[1]), f"list: {r[1]!r}")
    r = run(["show", "--python", v, "invalid-version"])
    succeeds(r, "show")
    check(re.search(r"^Version: 2010i$", r[1], re.M), f"show: {r[1]!r}")
    succeeds(run(["uninstall", "--python", v, "-y", "invalid-version"]), "uninstall")
    check(installed(v) == {}, f"left {installed(v)}")


def case_old_wheel_scripts(w):
    """script.wheel1a: setuptools' t1.exe and t1-script.py wrappers are not
    installed; easy_install-2.6 becomes the target's easy_install-X.Y."""
    ep = "[console_scripts]\nt1 = t1mod:main\neasy_install = t1mod:main\n" \
         "easy_install-2.6 = t1mod:main\n"
    extra = {"t1mod.py": b"def main():\n    return 0\n"}
    for s in ("t1", "t1.exe", "t1-script.py"):
        extra[f"oldscripts-0.1.data/scripts/{s}"] = b"#!python\nprint(1)\n"
    whl = wheel(f"{w}/f", "oldscripts", "0.1", extra=extra, entry_points=ep)
    v = venv(f"{w}/v")
    succeeds(run(["install", "--python", v, whl]), whl)
    py = subprocess.run([f"{v}/bin/python", "-c", "import sys; print('%d.%d' % "
                         "sys.version_info[:2])"], capture_output=True, text=True).stdout.strip()
    bins = sorted(b for b in os.listdir(f"{v}/bin") if not OWN.match("bin/" + b))
    want = sorted(["t1", "easy_install", f"easy_install-{py}"])
    check(bins == want, f"bin/ holds {bins}, pip writes {want}")
    check_record(v)
    if PIP_WHEEL:
        pv = venv(f"{w}/pv")
        check(pip(pv, ["install", "--no-index", whl])[0] == 0, "pip refused the wheel")
        pbins = sorted(b for b in os.listdir(f"{pv}/bin") if not OWN.match("bin/" + b)
                       and not b.startswith("pip"))
        check(pbins == want, f"pip wrote {pbins}, the case says {want}")


def case_bad_files(w):
    """An empty sdist and a wheel whose file name is not a wheel's: one
    clear line each, exit 1 (pip's)."""
    v = venv(f"{w}/v")
    empty = f"{w}/empty-1.0.tar.gz"
    open(empty, "w").close()
    r = run(["install", "--python", v, "--no-index", "-f", WHEELS, empty])
    refuses(r, empty, r"empty")
    check("Error(" not in r[2] and "wheel" not in r[2].lower(),
          f"a Python repr or 'wheel' in: {r[2]}")
    bad = f"{w}/invalid.whl"
    shutil.copy(wheel(f"{w}/f", "okname", "1.0"), bad)
    r = run(["install", "--python", v, bad])
    refuses(r, bad, r"invalid\.whl.* not a valid wheel file ?name")
    line = next(l for l in r[2].splitlines() if l.startswith("error: "))
    check(line.count("invalid.whl") == 1, f"the message repeats itself: {line}")
    untouched(v, {}, "bad files")
    if PIP_WHEEL:
        check(pip(v, ["install", "--no-index", bad])[0] == 1, "pip's exit for invalid.whl")


def case_lock_file(w):
    """The environment's lock file is no part of what is installed: none
    in site-packages (an old empty one is removed) nor in a --target."""
    v = venv(f"{w}/v")
    open(os.path.join(site(v), ".torchsolve.lock"), "w").close()
    whl = wheel(f"{w}/f", "lockless", "1.0")
    succeeds(run(["install", "--python", v, whl]), whl)
    check(not os.path.exists(os.path.join(site(v), ".torchsolve.lock")),
          "a .torchsolve.lock is in site-packages")
    check_record(v)
    t = f"{w}/target"
    succeeds(run(["install", "--python", v, "--target", t, whl]), "--target")
    check(sorted(os.listdir(t)) == ["lockless", "lockless-1.0.dist-info"],
          f"--target holds {sorted(os.listdir(t))}")


CASES = [(n[5:], f) for n, f in sorted(globals().items()) if n.startswith("case_")]


def main():
    passed = failed = 0
    for name, fn in CASES:
        if ONLY and name not in ONLY:
            continue
        w = os.path.join(WORK, name)
        os.makedirs(w)
        try:
            fn(w)
            passed += 1
        except Failed as e:
            failed += 1
            print(f"FAIL {name}: {e}", flush=True)
        shutil.rmtree(w, ignore_errors=True)
    print(f"pip corpus: {passed} passed, {failed} failed")
    return 1 if failed or not passed else 0


if __name__ == "__main__":
    sys.exit(main())
