#!/usr/bin/env bash
# SIGKILL at random moments of an upgrade (big-1.0 -> big-2.0, thousands of
# files), cold and warm cache: after the next run's repair the venv must be
# exactly the old or exactly the new state (file lists compared), pip must
# agree, and a rerun must complete the upgrade.
. "$(dirname "$0")/lib.sh"
command -v python3 >/dev/null || ts_skip "no python3"
ts_clear_pip_env
export PIP_CONFIG_FILE=/dev/null PIP_DISABLE_PIP_VERSION_CHECK=1
tmp=$(ts_tmpdir)
export TORCHSOLVE_CACHE_DIR=$tmp/cache
python3 "$TS_SOURCE_DIR/tests/support/make_wheels.py" "$tmp/fx" --big 3000
W1=$tmp/fx/big-1.0-py3-none-any.whl W2=$tmp/fx/big-2.0-py3-none-any.whl
V=$tmp/venv
"$TORCHSOLVE" venv "$V" -q
SITE=$(echo "$V"/lib/python3*/site-packages)
state() { (cd "$V" && find . ! -name .torchsolve.lock -printf '%p %y\n' | grep -v '__pycache__' | sort | md5sum); }
"$TORCHSOLVE" wheel install -q --python "$V" "$W2"; new=$(state)
"$TORCHSOLVE" wheel uninstall -q --python "$V" big
"$TORCHSOLVE" wheel install -q --python "$V" "$W1"; old=$(state)
[ "$old" != "$new" ] || ts_fail "states must differ"
# How long a warm upgrade takes here, in ms: kills are spread over it.
t0=$(date +%s%N)
"$TORCHSOLVE" wheel install -q --python "$V" "$W2"
span=$(( ($(date +%s%N) - t0) / 1000000 + 20 ))
"$TORCHSOLVE" wheel install -q --python "$V" "$W1"
kills=0 olds=0 news=0 forwards=0
for i in $(seq 1 30); do
  # every third round starts with a cold cache, so extraction is killed too
  if [ $((i % 3)) = 0 ]; then rm -rf "$TORCHSOLVE_CACHE_DIR"; fi
  "$TORCHSOLVE" wheel install -q --python "$V" "$W2" &
  pid=$!
  if [ $i -gt 20 ]; then
    # kill right after the commit point: the next run must roll forward
    while kill -0 $pid 2>/dev/null && [ ! -e "$SITE/.torchsolve-txn/journal" ]; do :; done
  else
    ms=$((RANDOM % span))
    sleep "$((ms / 1000)).$(printf '%03d' $((ms % 1000)))"
  fi
  journal=no; [ -e "$SITE/.torchsolve-txn/journal" ] && journal=yes
  killed=no; kill -9 $pid 2>/dev/null && { killed=yes; kills=$((kills + 1)); }
  wait $pid 2>/dev/null || true
  "$TORCHSOLVE" wheel repair -q --python "$V" || ts_fail "repair failed (round $i)"
  [ ! -e "$SITE/.torchsolve-txn" ] || ts_fail "transaction left after repair"
  s=$(state)
  if [ "$s" = "$old" ]; then
    olds=$((olds + 1))
    "$V/bin/python" -c 'import big; assert big.__version__ == "1.0"' || ts_fail "old state broken"
  elif [ "$s" = "$new" ]; then
    news=$((news + 1))
    # killed with the journal written: this new state is the repair's roll-forward
    [ $i -gt 20 ] && [ $journal = yes ] && [ $killed = yes ] && forwards=$((forwards + 1))
    "$V/bin/python" -c 'import big; assert big.__version__ == "2.0"' || ts_fail "new state broken"
    "$TORCHSOLVE" wheel install -q --python "$V" "$W1"   # back to old for the next round
  else
    ts_fail "round $i: venv is neither the old nor the new state"
  fi
  "$V/bin/python" -m pip --version >/dev/null 2>&1 || true
done
# pip (when available) agrees on the final state
"$TORCHSOLVE" wheel install -q --python "$V" "$W2"
[ "$(state)" = "$new" ] || ts_fail "final install did not reach the new state"
if ls /usr/share/python-wheels/pip-*.whl >/dev/null 2>&1; then
  "$TORCHSOLVE" wheel install -q --python "$V" /usr/share/python-wheels/pip-*.whl
  "$V/bin/python" -m pip check || ts_fail "pip check"
  list=$("$V/bin/python" -m pip list --format=freeze); grep -qx "big==2.0" <<<"$list" || ts_fail "pip list: $list"
fi
[ $kills -gt 0 ] || ts_fail "no install was killed"
[ $forwards -gt 0 ] || ts_fail "no kill landed after the commit point ($kills kills)"
echo "ok: warm upgrade ${span}ms, $kills kills, $olds rolled back/old, $news completed/new, $forwards rolled forward"
