#!/usr/bin/env bash
# A cache this run cannot use — another user's (as root: pip's rule), a
# read-only filesystem or directory, a full filesystem — is left out with
# one warning ("cache disabled", as pip's) and the install goes on as
# --no-cache, even for a wheel the cache already holds.  The read-only and
# full cases mount a small tmpfs (skipped where mounting is not allowed).
. "$(dirname "$0")/lib.sh"
T=${TORCHSOLVE:?}
work=$(ts_tmpdir)
command -v python3 >/dev/null || ts_skip "no python3"
ts_index_from_spec <<'SPEC'
simple solo 1.0 py3-none-any
SPEC
ts_isolate_from_host
U=$TS_NGINX_URL/simple
n=0

# install_with CACHE WHAT: into a fresh venv, exit 0, one warning naming
# the cache, solo installed.
install_with() {
  local cache=$1 what=$2 rc=0
  n=$((n + 1))
  ts_make_venv "$work/v$n"
  TORCHSOLVE_CACHE_DIR=$cache "$T" install --python "$work/v$n" -i "$U" solo \
    >"$work/out" 2>"$work/err" || rc=$?
  [ $rc = 0 ] || ts_fail "$what: exit $rc: $(cat "$work/err")"
  [ "$(grep -c 'cache disabled' "$work/err")" = 1 ] ||
    ts_fail "$what: want one 'cache disabled' warning: $(cat "$work/err")"
  grep -q "warning: cache disabled: .*'$cache'" "$work/err" ||
    ts_fail "$what: the warning does not name the cache: $(cat "$work/err")"
  [ -d "$work/v$n/lib/"python3*/site-packages/solo-1.0.dist-info ] || ts_fail "$what: not installed"
}

fill() { # CACHE: a cache holding solo's wheel, as a first install leaves it
  ts_make_venv "$work/fill"
  TORCHSOLVE_CACHE_DIR=$1 "$T" install -q --python "$work/fill" -i "$U" solo ||
    ts_fail "filling the cache $1"
  rm -rf "$work/fill"
}

cases=0
if [ "$(id -u)" = 0 ]; then
  fill "$work/theirs"
  chown -R nobody "$work/theirs"
  install_with "$work/theirs" "another user's cache"
  [ -z "$(find "$work/theirs" -user root)" ] || ts_fail "root wrote into another user's cache"
  cases=$((cases + 1))
else
  fill "$work/ro"
  chmod -R a-w "$work/ro"
  ts_on_exit "chmod -R u+w '$work/ro'"
  install_with "$work/ro" "a read-only directory"
  cases=$((cases + 1))
fi

mnt=$work/mnt
mkdir -p "$mnt"
if mount -t tmpfs -o size=2m tmpfs "$mnt" 2>/dev/null; then
  ts_on_exit "umount -l '$mnt'"
  fill "$mnt/cache"
  mount -o remount,ro "$mnt" || ts_fail "remount read-only"
  install_with "$mnt/cache" "a read-only filesystem"
  mount -o remount,rw "$mnt"
  dd if=/dev/zero of="$mnt/filler" bs=64k 2>/dev/null || true # until ENOSPC
  install_with "$mnt/cache" "a full filesystem"
  cases=$((cases + 2))
fi

# A usable cache says nothing.
TORCHSOLVE_CACHE_DIR=$work/good "$T" install -q --python "$work/v1" -i "$U" --force-reinstall solo 2>"$work/err" ||
  ts_fail "usable cache: $(cat "$work/err")"
! grep -q 'cache disabled' "$work/err" || ts_fail "a usable cache was disabled"
echo "ok: unusable caches left out ($cases cases)"
