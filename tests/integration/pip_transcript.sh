#!/usr/bin/env bash
# 'torchsolve pip' as a drop-in for pip: one sequence of pip command lines
# runs with the real pip into venv A and with 'torchsolve pip' into venv B,
# against one nginx index; after each step the two must agree on pip
# freeze, list --format json (name, version), show's fields, each
# distribution's RECORD file set, and the exit status.  Steps: install
# pinned + unpinned, -U (both upgrade strategies), uninstall -y, errors
# (unknown project, unknown option), download -d then install --no-index
# -f, --target and --prefix trees, freeze -r keeping the file's order,
# PIP_INDEX_URL and pip.conf instead of --index-url, inspect.  Then what
# pip has no twin for: --torch-backend cu126 on a GPU-less host gives the
# +cu126 build, --system refuses an externally managed interpreter,
# --python-platform, refused pip options and pip's exit codes.
. "$(dirname "$0")/lib.sh"
T=${TORCHSOLVE:?}
python3 -m pip --version >/dev/null 2>&1 || ts_skip "python3 has no pip"
work=$(ts_tmpdir)
ts_make_venv "$work/A"
ts_make_venv "$work/B"
cp=$("$work/A/bin/python" -c 'import sys; print("cp%d%d" % sys.version_info[:2])')
ts_index_from_spec < <(
  cat <<'SPEC'
simple alpha 1.0 py3-none-any beta>=1.0
simple alpha 1.1 py3-none-any beta>=1.0
simple beta 1.0 py3-none-any
simple beta 2.0 py3-none-any
simple Gamma_Ray 0.5 py3-none-any
simple delta 3.0 py3-none-any gamma-ray;; beta; python_version < '3'
simple native 1.0 cp312-cp312-manylinux_2_28_aarch64
SPEC
  for v in 2.10.0+cpu:cpu 2.10.0+cu126:cu126 2.9.1+cu126:cu126; do
    echo "whl/${v#*:} torch ${v%:*} $cp-$cp-manylinux_2_28_x86_64"
  done
)
U=$TS_NGINX_URL/simple
export TORCHSOLVE_CACHE_DIR=$work/cache XDG_CONFIG_HOME=$work/xdg XDG_CONFIG_DIRS=$work/xdg-etc
unset TORCHSOLVE_INDEX_URL TORCHSOLVE_PYTHON VIRTUAL_ENV
# Both sides the same pip command line; these only quiet pip and keep it
# off the network and out of ~/.cache (torchsolve drops or maps them).
Q=(--disable-pip-version-check --no-input)
QI=(--no-cache-dir --root-user-action=ignore --no-compile)
QD=(--no-cache-dir)

# run_both OUT ARGS...: pip into A, torchsolve pip into B (pip's --python
# before the command, as pip wants it); exit statuses must match.
run_both() {
  local out=$1 ra=0 rb=0; shift
  local args=("$@") a=() b=() x
  for x in "${args[@]}"; do a+=("${x//@V@/$work/A}"); b+=("${x//@V@/$work/B}"); done
  python3 -m pip --python "$work/A/bin/python" "${Q[@]}" "${a[@]}" >"$out.A" 2>"$out.A.err" || ra=$?
  "$T" pip --python "$work/B/bin/python" "${Q[@]}" "${b[@]}" >"$out.B" 2>"$out.B.err" || rb=$?
  [ "$ra" = "$rb" ] || ts_fail "pip ${args[*]}: pip exit $ra, torchsolve pip exit $rb:
$(cat "$out.A.err")
---
$(cat "$out.B.err")"
}

same_output() { # WHAT OUT: stdout of both sides, venv paths replaced
  sed "s|$work/A|VENV|g" "$2.A" >"$2.A.n"
  sed "s|$work/B|VENV|g" "$2.B" >"$2.B.n"
  diff -u "$2.A.n" "$2.B.n" || ts_fail "'$1': outputs differ (A: pip, B: torchsolve pip)"
}

# The RECORD file sets of venv V, dist-info by dist-info.  torchsolve's own
# dist-info/torchsolve-wheel-sha256 (the installed wheel's hash, which sync
# compares with the lock) is ours alone and left out of the comparison.
records() {
  local r
  for r in "$1"/lib/python3*/site-packages/*.dist-info/RECORD; do
    [ -e "$r" ] || continue
    echo "${r#"$1"/lib/python3*/site-packages/}"
    cut -d, -f1 "$r" | grep -v -e '__pycache__' -e '/torchsolve-wheel-sha256$' | LC_ALL=C sort
  done
}

# After each step, each tool reports on its own venv and the reports must
# agree: freeze, list --format json (name, version), show, RECORD sets.
same_state() { # WHAT
  local s=$work/s
  run_both "$s" freeze --all
  same_output "$1, then freeze" "$s"
  run_both "$s" list --format json
  for x in A B; do
    python3 -c 'import json, sys; [print(d["name"], d["version"]) for d in json.load(sys.stdin)]' \
      <"$s.$x" >"$s.$x.l" || ts_fail "$1, then list --format json ($x): not JSON"
    mv "$s.$x.l" "$s.$x"
  done
  same_output "$1, then list --format json" "$s"
  local names
  names=$(cut -d' ' -f1 "$s.A")
  if [ -n "$names" ]; then
    # shellcheck disable=SC2086
    run_both "$s" show $names
    same_output "$1, then show" "$s"
  fi
  records "$work/A" >"$s.A"; records "$work/B" >"$s.B"
  same_output "$1: RECORD file sets" "$s"
}

o=$work/o
step() { # ARGS...: one pip command line on both sides, then the states
  run_both "$o" "$@"
  same_state "$*"
}

# --- install, upgrade, uninstall --------------------------------------------
step install "${QI[@]}" -i "$U" 'alpha==1.0' Gamma-Ray
step install "${QI[@]}" -i "$U" -U alpha
step install "${QI[@]}" -i "$U" 'beta==1.0'
step install "${QI[@]}" -i "$U" -U --upgrade-strategy only-if-needed alpha
step install "${QI[@]}" -i "$U" -U --upgrade-strategy eager alpha
step uninstall -y gamma-ray
step uninstall -y nosuch
step install "${QI[@]}" -i "$U" -I 'beta==2.0'

# --- errors: pip's exit statuses --------------------------------------------
run_both "$o" install "${QI[@]}" -i "$U" nosuchproject
grep -q . "$o.B.err" || ts_fail "unknown project: torchsolve said nothing"
run_both "$o" install "${QI[@]}" -i "$U" --no-such-option alpha
grep -q -- "--no-such-option" "$o.B.err" || ts_fail "unknown option not named: $(cat "$o.B.err")"
same_state "errors"

# --- download, then an offline install from the files -----------------------
run_both "$o" download "${QD[@]}" -i "$U" -d "@V@/dl" alpha
(cd "$work/A/dl" && ls) >"$o.A"; (cd "$work/B/dl" && ls) >"$o.B"
same_output "download -d" "$o"
[ -s "$o.B" ] || ts_fail "download -d placed nothing"
step uninstall -y alpha beta
step install "${QI[@]}" --no-index -f "@V@/dl" alpha

# --- --target and --prefix trees --------------------------------------------
# (torchsolve's lock file stays in a --prefix site-packages, as in a venv:
# two runs on one tree take turns)
tree() { (cd "$1" && find . -path '*/__pycache__' -prune -o ! -name .torchsolve.lock ! -name torchsolve-wheel-sha256 -print | LC_ALL=C sort); }
for args in "--target @V@/tgt delta" "--target @V@/tgt delta" "--target @V@/tgt -U delta" \
            "--prefix @V@/pfx delta"; do
  # shellcheck disable=SC2086
  run_both "$o" install "${QI[@]}" -i "$U" $args
  d=${args#* }; d=${d%% *}; d=${d#@V@/}
  [ -d "$work/A/$d" ] || ts_fail "pip install $args: $(cat "$o.A.err")"
  tree "$work/A/$d" >"$o.A"; tree "$work/B/$d" >"$o.B"
  same_output "install $args" "$o"
done
run_both "$o" install "${QI[@]}" -i "$U" --target "@V@/tgt" delta
grep -q "Target directory $work/B/tgt/delta already exists. Specify --upgrade" "$o.B.err" ||
  ts_fail "--target over an existing entry: no warning: $(cat "$o.B.err")"
same_state "--target/--prefix (the venvs untouched)"

# --- freeze -r keeps the file's order ---------------------------------------
printf '%s\n' '# pinned here' 'beta' '-i https://example.invalid/simple' 'alpha>=1' \
  'nosuch==1' 'beta' >"$work/req.txt"
run_both "$o" freeze -r "$work/req.txt"
same_output "freeze -r" "$o"
grep -q "contains nosuch==1, but package 'nosuch' is not installed" "$o.B.err" ||
  ts_fail "freeze -r: no warning about nosuch: $(cat "$o.B.err")"
run_both "$o" list --format=json
same_output "list --format=json" "$o"

# --- pip's configuration: PIP_INDEX_URL, pip.conf ---------------------------
PIP_INDEX_URL=$U step install "${QI[@]}" Gamma_Ray
PIP_INDEX_URL=$U run_both "$o" list --outdated --format json
same_output "PIP_INDEX_URL list --outdated" "$o"
mkdir -p "$work/xdg/pip"
printf '[global]\nindex-url = %s\n[install]\nno-cache-dir = true\nupgrade-strategy = eager\n' \
  "$U" >"$work/xdg/pip/pip.conf"
step install "${Q[@]}" --root-user-action=ignore --no-compile -U 'alpha==1.1'
printf '[global]\nindex-url = %s\n' "$U" >"$work/pip.conf"
PIP_CONFIG_FILE=$work/pip.conf PIP_EXTRA_INDEX_URL="$TS_NGINX_URL/nowhere" \
  step install "${QI[@]}" delta
rm -f "$work/xdg/pip/pip.conf"
PIP_INDEX_URL=$U PIP_NO_CACHE_DIR=1 step install --root-user-action=ignore --no-compile \
  'beta==1.0'
PIP_INDEX_URL=http://127.0.0.1:9/nothing "$T" install --python "$work/B" -q --dry-run \
  --retries 0 -i "$U" alpha >/dev/null || ts_fail "PIP_INDEX_URL must not reach plain install"
printf '[install]\nroot = /r\n' >"$work/xdg/pip/pip.conf"
rc=0; "$T" pip --python "$work/B" install -i "$U" alpha 2>"$o.err" || rc=$?
[ $rc = 2 ] && grep -q "pip.conf \[install\]: '--root'" "$o.err" ||
  ts_fail "a refused key in pip.conf: exit $rc: $(cat "$o.err")"
rm -f "$work/xdg/pip/pip.conf"
rc=0; PIP_REQUIRE_VIRTUALENV=1 "$T" pip install --system -i "$U" alpha 2>"$o.err" || rc=$?
[ $rc = 3 ] || ts_fail "PIP_REQUIRE_VIRTUALENV outside a venv: exit $rc, want 3 (pip's)"

# --- inspect: pip's JSON ----------------------------------------------------
run_both "$o" inspect
for s in A B; do
  python3 - "$o.$s" "$work/$s" >"$o.$s.n" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
assert d["version"] == "1", d["version"]
for i in sorted(d["installed"], key=lambda i: i["metadata"]["name"]):
    print(json.dumps(i["metadata"], sort_keys=True),
          i["metadata_location"].replace(sys.argv[2], "VENV"), i.get("requested"))
print(json.dumps(d["environment"], sort_keys=True))
PY
done
diff -u "$o.A.n" "$o.B.n" || ts_fail "inspect differs"

# --- refused pip options: exit 2, named -------------------------------------
# --user in a venv: pip's refusal (exit 1), as pip's own
rc=0; "$T" pip --python "$work/B" install --user -i "$U" alpha 2>"$o.err" || rc=$?
[ $rc = 1 ] && grep -q "User site-packages are not visible in this virtualenv" "$o.err" ||
  ts_fail "pip install --user in a venv: exit $rc: $(cat "$o.err")"
for opt in "--global-option x" "--root /r" "--src /s"; do
  rc=0
  # shellcheck disable=SC2086
  "$T" pip --python "$work/B" install -i "$U" $opt alpha 2>"$o.err" || rc=$?
  [ $rc = 2 ] && grep -q -- "'${opt%% *}'" "$o.err" ||
    ts_fail "pip install $opt: exit $rc: $(cat "$o.err")"
done
rc=0; "$T" pip wheel alpha 2>"$o.err" || rc=$?
[ $rc = 2 ] && grep -q "'wheel'" "$o.err" || ts_fail "pip wheel: exit $rc"

# --- uv's spellings ---------------------------------------------------------
S=$TS_SOURCE_DIR/fixtures/sysroot
G=(--python "$work/B" -i "$U" --torch-index-url "$TS_NGINX_URL/whl" --sysroot "$S/cpu-only" --dry-run)
"$T" install "${G[@]}" torch >"$o" 2>/dev/null || ts_fail "torch on the cpu-only host"
grep -q '^install torch 2.10.0+cpu ' "$o" || ts_fail "cpu-only host: $(cat "$o")"
"$T" install "${G[@]}" --torch-backend cu126 torch >"$o" 2>/dev/null || ts_fail "--torch-backend cu126"
grep -q '^install torch 2.10.0+cu126 ' "$o" || ts_fail "--torch-backend cu126: $(cat "$o")"
"$T" pip install "${G[@]}" --torch-backend=cu126 torch >"$o" 2>/dev/null || ts_fail "pip --torch-backend"
grep -q '^install torch 2.10.0+cu126 ' "$o" || ts_fail "pip install --torch-backend cu126: $(cat "$o")"
rc=0; "$T" install "${G[@]}" --torch-backend cu12x torch 2>/dev/null || rc=$?
[ $rc = 2 ] || ts_fail "--torch-backend cu12x: exit $rc, want 2"
"$T" download -q -i "$U" -d "$work/arm" --python-version 3.12 \
  --python-platform aarch64-manylinux_2_28 native || ts_fail "--python-platform"
[ -f "$work/arm/native-1.0-cp312-cp312-manylinux_2_28_aarch64.whl" ] || ts_fail "--python-platform: $(ls "$work/arm")"
rc=0; "$T" download -q -i "$U" -d "$work/arm" --python-version 3.12 \
  --python-platform x86_64-unknown-linux-gnu native 2>/dev/null || rc=$?
[ $rc = 1 ] || ts_fail "native has no x86_64 wheel: exit $rc"
"$T" install --python "$work/B" -q -i "$U" --force-reinstall --compile-bytecode 'alpha==1.1' ||
  ts_fail "--compile-bytecode"
ls "$work"/B/lib/python3*/site-packages/alpha/__pycache__/*.pyc >/dev/null 2>&1 ||
  ts_fail "--compile-bytecode wrote no bytecode"

# --system: the python3 on PATH, refused when its distribution manages it
ts_managed_python "$work/sys"
for cmd in "install" "pip install"; do
  rc=0
  # shellcheck disable=SC2086
  PATH=$work/sys/bin:$PATH "$T" $cmd --system -i "$U" alpha 2>"$o.err" || rc=$?
  [ $rc = 1 ] && grep -q "is externally managed" "$o.err" ||
    ts_fail "$cmd --system on a managed python: exit $rc: $(cat "$o.err")"
done
[ -z "$(ls -A "$TS_MANAGED_SITE")" ] || ts_fail "--system installed anyway"

# --proxy and --client-cert are used, not ignored
rc=0; "$T" install --python "$work/B" -q --dry-run --refresh --retries 0 \
  --proxy http://127.0.0.1:9 -i "$U" alpha 2>/dev/null || rc=$?
[ $rc != 0 ] || ts_fail "--proxy to a closed port still reached the index"
rc=0; "$T" install --python "$work/B" -q --client-cert "$work/none.pem" -i "$U" alpha 2>/dev/null || rc=$?
[ $rc = 2 ] || ts_fail "--client-cert without the file: exit $rc, want 2"
echo "ok"
