#!/usr/bin/env bash
# --client-cert: nginx on 127.0.0.1 asks for a client certificate
# (ssl_verify_client on) signed by a CA made here with openssl.  Without
# --client-cert the fetch fails naming the URL; with a certificate of
# another CA too; with the right one (certificate and key
# in one PEM file, as pip's --client-cert takes it) pages and wheels come
# through (index fetch, download); pip's spelling through 'torchsolve pip'
# as well.
. "$(dirname "$0")/lib.sh"
T=${TORCHSOLVE:?}
command -v openssl >/dev/null || ts_skip "openssl not installed"
work=$(ts_tmpdir)
python3 "$TS_SOURCE_DIR/tests/support/index_fixtures.py" "$work/www"
cd "$work"
ts_tls_ca ca
ts_tls_ca other
ts_tls_signed srv ca 127.0.0.1 serverAuth
ts_tls_signed client ca "torchsolve client" clientAuth
ts_tls_signed stranger other "someone else" clientAuth
cat client.pem client.key >client-bundle.pem
cat stranger.pem stranger.key >stranger-bundle.pem
TS_NGINX_TLS_CERT=$work/srv.pem TS_NGINX_TLS_KEY=$work/srv.key \
  TS_NGINX_EXTRA_CONF="ssl_client_certificate $work/ca.pem; ssl_verify_client on;" \
  ts_nginx_start "$work/www"
U=$TS_NGINX_URL
export TORCHSOLVE_CACHE_DIR=$work/cache
unset SSL_CERT_FILE SSL_CERT_DIR CURL_CA_BUNDLE
ts_clear_pip_env

fetch() { "$T" index fetch alpha --index-url "$U/idx1/simple" --cert "$work/ca.pem" --retries 0 --no-cache "$@"; }
for who in none stranger; do
  set +e
  if [ $who = none ]; then fetch >/dev/null 2>"$work/err"; else
    fetch --client-cert "$work/stranger-bundle.pem" >/dev/null 2>"$work/err"; fi
  rc=$?
  set -e
  [ $rc != 0 ] || ts_fail "$who: the index answered without the right client certificate"
  grep -q "$U/idx1/simple/alpha/" "$work/err" || ts_fail "$who: the failing URL is not named: $(cat "$work/err")"
done
grep -q '400' "$work/err" || grep -qi 'TLS' "$work/err" || ts_fail "stranger: $(cat "$work/err")"

fetch --client-cert "$work/client-bundle.pem" | grep -q '^alpha: 3 files' ||
  ts_fail "--client-cert did not let the fetch through"
mark=$(ts_nginx_log_mark)
"$T" download -q -d "$work/dl" -i "$U/idx1/simple" --cert "$work/ca.pem" \
  --client-cert "$work/client-bundle.pem" --no-deps alpha 2>"$work/err" ||
  { cat "$work/err"; ts_fail "download with --client-cert"; }
ls "$work"/dl/alpha-*.whl >/dev/null || ts_fail "no wheel downloaded"
ts_nginx_log_since "$mark" | grep -q '^200 .*"GET /.*alpha-.*\.whl' ||
  ts_fail "the wheel did not come through the client-verified server: $(ts_nginx_log_since "$mark")"
"$T" pip download -q -d "$work/dl2" --index-url "$U/idx1/simple" --cert "$work/ca.pem" \
  --client-cert "$work/client-bundle.pem" --no-deps alpha 2>"$work/err" ||
  { cat "$work/err"; ts_fail "torchsolve pip download --client-cert"; }
ls "$work"/dl2/alpha-*.whl >/dev/null || ts_fail "pip spelling: no wheel downloaded"
echo OK
