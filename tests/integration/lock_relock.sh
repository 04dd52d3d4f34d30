#!/usr/bin/env bash
# Locking again over an existing lock: its versions are kept where they
# still fit when the index has newer ones (single-target and --universal);
# --upgrade-package P moves P and what P needs and nothing else; -U moves
# everything; lock --check exits 0 when the file is what lock writes now,
# 1 when not (writing nothing); a broken existing lock is refused, intact.
. "$(dirname "$0")/lib.sh"
T=${TORCHSOLVE:?}
python3 -c 'import tomllib' 2>/dev/null || ts_skip "python3 lacks tomllib"
ts_isolate_from_host
work=$(ts_tmpdir)
export XDG_CONFIG_HOME=$work/config TORCHSOLVE_CACHE_DIR=$work/cache
# The whole index (wheels made once, so their hashes never change) is
# served first without its 2.0 versions: gamma 2.0 needs delta>=2.
{
  echo "simple alpha 1.0 py3-none-any beta"
  echo "simple beta 1.0 py3-none-any"
  echo "simple beta 2.0 py3-none-any"
  echo "simple gamma 1.0 py3-none-any delta>=1"
  echo "simple gamma 2.0 py3-none-any delta>=2"
  echo "simple delta 1.0 py3-none-any"
  echo "simple delta 2.0 py3-none-any"
} | python3 "$TS_SOURCE_DIR/tests/integration/install_mkindex.py" "$work/full"
cp -r "$work/full" "$work/www"
for page in "$work"/www/simple/*/index.html; do
  grep -v -- '-2\.0-' "$page" >"$page.new" && mv "$page.new" "$page"
done
ts_nginx_start "$work/www"
IDX=(-i "$TS_NGINX_URL/simple" --torch-index-url "$TS_NGINX_URL/whl" --cpu
     --python-version 3.12 --platform manylinux_2_28_x86_64)
versions() {
  python3 -c 'import sys, tomllib
print(" ".join(p["name"] + "=" + p["version"] for p in tomllib.load(open(sys.argv[1], "rb"))["packages"]))' "$1"
}

"$T" lock "${IDX[@]}" alpha gamma -o "$work/l.toml" 2>/dev/null || ts_fail "first lock"
[ "$(versions "$work/l.toml")" = "alpha=1.0 beta=1.0 delta=1.0 gamma=1.0" ] || ts_fail "first lock: $(versions "$work/l.toml")"
cp "$work/l.toml" "$work/first.toml"

# The index gets the newer versions.
for page in "$work"/full/simple/*/index.html; do
  cp "$page" "$work/www/simple/$(basename "$(dirname "$page")")/index.html"
done

# 1. --check: the lock is still what lock writes (its versions are kept).
"$T" lock --check "${IDX[@]}" gamma alpha -o "$work/l.toml" 2>"$work/err" || { cat "$work/err"; ts_fail "--check of an up-to-date lock"; }
grep -q "is up to date" "$work/err" || ts_fail "--check says nothing"
# a requirement the lock does not meet: exit 1, nothing written
set +e
"$T" lock --check "${IDX[@]}" alpha gamma "beta>=2" -o "$work/l.toml" 2>"$work/err"
rc=$?
set -e
[ "$rc" = 1 ] || { cat "$work/err"; ts_fail "--check of a stale lock: exit $rc"; }
grep -q "^error: .*l.toml is not what 'torchsolve lock' writes now" "$work/err" || { cat "$work/err"; ts_fail "--check message"; }
cmp "$work/l.toml" "$work/first.toml" || ts_fail "--check wrote the lock"

# 2. Re-locking keeps every locked version that still fits.
"$T" lock "${IDX[@]}" alpha gamma -o "$work/l.toml" 2>/dev/null || ts_fail "relock"
cmp "$work/l.toml" "$work/first.toml" || ts_fail "relock changed versions: $(versions "$work/l.toml")"

# 3. --upgrade-package gamma: gamma and what it needs (delta) move, beta stays.
"$T" lock "${IDX[@]}" alpha gamma --upgrade-package gamma -o "$work/l.toml" 2>/dev/null || ts_fail "--upgrade-package"
[ "$(versions "$work/l.toml")" = "alpha=1.0 beta=1.0 delta=2.0 gamma=2.0" ] || ts_fail "--upgrade-package gamma: $(versions "$work/l.toml")"

# 4. -U: every package to its best version.
"$T" lock "${IDX[@]}" alpha gamma -U -o "$work/l.toml" 2>/dev/null || ts_fail "-U"
[ "$(versions "$work/l.toml")" = "alpha=1.0 beta=2.0 delta=2.0 gamma=2.0" ] || ts_fail "-U: $(versions "$work/l.toml")"

# 5. --universal keeps an existing universal lock's versions too.
cp "$work/first.toml" "$work/u.toml"
UIDX=(-i "$TS_NGINX_URL/simple" --torch-index-url "$TS_NGINX_URL/whl" --cpu)
"$T" lock --universal --requires-python '>=3.12' "${UIDX[@]}" alpha gamma -o "$work/u.toml" 2>/dev/null || ts_fail "universal relock"
[ "$(versions "$work/u.toml")" = "alpha=1.0 beta=1.0 delta=1.0 gamma=1.0" ] || ts_fail "universal relock: $(versions "$work/u.toml")"
"$T" lock --check --universal --requires-python '>=3.12' "${UIDX[@]}" alpha gamma -o "$work/u.toml" 2>/dev/null ||
  ts_fail "--check --universal of the lock just written"

# 6. A broken existing lock is refused and left as it was.
echo 'lock-version = "1.0"' >"$work/bad.toml"
ts_fails 1 "the existing lock .*bad.toml cannot be read" lock "${IDX[@]}" alpha -o "$work/bad.toml"
[ "$(cat "$work/bad.toml")" = 'lock-version = "1.0"' ] || ts_fail "the broken lock was replaced"
ts_fails 2 "--check compares with a file" lock --check "${IDX[@]}" alpha -o -
echo "relock: ok"
