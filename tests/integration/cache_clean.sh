#!/usr/bin/env bash
# `cache clean` deletes only what torchsolve created: the versioned folders
# of a cache root that carries torchsolve's CACHEDIR.TAG (written when the
# root is created), or of an earlier version's cache (only those folders).
# A root that holds anything else and no marker (TORCHSOLVE_CACHE_DIR=$HOME
# by mistake) is refused, exit 2 (a bad value), nothing deleted.  `cache clean NAME`
# that matches nothing says so; `--cache-dir X` works.
. "$(dirname "$0")/lib.sh"
T=${TORCHSOLVE:?}
work=$(ts_tmpdir)
python3 "$TS_SOURCE_DIR/tests/integration/install_mkindex.py" "$work/www" <<'SPEC'
simple alpha 1.0 py3-none-any beta
simple beta 1.0 py3-none-any
SPEC
U=file://$work/www/simple
"$T" venv -q "$work/venv"

# --- a root torchsolve creates is marked; clean NAME; clean -------------
C=$work/cache
TORCHSOLVE_CACHE_DIR=$C "$T" install -q --python "$work/venv" -i "$U" alpha ||
  ts_fail "install failed"
grep -q '^Signature: 8a477f597d28d172789f06886806bc55$' "$C/CACHEDIR.TAG" ||
  ts_fail "the cache root has no CACHEDIR.TAG"
grep -q 'created by torchsolve' "$C/CACHEDIR.TAG" || ts_fail "CACHEDIR.TAG does not name torchsolve"
ls "$C"/wheels-v1/*/alpha-1.0.dist-info >/dev/null 2>&1 || ts_fail "no unpacked alpha in the cache"
"$T" cache clean --cache-dir "$C" no-such-project 2>"$work/err" || ts_fail "clean of nothing failed"
grep -q "nothing cached for 'no-such-project' in $C" "$work/err" || { cat "$work/err"; ts_fail "clean NAME that matches nothing is silent"; }
"$T" cache clean --cache-dir "$C" Alpha 2>"$work/err" || ts_fail "clean alpha failed"
grep -q "removed Alpha from $C" "$work/err" || { cat "$work/err"; ts_fail "clean alpha: no summary"; }
ls "$C"/wheels-v1/*/alpha-1.0.dist-info >/dev/null 2>&1 && ts_fail "clean alpha left its unpacked wheel"
ls "$C"/wheels-v1/*/beta-1.0.dist-info >/dev/null 2>&1 || ts_fail "clean alpha removed beta's unpacked wheel"
echo keep >"$C/mine.txt" # a stranger's file in a marked root
"$T" cache clean --cache-dir "$C" 2>"$work/err" || { cat "$work/err"; ts_fail "clean failed"; }
for d in pages-v2 metadata-v2 wheels-v1 python; do
  [ -e "$C/$d" ] && ts_fail "clean left $d"
done
[ -f "$C/mine.txt" ] || ts_fail "clean deleted a file torchsolve did not create"
[ -f "$C/CACHEDIR.TAG" ] || ts_fail "clean deleted the marker"
[ "$("$T" cache dir --cache-dir "$C")" = "$C" ] || ts_fail "cache dir --cache-dir"

# --- a root that is not torchsolve's: refused, nothing deleted --------------
H=$work/home
mkdir -p "$H/.ssh" "$H/pages-v1"
echo secret >"$H/.ssh/id_ed25519"
echo notes >"$H/pages-v1/notes" # even a folder with our name
TORCHSOLVE_CACHE_DIR=$H "$T" install -q --python "$work/venv" -i "$U" --force-reinstall beta ||
  ts_fail "install with a foreign cache root failed"
[ -e "$H/CACHEDIR.TAG" ] && ts_fail "a foreign root was marked"
snapshot() { (cd "$H" && find . | sort); }
before=$(snapshot)
for args in "cache clean" "cache clean beta" "cache clean --cache-dir $H"; do
  rc=0
  # shellcheck disable=SC2086
  TORCHSOLVE_CACHE_DIR=$H "$T" $args 2>"$work/err" || rc=$?
  [ $rc = 2 ] || { cat "$work/err"; ts_fail "$args on a foreign root: exit $rc, want 2"; }
  grep -q "'$H' is not a torchsolve cache" "$work/err" || { cat "$work/err"; ts_fail "$args: no clear refusal"; }
  grep -q "nothing was deleted" "$work/err" || ts_fail "$args: does not say nothing was deleted"
  [ "$(snapshot)" = "$before" ] || ts_fail "$args deleted something in a foreign root"
done

# --- an earlier version's cache (our folders, no marker) is ours -------------
O=$work/old-cache
TORCHSOLVE_CACHE_DIR=$O "$T" install -q --python "$work/venv" -i "$U" --force-reinstall beta
rm "$O/CACHEDIR.TAG"
"$T" cache clean --cache-dir "$O" 2>"$work/err" || { cat "$work/err"; ts_fail "an earlier version's cache was refused"; }
[ -e "$O/wheels-v1" ] && ts_fail "an earlier version's cache was not cleaned"
[ -f "$O/CACHEDIR.TAG" ] || ts_fail "an earlier version's cache was not marked"
rc=0; "$T" cache clean --cache-dir "$work/none" 2>"$work/err" || rc=$?
[ $rc = 0 ] && grep -q "does not exist" "$work/err" || ts_fail "clean of a missing cache: exit $rc"
echo ok
