#!/usr/bin/env bash
# doc/gpu-grid.md is what tools/gpu-grid.py prints now: a change of the
# facts in rules.yaml (or of how they are judged) must come with the
# regenerated table, so that each audit of the rules is a diff.  The script
# is also run twice to show that its output does not vary.
. "$(dirname "$0")/lib.sh"
command -v python3 >/dev/null || ts_skip "python3 missing"
tmp=$(ts_tmpdir)
python3 "$TS_SOURCE_DIR/tools/gpu-grid.py" "$TORCHSOLVE" "$TS_SOURCE_DIR" >"$tmp/a.md"
if ! diff -u "$TS_SOURCE_DIR/doc/gpu-grid.md" "$tmp/a.md"; then
  ts_fail "doc/gpu-grid.md is stale: run tools/gpu-grid.py build/torchsolve > doc/gpu-grid.md"
fi
python3 "$TS_SOURCE_DIR/tools/gpu-grid.py" "$TORCHSOLVE" "$TS_SOURCE_DIR" >"$tmp/b.md"
cmp -s "$tmp/a.md" "$tmp/b.md" || ts_fail "tools/gpu-grid.py printed two different tables"
# Spot checks against the facts this table is for (issue 18).
grep -q '^| 580.95.05 | 2.14 cu126 | 2.14 cu126 | 2.14 cu126 | 2.14 cu130 ' "$tmp/a.md" || ts_fail "x86_64 row 580"
grep -q '^| 6.2 | 2.9 rocm6.3 | 2.9 rocm6.3 | 2.9 rocm6.4 ' "$tmp/a.md" || ts_fail "AMD row 6.2"
echo "gpu_grid: ok"
