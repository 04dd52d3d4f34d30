#!/usr/bin/env python3
"""Builds the torchsolve-rules data package from a rules.yaml.

usage: tools/rules-wheel.py RULES_YAML OUT_DIR

Writes OUT_DIR/torchsolve_rules-VERSION-py3-none-any.whl, VERSION being the
file's top-level `version:` (the facts' date, YYYY.MM.DD).  The wheel holds
torchsolve_rules/__init__.py (RULES_YAML: the path of the file),
torchsolve_rules/rules.yaml and the dist-info (METADATA, WHEEL, RECORD with
each file's sha256).  The same input gives the same bytes (fixed
timestamps and order), so a rebuilt wheel hashes the same.
`torchsolve rules update` reads exactly this layout; validate the file with
`torchsolve rules check` first (`make rules-wheel` does).
"""
import base64
import hashlib
import os
import re
import sys
import zipfile

NAME = "torchsolve-rules"
DIST = "torchsolve_rules"
EPOCH = (1980, 1, 1, 0, 0, 0)


def version_of(text):
    m = re.search(r'^version:\s*["\']?([0-9][0-9.]*)["\']?\s*(#.*)?$', text, re.M)
    if not m:
        sys.exit("rules-wheel: the rules file has no top-level version: \"YYYY.MM.DD\"")
    return m.group(1)


def record_hash(data):
    digest = hashlib.sha256(data).digest()
    return "sha256=" + base64.urlsafe_b64encode(digest).rstrip(b"=").decode()


def main():
    if len(sys.argv) != 3:
        sys.exit(__doc__.split("\n\n")[1])
    src, out_dir = sys.argv[1], sys.argv[2]
    with open(src, "rb") as f:
        rules = f.read()
    version = version_of(rules.decode("utf-8"))
    distinfo = f"{DIST}-{version}.dist-info"
    files = [
        (f"{DIST}/__init__.py",
         b'"""The GPU-stack facts torchsolve reads (torchsolve rules update)."""\n'
         b"import os\n\nRULES_YAML = os.path.join(os.path.dirname(__file__), \"rules.yaml\")\n"),
        (f"{DIST}/rules.yaml", rules),
        (f"{distinfo}/METADATA",
         (f"Metadata-Version: 2.1\nName: {NAME}\nVersion: {version}\n"
          "Summary: The PyTorch binary-matrix facts torchsolve installs by "
          "(rules.yaml)\nHome-page: https://github.com/torchsolve/torchsolve\n").encode()),
        (f"{distinfo}/WHEEL",
         b"Wheel-Version: 1.0\nGenerator: torchsolve rules-wheel\n"
         b"Root-Is-Purelib: true\nTag: py3-none-any\n"),
    ]
    record = "".join(f"{p},{record_hash(d)},{len(d)}\n" for p, d in files)
    record += f"{distinfo}/RECORD,,\n"
    files.append((f"{distinfo}/RECORD", record.encode()))
    os.makedirs(out_dir, exist_ok=True)
    path = os.path.join(out_dir, f"{DIST}-{version}-py3-none-any.whl")
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as z:
        for name, data in files:
            info = zipfile.ZipInfo(name, EPOCH)
            info.external_attr = 0o644 << 16
            info.compress_type = zipfile.ZIP_DEFLATED
            z.writestr(info, data)
    print(path)


if __name__ == "__main__":
    main()
