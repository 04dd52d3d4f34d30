#!/usr/bin/env bash
# Every symbol a static library exports is in the ts_ namespace (
# one prefix, so linking torchsolve's libraries into another program
# cannot collide with its names).  Helpers shared between the files of one
# library are ts_<lib>_...; everything else is static.
set -euo pipefail
build=${TS_BUILD_DIR:?}
command -v nm >/dev/null || { echo "nm not found"; exit 77; }
libs=$(find "$build" -path '*/CMakeFiles' -prune -o -name 'libts_*.a' -print | sort)
[ -n "$libs" ] || { echo "no libts_*.a under $build"; exit 1; }
bad=0
for lib in $libs; do
  # defined, external: text, data, bss, read-only, common, weak (symbols
  # the sanitizers add under ASan/UBSan builds are theirs, not ours)
  syms=$(nm -g --defined-only "$lib" 2>/dev/null | awk 'NF == 3 && $2 ~ /^[TDBRCVWGS]$/ {print $3}' |
         grep -v '^ts_' | grep -Ev '^__(odr_asan|asan|ubsan|sancov)' || true)
  if [ -n "$syms" ]; then
    echo "$(basename "$lib") exports names outside ts_:"
    echo "$syms" | sed 's/^/  /'
    bad=1
  fi
done
[ "$bad" = 0 ] || exit 1
echo "only ts_ symbols exported by: $(for l in $libs; do basename "$l"; done | tr '\n' ' ')"
