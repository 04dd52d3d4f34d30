#!/usr/bin/env bash
# sync means exact: two syncs of one lock into venvs with different
# histories leave byte-identical site-packages, dist-info files included.
# A kept distribution is installed again when its dist-info differs from
# what sync writes (no REQUESTED: installed as a dependency; installed
# from a path; another wheel) or a file no longer matches its RECORD.
. "$(dirname "$0")/lib.sh"
T=${TORCHSOLVE:?}
command -v python3 >/dev/null || ts_skip "no python3"
work=$(ts_tmpdir)
export TORCHSOLVE_CACHE_DIR=$work/cache
python3 "$TS_SOURCE_DIR/tests/integration/install_mkindex.py" "$work/www" <<'SPEC'
simple alpha 1.0 py3-none-any beta
simple beta 1.0 py3-none-any
SPEC
U=file://$work/www/simple
"$T" venv -q "$work/fresh"
"$T" lock -q --python "$work/fresh" -i "$U" alpha -o "$work/pylock.toml" || ts_fail "lock failed"
tree() { # every file under site-packages with its content hash
  (cd "$(echo "$1"/lib/python3*/site-packages)" &&
    find . -type f ! -name .torchsolve.lock ! -path '*/__pycache__/*' -print0 | sort -z |
    xargs -0 sha256sum)
}
sync() { "$T" sync -q "$work/pylock.toml" --python "$1" -i "$U" || ts_fail "sync into $1 failed"; }
sync "$work/fresh"
want=$(tree "$work/fresh")
grep -q 'beta-1.0.dist-info/REQUESTED' <<<"$want" || ts_fail "sync wrote no REQUESTED for beta"

# installed by install: beta came as a dependency (no REQUESTED)
"$T" venv -q "$work/installed"
"$T" install -q --python "$work/installed" -i "$U" alpha || ts_fail "install failed"
sync "$work/installed"
[ "$(tree "$work/installed")" = "$want" ] || { diff <(echo "$want") <(tree "$work/installed"); ts_fail "sync after install differs from a fresh sync"; }

# installed from a path (direct_url.json), then a file edited in place
"$T" venv -q "$work/edited"
"$T" wheel install -q --python "$work/edited" "$work/www/simple/beta-1.0-py3-none-any.whl"
sync "$work/edited"
[ "$(tree "$work/edited")" = "$want" ] || { diff <(echo "$want") <(tree "$work/edited"); ts_fail "sync after a path install differs"; }
init=$(echo "$work/edited"/lib/python3*/site-packages/alpha/__init__.py)
rm "$init" && echo "edited = True" >"$init" # a new file: the cache keeps its copy
sync "$work/edited"
[ "$(tree "$work/edited")" = "$want" ] || { diff <(echo "$want") <(tree "$work/edited"); ts_fail "sync kept an edited file"; }

# and an exact venv is left alone
"$T" sync "$work/pylock.toml" --python "$work/edited" -i "$U" 2>"$work/err" || ts_fail "sync failed"
grep -q '0 changed' "$work/err" || { cat "$work/err"; ts_fail "an exact venv was changed"; }
echo ok
