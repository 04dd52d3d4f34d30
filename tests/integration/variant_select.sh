#!/usr/bin/env bash
# PEP 825 wheel variants (issue 24): torch from <torch-index-url>/variant/
# (variantlib v0.0.3 metadata) and a non-torch project from the general
# index (PEP 825 v0.1.1) get the label the host's properties and the rules
# choose, with the why; hosts faked with flags on a CPU-only sysroot and
# with the providers' own variables.
. "$(dirname "$0")/lib.sh"
T=${TORCHSOLVE:?}
ts_variant_index_start
run() { # PROJECT ARGS...: install --dry-run; plan on $work/out, stderr on $work/err
  local project=$1
  shift
  "$T" install --python "$work/venv" -i "$TS_NGINX_URL/simple" \
    --torch-index-url "$TS_NGINX_URL/whl" --dry-run "$@" "$project" >"$work/out" 2>"$work/err"
}
expect() { # WHAT PROJECT LABEL ARGS...: the variant column of PROJECT's line
  local what=$1 project=$2 want=$3
  shift 3
  run "$project" "$@" || { cat "$work/err" "$work/out"; ts_fail "$what: install --dry-run failed"; }
  local got
  got=$(awk -v p="$project" '$2 == p { print $4 }' "$work/out")
  [ "$got" = "$want" ] || { cat "$work/err" "$work/out"; ts_fail "$what: $project $got, wanted $want"; }
}

expect "RTX 4090, driver 570" torch "[cuda12.8]" --cuda-driver 570.86.10 --compute-capability 8.9
for want in 'variant torch 2.10.0 \[cuda12.8\]: ' 'nvidia::sm_arch 86_real' \
            'cuda_version_lower_bound 12.0 ≤ driver 12.8' \
            'cuda13.0 rejected: nvidia::cuda_version_lower_bound 13.0 > driver 12.8'; do
  grep -q "$want" "$work/err" || { cat "$work/err"; ts_fail "4090: the why lacks '$want'"; }
done
expect "GTX 1080 Ti" torch "[cuda12.6]" --cuda-driver 570.86.10 --compute-capability 6.1
expect "H100, driver 550" torch "[cuda12.8]" --cuda-driver 550.144.03 --compute-capability 9.0
expect "H100, driver 580" torch "[cuda13.0]" --cuda-driver 580.65.06 --compute-capability 9.0
expect "gfx1100, ROCm 7.1" torch "[rocm7.1]" --rocm 7.1 --gfx gfx1100
expect "no GPU" torch "[null]"
# --sysroot: a recorded RTX 4090 on driver 550 (CUDA 12.4: 12.x minor-version
# compatibility keeps cuda12.8); --cpu on it switches the GPU off
RTX=$TS_SOURCE_DIR/fixtures/sysroot/rtx4090-drv550
expect "--sysroot rtx4090-drv550" torch "[cuda12.8]" --sysroot "$RTX"
expect "--sysroot rtx4090-drv550 --cpu" torch "[null]" --sysroot "$RTX" --cpu
# the providers' own variables win over detection, as in their plugins
NV_VARIANT_PROVIDER_FORCE_CUDA_DRIVER_VERSION=13.0 NV_VARIANT_PROVIDER_FORCE_SM_ARCH=9.0 \
  expect "NV_VARIANT_PROVIDER_FORCE_*" nvlib "[cu13]"
NV_VARIANT_PROVIDER_FORCE_SM_ARCH=eight run nvlib && ts_fail "a malformed NV_VARIANT_PROVIDER_FORCE_SM_ARCH was taken"
grep -q 'NV_VARIANT_PROVIDER_FORCE_SM_ARCH' "$work/err" || { cat "$work/err"; ts_fail "the malformed variable is not named"; }

# AMD's variables, as the amd plugin reads them
AMD_VARIANT_PROVIDER_FORCE_GFX_ARCH=gfx1100,gfx90a AMD_VARIANT_PROVIDER_FORCE_ROCM_VERSION=7.1.0 \
  "$T" detect --json | python3 -c 'import json, sys
p = json.load(sys.stdin)["variant_properties"]
assert p["amd"] == {"gfx_arch": ["gfx1100", "gfx90a"], "rocm_version": ["7.1"]}, p' ||
  ts_fail "AMD_VARIANT_PROVIDER_FORCE_*: not in detect --json"
AMD_VARIANT_PROVIDER_FORCE_ROCM_VERSION=seven run torch && ts_fail "a malformed AMD_VARIANT_PROVIDER_FORCE_ROCM_VERSION was taken"
grep -q 'AMD_VARIANT_PROVIDER_FORCE_ROCM_VERSION' "$work/err" || { cat "$work/err"; ts_fail "the malformed AMD variable is not named"; }
# the aarch64 provider, from a sysroot's /proc/cpuinfo Features (Grace)
"$T" detect --json --sysroot "$TS_SOURCE_DIR/fixtures/sysroot/aarch64-gh200" | python3 -c 'import json, sys
p = json.load(sys.stdin)["variant_properties"]
assert p["aarch64"]["version"][0] == "9.0a" and p["aarch64"]["version"][-1] == "8a", p
assert p["aarch64"]["sve2"] == ["on"] and "x86_64" not in p, p' ||
  ts_fail "detect --json: no aarch64 properties from the sysroot"

# --report carries the label and why on the item
run torch --cuda-driver 570.86.10 --compute-capability 8.9 --report "$work/report.json" ||
  { cat "$work/err"; ts_fail "--report"; }
python3 -c 'import json, sys
items = json.load(open(sys.argv[1]))["install"]
ts = [i["torchsolve"] for i in items if i["metadata"]["name"] == "torch"][0]
assert ts["variant"] == "cuda12.8" and "sm_arch 86_real" in ts["variant_why"], ts
assert "cuda13.0 rejected: nvidia::cuda_version_lower_bound 13.0 > driver 12.8" in ts["variant_why"], ts' "$work/report.json" ||
  ts_fail "--report: no variant"

# detect --json lists the supported properties per namespace
"$T" detect --json --cuda-driver 570.86.10 --compute-capability 8.9 --rocm 7.1 --gfx gfx1100 |
  python3 -c 'import json, sys
p = json.load(sys.stdin)["variant_properties"]
assert p["nvidia"]["sm_arch"][:2] == ["89_real", "88_real"], p
assert p["nvidia"]["cuda_version_lower_bound"][0] == "12.8", p
assert p["amd"] == {"gfx_arch": ["gfx1100"], "rocm_version": ["7.1"]}, p' ||
  ts_fail "detect --json: variant_properties"

# a non-torch project, PEP 825 v0.1.1 metadata, from the general index
expect "nvlib, driver 570" nvlib "[cu12]" --cuda-driver 570.86.10 --compute-capability 8.9
expect "nvlib, driver 580" nvlib "[cu13]" --cuda-driver 580.65.06 --compute-capability 9.0
expect "nvlib, no GPU: the plain wheel" nvlib "-"
deps=$(awk '$2 ~ /^nvdep/ { print $2 }' "$work/out" | sort | tr '\n' ' ')
[ "$deps" = "" ] || { cat "$work/out"; ts_fail "plain nvlib: variant markers held ($deps)"; }
# an unknown schema: the variant wheels are skipped with a warning, the plain one stays
expect "unknown schema" futurelib "-" --cuda-driver 570.86.10 --compute-capability 8.9
grep -q 'futurelib-1.0-variants.json: .*v1.0.0.json is of a version torchsolve does not read.*skipped' "$work/err" ||
  { cat "$work/err"; ts_fail "unknown schema: no warning"; }
# PEP 825 markers in Requires-Dist: variant_properties, variant_label, variant_namespaces
expect "nvlib markers, cu12" nvlib "[cu12]" --cuda-driver 570.86.10 --compute-capability 8.9
deps=$(awk '$2 ~ /^nvdep/ { print $2 }' "$work/out" | sort | tr '\n' ' ')
[ "$deps" = "nvdep-any nvdep-cu12 " ] || { cat "$work/out"; ts_fail "cu12 markers: $deps"; }
expect "nvlib markers, cu13" nvlib "[cu13]" --cuda-driver 580.65.06 --compute-capability 9.0
deps=$(awk '$2 ~ /^nvdep/ { print $2 }' "$work/out" | sort | tr '\n' ' ')
[ "$deps" = "nvdep-any nvdep-cu13 " ] || { cat "$work/out"; ts_fail "cu13 markers: $deps"; }

# the chosen variant is what gets installed
"$T" install --python "$work/venv" -i "$TS_NGINX_URL/simple" --torch-index-url "$TS_NGINX_URL/whl" \
  --cuda-driver 570.86.10 --compute-capability 8.9 torch nvlib >"$work/out" 2>"$work/err" ||
  { cat "$work/err"; ts_fail "install"; }
site=$("$PY" -c 'import sysconfig; print(sysconfig.get_paths()["platlib"])')
[ "$(cat "$site/torch/build.txt")" = cuda12.8 ] || ts_fail "installed torch is $(cat "$site/torch/build.txt")"
[ "$(cat "$site/nvlib/build.txt")" = cu12 ] || ts_fail "installed nvlib is $(cat "$site/nvlib/build.txt")"
[ -f "$site/torch-2.10.0.dist-info/variant.json" ] || ts_fail "variant.json not kept in the dist-info"
# list, freeze and show say the label (from the variant.json the dist-info keeps)
"$T" list --python "$work/venv" >"$work/out" || ts_fail "list"
grep -Eq '^torch +2\.10\.0 +cuda12\.8$' "$work/out" || { cat "$work/out"; ts_fail "list: no label"; }
"$T" list --python "$work/venv" --format json | grep -q '"name": "nvlib", "version": "1.0", "variant": "cu12"' ||
  ts_fail "list --format json: no variant"
"$T" freeze --python "$work/venv" | grep -qx 'torch==2.10.0  # variant cuda12.8' || ts_fail "freeze: no label"
"$T" show --python "$work/venv" torch | grep -qx 'Variant: cuda12.8' || ts_fail "show: no label"
# a lock lists every variant wheel of torch with its variants.json (PEP
# 825's [packages.variants-json]); sync chooses per host, as install does
"$T" lock --python "$work/venv" -i "$TS_NGINX_URL/simple" --torch-index-url "$TS_NGINX_URL/whl" \
  --cuda-driver 570.86.10 --compute-capability 8.9 -o "$work/lock.toml" torch 2>"$work/err" ||
  { cat "$work/err"; ts_fail "lock"; }
python3 - "$work/lock.toml" <<'PY' || { cat "$work/lock.toml"; ts_fail "lock: not every variant, or no variants-json"; }
import re, sys, tomllib
torch = [p for p in tomllib.load(open(sys.argv[1], "rb"))["packages"] if p["name"] == "torch"][0]
labels = sorted(re.sub(r".*-(.*)\.whl$", r"\1", w["name"]) for w in torch["wheels"])
assert labels == ["cuda12.6", "cuda12.8", "cuda13.0", "null", "rocm7.0", "rocm7.1"], labels
vj = torch["variants-json"]
assert vj["name"] == "torch-2.10.0-variants.json" and vj["url"].endswith("/torch-2.10.0-variants.json"), vj
assert re.fullmatch("[0-9a-f]{64}", vj["hashes"]["sha256"]), vj
PY
sync_label() { # WHAT LABEL ARGS...: sync the lock, then torch's installed build
  local what=$1 want=$2
  shift 2
  "$T" sync --python "$work/venv" "$@" "$work/lock.toml" >"$work/out" 2>"$work/err" ||
    { cat "$work/err"; ts_fail "sync on $what"; }
  [ "$(cat "$site/torch/build.txt")" = "$want" ] ||
    ts_fail "sync on $what: torch is $(cat "$site/torch/build.txt"), wanted $want"
}
sync_label "the RTX 4090 host it was made on" cuda12.8 --cuda-driver 570.86.10 --compute-capability 8.9
sync_label "H100, driver 580" cuda13.0 --cuda-driver 580.65.06 --compute-capability 9.0
sync_label "no GPU" null
# offline: the variants.json comes from the cache, as the wheels do
sync_label "H100 offline" cuda13.0 --offline --cuda-driver 580.65.06 --compute-capability 9.0
# a lock listing several variants without their variants.json: refused, clearly
python3 - "$work/lock.toml" "$work/two.toml" <<'PY'
import re, sys
text = open(sys.argv[1]).read()
open(sys.argv[2], "w").write(re.sub(r"\[packages\.variants-json\]\n(?:[^\[\n].*\n)*", "", text))
PY
grep -q 'variants-json' "$work/two.toml" && ts_fail "the test did not drop variants-json"
"$T" sync --python "$work/venv" --dry-run "$work/two.toml" >"$work/out" 2>"$work/err" &&
  ts_fail "a lock with several variants of torch and no variants.json was synced"
grep -q 'the lock lists the variants .* and .* and carries no variants.json' "$work/err" ||
  { cat "$work/err"; ts_fail "several variants without variants.json: no clear refusal"; }
echo "ok"
