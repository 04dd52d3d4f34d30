#!/usr/bin/env bash
# fuzz/seeds.sh TARGET DIR — writes seed inputs for TARGET into DIR, derived
# at run time from ../shared (never committed). Each target's seeding lives
# in fuzz/seeds/<TARGET>.sh, called with DIR and the shared directory.
set -euo pipefail
target=$1 dir=$2
here=$(cd "$(dirname "$0")" && pwd)
shared=${TS_SHARED_DIR:-$here/../../shared}
[ -x "$here/seeds/$target.sh" ] || exit 0
[ -d "$shared" ] || exit 0
"$here/seeds/$target.sh" "$dir" "$shared"
