#!/usr/bin/env bash
# TORCHSOLVE_* variables stand in for the main flags, as PIP_* do for pip:
# index URLs (lists split on whitespace), offline, interpreter, link mode;
# a flag beats its variable; a bad value is a usage error (exit 2) naming
# the variable.
. "$(dirname "$0")/lib.sh"
T=${TORCHSOLVE:?}
ts_index_from_spec <<'SPEC'
simple alpha 1.0 py3-none-any beta
simple beta 1.0 py3-none-any
extra delta 2.0 py3-none-any
extra2 epsilon 0.1 py3-none-any
SPEC
U=$TS_NGINX_URL/simple E=$TS_NGINX_URL/extra
DEAD=http://127.0.0.1:9/simple
export TORCHSOLVE_CACHE_DIR=$work/cache
unset VIRTUAL_ENV TORCHSOLVE_INDEX_URL TORCHSOLVE_EXTRA_INDEX_URL TORCHSOLVE_OFFLINE \
  TORCHSOLVE_PYTHON TORCHSOLVE_LINK_MODE TORCHSOLVE_FIND_LINKS TORCHSOLVE_NO_CACHE
ts_make_venv "$work/venv"
PY=$work/venv/bin/python
cd "$work"   # no ./.venv here: only the variables can name the target

# --- offline with an empty cache: exit 3, nothing installed -------------
rc=0; TORCHSOLVE_PYTHON=$work/venv TORCHSOLVE_INDEX_URL=$U TORCHSOLVE_OFFLINE=1 \
  "$T" install -q alpha 2>"$work/err" || rc=$?
[ $rc = 3 ] || { cat "$work/err"; ts_fail "TORCHSOLVE_OFFLINE=1 on an empty cache: exit $rc, want 3"; }
grep -q 'offline' "$work/err" || ts_fail "offline miss not named: $(cat "$work/err")"

# --- index list and interpreter from the environment, copies not links --
TORCHSOLVE_PYTHON=$work/venv TORCHSOLVE_INDEX_URL=$U TORCHSOLVE_EXTRA_INDEX_URL="  $E
 $TS_NGINX_URL/extra2 " TORCHSOLVE_LINK_MODE=copy "$T" install -q alpha delta epsilon ||
  ts_fail "install from TORCHSOLVE_* variables failed"
"$PY" -c 'import alpha, beta, delta, epsilon' || ts_fail "variables: imports failed"
f=$(ls "$work"/venv/lib/python3*/site-packages/alpha/__init__.py)
[ "$(stat -c %h "$f")" = 1 ] || ts_fail "TORCHSOLVE_LINK_MODE=copy still hardlinked $f"

# --- the flag beats the variable ----------------------------------------
TORCHSOLVE_PYTHON=$work/venv TORCHSOLVE_INDEX_URL=$DEAD "$T" install -q --dry-run \
  -i "$U" --upgrade alpha >/dev/null || ts_fail "-i did not beat TORCHSOLVE_INDEX_URL"
# and the variable is really read: a dead index fails the same request
rc=0; TORCHSOLVE_PYTHON=$work/venv TORCHSOLVE_INDEX_URL=$DEAD TORCHSOLVE_NO_CACHE=1 \
  "$T" install -q --dry-run --retries 0 --upgrade alpha 2>/dev/null || rc=$?
[ $rc = 3 ] || ts_fail "TORCHSOLVE_INDEX_URL=dead: exit $rc, want 3"

# --- offline from a warm cache -----------------------------------------
ts_make_venv "$work/venv2"
TORCHSOLVE_PYTHON=$work/venv2 TORCHSOLVE_INDEX_URL=$U TORCHSOLVE_OFFLINE=yes \
  "$T" install -q alpha || ts_fail "TORCHSOLVE_OFFLINE=yes with a warm cache failed"
"$work/venv2/bin/python" -c 'import alpha' || ts_fail "offline install: import failed"

# --- bad values: exit 2, the variable named ------------------------------
for bad in TORCHSOLVE_CONCURRENCY=0 TORCHSOLVE_INDEX_STRATEGY=best TORCHSOLVE_LINK_MODE=sym; do
  rc=0; env "$bad" TORCHSOLVE_PYTHON=$work/venv "$T" install -q --dry-run alpha \
    2>"$work/err" || rc=$?
  [ $rc = 2 ] || ts_fail "$bad: exit $rc, want 2"
  grep -q "${bad%%=*}" "$work/err" || ts_fail "$bad: variable not named: $(cat "$work/err")"
done
rc=0; TORCHSOLVE_PYTHON=$work/nowhere "$T" install -q --dry-run alpha 2>"$work/err" || rc=$?
[ $rc != 0 ] && grep -q "nowhere" "$work/err" || ts_fail "bad TORCHSOLVE_PYTHON not named"
echo "ok: TORCHSOLVE_* variables"
