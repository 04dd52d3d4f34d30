#!/usr/bin/env bash
# The `lint` label, in the spirit of curl's checksrc, over every product
# folder (CMakeLists.txt's TS_LIBRARY_DIRS and cli/, so a new room is
# covered by being added there): no unbounded or unchecked C string
# functions, no private allocation helper nor the policy written out again,
# then lint.py's limits (raw allocation outside core/, function, file and
# cli command length; tests/lint-allow.txt holds what may not grow).
set -euo pipefail
src=${TS_SOURCE_DIR:?}
cd "$src"
dirs=$(sed -n 's/^set(TS_LIBRARY_DIRS \(.*\))$/\1 cli/p' CMakeLists.txt)
for d in $dirs; do [ -d "$d" ] || { echo "CMakeLists.txt names $d/, which is not there"; exit 1; }; done
[ -n "$dirs" ] || { echo "no TS_LIBRARY_DIRS in $src/CMakeLists.txt"; exit 1; }
# shellcheck disable=SC2086
hits=$(grep -rnE '(^|[^A-Za-z0-9_])(atoi|atol|atoll|strcpy|strcat|sprintf|vsprintf|strtok|gets)[[:space:]]*\(' \
         --include='*.c' --include='*.h' $dirs) || [ $? = 1 ]  # 1 = no match; 2 = read error
if [ -n "$hits" ]; then
  echo "banned functions (use snprintf, ts_buf, strtoull with end checks, explicit lengths):"
  echo "$hits"
  exit 1
fi
# One allocation policy (core/alloc.h): no private xmalloc/xstrdup-style
# helper outside core/.  A definition is a line starting with a return type
# and a name like xmalloc, xcalloc, xrealloc, xstrdup, xstrndup, or any
# <prefix>_x<alloc> spelling (rules_xstrdup, host_xrealloc...), or a
# string copier named like dupn, dup_n, sdup, lower_dup, mem_dup.
# shellcheck disable=SC2086
alloc=$(grep -rnE '^(static[[:space:]]+)?(inline[[:space:]]+)?(void|char)[[:space:]]*\*[[:space:]]*(([a-z0-9_]*_)?x(malloc|calloc|realloc|reallocarray|strdup|strndup|asprintf|memdup)[a-z_]*|[a-z_]*dup(n|_n|_slice|s)?|mem_?dup)[[:space:]]*\(' \
          --include='*.c' --include='*.h' $(echo $dirs | tr ' ' '\n' | grep -vx core)) || [ $? = 1 ]
if [ -n "$alloc" ]; then
  echo "private allocation helpers (use core/alloc.h and core/str.h: ts_xmalloc, ts_xstrdup...):"
  echo "$alloc"
  exit 1
fi
# Nor the policy written out again: malloc/calloc/realloc/strdup whose
# failure is an inline abort() (up to three lines on) is ts_xmalloc...
# shellcheck disable=SC2086
inline=$(awk '/[^A-Za-z0-9_](malloc|calloc|realloc|strn?dup)[[:space:]]*\(/ { at = FNR; where = FILENAME ":" FNR }
              FNR == 1 { at = -10 }
              /^[[:space:]]*abort\(\);/ && FNR - at <= 3 { print where ": allocation failure handled by abort()" }' \
          $(find $(echo $dirs | tr ' ' '\n' | grep -vx core) -name '*.c'))
if [ -n "$inline" ]; then
  echo "allocations that abort on failure themselves (use core/alloc.h: ts_xmalloc, ts_xcalloc...):"
  echo "$inline"
  exit 1
fi
echo "no banned functions and no private allocation helpers in: $(echo $dirs)"
python3 "$(dirname "$0")/lint.py" "$src"
