#!/usr/bin/env bash
# Seeds for fuzz_lock_pylock: the PEP 751 example from the packaging
# conformance data, plus the lock fixtures (uv and pip shapes).
set -euo pipefail
dir=$1 shared=$2
here=$(cd "$(dirname "$0")" && pwd)
ex="$shared/conformance/packaging/tests/pylock/pylock.spec-example.toml"
[ -f "$ex" ] && cp "$ex" "$dir/spec-example.toml"
for f in "$here"/../../fixtures/lock/*.toml; do
  [ -f "$f" ] && cp "$f" "$dir/$(basename "$f")"
done
exit 0
