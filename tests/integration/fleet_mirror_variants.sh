#!/usr/bin/env bash
# torchsolve mirror of a lock with PEP 825 variant wheels (issue 27): the
# releases' NAME-VERSION-variants.json files are mirrored and linked from
# the mirror's pages (whl/variant/ for torch, simple/ for a general
# project), so that with the origin stopped an install against the served
# mirror selects the same variants as against the origin.
. "$(dirname "$0")/lib.sh"
T=${TORCHSOLVE:?}
ts_variant_index_start
host=(--cuda-driver 570.86.10 --compute-capability 8.9) # an RTX 4090: cuda12.8, cu12
labels() { # the variant column of torch and nvlib in $work/out
  awk '$2 == "torch" || $2 == "nvlib" { print $2 $4 }' "$work/out" | sort | tr '\n' ' '
}
"$T" install --python "$work/venv" -i "$TS_NGINX_URL/simple" --torch-index-url "$TS_NGINX_URL/whl" \
  --dry-run "${host[@]}" torch nvlib >"$work/out" 2>"$work/err" || { cat "$work/err"; ts_fail "install from the origin"; }
want=$(labels)
[ "$want" = "nvlib[cu12] torch[cuda12.8] " ] || { cat "$work/out"; ts_fail "the origin's variants: $want"; }
"$T" lock --python "$work/venv" -i "$TS_NGINX_URL/simple" --torch-index-url "$TS_NGINX_URL/whl" \
  "${host[@]}" torch nvlib -o "$work/pylock.toml" 2>"$work/err" || { cat "$work/err"; ts_fail "lock"; }

M=$work/mirror
"$T" mirror "$work/pylock.toml" "$M" 2>"$work/err" || { cat "$work/err"; ts_fail "mirror"; }
cmp -s "$M/files/torch-2.10.0-variants.json" "$work/www/whl/variant/torch/torch-2.10.0-variants.json" ||
  ts_fail "the mirror has not the origin's torch-2.10.0-variants.json"
cmp -s "$M/files/nvlib-1.0-variants.json" "$work/www/simple/nvlib/nvlib-1.0-variants.json" ||
  ts_fail "the mirror has not the origin's nvlib-1.0-variants.json"
grep -q 'href="../../../files/torch-2.10.0-variants.json#sha256=' "$M/whl/variant/torch/index.html" ||
  { cat "$M/whl/variant/torch/index.html"; ts_fail "whl/variant/torch/ does not link the variants.json"; }
grep -q '"filename": "nvlib-1.0-variants.json"' "$M/simple/nvlib/index.json" ||
  { cat "$M/simple/nvlib/index.json"; ts_fail "simple/nvlib/index.json does not list the variants.json"; }

# the origin stopped, the mirror served: the same variants, from a fresh cache
ts_nginx_stop
ts_nginx_start "$M"
TORCHSOLVE_CACHE_DIR=$work/cache2 "$T" install --python "$work/venv" -i "$TS_NGINX_URL/simple" \
  --torch-index-url "$TS_NGINX_URL/whl" --dry-run "${host[@]}" torch nvlib >"$work/out" 2>"$work/err" ||
  { cat "$work/err"; ts_fail "install from the mirror"; }
got=$(labels)
[ "$got" = "$want" ] || { cat "$work/err" "$work/out"; ts_fail "from the mirror: $got, wanted $want"; }
! grep -q 'variant wheels but its page lists no' "$work/err" || { cat "$work/err"; ts_fail "variants skipped"; }
TORCHSOLVE_CACHE_DIR=$work/cache2 "$T" install --python "$work/venv" -i "$TS_NGINX_URL/simple" \
  --torch-index-url "$TS_NGINX_URL/whl" "${host[@]}" torch nvlib 2>"$work/err" ||
  { cat "$work/err"; ts_fail "install (not dry) from the mirror"; }
[ "$(cat "$work"/venv/lib/python*/site-packages/torch/build.txt)" = cuda12.8 ] ||
  ts_fail "the installed torch is not the cuda12.8 variant"
echo "fleet_mirror_variants: ok"
