#!/usr/bin/env bash
# bench/run-compare.sh — the benchmark table kept in the repository: runs
# ../shared/bench/compare (pip, uv when present, and this tree's torchsolve,
# side by side on the same served world) and writes
# bench/results/<date>-<commit>.md (the machine, the commit, the table
# compare printed) and .json (every figure).  Compare two such files in
# review to see a regression; only figures of one run compare exactly.
#
#   bench/run-compare.sh                  # 5 runs per figure, all scenarios (~10 min)
#   bench/run-compare.sh --quick          # 1 cold run each (~2 min)
#   bench/run-compare.sh --only a-torch-cu126,c-real-env-unpinned
#
# Arguments are passed to compare.  Environment: TORCHSOLVE (default
# build/torchsolve), WORLD (default /tmp/torchsolve-bench-world, made with
# make-world --big-torch when missing), TS_SHARED_DIR (default ../shared
# beside the checkout), RUNS (default 5), UV (a uv binary, optional), OUT
# (default bench/results).  The figures are wall and CPU seconds: on a
# shared machine they are noisy, so read them within one file.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/.." && pwd)
shared=${TS_SHARED_DIR:-$root/../shared}
[ -d "$shared/bench" ] || shared=/work/shared
bench=$shared/bench
ts=${TORCHSOLVE:-$root/build/torchsolve}
world=${WORLD:-/tmp/torchsolve-bench-world}
out=${OUT:-$here/results}
runs=${RUNS:-5}
[ -x "$bench/compare" ] || { echo "run-compare: no $bench/compare (set TS_SHARED_DIR)" >&2; exit 2; }
[ -x "$ts" ] || { echo "run-compare: no torchsolve at $ts (make build, or set TORCHSOLVE)" >&2; exit 2; }
if [ ! -f "$world/WORLD.json" ] || ! ls "$world"/big/torch-*.whl >/dev/null 2>&1; then
  echo "run-compare: making the world in $world (a few minutes)..." >&2
  "$bench/make-world" "$world" --big-torch --force >&2
fi
commit=$(git -C "$root" rev-parse --short=12 HEAD 2>/dev/null || echo unknown)
dirty=$(git -C "$root" status --porcelain --untracked-files=no 2>/dev/null | head -1)
[ -n "$dirty" ] && commit="$commit+dirty"
stamp=$(date -u +%Y-%m-%dT%H%MZ)
load=$(cut -d' ' -f1-3 /proc/loadavg)
mkdir -p "$out"
base=$out/$stamp-${commit//+/-}
case " $* " in *" --runs "*|*" --quick "*) set -- "$@" ;; *) set -- --runs "$runs" "$@" ;; esac
table=$(mktemp)
trap 'rm -f "$table"' EXIT
TORCHSOLVE=$ts "$bench/compare" --world "$world" --json "$base.json" "$@" | tee "$table"
{
  echo "# torchsolve benchmark, $stamp"
  echo
  echo "- commit: \`$commit\` ($(git -C "$root" log -1 --format=%s 2>/dev/null | cut -c1-100))"
  echo "- torchsolve: \`$("$ts" --version 2>&1 | head -1)\`"
  echo "- machine: $(nproc) cores ($(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ *//')),"\
       "$(awk '/MemTotal/ {printf "%.0f GiB", $2/1048576}' /proc/meminfo),"\
       "$(uname -sr), load average at the start $load"
  echo "- command: \`bench/run-compare.sh $*\` (world: \`$world\`)"
  echo "- pip's figures are in the same table: the same server and world, run in turn"
  echo
  echo "## torchsolve against pip (pip's median / torchsolve's median; resolves by CPU seconds, installs by wall seconds)"
  echo
  python3 - "$base.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
print("| scenario | mode | pip | torchsolve | x pip | runs |")
print("|---|---|---:|---:|---:|---:|")
for sc in d["scenarios"]:
    res = sc.get("results", {})
    pip, ts = res.get("pip", {}), res.get("torchsolve", {})
    key = "median" if sc.get("kind") == "install" else "cpu_median"
    for mode in sc.get("modes", []):
        a, b = pip.get(mode, {}).get("stats", {}), ts.get(mode, {}).get("stats", {})
        if key not in a or key not in b or not b[key]:
            continue
        unit = "s wall" if key == "median" else "s CPU"
        print("| %s | %s | %.3f %s | %.3f %s | %.1f | %d |" % (
            sc["name"], mode, a[key], unit, b[key], unit, a[key] / b[key],
            len(ts[mode].get("runs", []))))
PY
  echo
  cat "$table"
} >"$base.md"
echo "run-compare: wrote $base.md and $base.json" >&2
