#!/usr/bin/env bash
# Machines with many GPUs (issue 28): 1 to 16 GPUs of mixed kinds through
# `install --dry-run` and `lock --profile`, for every backend of rules.yaml,
# on an index with a torch build of every variant every release lists.  Four
# compute capabilities once overflowed the resolver's job list (the host
# facts filled a power-of-two capacity exactly): realloc aborted (134) or
# the lock segfaulted (139).  Every run must end with 0 or a refusal (1),
# under ASan too (make sanitize runs this script), and pick the build the
# facts ask for.
. "$(dirname "$0")/lib.sh"
T=${TORCHSOLVE:?}
ts_isolate_from_host
ts_venv_for_wheels
# one torch wheel per (release version, x86_64 variant) of rules.yaml
python3 - "$TS_SOURCE_DIR/rules.yaml" "$tag" >"$work/spec" <<'EOF'
import re, sys
series, versions, in_variants = None, [], False
for line in open(sys.argv[1]):
    m = re.match(r'  - series: "([^"]+)"', line)
    if m:
        series, in_variants = m.group(1), False
        continue
    m = re.match(r'    versions: \[(.*)\]', line)
    if m and series:
        versions = re.findall(r'"([^"]+)"', m.group(1))
        continue
    if re.match(r'    variants:', line):
        in_variants = True
        continue
    if re.match(r'    \S', line):
        in_variants = False
        continue
    m = re.match(r'      ([a-z0-9.]+):', line)
    if in_variants and m:
        for v in versions:
            print(f"whl/{m.group(1)} torch {v}+{m.group(1)} {sys.argv[2]}")
EOF
python3 "$TS_SOURCE_DIR/tests/integration/install_mkindex.py" "$work/www" <"$work/spec"
backends=$(cut -d' ' -f1 "$work/spec" | sed 's,^whl/,,' | sort -u)
[ "$(echo "$backends" | wc -l)" -ge 20 ] || ts_fail "rules.yaml gave only: $backends"
ts_nginx_start "$work/www"
export TORCHSOLVE_CACHE_DIR=$work/cache
# a machine without GPUs: the facts come from the flags alone
IX=(-i "$TS_NGINX_URL/simple" --torch-index-url "$TS_NGINX_URL/whl"
    --sysroot "$TS_SOURCE_DIR/fixtures/sysroot/cpu-only")

# ok WHAT RC: 0 or 1 with an error line; never a crash or a sanitizer report
ok() {
  if [ "$2" != 0 ] && { [ "$2" != 1 ] || ! grep -q '^error: ' "$work/err"; }; then
    cat "$work/err"
    ts_fail "$1: exit $2"
  fi
  if grep -qE 'AddressSanitizer|runtime error|LeakSanitizer' "$work/err"; then
    cat "$work/err"
    ts_fail "$1: sanitizer report"
  fi
}
install_dry() { # WHAT ARGS...: plan on $work/out
  local what=$1 rc=0
  shift
  "$T" install --python "$work/venv" "${IX[@]}" --dry-run "$@" torch \
    >"$work/out" 2>"$work/err" || rc=$?
  ok "$what" "$rc"
  return "$rc"
}
lock_profile() { # WHAT PROFILE: the locked torch's version on stdout
  local what=$1 rc=0
  rm -f "$work/lock" # a lock there would be kept where it still fits
  "$T" lock --python "$work/venv" "${IX[@]}" --profile "$2" -o "$work/lock" torch \
    >/dev/null 2>"$work/err" || rc=$?
  ok "$what" "$rc"
  [ "$rc" = 0 ] || return 1
  awk '/^name = "torch"$/ { t = 1; next } t && /^version = / { gsub(/"/, "", $3); print $3; exit }' \
    "$work/lock"
}
torch_of() { awk '$2 == "torch" { print $3 }' "$work/out"; }
# the first n entries of a list, cycled
take() { # N ITEM...
  local n=$1 out=() i
  shift
  local items=("$@")
  for ((i = 0; i < n; i++)); do out+=("${items[i % ${#items[@]}]}"); done
  local IFS=,
  echo "${out[*]}"
}
# in every list of the newest releases (cu130, cu132; rocm7.2, rocm7.14)
CCS=(7.5 8.0 8.6 9.0 10.0 12.0 8.0 9.0)
GFX=(gfx942 gfx90a gfx1100 gfx1101 gfx1030 gfx908 gfx1200 gfx950)
ROCMS=(7.1 7.2)

for n in $(seq 1 16); do
  cc=$(take "$n" "${CCS[@]}")
  gfx=$(take "$n" "${GFX[@]}")
  install_dry "cuda $n GPUs" --cuda-driver 580.65.06 --compute-capability "$cc" ||
    ts_fail "cuda $n GPUs ($cc): refused"
  [ "$(torch_of)" = 2.14.0+cu130 ] || ts_fail "cuda $n GPUs ($cc): $(torch_of), wanted 2.14.0+cu130"
  rocm=${ROCMS[n % 2]}
  install_dry "rocm $rocm $n GPUs" --rocm "$rocm" --gfx "$gfx" ||
    ts_fail "rocm $rocm $n GPUs ($gfx): refused"
  case $(torch_of) in 2.14.0+rocm7.*) ;; *) ts_fail "rocm $rocm $n GPUs ($gfx): $(torch_of)" ;; esac
  # both kinds in one machine: whichever build is chosen, nothing breaks
  install_dry "mixed $n+$n GPUs" --cuda-driver 580.65.06 --compute-capability "$cc" \
    --rocm "$rocm" --gfx "$gfx" || true
  # an old card among new ones: no cu130 kernels for 6.1, a cu126 build
  install_dry "cuda $n GPUs with a 6.1" --cuda-driver 580.65.06 \
    --compute-capability "6.1,$(take $((n > 1 ? n - 1 : 1)) 7.5 8.0 8.6 9.0)" || true
  case $(torch_of) in *+cu126 | "") ;; *) ts_fail "cuda $n GPUs with a 6.1: $(torch_of)" ;; esac
done

# every backend as a lock profile, alone and with 4 and 16 GPUs
for b in $backends; do
  v=$(lock_profile "profile $b" "$b") || ts_fail "profile $b: refused"
  kind=${b%%[0-9]*}
  case $v in *+"$kind"*) ;; *) ts_fail "profile $b locked torch $v" ;; esac
  for n in 4 16; do
    case $kind in
    cu) facts=cc=$(take "$n" 8.0 9.0 8.6 7.5) ;;
    rocm) facts=gfx=$(take "$n" gfx90a gfx1030 gfx908 gfx1100) ;;
    *) continue ;;
    esac
    v=$(lock_profile "profile $b:$facts" "$b:$facts") || continue
    case $v in *+"$kind"* | *+cpu) ;; *) ts_fail "profile $b:$facts locked torch $v" ;; esac
  done
done
echo "gpu_many: ok"
