#!/usr/bin/env bash
# A project the index does not have: its 404 is remembered for ten minutes
# (a second run asks the server nothing, --refresh asks again), and a
# misspelt name gets "did you mean NAME?" from the names the index root
# lists (PEP 503 HTML, PEP 691 JSON), without a request per candidate.
. "$(dirname "$0")/lib.sh"
T=${TORCHSOLVE:?}
command -v python3 >/dev/null || ts_skip "no python3"
work=$(ts_tmpdir)
export TORCHSOLVE_CACHE_DIR=$work/cache
ts_index_from_spec <<'SPEC'
simple requests 2.0 py3-none-any
simple numpy 1.0 py3-none-any
simple gpytorch 1.0 py3-none-any
SPEC
U=$TS_NGINX_URL/simple
"$T" venv -q "$work/v"
install() { "$T" install --dry-run --python "$work/v" -i "$U" "$@"; }

# --- the 404 of a missing project is cached briefly -------------------------
mark=$(ts_nginx_log_mark)
rc=0; install nosuchproject >"$work/out" 2>"$work/err" || rc=$?
[ $rc = 1 ] || { cat "$work/err"; ts_fail "a missing project: exit $rc, want 1"; }
ts_nginx_log_since "$mark" | grep -q '^404 .*GET /simple/nosuchproject/' ||
  ts_fail "the first run did not ask the server"
! grep -q remembered "$work/err" || ts_fail "a 404 just asked for called remembered"
mark=$(ts_nginx_log_mark)
rc=0; install nosuchproject >"$work/out" 2>"$work/err" || rc=$?
[ $rc = 1 ] || { cat "$work/err"; ts_fail "a cached 404: exit $rc, want 1"; }
grep -q "nosuchproject" "$work/err" || { cat "$work/err"; ts_fail "the cached 404 does not name the project"; }
grep -q "(the index's 404 from an earlier run, remembered for up to 10 minutes: --refresh asks again)" \
  "$work/err" || { cat "$work/err"; ts_fail "the remembered 404 is not explained"; }
! ts_nginx_log_since "$mark" | grep -q '/simple/nosuchproject/' ||
  ts_fail "the second run asked the server again for a 404 it has just seen"
mark=$(ts_nginx_log_mark)
install --refresh nosuchproject >/dev/null 2>&1 && ts_fail "--refresh found a missing project"
ts_nginx_log_since "$mark" | grep -q '^404 .*GET /simple/nosuchproject/' ||
  ts_fail "--refresh did not ask the server again"
# the page appears: --refresh sees it at once
mkdir -p "$work/www/simple/nosuchproject"
cp "$work/www/simple/numpy/index.html" "$work/www/simple/nosuchproject/index.html"
rc=0; install nosuchproject >/dev/null 2>"$work/err" || rc=$?
[ $rc = 1 ] || ts_fail "a fresh cached 404 was not used (exit $rc)"
install --refresh nosuchproject >/dev/null 2>"$work/err" &&
  ts_fail "a page of other files installed as nosuchproject"
grep -q "lists no file of nosuchproject" "$work/err" ||
  { cat "$work/err"; ts_fail "--refresh did not read the page that appeared"; }

# --- did you mean: from the names the index root lists --------------------------
mark=$(ts_nginx_log_mark)
rc=0; install reqests >/dev/null 2>"$work/err" || rc=$?
[ $rc = 1 ] || { cat "$work/err"; ts_fail "a misspelt project: exit $rc, want 1"; }
grep -q "project 'reqests' not found on .*(did you mean 'requests'?)" "$work/err" ||
  { cat "$work/err"; ts_fail "no 'did you mean' for a misspelt project"; }
[ "$(ts_nginx_log_since "$mark" | grep -c '"GET /simple/ ')" = 1 ] ||
  { ts_nginx_log_since "$mark"; ts_fail "the index root was not read exactly once"; }
! ts_nginx_log_since "$mark" | grep -q 'GET /simple/requests/' ||
  ts_fail "a candidate's page was requested"
# a swap of two letters, on a file:// index
rc=0; "$T" install --dry-run --python "$work/v" -i "file://$work/www/simple" nmupy \
  >/dev/null 2>"$work/err" || rc=$?
grep -q "did you mean 'numpy'?" "$work/err" || { cat "$work/err"; ts_fail "no hint on a file:// index"; }
# PEP 691 JSON root: projects[].name
cat >"$work/www/simple/index.json" <<'JSON'
{"meta": {"api-version": "1.0"}, "projects": [{"name": "Pillow"}, {"name": "numpy"}]}
JSON
install --refresh pilow >/dev/null 2>"$work/err" && ts_fail "pilow installed"
grep -q "did you mean 'pillow'?" "$work/err" || { cat "$work/err"; ts_fail "no hint from a PEP 691 root"; }
# a known other name before a name spelt alike: pytorch is torch, not gpytorch
install pytorch >/dev/null 2>"$work/err" && ts_fail "pytorch installed"
grep -q "project 'pytorch' not found on .*(did you mean 'torch'?)" "$work/err" ||
  { cat "$work/err"; ts_fail "pytorch does not suggest torch"; }
install sklearn >/dev/null 2>"$work/err" && ts_fail "sklearn installed"
grep -q "did you mean 'scikit-learn'?" "$work/err" || { cat "$work/err"; ts_fail "sklearn"; }
# nothing near: no hint
install zzzzzz >/dev/null 2>"$work/err" && ts_fail "zzzzzz installed"
! grep -q "did you mean" "$work/err" || { cat "$work/err"; ts_fail "a hint for a name nothing is near"; }
echo ok
