#!/usr/bin/env python3
"""Builds the package indexes the index integration tests serve.

index_fixtures.py OUT   writes, under OUT:
  idx1/simple/{alpha,shared}/      index.html + index.json (PEP 503 + PEP 691)
  idx2/simple/{shared,beta}/       a second index; its 'shared' must never win
  htmlonly/simple/alpha/           the same alpha page, HTML only
  nometa/simple/gamma/             wheels without .metadata files (range path),
                                   one with a central directory > 64 KiB
  norange/simple/gamma/            same page; the test server refuses ranges there
  bad/simple/badhash/              a wheel and a metadata file with wrong hashes
  bad/simple/badjson/              malformed PEP 691 JSON
  bad/simple/badlink/              an anchor with an invalid URL
  files/                           the wheels and their .metadata files
  flat/links.html                  a flat --find-links page of every wheel
  MANIFEST.json                    names, sizes and hashes for the assertions
Wheels are real zip files built with zipfile: a package, a .dist-info with
METADATA, WHEEL and RECORD.
"""
import hashlib
import html
import io
import json
import os
import sys
import zipfile


def sha(b):
    return hashlib.sha256(b).hexdigest()


def make_wheel(name, version, requires=(), filler=0, metadata_last=True, blob=0):
    dist = f"{name.replace('-', '_')}-{version}"
    meta = [f"Metadata-Version: 2.1", f"Name: {name}", f"Version: {version}"]
    meta += [f"Requires-Dist: {r}" for r in requires]
    metadata = ("\n".join(meta) + "\n\n" + f"{name} {version} test package\n").encode()
    wheel_txt = b"Wheel-Version: 1.0\nGenerator: torchsolve-tests\nRoot-Is-Purelib: true\nTag: py3-none-any\n"
    files = [(f"{name.replace('-', '_')}/__init__.py", f"__version__ = '{version}'\n".encode())]
    # Filler members with long names make the central directory large.
    for i in range(filler):
        files.append((f"{name.replace('-', '_')}/data/{'x' * 60}_{i:05d}.txt", b"%d\n" % i))
    if blob:  # incompressible bytes: a wheel larger than one range window
        files.append((f"{name.replace('-', '_')}/blob.bin", hashlib.shake_256(dist.encode()).digest(blob)))
    di = [(f"{dist}.dist-info/METADATA", metadata), (f"{dist}.dist-info/WHEEL", wheel_txt)]
    entries = files + di if metadata_last else di + files
    record = "".join(f"{n},sha256={sha(b)},{len(b)}\n" for n, b in entries)
    record += f"{dist}.dist-info/RECORD,,\n"
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w", zipfile.ZIP_DEFLATED) as z:
        for n, b in entries + [(f"{dist}.dist-info/RECORD", record.encode())]:
            zi = zipfile.ZipInfo(n, date_time=(2020, 1, 1, 0, 0, 0))
            zi.compress_type = zipfile.ZIP_DEFLATED
            z.writestr(zi, b)
    return f"{dist}-py3-none-any.whl", buf.getvalue(), metadata


def write(path, data):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "wb") as f:
        f.write(data if isinstance(data, bytes) else data.encode())


def page(out, index, project, files, json_too=True, files_rel="../../../files/"):
    """files: dicts with filename, sha256, meta_sha (or None), yanked, rp."""
    d = os.path.join(out, index, "simple", project)
    anchors, jfiles = [], []
    for f in files:
        href = files_rel + f["filename"] + ("#sha256=" + f["sha256"] if f.get("sha256") else "")
        attrs = [f'href="{html.escape(href)}"']
        if f.get("rp"):
            attrs.append(f'data-requires-python="{html.escape(f["rp"])}"')
        if f.get("meta_sha"):
            attrs.append(f'data-core-metadata="sha256={f["meta_sha"]}"')
            attrs.append(f'data-dist-info-metadata="sha256={f["meta_sha"]}"')
        if f.get("yanked") is not None:
            attrs.append(f'data-yanked="{html.escape(f["yanked"])}"')
        anchors.append(f'<a {" ".join(attrs)}>{html.escape(f["filename"])}</a><br/>')
        jf = {"filename": f["filename"], "url": files_rel + f["filename"],
              "hashes": {"sha256": f["sha256"]} if f.get("sha256") else {},
              "requires-python": f.get("rp"),
              "core-metadata": {"sha256": f["meta_sha"]} if f.get("meta_sha") else False,
              "yanked": f["yanked"] if f.get("yanked") is not None else False,
              "size": f.get("size")}
        jfiles.append(jf)
    write(os.path.join(d, "index.html"),
          "<!DOCTYPE html>\n<html><head><title>Links for %s</title></head><body>\n"
          "<h1>Links for %s</h1>\n%s\n</body></html>\n" % (project, project, "\n".join(anchors)))
    if json_too:
        write(os.path.join(d, "index.json"), json.dumps(
            {"meta": {"api-version": "1.1"}, "name": project, "files": jfiles, "versions": []}))


def main():
    out = sys.argv[1]
    files_dir = os.path.join(out, "files")
    manifest = {}

    def add(name, version, with_meta=True, **kw):
        fn, data, meta = make_wheel(name, version, **kw)
        write(os.path.join(files_dir, fn), data)
        if with_meta:
            write(os.path.join(files_dir, fn + ".metadata"), meta)
        rec = {"filename": fn, "sha256": sha(data), "size": len(data),
               "meta_sha": sha(meta) if with_meta else None, "metadata": meta.decode()}
        manifest[fn] = rec
        return dict(rec)

    a1 = add("alpha", "1.0", requires=["beta>=1"])
    a2 = add("alpha", "2.0", requires=["beta>=2"])
    a2["rp"] = ">=3.8, <4"
    a3 = add("alpha", "3.0")
    a3["yanked"] = "broken <build> & more"
    alpha = [a1, a2, a3]
    page(out, "idx1", "alpha", alpha)
    page(out, "htmlonly", "alpha", alpha, json_too=False)
    s1 = add("shared", "1.0")
    page(out, "idx1", "shared", [s1])
    s99 = add("shared", "99.0")  # the "attacker" upload on the second index
    page(out, "idx2", "shared", [s99])
    b1 = add("beta", "2.5")
    page(out, "idx2", "beta", [b1])

    g1 = add("gamma", "1.0", with_meta=False, blob=300000)
    g2 = add("gamma", "2.0", with_meta=False, filler=1200, metadata_last=False)
    page(out, "nometa", "gamma", [g1, g2])
    page(out, "norange", "gamma", [g1, g2])

    bad = add("badhash", "1.0")
    bad_page = dict(bad)
    bad_page["sha256"] = "0" * 64
    bad_page["meta_sha"] = "1" * 64
    page(out, "bad", "badhash", [bad_page])
    write(os.path.join(out, "bad/simple/badjson/index.json"), '{"meta": {"api-version": "1.0"}, "files": [')
    write(os.path.join(out, "bad/simple/badjson/index.html"), "<a href='x-1.0.tar.gz'>x</a>")
    write(os.path.join(out, "bad/simple/badlink/index.html"),
          '<a href="http://[::1/badlink-1.0.tar.gz">badlink-1.0.tar.gz</a>')
    # A flat --find-links page listing every wheel (pip's torch_stable.html style).
    write(os.path.join(out, "flat/links.html"), "".join(
        f'<a href="../files/{fn}#sha256={r["sha256"]}">{fn}</a><br>\n' for fn, r in sorted(manifest.items())))
    write(os.path.join(out, "MANIFEST.json"), json.dumps(manifest, indent=1))


if __name__ == "__main__":
    main()
