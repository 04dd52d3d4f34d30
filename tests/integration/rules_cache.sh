#!/usr/bin/env bash
# Rules files kept parsed in the cache (rules/rules_cache.h): a warm run is
# answered from the entry, a damaged entry is ignored and replaced, and a
# changed file, a --rules file edited in place (same size, same mtime) or
# the newer facts `torchsolve rules update` keeps, is never served stale.
# --no-cache keeps none.
. "$(dirname "$0")/lib.sh"
T=${TORCHSOLVE:?}
ts_isolate_from_host
ts_index_from_spec < <(printf '%s\n' "simple alpha 1.0 py3-none-any" "simple alpha 2.0 py3-none-any")
ts_make_venv "$work/venv"
export TORCHSOLVE_CACHE_DIR=$work/cache
entries=$TORCHSOLVE_CACHE_DIR/rules-v1

# A rules file whose rule holds alpha >= SUBJECT back (it requires a beta
# no index has): ">=9" holds nothing back, ">=2" holds 2.0 back.  Both
# texts have the same length.
rules_file() {
  cat >"$1" <<YAML
schema: 1
rules:
  - id: hold-alpha
    kind: requires
    subject: "alpha>=$2"
    terms: ["beta<0.1"]
    message: "alpha $2 is held back by this test"
    fix: "none needed"
    source: https://example.org/rules-cache-test
YAML
}
# alpha's version in the plan of a dry run with ARGS
alpha() {
  "$T" install --dry-run --python "$work/venv" --index-url "$TS_NGINX_URL/simple" "$@" alpha \
    >"$work/out" 2>"$work/err" || { cat "$work/err"; ts_fail "dry run failed: $*"; }
  sed -n 's/.*alpha[ =]*\([0-9.]*\).*/\1/p' "$work/out" | head -1
}
count() { find "$entries" -type f 2>/dev/null | grep -vc '\.tmp\.' || true; }

rules_file "$work/r.yaml" 9
[ "$(alpha --rules "$work/r.yaml")" = 2.0 ] || ts_fail "first run: $(cat "$work/out")"
# the bundled file's parse is compiled in (rules/builtin.h): only --rules's
[ "$(count)" = 1 ] || ts_fail "$(count) entries after a first run (--rules only)"
# the entry of r.yaml as it is now: the one written last
a_entry=$(ls -t "$entries"/* | head -1)
cp "$a_entry" "$work/a.good"

# A warm run reads the entries: one of another file's bytes under r.yaml's
# key would be served (what keys the entry is the file's bytes, below).
rules_file "$work/b.yaml" 2
[ "$(alpha --rules "$work/b.yaml")" = 1.0 ] || ts_fail "b.yaml: $(cat "$work/out")"
b_entry=$(ls -t "$entries"/* | head -1)
[ "$b_entry" != "$a_entry" ] || ts_fail "r.yaml and b.yaml share an entry"
cp "$b_entry" "$a_entry"
[ "$(alpha --rules "$work/r.yaml")" = 1.0 ] || ts_fail "a warm run did not read its entry"
cp "$work/a.good" "$a_entry"
[ "$(alpha --rules "$work/r.yaml")" = 2.0 ] || ts_fail "warm run: $(cat "$work/out")"

# A damaged entry is ignored (the file parsed) and replaced whole: a byte
# flipped inside, cut short, emptied, garbage.
damage() {
  case $1 in
    flip) # one letter of the rule's message: it still decodes, only the checksum tells
      at=$(grep -boa 'held back' "$a_entry" | head -1 | cut -d: -f1)
      printf 'X' | dd of="$a_entry" bs=1 seek="${at:?}" conv=notrunc status=none ;;
    short) truncate -s 100 "$a_entry" ;;
    empty) : >"$a_entry" ;;
    garbage) head -c 4000 /dev/urandom >"$a_entry" ;;
  esac
}
for how in flip short empty garbage; do
  cp "$b_entry" "$work/b.good"
  damage $how
  [ "$(alpha --rules "$work/r.yaml")" = 2.0 ] || ts_fail "damaged entry ($how): $(cat "$work/out")"
  grep -qi 'error\|warning' "$work/err" && ts_fail "damaged entry ($how) was reported: $(cat "$work/err")"
  cmp -s "$a_entry" "$work/a.good" || ts_fail "damaged entry ($how) not replaced"
done

# r.yaml edited in place to b.yaml's text: same size, same mtime; the
# result follows the file at once.
stamp=$(stat -c %Y "$work/r.yaml")
rules_file "$work/r.yaml" 2
touch -d "@$stamp" "$work/r.yaml"
[ "$(alpha --rules "$work/r.yaml")" = 1.0 ] || ts_fail "edited --rules file served stale"
rules_file "$work/r.yaml" 9
touch -d "@$stamp" "$work/r.yaml"
[ "$(alpha --rules "$work/r.yaml")" = 2.0 ] || ts_fail "edited back: served stale"

# The newer facts `rules update` keeps (data folder, origin newer than the
# bundled file) are in force from the next run, and so is the next update.
data=$XDG_DATA_HOME/torchsolve/rules-v1
mkdir -p "$data"
updated() {
  sed -e 's/^version: .*/version: "2099.01.01"/' "$TS_SOURCE_DIR/rules.yaml" >"$data/rules.yaml"
  sed -n '/^  - id: hold-alpha/,$p' "$1" >>"$data/rules.yaml"
  printf 'version 2099.01.01\nurl http://example.org/r.whl\nsha256 %064d\n' 0 >"$data/origin"
}
[ "$(alpha)" = 2.0 ] || ts_fail "bundled rules: $(cat "$work/out")"
# (the rule is appended to rules.yaml's last section, its rules: list)
[ "$(grep '^[a-z_]*:' "$TS_SOURCE_DIR/rules.yaml" | tail -1)" = "rules:" ] ||
  ts_fail "rules: is no longer rules.yaml's last section; append the rule elsewhere"
before=$(count)
updated "$work/b.yaml"
[ "$(alpha)" = 1.0 ] || ts_fail "updated rules not in force: $(cat "$work/out")"
# the updated file is no longer the compiled-in bundled one: parsed and kept
[ "$(count)" = $((before + 1)) ] || ts_fail "the updated rules were not cached"
rules_file "$work/c.yaml" 9
updated "$work/c.yaml"
[ "$(alpha)" = 2.0 ] || ts_fail "the next update served stale: $(cat "$work/out")"
rm -rf "$data"

# --no-cache keeps no entry
rm -rf "$entries"
[ "$(alpha --no-cache --rules "$work/r.yaml")" = 2.0 ] || ts_fail "--no-cache: $(cat "$work/out")"
[ ! -e "$entries" ] || ts_fail "--no-cache wrote $entries"
echo "rules_cache: all checks passed"
