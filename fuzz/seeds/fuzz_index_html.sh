#!/usr/bin/env bash
# Seeds for fuzz_index_html: poetry's PEP 503 pages and find-links page,
# plus the hand-written hostile pages in fixtures/index.
set -euo pipefail
dir=$1 shared=$2
here=$(cd "$(dirname "$0")/../.." && pwd)
i=0
for f in "$shared"/conformance/poetry/tests/repositories/fixtures/legacy/*.html \
         "$shared"/conformance/poetry/tests/repositories/fixtures/find_links/*.html \
         "$here"/fixtures/index/*.html; do
  [ -f "$f" ] || continue
  # libFuzzer runs with -max_len=65536: keep the first 64 KiB.
  head -c 65536 "$f" >"$dir/html$i"; i=$((i + 1))
done
