#!/usr/bin/env bash
# An answer depends only on (request, indexes, host, existing lock), never
# on what the cache holds (issue 23, point 3): a matrix of hosts (CPU,
# H100, T4 and GH200 on aarch64, MI300X, RX 7900 XT) is planned and locked
# in shuffled orders over one shared cache, and every plan (the dry-run
# lines and pip's report) and every lock is compared byte for byte with
# the same run in a fresh cache.
. "$(dirname "$0")/lib.sh"
T=${TORCHSOLVE:?}
S=$TS_SOURCE_DIR/fixtures/sysroot
ts_isolate_from_host
work=$(ts_tmpdir)
export XDG_CONFIG_HOME=$work/config
x86=cp312-cp312-manylinux_2_28_x86_64
arm=cp312-cp312-manylinux_2_28_aarch64
ts_index_from_spec < <(
  for tag in $x86 $arm; do
    for v in 2.13.0+cpu:cpu 2.13.0+cu126:cu126 2.13.0+cu130:cu130 2.9.1+cpu:cpu; do
      echo "whl/${v#*:} torch ${v%:*} $tag numpy"
    done
    echo "whl/cpu torchvision 0.28.0+cpu $tag torch==2.13.0"
    echo "whl/cu126 torchvision 0.28.0+cu126 $tag torch==2.13.0"
    echo "whl/cu130 torchvision 0.28.0+cu130 $tag torch==2.13.0"
    echo "whl/cpu torchvision 0.24.1+cpu $tag torch==2.9.1"
    echo "simple numpy 2.0.0 $tag"
    echo "simple numpy 2.1.0 $tag"
  done
  for v in 2.13.0+rocm7.1:rocm7.1 2.13.0+rocm7.2:rocm7.2 2.9.1+rocm6.4:rocm6.4 2.9.1+rocm6.3:rocm6.3; do
    echo "whl/${v#*:} torch ${v%:*} $x86 numpy"
  done
  echo "whl/rocm7.1 torchvision 0.28.0+rocm7.1 $x86 torch==2.13.0"
  echo "whl/rocm7.2 torchvision 0.28.0+rocm7.2 $x86 torch==2.13.0"
  echo "whl/rocm6.4 torchvision 0.24.1+rocm6.4 $x86 torch==2.9.1"
  echo "whl/rocm6.3 torchvision 0.24.1+rocm6.3 $x86 torch==2.9.1"
)
IDX=(-i "$TS_NGINX_URL/simple" --torch-index-url "$TS_NGINX_URL/whl" --python-version 3.12)
HOSTS="cpu-only:x86_64 h100-cu130:x86_64 aarch64-t4:aarch64 aarch64-gh200:aarch64 mi300x-rocm64:x86_64 rx7900xt-rocm62:x86_64"

# One host's plan and lock with the cache $1, into the folder $3.
answer() { # CACHE HOST:MACHINE OUT
  local host=${2%:*} plat=manylinux_2_28_${2#*:}
  mkdir -p "$3"
  TORCHSOLVE_CACHE_DIR=$1 "$T" install "${IDX[@]}" --platform "$plat" --sysroot "$S/$host" \
    --report "$3/report.json" torch torchvision >"$3/plan" 2>"$3/err" ||
    { cat "$3/err"; ts_fail "$host: plan"; }
  TORCHSOLVE_CACHE_DIR=$1 "$T" lock "${IDX[@]}" --platform "$plat" --sysroot "$S/$host" \
    torch torchvision -o "$3/pylock.toml" 2>>"$3/err" || { cat "$3/err"; ts_fail "$host: lock"; }
}

for h in $HOSTS; do
  answer "$work/fresh-cache-${h%:*}" "$h" "$work/fresh/${h%:*}"
done
grep -q '^install torch 2.13.0+cu130 ' "$work/fresh/h100-cu130/plan" || ts_fail "H100: $(cat "$work/fresh/h100-cu130/plan")"
grep -q '^install torch 2.9.1+rocm6.4 ' "$work/fresh/rx7900xt-rocm62/plan" || ts_fail "RX 7900 XT: $(cat "$work/fresh/rx7900xt-rocm62/plan")"
echo "ok: fresh answers"

for seed in 1 2 3; do
  order=$(python3 -c 'import random, sys
hosts = sys.argv[2].split()
random.Random(int(sys.argv[1])).shuffle(hosts)
print(" ".join(hosts))' "$seed" "$HOSTS")
  for h in $order; do
    out=$work/shared-$seed/${h%:*}
    answer "$work/shared-cache" "$h" "$out"
    for f in plan report.json pylock.toml; do
      cmp -s "$work/fresh/${h%:*}/$f" "$out/$f" ||
        { diff "$work/fresh/${h%:*}/$f" "$out/$f" | head -20; ts_fail "order $order: ${h%:*}'s $f differs from a fresh cache's"; }
    done
  done
  echo "ok: order $order over one shared cache"
done
