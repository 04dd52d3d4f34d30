#!/usr/bin/env bash
# Fleet locks with GPU profiles (issue 16): one pylock.toml for a CPU, a
# CUDA and a ROCm machine, over a PyTorch-shaped index (one folder per
# variant, local labels, tiny wheels made here) served by nginx; captured
# hosts replayed with --sysroot.  The lock is read back by an independent
# PEP 751 reader (tomllib and a marker evaluator written here), synced on
# H100, MI300X and CPU-only hosts, forced with --profile, refused (exit 5)
# where no profile runs, exported per profile, and installed into one
# fresh venv per profile as doc/examples/Dockerfile does (no Docker).
. "$(dirname "$0")/lib.sh"
T=${TORCHSOLVE:?}
S=$TS_SOURCE_DIR/fixtures/sysroot
ts_isolate_from_host
python3 -c 'import tomllib' 2>/dev/null || ts_skip "python3 has no tomllib (3.11+)"
ts_venv_for_wheels
export XDG_CONFIG_HOME=$work/config TORCHSOLVE_CACHE_DIR=$work/cache
ts_index_from_spec < <(
  for v in 2.9.1+cpu:cpu 2.9.1+cu126:cu126 2.9.1+cu130:cu130 2.9.1+rocm6.4:rocm6.4 \
           2.10.0+cpu:cpu 2.10.0+cu126:cu126; do
    echo "whl/${v#*:} torch ${v%:*} $tag filelock"
  done
  for b in cpu cu126 cu130 rocm6.4; do
    echo "whl/$b torchvision 0.24.1+$b $tag torch==2.9.1;; numpy"
  done
  echo "simple numpy 2.1.0 $tag"
  echo "simple filelock 3.16.1 py3-none-any"
)
IDX=(-i "$TS_NGINX_URL/simple" --torch-index-url "$TS_NGINX_URL/whl")

# --- lock: three profiles, cpu the default -------------------------------
"$T" lock --python "$work/venv" "${IDX[@]}" --profile cpu --profile cu126 --profile rocm6.4 \
  torch torchvision numpy -o "$work/pylock.toml" 2>"$work/lock.err" ||
  { cat "$work/lock.err"; ts_fail "lock --profile"; }
cat "$work/lock.err"
grep -q "Locked .* for 3 profiles (default cpu)" "$work/lock.err" || ts_fail "lock summary"

# --- an independent PEP 751 reader ---------------------------------------
# tomllib reads the lock; pep751_markers.py evaluates its markers.  For
# each choice of extras it lists the entries a standards-only installer
# would install.
cat >"$work/reader.py" <<'PY'
import itertools, os, sys, tomllib
sys.path.insert(0, os.environ["TS_SOURCE_DIR"] + "/tests/integration")
from pep751_markers import evaluate

lock = tomllib.load(open(sys.argv[1], "rb"))
env = {"sys_platform": sys.platform, "platform_machine": __import__("platform").machine(),
       "implementation_name": sys.implementation.name,
       "python_version": "%d.%d" % sys.version_info[:2], "dependency_groups": frozenset()}
assert any(evaluate(e, dict(env, extras=frozenset())) for e in lock["environments"]), "environments"
declared = lock["extras"]
ts = lock["tool"]["torchsolve"]
assert ts["default-profile"] == "cpu", ts
assert sorted(ts["profiles"]) == sorted(declared) == ["cpu", "cu126", "rocm6-4"], (declared, ts)
assert ts["profiles"]["cu126"]["host"]["__cuda"] == "12.6", ts["profiles"]["cu126"]
assert ts["profiles"]["rocm6-4"]["host"]["__rocm"] == "6.4", ts["profiles"]["rocm6-4"]
assert "backend-cu126-driver" in ts["profiles"]["cu126"]["rules"], ts["profiles"]["cu126"]
assert not any(k.startswith("__cuda") or k.startswith("__rocm") for k in ts["profiles"]["cpu"].get("host", {}))
# extras choice -> {name: [versions that apply]}
for n in range(len(declared) + 1):
    for choice in itertools.combinations(declared, n):
        e = dict(env, extras=frozenset(choice))
        got = {}
        for p in lock["packages"]:
            if "marker" not in p or evaluate(p["marker"], e):
                got.setdefault(p["name"], []).append(p["version"])
        print(",".join(choice) or "-", " ".join("%s=%s" % (k, "|".join(sorted(v))) for k, v in sorted(got.items())))
PY
python3 "$work/reader.py" "$work/pylock.toml" >"$work/choices" || ts_fail "the reader refused the lock"
cat "$work/choices"
expect_choice() { # CHOICE LINE
  grep -qx -- "$1 $2" "$work/choices" || ts_fail "extras '$1': wanted '$2', got '$(grep -- "^$1 " "$work/choices")'"
}
common="filelock=3.16.1 numpy=2.1.0"
expect_choice - "$common torch=2.9.1+cpu torchvision=0.24.1+cpu"
expect_choice cpu "$common torch=2.9.1+cpu torchvision=0.24.1+cpu"
expect_choice cu126 "$common torch=2.9.1+cu126 torchvision=0.24.1+cu126"
expect_choice rocm6-4 "$common torch=2.9.1+rocm6.4 torchvision=0.24.1+rocm6.4"
# the default's extra with others, and every extra (uv's --all-extras): the default
expect_choice cpu,cu126 "$common torch=2.9.1+cpu torchvision=0.24.1+cpu"
expect_choice cpu,cu126,rocm6-4 "$common torch=2.9.1+cpu torchvision=0.24.1+cpu"
# two non-default profiles at once: none of the routed entries, never two
expect_choice cu126,rocm6-4 "$common"
! grep -E 'torch=[^ ]*\|' "$work/choices" || ts_fail "two torch entries apply to one choice of extras"
# identical entries once, unmarked
[ "$(grep -c '^name = "numpy"' "$work/pylock.toml")" = 1 ] || ts_fail "numpy written more than once"

# --- byte-identical from permuted inputs ---------------------------------
"$T" lock --python "$work/venv" "${IDX[@]}" numpy torchvision torch --profile cpu \
  --profile rocm6.4 --profile cu126 -o "$work/permuted.toml" 2>/dev/null || ts_fail "permuted lock"
cmp "$work/pylock.toml" "$work/permuted.toml" || ts_fail "permuted profiles and requirements changed the lock"
# the first profile is the default: another one gives another lock
"$T" lock --python "$work/venv" "${IDX[@]}" torch torchvision numpy --profile cu126 \
  --profile cpu --profile rocm6.4 -o "$work/cu126-first.toml" 2>/dev/null || ts_fail "cu126-first lock"
! cmp -s "$work/pylock.toml" "$work/cu126-first.toml" || ts_fail "the default profile left no trace"
grep -q "^default-profile = \"cu126\"" "$work/cu126-first.toml" || ts_fail "default-profile cu126"

# --- bad profiles: named, exit 2 (a usage error) or 1 --------------------
rc=0; "$T" lock --python "$work/venv" "${IDX[@]}" torch --profile cu999 -o "$work/x.toml" 2>"$work/e" || rc=$?
[ $rc != 0 ] && grep -q "'cu999' is no backend of rules.yaml" "$work/e" || ts_fail "unknown profile: $rc $(cat "$work/e")"
rc=0; "$T" lock --python "$work/venv" "${IDX[@]}" torch --profile rocm6.4:cc=8.9 -o "$work/x.toml" 2>"$work/e" || rc=$?
[ $rc != 0 ] && grep -q "cc= is for CUDA profiles" "$work/e" || ts_fail "cc on rocm: $rc $(cat "$work/e")"
rc=0; "$T" lock --python "$work/venv" "${IDX[@]}" torch --profile cpu --profile cpu -o "$work/x.toml" 2>"$work/e" || rc=$?
[ $rc != 0 ] && grep -q "given twice" "$work/e" || ts_fail "profile twice: $rc $(cat "$work/e")"
rc=0; "$T" lock --python "$work/venv" "${IDX[@]}" torch --profile cpu --cuda 12.6 -o "$work/x.toml" 2>"$work/e" || rc=$?
[ $rc = 2 ] || ts_fail "--profile with --cuda: exit $rc $(cat "$work/e")"
[ ! -e "$work/x.toml" ] || ts_fail "a refused lock was written"
# facts narrow the builds: gfx906 (MI50) has no rocm6.4 kernels at all
rc=0; "$T" lock --python "$work/venv" "${IDX[@]}" 'torch==2.9.1+rocm6.4' --profile rocm6.4:gfx=gfx906 \
  -o "$work/x.toml" 2>"$work/e" || rc=$?
[ $rc = 1 ] && grep -q "rocm-gfx-2.9-rocm6.4" "$work/e" || ts_fail "rocm6.4:gfx=gfx906: $rc $(cat "$work/e")"
"$T" lock --python "$work/venv" "${IDX[@]}" torch --profile cpu --profile cu126:cc=9.0 \
  --profile rocm6.4:gfx=gfx942 -o "$work/facts.toml" 2>/dev/null || ts_fail "profiles with facts"
grep -q '^"__cc_9.0" = "present"' "$work/facts.toml" && grep -q '^__gfx942 = "present"' "$work/facts.toml" &&
  ! grep -q '^__gfx90a' "$work/facts.toml" || ts_fail "profile facts not recorded: $(cat "$work/facts.toml")"

# --- sync picks the profile the host runs --------------------------------
sync_on() { ts_sync_dry "$work/pylock.toml" "$@"; }
torch_of() { ts_planned torch; }
ts_expect_picks "$work/pylock.toml" h100-cu130 cu126 2.9.1+cu126
ts_expect_picks "$work/pylock.toml" mi300x-rocm64 rocm6-4 2.9.1+rocm6.4
grep -q "passed over cu126: .*backend-cu126-driver" "$work/err" || ts_fail "mi300x: why not cu126: $(cat "$work/err")"
ts_expect_picks "$work/pylock.toml" cpu-only cpu 2.9.1+cpu
cat "$work/err"
grep -q "passed over cu126" "$work/err" && grep -q "passed over rocm6-4: .*rocm-gfx-2.9-rocm6.4" "$work/err" ||
  ts_fail "cpu-only: the better profiles' reasons: $(cat "$work/err")"
[ "$(grep -c '' "$work/out")" = 4 ] || ts_fail "cpu-only: plan $(cat "$work/out")"

# --profile forces one; the host still judges it unless --ignore-host
sync_on h100-cu130 --profile cpu || { cat "$work/err"; ts_fail "h100 --profile cpu"; }
[ "$(torch_of)" = 2.9.1+cpu ] || ts_fail "h100 --profile cpu: $(torch_of)"
rc=0; sync_on h100-cu130 --profile rocm6.4 || rc=$?
[ $rc = 5 ] && grep -q "rocm-gfx-2.9-rocm6.4" "$work/err" || ts_fail "h100 --profile rocm6.4: $rc $(cat "$work/err")"
sync_on h100-cu130 --profile rocm6.4 --ignore-host || { cat "$work/err"; ts_fail "--profile rocm6.4 --ignore-host"; }
[ "$(torch_of)" = 2.9.1+rocm6.4 ] || ts_fail "--profile rocm6.4 --ignore-host: $(torch_of)"
rc=0; sync_on h100-cu130 --profile cu130 || rc=$?
[ $rc = 2 ] && grep -q "no such profile (it has cpu, cu126, rocm6-4)" "$work/err" || ts_fail "--profile cu130: $rc $(cat "$work/err")"

# no profile runs: exit 5 with each profile's reason
"$T" lock --python "$work/venv" "${IDX[@]}" --profile cu126 --profile rocm6.4 torch -o "$work/gpu.toml" \
  2>/dev/null || ts_fail "gpu-only lock"
rc=0; "$T" sync "$work/gpu.toml" --python "$work/venv" --dry-run --sysroot "$S/cpu-only" >"$work/out" 2>"$work/err" || rc=$?
cat "$work/err"
[ $rc = 5 ] || ts_fail "no runnable profile: exit $rc"
grep -q "cannot use cu126: .*backend-cu126-driver" "$work/err" && grep -q "cannot use rocm6-4: " "$work/err" &&
  grep -q "runs none of the lock's 2 profiles" "$work/err" || ts_fail "no runnable profile: reasons"
[ ! -s "$work/out" ] || ts_fail "no runnable profile: a plan was printed"

# --- export --profile: that profile's pinned, hashed requirements --------
"$T" export "$work/pylock.toml" --profile cu126 --no-header -o "$work/cu126.txt" 2>/dev/null || ts_fail "export cu126"
[ "$(grep -v -e '^ ' -e '^--' "$work/cu126.txt" | tr -d '\\ ' | tr '\n' ' ')" = \
  "filelock==3.16.1 numpy==2.1.0 torch==2.9.1+cu126 torchvision==0.24.1+cu126 " ] ||
  ts_fail "export cu126: $(cat "$work/cu126.txt")"
[ "$(grep -c -- '--hash=sha256:' "$work/cu126.txt")" = 4 ] || ts_fail "export cu126: hashes"
# the index lines its builds need: the plain releases' index first
[ "$(grep -- '-index-url' "$work/cu126.txt" | tr '\n' ' ')" = \
  "--index-url $TS_NGINX_URL/simple --extra-index-url $TS_NGINX_URL/whl/cu126 " ] ||
  ts_fail "export cu126: index lines $(head -3 "$work/cu126.txt")"
! grep -q extras "$work/cu126.txt" || ts_fail "export cu126: a marker on extras reached pip"
"$T" export "$work/pylock.toml" --no-header >"$work/default.txt" || ts_fail "export default"
grep -q '^torch==2.9.1+cpu ' "$work/default.txt" || ts_fail "export without --profile: not the default: $(cat "$work/default.txt")"

# --- the container recipe of doc/examples/Dockerfile, without Docker -----
# One fresh venv per image; each syncs its profile with --ignore-host from
# the one lock (the build machine here is a CPU-only host: --sysroot).
grep -q -- "--profile cu126 --ignore-host" "$TS_SOURCE_DIR/doc/examples/Dockerfile" ||
  ts_fail "doc/examples/Dockerfile does not run the recipe tested here"
for p in cpu cu126 rocm6.4; do
  "$T" venv "$work/img-$p" --python "$PY" >/dev/null 2>&1 || ts_make_venv "$work/img-$p"
  "$T" sync "$work/pylock.toml" --python "$work/img-$p" --profile "$p" --ignore-host \
    --sysroot "$S/cpu-only" 2>"$work/err" || { cat "$work/err"; ts_fail "image $p: sync"; }
  got=$("$work/img-$p/bin/python" -c 'import importlib.metadata as m
print(" ".join(sorted("%s==%s" % (d.metadata["Name"], d.version) for d in m.distributions())))')
  want="filelock==3.16.1 numpy==2.1.0 torch==2.9.1+$p torchvision==0.24.1+$p"
  [ "$got" = "$want" ] || ts_fail "image $p: installed '$got', wanted '$want'"
  echo "image $p: $got"
done
echo "lock_profiles: ok"
