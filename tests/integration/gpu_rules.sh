#!/usr/bin/env bash
# torchsolve rules check/list/compile/audit: validation with line:column,
# user files overriding by id, and each seed's situation as an audit.
. "$(dirname "$0")/lib.sh"
FIX=$TS_SOURCE_DIR/fixtures/sysroot
ts_isolate_from_host
tmp=$(ts_tmpdir)
export XDG_CONFIG_HOME=$tmp/config

"$TORCHSOLVE" rules check "$TS_SOURCE_DIR/rules.yaml" | grep -q ": ok: 25 backends, 15 torch releases (2.0 to 2.14)" \
  || ts_fail "bundled rules.yaml does not check"
"$TORCHSOLVE" rules check >/dev/null || ts_fail "rules check without FILE"

# Every problem, with its line and column; exit 1.
cat >"$tmp/bad.yaml" <<'YAML'
schema: 1
backends:
  - {id: cu999, kind: cuda, cuda: "99.9", driver_min: "not-a-version", source: https://example.org/}
  - {id: rocm9, kind: rocm, rocm: "9.0", gfx: [sm_90], source: https://example.org/}
rules:
  - id: no-fix
    kind: conflicts
    subject: "torch>=2.5"
    terms: ["__gfx1100"]
    message: "x"
    source: https://example.org/
  - id: bad-spec
    kind: requires
    subject: "torch>=>2"
    terms: ["__rocm>=6.3"]
    message: "x"
    fix: "y"
    source: ftp://example.org/
    colour: blue
YAML
out=$("$TORCHSOLVE" rules check "$tmp/bad.yaml" 2>&1) && ts_fail "bad rules accepted: $out"
for want in "bad.yaml:3:55: error: backend 'cu999': driver_min must be a version" \
            "bad.yaml:4:47: error: backend 'rocm9': 'sm_90' is not a gfx target" \
            "bad.yaml:6:5: error: rule 'no-fix': missing 'fix'" \
            "bad.yaml:14:14: error: 'torch>=>2'" \
            "bad.yaml:18:13: error: rule 'bad-spec': source must be an http(s) URL" \
            "bad.yaml:19:5: error: unknown key 'colour' in a rule"; do
  grep -qF "$want" <<<"$out" || ts_fail "missing diagnostic '$want' in: $out"
done
printf 'schema: 1\nrules: [\n' >"$tmp/syntax.yaml"
out=$("$TORCHSOLVE" rules check "$tmp/syntax.yaml" 2>&1) && ts_fail "syntax error accepted"
grep -q "syntax.yaml:3:1: error: YAML:" <<<"$out" || ts_fail "no position for a YAML syntax error: $out"
printf 'schema: 2\n' >"$tmp/v2.yaml"
out=$("$TORCHSOLVE" rules check "$tmp/v2.yaml" 2>&1) && ts_fail "schema 2 accepted"
grep -q "schema 2 is not supported" <<<"$out" || ts_fail "schema: $out"

# rules list names every bundled rule.
list=$("$TORCHSOLVE" rules list)
for id in hipblaslt-gfx1100 pymomentum-gpu-abi hf-stack-torch-2.10 hf-stack-torch-2.0 \
          bitsandbytes-rocm custom-torch-build xformers-0.0.29.post1 torchvision-pairing; do
  grep -q "^$id " <<<"$list" || ts_fail "rules list lacks $id"
done

# Seed 004: torch 2.5.1+rocm6.2 on an RX 7900 XT with ROCm 6.2.
out=$("$TORCHSOLVE" rules audit --sysroot "$FIX/rx7900xt-rocm62" torch==2.5.1+rocm6.2 torchvision==0.20.1+rocm6.2 2>&1) \
  && ts_fail "seed 004 not flagged"
grep -q "torch 2.5.1+rocm6.2: conflicts with __gfx1100 (rule hipblaslt-gfx1100)" <<<"$out" || ts_fail "seed 004: $out"
grep -q "TORCH_BLAS_PREFER_HIPBLASLT=0" <<<"$out" || ts_fail "seed 004 message lacks the env fallback"
# ... while 2.4.1+rocm6.1 is fine there.
"$TORCHSOLVE" rules audit --sysroot "$FIX/rx7900xt-rocm62" torch==2.4.1+rocm6.1 torchvision==0.19.1+rocm6.1 \
  >/dev/null 2>&1 || ts_fail "2.4.1+rocm6.1 flagged on gfx1100"
# Seed 002: pymomentum-gpu with torch 2.10.
out=$("$TORCHSOLVE" rules audit --cpu pymomentum-gpu==0.1.2 torch==2.10.0 2>&1) && ts_fail "seed 002 not flagged"
grep -q "rule pymomentum-gpu-abi" <<<"$out" || ts_fail "seed 002: $out"
"$TORCHSOLVE" rules audit --cpu pymomentum-gpu==0.1.2 torch==2.9.1 >/dev/null 2>&1 || ts_fail "pymomentum with 2.9.1 flagged"
# Seed 000: torch 2.10 with an old transformers; 2.3 with a too-new one.
out=$("$TORCHSOLVE" rules audit --cpu torch==2.10.0 transformers==4.44.0 2>&1) && ts_fail "seed 000 not flagged"
grep -q "rule hf-stack-torch-2.10" <<<"$out" || ts_fail "seed 000: $out"
out=$("$TORCHSOLVE" rules audit --cpu torch==2.3.1 transformers==4.51.0 2>&1) && ts_fail "seed 000 (2.3) not flagged"
grep -q "rule hf-stack-torch-2.3" <<<"$out" || ts_fail "seed 000 (2.3): $out"
# The seed-000 table is that project's policy, and says so; upstream's own
# floors are separate rules; --without-rule drops the policy by id.
grep -q "seed 000's project policy" <<<"$out" || ts_fail "seed 000 not called a policy: $out"
"$TORCHSOLVE" rules audit --cpu --without-rule 'hf-stack-*' torch==2.3.1 transformers==4.51.0 >/dev/null 2>&1 \
  || ts_fail "--without-rule 'hf-stack-*' did not drop the policy"
TORCHSOLVE_WITHOUT_RULES=hf-stack-torch-2.3 "$TORCHSOLVE" rules audit --cpu torch==2.3.1 transformers==4.51.0 >/dev/null 2>&1 \
  || ts_fail "TORCHSOLVE_WITHOUT_RULES did not drop the policy"
out=$("$TORCHSOLVE" rules audit --cpu --without-rule 'hf-stack-*' torch==2.1.2 transformers==4.56.0 2>&1) \
  && ts_fail "upstream transformers floor not flagged"
grep -q "rule transformers-torch-2.2" <<<"$out" || ts_fail "upstream floor: $out"
out=$("$TORCHSOLVE" rules audit --cpu --without-rule no-such-rule torch==2.3.1 2>&1) && rc=0 || rc=$?
[ "$rc" = 2 ] && grep -q "no-such-rule: no rule has that id" <<<"$out" || ts_fail "unknown --without-rule (rc=$rc): $out"
# torch < 2.3 was built against NumPy 1.x.
out=$("$TORCHSOLVE" rules audit --cpu torch==2.2.2 numpy==2.1.0 2>&1) && ts_fail "numpy 2 with torch 2.2 not flagged"
grep -q "rule torch-numpy2" <<<"$out" || ts_fail "numpy: $out"
"$TORCHSOLVE" rules audit --cpu torch==2.3.0 numpy==2.1.0 >/dev/null 2>&1 || ts_fail "numpy 2 with torch 2.3 flagged"
# flash-attn's cxx11abi label against torch's C++ ABI (new from 2.7).
out=$("$TORCHSOLVE" rules audit --cpu torch==2.7.1 flash-attn==2.8.0+cu12torch2.7cxx11abiFALSE 2>&1) \
  && ts_fail "cxx11abiFALSE with torch 2.7 not flagged"
grep -q "rule flash-attn-cxx11abi-false" <<<"$out" || ts_fail "abi false: $out"
out=$("$TORCHSOLVE" rules audit --cpu torch==2.6.0 flash-attn==2.7.4+cu12torch2.6cxx11abiTRUE 2>&1) \
  && ts_fail "cxx11abiTRUE with torch 2.6 not flagged"
grep -q "rule flash-attn-cxx11abi-true" <<<"$out" || ts_fail "abi true: $out"
"$TORCHSOLVE" rules audit --cpu torch==2.7.1 flash-attn==2.8.0+cu12torch2.7cxx11abiTRUE >/dev/null 2>&1 \
  || ts_fail "matching cxx11abiTRUE flagged"
# hipBLASLt: refused for 2.5 below ROCm 6.3 on gfx1100 (community-reported,
# said so), no longer for 2.6.
out=$("$TORCHSOLVE" rules audit --sysroot "$FIX/rx7900xt-rocm62" torch==2.5.1+rocm6.2 2>&1) && ts_fail "hipblaslt 2.5 not flagged"
grep -q "rule hipblaslt-gfx1100" <<<"$out" && grep -q "community-reported" <<<"$out" && grep -q "ROCm >= 6.3" <<<"$out" \
  || ts_fail "hipblaslt message: $out"
"$TORCHSOLVE" rules audit --sysroot "$FIX/rx7900xt-rocm62" torch==2.6.0+rocm6.2.4 >/dev/null 2>&1 \
  || ts_fail "hipblaslt flags 2.6.0+rocm6.2.4"
# PyPI's aarch64 torch is a CPU build until 2.10 and the aarch64 cu130
# build (sm_80 and up) from 2.11: a T4 runs the first, not the second.
"$TORCHSOLVE" rules audit --sysroot "$FIX/aarch64-t4" torch==2.10.0 >/dev/null 2>&1 \
  || ts_fail "PyPI aarch64 torch 2.10 (a CPU build) flagged on a T4"
out=$("$TORCHSOLVE" rules audit --sysroot "$FIX/aarch64-t4" torch==2.11.0 2>&1) && ts_fail "PyPI aarch64 torch 2.11 on a T4 not flagged"
grep -q "rule pypi-arch-2.11" <<<"$out" && grep -q "8.0 9.0 10.0 11.0 12.0 only" <<<"$out" || ts_fail "aarch64 pypi: $out"
"$TORCHSOLVE" rules audit --sysroot "$FIX/aarch64-gh200" torch==2.11.0 >/dev/null 2>&1 \
  || ts_fail "PyPI aarch64 torch 2.11 flagged on a GH200"
# Seed 001: bitsandbytes on a ROCm torch.
out=$("$TORCHSOLVE" rules audit --sysroot "$FIX/mi300x-rocm64" torch==2.8.0+rocm6.4 bitsandbytes==0.45.5 2>&1) && ts_fail "seed 001 not flagged"
grep -q "rule bitsandbytes-rocm" <<<"$out" || ts_fail "seed 001: $out"
# Seed 003: a custom local build is no variant: nothing to flag.
"$TORCHSOLVE" rules audit --sysroot "$FIX/rx7900xt-rocm62" torch==2.9.1a0+gitd38164a >/dev/null 2>&1 \
  || ts_fail "custom build flagged"
# ... but judged as what its wheel says it was built with (HIP 7.1 here).
out=$("$TORCHSOLVE" rules audit --sysroot "$FIX/rx7900xt-rocm62" --built-with hip=7.1.52802 torch==2.9.1a0+gitd38164a 2>&1) \
  && ts_fail "custom ROCm 7.1 build on a ROCm 6.2 host not flagged"
grep -q "built for rocm7.1: needs ROCm installed beside the kernel's own amdgpu >=6.4; this host has 6.2 (rule backend-rocm7.1-intree)" <<<"$out" || ts_fail "custom: $out"
"$TORCHSOLVE" rules audit --rocm 7.1 --gfx gfx1100 --built-with hip=7.1.52802 torch==2.9.1a0+gitd38164a >/dev/null 2>&1 \
  || ts_fail "custom build flagged on a matching host"
# A CUDA build the driver cannot run; torchvision of another torch.
out=$("$TORCHSOLVE" rules audit --sysroot "$FIX/rtx4090-drv550" torch==2.11.0+cu130 torchvision==0.20.1+cu124 2>&1) && ts_fail "driver not flagged"
grep -q "rule backend-cu130-driver" <<<"$out" || ts_fail "driver: $out"
grep -q "torchvision 0.20.1+cu124: needs torch==2.5.1 (+cu124)" <<<"$out" || ts_fail "pairing: $out"
# Plain PyPI torch is a CUDA build with its label stripped: gated like it
# where there is a driver (GTX 1080 + PyPI torch 2.8 = cu128 without sm_61),
# left alone on a CPU-only host, where it runs on the CPU.
out=$("$TORCHSOLVE" rules audit --sysroot "$FIX/gtx1080-drv580" torch==2.8.0 2>&1) && ts_fail "PyPI 2.8 on sm_61 not flagged"
grep -q "rule pypi-arch-2.8" <<<"$out" || ts_fail "pypi arch: $out"
out=$("$TORCHSOLVE" rules audit --sysroot "$FIX/rtx4090-drv550" torch==2.11.0 2>&1) && ts_fail "PyPI 2.11 on driver 550 not flagged"
grep -q "rule pypi-default-2.11" <<<"$out" || ts_fail "pypi driver: $out"
"$TORCHSOLVE" rules audit --sysroot "$FIX/cpu-only" torch==2.11.0 >/dev/null 2>&1 || ts_fail "PyPI torch flagged on a CPU host"
"$TORCHSOLVE" rules audit --sysroot "$FIX/rtx4090-drv550" torch==2.10.0 >/dev/null 2>&1 || ts_fail "PyPI 2.10 (cu128) flagged on driver 550"
# A GPU the build has no kernels for.
out=$("$TORCHSOLVE" rules audit --sysroot "$FIX/gtx1080-drv580" torch==2.13.0+cu130 2>&1) && ts_fail "sm_61 on cu130 not flagged"
grep -q "rule cuda-arch-2.13-cu130" <<<"$out" || ts_fail "arch: $out"
# The real H100 environment (197 distributions) breaks no rule on its own host.
if [ -d "$TS_SHARED_DIR/real-env/h100-cu130-py312/dist-info" ]; then
  "$TORCHSOLVE" rules audit --sysroot "$FIX/h100-cu130" --dist-info "$TS_SHARED_DIR/real-env/h100-cu130-py312/dist-info" \
    >"$tmp/h100.txt" 2>&1 || ts_fail "real H100 env flagged: $(cat "$tmp/h100.txt")"
  grep -q "197 distributions checked, 0 broken rules" "$tmp/h100.txt" || ts_fail "h100: $(cat "$tmp/h100.txt")"
fi

# A user file overrides a rule by id and adds its own; the config-dir file
# is read too.
cat >"$tmp/user.yaml" <<'YAML'
schema: 1
rules:
  - id: pymomentum-gpu-abi
    kind: requires
    subject: "pymomentum-gpu>=0.1,<0.2"
    terms: ["torch>=2.8,<2.11"]
    message: "rebuilt locally for 2.10"
    fix: "use torch < 2.11"
    source: https://example.org/local-build
  - id: local-no-old-numpy
    kind: conflicts
    subject: "torch>=2.0"
    terms: ["numpy<1.20"]
    message: "site policy"
    fix: "upgrade numpy"
    source: https://example.org/policy
YAML
"$TORCHSOLVE" rules audit --cpu --rules "$tmp/user.yaml" pymomentum-gpu==0.1.2 torch==2.10.0 >/dev/null 2>&1 \
  || ts_fail "--rules did not override pymomentum-gpu-abi"
out=$(TORCHSOLVE_RULES=$tmp/user.yaml "$TORCHSOLVE" rules audit --cpu torch==2.10.0 numpy==1.19.0 2>&1) \
  && ts_fail "TORCHSOLVE_RULES ignored"
grep -q "rule local-no-old-numpy" <<<"$out" || ts_fail "user rule: $out"
mkdir -p "$XDG_CONFIG_HOME/torchsolve" && cp "$tmp/user.yaml" "$XDG_CONFIG_HOME/torchsolve/rules.yaml"
"$TORCHSOLVE" rules list | grep -q "^local-no-old-numpy " || ts_fail "config-dir rules not read"
rm -r "$XDG_CONFIG_HOME/torchsolve"
# A user file drops rules by id pattern with without_rules (the seed-000
# policy here); a pattern that matches nothing is an error.
printf 'schema: 1\nwithout_rules: ["hf-stack-*"]\n' >"$tmp/nopolicy.yaml"
"$TORCHSOLVE" rules audit --cpu --rules "$tmp/nopolicy.yaml" torch==2.3.1 transformers==4.51.0 >/dev/null 2>&1 \
  || ts_fail "without_rules in a --rules file did not drop the policy"
printf 'schema: 1\nwithout_rules: ["no-such-*"]\n' >"$tmp/nomatch.yaml"
out=$("$TORCHSOLVE" rules list --rules "$tmp/nomatch.yaml" 2>&1) && ts_fail "without_rules matching nothing accepted"
grep -q "without_rules: 'no-such-\*' matches no rule" <<<"$out" || ts_fail "without_rules: $out"
printf 'schema: 1\nreleases:\n  - {series: "2.99", versions: ["2.99.0"], source: https://example.org/, variants: {cu999: {archs: "9.0"}}}\n' >"$tmp/ref.yaml"
out=$("$TORCHSOLVE" rules list --rules "$tmp/ref.yaml" 2>&1) && ts_fail "unknown backend in a user file accepted"
grep -q "variant 'cu999' is not a backend" <<<"$out" || ts_fail "merge check: $out"
# rules check judges a user file as --rules uses it: merged over the bundled
# rules (it said "ok" for both, and a CUDA variant without archs merged in
# silently, excluding that build everywhere).
out=$("$TORCHSOLVE" rules check "$tmp/ref.yaml" 2>&1) && ts_fail "rules check: unknown backend accepted: $out"
grep -q "ref.yaml: error: release '2.99': variant 'cu999' is not a backend" <<<"$out" || ts_fail "rules check merge: $out"
printf 'schema: 1\nreleases:\n  - {series: "2.99", versions: ["2.99.0"], source: https://example.org/, variants: {cu130: {}}}\n' >"$tmp/noarch.yaml"
out=$("$TORCHSOLVE" rules check "$tmp/noarch.yaml" 2>&1) && ts_fail "rules check: CUDA variant without archs accepted: $out"
grep -q "CUDA variant 'cu130' needs archs" <<<"$out" || ts_fail "rules check archs: $out"
out=$("$TORCHSOLVE" detect --rules "$tmp/noarch.yaml" 2>&1) && ts_fail "--rules: CUDA variant without archs accepted: $out"

# compile --json: what the resolver receives.
"$TORCHSOLVE" rules compile --json --sysroot "$FIX/rx7900xt-rocm62" >"$tmp/c.json"
python3 - "$tmp/c.json" <<'PY' || ts_fail "compile --json"
import json, sys
d = json.load(open(sys.argv[1]))
facts = {f["name"]: f.get("version") for f in d["facts"]}
assert facts["__rocm"] == "6.2.0" and "__gfx1100" in facts and facts["__glibc"] == "2.35", facts
ids = {c["id"] for c in d["constraints"]}
assert {"hipblaslt-gfx1100", "backend-rocm7.2-intree", "torchvision-pairing", "pymomentum-gpu-abi"} <= ids
hb = [c for c in d["constraints"] if c["id"] == "hipblaslt-gfx1100"]
assert {c["subject"]["local"] for c in hb} == {"rocm5*", "rocm6.0*", "rocm6.1*", "rocm6.2*"}
assert "torch" in d["routed"] and "pytorch-triton-rocm" in d["routed"]
assert d["backends"][0]["index_url"] == "https://download.pytorch.org/whl/cpu/"
PY
echo "all rules checks passed"
