#!/usr/bin/env bash
# bench/install-big-torch.sh [SCALE] — install the torch-shaped wheel of
# ../shared/bench (real torch 2.11 file list, sizes x SCALE, default 0.05)
# into fresh venvs: torchsolve cold (empty cache) and warm (cached), pip
# (as compare runs it: bytecode compiled; and with --no-compile), and uv when
# $UV or `uv` is present.  Prints wall seconds (median of $RUNS) and peak
# RSS, plus this machine's limits: zlib inflate MB/s on one core and the
# file-create rate of the work directory's filesystem.  Not a test.
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
n = 3000; data = b"x" * 4096
t = time.perf_counter()
for k in range(n):
    fd = os.open(os.path.join(d, "f%d" % k), os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o644)
    os.write(fd, data); os.close(fd)
dc = time.perf_counter() - t
t = time.perf_counter()
for k in range(n): os.link(os.path.join(d, "f%d" % k), os.path.join(d, "l%d" % k))
dl = time.perf_counter() - t
import shutil; shutil.rmtree(d)
print("machine: %d cores; zlib inflate %.0f MB/s of output on one core; "
      "file create+4KiB write %.0f files/s (%.0f us each); hardlink %.0f us"
      % (os.cpu_count(), out / dt / 1e6, n / dc, dc / n * 1e6, dl / n * 1e6))
print("wheel: %s, %.1f MiB compressed, %.1f MiB unpacked, %d files"
      % (os.path.basename(whl), os.path.getsize(whl) / 2**20,
         sum(i.file_size for i in z.infolist()) / 2**20, len(z.infolist())))
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
  read -r w r u s <"$tf"
  walls[$name]+="$w "
  rss[$name]+="$r "
  cpus[$name]+="$(awk -v u="$u" -v s="$s" 'BEGIN {print u + s}') "
}
fresh_ts_venv() { rm -rf "$work/v"; "$ts" venv -q "$work/v"; }
fresh_py_venv() { rm -rf "$work/v"; python3 -m venv "$work/v"; }
for r in $(seq 1 "$runs"); do
  echo "run $r/$runs ..." >&2
  fresh_ts_venv; rm -rf "$work/tscache"
  measure "torchsolve cold" env TORCHSOLVE_CACHE_DIR="$work/tscache" "$ts" wheel install -q --python "$work/v" "$whl"
  fresh_ts_venv
  measure "torchsolve warm" env TORCHSOLVE_CACHE_DIR="$work/tscache" "$ts" wheel install -q --python "$work/v" "$whl"
  "$work/v/bin/python" -c 'import torch; print(torch.__version__)' >/dev/null || echo "  torchsolve: import torch failed" >&2
  fresh_py_venv; rm -rf "$work/pipcache"
  measure "pip (compiles .pyc)" "$work/v/bin/python" -m pip install -q --no-deps --no-index --cache-dir "$work/pipcache" "$whl"
  fresh_py_venv
  measure "pip --no-compile" "$work/v/bin/python" -m pip install -q --no-deps --no-index --no-compile --cache-dir "$work/pipcache" "$whl"
  if [ -n "$uv" ]; then
    fresh_ts_venv; rm -rf "$work/uvcache"
    measure "uv cold" "$uv" pip install -q --no-deps --no-index --offline --python "$work/v/bin/python" --cache-dir "$work/uvcache" "$whl"
    fresh_ts_venv
    measure "uv warm" "$uv" pip install -q --no-deps --no-index --offline --python "$work/v/bin/python" --cache-dir "$work/uvcache" "$whl"
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
awk -v pc="$pc" -v pd="$pd" -v tc="$tc" -v tw="$tw" 'BEGIN {
  if (tc > 0 && tw > 0) printf "\nspeed-up vs pip --no-compile: cold %.1fx, warm %.1fx; vs pip default: cold %.1fx, warm %.1fx\n", pc/tc, pc/tw, pd/tc, pd/tw }'
