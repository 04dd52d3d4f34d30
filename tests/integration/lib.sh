# tests/integration/lib.sh — the shared harness for integration tests.
# Source it from a test script:   . "$(dirname "$0")/lib.sh"
#
# Provides:
#   ts_skip MSG              print "SKIP: MSG" and exit 77 (ctest: skipped)
#   ts_fail MSG              print "FAIL: MSG" and exit 1
#   ts_tmpdir                print a fresh temporary directory, removed on exit
#   ts_on_exit CMD...        run CMD at exit (cleanups run in reverse order)
#   ts_clear_pip_env         unset every PIP_* variable of this shell (this
#                            machine sets PIP_FIND_LINKS and PIP_CERT; a test
#                            comparing with pip must not inherit them)
#   ts_isolate_from_host     unset the host's TORCHSOLVE_* (but TORCHSOLVE),
#                            ROCm and VIRTUAL_ENV variables; use the tree's
#                            rules.yaml and an empty XDG_DATA_HOME (no rules
#                            from `rules update`)
#   ts_make_venv DIR         python3 -m venv --without-pip DIR, with every
#                            PIP_* variable cleared from this shell
#   ts_managed_python DIR    a "system" interpreter its distribution manages
#                            (PEP 668), made in DIR: python3's binary copied
#                            to DIR/bin/python3, DIR/lib/pythonX.Y linking the
#                            real stdlib plus an EXTERNALLY-MANAGED file whose
#                            Error= is "Managed by the test distribution.";
#                            sets TS_MANAGED_PY (the interpreter),
#                            TS_MANAGED_SITE (its purelib, created, empty) and
#                            TS_MANAGED_MARKER (the file); skips the test
#                            when no stand-alone interpreter can be built
#   ts_nginx_start ROOT      nginx on a free 127.0.0.1 port serving ROOT:
#       - a directory URL serves index.json (Content-Type
#         application/vnd.pypi.simple.v1+json) when the Accept header asks
#         for application/vnd.pypi.simple.v1+json and the file exists, else
#         index.html (PEP 691 negotiation; always sends Vary: Accept);
#         without an index file, nginx's autoindex listing;
#       - range requests, ETag and Last-Modified (nginx defaults for static
#         files), so 206 and 304 answers come for free;
#       - sets TS_NGINX_URL=http(s)://127.0.0.1:PORT (no trailing slash),
#         TS_NGINX_PORT, TS_NGINX_ACCESS_LOG, TS_NGINX_ERROR_LOG, TS_NGINX_DIR;
#       - access log lines: STATUS BYTES "REQUEST LINE" range="RANGE"
#         accept="ACCEPT" (BYTES = body bytes sent; 304s log 0)
#     Optional environment read by ts_nginx_start:
#       TS_NGINX_TLS_CERT / TS_NGINX_TLS_KEY  serve https (HTTP/2 offered
#                                with ALPN) with this pair
#       TS_NGINX_PAGE_MAXAGE=N   send Cache-Control: max-age=N on index pages
#                                (default: no Cache-Control, so clients revalidate)
#       TS_NGINX_EXTRA_CONF      extra directives inside the server block
#       TS_NGINX_LOG_EXTRA       appended to each access-log line, e.g.
#                                ' conn=$connection' (single-quoted)
#                                (e.g. locations; they inherit root/index;
#                                prefer a symlink under ROOT to "alias",
#                                with which nginx misresolves the index)
#     Stopped by ts_nginx_stop, and automatically at exit. One server per
#     script: call ts_nginx_stop before starting another.
#   ts_index_from_spec [ROOT]  the opening of a test that serves a local
#                            index: install_mkindex.py's spec lines on stdin
#                            (a here-document, or `< <(...)`: not a pipe,
#                            whose last command runs in a subshell), the
#                            index written to ROOT (default $work/www, work
#                            made with ts_tmpdir when unset) and served by
#                            ts_nginx_start
#   ts_nginx_run DIR CONF_FN the one nginx start-up (ts_nginx_start's, and a
#                            test's own server such as a caching proxy):
#                            CONF_FN PORT prints the configuration for a free
#                            127.0.0.1 port (ts_nginx_conf_head DIR and
#                            ts_nginx_conf_temp_paths DIR print its common
#                            lines); sets TS__NGINX_STARTED_PORT; stopped at
#                            exit
#   ts_nginx_log_mark        print the current access-log line count
#   ts_nginx_log_since MARK  print access-log lines written after MARK
#
# Environment from ctest: TORCHSOLVE (the binary), TS_SOURCE_DIR,
# TS_BUILD_DIR, TS_SHARED_DIR.  nginx missing → the test is skipped.

set -euo pipefail

TS__CLEANUPS=()
TS_NGINX_PID_FILE=

ts_on_exit() {
  TS__CLEANUPS+=("$*")
}

ts__run_cleanups() {
  local rc=$? i
  set +e
  for ((i = ${#TS__CLEANUPS[@]} - 1; i >= 0; i--)); do
    eval "${TS__CLEANUPS[$i]}"
  done
  return $rc
}
trap ts__run_cleanups EXIT

ts_skip() {
  echo "SKIP: $*" >&2
  exit 77
}

ts_fail() {
  echo "FAIL: $*" >&2
  exit 1
}

# Every temporary folder of a test lies under one root, made here in the
# test's own shell and removed when it exits: tests call ts_tmpdir as
# work=$(ts_tmpdir), a subshell whose ts_on_exit the test never sees (each
# run left its folders behind, caches and venvs included, until /tmp filled).
TS__TMPROOT=$(mktemp -d "${TMPDIR:-/tmp}/ts-test.XXXXXX")
ts_on_exit "rm -rf '$TS__TMPROOT'"

ts_tmpdir() {
  mktemp -d "$TS__TMPROOT/tmp.XXXXXX"
}

# For the tests that build sources with real backends and no network:
# Debian's setuptools and wheel wheels, which need Debian's own
# /usr/bin/python3 for the target venvs; sets WHEELS (their folder) or
# skips the test.
ts_debian_build_wheels() {
  [ -x /usr/bin/python3 ] || ts_skip "no Debian /usr/bin/python3"
  WHEELS=/usr/share/python-wheels
  ls $WHEELS/setuptools-*.whl $WHEELS/wheel-*.whl >/dev/null 2>&1 ||
    ts_skip "python3-setuptools-whl / python3-wheel-whl not installed"
}

# TLS material made with openssl for the https tests, in the current
# folder: ts_tls_ca NAME makes a CA (NAME.pem, NAME.key); ts_tls_signed
# NAME CA CN USAGE a certificate of CA for 127.0.0.1 and localhost with
# extendedKeyUsage USAGE (serverAuth, clientAuth).
ts_tls_ca() {
  openssl req -x509 -newkey rsa:2048 -nodes -days 2 -subj "/CN=torchsolve test $1" \
    -keyout "$1.key" -out "$1.pem" -addext "basicConstraints=critical,CA:TRUE" \
    -addext "keyUsage=critical,keyCertSign,cRLSign" 2>/dev/null
}
ts_tls_signed() {
  openssl req -newkey rsa:2048 -nodes -subj "/CN=$3" -keyout "$1.key" -out "$1.csr" 2>/dev/null
  printf 'subjectAltName=IP:127.0.0.1,DNS:localhost\nbasicConstraints=CA:FALSE\nextendedKeyUsage=%s\n' \
    "$4" >"$1.cnf"
  openssl x509 -req -in "$1.csr" -CA "$2.pem" -CAkey "$2.key" -CAcreateserial -days 2 \
    -extfile "$1.cnf" -out "$1.pem" 2>/dev/null
}

# For the tests that make tiny torch-shaped wheels: a venv in a new
# temporary folder; sets work (the folder), PY (the venv's python), cp (its
# cpXY tag) and tag (cpXY-cpXY-manylinux_2_28_x86_64).
ts_venv_for_wheels() {
  work=$(ts_tmpdir)
  ts_make_venv "$work/venv"
  PY=$work/venv/bin/python
  cp=$("$PY" -c 'import sys; print("cp%d%d" % sys.version_info[:2])')
  tag="$cp-$cp-manylinux_2_28_x86_64"
}

# The opening of the PEP 825 variant tests: ts_venv_for_wheels, then
# variant_mkindex.py's index of made-up variant wheels in $work/www (a
# CHECK command, when given, runs on it before nginx serves it), the cache
# in $work and a CPU-only sysroot that each test fakes GPUs on with flags.
ts_variant_index_start() {
  ts_isolate_from_host
  ts_venv_for_wheels
  python3 "$TS_SOURCE_DIR/tests/integration/variant_mkindex.py" "$work/www" "$tag" ||
    ts_fail "building the variant index"
  [ $# -eq 0 ] || "$@" || ts_fail "the variant index: $*"
  ts_nginx_start "$work/www"
  export TORCHSOLVE_CACHE_DIR=$work/cache
  export TORCHSOLVE_SYSROOT=$TS_SOURCE_DIR/fixtures/sysroot/cpu-only
}

# The opening of the source-build tests: Debian's build wheels ($WHEELS),
# a work folder ($work) with an index of beta 1.0 that nginx serves, the
# build cache in it, pip's variables cleared, a venv of Debian's python3
# at $work/venv (what those wheels need) and the index options ($IX).
ts_build_test_setup() {
  ts_debian_build_wheels
  work=$(ts_tmpdir)
  ts_index_from_spec <<<'simple beta 1.0 py3-none-any'
  export TORCHSOLVE_CACHE_DIR=$work/cache
  ts_clear_pip_env
  "${TORCHSOLVE:?}" venv -q --python /usr/bin/python3 "$work/venv"
  IX=(-i "$TS_NGINX_URL/simple" -f "$WHEELS")
}

ts_clear_pip_env() {
  local v
  for v in $(compgen -e); do
    case $v in PIP_*) unset "$v" ;; esac
  done
}

# The host's own GPU and index settings must not reach a test: unsets every
# TORCHSOLVE_* variable but TORCHSOLVE (the binary under test), the ROCm
# variables and VIRTUAL_ENV, and reads the tree's rules.yaml.
ts_isolate_from_host() {
  local v
  for v in $(compgen -e); do
    case $v in TORCHSOLVE) ;; TORCHSOLVE_*) unset "$v" ;; esac
  done
  unset HSA_OVERRIDE_GFX_VERSION ROCM_PATH VIRTUAL_ENV
  export TORCHSOLVE_BUNDLED_RULES=$TS_SOURCE_DIR/rules.yaml
  # an empty data folder: no rules kept by `rules update`, no warning state
  XDG_DATA_HOME=$(ts_tmpdir)
  export XDG_DATA_HOME
}

ts_make_venv() {
  local dir=${1:?usage: ts_make_venv DIR}
  ts_clear_pip_env
  command -v python3 >/dev/null || ts_skip "python3 not found"
  python3 -m venv --without-pip "$dir" || ts_fail "python3 -m venv $dir failed"
}

ts_managed_python() {
  local sys=${1:?usage: ts_managed_python DIR} exe std ver e site
  command -v python3 >/dev/null || ts_skip "no python3"
  read -r exe std ver < <(python3 -I -c 'import os, sys, sysconfig
print(os.path.realpath(sys.executable), sysconfig.get_path("stdlib"), "%d.%d" % sys.version_info[:2])')
  mkdir -p "$sys/bin" "$sys/lib/python$ver/site-packages"
  cp "$exe" "$sys/bin/python3"
  for e in "$std"/*; do
    case ${e##*/} in site-packages|dist-packages|EXTERNALLY-MANAGED) continue ;; esac
    ln -s "$e" "$sys/lib/python$ver/"
  done
  TS_MANAGED_MARKER=$sys/lib/python$ver/EXTERNALLY-MANAGED
  printf '[externally-managed]\nError=Managed by the test distribution.\n more lines\n' \
    >"$TS_MANAGED_MARKER"
  TS_MANAGED_PY=$sys/bin/python3
  site=$("$TS_MANAGED_PY" -I -c 'import sys, sysconfig
print(sysconfig.get_paths()["purelib"] if sys.prefix == sys.base_prefix == sys.argv[1] else "")' "$sys" 2>/dev/null) || true
  case $site in "$sys"/*) ;; *) ts_skip "cannot build a stand-alone interpreter from $exe (purelib '$site')" ;; esac
  mkdir -p "$site"
  TS_MANAGED_SITE=$site
}

ts__free_port() {
  python3 -c 'import socket
s = socket.socket()
s.bind(("127.0.0.1", 0))
print(s.getsockname()[1])
s.close()'
}

# The one nginx start-up: nginx with DIR/nginx.conf, which CONF_FN PORT
# prints for a free 127.0.0.1 port (another port is tried while the one
# picked is taken), its pid file (DIR/nginx.pid) and temporary files under
# DIR; stopped at exit.  Sets TS__NGINX_STARTED_PORT.
ts_nginx_run() {
  local dir=${1:?usage: ts_nginx_run DIR CONF_FN} conf_fn=${2:?usage: ts_nginx_run DIR CONF_FN}
  local nginx=${TS_NGINX_BIN:-/usr/sbin/nginx}
  [ -x "$nginx" ] || ts_skip "nginx not installed ($nginx); run 'make setup'"
  command -v python3 >/dev/null || ts_skip "python3 not found"
  mkdir -p "$dir/tmp"
  local try port i
  for try in 1 2 3 4 5; do
    port=$(ts__free_port)
    "$conf_fn" "$port" >"$dir/nginx.conf"
    if "$nginx" -p "$dir" -c "$dir/nginx.conf" 2>"$dir/start.err"; then
      ts_on_exit "ts__nginx_quit '$dir/nginx.pid'"
      # daemon on: the pid file exists once the master is up.
      for i in $(seq 50); do [ -s "$dir/nginx.pid" ] && break; sleep 0.05; done
      TS__NGINX_STARTED_PORT=$port
      return 0
    fi
    grep -q 'Address already in use' "$dir/start.err" || break
  done
  cat "$dir/start.err" >&2
  ts_fail "nginx did not start"
}

# The lines a configuration for ts_nginx_run DIR opens with: the user (as
# root, workers would run as nobody and could not read private mktemp
# directories: keep them as the current user), one worker, the pid file
# and error log in DIR.
ts_nginx_conf_head() {
  local dir=$1
  [ "$(id -u)" != 0 ] || echo "user $(id -un) $(id -gn);"
  cat <<CONF
worker_processes 1;
daemon on;
pid $dir/nginx.pid;
error_log $dir/error.log warn;
CONF
}

# The temporary-file paths of an http block, under DIR/tmp.
ts_nginx_conf_temp_paths() {
  local dir=$1
  cat <<CONF
  client_body_temp_path $dir/tmp/body;
  proxy_temp_path $dir/tmp/proxy;
  fastcgi_temp_path $dir/tmp/fastcgi;
  uwsgi_temp_path $dir/tmp/uwsgi;
  scgi_temp_path $dir/tmp/scgi;
CONF
}

# Stops the nginx whose pid file is PIDFILE (QUIT, then KILL after 5 s).
ts__nginx_quit() {
  local pid i
  pid=$(cat "$1" 2>/dev/null || true)
  [ -n "$pid" ] || return 0
  kill -QUIT "$pid" 2>/dev/null || true
  for i in $(seq 100); do kill -0 "$pid" 2>/dev/null || break; sleep 0.05; done
  kill -KILL "$pid" 2>/dev/null || true
  rm -f "$1"
}

# ts_nginx_start's configuration for PORT (from its locals: dir, root,
# types_line, listen_extra, tls_conf, page_cc).
ts__nginx_index_conf() {
  local port=$1
  ts_nginx_conf_head "$dir"
  cat <<CONF
events { worker_connections 512; }
http {
  $types_line
  default_type application/octet-stream;
$(ts_nginx_conf_temp_paths "$dir")
  log_format ts '\$status \$body_bytes_sent "\$request" range="\$http_range" accept="\$http_accept"${TS_NGINX_LOG_EXTRA:-}';
  access_log $dir/access.log ts;
  sendfile on;
  tcp_nodelay on;
  keepalive_timeout 30;
  absolute_redirect off;
  map \$http_accept \$ts_index {
    default index.html;
    "~application/vnd\\.pypi\\.simple\\.v1\\+json" index.json;
  }
  server {
    listen 127.0.0.1:$port$listen_extra;
    server_name localhost;
    $tls_conf
    root $root;
    # Server level, so that locations added by TS_NGINX_EXTRA_CONF inherit it.
    index \$ts_index index.html;
    autoindex on;
    location / {
      add_header Vary Accept always;
    }
    location ~ /index\\.html\$ {
      add_header Vary Accept always;
      $page_cc
    }
    location ~ /index\\.json\$ {
      types { }
      default_type application/vnd.pypi.simple.v1+json;
      add_header Vary Accept always;
      $page_cc
    }
    ${TS_NGINX_EXTRA_CONF:-}
  }
}
CONF
}

ts_nginx_start() {
  local root=${1:?usage: ts_nginx_start ROOT_DIR}
  [ -z "$TS_NGINX_PID_FILE" ] || ts_fail "ts_nginx_start: a server is already running"
  root=$(cd "$root" && pwd)
  local dir mime=/etc/nginx/mime.types
  dir=$(mktemp -d "${TMPDIR:-/tmp}/ts-nginx.XXXXXX")
  ts_on_exit "rm -rf '$dir'"
  local types_line="include $mime;"
  [ -r "$mime" ] || types_line="types { text/html html; application/json json; }"
  local scheme=http listen_extra="" tls_conf=""
  if [ -n "${TS_NGINX_TLS_CERT:-}" ]; then
    scheme=https listen_extra=" ssl http2"
    tls_conf="ssl_certificate ${TS_NGINX_TLS_CERT}; ssl_certificate_key ${TS_NGINX_TLS_KEY:?TS_NGINX_TLS_KEY};"
  fi
  local page_cc=""
  [ -z "${TS_NGINX_PAGE_MAXAGE:-}" ] ||
    page_cc="add_header Cache-Control \"max-age=${TS_NGINX_PAGE_MAXAGE}\" always;"
  ts_nginx_run "$dir" ts__nginx_index_conf
  TS_NGINX_PID_FILE=$dir/nginx.pid
  TS_NGINX_PORT=$TS__NGINX_STARTED_PORT
  TS_NGINX_URL=$scheme://127.0.0.1:$TS_NGINX_PORT
  TS_NGINX_DIR=$dir
  TS_NGINX_ACCESS_LOG=$dir/access.log
  TS_NGINX_ERROR_LOG=$dir/error.log
  export TS_NGINX_URL TS_NGINX_PORT TS_NGINX_ACCESS_LOG TS_NGINX_ERROR_LOG TS_NGINX_DIR
  : >"$TS_NGINX_ACCESS_LOG"
}

# The opening of the tests that serve a local index: install_mkindex.py's
# spec lines on stdin, the index written to ROOT (default $work/www; work
# made with ts_tmpdir when unset) and served by ts_nginx_start.  Call it in
# the test's own shell (a here-document, or `< <(...)` for generated
# lines), not at the end of a pipe, so that TS_NGINX_URL reaches the test.
ts_index_from_spec() {
  [ -n "${work:-}" ] || work=$(ts_tmpdir)
  local root=${1:-$work/www}
  command -v python3 >/dev/null || ts_skip "python3 not found"
  python3 "$TS_SOURCE_DIR/tests/integration/install_mkindex.py" "$root" ||
    ts_fail "install_mkindex.py could not write the index in $root"
  ts_nginx_start "$root"
}

ts_nginx_stop() {
  [ -n "$TS_NGINX_PID_FILE" ] || return 0
  ts__nginx_quit "$TS_NGINX_PID_FILE"
  TS_NGINX_PID_FILE=
}

ts_nginx_log_mark() {
  wc -l <"$TS_NGINX_ACCESS_LOG" | tr -d ' '
}

ts_nginx_log_since() {
  tail -n "+$((${1:?usage: ts_nginx_log_since MARK} + 1))" "$TS_NGINX_ACCESS_LOG"
}

# ts_fails EXPECTED_EXIT PATTERN ARGS...: runs "$T" ARGS (torchsolve), wants
# that exit status and exactly one "error: " line matching PATTERN; the
# output stays in $work/out and $work/err (both variables set by the test).
ts_fails() {
  local want=$1 pat=$2 rc
  shift 2
  set +e
  "${T:?}" "$@" >"${work:?}/out" 2>"$work/err"
  rc=$?
  set -e
  [ "$rc" = "$want" ] || { cat "$work/err"; ts_fail "$*: exit $rc, expected $want"; }
  [ "$(grep -c '^error: ' "$work/err")" = 1 ] || { cat "$work/err"; ts_fail "$*: expected one error line"; }
  grep -q -- "$pat" "$work/err" || { cat "$work/err"; ts_fail "$*: error does not match '$pat'"; }
}

# ts_sync_dry LOCK MACHINE ARGS...: `sync --dry-run` of a fleet lock into
# $work/venv on the captured host fixtures/sysroot/MACHINE; the plan in
# $work/out, stderr in $work/err; the exit status is sync's.
ts_sync_dry() {
  local lock=${1:?usage: ts_sync_dry LOCK MACHINE ARGS...} m=${2:?}
  shift 2
  "${T:?}" sync "$lock" --python "${work:?}/venv" --dry-run \
    --sysroot "$TS_SOURCE_DIR/fixtures/sysroot/$m" "$@" >"$work/out" 2>"$work/err"
}

# ts_planned NAME: the version the last ts_sync_dry plan gives NAME.
ts_planned() {
  awk -v n="${1:?usage: ts_planned NAME}" '$2 == n { print $3 }' "${work:?}/out"
}

# ts_expect_picks LOCK MACHINE PROFILE TORCH: sync picks PROFILE on that
# host, as the best of the lock's profiles it runs, and plans torch TORCH.
ts_expect_picks() {
  local lock=$1 m=$2 profile=$3 want=$4
  ts_sync_dry "$lock" "$m" || { cat "$work/err"; ts_fail "$m: sync"; }
  [ "$(ts_planned torch)" = "$want" ] || ts_fail "$m: torch $(ts_planned torch), wanted $want"
  grep -q "^Profile $profile: the best of the lock's .* profiles this host runs" "$work/err" ||
    ts_fail "$m: not profile $profile: $(cat "$work/err")"
}
