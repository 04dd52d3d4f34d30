#!/usr/bin/env bash
# Hardlinked installs share inodes with the cache: an installed file edited
# in place edits the cache's unpacked tree.  `cache verify` re-hashes every
# unpacked tree against its RECORD and drops the damaged ones; install (and
# sync, wheel install) check a sample of a reused tree by size and mtime and
# unpack a damaged one again, and with --verify re-hash all of it.  Every
# venv installed afterwards holds the files its RECORD names.
. "$(dirname "$0")/lib.sh"
T=${TORCHSOLVE:?}
command -v python3 >/dev/null || ts_skip "no python3"
work=$(ts_tmpdir)
export TORCHSOLVE_CACHE_DIR=$work/cache
python3 "$TS_SOURCE_DIR/tests/integration/install_mkindex.py" "$work/www" <<'SPEC'
simple alpha 1.0 py3-none-any
SPEC
U=file://$work/www/simple
site() { echo "$1"/lib/python3*/site-packages; }
fresh() { rm -rf "$1"; "$T" venv -q "$1"; }
install() { local v=$1; shift; fresh "$v"; "$T" install -q --python "$v" -i "$U" "$@" alpha; }
# every file RECORD lists in the venv has RECORD's sha256 and size
intact() {
  python3 - "$(site "$1")" <<'PY' || ts_fail "$1: a file does not match its RECORD"
import base64, csv, glob, hashlib, os, sys
site = sys.argv[1]
for rec in glob.glob(os.path.join(site, "*.dist-info", "RECORD")):
    for path, h, size in csv.reader(open(rec)):
        if not h:
            continue
        data = open(os.path.join(site, path), "rb").read()
        d = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()
        assert h == "sha256=" + d and int(size) == len(data), path
PY
}
trees() { find "$TORCHSOLVE_CACHE_DIR/wheels-v1" -mindepth 1 -maxdepth 1 -regextype egrep -regex '.*/[0-9a-f]{64}'; }
# same size, other bytes: written in place, through the venv's hardlink
poke() { printf 'X' | dd of="$1" bs=1 count=1 conv=notrunc status=none; }

install "$work/v1" || ts_fail "install failed"
init=$(site "$work/v1")/alpha/__init__.py
[ "$(stat -c %h "$init")" -ge 2 ] || ts_skip "the install did not hardlink from the cache"
tree=$(trees)
[ -d "$tree" ] || ts_fail "no unpacked tree in the cache"

# --- cache verify: an intact cache --------------------------------------------
"$T" cache verify >"$work/out" 2>"$work/err" || { cat "$work/out" "$work/err"; ts_fail "cache verify failed on an intact cache"; }
grep -q '^ok .*alpha 1.0' "$work/out" || { cat "$work/out"; ts_fail "cache verify did not list alpha"; }

# --- an installed file edited in place: cache verify drops the tree -----------
poke "$init"
rc=0; "$T" cache verify >"$work/out" 2>"$work/err" || rc=$?
[ $rc = 1 ] || { cat "$work/out" "$work/err"; ts_fail "cache verify of a damaged tree: exit $rc, want 1"; }
grep -q '^dropped alpha 1.0 .*alpha/__init__.py: sha256 differs' "$work/out" ||
  { cat "$work/out"; ts_fail "cache verify did not name the damaged file"; }
[ ! -e "$tree" ] || ts_fail "cache verify kept the damaged tree"
"$T" cache verify >/dev/null 2>&1 || ts_fail "a second cache verify still finds damage"
install "$work/v2" || ts_fail "install after cache verify failed"
intact "$work/v2"
[ -d "$(trees)" ] || ts_fail "the install did not unpack the wheel again"

# --- install's own check: size and mtime of a sample, no cache verify --------
poke "$(site "$work/v2")/alpha/__init__.py"
install "$work/v3" 2>"$work/err" || { cat "$work/err"; ts_fail "install over a damaged cache failed"; }
grep -q "alpha-1.0-py3-none-any.whl was damaged (alpha/__init__.py: modified after unpacking)" "$work/err" ||
  { cat "$work/err"; ts_fail "install did not say the cached copy was damaged"; }
intact "$work/v3"

# --- an edit that keeps size and mtime: only --verify sees it ---------------
f=$(site "$work/v3")/alpha/__init__.py
when=$(stat -c %y "$f")
poke "$f"
touch -d "$when" "$f"
install "$work/v4" --verify 2>"$work/err" || { cat "$work/err"; ts_fail "install --verify failed"; }
grep -q "damaged (alpha/__init__.py: sha256 differs from RECORD)" "$work/err" ||
  { cat "$work/err"; ts_fail "install --verify did not re-hash the cached copy"; }
intact "$work/v4"
# and sync --verify the same
"$T" lock -q --python "$work/v4" -i "$U" alpha -o "$work/pylock.toml" || ts_fail "lock failed"
f=$(site "$work/v4")/alpha/__init__.py
when=$(stat -c %y "$f")
poke "$f"
touch -d "$when" "$f"
fresh "$work/v5"
"$T" sync -q --verify "$work/pylock.toml" --python "$work/v5" -i "$U" 2>"$work/err" ||
  { cat "$work/err"; ts_fail "sync --verify failed"; }
grep -q "damaged (alpha/__init__.py: sha256 differs" "$work/err" ||
  { cat "$work/err"; ts_fail "sync --verify did not re-hash the cached copy"; }
intact "$work/v5"

# --- --link-mode auto: a reflink where the filesystem makes them, else a hardlink
probe=$work/reflink-probe
echo x >"$probe.src"
if cp --reflink=always "$probe.src" "$probe.dst" 2>/dev/null; then want_links=1; else want_links=2; fi
install "$work/v6" --link-mode auto || ts_fail "install --link-mode auto failed"
links=$(stat -c %h "$(site "$work/v6")/alpha/__init__.py")
if [ "$want_links" = 1 ]; then [ "$links" = 1 ] || ts_fail "auto hardlinked on a filesystem with reflinks"
else [ "$links" -ge 2 ] || ts_fail "auto copied where it could hardlink ($links links)"; fi
intact "$work/v6"
fresh "$work/v7"
TORCHSOLVE_LINK_MODE=auto "$T" install -q --python "$work/v7" -i "$U" alpha || ts_fail "TORCHSOLVE_LINK_MODE=auto refused"
rc=0; "$T" install -q --python "$work/v7" -i "$U" --link-mode symlink alpha 2>"$work/err" || rc=$?
[ $rc = 2 ] && grep -q "hardlink, copy, clone or auto" "$work/err" || ts_fail "an unknown link mode: exit $rc"

# --- never outside torchsolve's own cache -------------------------------------
mkdir -p "$work/home/wheels-v1/$(printf '%064d' 0)" && echo keep >"$work/home/notes.txt"
rc=0; "$T" cache verify --cache-dir "$work/home" >/dev/null 2>"$work/err" || rc=$?
[ $rc = 2 ] || { cat "$work/err"; ts_fail "cache verify of a foreign directory: exit $rc, want 2"; }
[ -d "$work/home/wheels-v1/$(printf '%064d' 0)" ] && [ -f "$work/home/notes.txt" ] ||
  ts_fail "cache verify deleted in a directory that is not torchsolve's cache"
echo ok
