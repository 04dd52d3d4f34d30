#!/usr/bin/env bash
# Source hygiene (STYLE.md §9): no unbounded or unchecked C string functions
# in product code, and no file of ../shared committed into the tree.
set -euo pipefail
src=${TS_SOURCE_DIR:?}
cd "$src"
dirs=$(ls -d core pep target host rules zip index resolver wheel lock plan cli 2>/dev/null)
[ -n "$dirs" ] || { echo "no source folders found under $src"; exit 1; }
# shellcheck disable=SC2086
hits=$(grep -rnE '(^|[^A-Za-z0-9_])(atoi|atol|atoll|strcpy|strcat|sprintf|vsprintf|strtok|gets)[[:space:]]*\(' \
         --include='*.c' --include='*.h' $dirs) || [ $? = 1 ]  # 1 = no match; 2 = read error
if [ -n "$hits" ]; then
  echo "banned functions (use snprintf, ts_buf, strtoull with end checks, explicit lengths):"
  echo "$hits"
  exit 1
fi
echo "no banned functions in: $(echo $dirs)"
