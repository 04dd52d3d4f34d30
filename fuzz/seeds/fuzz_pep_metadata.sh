#!/usr/bin/env bash
# Seeds for fuzz_pep_metadata: packaging's everything.metadata and a sample
# of real METADATA files (the smallest ones, to keep the fuzzer fast).
set -euo pipefail
dir=$1 shared=$2
src=$shared/conformance/packaging/tests/metadata/everything.metadata
[ -f "$src" ] && cp "$src" "$dir/everything"
real=$shared/real-env/h100-cu130-py312/dist-info
if [ -d "$real" ]; then
  i=0
  for f in $(ls -S -r "$real"/*/METADATA | head -40); do
    cp "$f" "$dir/real$i"
    i=$((i + 1))
  done
fi
