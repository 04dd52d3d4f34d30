#!/usr/bin/env bash
# Seeds for fuzz_pep_version: every version string in the PEP 440 vectors.
set -euo pipefail
dir=$1 shared=$2
python3 - "$dir" "$shared/conformance/packaging/pep440_versions.json" <<'PY'
import json, sys, os
out, path = sys.argv[1], sys.argv[2]
d = json.load(open(path))
seen = set(d["versions_sorted"]) | set(d["invalid_versions"])
seen |= {x["input"] for x in d["normalized"]}
for i, s in enumerate(sorted(seen)):
    b = s.encode()
    # first byte chooses the split point; put the whole string first
    with open(os.path.join(out, "v%04d" % i), "wb") as f:
        f.write(bytes([len(b) % 256]) + b)
PY
