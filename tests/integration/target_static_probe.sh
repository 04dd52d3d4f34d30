#!/usr/bin/env bash
# A venv of an ordinary CPython is read from its files, no Python run
# (target/venvread.h), and that answer equals the real probe's field by
# field (markers, version, tags, paths, prefixes, executable, libc), for
# every CPython 3.8-3.13 on this machine: pyenv's, python3 on PATH and
# Debian's /usr/bin/python3, each in a symlink venv and a --copies venv.
# Anything the reader is not sure of runs the probe: a garbled or missing
# pyvenv.cfg, a shell script as bin/python (same error as before), a base
# installation without patchlevel.h or with one of another version.  A cold
# install of such a venv starts no Python and writes no probe cache.
. "$(dirname "$0")/lib.sh"
T=${TORCHSOLVE:?}
work=$(ts_tmpdir)
ts_isolate_from_host
ts_clear_pip_env

# python_of JSONFILE KEY: the "python" object's KEY
field() { python3 -c 'import json, sys; print(json.load(open(sys.argv[1]))["python"][sys.argv[2]])' "$1" "$2"; }

# same PYTHON WHAT: detect's answer equals the probe's (but for "source");
# echoes the source of the first.
same() {
  local py=$1 what=$2 rc=0
  "$T" detect --python "$py" --json >"$work/a.json" 2>"$work/err" || rc=$?
  [ $rc = 0 ] || ts_fail "$what: detect --python $py: exit $rc: $(cat "$work/err")"
  "$T" detect --python "$py" --probe --json >"$work/b.json" 2>"$work/err" ||
    ts_fail "$what: detect --probe $py: $(cat "$work/err")"
  python3 - "$work/a.json" "$work/b.json" "$what" <<'EOF' || exit 1
import json, sys
a = json.load(open(sys.argv[1]))["python"]
b = json.load(open(sys.argv[2]))["python"]
if b["source"] != "probe":
    sys.exit("FAIL: %s: --probe did not run the interpreter (%s)" % (sys.argv[3], b["source"]))
diff = [k for k in sorted(set(a) | set(b)) if k != "source" and a.get(k) != b.get(k)]
for k in diff:
    print("FAIL: %s: %s: read %r, probed %r" % (sys.argv[3], k, a.get(k), b.get(k)), file=sys.stderr)
sys.exit(1 if diff else 0)
EOF
  field "$work/a.json" source
}

# Real interpreters (not pyenv's shims), each once.
declare -A seen=()
pythons=()
add_python() {
  local exe real
  exe=$("$1" -I -c 'import sys; print(sys.executable)' 2>/dev/null) || return 0
  [ -n "$exe" ] || return 0
  real=$(readlink -f "$exe")
  [ -z "${seen[$real]:-}" ] || return 0
  seen[$real]=1
  pythons+=("$exe")
}
for v in 8 9 10 11 12 13; do
  for p in "$HOME"/.pyenv/versions/3.$v.*/bin/python3.$v; do
    [ -x "$p" ] && add_python "$p"
  done
  command -v python3.$v >/dev/null && add_python python3.$v
done
command -v python3 >/dev/null && add_python python3
[ -x /usr/bin/python3 ] && add_python /usr/bin/python3
[ ${#pythons[@]} -gt 0 ] || ts_skip "no CPython 3.8-3.13 here"

n=0 covered=()
for py in "${pythons[@]}"; do
  info=$("$py" -I -c 'import sys, sysconfig, os
ok = sys.implementation.name == "cpython" and (3, 8) <= sys.version_info[:2] <= (3, 13)
inc = os.path.join(sysconfig.get_paths()["include"], "patchlevel.h")
print(int(ok), int(os.path.isfile(inc)), "%d.%d.%d" % sys.version_info[:3])')
  read -r cpython headers version <<<"$info"
  [ "$cpython" = 1 ] || continue
  for copies in "" --copies; do
    n=$((n + 1))
    v=$work/v$n
    "$py" -m venv --without-pip $copies "$v" || ts_fail "$py -m venv $copies failed"
    src=$(same "$v/bin/python" "$py $copies venv") || exit 1
    # every 3.8-3.13 with its headers must be read without running it
    if [ "$headers" = 1 ] && [ "$src" != files ]; then
      ts_fail "$py $copies venv: not read from its files: $(field "$work/a.json" files_unusable)"
    fi
    covered+=("$py ($version${copies:+, $copies}: $src)")
  done
done
# torchsolve's own venv command writes pyvenv.cfg its own way
"$T" venv "$work/tv" --python "${pythons[0]}" >/dev/null 2>&1 || ts_fail "torchsolve venv"
src=$(same "$work/tv/bin/python" "torchsolve venv") || exit 1
covered+=("torchsolve venv: $src")
echo "compared: ${covered[*]}"

# --- fallbacks: the real probe runs, and answers as before ------------------
py=${pythons[0]}
ver=$("$py" -I -c 'import sys; print("%d.%d" % sys.version_info[:2])')
"$py" -m venv --without-pip "$work/g" || ts_fail "venv g"
[ "$(same "$work/g/bin/python" "plain venv")" = files ] || ts_skip "$py's venvs are not read from files"

cp "$work/g/pyvenv.cfg" "$work/cfg.good"
echo "this line is not key = value" >>"$work/g/pyvenv.cfg"
[ "$(same "$work/g/bin/python" "garbled pyvenv.cfg")" = probe ] || ts_fail "garbled pyvenv.cfg was read"
rm "$work/g/pyvenv.cfg"
[ "$(same "$work/g/bin/python" "no pyvenv.cfg")" = probe ] || ts_fail "a venv without pyvenv.cfg was read"
cp "$work/cfg.good" "$work/g/pyvenv.cfg"

# a shell script as bin/python: the same error as the probe's
"$py" -m venv --without-pip "$work/s" || ts_fail "venv s"
rm "$work/s/bin/python"
printf '#!/bin/sh\necho "3.12"\n' >"$work/s/bin/python"
chmod +x "$work/s/bin/python"
rc=0; "$T" detect --python "$work/s/bin/python" --json >/dev/null 2>"$work/e1" || rc=$?
rc2=0; "$T" detect --python "$work/s/bin/python" --probe --json >/dev/null 2>"$work/e2" || rc2=$?
[ $rc != 0 ] && [ $rc = $rc2 ] || ts_fail "fake python: exits $rc and $rc2"
cmp -s "$work/e1" "$work/e2" || ts_fail "fake python: errors differ: $(cat "$work/e1") / $(cat "$work/e2")"
grep -q "is not a Python 3 interpreter" "$work/e1" || ts_fail "fake python: $(cat "$work/e1")"

# a base installation of its own: the binary, the stdlib linked in, and
# no headers, then headers of another version, then the right ones
base=$work/base
real=$(readlink -f "$py")
std=$("$py" -I -c 'import sysconfig; print(sysconfig.get_paths()["stdlib"])')
inc=$("$py" -I -c 'import sysconfig; print(sysconfig.get_paths()["include"])')
mkdir -p "$base/bin" "$base/lib/python$ver"
cp "$real" "$base/bin/python$ver"
for e in "$std"/*; do
  case ${e##*/} in site-packages|dist-packages) continue ;; esac
  ln -s "$e" "$base/lib/python$ver/"
done
"$base/bin/python$ver" -m venv --without-pip "$work/f" 2>"$work/err" ||
  ts_skip "the copied interpreter does not run: $(cat "$work/err")"
[ "$(same "$work/f/bin/python" "base without patchlevel.h")" = probe ] ||
  ts_fail "a base without patchlevel.h was read"
mkdir -p "$base/include/python$ver"
sed 's/^#define PY_VERSION .*/#define PY_VERSION "'"$ver"'.99"/' "$inc/patchlevel.h" \
  >"$base/include/python$ver/patchlevel.h"
[ "$(same "$work/f/bin/python" "patchlevel.h of another version")" = probe ] ||
  ts_fail "a patchlevel.h of another version was believed"
cp "$inc/patchlevel.h" "$base/include/python$ver/patchlevel.h"
[ "$(same "$work/f/bin/python" "copied base")" = files ] ||
  ts_fail "the copied base with its headers was not read from files"

# --- a cold install: no Python started, no probe cache written -------------
ts_index_from_spec <<'SPEC'
simple solo 1.0 py3-none-any
SPEC
cache=$work/cold
export XDG_CACHE_HOME=$cache
if command -v strace >/dev/null; then
  # LeakSanitizer cannot run under ptrace: a sanitizer build checks leaks elsewhere
  ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0" strace -f -qq -e trace=execve -o "$work/trace" \
    "$T" install --dry-run --python "$work/g/bin/python" -i "$TS_NGINX_URL/simple" solo \
    >"$work/out" 2>&1 || ts_fail "cold install: $(cat "$work/out")"
  [ "$(grep -c 'execve(' "$work/trace")" = 1 ] ||
    ts_fail "a cold install started a program: $(grep execve "$work/trace")"
else
  "$T" install --dry-run --python "$work/g/bin/python" -i "$TS_NGINX_URL/simple" solo \
    >"$work/out" 2>&1 || ts_fail "cold install: $(cat "$work/out")"
fi
grep -q solo "$work/out" || ts_fail "cold install: $(cat "$work/out")"
[ -d "$cache" ] || ts_fail "the cold install used no cache under $cache"
[ -z "$(find "$cache" -name python)" ] || ts_fail "the cold install wrote a probe cache"
unset XDG_CACHE_HOME
echo "ok: ${#covered[@]} venvs compared"
