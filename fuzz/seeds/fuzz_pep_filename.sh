#!/usr/bin/env bash
# Seeds for fuzz_pep_filename: every file name and project name in the
# packaging name/filename vectors, plus the distribution names of a real
# environment and a few torch / variant wheel names.
set -euo pipefail
dir=$1 shared=$2
python3 - "$dir" "$shared" <<'PY'
import json, os, sys
out, shared = sys.argv[1], sys.argv[2]
d = json.load(open(os.path.join(shared, "conformance/packaging/names_and_filenames.json")))
seeds = set()
for c in d["canonicalize_name"]:
    seeds.add(c["input"])
for c in d["is_normalized_name"]:
    seeds.add(c["name"])
for k in ("wheel_filenames", "sdist_filenames"):
    for c in d[k]:
        seeds.add(c["filename"])
for k in ("invalid_wheel_filenames", "wheel_filenames_unsorted_tag_sets",
          "invalid_sdist_filenames"):
    seeds.update(d[k])
seeds.update([
    "torch-2.9.1a0+gitd38164a-cp311-cp311-linux_x86_64.whl",
    "torch-2.11.0+cu130-cp312-cp312-manylinux_2_28_x86_64.whl",
    "torch-2.9.0-cp313-cp313-manylinux_2_28_x86_64-cu128.whl",
    "torch-2.9.0-1-cp313-cp313t-manylinux_2_28_x86_64-null.whl",
])
real = os.path.join(shared, "real-env/h100-cu130-py312/dist-info")
if os.path.isdir(real):
    seeds.update(os.listdir(real))
for i, s in enumerate(sorted(seeds)):
    with open(os.path.join(out, "f%04d" % i), "wb") as f:
        f.write(s.encode())
PY
