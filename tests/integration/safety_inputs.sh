#!/usr/bin/env bash
# Bad input is named for what it is (issue 13, "Safety, round 2"):
# an invalid project name is a usage error; an interpreter that is not
# Python 3 is called that, not quoted mid-probe; Ctrl-C while the
# interpreter is being probed exits 8 ("interrupted"); --no-binary :all:
# (command line and requirements files) is honoured.
. "$(dirname "$0")/lib.sh"
T=${TORCHSOLVE:?}
ts_index_from_spec <<'SPEC'
simple numpy 2.1.0 py3-none-any
simple alpha 1.0 py3-none-any beta
simple beta 1.0 py3-none-any
SPEC
export TORCHSOLVE_CACHE_DIR=$work/cache
unset TORCHSOLVE_INDEX_URL TORCHSOLVE_PYTHON VIRTUAL_ENV
ts_make_venv "$work/venv"
I=(-i "$TS_NGINX_URL/simple" --python "$work/venv")

# --- invalid project names: exit 2 on the command line -------------------
# (packaging's tokenizer reads "Numpy_" as a name; PEP 508 does not, and
# torchsolve used to resolve it as "numpy-" and fail on the index)
for bad in Numpy_ 'my_pkg_>=1'; do
  ts_fails 2 "invalid project name '${bad%>=1}'" install "${I[@]}" --dry-run "$bad"
  ts_fails 2 "invalid project name '${bad%>=1}'" lock "${I[@]}" "$bad"
done
ts_fails 2 "expected package name" install "${I[@]}" --dry-run -- _numpy
ts_fails 2 "unknown option '-x'" install "${I[@]}" --dry-run -x
ts_fails 2 "expected package name" install "${I[@]}" --dry-run -- -x
# in a requirements file: the file's line, exit 1 as every malformed line
printf 'numpy\nNumpy_>=1\n' >"$work/req.txt"
ts_fails 1 "req.txt:2: invalid project name 'Numpy_'" install "${I[@]}" --dry-run -r "$work/req.txt"
"$T" install "${I[@]}" --dry-run Numpy >"$work/out" 2>"$work/err" ||
  { cat "$work/err"; ts_fail "a valid name was refused"; }
grep -q '^install numpy 2.1.0 ' "$work/out" || ts_fail "Numpy: $(cat "$work/out")"

# --- --no-binary :all: ---------------------------------------------------
# only wheels exist and torchsolve builds no sources: each package is named
# (it used to take ':all:' for a project called ":all:" and install wheels)
nobin() { # WHERE ARGS...: fails naming numpy and alpha
  local where=$1; shift
  ts_fails 1 "cannot be met" "$@"
  for p in numpy alpha; do
    grep -q "hint: $p [0-9.]* has only wheels, and --no-binary forbids them: no source build is possible" \
      "$work/err" || { cat "$work/err"; ts_fail "$where: $p not named"; }
  done
}
nobin "command line" install "${I[@]}" --dry-run --no-binary :all: numpy alpha
nobin "lock" lock "${I[@]}" -o "$work/pylock.toml" --no-binary :all: numpy alpha
[ ! -e "$work/pylock.toml" ] || ts_fail "a failed lock wrote $work/pylock.toml"
printf -- '--no-binary :all:\nnumpy\nalpha\n' >"$work/nobin.txt"
nobin "requirements file" install "${I[@]}" --dry-run -r "$work/nobin.txt"
nobin "requirements file, lock" lock "${I[@]}" -o - -r "$work/nobin.txt"
# a dependency is named too; --only-binary (or :none:) lets wheels back in
ts_fails 1 "beta 1.0 has only wheels" install "${I[@]}" --dry-run --no-binary beta alpha
"$T" install "${I[@]}" --dry-run --no-binary :all: --only-binary alpha,beta alpha \
  >"$work/out" 2>"$work/err" || { cat "$work/err"; ts_fail "--only-binary after :all:"; }
grep -q '^install alpha 1.0 ' "$work/out" || ts_fail "--only-binary: $(cat "$work/out")"
"$T" install "${I[@]}" --dry-run --no-binary :all: --no-binary :none: numpy >"$work/out" 2>"$work/err" ||
  { cat "$work/err"; ts_fail "--no-binary :none: did not clear :all:"; }
ts_fails 2 "'-x' is no project name" install "${I[@]}" --dry-run --no-binary a,-x numpy

# --- not a Python 3 interpreter ------------------------------------------
ts_fails 1 "'/bin/ls' is not a Python 3 interpreter" install --python /bin/ls --dry-run numpy
grep -q 'import json' "$work/err" && ts_fail "the probe script is quoted: $(cat "$work/err")"
ts_fails 1 "'/bin/true' is not a Python 3 interpreter" install --python /bin/true --dry-run numpy
# a Python 2: a real one when pyenv has it, else one that answers as 2.7
# does (it knows no -I and prints its version when asked)
py2=$(ls "$HOME"/.pyenv/versions/2.7*/bin/python2.7 2>/dev/null | head -1 || true)
if [ -z "$py2" ]; then
  py2=$work/bin/python2.7
  mkdir -p "$work/bin"
  cat >"$py2" <<'SH'
#!/bin/sh
case "$1" in
  -I) echo "Unknown option: -I" >&2; exit 2 ;;
  *) printf 2.7 ;;
esac
SH
  chmod +x "$py2"
fi
ts_fails 1 "is Python 2.7, not a Python 3 interpreter" venv --python "$py2" "$work/v2"
[ ! -e "$work/v2" ] || ts_fail "venv --python python2.7 left $work/v2 behind"
PATH=$(dirname "$py2"):$PATH ts_fails 1 "is Python 2.7, not a Python 3 interpreter" \
  venv --python python2.7 "$work/v2"
ts_fails 1 "is Python 2.7, not a Python 3 interpreter" install --python "$py2" --dry-run numpy

# --- Ctrl-C while the interpreter is being probed -------------------------
# a slow interpreter (as a cold pyenv shim is); the signal goes to the
# whole process group, as a terminal's Ctrl-C does
cat >"$work/slowpy" <<SH
#!/bin/sh
sleep 5
exec "$work/venv/bin/python" "\$@"
SH
chmod +x "$work/slowpy"
setsid "$T" install --python "$work/slowpy" -i "$TS_NGINX_URL/simple" --dry-run numpy \
  >"$work/out" 2>"$work/err" &
pid=$!
sleep 1
kill -INT -- -"$pid"
rc=0
wait "$pid" || rc=$?
cat "$work/err"
[ "$rc" = 8 ] || ts_fail "Ctrl-C during the probe: exit $rc, want 8"
grep -q '^error: interrupted while probing the interpreter' "$work/err" ||
  ts_fail "Ctrl-C during the probe: $(cat "$work/err")"
grep -q 'killed by signal' "$work/err" && ts_fail "the probe's signal leaked into the message"
echo "safety_inputs: ok"
