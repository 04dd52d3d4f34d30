#!/usr/bin/env bash
# --hash as pip-compile --generate-hashes writes it: several values per
# requirement, one per file of the pinned version; the chosen file must
# match any one.  As pip: files whose index hash is not allowed are passed
# over when another file is allowed; --require-hashes wants == pins; with
# no index hash (find-links directory) the downloaded file is checked
# against the set; a mismatch is exit 4 with the venv unchanged.
. "$(dirname "$0")/lib.sh"
T=${TORCHSOLVE:?}
ts_index_from_spec <<'SPEC'
simple alpha 1.0 py3-none-any
simple alpha 1.0 cp311-cp311-linux_x86_64
simple alpha 0.9 py3-none-any
SPEC
U=$TS_NGINX_URL/simple
export TORCHSOLVE_CACHE_DIR=$work/cache
PYV=$(python3 -c 'import sys; print("%d%d" % sys.version_info[:2])')
sha() { sha256sum "$1" | cut -d' ' -f1; }
ANY=$(sha "$work/www/simple/alpha-1.0-py3-none-any.whl")
CP=$(sha "$work/www/simple/alpha-1.0-cp311-cp311-linux_x86_64.whl")
OLD=$(sha "$work/www/simple/alpha-0.9-py3-none-any.whl")
BOGUS=0000000000000000000000000000000000000000000000000000000000000000
tag() { grep '^Tag:' "$1"/lib/python3*/site-packages/alpha-1.0.dist-info/WHEEL; }
# the venv's lock file is created by the first run that reads the venv
state() { (cd "$1" && find . ! -name .torchsolve.lock -printf '%p %s\n' | grep -v __pycache__ | sort | md5sum); }

# --- several values, the matching one not first: installs ----------------
ts_make_venv "$work/v1"
cat >"$work/r1.txt" <<REQ
alpha==1.0 \\
    --hash=sha256:$BOGUS \\
    --hash=sha256:$ANY \\
    --hash=sha256:$CP
REQ
"$T" install -q --python "$work/v1" -i "$U" --require-hashes -r "$work/r1.txt" ||
  ts_fail "several --hash values: install failed"
"$work/v1/bin/python" -c 'import alpha' || ts_fail "alpha not importable"
[ "$PYV" != 311 ] || tag "$work/v1" | grep -q cp311 || ts_fail "cp311 wheel not preferred: $(tag "$work/v1")"

# --- only the pure wheel allowed: pip's filter picks it ------------------
ts_make_venv "$work/v2"
printf 'alpha==1.0 --hash=sha256:%s --hash=sha256:%s\n' "$BOGUS" "$ANY" >"$work/r2.txt"
"$T" install -q --python "$work/v2" -i "$U" -r "$work/r2.txt" ||
  ts_fail "hash of the pure wheel only: install failed"
tag "$work/v2" | grep -q 'py3-none-any' || ts_fail "the allowed file was not chosen: $(tag "$work/v2")"

# --- none allowed: exit 4, venv unchanged, the values counted ------------
ts_make_venv "$work/v3"
before=$(state "$work/v3")
printf 'alpha==1.0 --hash=sha256:%s --hash=sha256:%s\n' "$BOGUS" "$OLD" >"$work/r3.txt"
rc=0; "$T" install -q --python "$work/v3" -i "$U" -r "$work/r3.txt" 2>"$work/err" || rc=$?
cat "$work/err"
[ $rc = 4 ] || ts_fail "no allowed hash: exit $rc, want 4"
grep -q 'matches no --hash of .*(2 given)' "$work/err" || ts_fail "mismatch not explained"
grep -q 'r3.txt:1' "$work/err" || ts_fail "mismatch does not name the file and line"
[ "$(state "$work/v3")" = "$before" ] || ts_fail "venv changed after a hash mismatch"

# --- --require-hashes wants == pins --------------------------------------
printf 'alpha>=0.9 --hash=sha256:%s --hash=sha256:%s\n' "$ANY" "$CP" >"$work/r4.txt"
rc=0; "$T" install -q --python "$work/v3" -i "$U" --require-hashes -r "$work/r4.txt" \
  2>"$work/err" || rc=$?
[ $rc = 1 ] || ts_fail "--require-hashes with an unpinned requirement: exit $rc, want 1"
grep -q 'not pinned' "$work/err" || ts_fail "unpinned requirement not named: $(cat "$work/err")"

# --- one --hash turns hash-checking on for the whole file (pip) ----------
printf 'alpha==1.0 --hash=sha256:%s\nalpha-extra==1.0\n' "$ANY" >"$work/r7.txt"
rc=0; "$T" install -q --python "$work/v3" -i "$U" -r "$work/r7.txt" 2>"$work/err" || rc=$?
[ $rc = 1 ] || ts_fail "a hashed line beside an unhashed one: exit $rc, want 1"
grep -q "alpha-extra==1.0.*has no --hash" "$work/err" || ts_fail "unhashed line not named: $(cat "$work/err")"

# --- no index hash (a find-links directory): the download is checked -----
mkdir -p "$work/links"
cp "$work/www/simple/alpha-1.0-py3-none-any.whl" "$work/links/"
printf 'alpha==1.0 --hash=sha256:%s --hash=sha256:%s\n' "$BOGUS" "$ANY" >"$work/r5.txt"
ts_make_venv "$work/v5"
"$T" install -q --python "$work/v5" --no-index -f "$work/links" -r "$work/r5.txt" ||
  ts_fail "find-links with several --hash values: install failed"
printf 'alpha==1.0 --hash=sha256:%s --hash=sha256:%s\n' "$BOGUS" "$CP" >"$work/r6.txt"
ts_make_venv "$work/v6"
before=$(state "$work/v6")
rc=0; "$T" install -q --python "$work/v6" --no-index -f "$work/links" -r "$work/r6.txt" \
  2>"$work/err" || rc=$?
[ $rc = 4 ] || ts_fail "find-links file outside the --hash values: exit $rc, want 4"
grep -q 'matches no --hash of .*(2 given)' "$work/err" || ts_fail "find-links mismatch: $(cat "$work/err")"
[ "$(state "$work/v6")" = "$before" ] || ts_fail "venv changed after a find-links hash mismatch"

# --- local files are hashed in place, the digest remembered while the ---
# --- file is unchanged; a rewritten file is hashed again ----------------
[ "$(sha "$work/links/alpha-1.0-py3-none-any.whl")" = "$ANY" ] ||
  ts_fail "the local wheel changed under the install"
grep -rqs "$ANY" "$TORCHSOLVE_CACHE_DIR/wheels-v1/by-stat" || ts_fail "local wheel digest not remembered"
ts_make_venv "$work/v8"
"$T" install -q --python "$work/v8" --no-index -f "$work/links" -r "$work/r5.txt" ||
  ts_fail "second install of the unchanged local wheel failed"
cat "$work/www/simple/alpha-1.0-cp311-cp311-linux_x86_64.whl" >"$work/links/alpha-1.0-py3-none-any.whl"
touch -r "$work/www/simple/alpha-1.0-py3-none-any.whl" "$work/links/alpha-1.0-py3-none-any.whl"
ts_make_venv "$work/v9"
rc=0; "$T" install -q --python "$work/v9" --no-index -f "$work/links" -r "$work/r5.txt" \
  2>"$work/err" || rc=$?
[ $rc = 4 ] || ts_fail "a rewritten local wheel passed on its remembered digest: exit $rc, want 4"

# --- lock records the file's own hash ------------------------------------
"$T" lock -q --python "$work/v1" -i "$U" -r "$work/r1.txt" -o "$work/pylock.toml" ||
  ts_fail "lock with several --hash values failed"
grep -q "$CP\|$ANY" "$work/pylock.toml" || ts_fail "lock does not record an allowed hash"
grep -q "$BOGUS" "$work/pylock.toml" && ts_fail "lock recorded a --hash that matches no file"
echo "ok: several --hash values, pip's filter, pins, find-links checks"
