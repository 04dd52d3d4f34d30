#!/usr/bin/env bash
# torchsolve install end to end: a small index built here (tiny wheels, PEP
# 503 pages) served by nginx, installed into a fresh venv; pip check and
# pip list agree, imports work; --dry-run changes nothing; --report - is
# pip's JSON; a second run keeps everything; --upgrade moves to the newest.
. "$(dirname "$0")/lib.sh"
T=${TORCHSOLVE:?}
ts_index_from_spec <<'SPEC'
simple alpha 1.0 py3-none-any beta>=1.0
simple alpha 1.1 py3-none-any beta>=1.0
simple beta 1.0 py3-none-any
simple beta 2.0 py3-none-any gamma
simple gamma 0.5 py3-none-any
SPEC
U=$TS_NGINX_URL/simple
export TORCHSOLVE_CACHE_DIR=$work/cache
ts_make_venv "$work/venv"
PY=$work/venv/bin/python
pipv() { python3 -m pip --python "$PY" "$@"; }

# --- dry run: the plan, nothing installed ------------------------------
"$T" install --python "$work/venv" -i "$U" --dry-run 'alpha==1.0' >"$work/plan" 2>"$work/err" ||
  { cat "$work/err"; ts_fail "dry run failed"; }
cat "$work/plan"
grep -q '^install alpha 1.0 - ' "$work/plan" || ts_fail "dry run: alpha 1.0 not planned"
grep -q '^install beta 2.0 ' "$work/plan" || ts_fail "dry run: beta 2.0 not planned"
grep -q '^install gamma 0.5 ' "$work/plan" || ts_fail "dry run: gamma not planned"
grep -q 'Resolved 3 packages in' "$work/err" || ts_fail "no Resolved summary"
ls "$work/venv"/lib/python*/site-packages | grep -qi alpha && ts_fail "dry run installed something"

# --- report ------------------------------------------------------------
"$T" install --python "$work/venv" -i "$U" --dry-run --report - 'alpha==1.0' >"$work/report.json" 2>/dev/null
python3 - "$work/report.json" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
assert r["version"] == "1", r
got = {(i["metadata"]["name"], i["metadata"]["version"]) for i in r["install"]}
assert got == {("alpha", "1.0"), ("beta", "2.0"), ("gamma", "0.5")}, got
for i in r["install"]:
    assert i["download_info"]["url"].startswith("http://127.0.0.1"), i
    assert len(i["download_info"]["archive_info"]["hashes"]["sha256"]) == 64
    assert i["requested"] == (i["metadata"]["name"] == "alpha"), i
assert r["environment"]["implementation_name"] == "cpython"
PY
# pip's report redacts user:password@ from download_info.url (DirectUrl.redacted_url)
UC=${U/http:\/\//http://user:s3cret@}
"$T" install --python "$work/venv" -i "$UC" --dry-run --report - 'alpha==1.0' >"$work/report-cred.json" 2>/dev/null ||
  ts_fail "dry run with credentials in the index URL failed"
python3 -c 'import json,sys; json.load(open(sys.argv[1]))' "$work/report-cred.json" || ts_fail "--report with credentials"
grep -q "s3cret" "$work/report-cred.json" && ts_fail "--report leaks the index password"

# --- install -----------------------------------------------------------
"$T" install --python "$work/venv" -i "$U" 'alpha==1.0' 2>"$work/err" ||
  { cat "$work/err"; ts_fail "install failed"; }
cat "$work/err"
grep -q 'Installed 3 packages in' "$work/err" || ts_fail "no Installed summary"
pipv check || ts_fail "pip check"
pipv list --format=freeze >"$work/list"
grep -qx 'alpha==1.0' "$work/list" && grep -qx 'beta==2.0' "$work/list" &&
  grep -qx 'gamma==0.5' "$work/list" || { cat "$work/list"; ts_fail "pip list"; }
"$PY" -c 'import alpha, beta, gamma; assert alpha.__version__ == "1.0"' || ts_fail "import"
site=$(echo "$work/venv"/lib/python*/site-packages)
[ -f "$site/alpha-1.0.dist-info/REQUESTED" ] || ts_fail "alpha lacks REQUESTED"
[ ! -f "$site/beta-2.0.dist-info/REQUESTED" ] || ts_fail "beta has REQUESTED"

# --- second run keeps --------------------------------------------------
"$T" install --python "$work/venv" -i "$U" --dry-run alpha >"$work/plan2" 2>/dev/null
cat "$work/plan2"
grep -q '^keep alpha 1.0' "$work/plan2" || ts_fail "second run does not keep alpha"
"$T" install --python "$work/venv" -i "$U" alpha 2>"$work/err"
grep -q 'Nothing to install' "$work/err" || { cat "$work/err"; ts_fail "second run changed something"; }

# --- upgrade -----------------------------------------------------------
"$T" install --python "$work/venv" -i "$U" --upgrade --dry-run alpha >"$work/plan" 2>/dev/null
grep -q '^upgrade alpha 1.1 - .* (was 1.0)$' "$work/plan" || { cat "$work/plan"; ts_fail "dry run: the replaced version not shown"; }
"$T" install --python "$work/venv" -i "$U" --upgrade alpha 2>"$work/err" ||
  { cat "$work/err"; ts_fail "upgrade failed"; }
pipv list --format=freeze >"$work/list"; grep -qx "alpha==1.1" "$work/list" || ts_fail "alpha not upgraded"
pipv check || ts_fail "pip check after upgrade"

# --- a resolution failure explains and exits 1 -------------------------
rc=0
"$T" install --python "$work/venv" -i "$U" --dry-run 'alpha==1.0' 'beta<1' 2>"$work/err" || rc=$?
cat "$work/err"
[ "$rc" = 1 ] || ts_fail "conflict: exit $rc, wanted 1"
grep -q 'beta' "$work/err" || ts_fail "conflict not explained"

# --- constraints, hashes, --require-hashes, --offline -----------------
ts_make_venv "$work/v2"
echo 'beta<2' >"$work/cons.txt"
"$T" install --python "$work/v2" -i "$U" --dry-run -c "$work/cons.txt" alpha >"$work/plan3" 2>/dev/null
grep -q '^install beta 1.0 ' "$work/plan3" || { cat "$work/plan3"; ts_fail "-c not applied"; }
grep -q '^install gamma' "$work/plan3" && ts_fail "-c: gamma planned"
good=$(sha256sum "$work/www/simple/gamma-0.5-py3-none-any.whl" | cut -d' ' -f1)
bad=$(printf '%064d' 0)
echo "gamma==0.5 --hash=sha256:$bad" >"$work/bad.txt"
rc=0; "$T" install --python "$work/v2" -i "$U" -r "$work/bad.txt" 2>"$work/err" || rc=$?
cat "$work/err"
[ "$rc" = 4 ] || ts_fail "a wrong --hash: exit $rc, expected 4 (integrity)"
grep -q 'matches no --hash of' "$work/err" || ts_fail "a wrong --hash: no message naming it"
[ -z "$(ls "$work/v2"/lib/python*/site-packages | grep -i gamma)" ] || ts_fail "wrong hash: venv changed"
echo "gamma==0.5" >"$work/nohash.txt"
rc=0; "$T" install --python "$work/v2" -i "$U" --require-hashes -r "$work/nohash.txt" 2>"$work/err" || rc=$?
cat "$work/err"
[ "$rc" = 1 ] || ts_fail "--require-hashes without --hash: exit $rc, expected 1"
grep -qi 'hash' "$work/err" || ts_fail "--require-hashes failure does not say why"
grep -q "nohash.txt line 1" "$work/err" || ts_fail "--require-hashes: the line without a hash is not named"
grep -q "do not trust" "$work/err" && ts_fail "a missing --hash reported as tampering"
[ "$(grep -c '^error' "$work/err")" = 1 ] || ts_fail "--require-hashes: not one error line"
# A dependency without a hash: a dry run fails as the install would (pip).
alpha_h=$(sha256sum "$work/www/simple/alpha-1.0-py3-none-any.whl" | cut -d' ' -f1)
echo "alpha==1.0 --hash=sha256:$alpha_h" >"$work/rootonly.txt"
rc=0; "$T" install --python "$work/v2" -i "$U" --dry-run --require-hashes -r "$work/rootonly.txt" \
  >/dev/null 2>"$work/err" || rc=$?
cat "$work/err"
[ "$rc" = 1 ] || ts_fail "--require-hashes dry run with an unhashed dependency: exit $rc, expected 1"
grep -q "beta 2.0 (a dependency) has no --hash" "$work/err" || ts_fail "the unhashed dependency is not named"
echo "gamma==0.5 --hash=sha256:$good" >"$work/good.txt"
"$T" install --python "$work/v2" -i "$U" --require-hashes -r "$work/good.txt" 2>"$work/err" ||
  { cat "$work/err"; ts_fail "a right --hash was refused"; }
rc=0; TORCHSOLVE_CACHE_DIR=$work/empty-cache "$T" install --python "$work/v2" -i "$U" \
  --offline --dry-run alpha >/dev/null 2>"$work/err" || rc=$?
cat "$work/err"
[ "$rc" = 3 ] || ts_fail "--offline with an empty cache: exit $rc, expected 3"
grep -q 'offline' "$work/err" || ts_fail "--offline failure does not say why"
"$T" install --python "$work/v2" -i "$U" --report "$work/r.json" --dry-run alpha >/dev/null 2>&1
python3 -c 'import json,sys; json.load(open(sys.argv[1]))' "$work/r.json" || ts_fail "--report FILE"

# --- the cache serves an --offline install of what was installed -----
ts_make_venv "$work/v3"
"$T" install --python "$work/v3" -i "$U" --offline 'alpha==1.0' 2>"$work/err" ||
  { cat "$work/err"; ts_fail "--offline install of cached wheels"; }
pipv() { python3 -m pip --python "$work/v3/bin/python" "$@"; }
pipv list --format=freeze >"$work/list"
grep -qx 'alpha==1.0' "$work/list" && grep -qx 'beta==2.0' "$work/list" || ts_fail "--offline install"

# --- --cache-dir moves the whole cache; --no-cache writes none ---------
ts_make_venv "$work/v-cd"
(unset TORCHSOLVE_CACHE_DIR; HOME=$work/home XDG_CACHE_HOME= \
  "$T" install -q --python "$work/v-cd" -i "$U" --cache-dir "$work/cd" alpha) ||
  ts_fail "--cache-dir install failed"
for d in packs-v1 wheels-v1; do
  [ -d "$work/cd/$d" ] || ts_fail "--cache-dir: no $d under it"
done
# the probe's answer too, unless the venv was read from its files (no probe)
src=$("$T" detect --python "$work/v-cd" --json |
  python3 -c 'import json, sys; print(json.load(sys.stdin)["python"]["source"])')
if [ "$src" = files ]; then
  [ ! -e "$work/cd/python" ] || ts_fail "--cache-dir: a probe was cached for a venv read from its files"
else
  [ -d "$work/cd/python" ] || ts_fail "--cache-dir: no python under it"
fi
[ ! -e "$work/home/.cache" ] || ts_fail "--cache-dir: something went to ~/.cache: $(find "$work/home" | head -5)"
ts_make_venv "$work/v-nc"
mkdir -p "$work/tmp"
(unset TORCHSOLVE_CACHE_DIR; HOME=$work/home XDG_CACHE_HOME= TMPDIR=$work/tmp \
  "$T" install -q --python "$work/v-nc" -i "$U" --no-cache alpha) || ts_fail "--no-cache install failed"
"$work/v-nc/bin/python" -c 'import alpha' || ts_fail "--no-cache: alpha not importable"
[ ! -e "$work/home/.cache" ] || ts_fail "--no-cache wrote a cache: $(find "$work/home" | head -5)"
[ -z "$(ls -A "$work/tmp")" ] || ts_fail "--no-cache left temporary files: $(ls -A "$work/tmp")"

# --- usage errors exit 2 -----------------------------------------------
rc=0; "$T" install --no-such-flag x 2>/dev/null || rc=$?
[ "$rc" = 2 ] || ts_fail "unknown flag: exit $rc"
"$T" install --help >"$work/help"; grep -q -- "--dry-run" "$work/help" || ts_fail "help"
echo "install_basic: ok"
