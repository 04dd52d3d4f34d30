#!/usr/bin/env bash
# sdists from an index, built by real backends with no network: Debian's
# setuptools and wheel wheels (/usr/share/python-wheels) fill the build
# environments, the target venvs use Debian's /usr/bin/python3.
# Covers: a wheel depending on an sdist-only project (hydra's
# antlr4-python3-runtime==4.9.*, a setup.py-only sdist), its METADATA
# prepared by the backend at resolution time and the sdist built and
# installed (no direct_url.json: it came from an index); PEP 658 METADATA
# of an sdist read instead of a backend; a version with a wheel taking the
# wheel; --prefer-binary (an older wheel before a newer sdist);
# --only-binary :all: / --no-build / --only-binary in a requirements file
# naming the sdist-only package (exit 1); --no-binary P building P from
# its sdist; --no-build-isolation-package (the target's interpreter and
# packages build it); --no-build on a project directory; --dry-run building nothing
# and saying what it would build; the progress lines on a pipe (one
# "Built" line per build) and -v streaming the backend's output; a warm
# reinstall that makes no build environment; a failing sdist build.
. "$(dirname "$0")/lib.sh"
T=${TORCHSOLVE:?}
ts_debian_build_wheels
ts_index_from_spec <<'SPEC'
simple omegaconf 2.3.0 py3-none-any antlr4-python3-runtime==4.9.*
simple antlr4-python3-runtime 4.9.3 sdist
simple antlr4-python3-runtime 4.8 sdist
simple mixed 1.0 py3-none-any
simple mixed 1.0 sdist
simple pb 1.0 py3-none-any
simple pb 2.0 sdist
simple meta658 1.0 sdist,pyproject,pep658
simple pep658-marker 1.0 py3-none-any
simple broken 1.0 sdist,fail
SPEC
export TORCHSOLVE_CACHE_DIR=$work/cache
ts_clear_pip_env
IX=(-i "$TS_NGINX_URL/simple" -f "$WHEELS")
fresh() { rm -rf "$work/venv"; "$T" venv -q --python /usr/bin/python3 "$work/venv"; }
inst() { "$T" install --python "$work/venv" "${IX[@]}" "$@"; }
site() { echo "$work"/venv/lib/python3*/site-packages; }

# --- a wheel depending on an sdist-only project ----------------------------
fresh
inst omegaconf 2>"$work/err" || { cat "$work/err"; ts_fail "installing omegaconf (sdist-only dependency) failed"; }
[ "$(grep -c '^Built metadata of antlr4-python3-runtime 4.9.3 in' "$work/err")" = 1 ] ||
  ts_fail "no one 'Built metadata' line: $(cat "$work/err")"
[ "$(grep -c '^Built antlr4-python3-runtime 4.9.3 in' "$work/err")" = 1 ] ||
  ts_fail "no one 'Built' line on a pipe: $(cat "$work/err")"
grep -q 'Building' "$work/err" && ts_fail "a pipe got the terminal's 'Building' line"
[ "$("$work/venv/bin/python" -c 'import antlr4_python3_runtime as a; print(a.__version__, a.BUILT)')" = "4.9.3 sdist" ] ||
  ts_fail "antlr4-python3-runtime 4.9.3 is not installed from its sdist"
[ -f "$(site)/antlr4_python3_runtime-4.9.3.dist-info/RECORD" ] || ts_fail "no dist-info"
[ -e "$(site)/antlr4_python3_runtime-4.9.3.dist-info/direct_url.json" ] &&
  ts_fail "an index sdist got a direct_url.json"
[ -e "$(site)/antlr4_python3_runtime-4.9.3.dist-info/REQUESTED" ] &&
  ts_fail "a dependency was marked REQUESTED"

# --- warm: no build environment, no backend, no download -----------------
rm -rf "$work/cache/builds-v1/work"
inst --force-reinstall omegaconf 2>"$work/err" || { cat "$work/err"; ts_fail "warm reinstall failed"; }
grep -q 'Built' "$work/err" && ts_fail "the warm reinstall ran a backend: $(cat "$work/err")"
[ -z "$(ls -A "$work/cache/builds-v1/work" 2>/dev/null)" ] || ts_fail "the warm reinstall made a build directory"
"$work/venv/bin/python" -c 'import antlr4_python3_runtime' || ts_fail "warm reinstall content"

# --- -v streams the backend's output ---------------------------------------
fresh
rm -rf "$work/cache"
inst -v omegaconf 2>"$work/err" || { cat "$work/err"; ts_fail "-v install failed"; }
grep -q '^Building antlr4-python3-runtime 4.9.3$' "$work/err" || ts_fail "-v: no 'Building' line"
grep -q 'running bdist_wheel' "$work/err" || ts_fail "-v does not stream the backend's output: $(cat "$work/err")"

# --- PEP 658 metadata of an sdist is read, no backend at resolution --------
inst meta658 2>"$work/err" || { cat "$work/err"; ts_fail "meta658 failed"; }
grep -q 'Built metadata of meta658' "$work/err" && ts_fail "PEP 658 metadata was not used"
[ -d "$(site)"/pep658_marker-1.0.dist-info ] || ts_fail "the PEP 658 METADATA's dependency is missing"
"$work/venv/bin/python" -c 'import meta658' || ts_fail "meta658 not installed"

# --- a version with a wheel uses the wheel; --prefer-binary -----------------
inst mixed pb 2>"$work/err" || { cat "$work/err"; ts_fail "mixed pb failed"; }
grep -q 'Built mixed' "$work/err" && ts_fail "mixed 1.0 has a wheel but was built"
[ "$("$work/venv/bin/python" -c 'import pb; print(pb.__version__)')" = 2.0 ] || ts_fail "pb: not the newer sdist"
inst --prefer-binary pb==2.0 --dry-run >/dev/null 2>&1 || ts_fail "--prefer-binary refused a pinned sdist"
fresh
inst --prefer-binary pb 2>"$work/err" || { cat "$work/err"; ts_fail "--prefer-binary failed"; }
[ "$("$work/venv/bin/python" -c 'import pb; print(pb.__version__)')" = 1.0 ] ||
  ts_fail "--prefer-binary did not prefer the older wheel"
printf -- '--prefer-binary\npb\n' >"$work/pb.txt"
inst --dry-run -U -r "$work/pb.txt" 2>/dev/null | grep -q "^keep pb 1.0" ||
  ts_fail "--prefer-binary in a requirements file is not honoured"
inst --dry-run -U pb 2>/dev/null | grep -q "^upgrade pb 2.0 .* (would build)$" ||
  ts_fail "-U without --prefer-binary does not take the newer sdist"
# --no-binary builds a project that has a wheel from its sdist
inst --no-binary mixed mixed 2>"$work/err" || { cat "$work/err"; ts_fail "--no-binary mixed failed"; }
grep -q '^Built mixed 1.0 in' "$work/err" || ts_fail "--no-binary mixed did not build: $(cat "$work/err")"
[ "$("$work/venv/bin/python" -c 'import mixed; print(mixed.BUILT)')" = sdist ] || ts_fail "--no-binary: the wheel was installed"

# --- --no-build-isolation-package builds that project in the target ------
fresh
set +e
inst --no-build-isolation-package antlr4-python3-runtime omegaconf >/dev/null 2>"$work/err"
rc=$?
set -e
[ $rc != 0 ] || ts_fail "--no-build-isolation-package: built without setuptools in the target"
grep -qi "setuptools" "$work/err" || ts_fail "--no-build-isolation-package: $(cat "$work/err")"
inst setuptools wheel 2>/dev/null || ts_fail "setuptools into the target"
inst --no-build-isolation-package antlr4-python3-runtime omegaconf 2>"$work/err" ||
  { cat "$work/err"; ts_fail "--no-build-isolation-package with setuptools in the target"; }
"$work/venv/bin/python" -c 'import antlr4_python3_runtime' || ts_fail "not installed"

# --- refusals: --only-binary :all:, --no-build, a requirements file -------
fresh
before=$(cd "$work/venv" && find . ! -name .torchsolve.lock | sort)
for how in "--only-binary :all:" "--no-build" "-r $work/req.txt"; do
  printf -- '--only-binary antlr4-python3-runtime\nomegaconf\n' >"$work/req.txt"
  set +e
  # shellcheck disable=SC2086
  inst $how omegaconf >"$work/out" 2>"$work/err"
  rc=$?
  set -e
  [ $rc = 1 ] || ts_fail "$how: exit $rc, not 1"
  grep -q 'antlr4-python3-runtime 4.9.3 would fit but has only a source distribution, and --only-binary' "$work/err" ||
    ts_fail "$how: the sdist-only package is not named: $(cat "$work/err")"
done
[ "$before" = "$(cd "$work/venv" && find . ! -name .torchsolve.lock | sort)" ] || ts_fail "a refused install changed the venv"
mkdir -p "$work/proj/p"
printf 'from setuptools import setup\nsetup(name="p", version="1.0", packages=["p"])\n' >"$work/proj/setup.py"
: >"$work/proj/p/__init__.py"
set +e
inst --no-build "$work/proj" 2>"$work/err"
rc=$?
set -e
[ $rc != 0 ] || ts_fail "--no-build built a project directory"
grep -q "must be built from source, which --only-binary (or --no-build) forbids" "$work/err" ||
  ts_fail "--no-build on a directory: $(cat "$work/err")"

# --- --dry-run says what it would build and builds no wheel ----------------
rm -rf "$work/cache"
fresh
inst --dry-run omegaconf "$work/proj" >"$work/out" 2>"$work/err" ||
  { cat "$work/err"; ts_fail "--dry-run failed"; }
grep -q '^install antlr4-python3-runtime 4.9.3 .* (would build)$' "$work/out" || ts_fail "dry run plan: $(cat "$work/out")"
grep -q '^install p 1.0 - file://.* (would build)$' "$work/out" || ts_fail "dry run plan (dir): $(cat "$work/out")"
grep -q '^install omegaconf 2.3.0 - [^ ]*$' "$work/out" || ts_fail "dry run plan (wheel): $(cat "$work/out")"
grep -q '^Would build antlr4-python3-runtime 4.9.3 from source' "$work/err" || ts_fail "no 'Would build' line"
grep -q '^Would build p 1.0 from source' "$work/err" || ts_fail "no 'Would build' line (dir)"
[ -z "$(find "$work/cache" -name '*.whl')" ] || ts_fail "--dry-run built a wheel: $(find "$work/cache" -name '*.whl')"
[ -z "$(ls -A "$(site)" | grep -v '^_\|^pip' || true)" ] || ts_fail "--dry-run installed something"

# --- a failing sdist build: exit 1, its output, nothing installed ---------
set +e
inst broken 2>"$work/err"
rc=$?
set -e
[ $rc = 1 ] || ts_fail "a failing sdist build exited $rc"
grep -q 'this sdist cannot be built' "$work/err" || ts_fail "the backend's error is not shown: $(cat "$work/err")"
grep -q 'full log: ' "$work/err" || ts_fail "no log path"
[ -d "$(site)/broken-1.0.dist-info" ] && ts_fail "a failed build installed something"

echo OK
