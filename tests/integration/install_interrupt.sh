#!/usr/bin/env bash
# SIGINT (Ctrl-C) and SIGTERM stop torchsolve cleanly: during a slow
# download and at random moments of unpacking and staging, the run exits 8
# ("interrupted") with the venv exactly as before and no transaction left
# for a repair, or, when the signal came after the commit point, completes
# with exit 0.  A rerun then installs normally.
. "$(dirname "$0")/lib.sh"
T=${TORCHSOLVE:?}
command -v python3 >/dev/null || ts_skip "no python3"
work=$(ts_tmpdir)
export TORCHSOLVE_CACHE_DIR=$work/cache
python3 "$TS_SOURCE_DIR/tests/support/make_wheels.py" "$work/fx" --big 3000
W1=$work/fx/big-1.0-py3-none-any.whl W2=$work/fx/big-2.0-py3-none-any.whl
mkdir -p "$work/www/simple/big"
python3 - "$work/www/simple/big" "$W1" "$W2" <<'PY'
import hashlib, os, shutil, sys
out, files = sys.argv[1], sys.argv[2:]
links = []
for f in files:
    shutil.copy(f, out)
    h = hashlib.sha256(open(f, "rb").read()).hexdigest()
    n = os.path.basename(f)
    links.append(f'<a href="{n}#sha256={h}">{n}</a>')
open(os.path.join(out, "index.html"), "w").write(
    "<!DOCTYPE html><html><body>\n" + "\n".join(links) + "\n</body></html>\n")
PY
# Wheels trickle out at 1 MiB/s: a 9 MB download takes seconds.
TS_NGINX_EXTRA_CONF='location ~ \.whl$ { limit_rate 1m; }' ts_nginx_start "$work/www"
U=$TS_NGINX_URL/simple
V=$work/venv
"$T" venv "$V" -q
SITE=$(echo "$V"/lib/python3*/site-packages)
state() { (cd "$V" && find . ! -name .torchsolve.lock -printf '%p %y %s\n' | grep -v __pycache__ | sort | md5sum); }
"$T" wheel install -q --python "$V" "$W1"
old=$(state)

# --- Ctrl-C in the middle of a download ---------------------------------
"$T" install --python "$V" -i "$U" 'big==2.0' 2>"$work/err" &
pid=$!
sleep 1.5
kill -INT $pid
t0=$(date +%s%N)
rc=0; wait $pid || rc=$?
dl_ms=$(( ($(date +%s%N) - t0) / 1000000 ))
cat "$work/err"
[ $rc = 8 ] || ts_fail "SIGINT during the download: exit $rc, want 8"
[ $dl_ms -lt 3000 ] || ts_fail "SIGINT took ${dl_ms}ms to stop the download"
grep -q 'interrupted' "$work/err" || ts_fail "no 'interrupted' message"
[ ! -e "$SITE/.torchsolve-txn" ] || ts_fail "transaction left after SIGINT"
[ "$(state)" = "$old" ] || ts_fail "venv changed by an interrupted download"
# What arrived stays as a .part for the next run to resume; never as a wheel.
find "$TORCHSOLVE_CACHE_DIR" -name 'big-2.0-*.whl' | grep -q . &&
  ts_fail "a partial wheel was kept in the cache as a whole one"
part=$(find "$TORCHSOLVE_CACHE_DIR" -name 'big-2.0-*.whl.part')
[ -n "$part" ] && [ -s "$part" ] || ts_fail "SIGINT deleted the partial download"
part_size=$(stat -c %s "$part")

# --- SIGTERM the same ----------------------------------------------------
"$T" install -q --python "$V" -i "$U" 'big==2.0' 2>/dev/null &
pid=$!
sleep 1
kill -TERM $pid
rc=0; wait $pid || rc=$?
[ $rc = 8 ] || ts_fail "SIGTERM during the download: exit $rc, want 8"
[ "$(state)" = "$old" ] || ts_fail "venv changed by SIGTERM"

[ "$(stat -c %s "$part")" -ge "$part_size" ] || ts_fail "SIGTERM lost the partial download"

# --- and the next run completes, resuming the .part with a Range request --
mark=$(ts_nginx_log_mark)
"$T" install -q --python "$V" -i "$U" 'big==2.0' || ts_fail "install after interrupts failed"
ts_nginx_log_since "$mark" | grep -E '^206 .*big-2\.0-py3-none-any\.whl .*range="bytes=[1-9][0-9]*-"' ||
  { ts_nginx_log_since "$mark"; ts_fail "the rerun did not resume the .part with a Range request"; }
[ ! -e "$part" ] || ts_fail "the .part outlived the finished download"
"$V/bin/python" -c 'import big; assert big.__version__ == "2.0"' || ts_fail "big 2.0 broken"

# --- Ctrl-C at random moments of unpacking and staging (local wheels) ----
# The delay is drawn within how long that kind of run (warm, or cold with
# unpacking) takes here, so most signals land inside it.
took_ms() { local t0; t0=$(date +%s%N); "$@"; echo $(( ($(date +%s%N) - t0) / 1000000 + 5 )); }
"$T" wheel install -q --python "$V" "$W1"
rm -rf "$TORCHSOLVE_CACHE_DIR"
span_cold=$(took_ms "$T" wheel install -q --python "$V" "$W2")
new=$(state)
"$T" wheel install -q --python "$V" "$W1"
span_warm=$(took_ms "$T" wheel install -q --python "$V" "$W2")
"$T" wheel install -q --python "$V" "$W1"
stopped=0 completed=0
for i in $(seq 1 12); do
  span=$span_warm
  [ $((i % 2)) = 0 ] && { rm -rf "$TORCHSOLVE_CACHE_DIR"; span=$span_cold; }  # cold: unpacking too
  "$T" wheel install -q --python "$V" "$W2" 2>/dev/null &
  pid=$!
  ms=$((RANDOM % span))
  sleep "$((ms / 1000)).$(printf '%03d' $((ms % 1000)))"
  kill -INT $pid 2>/dev/null || true
  rc=0; wait $pid || rc=$?
  [ ! -e "$SITE/.torchsolve-txn" ] || ts_fail "round $i (exit $rc): transaction left behind"
  s=$(state)
  case $rc in
    8) [ "$s" = "$old" ] || ts_fail "round $i: exit 8 but the venv changed"
       stopped=$((stopped + 1)) ;;
    0) [ "$s" = "$new" ] || ts_fail "round $i: exit 0 but not the new state"
       completed=$((completed + 1))
       "$T" wheel install -q --python "$V" "$W1" ;;
    130) # the signal came before main() installed its handler (the
         # install is fast, so a short random delay can land in exec):
         # killed before it touched anything
       [ "$s" = "$old" ] || ts_fail "round $i: killed at start but the venv changed" ;;
    *) ts_fail "round $i: exit $rc after SIGINT" ;;
  esac
done
[ $stopped -gt 0 ] || ts_fail "no run was interrupted"
echo "ok: download stopped in ${dl_ms}ms; $stopped runs stopped cleanly, $completed completed"
