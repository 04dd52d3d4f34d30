#!/usr/bin/env bash
# torchsolve check: pip check's answer over the real environment and a
# broken copy of it (computed by pip itself at test time), plus rule
# findings (seed 002 pymomentum with torch 2.10, seed 004 hipBLASLt on
# gfx1100), --json, exit codes.
. "$(dirname "$0")/lib.sh"
FIX=$TS_SOURCE_DIR/fixtures/sysroot
REAL=$TS_SHARED_DIR/real-env/h100-cu130-py312/dist-info
[ -d "$REAL" ] || ts_skip "no $REAL"
python3 -c 'import pip._internal.operations.check' 2>/dev/null || ts_skip "python3 has no pip"
ts_isolate_from_host
tmp=$(ts_tmpdir)
export XDG_CONFIG_HOME=$tmp/config XDG_CACHE_HOME=$tmp/cache
# pip evaluates markers for the interpreter it runs in: use its version.
PYVER=$(python3 -c 'import sys; print("%d.%d" % sys.version_info[:2])')

cat >"$tmp/pipcheck.py" <<'PY'
import sys
from pip._internal.metadata import get_environment
from pip._internal.operations.check import check_package_set, PackageDetails
ps = {}
for d in get_environment([sys.argv[1]]).iter_installed_distributions(local_only=False, skip=()):
    try:
        ps[d.canonical_name] = PackageDetails(d.version, list(d.iter_dependencies()))
    except (OSError, ValueError):
        pass
missing, conflicting = check_package_set(ps)
for p in missing:
    for dep in missing[p]:
        print("%s %s requires %s, which is not installed." % (p, ps[p][0], dep[0]))
for p in conflicting:
    for n, v, r in conflicting[p]:
        print("%s %s has requirement %s, but you have %s %s." % (p, ps[p][0], r, n, v))
PY

compare() { # DIR LABEL: torchsolve's pip-check lines == pip's
  python3 "$tmp/pipcheck.py" "$1" | LC_ALL=C sort >"$tmp/pip.txt"
  "$TORCHSOLVE" check --path "$1" --python-version "$PYVER" --cpu --json >"$tmp/ts.json" || true
  python3 -c 'import json,sys; [print(p["message"]) for p in json.load(open(sys.argv[1]))["problems"]]' \
    "$tmp/ts.json" | LC_ALL=C sort >"$tmp/ts.txt"
  diff "$tmp/pip.txt" "$tmp/ts.txt" >&2 || ts_fail "$2: check differs from pip check"
  echo "$2: $(wc -l <"$tmp/pip.txt") pip check lines, identical"
}

# 1. The real environment (197 distributions): what pip says, nothing more.
[ "$(ls -d "$REAL"/*.dist-info | wc -l)" -ge 197 ] || ts_fail "real env incomplete"
compare "$REAL" "real env"
# On its own host (the replayed H100) the real environment breaks no rule.
rc=0; out=$("$TORCHSOLVE" check --path "$REAL" --python-version 3.12 --sysroot "$FIX/h100-cu130" 2>&1) || rc=$?
echo "$out" | tail -3
[ $rc = 0 ] || ts_fail "real env on its own host: exit $rc, expected 0 (clean)"
"$TORCHSOLVE" check --path "$REAL" --python-version 3.12 --cpu --json | python3 -c '
import json,sys; o=json.load(sys.stdin); assert o["checked"] == 197, o["checked"]' \
  || ts_fail "not every real distribution was read"

# 2. A broken copy: three projects gone, one downgraded, one made up.
sp=$tmp/broken/lib/python3.12/site-packages
mkdir -p "$sp"
for d in "$REAL"/*.dist-info; do
  case ${d##*/} in numpy-*|typing_extensions-*|packaging-*|filelock-*) continue ;; esac
  ln -s "$d" "$sp/"
done
mkdir "$sp/filelock-3.0.0.dist-info"
printf 'Metadata-Version: 2.1\nName: filelock\nVersion: 3.0.0\n' >"$sp/filelock-3.0.0.dist-info/METADATA"
mkdir "$sp/Made_Up-1.0.dist-info"
printf 'Metadata-Version: 2.1\nName: Made_Up\nVersion: 1.0\nRequires-Dist: numpy (>=1.0)\nRequires-Dist: never-there ; python_version < "3"\nRequires-Dist: also-missing[x] >=2 ; extra == "cli"\nRequires-Dist: fsspec<1\n' \
  >"$sp/Made_Up-1.0.dist-info/METADATA"
compare "$sp" "broken env"
grep -qx "huggingface-hub 1.33.0 has requirement filelock>=3.10.0, but you have filelock 3.0.0." "$tmp/ts.txt" \
  || ts_fail "conflict line not in pip's wording"
grep -qx "made-up 1.0 requires numpy, which is not installed." "$tmp/ts.txt" || ts_fail "missing line"
grep -q "never-there\|also-missing" "$tmp/ts.txt" && ts_fail "marker-excluded requirement reported"
st=0; "$TORCHSOLVE" check --path "$sp" --cpu >/dev/null 2>&1 || st=$?; [ $st = 1 ] || ts_fail "broken env: exit status not 1"

# 3. Rule findings with a clean pip check: seed 002 and seed 004.
mk() { # DIR NAME VERSION [REQUIRES...]
  local d=$1/$2-$3.dist-info n=$2 v=$3; shift 3
  mkdir -p "$d"
  { printf 'Metadata-Version: 2.1\nName: %s\nVersion: %s\n' "$n" "$v"
    for r in "$@"; do printf 'Requires-Dist: %s\n' "$r"; done; } >"$d/METADATA"
}
mk "$tmp/s2" pymomentum_gpu 0.1.0 torch
mk "$tmp/s2" torch 2.10.0
st=0; out=$("$TORCHSOLVE" check --path "$tmp/s2" --python-version 3.12 --cpu 2>&1) || st=$?
[ $st = 1 ] || ts_fail "seed 002: exit $st"
grep -q "pymomentum" <<<"$out" || ts_fail "seed 002: no rule finding: $out"
grep -q "fix:" <<<"$out" || ts_fail "seed 002: no fix"
{ "$TORCHSOLVE" check --path "$tmp/s2" --python-version 3.12 --cpu --json || true; } | python3 -c '
import json,sys; o=json.load(sys.stdin)
assert not o["ok"] and not o["problems"] and o["rules"] and o["rules"][0]["id"], o' \
  || ts_fail "seed 002: JSON"
mk "$tmp/s4" torch 2.5.1+rocm6.2
st=0; out=$("$TORCHSOLVE" check --path "$tmp/s4" --python-version 3.12 --sysroot "$FIX/rx7900xt-rocm62" 2>&1) || st=$?
[ $st = 1 ] || ts_fail "seed 004: exit $st"
grep -qi "hipblaslt\|gfx1100" <<<"$out" || ts_fail "seed 004: no hipBLASLt finding: $out"
# A CUDA build the driver cannot run, and torchvision built for another torch.
mk "$tmp/s5" torch 2.11.0+cu130
mk "$tmp/s5" torchvision 0.20.1+cu124 torch
st=0; "$TORCHSOLVE" check --path "$tmp/s5" --python-version 3.12 --sysroot "$FIX/rtx4090-drv550" --json \
  >"$tmp/s5.json" 2>/dev/null || st=$?
[ $st = 1 ] || ts_fail "driver 550: exit $st"
python3 - "$tmp/s5.json" <<'PY' || ts_fail "driver/pairing findings: $(cat "$tmp/s5.json")"
import json, sys
o = json.load(open(sys.argv[1]))
subjects = {r["subject"].split()[0] for r in o["rules"]}
assert {"torch", "torchvision"} <= subjects, subjects
assert any("550" in r["detail"] or "driver" in r["detail"] for r in o["rules"]), o["rules"]
PY
# Seed 003: a custom build judged by what torch/version.py says it was built with.
mk "$tmp/s3" torch 2.9.1a0+gitd38164a
mkdir -p "$tmp/s3/torch"
printf "__version__ = '2.9.1a0+gitd38164a'\ncuda: Optional[str] = None\nhip: Optional[str] = '7.1.52802'\n" \
  >"$tmp/s3/torch/version.py"
st=0; out=$("$TORCHSOLVE" check --path "$tmp/s3" --python-version 3.12 --sysroot "$FIX/rx7900xt-rocm62" 2>&1) || st=$?
[ $st = 1 ] || ts_fail "seed 003: exit $st: $out"
grep -q "torch 2.9.1a0+gitd38164a" <<<"$out" || ts_fail "seed 003: no finding: $out"
rm "$tmp/s3/torch/version.py"
"$TORCHSOLVE" check --path "$tmp/s3" --python-version 3.12 --sysroot "$FIX/rx7900xt-rocm62" >/dev/null 2>&1 \
  || ts_fail "seed 003 without version.py flagged"
mk "$tmp/ok" torch 2.4.1+rocm6.1
out=$("$TORCHSOLVE" check --path "$tmp/ok" --python-version 3.12 --sysroot "$FIX/rx7900xt-rocm62" 2>&1) \
  || ts_fail "torch 2.4.1+rocm6.1 on gfx1100 flagged: $out"
grep -q "No broken requirements found." <<<"$out" || ts_fail "clean: no summary"

# 3b. A Requires-Dist that cannot be parsed: pip check warns and exits 1
#     (its parsing_probs), never "No broken requirements found.".
mk "$tmp/bad" good 1.0
mk "$tmp/bad" broken 1.0 "[[[not a requirement"
st=0; out=$("$TORCHSOLVE" check --path "$tmp/bad" --python-version 3.12 --cpu 2>&1) || st=$?
[ $st = 1 ] || ts_fail "unparsable Requires-Dist: exit $st, expected 1: $out"
grep -q "broken-1.0\|broken 1.0\|broken:" <<<"$out" || ts_fail "unparsable Requires-Dist not named: $out"
grep -q "No broken requirements found." <<<"$out" && ts_fail "unparsable metadata reported clean: $out"
{ "$TORCHSOLVE" check --path "$tmp/bad" --python-version 3.12 --cpu --json 2>/dev/null || true; } | python3 -c '
import json,sys; o=json.load(sys.stdin); assert not o["ok"] and o["skipped"], o' || ts_fail "unparsable: JSON ok"

# 4. A venv through --python (markers from the probe).
ts_make_venv "$tmp/venv"
mk "$(echo "$tmp"/venv/lib/python3*/site-packages)" needs_x 1.0 "x-dep>=1"
st=0; out=$("$TORCHSOLVE" check --python "$tmp/venv" --cpu 2>/dev/null) || st=$?; [ $st = 1 ] || ts_fail "venv: not 1"
grep -qx "needs-x 1.0 requires x-dep, which is not installed." <<<"$out" || ts_fail "venv: $out"

# 5. Usage errors.
st=0; "$TORCHSOLVE" check --python a --path b >/dev/null 2>&1 || st=$?; [ $st = 2 ] || ts_fail "usage: not 2"
"$TORCHSOLVE" check --help | grep -q -- "--path DIR" || ts_fail "help"
echo "lock_check: ok"
