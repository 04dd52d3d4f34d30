#!/usr/bin/env bash
# lock --check of a universal fleet lock (issue 27, "Noise"): the lock
# records its grid and its profiles, so --check needs neither --universal
# and its --environment nor the --profile list repeated; it says the lock
# is up to date, exit 0, and a stale lock is still exit 1.
. "$(dirname "$0")/lib.sh"
T=${TORCHSOLVE:?}
ts_isolate_from_host
ts_venv_for_wheels
export XDG_CONFIG_HOME=$work/config TORCHSOLVE_CACHE_DIR=$work/cache
minor=$("$PY" -c 'import sys; print("%d.%d" % sys.version_info[:2])')
ts_index_from_spec < <(
  for b in cpu cu126; do echo "whl/$b torch 2.9.1+$b $cp-$cp-manylinux_2_28_x86_64 filelock"; done
  echo "simple numpy 2.1.0 $cp-$cp-manylinux_2_28_x86_64"
  echo "simple filelock 3.16.1 py3-none-any"
)
IDX=(-i "$TS_NGINX_URL/simple" --torch-index-url "$TS_NGINX_URL/whl")
ENV="sys_platform == 'linux' and platform_machine == 'x86_64' and implementation_name == 'cpython'"
"$T" lock --universal --requires-python "==$minor.*" --environment "$ENV" "${IDX[@]}" \
  --profile cpu --profile cu126 torch numpy -o "$work/u.toml" 2>"$work/err" ||
  { cat "$work/err"; ts_fail "lock --universal --profile"; }
cp "$work/u.toml" "$work/first.toml"
"$T" lock --check "${IDX[@]}" torch numpy -o "$work/u.toml" 2>"$work/err" ||
  { cat "$work/err"; ts_fail "lock --check of a universal fleet lock without --universal/--profile"; }
grep -q "is up to date" "$work/err" || { cat "$work/err"; ts_fail "--check says nothing"; }
cmp -s "$work/u.toml" "$work/first.toml" || ts_fail "--check changed the lock"
rc=0; "$T" lock --check "${IDX[@]}" torch -o "$work/u.toml" 2>"$work/err" || rc=$?
[ "$rc" = 1 ] || { cat "$work/err"; ts_fail "--check of a stale universal lock: exit $rc"; }
echo "lock_check_universal: ok"
