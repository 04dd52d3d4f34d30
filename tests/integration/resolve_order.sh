#!/usr/bin/env bash
# The answer is a function of the SET of requirements, constraints and index
# contents (issue 12, point 1): lock bytes are compared across
#   - every permutation of "torch torchvision torchaudio" on several captured
#     hosts (--sysroot fixtures);
#   - the 197 real-environment names, shuffled with several seeds;
#   - requirement and constraint files given in another order, their lines
#     reordered;
#   - index pages whose links (HTML anchors, JSON files[]) are shuffled.
# The index is the shared benchmark world (../shared/bench/make-world), built
# here into a temporary folder; without it the test is skipped.
. "$(dirname "$0")/lib.sh"
T=${TORCHSOLVE:?}
S=$TS_SOURCE_DIR/fixtures/sysroot
MW=$TS_SHARED_DIR/bench/make-world
NAMES=$TS_SHARED_DIR/real-env/h100-cu130-py312/pip-list.json
[ -x "$MW" ] || ts_skip "no benchmark world generator at $MW"
[ -f "$NAMES" ] || ts_skip "no real-env list at $NAMES"
work=$(ts_tmpdir)
"$MW" "$work/world" >/dev/null 2>&1 || ts_fail "make-world failed"
export TORCHSOLVE_CACHE_DIR=$work/cache

# A second root: the same world, but with the links of the pages in play
# shuffled (symlinks elsewhere, so no wheel is copied).
mkdir -p "$work/shuffled"
for d in "$work/world"/*; do ln -s "$d" "$work/shuffled/"; done
rm "$work/shuffled/pypi" "$work/shuffled/pytorch"
cp -rs "$work/world/pypi" "$work/world/pytorch" "$work/shuffled/"
python3 - "$work/shuffled" <<'PY'
import json, os, random, re, sys
root = sys.argv[1]
rng = random.Random(12)
pages = 0
for dirpath, _, files in os.walk(root):
    for f in files:
        p = os.path.join(dirpath, f)
        if f == "index.json":
            d = json.load(open(p))
            if "files" not in d:
                continue
            rng.shuffle(d["files"])
            os.unlink(p)
            json.dump(d, open(p, "w"))
            pages += 1
        elif f == "index.html" and "/simple/" in p or f == "index.html" and "/whl/" in p:
            text = open(p).read()
            lines = text.split("\n")
            idx = [i for i, l in enumerate(lines) if re.search(r"<a ", l)]
            if len(idx) < 2:
                continue
            picked = [lines[i] for i in idx]
            rng.shuffle(picked)
            for i, l in zip(idx, picked):
                lines[i] = l
            os.unlink(p)
            open(p, "w").write("\n".join(lines))
            pages += 1
print(f"shuffled {pages} pages")
PY
ts_nginx_start "$work"
U=$TS_NGINX_URL

# lock OUT ROOT ARGS...: a lock against ROOT (world or shuffled)
lock() {
  local out=$1 root=$2
  shift 2
  "$T" lock --python-version 3.12 --index-url "$U/$root/pypi/simple/" \
    --torch-index-url "$U/$root/pytorch/whl" -o "$out" "$@" 2>"$out.err" ||
    ts_fail "lock $* failed: $(cat "$out.err")"
}

same() { # LABEL FILE...
  local label=$1 first=$2 f
  shift 2
  for f in "$@"; do
    cmp -s "$first" "$f" || ts_fail "$label: $(basename "$first") and $(basename "$f") differ:
$(diff "$first" "$f" | head -20)"
  done
  echo "ok: $label ($(grep -c '^\[\[packages\]\]' "$first") packages, $(( $# + 1 )) locks identical)"
}

# 1. every permutation of torch torchvision torchaudio, on several hosts
perms=("torch torchvision torchaudio" "torch torchaudio torchvision"
       "torchvision torch torchaudio" "torchvision torchaudio torch"
       "torchaudio torch torchvision" "torchaudio torchvision torch")
for host in "h100-cu130 --compute-capability 9.0" rtx5090-drv570 rx7900xt-rocm62 \
            mi300x-rocm64 gtx1080-drv580 cpu-only; do
  set -- $host
  name=$1
  shift
  files=()
  for i in "${!perms[@]}"; do
    # shellcheck disable=SC2086
    lock "$work/$name-$i.toml" world --sysroot "$S/$name" "$@" ${perms[$i]}
    files+=("$work/$name-$i.toml")
  done
  # and once against the shuffled pages
  # shellcheck disable=SC2086
  lock "$work/$name-shuffled.toml" shuffled --sysroot "$S/$name" "$@" ${perms[5]}
  sed -i "s|$U/shuffled/|$U/world/|g" "$work/$name-shuffled.toml"
  files+=("$work/$name-shuffled.toml")
  same "torch torchvision torchaudio on $name" "${files[@]}"
done
grep -q '^name = "torch"' "$work/h100-cu130-0.toml" || ts_fail "no torch in the H100 lock"
grep -A1 '^name = "torch"$' "$work/h100-cu130-0.toml" | grep -q 'version = "2.13.0+cu130"' ||
  ts_fail "H100: want torch 2.13.0+cu130 (native CUDA 13.0, the newest): $(grep -A1 '^name = "torch"$' "$work/h100-cu130-0.toml")"

# 2. the 197 real-environment names, shuffled with several seeds (and one
#    lock against the shuffled pages)
python3 -c 'import json,sys; [print(x["name"]) for x in json.load(open(sys.argv[1]))]' "$NAMES" >"$work/names.txt"
files=()
for seed in 1 2 3 4; do
  python3 -c 'import random,sys; l=open(sys.argv[1]).read().split(); random.Random(int(sys.argv[2])).shuffle(l); print("\n".join(l))' \
    "$work/names.txt" "$seed" >"$work/names-$seed.txt"
  lock "$work/real-$seed.toml" world --sysroot "$S/h100-cu130" -r "$work/names-$seed.txt"
  files+=("$work/real-$seed.toml")
done
lock "$work/real-shuffled.toml" shuffled --sysroot "$S/h100-cu130" -r "$work/names-1.txt"
sed -i "s|$U/shuffled/|$U/world/|g" "$work/real-shuffled.toml"
files+=("$work/real-shuffled.toml")
same "197 real-env names, 4 seeds + shuffled pages" "${files[@]}"
n=$(grep -c '^\[\[packages\]\]' "$work/real-1.toml")
[ "$n" = 197 ] || ts_fail "real-env names: $n packages, want the 197 of the real environment"

# 3. requirement and constraint files reordered
printf 'torch\nnvidia-nvtx\nrequests\n' >"$work/a.txt"
printf 'transformers\naccelerate\n' >"$work/b.txt"
printf 'numpy<3\nurllib3<3\n' >"$work/c.txt"
tac "$work/a.txt" >"$work/a2.txt"
tac "$work/b.txt" >"$work/b2.txt"
tac "$work/c.txt" >"$work/c2.txt"
lock "$work/files-1.toml" world --sysroot "$S/h100-cu130" -r "$work/a.txt" -r "$work/b.txt" -c "$work/c.txt"
lock "$work/files-2.toml" world --sysroot "$S/h100-cu130" -r "$work/b2.txt" -r "$work/a2.txt" -c "$work/c2.txt"
lock "$work/files-3.toml" world --sysroot "$S/h100-cu130" nvidia-nvtx accelerate -r "$work/b.txt" requests torch -c "$work/c2.txt"
same "requirement files reordered" "$work/files-1.toml" "$work/files-2.toml" "$work/files-3.toml"
# one CUDA stack: torch's own (13.0), not a CUDA 12 one beside it
if grep -q '^name = "nvidia-.*-cu12"' "$work/files-1.toml"; then
  ts_fail "a second CUDA stack (cu12) beside torch's: $(grep '^name = "nvidia-.*-cu12"' "$work/files-1.toml")"
fi
echo "PASS"
