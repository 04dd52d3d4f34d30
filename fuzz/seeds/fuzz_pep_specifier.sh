#!/usr/bin/env bash
# Seeds for fuzz_pep_specifier: "<spec>\n<version>" from the contains and
# filter vectors, plus every valid/invalid specifier.
set -euo pipefail
dir=$1 shared=$2
python3 - "$dir" "$shared/conformance/packaging/pep440_specifiers.json" <<'PY'
import json, sys, os
out, path = sys.argv[1], sys.argv[2]
d = json.load(open(path))
seeds = set()
for c in d["contains"]:
    seeds.add(c["spec"] + "\n" + c["version"])
for c in d["filter"]:
    seeds.add(c["spec"] + "\n" + "\n".join(c["input"][:16]))
seeds |= set(d["valid_specifiers"]) | set(d["invalid_specifiers"])
for i, s in enumerate(sorted(seeds)):
    with open(os.path.join(out, "s%05d" % i), "wb") as f:
        f.write(s.encode())
PY
