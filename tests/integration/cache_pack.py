#!/usr/bin/env python3
"""Reads and edits entries of torchsolve's cache packs (index/cache_pack.h)
for the tests that damage an entry on purpose.

  cache_pack.py get ROOT PROJECT OUT   the live page entry of PROJECT -> OUT
  cache_pack.py put ROOT PROJECT IN    replace it with IN's bytes (its pack
                                       rewritten, index and trailer too)
  cache_pack.py count ROOT             entries in all packs, then packs

The live entry is the one in the newest pack holding it, as torchsolve
reads it.  Exit 1 when no pack holds a page of PROJECT.
"""
import glob
import hashlib
import json
import os
import struct
import sys

REC = 56
TRAILER = 8 + 16 + 32
KIND_PAGES = 0


def read_pack(path):
    """The entries of the pack at path; [] when it does not check out
    (torchsolve ignores such a pack)."""
    d = open(path, "rb").read()
    if len(d) < 8 + TRAILER or d[:8] != b"TSPACK1\n" or d[-TRAILER:-TRAILER + 8] != b"TSPKEND1":
        return []
    ioff, count = struct.unpack_from("<QQ", d, len(d) - TRAILER + 8)
    index = d[ioff:ioff + count * REC]
    if ioff + count * REC + TRAILER != len(d) or hashlib.sha256(index).digest() != d[-32:]:
        return []
    recs = []
    for i in range(count):
        kind, _, key, off, ln = struct.unpack_from("<II32sQQ", index, i * REC)
        recs.append([kind, key, d[off:off + ln]])
    return recs


def write_pack(path, recs):
    body, index = bytearray(b"TSPACK1\n"), bytearray()
    for kind, key, data in recs:
        index += struct.pack("<II32sQQ", kind, 0, key, len(body), len(data))
        body += data
    ioff = len(body)
    body += index + b"TSPKEND1" + struct.pack("<QQ", ioff, len(recs))
    body += hashlib.sha256(bytes(index)).digest()
    tmp = path + ".edit"
    open(tmp, "wb").write(body)
    os.rename(tmp, path)


def project_of(data):
    nl = data.index(b"\n")
    meta = int(data[:nl].split(b" ")[1])
    return json.loads(data[nl + 1:nl + 1 + meta]).get("project")


def packs(root):
    return sorted(glob.glob(os.path.join(root, "packs-v1", "*.pack")))


def live(root, project):
    for path in reversed(packs(root)):
        recs = read_pack(path)
        for i in reversed(range(len(recs))):
            if recs[i][0] == KIND_PAGES and project_of(recs[i][2]) == project:
                return path, recs, i
    sys.exit(1)


def main(argv):
    cmd, root = argv[1], argv[2]
    if cmd == "count":
        print(sum(len(read_pack(p)) for p in packs(root)), len(packs(root)))
        return
    path, recs, i = live(root, argv[3])
    if cmd == "get":
        open(argv[4], "wb").write(recs[i][2])
    elif cmd == "put":
        recs[i][2] = open(argv[4], "rb").read()
        write_pack(path, recs)


if __name__ == "__main__":
    main(sys.argv)
