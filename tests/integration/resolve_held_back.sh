#!/usr/bin/env bash
# "Held back" notes (issue 12, point 3): when the chosen torch is older than
# the best build this host runs, one note names that build, what holds it
# back (a requirement, a rule id, a pairing) and the rule's fix; --report
# carries the same under "torchsolve"; when the host itself holds it back
# (RX 7900 XT: the newest torch's ROCm 7.2 build is outside the kernel
# driver's window), the note names the rule.  And --no-deps (point 6): a
# rule that names another project never installs it.
. "$(dirname "$0")/lib.sh"
T=${TORCHSOLVE:?}
S=$TS_SOURCE_DIR/fixtures/sysroot
ts_venv_for_wheels
ts_index_from_spec < <(
  for v in 2.9.1+cpu:cpu 2.10.0+cpu:cpu 2.9.1+cu130:cu130 2.10.0+cu130:cu130; do
    echo "whl/${v#*:} torch ${v%:*} $tag"
  done
  echo "whl/cu130 torchvision 0.24.1+cu130 $tag torch==2.9.1"
  echo "whl/cu130 torchvision 0.25.0+cu130 $tag torch==2.10.0"
  echo "simple pymomentum-gpu 0.1.0 $tag"
)
export TORCHSOLVE_CACHE_DIR=$work/cache
run() { # ARGS... : dry run on the H100 facts; plan on $work/out, stderr on $work/err
  "$T" install --python "$work/venv" -i "$TS_NGINX_URL/simple" \
    --torch-index-url "$TS_NGINX_URL/whl" --sysroot "$S/h100-cu130" --dry-run "$@" \
    >"$work/out" 2>"$work/err"
}
note_is() { # LABEL TEXT: the one note line, exactly
  local got
  got=$(grep '^note: ' "$work/err" || true)
  [ "$(printf '%s\n' "$got" | grep -c .)" = 1 ] || { cat "$work/err"; ts_fail "$1: want one note line"; }
  [ "$got" = "note: $2" ] || ts_fail "$1: note is
  $got
want
  note: $2"
  echo "ok: $1"
}

# a rule: pymomentum-gpu 0.1 links torch's C++ ABI of 2.8/2.9
run torch pymomentum-gpu || { cat "$work/err"; ts_fail "pymomentum"; }
grep -q '^install torch 2.9.1+cu130 ' "$work/out" || { cat "$work/out"; ts_fail "pymomentum: torch"; }
note_is "rule" "torch 2.9.1+cu130 is held back: torch 2.10.0+cu130 runs on this host, but you asked for pymomentum-gpu; pymomentum-gpu 0.1.0 needs torch<2.10,>=2.8 (rule pymomentum-gpu-abi: pymomentum-gpu 0.1.x links torch's C++ API built against 2.8.0; with torch 2.10+ it fails with ImportError: undefined symbol _ZNK3c106SymInt6sym_neERKS0_); fix (rule pymomentum-gpu-abi): install torch >=2.8,<2.10 (2.8.0 or 2.9.x), or wait for a pymomentum-gpu built for your torch"

# the same in --report, under "torchsolve"
"$T" install --python "$work/venv" -i "$TS_NGINX_URL/simple" --torch-index-url "$TS_NGINX_URL/whl" \
  --sysroot "$S/h100-cu130" --dry-run --report "$work/report.json" torch pymomentum-gpu 2>"$work/err" >/dev/null ||
  { cat "$work/err"; ts_fail "report"; }
python3 - "$work/report.json" "$work/err" <<'PY' || ts_fail "report: torchsolve.notes differs from the note"
import json, sys
notes = json.load(open(sys.argv[1]))["torchsolve"]["notes"]
printed = [l[len("note: "):] for l in open(sys.argv[2]).read().splitlines() if l.startswith("note: ")]
assert notes == printed, (notes, printed)
PY
echo "ok: report carries the note"

# a requirement
run 'torch<2.10' || { cat "$work/err"; ts_fail "torch<2.10"; }
note_is "requirement" "torch 2.9.1+cu130 is held back: torch 2.10.0+cu130 runs on this host, but you asked for torch<2.10"

# a pairing
run torch 'torchvision==0.24.1' || { cat "$work/err"; ts_fail "pairing"; }
note_is "pairing" "torch 2.9.1+cu130 is held back: torch 2.10.0+cu130 runs on this host, but you asked for torchvision==0.24.1; torchvision 0.24.1+cu130 needs torch==2.9.1+cu130 (rule torchvision-pairing: each torchvision release is built against one torch release and must come from the same variant (cpu, cuNNN, rocmX.Y)); fix (rule torchvision-pairing): install the torchvision paired with your torch (e.g. torch 2.5.1 ↔ torchvision 0.20.1) from the same index"

# nothing held back: no note
run torch torchvision || { cat "$work/err"; ts_fail "torch torchvision"; }
grep -q '^install torch 2.10.0+cu130 ' "$work/out" || { cat "$work/out"; ts_fail "torch torchvision: torch"; }
! grep -q '^note: ' "$work/err" || { cat "$work/err"; ts_fail "a note where nothing is held back"; }
echo "ok: no note when nothing is held back"

# --no-deps: the ABI rule names torch, and torch is not installed
run --no-deps pymomentum-gpu || { cat "$work/err"; ts_fail "--no-deps pymomentum-gpu"; }
[ "$(grep -c '^install ' "$work/out")" = 1 ] && grep -q '^install pymomentum-gpu 0.1.0 ' "$work/out" ||
  { cat "$work/out"; ts_fail "--no-deps pymomentum-gpu installs more than pymomentum-gpu"; }
echo "ok: --no-deps adds nothing"
# ... and still holds between projects that are both asked for
run --no-deps pymomentum-gpu torch || { cat "$work/err"; ts_fail "--no-deps pymomentum-gpu torch"; }
grep -q '^install torch 2.9.1+cu130 ' "$work/out" || { cat "$work/out"; ts_fail "--no-deps: the rule no longer limits torch"; }
echo "ok: --no-deps keeps the rule between named projects"
# the host holds torch back: on the RX 7900 XT (ROCm 6.2's kernel driver)
# the newest torch's ROCm 7.2 build is outside the driver's window; the
# note names that build, the rule and its fix
{
  echo "whl/rocm6.4 torch 2.9.1+rocm6.4 $tag"
  echo "whl/rocm7.2 torch 2.13.0+rocm7.2 $tag"
  echo "whl/cpu torch 2.13.0+cpu $tag"
} | python3 "$TS_SOURCE_DIR/tests/integration/install_mkindex.py" "$work/www"
"$T" install --python "$work/venv" -i "$TS_NGINX_URL/simple" --torch-index-url "$TS_NGINX_URL/whl" \
  --sysroot "$S/rx7900xt-rocm62" --dry-run torch >"$work/out" 2>"$work/err" || { cat "$work/err"; ts_fail "rx7900xt: torch"; }
grep -q '^install torch 2.9.1+rocm6.4 ' "$work/out" || { cat "$work/out"; ts_fail "rx7900xt: torch"; }
note=$(grep '^note: ' "$work/err" || true)
case $note in
  "note: torch 2.9.1+rocm6.4 is the newest torch whose GPU build runs on this host: torch 2.13.0+rocm7.2 needs "*"(rule backend-rocm7.2-intree: "*"fix (rule backend-rocm7.2-intree): "*) ;;
  *) cat "$work/err"; ts_fail "rx7900xt: host-bound note" ;;
esac
echo "ok: the host holds torch back, and the note says which rule"
echo PASS
