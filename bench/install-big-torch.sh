#!/usr/bin/env bash
# bench/install-big-torch.sh [SCALE] — install the torch-shaped wheel of
# ../shared/bench (real torch 2.11 file list, sizes x SCALE, default 0.05)
# into fresh venvs: torchsolve cold (empty cache) and warm (cached), pip
# (as compare runs it: bytecode compiled; and with --no-compile), and uv when
# $UV or `uv` is present.  Prints wall seconds (median of $RUNS) and peak
# RSS, plus this machine's rates (zlib inflate and sha256 MB/s per core,
# file-create, hardlink and mkdir times and write bandwidth of the work
# directory's filesystem) and from them the least time this machine needs
# for the installer's work (the "machine limit"), against which torchsolve
# is put.  Not a test.
#
# Environment: TORCHSOLVE (default: build/torchsolve), TS_SHARED_DIR
# (default ../shared), WORK (default a temporary dir; use /dev/shm/... to
# measure tools rather than the disk), RUNS (default 3), WORLD (reuse a
# world made by make-world --big-torch).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
scale=${1:-0.05}
shared=${TS_SHARED_DIR:-$here/../../shared}
ts=${TORCHSOLVE:-$here/../build/torchsolve}
runs=${RUNS:-3}
[ -x "$ts" ] || { echo "no torchsolve binary at $ts (set TORCHSOLVE)" >&2; exit 2; }
[ -x "$shared/bench/make-world" ] || { echo "no $shared/bench/make-world" >&2; exit 2; }
work=${WORK:-$(mktemp -d)}
mkdir -p "$work"
cleanup_work=
[ -z "${WORK:-}" ] && cleanup_work=$work
trap '[ -n "$cleanup_work" ] && rm -rf "$cleanup_work"' EXIT
for v in $(env | grep -o '^PIP_[A-Za-z_]*' || true); do unset "$v"; done
for v in $(env | grep -o '^UV_[A-Za-z_]*' || true); do unset "$v"; done
export PIP_CONFIG_FILE=/dev/null UV_NO_CONFIG=1 PIP_DISABLE_PIP_VERSION_CHECK=1

world=${WORLD:-$work/world}
if ! ls "$world"/big/torch-*.whl >/dev/null 2>&1; then
  echo "building the world (--big-torch $scale) in $world ..." >&2
  "$shared/bench/make-world" "$world" --big-torch "$scale" --force >&2
fi
whl=$(ls "$world"/big/torch-*.whl | head -1)
uv=${UV:-$(command -v uv || true)}

# ---- machine limits --------------------------------------------------
python3 - "$whl" "$work" <<'PY'
import os, sys, time, zipfile, zlib
whl, work = sys.argv[1], sys.argv[2]
z = zipfile.ZipFile(whl)
infos = sorted((i for i in z.infolist() if i.compress_type == 8), key=lambda i: -i.compress_size)[:200]
f = open(whl, "rb"); blobs = []
for i in infos:
    f.seek(i.header_offset); h = f.read(30)
    n, m = int.from_bytes(h[26:28], "little"), int.from_bytes(h[28:30], "little")
    f.seek(i.header_offset + 30 + n + m); blobs.append(f.read(i.compress_size))
t = time.perf_counter(); out = 0
for b in blobs: out += len(zlib.decompressobj(-15).decompress(b))
dt = time.perf_counter() - t
d = os.path.join(work, "create-rate"); os.makedirs(d, exist_ok=True)
import hashlib
blob = b"".join(zlib.decompressobj(-15).decompress(b) for b in blobs[:20])
t = time.perf_counter(); hashlib.sha256(blob).digest(); hashlib.sha256(blob).digest()
sha = 2 * len(blob) / (time.perf_counter() - t)
n = 3000
t = time.perf_counter()
for k in range(n):
    fd = os.open(os.path.join(d, "f%d" % k), os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o644)
    os.close(fd)
dc = time.perf_counter() - t
t = time.perf_counter()
for k in range(n): os.link(os.path.join(d, "f%d" % k), os.path.join(d, "l%d" % k))
dl = time.perf_counter() - t
t = time.perf_counter()
for k in range(300): os.mkdir(os.path.join(d, "d%d" % k))
dm = (time.perf_counter() - t) / 300
# Bulk write bandwidth: 256 MiB in 1 MiB writes, no fsync (installers do
# not sync either), so page-cache copying and dirty-page throttling count.
chunk = b"\0" * (1 << 20); big = os.path.join(d, "bulk")
t = time.perf_counter()
fd = os.open(big, os.O_WRONLY | os.O_CREAT, 0o644)
for k in range(256): os.write(fd, chunk)
os.close(fd)
dw = time.perf_counter() - t
os.truncate(big, 0)
# (kept until the end: deleting now would slow the first run, see below)
infl = out / dt; wr = 256 * 2**20 / dw; cores = os.cpu_count()
print("machine: %d cores; per core: zlib inflate %.0f MB/s of output, sha256 "
      "%.0f MB/s; file create %.0f us, hardlink %.0f us, mkdir %.0f us "
      "(%.0f files/s); bulk write %.0f MB/s"
      % (cores, infl / 1e6, sha / 1e6, dc / n * 1e6, dl / n * 1e6, dm * 1e6,
         n / dc, wr / 1e6))
members = z.infolist()
unpacked = sum(i.file_size for i in members)
largest = max(i.file_size for i in members)
dirs = {os.path.dirname(i.filename.rstrip("/")) for i in members} - {""}
for x in list(dirs):
    while "/" in x:
        x = os.path.dirname(x); dirs.add(x)
N, D, C = len(members), len(dirs), os.path.getsize(whl)
print("wheel: %s, %.1f MiB compressed, %.1f MiB unpacked, %d files in %d "
      "directories, largest %.1f MiB"
      % (os.path.basename(whl), C / 2**20, unpacked / 2**20, N, D, largest / 2**20))
# The machine limit: the least time this machine needs for the work the
# installer issue prescribes, each part at the rate measured above and
# spread perfectly over all cores: inflate every byte, sha256 every byte
# (RECORD) and the wheel itself, create every file and directory and write
# every byte into the cache, then make every directory and hardlink every
# file into the venv.  A deflate stream is sequential, so never less than
# the largest member inflated and hashed on one core.
w_cpu = unpacked / infl + (unpacked + C) / sha
w_cache = N * dc / n + D * dm + unpacked / wr
w_venv = N * dl / n + D * dm
limit = max((w_cpu + w_cache + w_venv) / cores, largest / infl + largest / sha)
warm = w_venv / cores
print("machine limit, cold: %.2f s (core-seconds: inflate+sha256 %.2f, into "
      "the cache %.2f, into the venv %.2f; largest member alone %.2f s)"
      % (limit, w_cpu, w_cache, w_venv, largest / infl + largest / sha))
print("machine limit, warm (directories and hardlinks into the venv): %.2f s" % warm)
open(os.path.join(work, "limit.s"), "w").write("%.3f %.3f\n" % (limit, warm))
PY

echo "load average: $(cut -d' ' -f1-3 /proc/loadavg) (other work on the machine skews wall times)"
# ---- runs --------------------------------------------------------------
declare -A walls rss cpus
measure() { # name cmd... ; appends "wall rss_kb"
  local name=$1; shift
  sync
  local tf=$work/time.out
  if ! /usr/bin/time -f "%e %M %U %S" -o "$tf" "$@" >"$work/last.log" 2>&1; then
    echo "  $name FAILED: $(tail -3 "$work/last.log")" >&2
    walls[$name]+="fail "
    return
  fi
  local w r u s
  read -r w r u s <"$tf"
  walls[$name]+="$w "
  rss[$name]+="$r "
  cpus[$name]+="$(awk -v u="$u" -v s="$s" 'BEGIN {print u + s}') "
}
# Every run gets new directories, deleted only at the end: on ext4, files
# created within ~30 s of a mass deletion cost ~10x more kernel time
# (ext4_new_inode skips recently deleted inodes: `recently_deleted` was
# 25% of all samples in perf), which would measure the previous run's
# `rm -rf`, not the installers.
nv=0
fresh_ts_venv() { nv=$((nv + 1)); v=$work/v$nv; "$ts" venv -q "$v"; }
fresh_py_venv() { nv=$((nv + 1)); v=$work/v$nv; python3 -m venv "$v"; }
for r in $(seq 1 "$runs"); do
  echo "run $r/$runs ..." >&2
  fresh_ts_venv
  measure "torchsolve cold" env TORCHSOLVE_CACHE_DIR="$work/tscache$r" "$ts" install -q --no-deps --no-index --python "$v" "$whl"
  fresh_ts_venv
  measure "torchsolve warm" env TORCHSOLVE_CACHE_DIR="$work/tscache$r" "$ts" install -q --no-deps --no-index --python "$v" "$whl"
  "$v/bin/python" -c 'import torch; print(torch.__version__)' >/dev/null || echo "  torchsolve: import torch failed" >&2
  fresh_py_venv
  measure "pip (compiles .pyc)" "$v/bin/python" -m pip install -q --no-deps --no-index --cache-dir "$work/pipcache$r" "$whl"
  fresh_py_venv
  measure "pip --no-compile" "$v/bin/python" -m pip install -q --no-deps --no-index --no-compile --cache-dir "$work/pipcache$r" "$whl"
  if [ -n "$uv" ]; then
    fresh_ts_venv
    measure "uv cold" "$uv" pip install -q --no-deps --no-index --offline --python "$v/bin/python" --cache-dir "$work/uvcache$r" "$whl"
    fresh_ts_venv
    measure "uv warm" "$uv" pip install -q --no-deps --no-index --offline --python "$v/bin/python" --cache-dir "$work/uvcache$r" "$whl"
  fi
done
median() { tr ' ' '\n' | grep -v '^$' | sort -g | awk '{a[NR]=$1} END {if (NR==0) print "-"; else print a[int((NR+1)/2)]}'; }
printf '\n%-22s %10s %10s %10s %12s\n' tool "median s" "min s" "CPU s" "peak RSS MB"
for name in "torchsolve cold" "torchsolve warm" "pip (compiles .pyc)" "pip --no-compile" "uv cold" "uv warm"; do
  [ -n "${walls[$name]:-}" ] || continue
  m=$(echo "${walls[$name]}" | median)
  mn=$(echo "${walls[$name]}" | tr ' ' '\n' | grep -v '^$' | grep -v fail | sort -g | head -1)
  r=$(echo "${rss[$name]:-}" | tr ' ' '\n' | grep -v '^$' | sort -g | tail -1)
  c=$(echo "${cpus[$name]:-}" | median)
  printf '%-22s %10s %10s %10s %12s\n' "$name" "$m" "${mn:--}" "$c" "$( [ -n "$r" ] && echo $((r / 1024)) || echo -)"
done
pc=$(echo "${walls["pip --no-compile"]:-}" | median); pd=$(echo "${walls["pip (compiles .pyc)"]:-}" | median)
tc=$(echo "${walls["torchsolve cold"]:-}" | median); tw=$(echo "${walls["torchsolve warm"]:-}" | median)
read -r lim wlim <"$work/limit.s"
awk -v pc="$pc" -v pd="$pd" -v tc="$tc" -v tw="$tw" -v lim="$lim" -v wlim="$wlim" 'BEGIN {
  if (tc > 0 && tw > 0) printf "\nspeed-up vs pip --no-compile: cold %.1fx, warm %.1fx; vs pip default: cold %.1fx, warm %.1fx\n", pc/tc, pc/tw, pd/tc, pd/tw
  if (tc > 0 && lim > 0) printf "torchsolve cold = %.2fx the machine limit (%.2f s)\n", tc/lim, lim
  if (tw > 0 && wlim > 0) printf "torchsolve warm = %.2fx the warm limit (%.2f s)\n", tw/wlim, wlim }'
# the runs' directories go last (when WORK was given; else the trap does it)
[ -n "$cleanup_work" ] || rm -rf "$work"/v[0-9]* "$work"/tscache* "$work"/pipcache* "$work"/uvcache* "$work/create-rate"
