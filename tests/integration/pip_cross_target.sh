#!/usr/bin/env bash
# pip's cross-target recipe in 'torchsolve pip' (the AWS Lambda layer):
#   pip install --platform manylinux2014_x86_64 --target=package \
#     --implementation cp --python-version 3.12 --only-binary=:all: requests
# installs the wheels for that interpreter, whatever python this machine
# has, into the --target tree; without --only-binary=:all: or --no-deps,
# or without --target (and no --dry-run), it is pip's refusal in pip's
# words, exit 2; --abi names the ABI of --python-version or is refused.
. "$(dirname "$0")/lib.sh"
T=${TORCHSOLVE:?}
work=$(ts_tmpdir)
command -v python3 >/dev/null || ts_skip "no python3"
ml=manylinux_2_17_x86_64.manylinux2014_x86_64
ts_index_from_spec <<SPEC
simple requests 2.32.3 py3-none-any charset-normalizer>=3;; urllib3>=2
simple urllib3 2.2.0 py3-none-any
simple urllib3 2.3.0 sdist
simple charset-normalizer 3.4.0 cp312-cp312-$ml
simple charset-normalizer 3.4.0 cp39-cp39-$ml
simple charset-normalizer 3.4.0 cp312-cp312-manylinux_2_28_aarch64
simple charset-normalizer 3.4.1 sdist
SPEC
ts_clear_pip_env
ts_isolate_from_host
export TORCHSOLVE_CACHE_DIR=$work/cache PIP_CONFIG_FILE=/dev/null
cd "$work"
U=$TS_NGINX_URL/simple

run() { # WANT ARGS...: torchsolve pip ARGS, exit WANT; stderr in $work/err
  local want=$1 rc=0; shift
  "$T" pip "$@" >"$work/out" 2>"$work/err" || rc=$?
  [ "$rc" = "$want" ] || ts_fail "pip $*: exit $rc, want $want: $(cat "$work/err")"
}

run 0 install --platform manylinux2014_x86_64 --target=package --implementation cp \
  --python-version 3.12 --only-binary=:all: -i "$U" requests
for d in requests-2.32.3 urllib3-2.2.0 charset_normalizer-3.4.0; do
  [ -d "package/$d.dist-info" ] || ts_fail "package/ lacks $d: $(ls package)"
done
grep -q "^Tag: cp312-cp312-manylinux_2_17_x86_64" package/charset_normalizer-3.4.0.dist-info/WHEEL ||
  ts_fail "not the cp312 x86_64 wheel: $(cat package/charset_normalizer-3.4.0.dist-info/WHEEL)"
[ -f package/charset_normalizer/__init__.py ] || ts_fail "the package itself is missing"

# pip's spellings: --python-version 312, --abi cp312, -t DIR; --no-deps.
run 0 install -t pkg2 --platform manylinux2014_x86_64 --python-version 312 --abi cp312 \
  --only-binary :all: -i "$U" charset-normalizer
[ -d pkg2/charset_normalizer-3.4.0.dist-info ] || ts_fail "--abi cp312: $(ls pkg2)"
run 0 install -t pkg3 --python-version 3.12 --platform manylinux2014_x86_64 --no-deps \
  -i "$U" requests
[ -d pkg3/requests-2.32.3.dist-info ] && [ ! -e pkg3/urllib3-2.2.0.dist-info ] ||
  ts_fail "--no-deps: $(ls pkg3)"

# pip's refusals, in pip's words.
run 2 install --target=p4 --platform manylinux2014_x86_64 --python-version 3.12 -i "$U" requests
grep -q "When restricting platform and interpreter constraints using --python-version, --platform, --abi, or --implementation, either --no-deps must be set, or --only-binary=:all: must be set and --no-binary must not be set (or must be set to :none:)." \
  "$work/err" || ts_fail "no --only-binary: $(cat "$work/err")"
run 2 install --target=p4 --implementation cp --only-binary=:all: --no-binary requests -i "$U" requests
grep -q "When restricting platform" "$work/err" || ts_fail "--no-binary: $(cat "$work/err")"
run 2 install --python-version 3.12 --only-binary=:all: -i "$U" requests
grep -q "Can not use any platform or abi specific options unless installing via '--target' or using '--dry-run'" \
  "$work/err" || ts_fail "no --target: $(cat "$work/err")"
run 2 install -t p5 --python-version 3.12 --abi cp311 --only-binary=:all: -i "$U" requests
grep -q -- "--abi 'cp311'" "$work/err" || ts_fail "--abi cp311 for 3.12: $(cat "$work/err")"
[ ! -e p4 ] && [ ! -e p5 ] || ts_fail "a refused install made its --target"
run 0 download -d dl --python-version 3.12 --platform manylinux2014_x86_64 \
  --only-binary=:all: -i "$U" charset-normalizer
ls dl | grep -q "charset_normalizer-3.4.0-cp312-cp312-$ml.whl" || ts_fail "download: $(ls dl)"
echo "ok: pip cross-target recipe"
