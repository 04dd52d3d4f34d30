#!/usr/bin/env bash
# bench/resolve-pyrax.sh — the hard-resolution benchmark: resolvelib's
# pyrax-1.9.8 case (pyrax==1.9.8 on the 2020 PyPI snapshot merged into the
# shared benchmark world; the solver walks oslo-utils, oslo-config,
# keystoneauth1 ... down dozens of releases).  Runs ../shared/bench/compare
# on that one scenario (d-resolvelib/pyrex-1.9.8) for pip, torchsolve and uv
# (when $UV or `uv` is present), cold (empty cache) and warm (cache of a
# cold run), RUNS timed runs each, and prints compare's table plus each
# tool's warm and cold speed-up over pip, by wall time and by CPU time
# (user+sys of the tool and its children).  On a shared machine the wall
# ratio of a 30 ms process moves with the load (it waits for a core at
# every block); the CPU ratio does not.  Not a test.
#
# Environment: TORCHSOLVE (default: build/torchsolve), TS_SHARED_DIR
# (default ../shared), RUNS (default 3), WORLD (reuse a world made by
# make-world; else one is built in a temporary folder, ~10 s), ONLY
# (compare's --only, default d-resolvelib/pyrex; "a-,b-,d-" gives the
# warm table of issue 12).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
shared=${TS_SHARED_DIR:-$here/../../shared}
ts=${TORCHSOLVE:-$here/../build/torchsolve}
runs=${RUNS:-3}
[ -x "$ts" ] || { echo "no torchsolve binary at $ts (set TORCHSOLVE)" >&2; exit 2; }
[ -x "$shared/bench/compare" ] || { echo "no $shared/bench/compare" >&2; exit 2; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
world=${WORLD:-$work/world}
if [ ! -f "$world/WORLD.json" ]; then
  echo "building the world in $world ..." >&2
  "$shared/bench/make-world" "$world" >/dev/null
fi
TORCHSOLVE=$ts "$shared/bench/compare" --world "$world" --only "${ONLY:-d-resolvelib/pyrex}" \
  --runs "$runs" --json "$work/pyrax.json" | tee "$work/table.md"
python3 - "$work/pyrax.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
for sc in d["scenarios"]:
    res = sc["results"]
    print(f"\n{sc['name']}: median wall (CPU) seconds, and pip's over the tool's")
    print("| tool | cold s | warm s (CPU s) | cold vs pip | warm vs pip | warm CPU vs pip |")
    print("|---|---:|---:|---:|---:|---:|")
    def med(tool, mode, key="median"):
        return res.get(tool, {}).get(mode, {}).get("stats", {}).get(key)
    for tool in res:
        c, w = med(tool, "cold"), med(tool, "warm")
        wc = med(tool, "warm", "cpu_median")
        pc, pw = med("pip", "cold"), med("pip", "warm")
        pwc = med("pip", "warm", "cpu_median")
        f = lambda x: f"{x:.3f}" if x else "-"
        r = lambda p, x: f"{p / x:.0f}x" if p and x else "-"
        print(f"| {tool} | {f(c)} | {f(w)} ({f(wc)}) | {r(pc, c)} | {r(pw, w)} "
              f"| {r(pwc, wc)} |")
PY
