#!/usr/bin/env bash
# Index failures met while resolving (install --dry-run) reach the user with
# their detail: a PEP 658 metadata file whose hash is wrong names its URL
# (not a bare "no metadata"), and a --find-links location that does not
# exist is named as such (not read as "no index has a project named X").
. "$(dirname "$0")/lib.sh"
T=${TORCHSOLVE:?}
work=$(ts_tmpdir)
python3 "$TS_SOURCE_DIR/tests/support/index_fixtures.py" "$work/www"
ts_nginx_start "$work/www"
U=$TS_NGINX_URL
export TORCHSOLVE_CACHE_DIR=$work/cache
ts_make_venv "$work/venv"
fails() { # EXPECTED_EXIT PATTERN ARGS... : one error line matching PATTERN
  local want=$1 pat=$2 rc
  shift 2
  set +e
  "$T" "$@" >"$work/out" 2>"$work/err"
  rc=$?
  set -e
  [ "$rc" = "$want" ] || { cat "$work/err"; ts_fail "$*: exit $rc, expected $want"; }
  [ "$(grep -c '^error: ' "$work/err")" = 1 ] || { cat "$work/err"; ts_fail "$*: expected one error line"; }
  grep -q -- "$pat" "$work/err" || { cat "$work/err"; ts_fail "$*: error does not match '$pat'"; }
}
P=(--python "$work/venv")

# the chosen version's .metadata does not match data-core-metadata
fails 4 "^error: metadata of badhash 1.0: $U/files/badhash-1.0-py3-none-any.whl.metadata: sha256 differs" \
  install --dry-run badhash --index-url "$U/bad/simple" "${P[@]}"
[ -z "$(find "$TORCHSOLVE_CACHE_DIR" -path '*metadata*' -type f ! -name '*.lock' 2>/dev/null)" ] ||
  ts_fail "unverified metadata was cached"

# --find-links locations that do not exist: named, whatever the project
fails 1 "^error: --find-links $work/nowhere: '$work/nowhere' does not exist" \
  install --dry-run alpha --index-url "$U/idx1/simple" --find-links "$work/nowhere" "${P[@]}"
fails 3 "^error: --find-links $U/flat/nowhere.html: .*HTTP 404" \
  install --dry-run alpha --no-index --find-links "$U/flat/nowhere.html" "${P[@]}"
grep -q "no index has" "$work/err" && ts_fail "a missing --find-links page read as a missing project"

# and the same sources, when present, resolve
"$T" install --dry-run gamma --no-index --find-links "$work/www/files" "${P[@]}" --no-cache >"$work/ok.out" 2>&1 ||
  { cat "$work/ok.out"; ts_fail "find-links directory"; }
grep -q '^install gamma 2.0 ' "$work/ok.out" || { cat "$work/ok.out"; ts_fail "find-links directory: gamma 2.0"; }
echo "index_resolve_errors: all checks passed"
