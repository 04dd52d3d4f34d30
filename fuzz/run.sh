#!/usr/bin/env bash
# Runs every fuzz target in BUILD_DIR for FUZZ_SECONDS each, seeded from
# fuzz/corpus/<target>/ (committed seeds) and fuzz/seeds.sh (seeds derived
# from ../shared/conformance at run time, never copied into the tree).
set -euo pipefail
build=${1:?usage: fuzz/run.sh BUILD_DIR}
here=$(cd "$(dirname "$0")" && pwd)
seconds=${FUZZ_SECONDS:-20}
shopt -s nullglob
status=0
for exe in "$build"/fuzz/fuzz_*; do
  [ -x "$exe" ] || continue
  name=$(basename "$exe")
  work=$(mktemp -d)
  [ -d "$here/corpus/$name" ] && cp -r "$here/corpus/$name/." "$work/"
  [ -x "$here/seeds.sh" ] && "$here/seeds.sh" "$name" "$work" || true
  echo "== $name (${seconds}s)"
  if ! "$exe" -max_total_time="$seconds" -max_len=65536 -rss_limit_mb=2048 "$work" 2>"$work.log"; then
    tail -40 "$work.log"; status=1
  else
    grep -E '^(Done|#[0-9]+ +DONE)' "$work.log" | tail -1 || true
  fi
  rm -rf "$work" "$work.log"
done
exit $status
