#!/usr/bin/env bash
# Seeds for fuzz_pep_marker: every marker in the PEP 508 marker vectors.
set -euo pipefail
dir=$1 shared=$2
python3 - "$dir" "$shared/conformance/packaging/pep508_markers.json" <<'PY'
import json, sys, os
out, path = sys.argv[1], sys.argv[2]
d = json.load(open(path))
seeds = set(d["valid"][::4]) | set(d["valid_legacy_pep345"][::4])
seeds |= set(d["valid_legacy_setuptools"]) | set(d["invalid"])
seeds |= {c["input"] for c in d["normalized_str"]}
seeds |= {c["marker"] for c in d["evaluate"]}
for p in d["different_pairs"]:
    seeds |= set(p)
for i, s in enumerate(sorted(seeds)):
    with open(os.path.join(out, "m%05d" % i), "wb") as f:
        f.write(s.encode())
PY
