#!/usr/bin/env python3
"""Writes fixture wheels for the installer tests into OUTDIR.

    make_wheels.py OUTDIR            good wheels (one per wheel-spec feature)
                                     and hostile ones (hostile-*.whl)
    make_wheels.py OUTDIR --big N    big-1.0 and big-2.0 with N files each

Every wheel is built at test time with the standard library; a hostile wheel
breaks exactly one rule and is otherwise valid, so a refusal proves that rule
is checked.  The expected refusal is in the file name: hostile-<case>-*.whl.
"""
import base64
import hashlib
import os
import stat
import sys
import warnings
import zipfile

warnings.simplefilter("ignore")  # the duplicate-entry case warns by design

def b64(d):
    return base64.urlsafe_b64encode(hashlib.sha256(d).digest()).rstrip(b"=").decode()

def wheel_text(purelib=True, tag="py3-none-any"):
    return ("Wheel-Version: 1.0\nGenerator: make_wheels\nRoot-Is-Purelib: %s\nTag: %s\n"
            % ("true" if purelib else "false", tag)).encode()

def metadata(name, version, requires=()):
    s = "Metadata-Version: 2.1\nName: %s\nVersion: %s\n" % (name, version)
    for r in requires:
        s += "Requires-Dist: %s\n" % r
    return s.encode()

def build(path, name, version, files, purelib=True, record_hook=None,
          extra_entries=(), symlinks=(), distinfo=None, skip_record=(),
          compression=zipfile.ZIP_DEFLATED):
    """files: list of (arcname, bytes[, mode]).  symlinks: (arcname, target)."""
    di = distinfo or "%s-%s.dist-info" % (name.replace("-", "_"), version)
    entries = list(files)
    entries.append((di + "/METADATA", metadata(name, version)))
    entries.append((di + "/WHEEL", wheel_text(purelib)))
    rows = []
    for e in entries:
        if e[0] not in skip_record:
            rows.append([e[0], "sha256=" + b64(e[1]), str(len(e[1]))])
    for arc, target in symlinks:
        rows.append([arc, "sha256=" + b64(target.encode()), str(len(target))])
    if record_hook:
        record_hook(rows)
    record = "".join(",".join(r) + "\n" for r in rows) + di + "/RECORD,,\n"
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as z:
        for e in entries:
            zi = zipfile.ZipInfo(e[0], date_time=(2020, 1, 1, 0, 0, 0))
            zi.compress_type = compression
            zi.external_attr = ((e[2] if len(e) > 2 else 0o644) | stat.S_IFREG) << 16
            z.writestr(zi, e[1])
        for arc, target in symlinks:
            zi = zipfile.ZipInfo(arc, date_time=(2020, 1, 1, 0, 0, 0))
            zi.create_system = 3
            zi.external_attr = (stat.S_IFLNK | 0o777) << 16
            z.writestr(zi, target)
        for arc, data in extra_entries:
            z.writestr(arc, data)
        z.writestr(di + "/RECORD", record)
    return path

def good(out):
    ep = b"[console_scripts]\nfeat = feat.cli:main\nfeat-sub = feat.cli:Obj.method [extra]\n" \
         b"[gui_scripts]\nfeat-gui = feat.cli:main\n[other.group]\nx = y:z\n"
    cli = (b"import sys\nclass Obj:\n    @staticmethod\n    def method():\n"
           b"        print('method ok'); return 0\n"
           b"def main():\n    print('feat main', sys.argv[1:]); return 0\n")
    for version in ("1.0", "2.0"):
        di = "feat-%s.dist-info" % version
        dd = "feat-%s.data" % version
        files = [
            ("feat/__init__.py", b"__version__ = '%s'\n" % version.encode()),
            ("feat/cli.py", cli),
            ("feat/sub/mod.py", b"X = 1\n"),
            ("feat/tool.sh", b"#!/bin/sh\necho tool\n", 0o755),
            (dd + "/scripts/feat-script", b"#!python\nimport feat\nprint('script', feat.__version__)\n"),
            (dd + "/scripts/plain-script", b"#!/bin/sh\necho plain\n"),
            (dd + "/headers/feat.h", b"#define FEAT 1\n"),
            (dd + "/data/share/feat/data.txt", b"data\n"),
            (dd + "/purelib/feat_extra.py", b"EXTRA = True\n"),
            (dd + "/platlib/feat_plat.py", b"PLAT = True\n"),
            (di + "/entry_points.txt", ep),
        ]
        if version == "1.0":
            files.append(("feat/old_only.py", b"OLD = 1\n"))
        else:
            files.append(("feat/new_only.py", b"NEW = 1\n"))
        build(os.path.join(out, "feat-%s-py3-none-any.whl" % version), "feat", version,
              files, symlinks=[("feat/link.py", "sub/mod.py")])
    build(os.path.join(out, "platty-1.0-cp311-cp311-linux_x86_64.whl"), "platty", "1.0",
          [("platty/__init__.py", b"P = 1\n")], purelib=False)
    # A name with a dot/underscore mix and a dist-info spelled differently.
    build(os.path.join(out, "Odd.Name-1.0-py3-none-any.whl"), "Odd.Name", "1.0",
          [("odd_name/__init__.py", b"")], distinfo="odd_name-1.0.dist-info")
    # Two wheels sharing a namespace file (nvidia-* style).
    for n in ("nsa", "nsb"):
        build(os.path.join(out, "%s-1.0-py3-none-any.whl" % n), n, "1.0",
              [("ns/__init__.py", b""), ("ns/%s/__init__.py" % n, b"")])

def hostile(out):
    def h(case, **kw):
        files = kw.pop("files", [("evil/__init__.py", b"")])
        build(os.path.join(out, "hostile_%s-1.0-py3-none-any.whl" % case.replace("-", "_")),
              "hostile-" + case, "1.0", files, **kw)
    h("dotdot", files=[("evil/__init__.py", b""), ("../escaped.py", b"x")])
    h("dotdot-mid", files=[("evil/../../escaped.py", b"x")])
    h("absolute", files=[("/tmp/torchsolve-escaped.py", b"x")])
    h("backslash", files=[("evil\\..\\..\\x.py", b"x")])
    h("symlink-escape", symlinks=[("evil/passwd", "../../../../../../etc/passwd")])
    h("symlink-abs", symlinks=[("evil/passwd", "/etc/passwd")])
    h("symlink-dir-write", symlinks=[("evil/d", "..")],
      files=[("evil/__init__.py", b""), ("evil/d/x.py", b"x")])
    h("duplicate", extra_entries=[("evil/__init__.py", b"second copy")])
    h("record-hash", record_hook=lambda rows: rows[0].__setitem__(1, "sha256=" + b64(b"other")))
    h("record-size", record_hook=lambda rows: rows[0].__setitem__(2, "999"))
    h("not-in-record", skip_record=("evil/__init__.py",))
    h("record-missing-file", record_hook=lambda rows: rows.append(["evil/ghost.py", "sha256=" + b64(b""), "0"]))
    h("record-no-hash", record_hook=lambda rows: rows[0].__setitem__(1, ""))
    h("distinfo-mismatch", distinfo="other-1.0.dist-info")
    h("file-and-dir", files=[("evil", b"x"), ("evil/x.py", b"x")])
    h("entry-point-slash", files=[("evil/__init__.py", b""),
      ("hostile_entry_point_slash-1.0.dist-info/entry_points.txt",
       b"[console_scripts]\n../../../../tmp/ts-evil = evil:main\n")])
    # The environment's own interpreter links, activate scripts and
    # pyvenv.cfg belong to no distribution: a wheel must not replace them.
    h("script-python", files=[("evil/__init__.py", b""),
      ("hostile_script_python-1.0.data/scripts/python3", b"#!/bin/sh\necho pwned\n")])
    h("entry-point-python", files=[("evil/__init__.py", b""),
      ("hostile_entry_point_python-1.0.dist-info/entry_points.txt",
       b"[console_scripts]\npython = evil:main\n")])
    h("data-python", files=[("evil/__init__.py", b""),
      ("hostile_data_python-1.0.data/data/bin/python", b"#!/bin/sh\necho pwned\n")])
    h("data-pyvenv", files=[("evil/__init__.py", b""),
      ("hostile_data_pyvenv-1.0.data/data/pyvenv.cfg", b"home = /nowhere\n")])
    h("script-activate", files=[("evil/__init__.py", b""),
      ("hostile_script_activate-1.0.data/scripts/activate", b"echo pwned\n")])
    # Zip bomb: 16 MiB of zeros deflates ~1000-fold.
    h("bomb-ratio", files=[("evil/__init__.py", b""), ("evil/zeros.bin", bytes(16 << 20))])
    # Truncated archive and corrupted data are made from a valid wheel.
    ok = os.path.join(out, "tmp-ok.whl")
    build(ok, "hostile-truncated", "1.0",
          [("evil/__init__.py", b""), ("evil/data.bin", os.urandom(4096))])
    data = open(ok, "rb").read()
    open(os.path.join(out, "hostile_truncated-1.0-py3-none-any.whl"), "wb").write(data[: len(data) // 2])
    os.unlink(ok)
    # Stored, so the flipped byte changes content only and the CRC must catch it
    # (a flipped deflate byte may instead break the stream or its sizes).
    build(ok, "hostile-badcrc", "1.0",
          [("evil/__init__.py", b""), ("evil/data.bin", b"A" * 100 + os.urandom(4000))],
          compression=zipfile.ZIP_STORED)
    data = bytearray(open(ok, "rb").read())
    i = data.find(b"evil/data.bin") + len(b"evil/data.bin") + 200  # inside its data
    data[i] ^= 0xFF
    open(os.path.join(out, "hostile_badcrc-1.0-py3-none-any.whl"), "wb").write(data)
    os.unlink(ok)

def big(out, n):
    import random
    rnd = random.Random(7)
    for version in ("1.0", "2.0"):
        files = []
        for i in range(n):
            d = "big/p%02d/m%04d.py" % (i % 50, i)
            body = ("# %s %d\n" % (version, i)).encode() + bytes(rnd.getrandbits(8) for _ in range(64)).hex().encode() * 8
            files.append((d, body))
        files.append(("big/__init__.py", b"__version__ = '%s'\n" % version.encode()))
        files.append(("big/only_%s.py" % version.replace(".", "_"), b""))
        files.append(("big/blob.bin", os.urandom(8 << 20)))
        build(os.path.join(out, "big-%s-py3-none-any.whl" % version), "big", version, files)

if __name__ == "__main__":
    out = sys.argv[1]
    os.makedirs(out, exist_ok=True)
    if len(sys.argv) > 3 and sys.argv[2] == "--big":
        big(out, int(sys.argv[3]))
    else:
        good(out)
        hostile(out)
