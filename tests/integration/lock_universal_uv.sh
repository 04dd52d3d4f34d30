#!/usr/bin/env bash
# uv's universal lock scenarios (../shared/conformance/uv/universal-expected.json)
# through `torchsolve lock --universal` against one nginx index per scenario:
# for every environment of the grid, the packages a PEP 751 installer takes
# from our lock must be the ones uv's lock installs (lock_universal_uv.py
# says how each side is read, and argues the differences we keep).
# Prints "N passed, N failed"; fails when any scenario fails (an
# unsatisfiable one must fail in the resolver, a satisfiable one be compared
# in some environment) and when the data holds fewer than MIN_SCENARIOS
# (the 50 these checks were written for: one dropped from the data).
. "$(dirname "$0")/lib.sh"
MIN_SCENARIOS=50
T=${TORCHSOLVE:?}
CONF=${TS_SHARED_DIR:-}/conformance
[ -f "$CONF/uv/universal-expected.json" ] || ts_skip "no $CONF/uv/universal-expected.json"
python3 -c 'import tomllib, pip._vendor.packaging.markers' 2>/dev/null ||
  ts_skip "python3 lacks tomllib or pip's packaging"
ts_isolate_from_host
work=$(ts_tmpdir)
export XDG_CONFIG_HOME=$work/config TORCHSOLVE_CACHE_DIR=$work/cache
runner=$(dirname "$0")/lock_universal_uv.py
python3 "$runner" build "$work/www" "$CONF" || ts_fail "building the indexes"
ts_nginx_start "$work/www"
python3 "$runner" check "$work/www" "$TS_NGINX_URL" "$CONF" "$T" "$MIN_SCENARIOS"
