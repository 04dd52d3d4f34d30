#!/usr/bin/env bash
# Seeds for fuzz_zip_central: small zip archives built at run time from
# files of ../shared (stored, deflated, ZIP64 end records, a symlink entry,
# an empty archive), each under libFuzzer's 64 KiB max_len.
set -euo pipefail
dir=$1 shared=$2
python3 - "$dir" "$shared" <<'PY'
import glob, os, stat, sys, zipfile
out, shared = sys.argv[1], sys.argv[2]
files = sorted(glob.glob(os.path.join(shared, "real-env", "**", "*"), recursive=True))
files = [f for f in files if os.path.isfile(f) and os.path.getsize(f) < 8000][:40]
def mk(name, members, method=zipfile.ZIP_DEFLATED, zip64=False):
    p = os.path.join(out, name)
    with zipfile.ZipFile(p, "w", method, allowZip64=True) as z:
        for arc, data in members:
            if zip64:
                with z.open(arc, "w", force_zip64=True) as f: f.write(data)
            else:
                z.writestr(arc, data)
    if os.path.getsize(p) > 65536: os.unlink(p)
for i in range(0, len(files), 4):
    chunk = [("pkg/%d/%d-%s" % (i, k, os.path.basename(f)), open(f, "rb").read()) for k, f in enumerate(files[i:i + 4])]
    mk("deflate%d.zip" % i, chunk)
    mk("stored%d.zip" % i, chunk, zipfile.ZIP_STORED)
    mk("zip64_%d.zip" % i, chunk, zip64=True)
mk("empty.zip", [])
p = os.path.join(out, "symlink.zip")
with zipfile.ZipFile(p, "w") as z:
    zi = zipfile.ZipInfo("pkg/link"); zi.create_system = 3
    zi.external_attr = (stat.S_IFLNK | 0o777) << 16
    z.writestr(zi, "target")
    z.writestr("pkg-1.0.dist-info/METADATA", "Metadata-Version: 2.1\nName: pkg\nVersion: 1.0\n")
PY
