#!/usr/bin/env bash
# The index client seen through resolution (install --dry-run, lock):
# - failures reach the user with their detail: a PEP 658 metadata file whose
#   hash is wrong is named in a warning and the wheel is read instead, and a
#   --find-links location that does not exist is named as such (not read as
#   "no index has a project named X"), and a project no index has is
#   reported with the index URLs asked;
# - each package names the index its file came from, also when
#   unsafe-best-match merged several, and none for --find-links files;
# - --no-cache still works where a whole wheel is needed (a lock of links
#   without hashes), leaving nothing behind.
. "$(dirname "$0")/lib.sh"
T=${TORCHSOLVE:?}
work=$(ts_tmpdir)
python3 "$TS_SOURCE_DIR/tests/support/index_fixtures.py" "$work/www"
ts_nginx_start "$work/www"
U=$TS_NGINX_URL
export TORCHSOLVE_CACHE_DIR=$work/cache
ts_make_venv "$work/venv"
P=(--python "$work/venv")

# the chosen version's .metadata does not match data-core-metadata: the
# warning names the file and the wheel itself is read instead (a broken
# mirror's PEP 658 files never stop a resolve)
out=$("$T" install --dry-run badhash --index-url "$U/bad/simple" "${P[@]}" 2>&1) ||
  ts_fail "badhash with wrong PEP 658 metadata did not fall back to the wheel: $out"
grep -q "^warning: .*$U/files/badhash-1.0-py3-none-any.whl.metadata: its sha256 differs" <<<"$out" ||
  ts_fail "no warning naming the bad metadata file: $out"
# ...and the wheel, whose page hash is wrong too, is still refused
ts_fails 4 "sha256" install badhash --index-url "$U/bad/simple" "${P[@]}"

# --find-links locations that do not exist: named, whatever the project
ts_fails 1 "^error: --find-links $work/nowhere: '$work/nowhere' does not exist" \
  install --dry-run alpha --index-url "$U/idx1/simple" --find-links "$work/nowhere" "${P[@]}"
ts_fails 3 "^error: --find-links $U/flat/nowhere.html: .*HTTP 404" \
  install --dry-run alpha --no-index --find-links "$U/flat/nowhere.html" "${P[@]}"
grep -q "no index has" "$work/err" && ts_fail "a missing --find-links page read as a missing project"

# a project no index has: the explanation names the URLs asked, so that a
# mistyped --index-url shows at once
ts_fails 1 "the requirements cannot be met" \
  install --dry-run alpha --index-url "$U/idx1/simpel" "${P[@]}"
grep -q "hint: project 'alpha' not found on $U/idx1/simpel; check the name and the index URL" \
  "$work/err" || { cat "$work/err"; ts_fail "a missing project: the index URL is not named"; }

# and the same sources, when present, resolve
"$T" install --dry-run gamma --no-index --find-links "$work/www/files" "${P[@]}" --no-cache >"$work/ok.out" 2>&1 ||
  { cat "$work/ok.out"; ts_fail "find-links directory"; }
grep -q '^install gamma 2.0 ' "$work/ok.out" || { cat "$work/ok.out"; ts_fail "find-links directory: gamma 2.0"; }
# unsafe-best-match: shared 99.0 comes from idx2, and says so
"$T" install --dry-run shared --index-url "$U/idx1/simple" --extra-index-url "$U/idx2/simple" \
  --index-strategy unsafe-best-match "${P[@]}" >"$work/ubm.out" 2>&1 || { cat "$work/ubm.out"; ts_fail "unsafe-best-match"; }
grep -qx "install shared 99.0 - $U/idx2/simple" "$work/ubm.out" || { cat "$work/ubm.out"; ts_fail "merged file's index"; }
"$T" lock shared --index-url "$U/idx1/simple" --extra-index-url "$U/idx2/simple" \
  --index-strategy unsafe-best-match "${P[@]}" -o "$work/ubm.toml" >/dev/null 2>&1 || ts_fail "lock unsafe-best-match"
grep -qx "index = \"$U/idx2/simple\"" "$work/ubm.toml" || { cat "$work/ubm.toml"; ts_fail "lock: merged file's index"; }

# --find-links only, links without hashes (nginx's listing of /files/),
# --no-cache: the lock hashes whole wheels kept in a scratch directory
mkdir -p "$work/tmp"
TMPDIR=$work/tmp "$T" lock gamma --no-index --find-links "$U/files/" --no-cache "${P[@]}" -o "$work/fl.toml" \
  >"$work/fl.out" 2>&1 || { cat "$work/fl.out"; ts_fail "lock --no-cache from a find-links page without hashes"; }
grep -q "^hashes = { sha256 = \"$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["gamma-2.0-py3-none-any.whl"]["sha256"])' "$work/www/MANIFEST.json")\" }" "$work/fl.toml" ||
  { cat "$work/fl.toml"; ts_fail "lock: gamma's hash"; }
grep -q '^index' "$work/fl.toml" && { cat "$work/fl.toml"; ts_fail "lock: a find-links file recorded an index"; }
[ -z "$(ls -A "$work/tmp")" ] || { ls -la "$work/tmp"; ts_fail "--no-cache left files behind"; }
echo "index_resolve: all checks passed"
