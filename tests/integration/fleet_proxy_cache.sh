#!/usr/bin/env bash
# Fleets through an existing cache: machines that lock and sync through an
# ordinary caching proxy (nginx proxy_cache, the configuration README.md
# documents) fetch each file from the upstream index once.  The upstream
# is lib.sh's nginx on one loopback port, the caching proxy a second nginx
# on another; one lock and two syncs into two venvs with caches of their
# own (two machines) go through the proxy; the upstream's access log must
# show each wheel fetched once, the proxy's each wheel asked for twice.
. "$(dirname "$0")/lib.sh"
T=${TORCHSOLVE:?}
ts_isolate_from_host
ts_venv_for_wheels
export XDG_CONFIG_HOME=$work/config
ts_index_from_spec < <(
  echo "simple alpha 1.0 py3-none-any beta;; gamma"
  echo "simple beta 2.0 py3-none-any"
  echo "simple gamma 0.5 $tag"
)
upstream=$TS_NGINX_URL

# The caching proxy: the README's configuration, on loopback.
pdir=$work/proxy
mkdir -p "$pdir/cache"
proxy_conf() {
  ts_nginx_conf_head "$pdir"
  cat <<CONF
events { worker_connections 256; }
http {
$(ts_nginx_conf_temp_paths "$pdir")
  log_format ts '\$status "\$request" cache=\$upstream_cache_status';
  access_log $pdir/access.log ts;
  proxy_cache_path $pdir/cache levels=1:2 keys_zone=indexes:10m max_size=1g inactive=30d use_temp_path=off;
  server {
    listen 127.0.0.1:$1;
    location / {
      proxy_pass $upstream;
      proxy_cache indexes;
      proxy_cache_key \$scheme\$proxy_host\$request_uri\$http_accept;
      proxy_cache_valid 200 10m;
      proxy_cache_revalidate on;
      proxy_cache_lock on;
      proxy_cache_use_stale error timeout updating;
      proxy_ignore_headers Vary;
    }
  }
}
CONF
}
ts_nginx_run "$pdir" proxy_conf
proxy=http://127.0.0.1:$TS__NGINX_STARTED_PORT
IDX=(-i "$proxy/simple" --torch-index-url "$proxy/whl" --cpu)

# One lock and two syncs, each "machine" with a cache of its own.
TORCHSOLVE_CACHE_DIR=$work/cache-lock "$T" lock --python "$work/venv" "${IDX[@]}" alpha \
  -o "$work/pylock.toml" 2>"$work/err" || { cat "$work/err"; ts_fail "lock through the proxy"; }
grep -q "url = \"$proxy/simple/" "$work/pylock.toml" || ts_fail "the lock does not name the proxy"
ts_make_venv "$work/second"
for machine in "$work/venv" "$work/second"; do
  TORCHSOLVE_CACHE_DIR=$work/cache-$(basename "$machine") "$T" sync "$work/pylock.toml" \
    --python "$machine" --cpu 2>"$work/err" || { cat "$work/err"; ts_fail "sync $machine"; }
  "$machine/bin/python" -c 'import alpha, beta, gamma' || ts_fail "sync $machine: not installed"
done

# Each wheel: once from the upstream, twice (one per sync) from the proxy.
nwheels=0
for whl in "$work"/www/simple/*.whl; do
  f=$(basename "$whl")
  up=$(grep -c "GET /simple/$f " "$TS_NGINX_ACCESS_LOG" || true)
  via=$(grep -c "GET /simple/$f " "$pdir/access.log" || true)
  echo "$f: upstream $up, proxy $via"
  [ "$up" = 1 ] || { cat "$TS_NGINX_ACCESS_LOG"; ts_fail "$f fetched $up times from the upstream"; }
  [ "$via" -ge 2 ] || { cat "$pdir/access.log"; ts_fail "$f asked $via times of the proxy"; }
  nwheels=$((nwheels + 1))
done
[ "$nwheels" = 3 ] || ts_fail "expected 3 wheels, saw $nwheels"
# Index pages too: the proxy answers the second and later asks itself.
pages=$(grep -c 'GET /simple/[a-z]*/ ' "$TS_NGINX_ACCESS_LOG" || true)
distinct=$(grep -o 'GET /simple/[a-z]*/ ' "$TS_NGINX_ACCESS_LOG" | sort -u | wc -l)
[ "$pages" = "$distinct" ] || { cat "$TS_NGINX_ACCESS_LOG"; ts_fail "a page was fetched from the upstream twice"; }
echo "fleet through a caching proxy: each file once from the upstream"
