#!/usr/bin/env bash
# Seeds for fuzz_index_url: "BASE\nREF" pairs in the shapes index pages use.
set -euo pipefail
dir=$1
i=0
for base in https://pypi.org/simple/torch/ http://127.0.0.1:8080/pypi/simple/x/ \
            https://download.pytorch.org/whl/cu126/torch/ file:///srv/simple/p/; do
  for ref in ../../files/a-1.0.whl 'torch-2.5.1%2Bcu126-cp312-cp312-linux_x86_64.whl#sha256=00' \
             /whl/x.whl https://files.example/packages/ab/cd/x.whl ./a/../b.whl '?q=1' //cdn/x.whl; do
    printf '%s\n%s' "$base" "$ref" >"$dir/url$i"
    i=$((i + 1))
  done
done
