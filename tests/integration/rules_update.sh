#!/usr/bin/env bash
# torchsolve rules update: the torchsolve-rules data package (made by
# tools/rules-wheel.py, as `make rules-wheel` makes it) taken from a local
# index, verified and validated; a good package replaces the bundled facts,
# a broken, tampered or older one changes nothing; detect, rules list and
# --report say which rules are in force; the once-a-day warning of a torch
# newer than the rules.
. "$(dirname "$0")/lib.sh"
T=${TORCHSOLVE:?}
ts_isolate_from_host
ts_venv_for_wheels
export TORCHSOLVE_CACHE_DIR=$work/cache
data=$XDG_DATA_HOME/torchsolve
www=$work/www
mkdir -p "$www/simple/torchsolve-rules" "$work/src"

# VERSION [EXTRA_SED]: a rules.yaml of that version, with one rule more
# (update-marker) so a test sees which file is in force; wheeled into $www.
package() {
  local v=$1 extra=${2:-}
  sed -e "s/^version: .*/version: \"$v\"/" "$TS_SOURCE_DIR/rules.yaml" >"$work/src/rules.yaml"
  cat >>"$work/src/rules.yaml" <<YAML
  - {id: update-marker-$v, kind: conflicts, subject: "torch<1", terms: ["numpy<0.1"],
     message: "marks the rules of package $v", fix: "none needed",
     source: https://example.org/torchsolve-rules}
YAML
  [ -z "$extra" ] || sed -i -e "$extra" "$work/src/rules.yaml"
  python3 "$TS_SOURCE_DIR/tools/rules-wheel.py" "$work/src/rules.yaml" "$www/simple" >/dev/null \
    || ts_fail "rules-wheel.py failed for $v"
}
# The page lists every wheel in $www/simple with its sha256 (or a wrong one
# for the file named in $1).
page() {
  local tamper=${1:-} f h
  {
    echo '<!DOCTYPE html><html><body>'
    for f in "$www"/simple/torchsolve_rules-*.whl; do
      h=$(sha256sum "$f" | cut -d' ' -f1)
      [ "${f##*/}" != "$tamper" ] || h=$(printf '%064d' 0)
      echo "<a href=\"../${f##*/}#sha256=$h\">${f##*/}</a>"
    done
    echo '</body></html>'
  } >"$www/simple/torchsolve-rules/index.html"
}
update() { "$T" rules update -i "$TS_NGINX_URL/simple" "$@" >"$work/out" 2>"$work/err"; }
in_force() { "$T" rules list | head -1; }

bundled=$(sed -n 's/^version: "\(.*\)"/\1/p' "$TS_SOURCE_DIR/rules.yaml")
[ -n "$bundled" ] || ts_fail "rules.yaml has no version"
# the wheel itself: the layout rules update reads, reproducible
python3 "$TS_SOURCE_DIR/tools/rules-wheel.py" "$TS_SOURCE_DIR/rules.yaml" "$work/w1" >/dev/null
python3 "$TS_SOURCE_DIR/tools/rules-wheel.py" "$TS_SOURCE_DIR/rules.yaml" "$work/w2" >/dev/null
whl=torchsolve_rules-$bundled-py3-none-any.whl
cmp -s "$work/w1/$whl" "$work/w2/$whl" || ts_fail "rules-wheel.py is not reproducible"
python3 - "$work/w1/$whl" "$TS_SOURCE_DIR/rules.yaml" <<'PY' || ts_fail "wheel layout"
import sys, zipfile
z = zipfile.ZipFile(sys.argv[1])
assert z.read("torchsolve_rules/rules.yaml") == open(sys.argv[2], "rb").read()
names = set(z.namelist())
for n in ("WHEEL", "METADATA", "RECORD"):
    assert any(x.endswith(".dist-info/" + n) for x in names), n
assert b"Tag: py3-none-any" in z.read([x for x in names if x.endswith("/WHEEL")][0])
PY

in_force | grep -qF "rules in force: bundled $bundled" || ts_fail "before: $(in_force)"

# --- an older package than the bundled rules: nothing kept ------------
package 2020.01.01
page
ts_nginx_start "$www"
update || { cat "$work/err"; ts_fail "older package: exit $?"; }
grep -q "not newer than the bundled rules" "$work/out" || ts_fail "older: $(cat "$work/out")"
[ ! -e "$data/rules-v1/rules.yaml" ] || ts_fail "an older package was kept"

# --- a good package: now in force ---------------------------------------
package 2099.01.01
page
update || { cat "$work/err"; ts_fail "good package refused"; }
cat "$work/out"
grep -q "torchsolve-rules 2099.01.01 is now in force (was $bundled)" "$work/out" \
  || ts_fail "good: $(cat "$work/out")"
in_force | grep -qF "rules in force: updated 2099.01.01 (from $TS_NGINX_URL/simple/torchsolve_rules-2099.01.01-py3-none-any.whl)" \
  || ts_fail "after the update: $(in_force)"
"$T" rules list | grep -q "^update-marker-2099.01.01 " || ts_fail "the updated rules are not the ones read"
"$T" detect --cpu | grep -q "^rules     updated 2099" || ts_fail "detect: $("$T" detect --cpu)"
"$T" detect --cpu --json | python3 -c 'import json, sys
r = json.load(sys.stdin)["rules"]
assert r["in_force"] == "updated" and r["url"].endswith("torchsolve_rules-2099.01.01-py3-none-any.whl"), r' \
  || ts_fail "detect --json rules"
# the same version again: nothing to do; --refresh takes it again
update || ts_fail "second update"
grep -q "is already in force" "$work/out" || ts_fail "current: $(cat "$work/out")"
update --refresh || ts_fail "update --refresh"
grep -q "is now in force" "$work/out" || ts_fail "refresh: $(cat "$work/out")"
kept=$(sha256sum "$data/rules-v1/rules.yaml")

# --- a broken package: exit 1, diagnostics as rules check, nothing changed
package 2099.02.01 's/driver_min: "525.60.13", driver_toolkit: "560.35.05"/driver_min: "not-a-version", driver_toolkit: "560.35.05"/'
page
rc=0; update || rc=$?
cat "$work/err"
[ $rc -eq 1 ] || ts_fail "a broken package: exit $rc, wanted 1"
grep -q "torchsolve_rules-2099.02.01-py3-none-any.whl!torchsolve_rules/rules.yaml:[0-9]*:[0-9]*: error: backend 'cu126': driver_min must be a version" "$work/err" \
  || ts_fail "broken: no diagnostic with its position"
grep -qF "error: torchsolve-rules 2099.02.01 is not valid rules; the rules in force (2099.01.01) are unchanged" "$work/err" \
  || ts_fail "broken: no summary"
[ "$(sha256sum "$data/rules-v1/rules.yaml")" = "$kept" ] || ts_fail "a broken package changed the kept rules"
in_force | grep -q "updated 2099.01.01 " || ts_fail "after a broken package: $(in_force)"
ls "$data/rules-v1" | grep -v '^rules.yaml$\|^origin$' && ts_fail "scratch files left in the data folder"
rm "$www"/simple/torchsolve_rules-2099.02.01-py3-none-any.whl

# --- a file that is not what the index's hash says ------------------------
package 2099.04.01
page torchsolve_rules-2099.04.01-py3-none-any.whl
rc=0; update --refresh || rc=$?
cat "$work/err"
[ $rc -ne 0 ] || ts_fail "a file with the wrong sha256 was accepted"
grep -qi "sha256\|hash" "$work/err" || ts_fail "hash mismatch: $(cat "$work/err")"
[ "$(sha256sum "$data/rules-v1/rules.yaml")" = "$kept" ] || ts_fail "a tampered package changed the kept rules"
# --- no hash at all ---------------------------------------------------------
sed -i 's/#sha256=[0-9a-f]*//' "$www/simple/torchsolve-rules/index.html"
rc=0; update --refresh || rc=$?
[ $rc -ne 0 ] || ts_fail "a file without a hash was accepted"
grep -q "gives no sha256" "$work/err" || ts_fail "no hash: $(cat "$work/err")"
rm "$www"/simple/torchsolve_rules-2099.04.01-py3-none-any.whl
page

# --- --report says which rules --------------------------------------------
{
  echo "whl/cpu torch 2.13.0+cpu $tag"
  echo "whl/cpu torch 2.99.0+cpu $tag"
} | python3 "$TS_SOURCE_DIR/tests/integration/install_mkindex.py" "$www"
"$T" install --python "$work/venv" -i "$TS_NGINX_URL/simple" --torch-index-url "$TS_NGINX_URL/whl" \
  --cpu --dry-run --report "$work/report.json" 'torch<2.99' >"$work/out" 2>"$work/err" \
  || { cat "$work/err"; ts_fail "install --report"; }
python3 -c 'import json, sys
r = json.load(open(sys.argv[1]))["torchsolve"]["rules"]
assert r["in_force"] == "updated" and r["version"].startswith("2099"), r' "$work/report.json" \
  || ts_fail "--report: $(cat "$work/report.json")"

# --- a torch newer than every rules file in force: warned once a day ------
grep -q "the index offers torch 2.99.0, newer than every release the rules in force know" "$work/err" \
  || ts_fail "no newer-torch warning: $(cat "$work/err")"
"$T" install --python "$work/venv" -i "$TS_NGINX_URL/simple" --torch-index-url "$TS_NGINX_URL/whl" \
  --cpu --dry-run 'torch<2.99' >"$work/out" 2>"$work/err" || ts_fail "second install"
grep -q "offers torch 2.99.0" "$work/err" && ts_fail "the newer-torch warning came twice in a day"
echo $(( $(date +%s) - 90000 )) >"$data/newer-torch-warned"
"$T" install --python "$work/venv" -i "$TS_NGINX_URL/simple" --torch-index-url "$TS_NGINX_URL/whl" \
  --cpu --dry-run 'torch<2.99' >"$work/out" 2>"$work/err" || ts_fail "third install"
grep -q "offers torch 2.99.0" "$work/err" || ts_fail "no warning a day later"

# --- a newer binary's bundled facts win over an older update ----------------
sed -e 's/^version: .*/version: "2100.01.01"/' "$TS_SOURCE_DIR/rules.yaml" >"$work/newer-bundled.yaml"
TORCHSOLVE_BUNDLED_RULES=$work/newer-bundled.yaml "$T" rules list | head -1 \
  | grep -q "rules in force: bundled 2100.01.01" || ts_fail "an older update shadowed newer bundled rules"
echo "rules update: ok"
