#!/usr/bin/env bash
# Seeds for fuzz_rules_yaml: the bundled rules.yaml, each of its sections
# alone, and the shared reference matrix (YAML that is not a rules file).
set -euo pipefail
dir=$1 shared=$2
here=$(cd "$(dirname "$0")/../.." && pwd)
head -c 65536 "$here/rules.yaml" >"$dir/rules"
python3 - "$here/rules.yaml" "$dir" <<'PY' || true
import sys
text = open(sys.argv[1]).read()
parts = text.split("\n# ----")
for i, p in enumerate(parts):
    open(f"{sys.argv[2]}/section{i}", "w").write("schema: 1\n" + p)
PY
[ -f "$shared/reference/pytorch-matrix.yaml" ] && head -c 65536 "$shared/reference/pytorch-matrix.yaml" >"$dir/matrix"
exit 0
