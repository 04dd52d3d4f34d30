#!/usr/bin/env python3
"""Builds PEP 825 variant wheels and their pages for variant_*.sh.

usage: variant_mkindex.py ROOT TAG

ROOT/whl/variant/torch/: a torch-like 2.10.0 with variantlib v0.0.3
metadata (fixtures/variant/torchlike-2.10.0-variants.json): one wheel per
label (cuda12.6, cuda12.8, cuda13.0, rocm7.0, rocm7.1, null) plus a plain
wheel, all of tag TAG, and torch-2.10.0-variants.json.
ROOT/simple/nvlib/: a non-torch package with PEP 825 v0.1.1 metadata
(cu12, cu13 and a plain wheel, py3-none-any).
ROOT/simple/wvlib/: the same wheels as nvlib's but no variants.json on
the page (only each wheel's variant.json tells), plus a wheel "broken"
whose variant.json is no JSON and a wheel "future" of schema v1.0.
Each wheel's NAME/build.txt says its label ("plain" without one), and a
variant wheel carries its dist-info/variant.json (its label's entry).
Pages link every file with a #sha256= fragment.
"""
import base64
import hashlib
import json
import os
import sys
import zipfile

ROOT, TAG = sys.argv[1], sys.argv[2]
FIXTURES = os.path.join(os.environ["TS_SOURCE_DIR"], "fixtures", "variant")


def digest(data):
    return base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()


def wheel(folder, name, version, tag, label, meta, requires=(), raw_variant=None):
    stem = f"{name}-{version}-{tag}"
    fname = f"{stem}-{label}.whl" if label else f"{stem}.whl"
    distinfo = f"{name}-{version}.dist-info"
    files = {
        f"{name}/__init__.py": b"",
        f"{name}/build.txt": (label or "plain").encode(),
        f"{distinfo}/METADATA": (f"Metadata-Version: 2.1\nName: {name}\n"
                                 f"Version: {version}\n"
                                 + "".join(f"Requires-Dist: {r}\n" for r in requires)).encode(),
        f"{distinfo}/WHEEL": (f"Wheel-Version: 1.0\nGenerator: variant_mkindex\n"
                              f"Root-Is-Purelib: false\nTag: {tag}\n").encode(),
    }
    if raw_variant is not None:
        files[f"{distinfo}/variant.json"] = raw_variant
    elif label:
        one = dict(meta)
        one["variants"] = {label: meta["variants"][label]}
        files[f"{distinfo}/variant.json"] = json.dumps(one, indent=1).encode()
    record = "".join(f"{p},sha256={digest(d)},{len(d)}\n" for p, d in files.items())
    record += f"{distinfo}/RECORD,,\n"
    files[f"{distinfo}/RECORD"] = record.encode()
    with zipfile.ZipFile(os.path.join(folder, fname), "w") as z:
        for p, data in files.items():
            z.writestr(p, data)
    return fname


def page(folder, files):
    links = []
    for f in sorted(files):
        digest = hashlib.sha256(open(os.path.join(folder, f), "rb").read()).hexdigest()
        links.append(f'<a href="{f}#sha256={digest}">{f}</a><br/>')
    with open(os.path.join(folder, "index.html"), "w") as out:
        out.write("<!DOCTYPE html><html><body>\n" + "\n".join(links) + "\n</body></html>\n")


def project(index, name, version, tag, json_name, requires=(), with_json=True, odd=()):
    """odd: (label, raw variant.json bytes) wheels added as they are"""
    folder = os.path.join(ROOT, index, name)
    os.makedirs(folder, exist_ok=True)
    raw = open(os.path.join(FIXTURES, json_name), "rb").read()
    meta = json.loads(raw)
    files = [wheel(folder, name, version, tag, label, meta, requires)
             for label in sorted(meta["variants"])]
    files.append(wheel(folder, name, version, tag, None, meta, requires))
    files += [wheel(folder, name, version, tag, label, meta, requires, data)
              for label, data in odd]
    if with_json:
        vj = f"{name}-{version}-variants.json"
        open(os.path.join(folder, vj), "wb").write(raw)
        files.append(vj)
    page(folder, files)
    with open(os.path.join(ROOT, index, "index.html"), "a") as root:
        root.write(f'<a href="{name}/">{name}</a>\n')


project("whl/variant", "torch", "2.10.0", TAG, "torchlike-2.10.0-variants.json")
# PEP 825 markers: each nvlib wheel has these Requires-Dist, which its
# variant's label and properties decide
project("simple", "nvlib", "1.0", "py3-none-any", "nvlib-1.0-variants.json", [
    "nvdep-cu12; 'nvidia :: cuda_version_lower_bound :: 12' in variant_properties",
    "nvdep-cu13; variant_label == 'cu13'",
    "nvdep-any; 'nvidia' in variant_namespaces",
])
# no variants.json on the page: each wheel's own variant.json (range
# requests); a malformed one and one of an unknown schema are skipped
future = json.loads(open(os.path.join(FIXTURES, "future-schema-variants.json")).read())
future["variants"] = {"future": {"nvidia": {"cuda_version_lower_bound": ["12"]}}}
project("simple", "wvlib", "1.0", "py3-none-any", "nvlib-1.0-variants.json", with_json=False,
        odd=[("broken", b'{"variants": {"broken": '), ("future", json.dumps(future).encode())])
# a schema version torchsolve does not read: its variants are skipped
project("simple", "futurelib", "1.0", "py3-none-any", "future-schema-variants.json")
for dep in ("nvdep-cu12", "nvdep-cu13", "nvdep-any"):
    folder = os.path.join(ROOT, "simple", dep)
    os.makedirs(folder, exist_ok=True)
    page(folder, [wheel(folder, dep.replace("-", "_"), "1.0", "py3-none-any", None, {})])
    with open(os.path.join(ROOT, "simple", "index.html"), "a") as root:
        root.write(f'<a href="{dep}/">{dep}</a>\n')
