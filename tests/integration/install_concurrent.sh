#!/usr/bin/env bash
# Two torchsolve processes on one venv behave as some serial order: each
# holds the venv's lock from reading the installed set to its commit.
#   A: install y  (y needs x; x 2.0 is the newest; y's wheel downloads
#                  slowly, so A's plan is old by the time it commits)
#   B: install x==1.0
# Either serial order ends with x 1.0 and y 1.0 (A then B downgrades x; B
# then A keeps the x 1.0 it finds).  Planned without the lock, A installs
# x 2.0 over the x 1.0 that B committed during A's download: an outcome
# no serial order gives.  Every trial must end as one serial order does,
# with every RECORD hash intact.  Also: a process that waits says so on
# stderr, and --no-wait exits 6 (install, sync, wheel install).
. "$(dirname "$0")/lib.sh"
T=${TORCHSOLVE:?}
command -v python3 >/dev/null || ts_skip "no python3"
command -v flock >/dev/null || ts_skip "no flock(1)"
work=$(ts_tmpdir)
# y's wheel (~400 kB) trickles out at 200 kB/s: about a second
TS_NGINX_EXTRA_CONF='location ~ /y-.*\.whl$ { limit_rate 200k; }' ts_index_from_spec <<'SPEC'
simple x 1.0 py3-none-any
simple x 2.0 py3-none-any
simple y 1.0 py3-none-any,pad=400000 x
SPEC
U=$TS_NGINX_URL/simple

# The venv's state: each distribution with its version and the hash of
# every file its RECORD lists, after checking that each hash holds.
state() {
  python3 - "$1" <<'PY'
import base64, csv, glob, hashlib, os, sys
site = glob.glob(os.path.join(sys.argv[1], "lib", "python3*", "site-packages"))[0]
out = []
for di in sorted(glob.glob(os.path.join(site, "*.dist-info"))):
    rows = list(csv.reader(open(os.path.join(di, "RECORD"), newline="")))
    for path, h, size in rows:
        if not h:
            continue
        data = open(os.path.join(site, path), "rb").read()
        algo, want = h.split("=", 1)
        got = base64.urlsafe_b64encode(hashlib.new(algo, data).digest()).rstrip(b"=").decode()
        if got != want:
            sys.exit(f"RECORD hash of {path} does not hold in {di}")
        out.append(f"{os.path.basename(di)} {path} {h}")
print("\n".join(out))
PY
}

run_a() { "$T" install -q --python "$1" -i "$U" y; }
run_b() { "$T" install -q --python "$1" -i "$U" 'x==1.0'; }

# --- the two serial outcomes --------------------------------------------
for order in ab ba; do
  export TORCHSOLVE_CACHE_DIR=$work/cache-$order
  "$T" venv -q "$work/serial-$order"
  if [ $order = ab ]; then
    run_a "$work/serial-$order" && run_b "$work/serial-$order"
  else
    run_b "$work/serial-$order" && run_a "$work/serial-$order"
  fi || ts_fail "serial order $order failed"
  state "$work/serial-$order" >"$work/want-$order" || ts_fail "serial order $order: RECORD broken"
done
grep -q '^x-1.0.dist-info' "$work/want-ab" || ts_fail "serial A;B does not end with x 1.0"

# --- many trials of both at once ------------------------------------------
trials=${TS_CONCURRENT_TRIALS:-8}
for ((k = 0; k < trials; k++)); do
  V=$work/venv-$k
  export TORCHSOLVE_CACHE_DIR=$work/cache-$k # y is downloaded each time
  "$T" venv -q "$V"
  run_a "$V" 2>"$work/a-$k.err" &
  pa=$!
  # B starts while A resolves or downloads, at a different moment each time
  sleep "0.$((RANDOM % 6))"
  run_b "$V" 2>"$work/b-$k.err" &
  pb=$!
  ra=0 rb=0
  wait $pa || ra=$?
  wait $pb || rb=$?
  [ $ra = 0 ] && [ $rb = 0 ] ||
    { cat "$work/a-$k.err" "$work/b-$k.err"; ts_fail "trial $k: exit $ra and $rb"; }
  state "$V" >"$work/got-$k" || ts_fail "trial $k: a RECORD hash does not hold"
  if ! cmp -s "$work/got-$k" "$work/want-ab" && ! cmp -s "$work/got-$k" "$work/want-ba"; then
    diff "$work/want-ab" "$work/got-$k" || true
    ts_fail "trial $k ended in a state no serial order gives"
  fi
  rm -rf "$V" "$TORCHSOLVE_CACHE_DIR"
done
echo "$trials trials, each equal to a serial order"

# --- waiting says so; --no-wait exits 6 -------------------------------------
export TORCHSOLVE_CACHE_DIR=$work/cache-wait
V=$work/venv-wait
"$T" venv -q "$V"
SITE=$(echo "$V"/lib/python3*/site-packages)
touch "$V/.torchsolve.lock" # the lock is at the venv root
flock "$V/.torchsolve.lock" sleep 2 &
holder=$!
sleep 0.3
"$T" install --python "$V" -i "$U" 'x==1.0' 2>"$work/wait.err" || ts_fail "install after waiting failed"
cat "$work/wait.err"
grep -q "^waiting for another torchsolve on .*venv-wait…" "$work/wait.err" ||
  ts_fail "no 'waiting for another torchsolve on VENV…' line"
grep -q '+ x==1.0' "$work/wait.err" || ts_fail "the waiting install did not install"
wait $holder

"$T" wheel install -q --python "$V" "$work/www/simple/x-2.0-py3-none-any.whl" # a state to keep
before=$(state "$V")
"$T" lock -q --python "$V" -i "$U" 'x==1.0' -o "$work/pylock.toml" || ts_fail "lock failed"
flock "$V/.torchsolve.lock" sleep 3 &
holder=$!
sleep 0.3
for cmd in "install --python $V -i $U x==1.0" \
           "sync $work/pylock.toml --python $V -i $U" \
           "wheel install --python $V $work/www/simple/x-1.0-py3-none-any.whl"; do
  rc=0
  # shellcheck disable=SC2086
  timeout 2 "$T" $cmd --no-wait 2>"$work/nowait.err" || rc=$?
  [ $rc = 6 ] || { cat "$work/nowait.err"; ts_fail "$cmd --no-wait: exit $rc, want 6"; }
  grep -q 'another torchsolve is changing' "$work/nowait.err" ||
    { cat "$work/nowait.err"; ts_fail "$cmd --no-wait: no message"; }
done
wait $holder
[ "$(state "$V")" = "$before" ] || ts_fail "--no-wait changed the venv"
echo "ok"
