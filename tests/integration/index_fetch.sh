#!/usr/bin/env bash
# Index client against nginx: PEP 691 JSON vs PEP 503 HTML negotiation, 304
# revalidation on a second run, --offline, --refresh, the dependency-confusion
# guard across two indexes, unsafe-best-match, routing to variant indexes,
# credentials (URL, ~/.netrc) never printed, proxies from the environment,
# find-links, file:// indexes, and the cache commands.
. "$(dirname "$0")/lib.sh"
T=${TORCHSOLVE:?}
work=$(ts_tmpdir)
python3 "$TS_SOURCE_DIR/tests/support/index_fixtures.py" "$work/www"
# /private/ is idx1 behind HTTP basic auth (user "tester", password "s3cr3t").
printf 'tester:%s\n' "$(openssl passwd -apr1 s3cr3t)" >"$work/htpasswd"
# (a symlink, not alias: nginx resolves a variable index against root)
ln -s idx1 "$work/www/private"
TS_NGINX_EXTRA_CONF="location /private/ { auth_basic private; auth_basic_user_file $work/htpasswd; }" \
  ts_nginx_start "$work/www"
U=$TS_NGINX_URL
export TORCHSOLVE_CACHE_DIR=$work/cache

# --- JSON and HTML give the same answer -------------------------------
"$T" index fetch alpha --index-url "$U/idx1/simple" --json --no-cache >"$work/json.out"
"$T" index fetch alpha --index-url "$U/htmlonly/simple" --json --no-cache >"$work/html.out"
python3 - "$work/json.out" "$work/html.out" "$work/www/MANIFEST.json" <<'PY'
import json, sys
j, h, m = (json.load(open(p)) for p in sys.argv[1:])
def strip(d):
    for p in d:
        p.pop("index")
        for f in p["files"]:
            f.pop("size", None)
    return d
fj, fh = j[0]["files"], h[0]["files"]
assert [f["filename"] for f in fj] == ["alpha-1.0-py3-none-any.whl", "alpha-2.0-py3-none-any.whl", "alpha-3.0-py3-none-any.whl"], fj
assert strip(j) == strip(h), (j, h)
for f in fj:
    e = m[f["filename"]]
    assert f["sha256"] == e["sha256"] and f["metadata_sha256"] == e["meta_sha"] and f["has_metadata"], f
    assert f["url"].endswith("/files/" + f["filename"]), f["url"]
assert fj[1]["requires_python"] == ">=3.8, <4", fj[1]
assert fj[2]["yanked"] == "broken <build> & more", fj[2]
assert fj[0]["yanked"] is False
print("json/html agree")
PY
grep -q 'GET /idx1/simple/alpha/ .*accept="application/vnd.pypi.simple.v1+json' "$TS_NGINX_ACCESS_LOG" ||
  ts_fail "the JSON Accept header was not sent"

# a yank without a reason is reported as true (PEP 691), not as "" (falsy)
mkdir -p "$work/www/noreason/simple/alpha"
printf '<a href="../../../files/alpha-1.0-py3-none-any.whl" data-yanked>alpha-1.0-py3-none-any.whl</a>\n' \
  >"$work/www/noreason/simple/alpha/index.html"
"$T" index fetch alpha --index-url "$U/noreason/simple" --json --no-cache >"$work/noreason.out"
python3 -c 'import json,sys; f=json.load(open(sys.argv[1]))[0]["files"][0]; assert f["yanked"] is True, f' "$work/noreason.out" ||
  ts_fail "a yank without a reason"
"$T" index fetch alpha --index-url "$U/noreason/simple" --no-cache | grep -q 'metadata=no yanked$' ||
  ts_fail "a yank without a reason (text)"

# --- 304 revalidation on the second run --------------------------------
mark=$(ts_nginx_log_mark)
"$T" index fetch alpha shared --index-url "$U/idx1/simple" >/dev/null
ts_nginx_log_since "$mark" | grep -c '^200 .*GET /idx1/simple/' | grep -qx 2 || ts_fail "first run: expected two 200s"
mark=$(ts_nginx_log_mark)
"$T" index fetch alpha shared --index-url "$U/idx1/simple" >"$work/second.out"
ts_nginx_log_since "$mark" >"$work/second.log"
grep -c '^304 0 .*GET /idx1/simple/' "$work/second.log" | grep -qx 2 || { cat "$work/second.log"; ts_fail "second run: expected two 304s"; }
grep -q '^200 ' "$work/second.log" && ts_fail "second run transferred a page again"
grep -q 'alpha: 3 files' "$work/second.out" || ts_fail "cached page not parsed"
# text output: each field separated, the yank reason quoted
grep -q '^  alpha-2.0-py3-none-any.whl sha256=[0-9a-f]* metadata=pep658+hash requires-python=>=3.8, <4$' "$work/second.out" ||
  { cat "$work/second.out"; ts_fail "requires-python in text output"; }
grep -q '^  alpha-3.0-py3-none-any.whl sha256=[0-9a-f]* metadata=pep658+hash yanked="broken <build> & more"$' "$work/second.out" ||
  { cat "$work/second.out"; ts_fail "yank reason in text output"; }

# --- --offline answers from the cache, names what is missing -----------
mark=$(ts_nginx_log_mark)
"$T" index fetch alpha --index-url "$U/idx1/simple" --offline >/dev/null || ts_fail "--offline failed with a warm cache"
set +e
"$T" index fetch beta --index-url "$U/idx1/simple" --offline 2>"$work/offline.err"
rc=$?
set -e
[ "$rc" = 3 ] || ts_fail "--offline miss: exit $rc, expected 3"
grep -q "/idx1/simple/beta/ is not in the cache (--offline)" "$work/offline.err" || { cat "$work/offline.err"; ts_fail "offline miss not named"; }
[ "$(ts_nginx_log_since "$mark" | wc -l)" = 0 ] || ts_fail "--offline made requests"

# --- --refresh revalidates fresh entries -------------------------------
mark=$(ts_nginx_log_mark)
"$T" index fetch alpha --index-url "$U/idx1/simple" --refresh >/dev/null
ts_nginx_log_since "$mark" | grep -q '^304 ' || ts_fail "--refresh did not revalidate"

# --- each entry keeps its page parsed (index/parsed_page.h) ---------------
# A warm run reads the stored parse; a damaged one, or an entry of the first
# format (no parse), is parsed again from the body with the same answer, and
# rewritten with a good parse unless the cache is read-only (--offline).
# Entries live in packs (index/cache_pack.h): cache_pack.py copies alpha's
# live page entry out to $entry and puts an edited one back.
pack() { python3 "$(dirname "$0")/cache_pack.py" "$@"; }
entry=$work/alpha.entry
pack get "$TORCHSOLVE_CACHE_DIR" alpha "$entry" || ts_fail "no page entry for alpha"
[ "$(head -c 9 "$entry")" = "TSCACHE2 " ] || ts_fail "page entry without a stored parse"
fetch_alpha() { "$T" index fetch alpha --index-url "$U/idx1/simple" --json "$@"; }
fetch_alpha --offline >"$work/form.out"
# a run answered from the cache never loads libcurl (index/curl_lib.h)
LD_DEBUG=libs fetch_alpha --offline 2>&1 >/dev/null | grep -q 'libcurl' &&
  ts_fail "libcurl was loaded by a run that made no request"
form_version() {
  pack get "$TORCHSOLVE_CACHE_DIR" alpha "$entry"
  python3 -c 'import sys; d=open(sys.argv[1],"rb").read(); print(d[d.index(b"TSPF")+4])' "$entry"
}
python3 - "$entry" <<'PY'
import sys
d = bytearray(open(sys.argv[1], "rb").read())
d[d.index(b"TSPF") + 4] ^= 0x40          # another version's parse
open(sys.argv[1], "wb").write(d)
PY
pack put "$TORCHSOLVE_CACHE_DIR" alpha "$entry"
fetch_alpha --offline >"$work/damaged.out"
cmp -s "$work/form.out" "$work/damaged.out" || ts_fail "a damaged stored parse changed the answer"
[ "$(form_version)" = 65 ] || ts_fail "--offline rewrote the cache"
fetch_alpha >/dev/null
[ "$(form_version)" = 1 ] || ts_fail "a damaged stored parse was not rewritten"
python3 - "$entry" <<'PY'
import sys
d = open(sys.argv[1], "rb").read()
nl = d.index(b"\n")
_, meta, parsed = d[:nl].split(b" ")
start = nl + 1 + int(meta)
open(sys.argv[1], "wb").write(b"TSCACHE1 " + meta + b"\n" + d[nl + 1:start] + d[start + int(parsed):])
PY
pack put "$TORCHSOLVE_CACHE_DIR" alpha "$entry"
fetch_alpha --offline >"$work/v1.out"
cmp -s "$work/form.out" "$work/v1.out" || ts_fail "a first-format entry changed the answer"
fetch_alpha >/dev/null
pack get "$TORCHSOLVE_CACHE_DIR" alpha "$entry"
[ "$(head -c 9 "$entry")" = "TSCACHE2 " ] || ts_fail "a first-format entry was not rewritten"
# a pack whose index does not check out is ignored as a whole: refetched
for f in "$TORCHSOLVE_CACHE_DIR"/packs-v1/*.pack; do printf 'X' | dd of="$f" bs=1 seek=$(($(stat -c %s "$f") - 1)) conv=notrunc 2>/dev/null; done
mark=$(ts_nginx_log_mark)
fetch_alpha >"$work/rebuilt.out"
cmp -s "$work/form.out" "$work/rebuilt.out" || ts_fail "a damaged pack changed the answer"
ts_nginx_log_since "$mark" | grep -q 'GET /idx1/simple/alpha/' || ts_fail "a damaged pack was trusted"
"$T" index fetch shared --index-url "$U/idx1/simple" >/dev/null # (its entry was in those packs)

# --- dependency-confusion guard ----------------------------------------
mark=$(ts_nginx_log_mark)
"$T" index fetch shared beta --index-url "$U/idx1/simple" --extra-index-url "$U/idx2/simple" --no-cache >"$work/guard.out"
grep -q '^shared: 1 files from .*/idx1/simple$' "$work/guard.out" || { cat "$work/guard.out"; ts_fail "shared not taken from the first index"; }
grep -q 'shared-99.0' "$work/guard.out" && ts_fail "the second index's 'shared' leaked in"
grep -q '^beta: 1 files from .*/idx2/simple$' "$work/guard.out" || ts_fail "beta not found on the extra index"
ts_nginx_log_since "$mark" | grep -q 'GET /idx2/simple/shared/' && ts_fail "the extra index was asked for 'shared'"
"$T" index fetch shared --index-url "$U/idx1/simple" --extra-index-url "$U/idx2/simple" \
  --index-strategy unsafe-best-match --no-cache >"$work/merge.out"
grep -q '^shared: 2 files' "$work/merge.out" || { cat "$work/merge.out"; ts_fail "unsafe-best-match did not merge"; }

# --- routing to a variant index ----------------------------------------
"$T" index fetch beta --index-url "$U/idx1/simple" --torch-index-url "$U" --torch-variant idx2/simple \
  --torch-project beta --no-cache >"$work/route.out"
grep -q '^beta: 1 files from .*/idx2/simple$' "$work/route.out" || { cat "$work/route.out"; ts_fail "routing failed"; }

# --- not found, and credentials never printed --------------------------
set +e
"$T" index fetch nosuch --index-url "http://user:s3cr3t@127.0.0.1:$TS_NGINX_PORT/idx1/simple" --no-cache 2>"$work/nf.err"
rc=$?
set -e
[ "$rc" = 1 ] || ts_fail "not found: exit $rc"
grep -q "project 'nosuch' not found on http://\*\*\*@127.0.0.1" "$work/nf.err" || { cat "$work/nf.err"; ts_fail "bad not-found message"; }
grep -q s3cr3t "$work/nf.err" && ts_fail "password printed"

# --- credentials: URL userinfo, ~/.netrc, and a 401 that names no secret
"$T" index fetch alpha --index-url "http://tester:s3cr3t@127.0.0.1:$TS_NGINX_PORT/private/simple" --no-cache 2>"$work/auth.err" |
  grep -q '^alpha: 3 files from http://\*\*\*@127.0.0.1' || { cat "$work/auth.err"; ts_fail "userinfo credentials"; }
printf 'machine 127.0.0.1\nlogin tester\npassword s3cr3t\n' >"$work/.netrc"
chmod 600 "$work/.netrc"
HOME=$work "$T" index fetch alpha --index-url "$U/private/simple" --no-cache | grep -q '^alpha: 3 files' ||
  ts_fail "~/.netrc credentials"
set +e
"$T" index fetch alpha --index-url "http://tester:wrong-pw@127.0.0.1:$TS_NGINX_PORT/private/simple" --no-cache 2>"$work/401.err"
rc=$?
set -e
[ "$rc" = 3 ] || ts_fail "401: exit $rc"
grep -q "^error: the index http://\*\*\*@127.0.0.1:$TS_NGINX_PORT/private/simple answers HTTP 401 for 'alpha'; check the credentials" "$work/401.err" ||
  { cat "$work/401.err"; ts_fail "401 message"; }
grep -q wrong-pw "$work/401.err" && ts_fail "password printed"

# --- proxies come from the environment (libcurl) ------------------------
set +e
http_proxy=http://127.0.0.1:9 "$T" index fetch alpha --index-url "$U/idx1/simple" --no-cache --retries 0 2>"$work/proxy.err" >/dev/null
rc=$?
set -e
[ "$rc" = 3 ] || { cat "$work/proxy.err"; ts_fail "http_proxy was not used (exit $rc)"; }
http_proxy=http://127.0.0.1:9 no_proxy=127.0.0.1 "$T" index fetch alpha --index-url "$U/idx1/simple" --no-cache |
  grep -q '^alpha: 3 files' || ts_fail "no_proxy was not honoured"
# HTTP_PROXY too (libcurl alone reads only http_proxy for http URLs), with NO_PROXY
set +e
env -u http_proxy HTTP_PROXY=http://127.0.0.1:9 "$T" index fetch alpha --index-url "$U/idx1/simple" --no-cache --retries 0 2>"$work/proxy.err" >/dev/null
rc=$?
set -e
[ "$rc" = 3 ] || { cat "$work/proxy.err"; ts_fail "HTTP_PROXY was not used (exit $rc)"; }
env -u http_proxy -u no_proxy HTTP_PROXY=http://127.0.0.1:9 NO_PROXY=127.0.0.1 "$T" index fetch alpha --index-url "$U/idx1/simple" --no-cache |
  grep -q '^alpha: 3 files' || ts_fail "NO_PROXY was not honoured with HTTP_PROXY"

# --- find-links: local directory and flat page --------------------------
"$T" index fetch gamma --no-index --find-links "$work/www/files" --no-cache >"$work/fl.out"
grep -q '^gamma: 2 files' "$work/fl.out" || { cat "$work/fl.out"; ts_fail "find-links dir"; }
"$T" index fetch gamma alpha --no-index --find-links "$U/flat/links.html" --no-cache >"$work/fl2.out"
grep -q '^gamma: 2 files' "$work/fl2.out" && grep -q '^alpha: 3 files' "$work/fl2.out" || { cat "$work/fl2.out"; ts_fail "find-links page"; }
grep -q "gamma-1.0-py3-none-any.whl sha256=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["gamma-1.0-py3-none-any.whl"]["sha256"])' "$work/www/MANIFEST.json")" "$work/fl2.out" ||
  ts_fail "find-links page hashes"
# a flat page fetched over HTTP is cached like index pages: --offline uses
# it, and one never fetched is named
"$T" index fetch gamma --no-index --find-links "$U/flat/links.html" >/dev/null
"$T" index fetch gamma --no-index --find-links "$U/flat/links.html" --offline >"$work/fl4.out" ||
  ts_fail "find-links page not answered from the cache with --offline"
grep -q '^gamma: 2 files' "$work/fl4.out" || { cat "$work/fl4.out"; ts_fail "find-links page from the cache"; }
set +e
"$T" index fetch gamma --no-index --find-links "$U/flat/other.html" --offline 2>"$work/fl5.err"
rc=$?
set -e
[ "$rc" != 0 ] && grep -q -- "--find-links $U/flat/other.html: the page is not in the cache (--offline)" "$work/fl5.err" ||
  { cat "$work/fl5.err"; ts_fail "uncached find-links page with --offline"; }
# find-links are merged with the index's files (distinct URLs: 2 + 2)
"$T" index fetch gamma --index-url "$U/nometa/simple" --find-links "$work/www/files" --no-cache >"$work/fl3.out"
grep -q '^gamma: 4 files' "$work/fl3.out" || { cat "$work/fl3.out"; ts_fail "find-links not merged"; }
# --- file:// index -----------------------------------------------------
"$T" index fetch alpha --index-url "file://$work/www/idx1/simple" --no-cache >"$work/file.out"
grep -q '^alpha: 3 files' "$work/file.out" || { cat "$work/file.out"; ts_fail "file:// index"; }

# --- cache commands ----------------------------------------------------
[ "$("$T" cache dir)" = "$TORCHSOLVE_CACHE_DIR" ] || ts_fail "cache dir"
"$T" cache size | grep -q '^[1-9][0-9]* bytes in [1-9]' || ts_fail "cache size"
"$T" cache clean alpha
pack get "$TORCHSOLVE_CACHE_DIR" alpha "$work/x" && ts_fail "cache clean alpha"
pack get "$TORCHSOLVE_CACHE_DIR" shared "$work/x" || ts_fail "cache clean alpha removed shared"
"$T" -q cache clean
[ -e "$TORCHSOLVE_CACHE_DIR/packs-v1" ] && ts_fail "cache clean"
echo "index_fetch: all checks passed"
