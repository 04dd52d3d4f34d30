#!/usr/bin/env bash
# lock --universal with GPU profiles (issue 16): one multi-use pylock.toml
# for every environment of the grid AND every GPU profile, over a
# PyTorch-shaped index (per-variant folders, local labels, CUDA builds for
# Linux x86_64/aarch64 and Windows, ROCm for Linux x86_64 only, macOS
# wheels without a label, PyPI's plain torch).  An independent PEP 751
# reader (tomllib + pep751_markers.py) checks that in every grid
# environment, for every choice of extras, exactly one torch and one
# torchvision entry apply and they are the right build (never two; none of
# the routed ones only when two non-default profiles are asked for at
# once), with a wheel for that environment; the lock records the grid and
# the profiles' facts, not this host's; permuted inputs and re-locking give
# the same bytes; sync picks the profile on H100, MI300X and CPU-only
# hosts, --profile forces one, an image-style sync installs it, and export
# --profile writes each profile's requirements with environment markers.
. "$(dirname "$0")/lib.sh"
T=${TORCHSOLVE:?}
S=$TS_SOURCE_DIR/fixtures/sysroot
ts_isolate_from_host
python3 -c 'import tomllib' 2>/dev/null || ts_skip "python3 has no tomllib (3.11+)"
ts_venv_for_wheels
export XDG_CONFIG_HOME=$work/config TORCHSOLVE_CACHE_DIR=$work/cache
minor=$("$PY" -c 'import sys; print("%d.%d" % sys.version_info[:2])')
L=manylinux_2_28_x86_64 A=manylinux_2_28_aarch64 M=macosx_11_0_arm64 W=win_amd64
ts_index_from_spec < <(
  for p in $L $A $W; do
    for b in cpu cu126; do
      echo "whl/$b torch 2.9.1+$b $cp-$cp-$p filelock"
      echo "whl/$b torchvision 0.24.1+$b $cp-$cp-$p torch==2.9.1;; numpy"
    done
  done
  echo "whl/rocm6.4 torch 2.9.1+rocm6.4 $cp-$cp-$L filelock"
  echo "whl/rocm6.4 torchvision 0.24.1+rocm6.4 $cp-$cp-$L torch==2.9.1;; numpy"
  echo "whl/cpu torch 2.9.1 $cp-none-$M filelock"
  echo "whl/cpu torchvision 0.24.1 $cp-$cp-$M torch==2.9.1;; numpy"
  for p in $L $A $M $W; do
    echo "simple torch 2.9.1 $cp-$cp-$p filelock"
    echo "simple torchvision 0.24.1 $cp-$cp-$p torch==2.9.1;; numpy"
    echo "simple numpy 2.1.0 $cp-$cp-$p"
  done
  echo "simple filelock 3.16.1 py3-none-any"
)
IDX=(-i "$TS_NGINX_URL/simple" --torch-index-url "$TS_NGINX_URL/whl")
# where PyTorch publishes wheels: no PyPy, no macOS x86_64, no Windows on Arm
ENV="implementation_name == 'cpython' and (sys_platform == 'linux' or platform_machine == 'AMD64' or sys_platform == 'darwin' and platform_machine == 'arm64')"
lock() { "$T" lock --universal --requires-python "==$minor.*" --environment "$ENV" "${IDX[@]}" "$@"; }

# --- one lock: 4 environments x 3 profiles, cpu the default ---------------
lock --profile cpu --profile cu126 --profile rocm6.4 torch torchvision numpy \
  -o "$work/u.toml" 2>"$work/err" || { cat "$work/err"; ts_fail "lock --universal --profile"; }
cat "$work/err"
grep -q "^Resolved 4 environments for each of 3 profiles" "$work/err" &&
  grep -q "^Locked .* for 3 profiles (default cpu)" "$work/err" || ts_fail "lock summary"

# export --profile: pip has no extras to evaluate, so each profile's
# requirements keep only the environment part of the markers
for p in cpu cu126 rocm6.4; do
  "$T" export "$work/u.toml" --profile $p --no-header -o "$work/req-$p.txt" 2>"$work/err" ||
    { cat "$work/err"; ts_fail "export --profile $p"; }
done

# --- the independent reader ------------------------------------------------
python3 - "$work/u.toml" "$cp" "$work" <<'PY' || ts_fail "the universal fleet lock, read as PEP 751 says"
import itertools, os, sys, tomllib
sys.path.insert(0, os.environ["TS_SOURCE_DIR"] + "/tests/integration")
from pep751_markers import evaluate
from pip._vendor.packaging.requirements import Requirement
lock = tomllib.load(open(sys.argv[1], "rb"))
cp, work = sys.argv[2], sys.argv[3]
GRID = {  # (sys_platform, platform_machine): the wheel platform tag
    ("linux", "x86_64"): "manylinux_2_28_x86_64", ("linux", "aarch64"): "manylinux_2_28_aarch64",
    ("darwin", "arm64"): "macosx_11_0_arm64", ("win32", "AMD64"): "win_amd64"}
OFF = [("darwin", "x86_64", "cpython"), ("win32", "ARM64", "cpython"), ("linux", "x86_64", "pypy")]
def env(plat, machine, impl="cpython", extras=()):
    return {"sys_platform": plat, "platform_machine": machine, "implementation_name": impl,
            "extras": frozenset(extras), "dependency_groups": frozenset()}
# the grid is the lock's: its environments admit the 4 points, not the others
for (plat, machine) in GRID:
    assert all(evaluate(e, env(plat, machine)) for e in lock["environments"]), (plat, machine)
for (plat, machine, impl) in OFF:
    assert not all(evaluate(e, env(plat, machine, impl)) for e in lock["environments"]), (plat, machine, impl)
ts = lock["tool"]["torchsolve"]
assert "host" not in ts, "a universal lock recorded this host's facts: %r" % ts["host"]
assert ts["universal"] == {"systems": ["linux", "darwin", "win32"], "machines": ["x86_64", "arm64"],
                           "implementations": ["cpython"], "pythons": [lock["requires-python"][2:-2]]}, ts["universal"]
assert ts["default-profile"] == "cpu" and lock["extras"] == ["cpu", "cu126", "rocm6-4"], (ts, lock["extras"])
assert ts["profiles"]["cu126"]["host"] == {"__cuda": "12.6", "__cuda_driver": "560.28.03"}, ts["profiles"]["cu126"]
assert ts["profiles"]["rocm6-4"]["host"]["__rocm"] == "6.4", ts["profiles"]["rocm6-4"]
assert "host" not in ts["profiles"]["cpu"], ts["profiles"]["cpu"]
assert "backend-cu126-driver" in ts["profiles"]["cu126"]["rules"], ts["profiles"]["cu126"]
# the build each (environment, profile) gets: CUDA where PyTorch builds it
# (Linux x86_64/aarch64, Windows), ROCm on Linux x86_64 only, else the CPU
# build; macOS wheels carry no label
def label(plat, machine, profile):
    if plat == "darwin": return ""
    if profile == "cu126" or (profile == "rocm6-4" and machine == "x86_64" and plat == "linux"):
        return "+" + profile.replace("-", ".")
    return "+cpu"
declared = lock["extras"]
checked = 0
for (plat, machine), tag in GRID.items():
    for n in range(len(declared) + 1):
        for choice in itertools.combinations(declared, n):
            got = {}
            for p in lock["packages"]:
                if "marker" not in p or evaluate(p["marker"], env(plat, machine, extras=choice)):
                    got.setdefault(p["name"], []).append(p)
            # the default's extra, alone or with others (uv's --all-extras),
            # selects the default profile
            gpu = [] if "cpu" in choice else list(choice)
            where = (plat, machine, choice)
            for name in ("numpy", "filelock"):
                assert len(got.get(name, [])) == 1, (where, name, got.get(name))
            for name, version in (("torch", "2.9.1"), ("torchvision", "0.24.1")):
                entries = got.get(name, [])
                if len(gpu) > 1 and plat != "darwin":
                    # two non-default profiles at once: none of the routed entries, never two
                    assert entries == [], (where, name, [e["version"] for e in entries])
                    continue
                assert len(entries) == 1, (where, name, [e["version"] for e in entries])
                want = version + label(plat, machine, gpu[0] if gpu else "cpu")
                assert entries[0]["version"] == want, (where, name, entries[0]["version"], want)
                wheels = [w["name"] for w in entries[0]["wheels"]]
                assert any(w.endswith("-%s.whl" % tag) and ("-%s-" % cp) in w for w in wheels), (where, name, wheels)
            checked += 1
assert checked == 4 * 8, checked
# each profile's requirements file, read by pip's own parser: one torch and
# one torchvision line apply in every environment, that profile's build
for profile in ("cpu", "cu126", "rocm6-4"):
    text = open("%s/req-%s.txt" % (work, profile.replace("-", "."))).read().replace("\\\n", " ")
    lines = [line for line in text.splitlines() if line.strip()]
    assert lines[0].startswith("--index-url "), (profile, lines[0])
    reqs = [Requirement(line.split(" --hash")[0]) for line in lines if not line.startswith("--")]
    for (plat, machine) in GRID:
        e = {"sys_platform": plat, "platform_machine": machine, "implementation_name": "cpython"}
        got = sorted(str(r.specifier) for r in reqs
                     if r.name in ("torch", "torchvision") and (not r.marker or r.marker.evaluate(e)))
        want = sorted("==%s%s" % (v, label(plat, machine, profile)) for v in ("0.24.1", "2.9.1"))
        assert got == want, (profile, plat, machine, got, want)
# markers written no longer than they need: the macOS build one entry for
# every profile, no clause for the points --environment leaves out
marker = {(p["name"], p["version"]): p.get("marker") for p in lock["packages"]}
assert marker[("torch", "2.9.1")] == "sys_platform == 'darwin'", marker
assert marker[("torch", "2.9.1+cu126")] == \
    "sys_platform != 'darwin' and 'cu126' in extras and 'cpu' not in extras and " \
    "'rocm6-4' not in extras", marker
print("%d (environment, extras) choices: one torch and one torchvision each, the right build" % checked)
PY

# --- the same bytes from permuted inputs and from re-locking ---------------
lock --profile cpu --profile rocm6.4 --profile cu126 numpy torchvision torch \
  -o "$work/permuted.toml" 2>/dev/null || ts_fail "permuted lock"
cmp "$work/u.toml" "$work/permuted.toml" || ts_fail "permuted profiles and requirements changed the lock"
cp "$work/u.toml" "$work/relock.toml"
lock --profile cpu --profile cu126 --profile rocm6.4 torch torchvision numpy \
  -o "$work/relock.toml" 2>/dev/null || ts_fail "re-lock"
cmp "$work/u.toml" "$work/relock.toml" || ts_fail "re-locking over the lock changed it"
lock --check --profile cpu --profile cu126 --profile rocm6.4 torch torchvision numpy \
  -o "$work/u.toml" 2>/dev/null || ts_fail "lock --check of a fresh universal fleet lock"
# the first profile is the default: another one gives another lock
lock --profile cu126 --profile cpu --profile rocm6.4 torch torchvision numpy \
  -o "$work/cu126-first.toml" 2>/dev/null || ts_fail "cu126-first lock"
grep -q '^default-profile = "cu126"' "$work/cu126-first.toml" || ts_fail "default-profile cu126"

# --- a point with no build at all keeps its builds to itself ---------------
# macOS x86_64 has no torch wheel here: its answer (some build, listed with
# a warning) must not be pressed on Linux, whose cu126 profile keeps +cu126
"$T" lock --universal --requires-python "==$minor.*" "${IDX[@]}" \
  --environment "implementation_name == 'cpython' and platform_machine == 'x86_64' and sys_platform != 'win32'" \
  --profile cpu --profile cu126 torch -o "$work/nobuild.toml" 2>"$work/err" ||
  { cat "$work/err"; ts_fail "lock with a point that has no torch wheel"; }
python3 - "$work/nobuild.toml" <<'PY' || ts_fail "a point without a build changed another point's variant"
import os, sys, tomllib
sys.path.insert(0, os.environ["TS_SOURCE_DIR"] + "/tests/integration")
from pep751_markers import evaluate
lock = tomllib.load(open(sys.argv[1], "rb"))
for extras, want in (((), "2.9.1+cpu"), (("cu126",), "2.9.1+cu126")):
    e = {"sys_platform": "linux", "platform_machine": "x86_64", "implementation_name": "cpython",
         "extras": frozenset(extras), "dependency_groups": frozenset()}
    got = [p["version"] for p in lock["packages"]
           if p["name"] == "torch" and ("marker" not in p or evaluate(p["marker"], e))]
    assert got == [want], (extras, got)
PY

# --- sync picks the profile this host runs ---------------------------------
ts_expect_picks "$work/u.toml" h100-cu130 cu126 2.9.1+cu126
ts_expect_picks "$work/u.toml" mi300x-rocm64 rocm6-4 2.9.1+rocm6.4
ts_expect_picks "$work/u.toml" cpu-only cpu 2.9.1+cpu
[ "$(grep -c '' "$work/out")" = 4 ] || ts_fail "cpu-only: plan $(cat "$work/out")"
ts_sync_dry "$work/u.toml" h100-cu130 --profile cpu || { cat "$work/err"; ts_fail "h100 --profile cpu"; }
[ "$(ts_planned torch)" = 2.9.1+cpu ] || ts_fail "h100 --profile cpu: $(ts_planned torch)"
rc=0; ts_sync_dry "$work/u.toml" cpu-only --profile cu126 || rc=$?
[ $rc = 5 ] || ts_fail "cpu-only --profile cu126 without --ignore-host: exit $rc"

# an image build: a fresh venv synced with --profile NAME --ignore-host
"$T" venv "$work/img" --python "$PY" >/dev/null 2>&1 || ts_make_venv "$work/img"
"$T" sync "$work/u.toml" --python "$work/img" --profile rocm6.4 --ignore-host \
  --sysroot "$S/cpu-only" 2>"$work/err" || { cat "$work/err"; ts_fail "image rocm6.4: sync"; }
got=$("$work/img/bin/python" -c 'import importlib.metadata as m
print(" ".join(sorted("%s==%s" % (d.metadata["Name"], d.version) for d in m.distributions())))')
want="filelock==3.16.1 numpy==2.1.0 torch==2.9.1+rocm6.4 torchvision==0.24.1+rocm6.4"
[ "$got" = "$want" ] || ts_fail "image rocm6.4: installed '$got', wanted '$want'"

# --- still refused: a platform of its own, GPU overrides with --profile ----
ts_fails 2 "drop --python-version" lock --universal --profile cpu --python-version 3.12 torch
ts_fails 2 "drop --cuda" lock --universal --profile cu126 --cuda 12.6 torch
echo "lock --universal --profile: ok"
