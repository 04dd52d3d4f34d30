#!/usr/bin/env python3
"""Builds tiny wheels and PEP 503 pages for the install_*.sh tests.

usage: install_mkindex.py ROOT < SPEC

SPEC lines: INDEX NAME VERSION TAG [REQUIRES-DIST; ...]
  INDEX  folder under ROOT holding the pages ("simple", "whl/cu126")
  TAG    wheel tag triple ("py3-none-any", "cp311-cp311-linux_x86_64"),
         optionally ",yanked=REASON" to mark the file yanked (PEP 592)
         and ",pad=N" to add N incompressible bytes (NAME/pad.bin), for a
         download that takes a while behind nginx's limit_rate,
         ",cuda=X.Y" to add NAME/version.py saying cuda = 'X.Y' (what
         torch.version.cuda reads);
         or "sdist": a source distribution NAME-VERSION.tar.gz built by
         setuptools from a setup.py alone, with ",pyproject" from a
         pyproject.toml [project] table instead, ",pep658" publishing its
         METADATA as FILE.metadata (PEP 658, with one Requires-Dist more
         than the source declares: "pep658-marker", so a test sees which
         was read), ",fail" with a setup.py that fails, ",intree" with
         an in-tree backend (backend-path) whose wheel's NAME/__init__.py
         says CONFIG = the -C settings it got (JSON) and which appends a
         line to $TS_TEST_COUNTER per build_wheel call;
         or "link=FILE": a file of that name with no distribution in it
         (a page listing what is not NAME's); or "none": a page listing no
         file (VERSION is then ignored).  Last of all, any of them may take
         ",requires-python=SPEC" (commas allowed): the link's
         data-requires-python and a wheel's Requires-Python
Everything after the tag is one Requires-Dist per ';;'-separated item;
extras named in their markers become Provides-Extra lines.
Wheels lie in the index folder itself (ROOT/INDEX/FILE, as on
download.pytorch.org); pages link them with #sha256= fragments.  Each
index folder also gets its root page (PEP 503: a link per project).
"""
import base64
import hashlib
import html
import os
import re
import sys
import zipfile


def norm(name):
    return re.sub(r"[-_.]+", "-", name).lower()


def record_hash(data):
    d = hashlib.sha256(data).digest()
    return "sha256=" + base64.urlsafe_b64encode(d).rstrip(b"=").decode()


def make_wheel(dest_dir, name, version, tag, requires, pad=0, cuda=None,
               requires_python=None):
    dist = re.sub(r"[-_.]+", "_", name)
    fname = f"{dist}-{version}-{tag}.whl"
    path = os.path.join(dest_dir, fname)
    distinfo = f"{dist}-{version}.dist-info"
    pkg = dist.lower()
    meta = f"Metadata-Version: 2.1\nName: {name}\nVersion: {version}\n"
    meta += "Summary: test package\n"
    if requires_python:
        meta += f"Requires-Python: {requires_python}\n"
    for e in sorted({m for r in requires
                     for m in re.findall(r"extra\s*==\s*['\"]([^'\"]+)['\"]", r)}):
        meta += f"Provides-Extra: {e}\n"
    for r in requires:
        meta += f"Requires-Dist: {r}\n"
    files = {
        f"{pkg}/__init__.py": f"__version__ = {version!r}\n".encode(),
        f"{distinfo}/METADATA": meta.encode(),
        f"{distinfo}/WHEEL": (
            f"Wheel-Version: 1.0\nGenerator: mkindex\nRoot-Is-Purelib: "
            f"{'true' if tag.endswith('none-any') else 'false'}\nTag: {tag}\n"
        ).encode(),
    }
    if pad:
        files[f"{pkg}/pad.bin"] = os.urandom(pad)
    if cuda:
        files[f"{pkg}/version.py"] = (
            f"__version__ = {version!r}\ncuda = {cuda!r}\nhip = None\n").encode()
    record = "".join(
        f"{p},{record_hash(d)},{len(d)}\n" for p, d in files.items()
    ) + f"{distinfo}/RECORD,,\n"
    files[f"{distinfo}/RECORD"] = record.encode()
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as z:
        for p, d in files.items():
            z.writestr(p, d)
    return fname


INTREE_BACKEND = '''import base64, hashlib, json, os, zipfile

META = "Metadata-Version: 2.1\\nName: {name}\\nVersion: {version}\\n{requires}"


def get_requires_for_build_wheel(config_settings=None):
    return []


def prepare_metadata_for_build_wheel(metadata_directory, config_settings=None):
    d = os.path.join(metadata_directory, "{dist}-{version}.dist-info")
    os.makedirs(d)
    with open(os.path.join(d, "METADATA"), "w") as f:
        f.write(META)
    return "{dist}-{version}.dist-info"


def _rec(data):
    d = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=")
    return "sha256=" + d.decode()


def build_wheel(wheel_directory, config_settings=None, metadata_directory=None):
    if os.environ.get("TS_TEST_COUNTER"):
        with open(os.environ["TS_TEST_COUNTER"], "a") as f:
            f.write("build\\n")
    config = json.dumps(config_settings or {{}}, sort_keys=True)
    di = "{dist}-{version}.dist-info"
    files = {{"{pkg}/__init__.py": ("BUILT = 'sdist'\\nCONFIG = %r\\n" % config).encode(),
             di + "/METADATA": META.encode(),
             di + "/WHEEL": b"Wheel-Version: 1.0\\nGenerator: intree\\n"
                            b"Root-Is-Purelib: true\\nTag: py3-none-any\\n"}}
    name = "{dist}-{version}-py3-none-any.whl"
    with zipfile.ZipFile(os.path.join(wheel_directory, name), "w") as z:
        record = ""
        for path, data in files.items():
            z.writestr(path, data)
            record += "%s,%s,%d\\n" % (path, _rec(data), len(data))
        z.writestr(di + "/RECORD", record + di + "/RECORD,,\\n")
    return name
'''


def make_sdist(dest_dir, name, version, flags, requires):
    import io
    import tarfile
    dist = re.sub(r"[-_.]+", "_", name)
    top = f"{dist}-{version}"
    pkg = dist.lower()
    files = {f"{pkg}/__init__.py": f"__version__ = {version!r}\nBUILT = 'sdist'\n"}
    if "intree" in flags:
        files["pyproject.toml"] = (
            '[build-system]\nrequires = []\nbuild-backend = "intree_backend"\n'
            'backend-path = ["_backend"]\n')
        files["_backend/intree_backend.py"] = INTREE_BACKEND.format(
            name=name, version=version, dist=dist, pkg=pkg,
            requires="".join(f"Requires-Dist: {r}\\n" for r in requires))
    elif "pyproject" in flags:
        deps = ", ".join(repr(r).replace("'", '"') for r in requires)
        files["pyproject.toml"] = (
            '[build-system]\nrequires = ["setuptools>=40.8"]\n'
            'build-backend = "setuptools.build_meta"\n\n'
            f'[project]\nname = "{name}"\nversion = "{version}"\n'
            f"dependencies = [{deps}]\n"
            f'[tool.setuptools]\npackages = ["{pkg}"]\n')
    else:
        body = ("raise SystemExit('error: this sdist cannot be built')\n"
                if "fail" in flags else
                f"setup(name={name!r}, version={version!r}, packages=[{pkg!r}], "
                f"install_requires={requires!r})\n")
        files["setup.py"] = "from setuptools import setup\n" + body
    fname = f"{top}.tar.gz"
    with tarfile.open(os.path.join(dest_dir, fname), "w:gz") as t:
        for p, d in sorted(files.items()):
            data = d.encode()
            info = tarfile.TarInfo(f"{top}/{p}")
            info.size = len(data)
            info.mode = 0o644
            t.addfile(info, io.BytesIO(data))
    meta = None
    if "pep658" in flags:
        meta = f"Metadata-Version: 2.1\nName: {name}\nVersion: {version}\n"
        for r in list(requires) + ["pep658-marker"]:
            meta += f"Requires-Dist: {r}\n"
        with open(os.path.join(dest_dir, fname + ".metadata"), "w") as f:
            f.write(meta)
    return fname, meta


def main():
    root = sys.argv[1]
    pages = {}
    for line in sys.stdin:
        line = line.strip()
        if not line or line.startswith("#"):
            continue
        parts = line.split(None, 4)
        index, name, version, tag = parts[:4]
        tag, _, rp = tag.partition(",requires-python=")
        tag, *flags = tag.split(",")
        yanked = next((f[len("yanked="):] for f in flags if f.startswith("yanked=")), None)
        pad = next((int(f[len("pad="):]) for f in flags if f.startswith("pad=")), 0)
        cuda = next((f[len("cuda="):] for f in flags if f.startswith("cuda=")), None)
        requires = [r.strip() for r in parts[4].split(";;")] if len(parts) > 4 else []
        files_dir = os.path.join(root, index)
        os.makedirs(files_dir, exist_ok=True)
        links = pages.setdefault((index, norm(name)), [])
        if tag == "none":
            continue
        meta = None
        if tag == "sdist":
            fname, meta = make_sdist(files_dir, name, version, flags, requires)
        elif tag.startswith("link="):
            fname = tag[len("link="):]
            with open(os.path.join(files_dir, fname), "w") as f:
                f.write(fname)
        else:
            fname = make_wheel(files_dir, name, version, tag, requires, pad, cuda, rp)
        with open(os.path.join(files_dir, fname), "rb") as f:
            sha = hashlib.sha256(f.read()).hexdigest()
        msha = hashlib.sha256(meta.encode()).hexdigest() if meta else None
        links.append((fname, sha, yanked, msha, rp))
    for (index, name), links in pages.items():
        d = os.path.join(root, index, name)
        os.makedirs(d, exist_ok=True)
        body = "".join(
            f'<a href="../{html.escape(f)}#sha256={s}"'
            + ("" if y is None else f' data-yanked="{html.escape(y)}"')
            + ("" if m is None else f' data-dist-info-metadata="sha256={m}"')
            + (f' data-requires-python="{html.escape(rp)}"' if rp else "")
            + f">{html.escape(f)}</a><br/>\n"
            for f, s, y, m, rp in links
        )
        with open(os.path.join(d, "index.html"), "w") as f:
            f.write(f"<!DOCTYPE html><html><body>\n{body}</body></html>\n")
    for index in sorted({i for i, _ in pages}):
        body = "".join(f'<a href="{n}/">{n}</a><br/>\n'
                       for n in sorted(n for i, n in pages if i == index))
        with open(os.path.join(root, index, "index.html"), "w") as f:
            f.write(f"<!DOCTYPE html><html><body>\n{body}</body></html>\n")


main()
