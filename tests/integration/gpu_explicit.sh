#!/usr/bin/env bash
# What the user names is the build (issue 28, points 2-4):
#  - --ignore-host skips looking at this machine but never forgets the GPU
#    facts given with it (--cuda, --torch-backend, --rocm/--gfx,
#    TORCHSOLVE_CUDA): they describe the target machine;
#  - --torch-backend rocm6.4 on a builder without a GPU installs the
#    +rocm6.4 build, saying this host cannot check it (install, lock, pip
#    install), as cu126 does;
#  - a PyTorch variant index URL (.../whl/cu126) among the indexes (-i,
#    --extra-index-url, requirement-file lines, what export
#    --emit-index-url writes) names the build and the server: torch comes
#    from that variant on that server, never from download.pytorch.org.
. "$(dirname "$0")/lib.sh"
T=${TORCHSOLVE:?}
ts_isolate_from_host
ts_venv_for_wheels
ts_index_from_spec < <(
  for v in 2.13.0+cpu:cpu 2.13.0+cu126:cu126 2.13.0+cu130:cu130 2.13.0+cu132:cu132 \
           2.13.0+rocm7.1:rocm7.1 2.13.0+rocm7.2:rocm7.2 2.13.0+xpu:xpu \
           2.9.1+rocm6.4:rocm6.4 2.9.1+cpu:cpu; do
    echo "whl/${v#*:} torch ${v%:*} $tag"
  done
  echo "simple numpy 2.1.0 $tag"
)
export TORCHSOLVE_CACHE_DIR=$work/cache
# a builder without a GPU; the PyTorch server is only ever named below
export TORCHSOLVE_SYSROOT=$TS_SOURCE_DIR/fixtures/sysroot/cpu-only
W=$TS_NGINX_URL/whl
run() { # ARGS...: install --dry-run torch; plan on $work/out, stderr on $work/err
  "$T" install --python "$work/venv" -i "$TS_NGINX_URL/simple" --dry-run "$@" \
    >"$work/out" 2>"$work/err"
}
torch_of() { awk '$2 == "torch" { print $3 }' "$work/out"; }
expect() { # WHAT WANTED
  [ "$(torch_of)" = "$2" ] || { cat "$work/err" "$work/out"; ts_fail "$1: torch $(torch_of), wanted $2"; }
}

# --- 2. --ignore-host keeps what was asked -----------------------------
run --torch-index-url "$W" --ignore-host torch || { cat "$work/err"; ts_fail "--ignore-host"; }
expect "--ignore-host alone (every variant possible)" 2.13.0+cu132
run --torch-index-url "$W" --ignore-host --cuda 12.6 torch || { cat "$work/err"; ts_fail "--cuda 12.6 --ignore-host"; }
expect "--cuda 12.6 --ignore-host" 2.13.0+cu126
run --torch-index-url "$W" --torch-backend cu126 --ignore-host torch ||
  { cat "$work/err"; ts_fail "--torch-backend cu126 --ignore-host"; }
expect "--torch-backend cu126 --ignore-host" 2.13.0+cu126
run --torch-index-url "$W" --rocm 7.2 --gfx gfx942 --ignore-host torch ||
  { cat "$work/err"; ts_fail "--rocm 7.2 --gfx gfx942 --ignore-host"; }
expect "--rocm 7.2 --gfx gfx942 --ignore-host" 2.13.0+rocm7.2
TORCHSOLVE_CUDA=12.6 run --torch-index-url "$W" --ignore-host torch ||
  { cat "$work/err"; ts_fail "TORCHSOLVE_CUDA=12.6 --ignore-host"; }
expect "TORCHSOLVE_CUDA=12.6 --ignore-host" 2.13.0+cu126
run --torch-index-url "$W" --xpu --ignore-host torch || { cat "$work/err"; ts_fail "--xpu --ignore-host"; }
expect "--xpu --ignore-host" 2.13.0+xpu
! grep -q 'cannot be checked' "$work/err" || ts_fail "--ignore-host: a note about this host"
"$T" lock --python "$work/venv" -i "$TS_NGINX_URL/simple" --torch-index-url "$W" \
  --ignore-host --cuda 12.6 -o "$work/lock.toml" torch 2>"$work/err" || { cat "$work/err"; ts_fail "lock --ignore-host --cuda 12.6"; }
grep -q '^version = "2.13.0+cu126"' "$work/lock.toml" || { cat "$work/lock.toml"; ts_fail "lock --ignore-host --cuda 12.6"; }

# --- 3. --torch-backend rocm6.4 without a GPU: the +rocm6.4 build -------
run --torch-index-url "$W" --torch-backend rocm6.4 torch || { cat "$work/err"; ts_fail "--torch-backend rocm6.4"; }
expect "--torch-backend rocm6.4 (no GPU)" 2.9.1+rocm6.4
grep -q 'note: this host has no AMD GPU, so the +rocm6.4 build cannot be checked' "$work/err" ||
  { cat "$work/err"; ts_fail "--torch-backend rocm6.4: no note"; }
run --torch-index-url "$W" --torch-backend cu126 torch || { cat "$work/err"; ts_fail "--torch-backend cu126"; }
expect "--torch-backend cu126 (no GPU)" 2.13.0+cu126
grep -q 'no NVIDIA GPU, so the +cu126 build cannot be checked' "$work/err" || ts_fail "cu126: no note"
# a named build is that build: no other variant stands in for it
run --torch-index-url "$W" --torch-backend rocm6.4 'torch>=2.10' && ts_fail "rocm6.4 torch>=2.10 succeeded"
grep -q '2.9.1+rocm6.4' "$work/err" || { cat "$work/err"; ts_fail "rocm6.4 torch>=2.10: versions not named"; }
"$T" lock --python "$work/venv" -i "$TS_NGINX_URL/simple" --torch-index-url "$W" \
  --torch-backend rocm6.4 -o "$work/lock.toml" torch 2>"$work/err" || { cat "$work/err"; ts_fail "lock rocm6.4"; }
grep -q '^version = "2.9.1+rocm6.4"' "$work/lock.toml" || { cat "$work/lock.toml"; ts_fail "lock --torch-backend rocm6.4"; }
grep -q 'cannot be checked' "$work/err" || ts_fail "lock rocm6.4: no note"
ts_clear_pip_env
VIRTUAL_ENV=$work/venv "$T" pip install --torch-backend rocm6.4 --torch-index-url "$W" \
  -i "$TS_NGINX_URL/simple" torch >"$work/out" 2>"$work/err" || { cat "$work/err"; ts_fail "pip install rocm6.4"; }
ls "$work"/venv/lib/python*/site-packages/torch-2.9.1+rocm6.4.dist-info >/dev/null ||
  { cat "$work/err" "$work/out"; ts_fail "pip install --torch-backend rocm6.4 did not install +rocm6.4"; }
rm -rf "$work"/venv/lib/python*/site-packages/torch*

# --- 4. a PyTorch variant index URL names the build and the server ------
# (no --torch-index-url from here on: the default server is unreachable)
ts_clear_pip_env
VIRTUAL_ENV=$work/venv "$T" pip install --dry-run torch --index-url "$W/cu126" \
  >"$work/out" 2>"$work/err" || { cat "$work/err"; ts_fail "pip install --index-url .../whl/cu126"; }
grep -q "^install torch 2.13.0+cu126 cu126 $W/cu126\$" "$work/out" || { cat "$work/out"; ts_fail "pip -i whl/cu126"; }
VIRTUAL_ENV=$work/venv "$T" pip install --dry-run torch -i "$TS_NGINX_URL/simple" \
  --extra-index-url "$W/cu126/" >"$work/out" 2>"$work/err" ||
  { cat "$work/err"; ts_fail "pip install --extra-index-url .../whl/cu126/"; }
grep -q "^install torch 2.13.0+cu126 cu126 $W/cu126\$" "$work/out" || { cat "$work/out"; ts_fail "pip --extra-index-url whl/cu126"; }
PIP_EXTRA_INDEX_URL=$W/rocm6.4 VIRTUAL_ENV=$work/venv "$T" pip install --dry-run torch \
  -i "$TS_NGINX_URL/simple" >"$work/out" 2>"$work/err" || { cat "$work/err"; ts_fail "PIP_EXTRA_INDEX_URL rocm6.4"; }
grep -q "^install torch 2.9.1+rocm6.4 rocm6.4 $W/rocm6.4\$" "$work/out" || { cat "$work/out"; ts_fail "PIP_EXTRA_INDEX_URL whl/rocm6.4"; }
run --index-url "$W/cpu" torch || { cat "$work/err"; ts_fail "install -i whl/cpu"; }
expect "install -i .../whl/cpu" 2.13.0+cpu
printf -- '--extra-index-url %s/cu126\ntorch\n' "$W" >"$work/req.txt"
run -r "$work/req.txt" || { cat "$work/err"; ts_fail "-r with --extra-index-url .../whl/cu126"; }
expect "requirements file --extra-index-url .../whl/cu126" 2.13.0+cu126
# pip: a file's --index-url replaces the command line's -i (PyTorch's own
# install line in a requirements file names the build and the server)
printf -- '--index-url %s/cu126\ntorch\n' "$W" >"$work/req-i.txt"
run -r "$work/req-i.txt" || { cat "$work/err"; ts_fail "-i simple -r (--index-url .../whl/cu126)"; }
expect "-i simple, requirements file --index-url .../whl/cu126" 2.13.0+cu126
grep -q "$W/cu126\$" "$work/out" || { cat "$work/out"; ts_fail "-r --index-url whl/cu126: another server"; }
"$T" lock --python "$work/venv" -i "$TS_NGINX_URL/simple" -r "$work/req-i.txt" -o "$work/lock.toml" \
  2>"$work/err" || { cat "$work/err"; ts_fail "lock -i simple -r (--index-url whl/cu126)"; }
grep -q '^version = "2.13.0+cu126"' "$work/lock.toml" || ts_fail "lock -i simple -r (--index-url whl/cu126)"
"$T" lock --python "$work/venv" -i "$TS_NGINX_URL/simple" -r "$work/req.txt" -o "$work/lock.toml" \
  2>"$work/err" || { cat "$work/err"; ts_fail "lock -r (whl/cu126)"; }
grep -q '^version = "2.13.0+cu126"' "$work/lock.toml" || ts_fail "lock -r (whl/cu126)"
# what export --emit-index-url writes installs from the same server
"$T" export "$work/lock.toml" --emit-index-url -o "$work/exported.txt" 2>"$work/err" ||
  { cat "$work/err"; ts_fail "export"; }
grep -q -- "-index-url $W/cu126" "$work/exported.txt" || { cat "$work/exported.txt"; ts_fail "export: no index line"; }
# (the file names its own indexes: --index-url .../whl/cu126, torch's only one)
"$T" install --python "$work/venv" --dry-run -r "$work/exported.txt" >"$work/out" 2>"$work/err" ||
  { cat "$work/err"; ts_fail "install -r exported"; }
expect "install -r (export --emit-index-url)" 2.13.0+cu126
grep -q "$W/cu126\$" "$work/out" || { cat "$work/out"; ts_fail "exported: another server"; }
# a contradiction is refused, not settled silently
rc=0; run --torch-backend cpu --index-url "$W/cu126" torch || rc=$?
[ "$rc" = 2 ] && grep -q 'name different torch builds' "$work/err" ||
  { cat "$work/err"; ts_fail "--torch-backend cpu with .../whl/cu126: exit $rc"; }
echo "gpu_explicit: ok"
