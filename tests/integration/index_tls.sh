#!/usr/bin/env bash
# TLS: nginx serves https with a certificate from a CA made here with openssl.
# Without that CA the fetch fails with a TLS error (exit 3); --cert CA,
# SSL_CERT_FILE=CA and --trusted-host HOST:PORT make it pass.  HTTP/2 is used.
. "$(dirname "$0")/lib.sh"
T=${TORCHSOLVE:?}
command -v openssl >/dev/null || ts_skip "openssl not installed"
work=$(ts_tmpdir)
python3 "$TS_SOURCE_DIR/tests/support/index_fixtures.py" "$work/www"
cd "$work"
openssl req -x509 -newkey rsa:2048 -nodes -days 2 -subj "/CN=torchsolve test CA" \
  -keyout ca.key -out ca.pem -addext "basicConstraints=critical,CA:TRUE" \
  -addext "keyUsage=critical,keyCertSign,cRLSign" 2>/dev/null
openssl req -newkey rsa:2048 -nodes -subj "/CN=127.0.0.1" -keyout srv.key -out srv.csr 2>/dev/null
printf 'subjectAltName=IP:127.0.0.1,DNS:localhost\nbasicConstraints=CA:FALSE\nextendedKeyUsage=serverAuth\n' >ext.cnf
openssl x509 -req -in srv.csr -CA ca.pem -CAkey ca.key -CAcreateserial -days 2 -extfile ext.cnf -out srv.pem 2>/dev/null
TS_NGINX_TLS_CERT=$work/srv.pem TS_NGINX_TLS_KEY=$work/srv.key ts_nginx_start "$work/www"
U=$TS_NGINX_URL
case $U in https://*) ;; *) ts_fail "nginx is not serving https" ;; esac
export TORCHSOLVE_CACHE_DIR=$work/cache
unset SSL_CERT_FILE SSL_CERT_DIR CURL_CA_BUNDLE

set +e
"$T" index fetch alpha --index-url "$U/idx1/simple" --retries 0 >/dev/null 2>"$work/err"
rc=$?
set -e
[ "$rc" = 3 ] || { cat "$work/err"; ts_fail "untrusted CA: exit $rc, expected 3"; }
grep -q "^error: $U/idx1/simple/alpha/: TLS: " "$work/err" || { cat "$work/err"; ts_fail "TLS error message"; }
grep -q -- '--cert' "$work/err" || ts_fail "the hint does not mention --cert"
[ -z "$(find "$TORCHSOLVE_CACHE_DIR" -type f ! -name CACHEDIR.TAG 2>/dev/null)" ] || ts_fail "cached after a TLS failure"

"$T" index fetch alpha --index-url "$U/idx1/simple" --cert "$work/ca.pem" --no-cache | grep -q '^alpha: 3 files' ||
  ts_fail "--cert CA did not work"
# a --cert file that is not there is a usage error at once, even for http
rc=0; "$T" install --dry-run --cert "$work/missing.pem" -i "http://127.0.0.1:1/simple" alpha \
  2>"$work/err" || rc=$?
[ $rc = 2 ] || ts_fail "missing --cert file: exit $rc, want 2"
grep -q "missing.pem" "$work/err" || ts_fail "missing --cert file not named: $(cat "$work/err")"
SSL_CERT_FILE=$work/ca.pem "$T" index fetch alpha --index-url "$U/idx1/simple" --no-cache | grep -q '^alpha: 3 files' ||
  ts_fail "SSL_CERT_FILE did not work"
"$T" index fetch alpha --index-url "$U/idx1/simple" --trusted-host "127.0.0.1:$TS_NGINX_PORT" --no-cache |
  grep -q '^alpha: 3 files' || ts_fail "--trusted-host did not work"
# HTTP/2 is used where offered (nginx offers it over TLS)
mark=$(ts_nginx_log_mark)
"$T" index fetch alpha shared --index-url "$U/idx1/simple" --cert "$work/ca.pem" --no-cache >/dev/null
ts_nginx_log_since "$mark" | grep -q 'GET /idx1/simple/alpha/ HTTP/2.0' || { ts_nginx_log_since "$mark"; ts_fail "HTTP/2 not used"; }
# range requests and PEP 658 over TLS too
w=gamma-1.0-py3-none-any.whl
"$T" index metadata "$U/files/$w" --cert "$work/ca.pem" 2>"$work/m.err" | grep -q '^Name: gamma' || ts_fail "metadata over TLS"
grep -q 'source: range' "$work/m.err" || ts_fail "metadata over TLS: not ranged"
echo "index_tls: all checks passed"
