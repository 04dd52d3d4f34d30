#!/usr/bin/env bash
# PEP 825 variant wheels on a page without {name}-{version}-variants.json
# (issue 24): each wheel's own *.dist-info/variant.json is read by range
# requests, as METADATA is from a wheel without PEP 658 metadata, and
# cached; a malformed one and one of a schema torchsolve does not read
# skip that wheel with a warning naming it.
. "$(dirname "$0")/lib.sh"
T=${TORCHSOLVE:?}
no_variants_json() { # wvlib's page must make each wheel's own variant.json the source
  ! grep -q 'variants.json' "$work/www/simple/wvlib/index.html"
}
ts_variant_index_start no_variants_json
plan() { # ARGS...: install --dry-run wvlib; the variant column of wvlib's line
  "$T" install --python "$work/venv" -i "$TS_NGINX_URL/simple" --dry-run "$@" wvlib \
    >"$work/out" 2>"$work/err" || { cat "$work/err" "$work/out"; ts_fail "install --dry-run $*"; }
  awk '$2 == "wvlib" { print $4 }' "$work/out"
}
ranges() { # the range requests into wvlib's variant wheels so far
  grep -c '^206 .*GET /simple/wvlib/wvlib-1.0-py3-none-any-[a-z0-9]*\.whl .*range="bytes=' \
    "$TS_NGINX_ACCESS_LOG" || true
}

got=$(plan --cuda-driver 570.86.10 --compute-capability 8.9)
[ "$got" = "[cu12]" ] || { cat "$work/err" "$work/out"; ts_fail "driver 570: wvlib $got, wanted [cu12]"; }
[ "$(ranges)" -ge 4 ] || { cat "$TS_NGINX_ACCESS_LOG"; ts_fail "no range request per variant wheel"; }
grep -E '^200 .*GET /simple/wvlib/wvlib-1.0-py3-none-any-cu1[23]\.whl ' "$TS_NGINX_ACCESS_LOG" &&
  ts_fail "a whole variant wheel was downloaded to read its variant.json"
grep -q 'wvlib-1.0-py3-none-any-broken.whl.*variant.json.*this variant wheel is skipped' "$work/err" ||
  { cat "$work/err"; ts_fail "the malformed variant.json is not named"; }
grep -q "wvlib-1.0-py3-none-any-future.whl.*v1.0.0.json is of a version torchsolve does not read.*skipped" \
  "$work/err" || { cat "$work/err"; ts_fail "the unknown schema is not named"; }
grep -q 'variant wvlib 1.0 \[cu12\]: .*cu13 rejected: ' "$work/err" ||
  { cat "$work/err"; ts_fail "no why for the label"; }

# the variant.json files are cached like METADATA: no range request again
before=$(ranges)
got=$(plan --cuda-driver 570.86.10 --compute-capability 8.9)
[ "$got" = "[cu12]" ] || { cat "$work/err" "$work/out"; ts_fail "again: wvlib $got, wanted [cu12]"; }
[ "$(ranges)" = "$before" ] || { cat "$TS_NGINX_ACCESS_LOG"; ts_fail "the cached variant.json was read again"; }
got=$(plan --cuda-driver 580.65.06 --compute-capability 9.0)
[ "$got" = "[cu13]" ] || { cat "$work/err" "$work/out"; ts_fail "driver 580: wvlib $got, wanted [cu13]"; }
got=$(plan --offline --cuda-driver 580.65.06 --compute-capability 9.0)
[ "$got" = "[cu13]" ] || { cat "$work/err" "$work/out"; ts_fail "--offline: wvlib $got, wanted [cu13]"; }
# no GPU: no variant fits, the plain wheel stays
got=$(plan)
[ "$got" = "-" ] || { cat "$work/err" "$work/out"; ts_fail "no GPU: wvlib $got, wanted the plain wheel"; }

# what gets installed is the chosen wheel
"$T" install --python "$work/venv" -i "$TS_NGINX_URL/simple" --cuda-driver 580.65.06 \
  --compute-capability 9.0 wvlib >"$work/out" 2>"$work/err" || { cat "$work/err"; ts_fail "install"; }
site=$("$PY" -c 'import sysconfig; print(sysconfig.get_paths()["platlib"])')
[ "$(cat "$site/wvlib/build.txt")" = cu13 ] || ts_fail "installed wvlib is $(cat "$site/wvlib/build.txt")"
echo "ok"
