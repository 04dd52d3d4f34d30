#!/usr/bin/env bash
# Seeds for fuzz_request_reqfile: requirement files built from the PEP 508
# vectors of the packaging conformance data, with options, hashes,
# continuations and NUL-separated included files (see the target).
set -euo pipefail
dir=$1 shared=$2
python3 - "$dir" "$shared/conformance/packaging/pep508_requirements.json" <<'PY'
import json, os, sys
out, path = sys.argv[1], sys.argv[2]
d = json.load(open(path))
reqs = [v["input"] for v in d["valid"]] + d["valid_markers_in_requirement"]
reqs += [v["input"] for v in d["invalid"]]
h = "--hash=sha256:" + "ab" * 32
for i in range(0, len(reqs), 8):
    chunk = reqs[i:i + 8]
    top = "# seed\n-i https://h/simple\n--extra-index-url ${IDX}\n-r a.txt\n-c sub/c.txt\n"
    top += "\n".join(chunk) + "\n"
    top += chunk[0] + " \\\n    " + h + "\n"
    a = "--pre\n./pkg-1.0-py3-none-any.whl\n-r b.txt\n"
    b = "https://h/x-1.0.tar.gz#egg=x\n"
    c = "numpy<2\n-r ../d.txt\n"
    dd = "six ; python_version >= '3'\n"
    blob = "\0".join([top, a, b, c, dd]).encode()
    with open(os.path.join(out, "r%04d" % i), "wb") as f:
        f.write(blob)
PY
