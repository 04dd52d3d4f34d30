#!/usr/bin/env bash
# Seeds for fuzz_pep_requirement: every requirement string in the PEP 508
# vectors (valid, invalid, normalized, pairs).
set -euo pipefail
dir=$1 shared=$2
python3 - "$dir" "$shared/conformance/packaging/pep508_requirements.json" <<'PY'
import json, sys, os
out, path = sys.argv[1], sys.argv[2]
d = json.load(open(path))
seeds = {c["input"] for c in d["valid"]} | {c["input"] for c in d["invalid"]}
seeds |= set(d["valid_markers_in_requirement"])
seeds |= {c["input"] for c in d["normalized_str"]}
for p in d["equal_pairs"] + d["different_pairs"]:
    seeds |= set(p)
# the valid list is large and repetitive: keep every 8th of it
for i, s in enumerate(sorted(seeds)):
    if i % 8 and len(seeds) > 1000 and s in {c["input"] for c in d["valid"]}:
        continue
    with open(os.path.join(out, "r%05d" % i), "wb") as f:
        f.write(s.encode())
PY
