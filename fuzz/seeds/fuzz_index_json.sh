#!/usr/bin/env bash
# Seeds for fuzz_index_json: poetry's PEP 691 pages and fixtures/index/*.json.
set -euo pipefail
dir=$1 shared=$2
here=$(cd "$(dirname "$0")/../.." && pwd)
i=0
for f in "$shared"/conformance/poetry/tests/repositories/fixtures/legacy/json/*.json \
         "$here"/fixtures/index/*.json; do
  [ -f "$f" ] || continue
  head -c 65536 "$f" >"$dir/json$i"; i=$((i + 1))
done
