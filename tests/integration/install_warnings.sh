#!/usr/bin/env bash
# The warnings pip prints about a resolution that succeeds: a yanked file
# chosen through an == pin (with its reason), an extra the distribution does
# not provide.  Neither appears when it does not apply; both go to stderr
# and do not change the exit status.  And the hint for a failure that an
# index not asked (first-index) would solve.  An install that leaves an
# installed distribution's requirement unmet says so naming both, and
# --report records it under "conflicts".
. "$(dirname "$0")/lib.sh"
T=${TORCHSOLVE:?}
ts_index_from_spec <<'SPEC'
simple delta 0.9 py3-none-any
simple delta 1.0 py3-none-any,yanked=broken-build
simple epsilon 1.0 py3-none-any beta; extra == 'fast'
simple beta 1.0 py3-none-any
extra beta 2.0 py3-none-any
simple depx 1.0 py3-none-any
simple depx 2.0 py3-none-any
simple needsnew 1.0 py3-none-any depx>=2
SPEC
U=$TS_NGINX_URL/simple
export TORCHSOLVE_CACHE_DIR=$work/cache
ts_make_venv "$work/v"
run() { "$T" install --python "$work/v" -i "$U" "$@" 2>"$work/err" >/dev/null ||
          { cat "$work/err"; ts_fail "install $* failed"; }; }

run --dry-run delta
grep -q 'yanked' "$work/err" && ts_fail "a warning about a yanked file that was not chosen"
grep -q 'install delta 0.9' <("$T" install --python "$work/v" -i "$U" --dry-run delta 2>/dev/null) ||
  ts_fail "the yanked 1.0 was chosen without a pin"
run 'delta==1.0'
grep -q 'warning.*delta 1.0 is yanked (broken-build)' "$work/err" ||
  ts_fail "no warning for the pinned yanked file: $(cat "$work/err")"
"$work/v/bin/python" -c 'import delta; assert delta.__version__ == "1.0"' || ts_fail "delta 1.0"

run 'epsilon[bogus]'
grep -q "warning.*epsilon 1.0 does not provide the extra 'bogus'" "$work/err" ||
  ts_fail "no warning for an unknown extra: $(cat "$work/err")"
run --dry-run 'epsilon[fast]'
grep -q 'does not provide' "$work/err" && ts_fail "a warning for an extra that exists"
run 'epsilon[fast]'
"$work/v/bin/python" -c 'import beta' || ts_fail "the extra's dependency was not installed"
# --- beta>=2 exists only on the extra index, which first-index never asks --
rc=0; "$T" install --python "$work/v" -i "$U" --extra-index-url "$TS_NGINX_URL/extra" \
  --dry-run 'beta>=2' 2>"$work/err" >/dev/null || rc=$?
[ $rc = 1 ] || { cat "$work/err"; ts_fail "beta>=2 under first-index: exit $rc, want 1"; }
grep -q "hint: $TS_NGINX_URL/extra also has beta 2.0, which fits.*--index-strategy unsafe-best-match" \
  "$work/err" || { cat "$work/err"; ts_fail "no hint naming the index that has beta 2.0"; }
"$T" install --python "$work/v" -i "$U" --extra-index-url "$TS_NGINX_URL/extra" \
  --index-strategy unsafe-best-match --dry-run 'beta>=2' 2>/dev/null | grep -q 'beta 2.0' ||
  ts_fail "the hinted flag does not resolve beta 2.0"
rc=0; "$T" install --python "$work/v" -i "$U" --dry-run 'beta>=3' 2>"$work/err" >/dev/null || rc=$?
grep -q "also has" "$work/err" && ts_fail "a hint about another index without one"

# --- a requirement of an installed distribution left unmet -------------------
run needsnew
grep -q 'requires' "$work/err" && ts_fail "a conflict warning where there is none: $(cat "$work/err")"
"$T" install --python "$work/v" -i "$U" --report "$work/report.json" 'depx==1.0' 2>"$work/err" ||
  { cat "$work/err"; ts_fail "install depx==1.0 failed"; }
grep -q '^warning: needsnew 1.0 requires depx>=2, but depx 1.0 will be installed$' "$work/err" ||
  { cat "$work/err"; ts_fail "the unmet requirement is not named"; }
python3 - "$work/report.json" <<'PY' || ts_fail "--report does not record the conflict"
import json, sys
r = json.load(open(sys.argv[1]))
assert r["conflicts"] == ["needsnew 1.0 requires depx>=2, but depx 1.0 will be installed"], r.get("conflicts")
PY
run needsnew # keeps needsnew, upgrades depx back: nothing left unmet
grep -q 'requires' "$work/err" && ts_fail "a conflict warning after the fix: $(cat "$work/err")"
echo "ok: yanked and extra warnings, the other-index hint, unmet requirements"
